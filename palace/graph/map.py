"""``palace map``: the temporal graph as a picture's data — entities as nodes, typed facts
as edges, each fact with its valid and recorded time, evidence, state and citation, the
changes of a window, and a layout.

What is drawn (:func:`map_data`):

- **Facts**: typed facts (never ``mentioned_with``) that are ``live`` or ``planned``
  (:mod:`palace.store.fact_states`); candidates only when asked for (the page keeps them
  behind a toggle, marked); rejected, retracted and invalidated facts never. Facts read
  in a private wing (:attr:`palace.config.Config.private_wings`) are left out unless
  that wing is the one asked for. With a window (``since``/``until``) only the facts
  valid at some time in it or ended in it.
- **Nodes**: one per entity name key (an entity read under two types is one node) and
  one per literal value (a plan tier, a title, a decision's words). At most
  :data:`MAX_NODES`: the named entities and the entities their facts name, or — with no
  name — the entities named by the most facts, each followed by its literal values,
  until the budget is spent. A node's size is its evidence: the facts on the map that
  name it.
- **Edges**: one per subject, predicate and object; its facts are the statements of it
  (a value restated in three notes is one edge of three facts).
- **Changes**: in the window (or over all time), what began, ended or was superseded —
  the kinds of ``palace changes`` — one per edge, kind and day.
- **Layout**: networkx's ``spring_layout`` with a fixed seed over every edge, so the same
  palace gives the same picture, and a node keeps its place whatever day is shown.

Valid time on a day is that of ``palace facts --as-of``: ``[valid_from, valid_to)``; a fact
with an unknown start counts as valid up to its end, unless the notes state the same
value with a start only after that day (:attr:`MapFact.begins`), and an undated fact a
dated one contradicted is valid on no day.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from palace.errors import UsageError
from palace.store.entities import find_entities, mentioned_in_wing
from palace.store.facts import FactFilter, FactView, fact_views
from palace.store.map import aliases_by_entity, count_entities, entity_activity, entity_names_ranked, entity_rows, fact_ends

if TYPE_CHECKING:
    from palace.config import Config

__all__ = ["MAX_NODES", "MapNode", "MapEdge", "MapFact", "MapChange", "MapData", "map_data"]

#: Nodes drawn at most (entities and literal values).
MAX_NODES = 200
#: Names of entities not drawn that the page's search still finds (to open a map of them).
OTHER_NAMES = 2000
#: Changes listed at most (the latest first are kept).
CHANGE_LIMIT = 1000
#: The layout's seed: the same palace gives the same picture.
LAYOUT_SEED = 7
#: Width over height of the page's drawing (its SVG is 1000 × 700).
ASPECT = 1000 / 700
#: Room beside a small part (three nodes or fewer) for its labels, in layout units.
LABEL_ROOM = 2.0
#: A literal value longer than this is cut on its node's label (the panel shows it whole).
LABEL_CHARS = 40


@dataclass(frozen=True)
class MapNode:
    """One node: ``id`` (``e:`` and the entity's name key, or ``v:`` and a literal value's
    lower case), ``name`` (the label), ``type`` (the entity's type, ``VALUE`` for a
    literal), ``facts`` (facts on the map that name it: its size), ``mentions`` (how
    often the notes name it), ``aliases``, ``named`` (asked for by name) and ``x``, ``y``
    (its place, each in [0, 1])."""

    id: str
    name: str
    type: str
    facts: int
    mentions: int
    aliases: tuple[str, ...]
    named: bool
    x: float
    y: float


@dataclass(frozen=True)
class MapEdge:
    """One edge: ``source`` and ``target`` node ids, the ``predicate``, and ``facts``:
    the ids of the facts that state it, in valid-time order."""

    id: int
    source: str
    target: str
    predicate: str
    facts: tuple[int, ...]


@dataclass(frozen=True)
class MapFact:
    """One fact as the page shows it: ``edge`` (None for an ending that names no value:
    "Ines retired"), ``node`` (its subject's node), ``subject``, ``predicate``, ``object`` (names), ``kind`` (``state``
    or ``event``), valid time ``[valid_from, valid_to)`` (ISO days; None when open or
    unknown) with its ``granularity``, ``begins`` (for an unknown start: the first day the
    notes state the same value from, before which it is not valid; else None),
    ``recorded_at``, ``state`` (``current``, ``superseded``, ``ended``, ``planned`` or
    ``candidate``), ``superseded_by`` (a fact id) and ``replaced_by`` (its value, when
    that fact is on the map), ``evidence``, and the citation: ``wing``, ``path``,
    ``line`` (1-based; None once the drawer is gone) and ``sentence``."""

    id: int
    edge: int | None
    node: str
    subject: str
    predicate: str
    object: str
    kind: str
    valid_from: str | None
    valid_to: str | None
    granularity: str | None
    begins: str | None
    recorded_at: str
    state: str
    superseded_by: int | None
    replaced_by: str | None
    evidence: str
    wing: str
    path: str
    line: int | None
    sentence: str


@dataclass(frozen=True)
class MapChange:
    """One change of the timeline: ``day`` (ISO), ``kind`` (``began``, ``ended``,
    ``superseded``), the ``fact`` id and its ``edge``, and ``text`` in words."""

    day: str
    kind: str
    fact: int
    edge: int | None
    text: str


@dataclass(frozen=True)
class MapData:
    """What ``palace map`` draws. ``names``, ``wing``, ``since``, ``until`` (ISO, the
    window asked for; None when open) and ``candidates`` say what was asked; ``today``
    the day states are read on; ``first_day`` and ``last_day`` bound the slider (the
    window, else the facts' own days and today); ``entities_total`` counts the entities
    the facts in scope name, ``entities_shown`` those drawn; ``others``: names of
    entities not drawn, most facts first (at most :data:`OTHER_NAMES`), for the search;
    ``private_left_out``: the private wings whose facts were left out; ``changes_total``
    counts the changes before :data:`CHANGE_LIMIT`."""

    palace: str
    generated_at: str
    today: str
    names: tuple[str, ...]
    wing: str | None
    since: str | None
    until: str | None
    candidates: bool
    first_day: str
    last_day: str
    entities_total: int
    entities_shown: int
    max_nodes: int
    nodes: tuple[MapNode, ...]
    edges: tuple[MapEdge, ...]
    facts: tuple[MapFact, ...]
    changes: tuple[MapChange, ...]
    changes_total: int
    others: tuple[str, ...]
    private_left_out: tuple[str, ...]


def map_data(conn: sqlite3.Connection, config: "Config", registry: dict, names: tuple[str, ...] = (), *,
             wing: str | None = None, since: dt.date | None = None, until: dt.date | None = None,
             candidates: bool = False, max_nodes: int = MAX_NODES, today: dt.date | None = None,
             palace: str = "") -> MapData:
    """The :class:`MapData` of the palace on ``conn`` (see the module): about ``names``
    (names or aliases; default: the entities named by the most facts), in ``wing`` (default:
    every wing but the private ones), over the valid-time window ``[since, until]`` (both
    days included; either may be open), with the candidates when ``candidates``.
    ``registry``: the predicate registry; ``config``: the settings (which wings are
    private). Raises :class:`UsageError` for an unknown wing, a name the map may not show
    (unknown, or held only by another wing: the same error), or an empty window."""
    today = today or dt.date.today()
    if since and until and until < since:
        raise UsageError(f"--until {until} is before --since {since}", hint="give a window whose end follows its start")
    if max_nodes < 1:
        raise UsageError("a map needs at least one node", hint=f"the default is {MAX_NODES}")
    private = tuple(sorted(config.private_wings - ({wing} if wing else set())))
    statuses = ("live", "planned", "candidate") if candidates else ("live", "planned")
    end = until + dt.timedelta(days=1) if until else None
    window = (since or dt.date.min, end or dt.date.max)
    scope = FactFilter(typed_only=True, statuses=statuses, wing=wing, not_wings=private if not wing else (),
                       # valid at some time in the window, or ended in it (a change of the window)
                       any_of=(FactFilter(overlaps=window), FactFilter(changed_in=window)) if since or until else ())
    named = _named_ids(conn, registry, names, scope, wing, private)
    if names:
        seeds = [i for ids in named for i in ids]
        around = entity_activity(conn, replace(scope, entity_ids=tuple(seeds)), registry, limit=max_nodes * 4)
        ranked = list(dict.fromkeys([*seeds, *(e for e, _ in around)]))
    else:
        ranked = [e for e, _ in entity_activity(conn, scope, registry, limit=max_nodes)]
    views = fact_views(conn, replace(scope, entity_ids=tuple(ranked[:max_nodes * 4])), registry, limit=10**6) \
        if ranked else ()
    ends = fact_ends(conn, [v.id for v in views])
    rows = entity_rows(conn, {i for s, o in ends.values() for i in (s, o) if i is not None} | set(ranked))
    key_of = {i: f"e:{r['key']}" for i, r in rows.items()}
    for ids in named:  # every entity a name finds is that name's one node
        for i in ids:
            key_of[i] = key_of[ids[0]]
    nodes, facts, edges = _draw(views, ends, rows, key_of, ranked, {i for ids in named for i in ids}, max_nodes,
                                registry)
    aliases = aliases_by_entity(conn, [i for i in rows])
    placed = _layout(nodes, edges)
    drawn_ids = {i for i in rows if key_of[i] in nodes}
    node_list = tuple(
        MapNode(id=key, name=n["name"], type=n["type"], facts=n["facts"], mentions=n["mentions"],
                aliases=tuple(sorted({a for i in n["ids"] for a in aliases.get(i, ()) if a != n["name"]})),
                named=n["named"], x=float(placed[key][0]), y=float(placed[key][1]))
        for key, n in nodes.items())
    changes = _changes(facts, since, end)
    days = [d for f in facts for d in (f.valid_from, f.valid_to) if d] + [today.isoformat()]
    first = since.isoformat() if since else min(days)
    last = until.isoformat() if until else max(days)
    return MapData(
        palace=palace, generated_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        today=today.isoformat(), names=tuple(names), wing=wing, since=since.isoformat() if since else None,
        until=until.isoformat() if until else None, candidates=candidates, first_day=first[:10], last_day=last[:10],
        entities_total=count_entities(conn, scope, registry),
        entities_shown=sum(1 for n in node_list if n.type != "VALUE"), max_nodes=max_nodes,
        nodes=node_list, edges=tuple(edges), facts=tuple(facts), changes=tuple(changes[:CHANGE_LIMIT]),
        changes_total=len(changes),
        others=tuple(entity_names_ranked(conn, scope, registry, limit=OTHER_NAMES, skip=drawn_ids)),
        private_left_out=private if not wing else ())


def _named_ids(conn: sqlite3.Connection, registry: dict, names: tuple[str, ...], scope: FactFilter,
               wing: str | None, private: tuple[str, ...]) -> list[tuple[int, ...]]:
    """The entity ids of each name. A name the map may not show — unknown, or one only
    another wing (or only a private wing) holds — raises the same :class:`UsageError`, so
    the error says nothing of the other wings; a hint names close names only when every
    wing may be shown."""
    out = []
    for name in names:
        try:
            ids = tuple(r["id"] for r in find_entities(conn, name))
        except UsageError as exc:
            if wing or private:
                raise UsageError(_unknown(name, wing), hint="palace map with no name draws the busiest entities") \
                    from None
            raise exc from None
        if (wing or private) and not _visible(conn, registry, ids, scope, wing):
            raise UsageError(_unknown(name, wing), hint="palace map with no name draws the busiest entities")
        out.append(ids)
    return out


def _unknown(name: str, wing: str | None) -> str:
    return f"no entity named {name!r}" + (f" in wing {wing!r}" if wing else " in this palace")


def _visible(conn: sqlite3.Connection, registry: dict, ids: tuple[int, ...], scope: FactFilter,
             wing: str | None) -> bool:
    """Whether the entities ``ids`` are named by a fact in ``scope`` or, with a ``wing``,
    mentioned in it."""
    if entity_activity(conn, scope, registry, limit=1, among=ids):
        return True
    return bool(wing) and mentioned_in_wing(conn, ids, wing)


def _value_key(value: str) -> str:
    return "v:" + " ".join(value.split()).casefold()


def _draw(views: tuple[FactView, ...], ends: dict, rows: dict, key_of: dict[int, str], ranked: list[int],
          named: set[int], max_nodes: int, registry: dict) -> tuple[dict, list[MapFact], list[MapEdge]]:
    """The nodes (``{node id: {name, type, ids, mentions, facts, named}}``), facts and
    edges of the map: entities in ``ranked`` order (``key_of``: each entity's node id),
    each followed by its literal values, while the budget lasts; the facts whose two ends
    are drawn."""
    by_subject: dict[int, list[FactView]] = {}
    for view in views:
        by_subject.setdefault(ends[view.id][0], []).append(view)
    nodes: dict[str, dict] = {}

    def add_entity(entity_id: int) -> bool:
        row = rows.get(entity_id)
        if row is None:
            return False
        key = key_of[entity_id]
        node = nodes.get(key)
        if node is None:
            if len(nodes) >= max_nodes:
                return False
            node = nodes[key] = {"name": row["name"], "type": row["type"], "ids": [], "mentions": 0, "facts": 0,
                                 "named": False, "best": -1}
        if entity_id not in node["ids"]:
            node["ids"].append(entity_id)
            node["mentions"] += row["mentions"]
            if row["mentions"] > node["best"]:  # the most mentioned reading names and types the node
                node.update(name=row["name"], type=row["type"], best=row["mentions"])
        node["named"] = node["named"] or entity_id in named
        return True

    for entity_id in ranked:
        if not add_entity(entity_id):
            continue
        for view in by_subject.get(entity_id, ()):
            if ends[view.id][1] is None and view.object and len(nodes) < max_nodes:
                nodes.setdefault(_value_key(view.object), {"name": _label(view.object), "type": "VALUE", "ids": [],
                                                           "mentions": 0, "facts": 0, "named": False, "best": 0})
    edge_of: dict[tuple[str, str, str], int] = {}
    edge_facts: dict[int, list[int]] = {}
    kept: list[tuple[FactView, str, int | None]] = []
    for view in views:
        subject, obj = ends[view.id]
        source = key_of.get(subject)
        target = key_of.get(obj) if obj is not None else (_value_key(view.object) if view.object else None)
        if source not in nodes or (target is not None and target not in nodes):
            continue
        if target is None:  # an ending that names no value: listed with its subject
            kept.append((view, source, None))
            nodes[source]["facts"] += 1
            continue
        edge = edge_of.setdefault((source, view.predicate, target), len(edge_of))
        edge_facts.setdefault(edge, []).append(view.id)
        kept.append((view, source, edge))
        nodes[source]["facts"] += 1
        nodes[target]["facts"] += 1
    for key in [k for k, n in nodes.items() if n["type"] == "VALUE" and not n["facts"]]:
        del nodes[key]  # a value whose fact was not drawn
    edges = [MapEdge(i, s, t, p, tuple(edge_facts[i])) for (s, p, t), i in edge_of.items()]
    return nodes, _facts(kept, registry), edges


def _label(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= LABEL_CHARS else value[:LABEL_CHARS - 1].rstrip() + "…"


def _facts(kept: list[tuple[FactView, str, int | None]], registry: dict) -> list[MapFact]:
    """The drawn facts as :class:`MapFact`: the value that replaced each (when on the map)
    and, for an unknown start, the first day the same value is stated from."""
    value_of = {v.id: v.object for v, _, _ in kept}
    first_dated: dict[tuple[str, str, str], str] = {}
    for view, _, _ in kept:
        if view.valid_from and view.state != "candidate":
            key = (view.subject, view.predicate, view.object.casefold())
            first_dated[key] = min(first_dated.get(key, view.valid_from), view.valid_from)
    return [MapFact(
        id=v.id, edge=edge, node=node, subject=v.subject, predicate=v.predicate, object=v.object,
        kind=getattr(registry.get(v.predicate), "kind", "state"),
        valid_from=v.valid_from, valid_to=v.valid_to, granularity=v.valid_granularity,
        begins=None if v.valid_from else first_dated.get((v.subject, v.predicate, v.object.casefold())),
        recorded_at=v.recorded_at, state=v.state, superseded_by=v.superseded_by,
        replaced_by=value_of.get(v.superseded_by) if v.superseded_by else None, evidence=v.evidence, wing=v.wing,
        path=v.path, line=v.line, sentence=v.sentence) for v, node, edge in kept]


def _changes(facts: list[MapFact], since: dt.date | None, end: dt.date | None) -> list[MapChange]:
    """What began, ended or was superseded in ``[since, end)`` (open ends: all time), one
    per edge, kind and day, the latest first. An event only begins."""
    start_day = since.isoformat() if since else "0000"
    end_day = end.isoformat() if end else "9999"
    seen: set[tuple] = set()
    out: list[MapChange] = []
    for f in facts:
        if f.state == "candidate":
            continue
        found = []
        if f.valid_from and start_day <= f.valid_from < end_day:
            found.append((f.valid_from, "began"))
        if f.kind == "state" and f.valid_to and start_day <= f.valid_to < end_day:
            found.append((f.valid_to, "superseded" if f.superseded_by else "ended"))
        for day, kind in found:
            mark = (f.edge if f.edge is not None else f"f{f.id}", kind, day)
            if mark in seen:
                continue
            seen.add(mark)
            replaced = f" → {f.replaced_by}" if kind == "superseded" and f.replaced_by else ""
            text = f"{f.subject} {f.predicate.replace('_', ' ')} {f.object or '(whatever held)'}{replaced}"
            out.append(MapChange(day[:10], kind, f.id, f.edge, text))
    out.sort(key=lambda c: (c.day, c.fact), reverse=True)
    return out


def _star(graph, part: list[str]) -> dict[str, tuple[float, float]] | None:
    """The places of a connected part that is a star — one node and the values or names
    only it links to, the common shape of a map's small parts — its centre in the middle
    and the rest on a circle, in name order; None for any other shape. (A spring layout
    of each of hundreds of small parts costs seconds and says no more.)"""
    import math

    sub = graph.subgraph(part)
    hub = max(part, key=lambda n: (sub.degree(n), n))
    if sub.degree(hub) != len(part) - 1 or sub.number_of_edges() != len(part) - 1:
        return None
    leaves = [n for n in part if n != hub]
    turn = 2 * math.pi / len(leaves)
    return {hub: (0.0, 0.0), **{n: (math.cos(math.pi / 2 + i * turn), math.sin(math.pi / 2 + i * turn))
                                for i, n in enumerate(leaves)}}


def _layout(nodes: dict, edges: list[MapEdge]) -> dict[str, tuple[float, float]]:
    """Each node's place, in [0.03, 0.97] on both axes. Each connected part is laid out —
    a star as a hub and a circle (:func:`_star`), any other shape by networkx's spring
    layout with the fixed :data:`LAYOUT_SEED` — in a square whose side
    grows with the square root of its size (a small part gets :data:`LABEL_ROOM` beside
    it for its labels), and the boxes are packed in rows, largest first, to fill a page of
    :data:`ASPECT` (width over height)."""
    if not nodes:
        return {}
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((e.source, e.target) for e in edges if e.source != e.target)
    parts = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    boxes = []  # (width, height, {node: (x, y) inside})
    for part in parts:
        side = 1.0 + 2.4 * len(part) ** 0.5 if len(part) > 3 else 1.0 + 1.4 * len(part) ** 0.5
        width = side if len(part) > 3 else side + LABEL_ROOM  # a small part is mostly its labels
        if len(part) == 1:
            boxes.append((width, side, {part[0]: (0.5, side / 2)}))
            continue
        pos = _star(graph, part) or nx.spring_layout(graph.subgraph(part), seed=LAYOUT_SEED, iterations=60)
        xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
        x0, y0 = min(xs), min(ys)
        w, h = max(xs) - x0, max(ys) - y0

        def spread(value: float, low: float, extent: float) -> float:  # a part with no extent sits in the middle
            return side / 2 if extent < 1e-9 else 0.5 + (side - 1) * (value - low) / extent

        boxes.append((width, side, {n: (spread(p[0], x0, w), spread(p[1], y0, h)) for n, p in pos.items()}))
    row_width = max(max(b[0] for b in boxes), (sum(b[0] * b[1] for b in boxes) * ASPECT) ** 0.5)
    placed: dict[str, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for width, height, pos in boxes:
        if x > 0 and x + width > row_width:
            x, y, row_height = 0.0, y + row_height, 0.0
        for n, (px, py) in pos.items():
            placed[n] = (x + px, y + py)
        x, row_height = x + width, max(row_height, height)
    width, height = max(row_width, x), y + row_height
    scale = max(width / ASPECT, height)  # keep the proportions: one unit is as long across as down
    return {n: (round(0.03 + 0.94 * px / (scale * ASPECT), 4), round(0.03 + 0.94 * py / scale, 4))
            for n, (px, py) in placed.items()}
