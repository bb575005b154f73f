"""Ranking: the candidate lists fused into one order, pushed down where the question's
time says so, cut at the relevance floor, copies folded.

1. :func:`palace.ask.fusion.fuse` — weighted reciprocal rank fusion of the lists;
2. the re-ranking rules of :data:`DEMOTIONS`, in order (one row and one function each):
   a drawer whose own dates all lie outside a window that ranks, one written after the
   day the question is about; each scales the fused score by its factor, and
   :func:`palace.ask.fusion.demote` records the cut as a contribution named for its
   reason, so the contributions still add up to the score;
3. the floor: with no term, name, identifier or fact matched, nothing is found unless a
   drawer's cosine similarity reaches :data:`VECTOR_FLOOR`;
4. the first ``top_k`` drawers, a drawer whose text equals a better one's folded into it.

A baseline run (the retrievers alone: ``retrievers_only``) is fused and folded only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from palace.ask import retrievers
from palace.ask.fusion import Contribution, RankedList, demote, fuse
from palace.ask.planning import Plan, stem
from palace.ask.scope import Scope
from palace.store import search

#: The share of its fused score a drawer keeps when its own dates all lie outside the
#: question's window (tuned on benchmarks/time_questions_*.jsonl and the Rust dev set).
OUTSIDE_WINDOW = 0.3
#: The share a drawer keeps when it was written after the day the question is about.
WRITTEN_LATER = 0.25
#: A title or path "matches the question strongly" when it holds this share of the
#: question's terms (and at least two): such a document is never pushed down by a window.
TITLE_MATCH = 0.6
#: A term in the titles or paths of more than this share of the notes is not distinctive.
TITLE_COMMON = 0.05
#: Below this cosine similarity, with no term, name or fact matched, nothing is found
#: (all-MiniLM-L6-v2: unrelated passages score about 0.0–0.2).
VECTOR_FLOOR = 0.3
#: How many fused candidates the window and the question's day may reorder.
DEMOTE_DEPTH = 200

Fused = list[tuple[str, float, tuple[Contribution, ...]]]


@dataclass(frozen=True)
class Ranking:
    """The ranking stage's result: ``ranked`` is ``[(drawer_id, score, contributions,
    same_text_in)]``, best first, at most ``top_k``; ``found`` is False when nothing
    passed the floor; ``notes`` say why."""

    ranked: list[tuple[str, float, tuple[Contribution, ...], tuple[str, ...]]]
    found: bool
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Demoting:
    """What a re-ranking rule reads: the plan, the scope (its window tiers when the
    window ranks) and the drawers never pushed down (``keep``: those the graph's answer
    cites — a state asked "in Q4 2024" was often stated before it)."""

    plan: Plan
    scope: Scope
    keep: frozenset[str]


def rank(conn, lists: list[RankedList], demoting: Demoting, *, top_k: int, baseline: bool) -> Ranking:
    """Fuse ``lists``, apply the re-ranking rules and the floor (not for a ``baseline``
    run) and fold copies into the first ``top_k``."""
    fused = fuse(lists)
    notes: tuple[str, ...] = ()
    found = True
    if not baseline:
        fused = demote(fused, demotions(conn, fused, demoting))
        found, notes = _floor(lists)
        fused = fused if found else []
        if fused and asks_successor(demoting.plan):
            fused = spread(conn, fused)
            notes = (*notes, f"a question about what replaced something: at most {PER_NOTE} drawers of a note"
                             " before the other notes")
    return Ranking(fold_copies(conn, fused, top_k), found, notes)


#: For a question about what replaced X, drawers of one note shown before other notes'.
PER_NOTE = 2
_SUCCESSOR = re.compile(r"\b(?:replac(?:ed|es|ing)|supersed(?:ed|es|ing)|successor|succeeded)\b", re.IGNORECASE)


def asks_successor(plan) -> bool:
    """Whether the question asks what replaced or superseded something."""
    return bool(_SUCCESSOR.search(plan.question)) or any(a.predicate == "supersedes" for a in plan.asks)


def spread(conn, fused: list, window: int = 60) -> list:
    """``fused`` (best first) with, among its first ``window``, at most :data:`PER_NOTE`
    drawers of one note before the drawers of other notes: the evidence spreads across
    notes instead of filling the top with one note's drawers."""
    head, tail = fused[:window], fused[window:]
    paths = {d: (r["wing"], r["path"]) for d, r in search.hit_rows(conn, [item[0] for item in head]).items()}
    seen: dict = {}
    first, later = [], []
    for item in head:
        key = paths.get(item[0], item[0])
        seen[key] = seen.get(key, 0) + 1
        (first if seen[key] <= PER_NOTE else later).append(item)
    return first + later + tail


