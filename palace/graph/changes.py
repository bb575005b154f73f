"""What changed: a diff of the temporal graph over a window, or since the previous mining.

Two clocks (:mod:`palace.graph.temporal`), two questions:

- **valid time** ("what changed in Q3 2024"): the live facts (not retracted) whose valid
  time **began** in the window, or that **ended** in it — closed by a later value
  (**superseded**, with the value that replaced it) or at the end of their own period.
  An event (a decision, an approval) only begins: it is reported once, on its day.
- **recorded time** ("what changed", no window): what the latest mining that changed
  anything brought in (**began**), retracted because its text left the notes
  (**retracted**), or closed with a newly read value (**superseded**) — everything
  recorded after the run before it finished (``mine_runs``, recorded to the second).

``mentioned_with`` (two names in one passage) is co-occurrence, not a statement that
something changed; it is left out of both. Changes are grouped by the entity they are
about (the subject), each with its citation (path:line and the sentence read).
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import dataclass, replace

from palace.store.facts import FactFilter, FactView, fact_values, fact_views
from palace.store.runs import latest_runs

KINDS = ("began", "ended", "superseded", "retracted")
CHANGE_LIMIT = 500


@dataclass(frozen=True)
class Change:
    """One change to one fact: ``kind`` is one of :data:`KINDS`; ``day`` is when, as an ISO
    day (valid time) or moment (recorded time); ``replaced_by`` is the value that superseded
    it, if any, and ``replaced_at`` where that was said (``path:line``); ``fact`` is the
    fact with its citation."""

    kind: str
    day: str
    fact: FactView
    replaced_by: str | None = None
    replaced_at: str | None = None


@dataclass(frozen=True)
class ChangeGroup:
    """The changes about one entity (the facts' subject), in time order."""

    entity: str
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class ChangeSet:
    """A diff of the graph. ``basis`` is ``"valid time"`` or ``"recorded time"``;
    ``start``/``end`` bound it (half-open; ``start`` is None for "since the first mining");
    ``description`` says it in words; ``groups`` hold the changes by entity (entities with
    the most changes first); ``total`` counts them; ``truncated`` says whether more than
    :data:`CHANGE_LIMIT` facts matched and the rest were left out."""

    basis: str
    start: str | None
    end: str | None
    description: str
    groups: tuple[ChangeGroup, ...]
    total: int
    truncated: bool = False

    def mentioning(self, stems: tuple[str, ...], at_least: int = 1) -> "ChangeSet":
        """The changes whose fact mentions ``at_least`` of ``stems`` (word prefixes, any
        case; all of them when there are fewer) in its sentence, subject or value: "what
        changed about the travel budget" keeps the changes that speak of travel or budgets
        (with ``at_least=2``, of both). The description says how many were left."""
        if not stems:
            return self
        patterns = [re.compile(r"\b" + re.escape(s), re.IGNORECASE) for s in dict.fromkeys(stems)]
        wanted = min(at_least, len(patterns))

        def speaks(change) -> bool:
            text = " ".join((change.fact.sentence, change.fact.subject, change.fact.object))
            return sum(1 for p in patterns if p.search(text)) >= wanted

        groups, kept = [], 0
        for group in self.groups:
            changes = tuple(c for c in group.changes if speaks(c))
            if changes:
                groups.append(ChangeGroup(group.entity, changes))
                kept += len(changes)
        left = self.total - kept
        description = self.description + (f"; {left} not mentioning {', '.join(stems)} left out" if left else "")
        return replace(self, groups=tuple(groups), total=kept, description=description)

    def drawer_ids(self) -> list[str]:
        """The drawers that hold the changes, in the order of the change list."""
        seen: dict[str, None] = {}
        for group in self.groups:
            for change in group.changes:
                if change.fact.drawer_id:
                    seen.setdefault(change.fact.drawer_id, None)
        return list(seen)


def changes_in_window(
    conn: sqlite3.Connection,
    start: dt.date,
    end: dt.date,
    *,
    entity_ids: tuple[int, ...] = (),
    wing: str | None = None,
    room: str | None = None,
    registry: dict | None = None,
) -> ChangeSet:
    """The graph's changes in valid time over ``[start, end)``: facts that began, ended or
    were superseded in it, about ``entity_ids`` (all entities when empty), in ``wing`` /
    ``room`` when given."""
    from palace.graph.temporal import default_registry

    registry = registry or default_registry()
    events = [name for name, spec in registry.items() if spec.kind == "event"]
    s, e = start.isoformat(), end.isoformat()
    wanted = FactFilter(entity_ids=entity_ids, typed_only=True, wing=wing, room=room, live=True, changed_in=(start, end))
    views = fact_views(conn, wanted, registry, limit=CHANGE_LIMIT + 1)
    truncated = len(views) > CHANGE_LIMIT
    views = views[:CHANGE_LIMIT]
    by_id = fact_values(conn, [v.superseded_by for v in views if v.superseded_by])
    found: list[Change] = []
    for view in views:
        if view.valid_from and s <= view.valid_from < e:
            found.append(Change("began", view.valid_from, view))
        if view.valid_to and s <= view.valid_to < e and view.predicate not in events:
            kind = "superseded" if view.superseded_by else "ended"
            found.append(Change(kind, view.valid_to, view, *by_id.get(view.superseded_by, (None, None))))
    last = (end - dt.timedelta(days=1)).isoformat() if end < dt.date.max else "today"
    first = "the beginning" if start <= dt.date.min else s
    description = f"facts that began, ended or were superseded from {first} to {last} (valid time)"
    return ChangeSet("valid time", s if start > dt.date.min else None, e if end < dt.date.max else None,
                     description, _grouped(found), len(found), truncated)


def changes_since_previous_mining(
    conn: sqlite3.Connection,
    *,
    entity_ids: tuple[int, ...] = (),
    wing: str | None = None,
    room: str | None = None,
    registry: dict | None = None,
) -> ChangeSet:
    """The graph's changes in recorded time since the mining before the latest one that
    changed anything (facts learned, retracted or superseded by it). Without two such
    runs (a palace mined once, or mined before runs were recorded), everything it holds
    is new since its first mining."""
    latest, previous = latest_runs(conn, wing)
    cutoff = previous["finished_at"] if previous is not None else ""
    from palace.graph.temporal import default_registry

    wanted = FactFilter(entity_ids=entity_ids, typed_only=True, wing=wing, room=room, changed_since=cutoff)
    views = fact_views(conn, wanted, registry or default_registry(), limit=CHANGE_LIMIT + 1)
    truncated = len(views) > CHANGE_LIMIT
    views = views[:CHANGE_LIMIT]
    by_id = fact_values(conn, [v.superseded_by for v in views if v.superseded_by])
    found: list[Change] = []
    for view in views:
        if view.state == "planned":  # a plan begins nothing: `palace facts` lists it as a plan
            continue
        if view.invalidated_at and view.invalidated_at > cutoff:
            found.append(Change("retracted", view.invalidated_at, view))
        elif view.recorded_at > cutoff:
            found.append(Change("began", view.recorded_at, view))
        elif view.superseded_by:
            found.append(Change("superseded", view.valid_to or "", view, *by_id.get(view.superseded_by, (None, None))))
    if previous is not None:
        description = f"since the previous mining (finished {cutoff}), in recorded time"
    elif latest is not None:
        description = f"since the first mining (finished {latest['finished_at']}): everything is new, in recorded time"
    else:
        description = "no mining run is recorded: everything the palace holds, in recorded time"
    return ChangeSet("recorded time", cutoff or None, None, description, _grouped(found), len(found), truncated)


def _grouped(found: list[Change]) -> tuple[ChangeGroup, ...]:
    groups: dict[str, list[Change]] = {}
    for change in found:
        groups.setdefault(change.fact.subject, []).append(change)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0].casefold()))
    order = {"superseded": 0, "ended": 1, "retracted": 2, "began": 3}  # on one day: the old value first
    return tuple(
        ChangeGroup(name, tuple(sorted(items, key=lambda c: (c.day, order[c.kind], c.fact.id)))) for name, items in ordered
    )
