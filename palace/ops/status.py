"""``status``: where the palace is, which model built it, counts, and every file's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from palace.core import Palace


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


def status(palace: "Palace") -> StatusReport:
    """Read the counts and per-file states of ``palace`` (SQLite only: no Chroma, no models)."""
    conn = palace.conn
    name, dim = palace.model_info()
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    files = {"indexed": 0, "skipped": 0, "failed": 0}
    for row in conn.execute("SELECT status, count(*) FROM files GROUP BY status"):
        files[row[0]] = row[1]
    states = tuple(
        FileState(r["wing"], r["path"], r["room"], r["status"], r["reason"] or "", r["n"],
                  r["doc_date"], r["doc_date_source"], r["encoding"])
        for r in conn.execute(
            "SELECT f.*, (SELECT count(*) FROM drawers d WHERE d.file_id = f.id) AS n FROM files f"
            " ORDER BY f.wing, f.path"
        )
    )
    return StatusReport(
        palace=str(palace.path),
        embedding_model=name,
        embedding_dimension=dim,
        wings=tuple(r[0] for r in conn.execute("SELECT DISTINCT wing FROM files ORDER BY wing")),
        files=files,
        drawers=one("SELECT count(*) FROM drawers"),
        drawers_awaiting_vectors=one("SELECT count(*) FROM drawers WHERE embedded = 0"),
        entities=one("SELECT count(*) FROM entities"),
        mentions=one("SELECT count(*) FROM mentions"),
        date_mentions=one("SELECT count(*) FROM date_mentions"),
        facts=one("SELECT count(*) FROM facts WHERE invalidated_at IS NULL"),
        facts_invalidated=one("SELECT count(*) FROM facts WHERE invalidated_at IS NOT NULL"),
        file_states=states,
        unused_predicates=_unused_predicates(palace),
        warnings=_warnings(palace),
    )


def _warnings(palace: "Palace") -> tuple[str, ...]:
    """What needs attention, read without opening Chroma: its folder gone while drawers
    are marked as embedded."""
    embedded = palace.conn.execute("SELECT 1 FROM drawers WHERE embedded = 1 LIMIT 1").fetchone()
    if embedded and palace.vectors.lost():
        return ("the vector store (chroma/) is missing: `ask` answers from BM25 and the graph alone"
                " until `palace doctor --repair` (or the next `palace mine`) embeds the drawers again",)
    return ()


def _unused_predicates(palace: "Palace") -> tuple[str, ...]:
    """The predicates of ``config.json`` (added or overriding a shipped one) of which the
    palace holds no fact, live or invalidated, though it has mined notes."""
    names = [p.get("name") for p in palace.config.predicates]
    if not names or not palace.conn.execute("SELECT 1 FROM drawers LIMIT 1").fetchone():
        return ()
    used = {r[0] for r in palace.conn.execute(
        f"SELECT DISTINCT predicate FROM facts WHERE predicate IN ({','.join('?' * len(names))})", names)}
    return tuple(n for n in names if n not in used)
