"""The graph answers first: the one-fact answer, the facts about the question's names,
the changes — read before any drawer is ranked.

- a question that asks for one predicate of one name ("what plan is Initrode on") gets
  its value from the facts valid then, with its citation and the value it replaced
  (:func:`palace.ask.answers.answer_question`); the drawers it cites are admitted into a
  ``--since``/``--until`` scope and lead the graph's list;
- the typed facts about the question's entities (:func:`entity_facts`: current ones only
  for a current-state question; every one, superseded included, for a history question
  or ``history=True``);
- for a change question the diff of :mod:`palace.graph.changes` over the window (or
  since the previous mining).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from palace.ask.answers import Answer, answer_question
from palace.ask.options import AskOptions
from palace.ask.planning import Plan, stem
from palace.ask.scope import Scope
from palace.graph.changes import ChangeSet, changes_in_window, changes_since_previous_mining
from palace.store import search
from palace.store.facts import FactFilter, FactView, count_facts, fact_views

#: Facts listed with an answer (the drawers of all of them still rank).
FACTS_SHOWN = 20
#: The intents whose answer lists the facts about the question's entities.
FACT_INTENTS = ("entity", "current", "history")


@dataclass(frozen=True)
class GraphAnswer:
    """What the graph said before retrieval: the one-fact ``answer`` (or None), the
    ``changes`` of a change question (or None), the typed ``facts`` about the question's
    names (the first :data:`FACTS_SHOWN`) and ``hidden`` (states superseded or ended by
    the day asked about, left out); ``lead`` maps the drawers the graph's list ranks
    first (those the answer cites, then the facts') to the indexes of the plan entities
    they are about; ``scope`` is the scope with the answer's drawers admitted; ``notes``
    say what was read and left out."""

    answer: Answer | None
    changes: ChangeSet | None
    facts: tuple[FactView, ...]
    hidden: int
    lead: dict[str, tuple[int, ...]]
    scope: Scope
    notes: tuple[str, ...]

    def cited(self) -> list[str]:
        """The drawers the one-fact answer cites (never pushed down by a window)."""
        return self.answer.drawer_ids() if self.answer else []


def read_graph(conn, registry: dict, plan: Plan, scope: Scope, weights: dict[str, float],
               options: AskOptions) -> GraphAnswer:
    """The graph stage of ``ask`` for ``plan`` in ``scope``: the one-fact answer (not for
    a baseline run), the changes when ``weights`` has ``changes``, the facts about the
    plan's entities when it has ``graph`` (superseded ones too with ``options.history``
    or for a history question)."""
    notes: list[str] = []
    answer = None if options.baseline else answer_question(conn, registry, plan, wing=scope.wing)
    cited = answer.drawer_ids() if answer else []
    scope = _admitted(conn, plan, scope, cited, notes)
    changes = _changes(conn, registry, plan, scope, notes) if weights.get("changes") else None
    facts, hidden, lead = (), 0, {}
    if plan.entities and weights.get("graph"):
        facts, hidden, lead, fact_notes = entity_facts(
            conn, registry, plan, history=options.history or plan.intent == "history", wing=scope.wing)
        if plan.intent in FACT_INTENTS:
            notes += fact_notes
            if hidden:
                notes.append(f"{hidden} superseded fact{'' if hidden == 1 else 's'} hidden; --history shows them")
    asked = next((i for i, e in enumerate(plan.entities) if answer and e.name == answer.subject), None)
    if cited and asked is not None:  # the drawers cited by the answer lead the graph's list
        lead = {**{d: (asked,) for d in cited}, **lead}
    return GraphAnswer(answer, changes, facts, hidden, lead, scope, tuple(notes))


def _admitted(conn, plan: Plan, scope: Scope, cited: list[str], notes: list[str]) -> Scope:
    """``scope`` with the drawers the answer cites (in its wing and room) admitted, even
    from before a ``--since``/``--until`` window."""
    if not cited or scope.allowed is None:
        return scope
    admitted = scope.rowids(conn, cited) - scope.allowed
    if admitted and plan.window is not None:
        notes.append(f"{len(admitted)} drawer{'' if len(admitted) == 1 else 's'} cited by the answer"
                     f" admitted from outside --since/--until")
    return scope.admit(admitted)


def _changes(conn, registry: dict, plan: Plan, scope: Scope, notes: list[str]) -> ChangeSet:
    """The changes a change question asks for: in the window when it is used (never
    after ``now``), else since the previous mining; about the plan's entities, or, with
    none, those that speak of its terms."""
    entity_ids = tuple(i for e in plan.entities for i in e.entity_ids)
    where = {"entity_ids": entity_ids, "wing": scope.wing, "room": scope.room, "registry": registry}
    if plan.window is not None and scope.mode in ("filter", "boost"):
        end = min(plan.window.end, (plan.now or dt.date.today()) + dt.timedelta(days=1))  # nothing after --now
        changes = changes_in_window(conn, plan.window.start, max(end, plan.window.start), **where)
    else:
        changes = changes_since_previous_mining(conn, **where)
    if not plan.entities:  # a topic that is not a name: keep the changes that speak of it
        changes = changes.mentioning(tuple(stem(t) for t in plan.terms if not t.isdigit()))
    notes.append(f"{changes.total} change{'' if changes.total == 1 else 's'}: {changes.description}")
    return changes


def entity_facts(
    conn, registry: dict, plan: Plan, *, history: bool = False, wing: str | None = None
) -> tuple[tuple[FactView, ...], int, dict[str, tuple[int, ...]], list[str]]:
    """The typed facts (not ``mentioned_with``) about the plan's entities, not retracted,
    in the plan's window when it has one (valid time overlapping it).

    Without ``history``: for a question about a span ("in summer 2024"), every fact
    valid at some time in it (begun by ``now``); otherwise the states valid at the plan's
    ``now`` (begun by then, not superseded or ended by then) and — except for a
    current-state question — the events of record (a decision, an approval) that
    happened by then. Returns ``(facts, hidden, drawers, notes)``: facts whose predicate
    the question names ("report" → ``reports_to``) first, then the latest (with
    ``history``: in valid-time order); the number of states superseded or ended by
    ``now`` that were left out; their drawers in that order, each with the indexes of
    the plan entities its facts are about (for :func:`palace.ask.retrievers.graph`); and
    notes on what else was left out."""
    ids = tuple(i for e in plan.entities for i in e.entity_ids)
    if not ids:
        return (), 0, {}, []
    base = FactFilter(entity_ids=ids, typed_only=True, live=True, wing=wing,
                      overlaps=(plan.window.start, plan.window.end) if plan.window is not None else None)
    views, hidden, notes = _views(conn, registry, plan, base, history)
    named = named_predicates(plan.terms, registry)
    ordered = sorted(views, key=lambda v: v.id)  # stable sorts: named predicates, then by valid time
    ordered.sort(key=lambda v: v.valid_from or "", reverse=not history)  # latest first, unless a timeline
    ordered.sort(key=lambda v: v.predicate not in named)
    index_of = {i: n for n, e in enumerate(plan.entities) for i in e.entity_ids}
    ends = search.fact_ends(conn, [v.id for v in ordered])
    drawers: dict[str, tuple[int, ...]] = {}
    for view in ordered:
        about = {index_of[i] for i in ends.get(view.id, ()) if i in index_of}
        drawers[view.drawer_id] = tuple(sorted(set(drawers.get(view.drawer_id, ())) | about))
    return tuple(ordered[:FACTS_SHOWN]), hidden, drawers, notes


def _views(conn, registry: dict, plan: Plan, base: FactFilter,
           history: bool) -> tuple[tuple[FactView, ...], int, list[str]]:
    """The facts of ``base`` that :func:`entity_facts` lists, how many superseded or
    ended states it hid, and notes on what else it left out."""
    day = plan.now or dt.date.today()
    if history:
        return fact_views(conn, base, registry), 0, []
    if plan.window is not None and plan.window_source == "question" and plan.window.granularity != "day":
        # "in summer 2024": every fact valid at some time in it, with its own interval
        return fact_views(conn, replace(base, begun_by=day, drop_undated_superseded=True), registry), 0, []
    state_now = FactFilter(kind="state", begun_by=day, not_ended_by=day, drop_undated_superseded=True)
    event_by = FactFilter(kind="event", begun_by=day)
    wanted = (state_now,) if plan.intent == "current" else (state_now, event_by)
    views = fact_views(conn, replace(base, any_of=wanted), registry)

    def count(**narrower) -> int:
        return count_facts(conn, replace(base, **narrower), registry)

    notes = []
    hidden = count(kind="state", ended_by=day)
    later = count(begins_after=day)
    if later:
        notes.append(f"{later} fact{'' if later == 1 else 's'} dated after {day} (--now) left out")
    if plan.intent == "current":
        past = count(kind="event", begun_by=day)
        if past:
            notes.append(f"{past} event{'' if past == 1 else 's'} (decisions, approvals…) left out: a"
                         " current-state answer lists states; --history shows everything")
    return views, hidden, notes


def named_predicates(terms: tuple[str, ...], registry: dict) -> set[str]:
    """Predicates the question names by their name or one of their verbs ("report" →
    ``reports_to``, "decide" → ``decided``), compared by a crude stem."""
    stems = {stem(t) for t in terms}
    named = set()
    for name, spec in registry.items():
        words = set(name.split("_")) | set(spec.verbs)
        for pattern in spec.patterns:
            words |= set(pattern.get("verbs", ()))
        if stems & {stem(w) for w in words if len(w) > 2}:
            named.add(name)
    return named
