"""The CLI: exit codes, error lines, JSON output, and the README documents every command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palace.cli.main import app

runner = CliRunner()
README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.unit
def test_status_without_a_palace_is_a_user_error(tmp_path):
    result = runner.invoke(app, ["status", "--palace", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert f"Error: no palace at {tmp_path / 'none'}" in result.output
    assert "hint: run `palace mine DIR` first" in result.output


@pytest.mark.unit
def test_mine_a_missing_folder_is_a_user_error(tmp_path):
    result = runner.invoke(app, ["mine", str(tmp_path / "nope"), "--palace", str(tmp_path / "p")])
    assert result.exit_code == 1
    assert f"Error: not a folder: {tmp_path / 'nope'}" in result.output


@pytest.mark.unit
def test_bad_usage_exits_2():
    assert runner.invoke(app, ["ask"]).exit_code == 2


def test_bad_date_option_is_a_user_error(mined_sample):
    palace_dir, _ = mined_sample
    result = runner.invoke(app, ["ask", "budget", "--since", "not a date", "--palace", str(palace_dir)])
    assert result.exit_code == 1
    assert "Error: --since: cannot read a date from 'not a date'" in result.output


def test_mine_ask_status_end_to_end(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Council sync\n\nThe council approved travel grants for RustConf speakers.\n")
    palace = str(tmp_path / "palace")
    mined = runner.invoke(app, ["mine", str(notes), "--palace", palace])
    assert mined.exit_code == 0, mined.output
    assert "files: 1 indexed, 0 unchanged, 0 skipped, 0 failed" in mined.output
    assert re.search(r"elapsed: [\d.]+ s\s+words: \d+\s+words/s: [\d,]+", mined.output)
    asked = runner.invoke(app, ["ask", "travel grants", "--palace", palace, "--json"])
    assert asked.exit_code == 0, asked.output
    data = json.loads(asked.output)
    assert data["results"][0]["path"] == "2024-04-12.md"
    assert data["results"][0]["line_start"] == 1
    shown = runner.invoke(app, ["ask", "travel grants", "--palace", palace])
    assert "1. 2024-04-12.md:1-3" in shown.output and "why: " in shown.output
    status = runner.invoke(app, ["status", "--palace", palace, "--json"])
    assert json.loads(status.output)["files"] == {"indexed": 1, "skipped": 0, "failed": 0}


@pytest.mark.unit
def test_readme_documents_every_command():
    text = README.read_text()
    for command in app.registered_commands:
        name = command.name or command.callback.__name__
        assert f"palace {name}" in text, name


@pytest.mark.unit
def test_readme_json_fields_match_the_result_dataclasses():
    from dataclasses import fields

    from palace.graph.facts import FactsResult, FactView
    from palace.graph.profile import Citation, EntityProfile, Neighbour
    from palace.ask.hits import Hit, Why
    from palace.ask.result import AskResult, PlanSummary
    from palace.mine.extract import ExtractResult, ReadFact, Rejection
    from palace.ops.status import StatusReport

    text = README.read_text()
    from palace.graph.profile import Connection, Hop
    from palace.graph.resolution import AliasEntry, AliasReport, Decision, Resolution

    for cls in (AskResult, Hit, PlanSummary, Why, StatusReport, EntityProfile, Neighbour, Citation,
                FactsResult, FactView, AliasReport, AliasEntry, Resolution, Decision, Connection, Hop,
                ExtractResult, ReadFact, Rejection):
        for field in fields(cls):
            assert f"`{field.name}`" in text, f"{cls.__name__}.{field.name} is not documented in the README"


def test_help_and_status_import_neither_spacy_nor_chromadb(mined_sample):
    import subprocess
    import sys

    palace_dir, _ = mined_sample
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from palace.cli.main import app\n"
        "r = CliRunner()\n"
        "assert r.invoke(app, ['--help']).exit_code == 0\n"
        f"assert r.invoke(app, ['status', '--palace', {str(palace_dir)!r}]).exit_code == 0\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'spacy', 'chromadb', 'onnxruntime', 'torch'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_until_a_period_means_through_its_end_and_bad_paths_are_errors(mined_sample, tmp_path):
    palace_dir, _ = mined_sample
    result = runner.invoke(app, ["ask", "Harbor", "--until", "2024", "--palace", str(palace_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["plan"]["date_window"]["end"] == "2025-01-01"
    odd = runner.invoke(app, ["ask", "Harbor", "--since", "soonish", "--palace", str(palace_dir)])
    assert odd.exit_code == 1 and "cannot read a date" in odd.output
    readme = runner.invoke(app, ["status", "--palace", str(README)])
    assert readme.exit_code == 1 and f"Error: the palace path {README} is a file" in readme.output
    missing = runner.invoke(app, ["mine", str(tmp_path / "nope"), "--palace", str(tmp_path / "p2")])
    assert missing.exit_code == 1 and not (tmp_path / "p2").exists()


def test_extract_shows_facts_routes_and_rejections_without_a_palace(tmp_path):
    result = runner.invoke(app, ["extract", "Ines Moreau moved from Oslo to Bergen. Bo Chen might join Acme.",
                                 "--date", "2024-05-02", "--json", "--palace", str(tmp_path / "none")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    facts = {(f["subject"], f["predicate"], f["object"], f["valid_from"], f["valid_to"], f["route"]) for f in data["facts"]}
    assert ("Ines Moreau", "lives_in", "Bergen", "2024-05-02", None, "one: supersedes") in facts
    assert ("Ines Moreau", "lives_in", "Oslo", None, "2024-05-02", "one: supersedes") in facts
    assert {"predicate": "joined", "reason": "hedged"}.items() <= next(
        r for r in data["rejected"] if r["predicate"] == "joined").items()
    assert not (tmp_path / "none").exists()  # nothing stored, no palace made
    note = tmp_path / "harbor.md"
    note.write_text("---\ntitle: Harbor\nstatus: blocked\n---\nSensors are late.\n", encoding="utf-8")
    shown = runner.invoke(app, ["extract", "--file", str(note), "--date", "2024-05-02"])
    assert shown.exit_code == 0 and "Harbor –status→ blocked" in shown.output and "rule front-matter-status" in shown.output
    both = runner.invoke(app, ["extract", "x", "--file", str(note)])
    assert both.exit_code == 1 and "Error: give a TEXT or --file FILE (not both)" in both.output


@pytest.mark.unit
def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and re.fullmatch(r"palace \d+\.\d+\.\d+\n", result.output)
