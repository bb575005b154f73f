"""The candidate lists: the retrievers as a table, each row naming the lists it reads.

:data:`RETRIEVERS` holds one :class:`Retriever` per ranked list, in the order they run
and are fused: ``bm25``, ``vector``, ``graph`` (re-ranks the entity's drawers by their
best rank in ``bm25`` and ``vector``), ``answer``, ``exact``, ``document`` (the notes
whose path or title carry a design record's number: "KEP-576"), ``changes``, ``date`` (the
candidates of the lists before it that lie in the window), ``recent`` (those with a date
of their own, newest first), ``place`` (those in a room or wing the question names). A
row's function receives the plan, the scope and the graph's answer (:class:`Inputs`) and
the lists it reads, and returns what it :class:`Found`, or None when it does not run
(its weight is zero, or the question gives it nothing to look for). A new retriever is
one row and one function; its weight comes from the plan
(:data:`palace.ask.planning.INTENT_WEIGHTS`) unless it gives its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from palace.ask import retrievers
from palace.ask.fusion import RankedList
from palace.ask.graph_answer import GraphAnswer
from palace.ask.planning import STOPWORDS, Plan
from palace.ask.scope import Scope
from palace.store import search

if TYPE_CHECKING:
    from palace.store.store import Store

#: The RRF weight of the ``place`` list (drawers of a room or wing the question names).
PLACE_WEIGHT = 0.5
#: The RRF weight of the ``document`` list (notes whose path or title carry a design
#: record's number the question names: "KEP-576", "PEP 8").
DOCUMENT_WEIGHT = 2.0

Ranked = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Inputs:
    """What the retrievers read besides each other's lists: the ``store`` (its
    connection, vectors and embedder), the ``plan``, the ``scope``, the retrievers'
    ``weights``, what the graph answered (``graph``), the question's ``embedding``
    (None when vectors are not weighed) and whether this is a ``baseline`` run (the
    retrievers alone)."""

    store: "Store"
    plan: Plan
    scope: Scope
    weights: Mapping[str, float]
    graph: GraphAnswer
    embedding: Any
    baseline: bool

    @property
    def conn(self):
        """The store's SQLite connection (this thread's)."""
        return self.store.conn


@dataclass(frozen=True)
class Found:
    """What one retriever found: its ranked ``items`` (``(drawer_id, raw_score)``, best
    first), its ``weight`` when it sets its own (None: the plan's), ``notes`` for the
    plan and, per drawer, the ``names`` of the question it holds (the graph's)."""

    items: Ranked
    weight: float | None = None
    notes: tuple[str, ...] = ()
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Retriever:
    """One row of :data:`RETRIEVERS`: the list's ``name``, the ``reads``: names of the
    lists before it that it reads (those that ran, in table order), and ``run``."""

    name: str
    reads: tuple[str, ...]
    run: Callable[[Inputs, list[RankedList]], "Found | None"]


@dataclass(frozen=True)
class Candidates:
    """The candidate lists in table order, each drawer's matched names (the graph's)
    and the notes the retrievers left."""

    lists: tuple[RankedList, ...]
    names: dict[str, tuple[str, ...]]
    notes: tuple[str, ...]

    def weights(self, planned: Mapping[str, float]) -> dict[str, float]:
        """The weights as run: ``planned`` with each list's own (``place``: its weight;
        ``answer``: zero when the answer has no value)."""
        return {**planned, **{ranked.retriever: ranked.weight for ranked in self.lists}}


def candidate_lists(store: "Store", plan: Plan, scope: Scope, weights: Mapping[str, float], graph: GraphAnswer,
                    baseline: bool) -> Candidates:
    """Run the rows of :data:`RETRIEVERS` in order for ``plan`` in ``scope``."""
    embedding = store.embedder.embed([plan.question])[0] if weights.get("vector") else None
    inputs = Inputs(store, plan, scope, weights, graph, embedding, baseline)
    lists: list[RankedList] = []
    names: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for row in RETRIEVERS:
        found = row.run(inputs, [ranked for ranked in lists if ranked.retriever in row.reads])
        if found is None:
            continue
        weight = found.weight if found.weight is not None else weights.get(row.name, 0.0)
        lists.append(RankedList(row.name, weight, found.items))
        names.update(found.names)
        notes += found.notes
    return Candidates(tuple(lists), names, tuple(notes))


def _bm25(c: Inputs, read: list[RankedList]) -> Found:
    return Found(retrievers.bm25(c.conn, c.plan.terms, c.scope.allowed))


def _vector(c: Inputs, read: list[RankedList]) -> Found:
    if c.embedding is None:
        return Found(())
    items = retrievers.vector(c.store, c.plan.question, c.scope.allowed, c.scope.where(), c.embedding)
    if not items and c.store.vectors.count() == 0:  # counted only then
        return Found(items, notes=("the vector store is empty though drawers are stored: answering from BM25 and"
                                   " the graph; `palace mine` embeds the drawers again",))
    return Found(items)


def _graph(c: Inputs, read: list[RankedList]) -> Found | None:
    if not (c.plan.entities and c.weights.get("graph")):
        return None
    items, names = retrievers.graph(c.conn, c.plan.entities, c.scope.allowed, read, c.graph.lead)
    return Found(items, names=names)


def _answer(c: Inputs, read: list[RankedList]) -> Found | None:
    """The statements that answer a one-fact question; weight zero when it has no value."""
    if not c.weights.get("answer"):
        return None
    answer = c.graph.answer
    if answer is None or not answer.values:
        return Found((), weight=0.0)
    return Found(retrievers.listed(c.conn, [v.drawer_id for v in answer.values], c.scope.allowed))


def _exact(c: Inputs, read: list[RankedList]) -> Found | None:
    if not (c.plan.identifiers and c.weights.get("exact")):
        return None
    return Found(retrievers.exact(c.conn, c.plan.identifiers, c.scope.allowed))


def _document(c: Inputs, read: list[RankedList]) -> Found | None:
    """The notes whose path or title carry the number of a design record the question
    names ("KEP-576": ``keps/576-…/README.md``; "PEP 8": ``pep-0008.md``), first drawer
    first."""
    if not c.plan.documents or c.baseline:
        return None
    ids: list[str] = []
    for series, number in c.plan.documents:
        found = search.files_numbered(c.conn, number, [series])
        ids += [d for d in (found or search.files_numbered(c.conn, number, [])) if d not in ids]
    if not ids:
        return None
    named = ", ".join(f"{s.upper()} {n}" for s, n in c.plan.documents)
    return Found(retrievers.listed(c.conn, ids, c.scope.allowed), weight=DOCUMENT_WEIGHT,
                 notes=(f"{named}: the notes whose path or title carry the number are raised",))


def _changes(c: Inputs, read: list[RankedList]) -> Found | None:
    if c.graph.changes is None:
        return None
    return Found(retrievers.listed(c.conn, c.graph.changes.drawer_ids()))


def _date(c: Inputs, read: list[RankedList]) -> Found | None:
    """The lists before it, or, for a window that ranks, BM25 and vectors run again
    inside the window (a drawer deep in the palace-wide lists still gets its place)."""
    scope = c.scope
    if not (scope.tiers and scope.mode in ("filter", "boost") and c.weights.get("date")):
        return None
    if scope.ranks:
        inside = scope.inside()
        read = [RankedList("bm25", 1.0, retrievers.bm25(c.conn, c.plan.terms, inside.allowed))]
        if c.embedding is not None:
            read.append(RankedList("vector", 1.0, retrievers.vector(
                c.store, c.plan.question, inside.allowed, inside.where(), c.embedding)))
    return Found(retrievers.date_list(c.conn, read, scope.tiers))


def _recent(c: Inputs, read: list[RankedList]) -> Found | None:
    if not c.weights.get("recent"):
        return None
    return Found(retrievers.recent(c.conn, read))


def _place(c: Inputs, read: list[RankedList]) -> Found | None:
    if c.baseline or c.scope.room:
        return None
    named = named_places(c.conn, c.plan.question, c.scope.wing)
    if not named:
        return None
    note = ("the question names " + ", ".join(f"{kind} {name!r}" for kind, name in named)
            + ": its drawers are raised")
    return Found(retrievers.in_places(c.conn, read, named), weight=PLACE_WEIGHT, notes=(note,))


_BEFORE_DATE = ("bm25", "vector", "graph", "answer", "exact", "document", "changes")

#: The retrievers, in the order they run and are fused.
RETRIEVERS: tuple[Retriever, ...] = (
    Retriever("bm25", (), _bm25),
    Retriever("vector", (), _vector),
    Retriever("graph", ("bm25", "vector"), _graph),
    Retriever("answer", (), _answer),
    Retriever("exact", (), _exact),
    Retriever("document", (), _document),
    Retriever("changes", (), _changes),
    Retriever("date", _BEFORE_DATE, _date),
    Retriever("recent", (*_BEFORE_DATE, "date"), _recent),
    Retriever("place", (*_BEFORE_DATE, "date", "recent"), _place),
)


def named_places(conn, question: str, wing: str | None) -> list[tuple[str, str]]:
    """The rooms and wings whose names the question spells out, all their words
    ("sig-node", "sig node", "leadership council"): ``[("room" | "wing", name)]``. A
    one-word name counts only written as in the path (a hyphen or digit in it, or a
    word of four letters or more)."""
    words = set(re.findall(r"[^\W_]+", question.lower()))
    joined = " ".join(re.findall(r"[^\W_]+", question.lower()))
    named = []
    for kind, name in search.place_names(conn, wing):
        parts = re.findall(r"[^\W_]+", name.lower())
        if not parts or not set(parts) <= words or " ".join(parts) not in joined:
            continue
        if len(parts) == 1 and (len(parts[0]) < 4 or parts[0] in STOPWORDS):
            continue
        named.append((kind, name))
    return named
