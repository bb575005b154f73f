"""``ask``: plan the question, run the retrievers, fuse them, explain every hit.

``ask`` is a function of (palace, question, options) with no process state, so a warm
process can answer it too. It never loads spaCy.

Retrievers (each a ranked list for :func:`palace.fusion.fuse`):

- ``bm25``: FTS5 over title, heading path and drawer text (weights 2, 2, 1), terms OR-ed;
- ``vector``: cosine similarity of the question's embedding to the drawers' (Chroma; an
  exact scan of the allowed drawers when a filter leaves few);
- ``graph``: drawers that mention the entities named in the question, ranked by how many of
  them they mention, then how often, then how recent;
- ``exact`` (identifier-shaped questions): drawers holding every identifier, by BM25;
- ``date`` (with a date window): the other lists' candidates in the window, drawers dated
  in it before drawers that only mention a date inside it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from palace.errors import PalaceNotFound, UsageError
from palace.fusion import Contribution, RankedList, fuse
from palace.planning import Plan, plan_question

if TYPE_CHECKING:
    from palace.core import Palace

CANDIDATES = 100
EXACT_SCAN_LIMIT = 4000
SNIPPET_CHARS = 240


@dataclass(frozen=True)
class Why:
    """Why a drawer was returned: each retriever's contribution (they sum to the score),
    the question terms found in it, the entities it mentions, the date window applied."""

    retrievers: tuple[Contribution, ...]
    matched_terms: tuple[str, ...] = ()
    matched_entities: tuple[str, ...] = ()
    date_window: str | None = None


@dataclass(frozen=True)
class Hit:
    """One result: where the drawer is (path and 1-based inclusive line span), its date,
    a snippet and :class:`Why`."""

    rank: int
    drawer_id: str
    score: float
    path: str
    wing: str
    room: str
    line_start: int
    line_end: int
    date: str | None
    title: str
    heading_path: tuple[str, ...]
    snippet: str
    why: Why


@dataclass(frozen=True)
class PlanSummary:
    """The plan as shown to users: window (ISO, half-open), how it was used, entities."""

    terms: tuple[str, ...]
    date_window: dict | None
    date_window_text: str
    date_window_source: str
    date_window_mode: str
    entities: tuple[dict, ...]
    identifiers: tuple[str, ...]
    weights: dict[str, float]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class AskResult:
    """The answer to one question: the plan, the hits best first, the time it took."""

    question: str
    palace: str
    plan: PlanSummary
    results: tuple[Hit, ...]
    elapsed_ms: float

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README."""
        return json.dumps(asdict(self), default=_json_default, ensure_ascii=False, indent=2)


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def ask(
    palace: "Palace",
    question: str,
    *,
    top_k: int = 10,
    wing: str | None = None,
    room: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    now: dt.date | None = None,
) -> AskResult:
    """Answer ``question`` from ``palace``: the ``top_k`` best drawers with explanations.

    ``wing``/``room`` restrict the search; ``since``/``until`` (inclusive) filter by date;
    ``now`` anchors relative dates in the question (default: today). Raises
    :class:`PalaceNotFound` when the palace holds no drawers, and
    :class:`palace.errors.ModelMismatch` when it was built with another embedding model.
    """
    started = time.perf_counter()
    conn = palace.conn
    if not question.strip():
        raise UsageError("the question is empty", hint='ask in words, e.g. palace ask "what did we decide"')
    if conn.execute("SELECT count(*) FROM drawers").fetchone()[0] == 0:
        raise PalaceNotFound(f"the palace at {palace.path} holds no drawers", hint="run `palace mine DIR` first")
    palace.check_model()
    plan = plan_question(conn, question, now=now, since=since, until=until)
    notes = list(plan.notes)

    _check_scope(conn, wing, room)
    scope_sql, scope_params = _scope(wing, room)
    allowed: set[int] | None = None
    if scope_sql:
        allowed = {r[0] for r in conn.execute(f"SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id WHERE {scope_sql}", scope_params)}
    window_mode = plan.window_mode
    tiers: dict[int, int] = {}
    if plan.window is not None:
        tiers = _in_window(conn, plan.window)
        in_window = set(tiers) if allowed is None else set(tiers) & allowed
        dated = sum(1 for rowid in in_window if tiers[rowid] > 0)
        if dated or plan.window_source == "options":
            allowed = in_window
            notes.append(
                f"date window {plan.window} filters: {dated} drawer{'' if dated == 1 else 's'} in it"
                f" (+{len(in_window) - dated} from undated notes)"
            )
        else:
            window_mode = "ignored"
            notes.append(f"no drawer falls in {plan.window}; the window was ignored")

    weights = dict(plan.weights)
    lists = [
        RankedList("bm25", weights["bm25"], _bm25(conn, plan.terms, allowed)),
        RankedList("vector", weights["vector"], _vector(palace, question, allowed, _chroma_where(wing, room))),
    ]
    entity_names: dict[str, tuple[str, ...]] = {}
    if plan.entities:
        graph_items, entity_names = _graph(conn, plan.entities, allowed, lists)
        lists.append(RankedList("graph", weights["graph"], graph_items))
    if plan.identifiers:
        lists.append(RankedList("exact", weights["exact"], _exact(conn, plan.identifiers, allowed)))
    if tiers and window_mode == "filter":
        lists.append(RankedList("date", weights["date"], _date_list(conn, lists, tiers)))
    fused = fuse(lists)[:top_k]

    hits = _hits(conn, fused, plan, window_mode, entity_names)
    summary = PlanSummary(
        terms=plan.terms,
        date_window=plan.window.to_json() if plan.window else None,
        date_window_text=plan.window_text,
        date_window_source=plan.window_source,
        date_window_mode=window_mode,
        entities=tuple(
            {"text": e.text, "name": e.name, "types": list(e.types), "entity_ids": list(e.entity_ids),
             "via": e.via, "use": "boost"}
            for e in plan.entities
        ),
        identifiers=plan.identifiers,
        weights=weights,
        notes=tuple(notes),
    )
    return AskResult(
        question=question,
        palace=str(palace.path),
        plan=summary,
        results=tuple(hits),
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
    )


