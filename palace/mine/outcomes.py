"""What a mining run returns: a :class:`FileOutcome` per path (also told to
``on_file`` as it is decided) and the :class:`MineReport` of the run (``palace mine
--json`` prints it)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FileOutcome", "MineReport"]


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one path: ``status`` is indexed, unchanged, moved (the same
    content under a new path: its drawers, facts and vectors follow it; ``reason`` names
    the old path), skipped, failed or deleted."""

    path: str
    status: str
    reason: str = ""
    drawers: int = 0
    words: int = 0


@dataclass(frozen=True)
class MineReport:
    """The summary of one ``mine`` run (counts are files unless named otherwise).

    ``drawers``, ``entities`` and ``facts`` are totals of the palace after the run
    (``facts`` counts current facts); ``new_drawers`` the drawers this run added;
    ``words`` the words of the files indexed in this run; ``words_per_s`` words / elapsed.
    """

    palace: str
    wing: str
    root: str
    indexed: int
    unchanged: int
    moved: int
    skipped: int
    failed: int
    deleted: int
    drawers: int
    new_drawers: int
    embedded: int
    entities: int
    facts: int
    words: int
    elapsed_s: float
    words_per_s: float
    outcomes: tuple[FileOutcome, ...] = ()
