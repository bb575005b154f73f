"""Shared fixtures: every test gets its own palace folder (``$PALACE_PATH``); the sample
corpus is mined once per session with the real spaCy pipeline and the real ONNX model.

The unit tier (``pytest -m unit``) is the tests marked ``unit``: they load none of
:data:`HEAVY_MODULES` (spaCy, the ONNX runtime, Chroma) and the whole tier runs in
seconds. The hooks below hold it to that: a unit test fails when its setup or its call
loads one, or when collecting the test modules did (``-m unit`` collects them all).
A heavy module loaded earlier in the session by another test is not seen again: run
``pytest -m unit`` to check the tier.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_corpus"
#: What a unit test may not load: the spaCy pipeline, the ONNX runtime, Chroma.
HEAVY_MODULES = ("spacy", "onnxruntime", "chromadb")
_COLLECTED_HEAVY = pytest.StashKey[frozenset]()


def _heavy_loaded() -> frozenset[str]:
    return frozenset(name for name in HEAVY_MODULES if name in sys.modules)


def pytest_collection_finish(session) -> None:
    session.config.stash[_COLLECTED_HEAVY] = _heavy_loaded()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _light(item, "its setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _light(item, "its call"))


def _light(item, phase: str):
    """Run one phase of a test; fail a test marked ``unit`` if the phase, or the
    collection of the test modules, loaded a heavy module."""
    before = _heavy_loaded()
    result = yield
    if item.get_closest_marker("unit") is None:
        return result
    collected = item.config.stash.get(_COLLECTED_HEAVY, frozenset())
    if collected:
        pytest.fail(f"collecting the tests loaded {', '.join(sorted(collected))}: a test module imports it at"
                    " its top, so the unit tier loads it too; import it inside the tests that use it",
                    pytrace=False)
    loaded = _heavy_loaded() - before
    if loaded:
        pytest.fail(f"a unit test may not load {', '.join(sorted(loaded))}, and {phase} did: use the fakes"
                    " (tests/fakes.py) or drop the unit mark", pytrace=False)
    return result


@pytest.fixture(autouse=True)
def palace_env(tmp_path, monkeypatch):
    """Point ``$PALACE_PATH`` at a temporary folder so no test touches ``~/.palace``, and
    keep ``$PALACE_CHROMA_URL`` unset around each test (``palace --chroma-url`` sets it
    in the process; recorded first, so the teardown removes it whatever the test did)."""
    monkeypatch.setenv("PALACE_PATH", str(tmp_path / "palace"))
    monkeypatch.setenv("PALACE_CHROMA_URL", "")
    monkeypatch.delenv("PALACE_CHROMA_URL")
    return tmp_path / "palace"


@pytest.fixture(scope="session")
def migrated_palace(tmp_path_factory):
    """``migrated_palace(folder) -> folder``: put an empty palace.db with every migration
    applied in ``folder`` (made if missing). The database is migrated once per session and
    copied: migrating a new one costs a tenth of a second, mostly waiting on the disk."""
    from palace.store import sqlite as db

    template = tmp_path_factory.mktemp("migrated")
    db.connect(template).close()

    def make(folder: Path) -> Path:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copyfile(template / db.DB_FILENAME, folder / db.DB_FILENAME)
        return folder

    return make


@pytest.fixture
def empty_palace(tmp_path, migrated_palace) -> Path:
    """A palace folder holding an empty, migrated palace.db (:func:`migrated_palace`)."""
    return migrated_palace(tmp_path / "empty-palace")


@pytest.fixture
def clock():
    """Recorded time from a :class:`fakes.ManualClock` for the test (``clock.advance(1)``
    instead of sleeping a second between two minings); the system clock again after it."""
    from fakes import ManualClock
    from palace.graph.temporal import set_clock

    manual = ManualClock()
    previous = set_clock(manual)
    yield manual
    set_clock(previous)


@pytest.fixture(scope="session")
def sample_copy(tmp_path_factory) -> Path:
    """A copy of sample_corpus/ (hidden files and awkward bytes included)."""
    target = tmp_path_factory.mktemp("corpus") / "sample_corpus"
    shutil.copytree(SAMPLE, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
def mined_sample(tmp_path_factory, sample_copy):
    """A palace mined from the sample corpus once: ``(palace_dir, MineReport)``."""
    from palace.core import Palace

    palace_dir = tmp_path_factory.mktemp("sample-palace")
    with Palace.open(palace_dir) as palace:
        report = palace.mine(sample_copy, wing="sample")
    return palace_dir, report


@pytest.fixture()
def sample_palace(mined_sample):
    """An open :class:`Palace` on the session's mined sample corpus."""
    from palace.core import Palace

    palace_dir, _ = mined_sample
    palace = Palace.open(palace_dir, create=False)
    yield palace
    palace.close()
