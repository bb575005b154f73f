"""Shared fixtures: every test gets its own palace folder (``$PALACE_PATH``); the sample
corpus is mined once per session with the real spaCy pipeline and the real ONNX model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_corpus"


@pytest.fixture(autouse=True)
def palace_env(tmp_path, monkeypatch):
    """Point ``$PALACE_PATH`` at a temporary folder so no test touches ``~/.palace``, and
    keep ``$PALACE_CHROMA_URL`` unset around each test (``palace --chroma-url`` sets it
    in the process; recorded first, so the teardown removes it whatever the test did)."""
    monkeypatch.setenv("PALACE_PATH", str(tmp_path / "palace"))
    monkeypatch.setenv("PALACE_CHROMA_URL", "")
    monkeypatch.delenv("PALACE_CHROMA_URL")
    return tmp_path / "palace"


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