def _floor(lists: list[RankedList]) -> tuple[bool, tuple[str, ...]]:
    """Whether anything passes the floor: a list other than vectors, weighted, found
    something, or the closest drawer's cosine similarity reaches :data:`VECTOR_FLOOR`."""
    if any(r.items for r in lists if r.retriever != "vector" and r.weight):
        return True, ()
    vector = next((r for r in lists if r.retriever == "vector"), None)
    best = max((score for _, score in vector.items), default=0.0) if vector else 0.0
    if best >= VECTOR_FLOOR:
        return True, ()
    return False, (f"nothing passed the floor: no term or name matched and the closest drawer's cosine"
                   f" similarity is {best:.2f} (< {VECTOR_FLOOR})",)


def _outside_window(conn, ids: list[str], demoting: Demoting) -> tuple[set[str], str]:
    """When the question's window ranks, the drawers whose own dates all lie outside it,
    unless their title or path holds most of the question's terms or the answer cites them."""
    if not demoting.scope.ranks:
        return set(), ""
    outside = retrievers.outside_window(conn, ids, demoting.scope.tiers)
    return outside - _title_matches(conn, ids, demoting.plan.terms) - demoting.keep, "outside the window"


def _written_later(conn, ids: list[str], demoting: Demoting) -> tuple[set[str], str]:
    """The drawers written after the day the question is about (``--now`` or a point it
    names: "as of June 2024")."""
    plan = demoting.plan
    if not (plan.bounded and plan.now is not None):
        return set(), ""
    return retrievers.dated_after(conn, ids, plan.now), f"written after {plan.now}"


#: The re-ranking rules, in order: ``(factor, rule)``; a rule returns the drawers it
#: pushes down and its reason. A drawer two rules push down keeps the product of their
#: factors, under the last one's reason.
DEMOTIONS: tuple[tuple[float, Callable[..., tuple[set[str], str]]], ...] = (
    (OUTSIDE_WINDOW, _outside_window),
    (WRITTEN_LATER, _written_later),
)


def demotions(conn, fused: Fused, demoting: Demoting) -> dict[str, tuple[float, str]]:
    """The first :data:`DEMOTE_DEPTH` fused candidates to push down and by how much:
    ``{drawer_id: (factor, reason)}`` for :func:`palace.ask.fusion.demote`."""
    ids = [d for d, _, _ in fused[:DEMOTE_DEPTH]]
    factors: dict[str, tuple[float, str]] = {}
    for factor, rule in DEMOTIONS:
        pushed, reason = rule(conn, ids, demoting)
        for d in pushed:
            factors[d] = (factors.get(d, (1.0, ""))[0] * factor, reason)
    return factors


def _title_matches(conn, drawer_ids: list[str], terms: tuple[str, ...]) -> set[str]:
    """Of ``drawer_ids``, those whose note's title and path hold at least
    :data:`TITLE_MATCH` (and two or more) of the question's distinctive terms: terms
    found in the titles and paths of at most :data:`TITLE_COMMON` of the notes ("council"
    in every path of a council's minutes says nothing)."""
    if len(terms) < 2 or not drawer_ids:
        return set()
    total = search.indexed_file_count(conn) or 1
    stems = [
        s for s in dict.fromkeys(stem(t) for t in terms)
        if retrievers.counted(conn, "notes titled", s, total, lambda s=s: search.files_titled(conn, s))
        <= max(3, total * TITLE_COMMON)
    ]
    if len(stems) < 2:
        return set()
    need = max(2, -(-len(stems) * TITLE_MATCH // 1))
    out = set()
    for row in search.drawer_titles(conn, drawer_ids):
        words = " ".join(re.findall(r"[^\W_]+", f"{row['title'] or ''} {row['path']}".lower()))
        if sum(1 for s in stems if re.search(rf"\b{re.escape(s)}", words)) >= need:
            out.add(row["id"])
    return out


def fold_copies(conn, fused: Fused, top_k: int) -> list:
    """The first ``top_k`` of the fused list, each drawer's copies folded into it.

    A drawer whose text (whitespace aside) equals a better one's is dropped: minutes
    repeat an issue's header block in every meeting, and five copies hide the answer. Its
    place is noted in the better hit's ``same_text_in``. (Capping the drawers of one file
    at three before other files had their turn was tried and cost 3 points of recall@1 on
    the Rust dev set: the answer is often a file's fourth passage.) Returns
    ``[(drawer_id, score, contributions, same_text_in)]``."""
    if not fused:
        return []
    rows = search.drawer_texts(conn, [d for d, _, _ in fused])
    first_of: dict[str, int] = {}
    copies: dict[int, list[str]] = {}
    kept: list[tuple] = []
    for item in fused:
        row = rows.get(item[0])
        if row is None:
            continue
        text = " ".join(row["text"].split())
        if text in first_of:
            copies[first_of[text]].append(f"{row['path']}:{row['line_start']}")
            continue
        first_of[text] = len(kept)
        copies[len(kept)] = []
        kept.append(item)
        if len(kept) == top_k:
            break
    return [(*item, tuple(copies[i])) for i, item in enumerate(kept)]
