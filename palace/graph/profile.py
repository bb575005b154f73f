"""The graph read side: entity profiles over a subgraph loaded from SQLite.

Entities sharing a name key (spaCy may type one name several ways) are one profile.
Neighbours come from current ``mentioned_with`` facts, loaded as a weighted networkx
graph (edge weight = number of sentences naming both) around the entity.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass

from palace.errors import UsageError
from palace.nlp.names import entity_key
from palace.store.entities import aliases_of, entity_kinds, find_entities
from palace.store.facts import FactFilter, cooccurrences, entity_edges, fact_views
from palace.store.mentions import latest_mentions, mention_labels, mention_stats, named_in_front_matter
from palace.store.resolution import unresolved


@dataclass(frozen=True)
class Neighbour:
    """An entity named in the same sentences: ``weight`` is how many such sentences."""

    name: str
    types: tuple[str, ...]
    weight: int


@dataclass(frozen=True)
class Citation:
    """Where an entity is mentioned: path, 1-based line span of the drawer, its date (None
    for a note with no date of its own)."""

    path: str
    wing: str
    line_start: int
    line_end: int
    date: str | None
    surface: str


@dataclass(frozen=True)
class EntityProfile:
    """A profile card: what palace knows of one name.

    ``types`` are the NER labels its mentions were read with, most frequent first
    (``CONCEPT`` too when a note's front matter names it); ``first_seen``/``last_seen``
    the earliest and latest dates of the drawers that mention it (ISO days; notes dated
    only by their file time count only when no other note mentions it); ``facts``
    counts the statements of its current typed facts (a value restated in three notes
    counts three); ``current`` lists its current typed facts, one per value
    (the earliest statement; :class:`palace.graph.facts.FactView`, ``mentioned_with`` left out); ``related`` are its
    strongest neighbours and ``degree`` how many entities it shares a sentence with;
    ``recent`` the latest mentions; ``ambiguous_with`` the people a short name like
    "Alice" could be, when it cannot be resolved.
    """

    name: str
    types: tuple[str, ...]
    entity_ids: tuple[int, ...]
    aliases: tuple[str, ...]
    mentions: int
    drawers: int
    files: int
    first_seen: str | None
    last_seen: str | None
    facts: int
    related: tuple[Neighbour, ...]
    recent: tuple[Citation, ...]
    current: tuple = ()
    ambiguous_with: tuple[str, ...] = ()
    degree: int = 0
    #: its plans no live fact confirms yet ("planned for D", "…, not confirmed"): never
    #: among ``current``
    planned: tuple = ()

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README. (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def profile(conn: sqlite3.Connection, registry: dict, name: str, *, related: int = 8,
            recent: int = 5, wing: str | None = None) -> EntityProfile:
    """Build the :class:`EntityProfile` of ``name`` (case-insensitive, possessive
    stripped): at most ``related`` neighbours and ``recent`` latest mentions.
    ``registry``: the predicate registry. ``wing``: the name as that wing holds it — its
    mentions, counts, types and facts there, as if no other wing existed (neighbours and
    latest mentions are left to the caller to limit). Raises :class:`UsageError` for an
    unknown name, and for a name only other wings hold, in the same words."""
    import networkx as nx

    rows = find_entities(conn, name, wing=wing)
    ids = tuple(r["id"] for r in rows)
    aliases = aliases_of(conn, ids)
    stats = mention_stats(conn, ids, wing=wing)
    graph = nx.Graph()
    for subject, obj in cooccurrences(conn, ids):
        a, b = ("self" if subject in ids else subject), ("self" if obj in ids else obj)
        if a == b:
            continue
        weight = graph.get_edge_data(a, b, {"weight": 0})["weight"]
        graph.add_edge(a, b, weight=weight + 1)
    neighbours: dict[str, Neighbour] = {}
    if "self" in graph:
        others = [n for n in graph.neighbors("self")]
        names = entity_kinds(conn, others)
        for other in others:
            other_name, other_type = names[other]
            weight = graph["self"][other]["weight"]
            k = entity_key(other_name)
            if k in neighbours:
                old = neighbours[k]
                types = tuple(dict.fromkeys(old.types + (other_type,)))
                neighbours[k] = Neighbour(old.name, types, old.weight + weight)
            else:
                neighbours[k] = Neighbour(other_name, (other_type,), weight)
    top = tuple(sorted(neighbours.values(), key=lambda n: (-n.weight, n.name))[:related])
    citations = tuple(
        Citation(r["path"], r["wing"], r["line_start"], r["line_end"], r["date_start"], r["surface"])
        for r in latest_mentions(conn, ids, recent)
    )
    stated = fact_views(conn, FactFilter(entity_ids=tuple(ids), typed_only=True, holds_on=dt.date.today(), wing=wing),
                        registry, limit=200)
    # one line per current value: a restatement in a later note cites no new fact
    seen_values: set[tuple[str, str, str]] = set()
    current = []
    for view in stated:
        value = (view.subject.casefold(), view.predicate, view.object.casefold())
        if value not in seen_values:
            seen_values.add(value)
            current.append(view)
    facts = len(stated)
    current = tuple(current[:40])
    planned = tuple(v for v in fact_views(conn, FactFilter(entity_ids=tuple(ids), typed_only=True, wing=wing,
                                                           statuses=("planned",)), registry, limit=40)
                    if v.confirmed_by is None)
    labels = mention_labels(conn, ids, wing=wing)
    if named_in_front_matter(conn, ids):
        labels.append("CONCEPT")
    candidates = sorted({name.strip() for evidence in unresolved(conn, ids)
                         for name in evidence.split(": ", 1)[-1].split(" (read once")[0].split(", ")})
    return EntityProfile(
        name=rows[0]["name"],
        # limited to a wing, a name it holds only through written facts reads as a concept:
        # the type another wing's notes gave the entity stays there
        types=tuple(labels) or (("CONCEPT",) if wing is not None else tuple(dict.fromkeys(r["type"] for r in rows))),
        entity_ids=ids,
        aliases=aliases,
        mentions=stats[0],
        drawers=stats[1],
        files=stats[2],
        first_seen=stats[3],
        last_seen=stats[4],
        facts=facts,
        related=top,
        recent=citations,
        current=current,
        ambiguous_with=tuple(candidates),
        degree=graph.degree("self") if "self" in graph else 0,
        planned=planned,
    )


@dataclass(frozen=True)
class Hop:
    """One step of a connection: ``subject`` –``predicate``→ ``object``, cited by the
    fact ``fact_id`` at ``path``:``line`` (``sentence``)."""

    subject: str
    predicate: str
    object: str
    fact_id: int
    path: str
    line: int | None
    sentence: str


@dataclass(frozen=True)
class Connection:
    """How two names are connected through current facts: the ``hops`` of a shortest
    path (empty when they are not connected within ``max_hops``)."""

    source: str
    target: str
    hops: tuple[Hop, ...]

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README. (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def connection(conn: sqlite3.Connection, registry: dict, source: str, target: str, *,
               max_hops: int = 4) -> Connection:
    """A shortest path between two names over the current facts with an entity object
    (typed facts and ``mentioned_with``), found by networkx on the graph loaded from
    SQLite. Every hop is cited by one of its facts, typed facts before co-occurrence.
    ``registry``: the predicate registry. Raises :class:`UsageError` for an unknown name."""
    import networkx as nx

    a = {r["id"] for r in find_entities(conn, source)}
    b = {r["id"] for r in find_entities(conn, target)}
    for name, ids in ((source, a), (target, b)):
        ambiguous = unresolved(conn, ids)
        if ambiguous:
            raise UsageError(f"{name!r} is ambiguous: {ambiguous[0]}", hint="give the full name")
    if a & b:
        raise UsageError(f"{source!r} and {target!r} are one entity")
    graph = nx.Graph()
    for subject, obj, fact_id, typed in entity_edges(conn, FactFilter(holds_on=dt.date.today()), registry):
        u = "source" if subject in a else "target" if subject in b else subject
        v = "source" if obj in a else "target" if obj in b else obj
        if u != v and (not graph.has_edge(u, v) or typed > graph[u][v]["typed"]):
            graph.add_edge(u, v, fact=fact_id, typed=typed)
    hops: list[Hop] = []
    if "source" in graph and "target" in graph:
        try:
            nodes = nx.shortest_path(graph, "source", "target")
        except nx.NetworkXNoPath:
            nodes = []
        if 0 < len(nodes) - 1 <= max_hops:
            for u, v in zip(nodes, nodes[1:]):
                (view,) = fact_views(conn, FactFilter(fact_ids=(graph[u][v]["fact"],)), registry)
                hops.append(Hop(view.subject, view.predicate, view.object, view.id, view.path, view.line, view.sentence))
    return Connection(source, target, tuple(hops))
