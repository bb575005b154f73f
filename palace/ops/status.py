"""``status``: where the palace is, which model built it, counts, and every file's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace.store import upkeep

if TYPE_CHECKING:
    from palace.config import Config
    from palace.store.store import Store


@dataclass(frozen=True)
class FileState:
    """One path palace has seen: ``status`` is indexed, skipped or failed; ``reason`` why."""

    wing: str
    path: str
    room: str
    status: str
    reason: str
    drawers: int
    doc_date: str | None
    doc_date_source: str | None
    encoding: str | None


@dataclass(frozen=True)
class StatusReport:
    """Counts of the palace, the state of each file (sorted by wing, then path) and the
    user's predicates that never fired."""

    palace: str
    embedding_model: str | None
    embedding_dimension: int | None
    wings: tuple[str, ...]
    files: dict[str, int]
    drawers: int
    drawers_awaiting_vectors: int
    entities: int
    mentions: int
    date_mentions: int
    facts: int
    facts_invalidated: int
    file_states: tuple[FileState, ...]
    #: predicates added in ``config.json`` that no mined note has yielded a fact of, with
    #: the wings they were looked for in (check them with ``palace extract``)
    unused_predicates: tuple[str, ...] = ()
    #: what needs the user's attention (the vector store gone while drawers remain)
    warnings: tuple[str, ...] = ()

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README. (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def status(store: "Store", config: "Config") -> StatusReport:
    """Read the counts and per-file states of the palace in ``store`` (SQLite only: no
    Chroma, no models); ``config``'s predicates are checked for facts."""
    conn = store.conn
    name, dim = store.model_info()
    files = {"indexed": 0, "skipped": 0, "failed": 0, **upkeep.file_counts(conn)}
    states = tuple(
        FileState(r["wing"], r["path"], r["room"], r["status"], r["reason"] or "", r["n"],
                  r["doc_date"], r["doc_date_source"], r["encoding"])
        for r in upkeep.file_states(conn)
    )
    graph = upkeep.graph_counts(conn)
    return StatusReport(
        palace=str(store.path),
        embedding_model=name,
        embedding_dimension=dim,
        wings=tuple(upkeep.wings(conn)),
        files=files,
        drawers=upkeep.count_drawers(conn),
        drawers_awaiting_vectors=upkeep.count_drawers(conn, embedded=False),
        entities=graph["entities"],
        mentions=graph["mentions"],
        date_mentions=graph["date_mentions"],
        facts=graph["facts"],
        facts_invalidated=graph["facts_invalidated"],
        file_states=states,
        unused_predicates=_unused_predicates(store, config),
        warnings=_warnings(store),
    )


def _warnings(store: "Store") -> tuple[str, ...]:
    """What needs attention, read without opening Chroma: its folder gone while drawers
    are marked as embedded."""
    if upkeep.has_drawers(store.conn, embedded=True) and store.vectors.lost():
        return ("the vector store (chroma/) is missing: `ask` answers from BM25 and the graph alone"
                " until `palace doctor --repair` (or the next `palace mine`) embeds the drawers again",)
    return ()


def _unused_predicates(store: "Store", config: "Config") -> tuple[str, ...]:
    """The predicates of ``config.json`` (added or overriding a shipped one) of which the
    palace holds no fact, live or invalidated, though it has mined notes."""
    names = [p.get("name") for p in config.predicates]
    if not names or not upkeep.has_drawers(store.conn):
        return ()
    used = upkeep.predicates_with_facts(store.conn, names)
    return tuple(n for n in names if n not in used)
