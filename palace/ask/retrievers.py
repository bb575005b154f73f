"""The retrievers of ``ask``: each turns the plan into one ranked list of drawer ids.

Every retriever returns ``((drawer_id, raw_score), ...)`` best first, at most
:data:`CANDIDATES` long, for :func:`palace.ask.fusion.fuse`; ``allowed`` (a set of drawer
rowids, or None for all) is the scope left by wing/room and the date window
(:attr:`palace.ask.scope.Scope.allowed`). The table that runs them, and says which
lists each reads, is :data:`palace.ask.candidates.RETRIEVERS`.

- :func:`bm25` — FTS5 over title, heading path, drawer text and file path (weights 2, 2,
  1, 1), terms OR-ed;
- :func:`vector` — cosine similarity of the question's embedding to the drawers' (Chroma,
  with a ``where`` filter on wing/room; an exact scan of the allowed drawers when few);
- :func:`graph` — drawers holding the typed facts about the question's entities (facts
  whose predicate the question names first), then drawers that mention them;
- :func:`exact` — drawers holding every identifier of the question, by BM25;
- :func:`date_list` — the other lists' candidates in the window, drawers dated in it
  before drawers that only mention a date inside it;
- :func:`recent` — the other lists' dated candidates, newest first (current-state questions);
- :func:`in_places` — the other lists' candidates in a room or wing the question names;
- :func:`listed` — a given order of drawers (the drawers of a change list, of an answer).

Their reads go through :mod:`palace.store.search`, except the three that are the
algorithms themselves: BM25 over FTS5 (:func:`_fts_ranked`), the terms too common to
weigh (:func:`_weightless`) and a window's date tiers (:func:`in_window`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import TYPE_CHECKING, Callable

import numpy as np

from palace.ask.fusion import RankedList
from palace.store import search
from palace.store.search import UNDATED
from palace.store.sqlite import get_meta

if TYPE_CHECKING:
    from palace.store.store import Store

CANDIDATES = 100
#: BM25 weight of the file's path beside the title's 2, the heading's 2 and the text's 1 (1.5 cost
#: BM25 alone 2.6 points of R@5 on the Rust dev set; 0.5 and 1.0 left the planner unchanged).
PATH_WEIGHT = 1.0
EXACT_SCAN_LIMIT = 4000

Ranked = tuple[tuple[str, float], ...]


#: The tier of :func:`in_window` of a drawer whose own date meets the window.
DATED_TIER = 4


def in_window(conn, window) -> dict[int, int]:
    """Drawers a date window holds: ``{rowid: tier}``. Tier 4: the drawer's own date
    (from the note's front matter, name, a dated heading or git) overlaps the window;
    tier 3: it mentions a date inside the window that begins in its first year (what
    began when the period asked about began: "In 1811 he bought …" for "from 1811 to
    1827"); tier 2: it mentions a date that lies inside the window; tier 1: it mentions a date
    that only overlaps it, at a coarser granularity (a page saying "1983" is in "from July
    1983 to June 1984", more weakly). A note dated only by its file's mtime has no date of
    its own (a copy or a clone resets mtimes): its drawers are in the window only by the
    dates they mention. See :data:`UNDATED` and :func:`outside_window` for the rest."""
    start, end = window.start.isoformat(), window.end.isoformat()
    first_year = min(window.end, _year_after(window.start)).isoformat()
    tiers: dict[int, int] = {}
    for rowid, inside, begins in conn.execute(
        "SELECT d.rowid, max(m.start >= ? AND m.end <= ?), max(m.start >= ? AND m.start < ? AND m.end <= ?)"
        " FROM date_mentions m JOIN drawers d ON d.id = m.drawer_id WHERE m.start < ? AND m.end > ? GROUP BY d.rowid",
        (start, end, start, first_year, end, end, start),
    ):
        tiers[rowid] = 3 if begins else 2 if inside else 1
    # no drawer's own date spans more than the longest recorded: its start lies that far
    # before the window at most, a bounded range of the index on date_start
    span = get_meta(conn, "drawer_span_days")
    try:
        earliest = (window.start - dt.timedelta(days=math.ceil(float(span)) + 1)).isoformat() if span is not None else ""
    except OverflowError:  # a window open to the past
        earliest = ""
    for (rowid,) in conn.execute(
        "SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id"
        f" WHERE d.date_start < ? AND d.date_start >= ? AND d.date_end > ? AND NOT ({UNDATED})",
        (end, earliest, start),
    ):
        tiers[rowid] = DATED_TIER
    return tiers


def _year_after(day: dt.date) -> dt.date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February, or the last year there is
        return day + dt.timedelta(days=365) if day.year < dt.MAXYEAR else dt.date.max


def outside_window(conn, drawer_ids, tiers: dict[int, int]) -> set[str]:
    """Of ``drawer_ids``, those whose own dates all lie outside the window: dated
    drawers (not :data:`UNDATED`) of ``tiers`` (:func:`in_window`) below 2 — a minute of
    2025 that mentions "2024" is not about June 2024; an undated page that mentions
    "1983" is not pushed down for "July 1983 to June 1984"."""
    if not drawer_ids:
        return set()
    return {drawer for drawer, rowid in search.own_dated(conn, drawer_ids) if tiers.get(rowid, 0) < 2}


def dated_after(conn, drawer_ids, day) -> set[str]:
    """Of ``drawer_ids``, those whose own date begins after ``day`` (a ``datetime.date``):
    written later than the time a question is about."""
    if not drawer_ids:
        return set()
    return search.dated_after(conn, drawer_ids, day.isoformat())


def date_list(conn, lists: list[RankedList], tiers: dict[int, int]) -> tuple[tuple[str, float], ...]:
    """The ``date`` retriever: the candidates of ``lists`` that are in the window, by
    tier (:func:`in_window`: dated in it, then mentioning a day inside it, then a date
    overlapping it), then by their best rank. ``lists`` are the other retrievers' (with
    ``--since``/``--until``, which already hold only drawers in the window), or, for a
    window that ranks, BM25 and vectors run again inside it, so that a drawer deep in
    the palace-wide lists still gets its place."""
    best = best_ranks(lists)
    if not best:
        return ()
    rowid_of = search.rowids_of(conn, best)
    scored = [(doc_id, tiers.get(rowid_of.get(doc_id, -1), 0)) for doc_id in best]
    scored = [(d, t) for d, t in scored if t > 0]  # tier 0: not in the window
    scored.sort(key=lambda item: (-item[1], best[item[0]], item[0]))
    return tuple((d, float(t)) for d, t in scored[:CANDIDATES])


def _fts_query(terms: tuple[str, ...]) -> str:
    safe = [t.replace('"', '""') for t in terms if re.search(r"\w", t)]
    return " OR ".join(f'"{t}"' for t in safe)


def _fts_ranked(conn, query: str, allowed: set[int] | None, limit: int | None = None) -> tuple[tuple[str, float], ...]:
    """Run an FTS5 query ranked by BM25 (column weights title 2, heading 2, text 1, path
    :data:`PATH_WEIGHT`), within
    ``allowed`` rowids when given. The scope is applied while reading the ranked matches,
    best first, until :data:`CANDIDATES` are in it — so a small scope never loses its hits
    to the rest of the palace. (An ``IN (…)`` filter inside the FTS query made SQLite test
    the match per allowed row: 1.8 s for a wide window on the Rust minutes.)"""
    limit = limit or CANDIDATES
    sql = (f"SELECT rowid, bm25(drawers_fts, 2.0, 2.0, 1.0, {PATH_WEIGHT}) AS score FROM drawers_fts"
           " WHERE drawers_fts MATCH ? ORDER BY score")
    if allowed is None:
        ranked = conn.execute(sql + " LIMIT ?", (query, limit)).fetchall()
    else:
        ranked = []
        for row in conn.execute(sql, (query,)):
            if row[0] in allowed:
                ranked.append(row)
                if len(ranked) == limit:
                    break
    if not ranked:
        return ()
    ids = search.id_by_rowid(conn, [r[0] for r in ranked])
    return tuple((ids[rowid], -score) for rowid, score in ranked if rowid in ids)


def bm25(conn, terms, allowed: set[int] | None) -> Ranked:
    """BM25 over the question's terms (OR-ed), best first.

    A term held by half the drawers or more ("meeting" in minutes, "lang" in every path
    of the lang team's) weighs nothing: FTS5's IDF, log((N − n + 0.5) / (n + 0.5)), is ≤ 0
    there, and FTS5 floors it at 10⁻⁶ (``fts5_aux.c``). Yet OR-ing it in makes FTS5 score
    every drawer that holds it. So the drawers that hold a weighing term are ranked
    first, by a query of those terms only (a drawer's score differs from the whole
    query's by at most a few millionths); only when they are fewer than
    :data:`CANDIDATES` do the drawers that hold nothing but weightless terms follow, in
    the order the whole query gives them (the same scores: a term a drawer lacks adds
    nothing). The ranking is the whole query's, at the cost of the weighing terms."""
    query = _fts_query(terms)
    if not query or allowed is not None and not allowed:
        return ()
    weightless = _weightless(conn, terms)
    weighing = tuple(t for t in terms if t not in weightless)
    if not weightless or not _fts_query(weighing):
        return _fts_ranked(conn, query, allowed)
    first = _fts_ranked(conn, _fts_query(weighing), allowed)
    if len(first) >= CANDIDATES:
        return first
    rest = _fts_ranked(conn, f"({_fts_query(tuple(weightless))}) NOT ({_fts_query(weighing)})", allowed,
                       CANDIDATES - len(first))
    return first + rest


#: counts a warm process took, per database and kind: ``{(path, kind): {key: (count,
#: total when counted)}}`` (:func:`counted`)
_COUNTS: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
#: a count is taken again once the total it is a share of moved by this share since
COUNT_DRIFT = 0.05


def counted(conn, kind: str, key: str, total: int, count: Callable[[], int]) -> int:
    """``count()`` (how many of ``total`` rows hold ``key``: drawers holding a term, notes
    whose title holds a word), taken once per warm process and database, and again when
    ``total`` moved by more than :data:`COUNT_DRIFT` since: a share of the palace needs
    no recount for every question."""
    cache = _COUNTS.setdefault((search.database_file(conn), kind), {})
    known = cache.get(key)
    if known is None or abs(total - known[1]) > COUNT_DRIFT * known[1]:
        cache[key] = known = (count(), total)
    return known[0]


def _weightless(conn, terms) -> set[str]:
    """The terms held by at least half the palace's drawers (:func:`counted`)."""
    value = get_meta(conn, "drawers")
    total = int(value) if value is not None else 0
    if not total:
        return set()
    out = set()
    for term in terms:
        if not re.search(r"\w", term):
            continue
        query = _fts_query((term,))
        holding = counted(conn, "drawers holding", term, total, lambda: conn.execute(
            "SELECT count(*) FROM drawers_fts WHERE drawers_fts MATCH ?", (query,)).fetchone()[0])
        if holding * 2 >= total:
            out.add(term)
    return out


def exact(conn, identifiers: tuple[str, ...], allowed: set[int] | None) -> tuple[tuple[str, float], ...]:
    """Drawers that contain every identifier of the question (``#2033`` → ``2033``), by BM25."""
    if allowed is not None and not allowed:
        return ()
    query = " AND ".join('"' + t.replace('"', '""') + '"' for t in identifiers)
    return _fts_ranked(conn, query, allowed)


def vector(
    store: "Store", question: str, allowed: set[int] | None, where: dict | None = None, embedding=None
) -> tuple[tuple[str, float], ...]:
    """Nearest drawers by cosine similarity. A scope is scanned exactly when at most
    :data:`EXACT_SCAN_LIMIT` of its vectors are not in the process's memory yet (a warm
    process keeps them: :class:`palace.store.vector_cache.VectorCache`); a larger one asks Chroma
    with ``where`` (wing, room, and the drawer date when a window filters) for 5 ×
    :data:`CANDIDATES` and keeps those in scope (Chroma filters before it searches:
    180 ms a question at 126,616 drawers, against 6 ms unfiltered). ``embedding`` is the
    question's vector when already computed."""
    vector = store.embedder.embed([question])[0] if embedding is None else embedding
    if allowed is not None:
        if not allowed:
            return ()
        ids = search.ids_of_rowids(store.conn, allowed)
        if len(ids) <= EXACT_SCAN_LIMIT or store.vectors.missing(ids) <= EXACT_SCAN_LIMIT:
            found_ids, sims = store.vectors.similarities(ids, vector)
            if not found_ids:
                return ()
            # equal vectors (the same paragraph in two notes) tie: by id, whatever order the store gave
            order = np.lexsort((np.asarray(found_ids), -sims))[:CANDIDATES]
            return tuple((found_ids[i], float(sims[i])) for i in order)
        wanted = set(ids)
        found = store.vectors.query(vector, CANDIDATES * 5, where=where)
        return tuple((d, 1.0 - dist) for d, dist in found if d in wanted)[:CANDIDATES]
    # Chroma's HNSW search is approximate, and its misses vary between processes (a
    # drawer at rank 70 of 100 came and went with PYTHONHASHSEED); asking for three times
    # as many raises its search breadth (ef) and keeps the first hundred stable
    found = store.vectors.query(vector, CANDIDATES * 3)
    live = search.live_ids(store.conn, [d for d, _ in found])
    return tuple((d, 1.0 - dist) for d, dist in found if d in live)[:CANDIDATES]


def best_ranks(lists: list[RankedList]) -> dict[str, int]:
    """Each drawer's best (lowest) rank over ``lists``."""
    best: dict[str, int] = {}
    for ranked in lists:
        for position, (doc_id, _) in enumerate(ranked.items, start=1):
            best[doc_id] = min(best.get(doc_id, position), position)
    return best


def graph(
    conn, entities, allowed: set[int] | None, hybrid: list[RankedList],
    fact_drawers: dict[str, tuple[int, ...]] | None = None
) -> tuple[Ranked, dict[str, tuple[str, ...]]]:
    """Drawers of the question's entities: first ``fact_drawers`` (the drawers of their
    typed facts, in the order given, each with the indexes in ``entities`` of the
    entities its facts are about — see :func:`palace.ask.graph_answer.entity_facts`), then the
    drawers that mention them, found by NER mentions and by the entity's names and aliases
    as FTS phrases (NER misses some occurrences of a name it knows): more distinct entities
    first, then the best rank in the hybrid lists (so a common entity does not reorder by
    chance), then more mentions, then newer. Also returns, per drawer, the names it holds."""
    found: dict[int, dict[int, int]] = {}  # rowid -> {entity index: mentions}
    for index, entity in enumerate(entities):
        ids = list(entity.entity_ids)
        for rowid, n in search.mention_counts(conn, ids):
            found.setdefault(rowid, {})[index] = n
        for rowid in search.drawers_naming(conn, search.aliases_of(conn, ids) | {entity.text}):
            found.setdefault(rowid, {}).setdefault(index, 1)
    facts_first = {d: i for i, d in enumerate(fact_drawers or {})}
    if facts_first:
        for drawer, rowid in search.rowids_of(conn, facts_first).items():
            for index in fact_drawers[drawer]:
                found.setdefault(rowid, {}).setdefault(index, 1)
    if allowed is not None:
        found = {r: v for r, v in found.items() if r in allowed}
    if not found:
        return (), {}
    best = best_ranks(hybrid)
    rows = search.dates_of_rowids(conn, found)
    def key(row):
        hits = found[row["rowid"]]
        return (facts_first.get(row["id"], len(facts_first)), -len(hits), best.get(row["id"], 10**6),
                -sum(hits.values()), row["date_start"] or "", row["id"])
    rows.sort(key=key)
    ranked = tuple(
        (r["id"], (10.0 if r["id"] in facts_first else 0.0) + len(found[r["rowid"]]) + sum(found[r["rowid"]].values()) / 100.0)
        for r in rows[:CANDIDATES]
    )
    names = {r["id"]: tuple(sorted(entities[i].name for i in found[r["rowid"]])) for r in rows[:CANDIDATES]}
    return ranked, names




def recent(conn, lists: list[RankedList]) -> Ranked:
    """The other lists' candidates that have a date of their own (not only a file mtime),
    newest first, then by their best rank: for "now"/"current" questions the latest word
    on a subject counts most."""
    best = best_ranks(lists)
    if not best:
        return ()
    rows = search.own_dates(conn, best)
    rows.sort(key=lambda r: (r["date_start"], -best[r["id"]]), reverse=True)
    return tuple((r["id"], float(i)) for i, r in enumerate(rows[:CANDIDATES], start=1))


def in_places(conn, lists: list[RankedList], places: list[tuple[str, str]]) -> Ranked:
    """The ``place`` retriever: the other lists' candidates in a room or wing the
    question names (``[("room" | "wing", name)]``), by their best rank."""
    best = best_ranks(lists)
    if not best or not places:
        return ()
    rooms = [name for kind, name in places if kind == "room"]
    wings = [name for kind, name in places if kind == "wing"]
    ranked = sorted(search.in_places(conn, best, rooms, wings), key=lambda d: (best[d], d))
    return tuple((d, float(best[d])) for d in ranked[:CANDIDATES])


def listed(conn, drawer_ids: list[str], allowed: set[int] | None = None) -> Ranked:
    """``drawer_ids`` in their given order, those still in the palace (and in ``allowed``)."""
    if not drawer_ids:
        return ()
    rows = search.rowids_of(conn, drawer_ids)
    kept = [d for d in drawer_ids if d in rows and (allowed is None or rows[d] in allowed)]
    return tuple((d, float(len(kept) - i)) for i, d in enumerate(kept[:CANDIDATES]))