def _chroma_where(wing: str | None, room: str | None) -> dict | None:
    clauses = [{"wing": wing}] if wing else []
    clauses += [{"room": room}] if room else []
    if len(clauses) > 1:
        return {"$and": clauses}
    return clauses[0] if clauses else None


def _check_scope(conn, wing: str | None, room: str | None) -> None:
    """An unknown wing or room is a user error that names the known ones."""
    if wing:
        wings = [r[0] for r in conn.execute("SELECT DISTINCT wing FROM files ORDER BY wing")]
        if wing not in wings:
            raise UsageError(f"no wing {wing!r} in this palace", hint=f"wings: {', '.join(wings)}")
    if room:
        sql, params = "SELECT DISTINCT room FROM files WHERE status = 'indexed'", []
        if wing:
            sql, params = sql + " AND wing = ?", [wing]
        rooms = [r[0] for r in conn.execute(sql + " ORDER BY room", params)]
        if room not in rooms:
            raise UsageError(f"no room {room!r}{' in wing ' + repr(wing) if wing else ''}",
                             hint=f"rooms: {', '.join(rooms)}")


def _scope(wing: str | None, room: str | None) -> tuple[str, list]:
    clauses, params = [], []
    if wing:
        clauses.append("f.wing = ?")
        params.append(wing)
    if room:
        clauses.append("f.room = ?")
        params.append(room)
    return " AND ".join(clauses), params


def _in_window(conn, window) -> dict[int, int]:
    """Drawers a date window admits: ``{rowid: tier}``. Tier 2: the drawer's own date
    overlaps the window; 1: it mentions a date that lies inside the window (a mention of
    "2024" does not put a drawer into "Q3 2024"); 0: its note has no date of its own (only
    the file's mtime), so no window can rule it out — it stays a candidate, unboosted."""
    start, end = window.start.isoformat(), window.end.isoformat()
    tiers: dict[int, int] = {}
    for (rowid,) in conn.execute(
        "SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.doc_date_source = 'mtime'"
    ):
        tiers[rowid] = 0
    for (rowid,) in conn.execute(
        "SELECT d.rowid FROM date_mentions m JOIN drawers d ON d.id = m.drawer_id WHERE m.start >= ? AND m.end <= ?",
        (start, end),
    ):
        tiers[rowid] = 1
    for (rowid,) in conn.execute(
        "SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id"
        " WHERE d.date_start < ? AND d.date_end > ? AND f.doc_date_source != 'mtime'",
        (end, start),
    ):
        tiers[rowid] = 2
    return tiers


def _date_list(conn, lists: list[RankedList], tiers: dict[int, int]) -> tuple[tuple[str, float], ...]:
    """The ``date`` retriever: the candidates of the other lists that are in the window,
    drawers dated in it before drawers that only mention it, then by their best rank."""
    best = _best_ranks(lists)
    if not best:
        return ()
    rowid_of = dict(conn.execute(
        f"SELECT id, rowid FROM drawers WHERE id IN ({','.join('?' * len(best))})", list(best)
    ).fetchall())
    scored = [(doc_id, tiers.get(rowid_of.get(doc_id, -1), 0)) for doc_id in best]
    scored = [(d, t) for d, t in scored if t > 0]
    scored.sort(key=lambda item: (-item[1], best[item[0]], item[0]))
    return tuple((d, float(t)) for d, t in scored[:CANDIDATES])


