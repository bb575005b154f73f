"""NLP in several processes: the same extractions as one process, and how many
processes a run gets."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.errors import ConfigError
from palace.mine.options import Machine, MineOptions, nlp_processes
from palace.nlp.extraction import Extractor
from palace.nlp.rules import RelationRules
from palace.nlp.sentence import Context
from palace.config import Config
from palace.graph.temporal import default_registry, load_values

TEXTS = [
    "Alice Chen joined Acme Robotics in March 2024 as staff engineer.",
    "Bob Okafor reports to Helen Marsh since 3 September 2024.",
    "Priya Raman left Northwind Labs last Friday.",
    "We will probably move the Harbor budget to Q3.",
    "Mara: I now lead the platform team.",
] * 60  # 300 drawers: three batches, interleaved between the workers


@pytest.mark.slow
def test_worker_processes_read_exactly_what_one_process_reads():
    rules = RelationRules.from_registry(default_registry(), load_values(None))
    items = [(text, dt.date(2024, 10, 1), Context(title="Weekly sync", owner="Mara")) for text in TEXTS]
    here = list(Extractor(rules=rules, batch_size=64).extract_many(items))
    spread = Extractor(rules=rules, batch_size=64, processes=2)
    there = list(spread.extract_many(items))
    assert there == here
    assert sum(len(e.relations) for e in there) >= 4 * 60  # the facts are there, not only the names


@pytest.mark.unit
def test_a_run_gets_one_process_unless_the_machine_has_cores_to_spare(monkeypatch, tmp_path):
    monkeypatch.delenv("PALACE_NLP_PROCESSES", raising=False)
    options = MineOptions()

    def processes(drawers: int, machine: Machine, budget: MineOptions = options) -> int:
        return nlp_processes(drawers, Config.load(tmp_path), budget, machine)

    assert processes(100_000, Machine(cores=2, available_mb=64_000)) == 1  # spaCy and the embedder have one each
    eight_cores = Machine(cores=8, available_mb=64_000)
    assert processes(100, eight_cores) == 1  # a watcher's save: no worker is worth starting
    assert processes(100_000, eight_cores) == 7  # every core but the embedder's
    little_memory = Machine(cores=8, available_mb=1_300)
    assert processes(100_000, little_memory) == 3  # as many as the free memory holds
    assert processes(100_000, little_memory, MineOptions(worker_mb=650)) == 2  # at the budget's size per worker
    assert processes(100_000, Machine(cores=8, available_mb=None)) == 1  # memory unknown: one worker's worth
    assert processes(100, eight_cores, MineOptions(parallel_min_drawers=0)) == 7  # the threshold is the budget's
    (tmp_path / "config.json").write_text('{"nlp_processes": 2}')
    assert processes(100_000, eight_cores) == 2
    assert processes(100, eight_cores) == 1  # a save never starts workers, whatever the setting
    monkeypatch.setenv("PALACE_NLP_PROCESSES", "4")
    assert processes(100_000, eight_cores) == 4
    monkeypatch.setenv("PALACE_NLP_PROCESSES", "many")
    with pytest.raises(ConfigError):
        processes(100_000, eight_cores)


def test_this_machine_is_measured():
    here = Machine.here()
    assert here.cores >= 1 and (here.available_mb is None or here.available_mb > 0)


@pytest.mark.slow
def test_a_mine_with_worker_processes_holds_what_a_mine_without_holds(mined_sample, sample_copy, tmp_path,
                                                                        monkeypatch):
    from palace.core import Palace

    def graph(palace):
        return palace.conn.execute(
            "SELECT s.name, f.predicate, coalesce(o.name, f.object_value), f.valid_from, f.valid_to, f.drawer_id,"
            " f.superseded_by IS NULL FROM facts f JOIN entities s ON s.id = f.subject_id"
            " LEFT JOIN entities o ON o.id = f.object_id ORDER BY 1, 2, 3, 4, 6").fetchall()

    monkeypatch.setenv("PALACE_NLP_PROCESSES", "2")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(sample_copy, wing="sample", options=MineOptions(parallel_min_drawers=0))  # a small corpus
        spread = [tuple(r) for r in graph(palace)]
    with Palace.open(mined_sample[0], create=False) as palace:
        assert spread == [tuple(r) for r in graph(palace)] and len(spread) > 100