def _fts_query(terms: tuple[str, ...]) -> str:
    safe = [t.replace('"', '""') for t in terms if re.search(r"\w", t)]
    return " OR ".join(f'"{t}"' for t in safe)


def _fts_ranked(conn, query: str, allowed: set[int] | None) -> tuple[tuple[str, float], ...]:
    """Run an FTS5 query ranked by BM25 (column weights title 2, heading 2, text 1), within
    ``allowed`` rowids when given (filtered in SQL, so a small scope never loses its hits
    to the rest of the palace)."""
    sql = (
        "SELECT d.id, bm25(drawers_fts, 2.0, 2.0, 1.0) AS score FROM drawers_fts"
        " JOIN drawers d ON d.rowid = drawers_fts.rowid WHERE drawers_fts MATCH ?"
    )
    params: list = [query]
    if allowed is not None:
        sql += " AND drawers_fts.rowid IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(sorted(allowed)))
    rows = conn.execute(sql + " ORDER BY score LIMIT ?", (*params, CANDIDATES)).fetchall()
    return tuple((r["id"], -r["score"]) for r in rows)


def _bm25(conn, terms, allowed: set[int] | None) -> tuple[tuple[str, float], ...]:
    query = _fts_query(terms)
    if not query or allowed is not None and not allowed:
        return ()
    return _fts_ranked(conn, query, allowed)


def _exact(conn, identifiers: tuple[str, ...], allowed: set[int] | None) -> tuple[tuple[str, float], ...]:
    """Drawers that contain every identifier of the question (``#2033`` → ``2033``), by BM25."""
    if allowed is not None and not allowed:
        return ()
    query = " AND ".join('"' + t.replace('"', '""') + '"' for t in identifiers)
    return _fts_ranked(conn, query, allowed)


def _vector(
    palace: "Palace", question: str, allowed: set[int] | None, where: dict | None = None
) -> tuple[tuple[str, float], ...]:
    """Nearest drawers by cosine similarity. A scope of up to :data:`EXACT_SCAN_LIMIT`
    drawers is scanned exactly; a larger one asks Chroma with ``where`` (wing/room) for
    5 × :data:`CANDIDATES` and keeps those in scope."""
    vector = palace.embedder.embed([question])[0]
    if allowed is not None:
        if not allowed:
            return ()
        ids = _ids_for_rowids(palace.conn, allowed)
        if len(ids) <= EXACT_SCAN_LIMIT:
            got = palace.vectors.collection.get(ids=ids, include=["embeddings"])
            if not len(got["ids"]):
                return ()
            matrix = np.asarray(got["embeddings"], dtype=np.float32)
            sims = matrix @ vector
            order = np.argsort(-sims)[:CANDIDATES]
            return tuple((got["ids"][i], float(sims[i])) for i in order)
        wanted = set(ids)
        found = palace.vectors.query(vector, CANDIDATES * 5, where=where)
        return tuple((d, 1.0 - dist) for d, dist in found if d in wanted)[:CANDIDATES]
    found = palace.vectors.query(vector, CANDIDATES)
    live = _live_ids(palace.conn, [d for d, _ in found])
    return tuple((d, 1.0 - dist) for d, dist in found if d in live)


def _drawers_by_rowid(conn, rowids, columns: str = "id"):
    """Rows of ``drawers`` for a set of rowids (passed as one JSON array: no variable limit)."""
    return conn.execute(
        f"SELECT {columns} FROM drawers WHERE rowid IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(rowids)),),
    ).fetchall()


def _ids_for_rowids(conn, rowids: set[int]) -> list[str]:
    return [r[0] for r in _drawers_by_rowid(conn, rowids)]


def _best_ranks(lists: list[RankedList]) -> dict[str, int]:
    """Each drawer's best (lowest) rank over ``lists``."""
    best: dict[str, int] = {}
    for ranked in lists:
        for position, (doc_id, _) in enumerate(ranked.items, start=1):
            best[doc_id] = min(best.get(doc_id, position), position)
    return best


def _live_ids(conn, ids: list[str]) -> set[str]:
    if not ids:
        return set()
    return {r[0] for r in conn.execute(f"SELECT id FROM drawers WHERE id IN ({','.join('?' * len(ids))})", ids)}


def _graph(
    conn, entities, allowed: set[int] | None, hybrid: list[RankedList]
) -> tuple[tuple[tuple[str, float], ...], dict[str, tuple[str, ...]]]:
    """Drawers that mention the question's entities, found by NER mentions and by the
    entity's names and aliases as FTS phrases (NER misses some occurrences of a name it
    knows). More distinct entities first, then the best rank in the hybrid lists (so a
    common entity does not reorder by chance), then more mentions, then newer."""
    found: dict[int, dict[int, int]] = {}  # rowid -> {entity index: mentions}
    for index, entity in enumerate(entities):
        ids = list(entity.entity_ids)
        marks = ",".join("?" * len(ids))
        for rowid, n in conn.execute(
            f"SELECT d.rowid, count(*) FROM mentions m JOIN drawers d ON d.id = m.drawer_id"
            f" WHERE m.entity_id IN ({marks}) GROUP BY d.rowid",
            ids,
        ):
            found.setdefault(rowid, {})[index] = n
        names = {a for (a,) in conn.execute(f"SELECT alias FROM aliases WHERE entity_id IN ({marks})", ids)}
        names.add(entity.text)
        phrase = " OR ".join('"' + n.replace('"', '""') + '"' for n in sorted(names) if re.search(r"\w", n))
        for (rowid,) in conn.execute("SELECT rowid FROM drawers_fts WHERE drawers_fts MATCH ?", (f"text : ({phrase})",)):
            found.setdefault(rowid, {}).setdefault(index, 1)
    if allowed is not None:
        found = {r: v for r, v in found.items() if r in allowed}
    if not found:
        return (), {}
    best = _best_ranks(hybrid)
    rows = _drawers_by_rowid(conn, found, "rowid, id, date_start")
    def key(row):
        hits = found[row["rowid"]]
        return (-len(hits), best.get(row["id"], 10**6), -sum(hits.values()), row["date_start"] or "", row["id"])
    rows.sort(key=key)
    ranked = tuple(
        (r["id"], len(found[r["rowid"]]) + sum(found[r["rowid"]].values()) / 100.0) for r in rows[:CANDIDATES]
    )
    names = {r["id"]: tuple(sorted(entities[i].name for i in found[r["rowid"]])) for r in rows[:CANDIDATES]}
    return ranked, names


def _stem(term: str) -> str:
    """A crude prefix stem for showing matched terms (FTS5 matches with the Porter stemmer:
    "take" finds "taking", "grants" finds "grant")."""
    if term.isalpha():
        for suffix in ("ing", "ed", "es", "s", "e"):
            if term.endswith(suffix) and len(term) - len(suffix) >= 3:
                return term[: -len(suffix)]
    return term


def _snippet(text: str, terms: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    lowered = text.lower()
    found = tuple(t for t in terms if re.search(rf"\b{re.escape(_stem(t))}", lowered))
    first = min((lowered.find(_stem(t)) for t in found if lowered.find(_stem(t)) >= 0), default=0)
    start = max(0, first - SNIPPET_CHARS // 3)
    piece = " ".join(text[start:start + SNIPPET_CHARS].split())
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + SNIPPET_CHARS < len(text) else ""
    return prefix + piece + suffix, found


def _hits(conn, fused, plan: Plan, window_mode: str, entity_names: dict[str, tuple[str, ...]]) -> list[Hit]:
    if not fused:
        return []
    ids = [d for d, _, _ in fused]
    rows = {
        r["id"]: r
        for r in conn.execute(
            f"SELECT d.id, d.text, d.line_start, d.line_end, d.heading_path, d.date_start, f.path, f.wing,"
            f" f.room, f.title FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id IN ({','.join('?' * len(ids))})",
            ids,
        )
    }
    window = f"{plan.window} [{window_mode}]" if plan.window else None
    hits = []
    for rank, (drawer, score, parts) in enumerate(fused, start=1):
        row = rows.get(drawer)
        if row is None:
            continue
        snippet, matched = _snippet(row["text"], plan.terms)
        hits.append(
            Hit(
                rank=rank,
                drawer_id=drawer,
                score=score,
                path=row["path"],
                wing=row["wing"],
                room=row["room"],
                line_start=row["line_start"],
                line_end=row["line_end"],
                date=row["date_start"],
                title=row["title"] or "",
                heading_path=tuple(json.loads(row["heading_path"])),
                snippet=snippet,
                why=Why(parts, matched, entity_names.get(drawer, ()), window),
            )
        )
    return hits
