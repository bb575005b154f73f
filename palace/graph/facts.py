"""Reading facts: what was true at a date (valid time), what the palace knew at a moment
(recorded time), and the whole history of a name, superseded and invalidated facts included.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass, replace

from palace.errors import UsageError
from palace.store.entities import find_entities
from palace.store.facts import FactFilter, FactView, any_fact, count_facts, fact_views


@dataclass(frozen=True)
class FactsResult:
    """A list of facts and the question it answers (``about``, ``predicate``, ``as_of``
    valid day, ``known_at`` recorded moment, ``history`` whether closed facts are in)."""

    about: str | None
    predicate: str | None
    as_of: str | None
    known_at: str | None
    history: bool
    facts: tuple[FactView, ...]
    #: candidates about the same name (and predicate) awaiting review: never among
    #: ``facts`` unless ``history`` lists them, counted apart (``palace review``)
    pending_review: int = 0
    #: the plans about the same name (and predicate) that no live fact confirms yet,
    #: beside the current facts (never among them; :attr:`FactView.plan` says "planned
    #: for D" or "planned for D, not confirmed"); empty for ``as_of``, ``known_at`` and
    #: ``history`` (a history lists them among ``facts``)
    planned: tuple[FactView, ...] = ()

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README. (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def facts(
    conn: sqlite3.Connection,
    registry: dict,
    *,
    about: str | None = None,
    predicate: str | None = None,
    as_of: dt.date | None = None,
    known_at: str | None = None,
    history: bool = False,
    limit: int = 500,
    now: dt.date | None = None,
    typed_only: bool = False,
    wing: str | None = None,
) -> FactsResult:
    """Facts about ``about`` (a name or alias; subject or object) with ``predicate``.

    Without options, the facts that hold ``now`` (default today; :attr:`FactFilter.holds_on`).
    ``as_of`` keeps facts valid on that day; ``known_at`` (ISO date or timestamp) keeps
    what the palace held then, retracted facts included; without it only live facts
    count. ``history=True`` keeps superseded, ended, invalidated, retracted, rejected and
    candidate facts too. Dated facts come first, in valid-time order, then those whose
    notes give no day (a history is one timeline: there they come first). ``typed_only`` leaves out ``mentioned_with`` (two names in one sentence: a
    co-occurrence, not a statement); ``wing`` keeps the facts read in that wing. Ordered
    by valid time, then recorded time. ``registry``: the predicate registry (which
    predicates are events, which take one value). Raises
    :class:`palace.errors.UsageError` for an unknown name.
    """
    ids: tuple[int, ...] = ()
    value = None
    if about:
        value = " ".join(about.split()).casefold()
        try:
            ids = tuple(r["id"] for r in find_entities(conn, about, wing=wing))
        except UsageError:  # not an entity: maybe a literal value ("Metoprolol", "Starter")
            if not any_fact(conn, FactFilter(value=value, wing=wing), registry):
                raise
    wanted = FactFilter(
        entity_ids=ids, value=value, predicate=predicate, typed_only=typed_only and not predicate,
        valid_on=as_of, known_at=known_at, wing=wing,
        live=bool(as_of) and not history and not known_at,
        unsuperseded=not history and not as_of and bool(known_at),
        holds_on=(now or dt.date.today()) if not history and not as_of and not known_at else None,
    )
    views = fact_views(conn, wanted, registry, limit=limit, undated_last=not history)
    if as_of and not history:
        # an ending ("stepped down as lead") holds from an unknown start: where a dated
        # statement of the same value covers the day too, that one says it
        dated = {(v.subject, v.predicate, v.object.casefold()) for v in views if v.valid_from}
        views = tuple(v for v in views if v.valid_from or (v.subject, v.predicate, v.object.casefold()) not in dated)
    if not history:
        views = restatements(views, registry)
    pending = count_facts(conn, FactFilter(entity_ids=ids, value=value, predicate=predicate,
                                           typed_only=True, wing=wing, candidates=True), registry)
    planned: tuple[FactView, ...] = ()
    if not history and not as_of and not known_at:
        plans = FactFilter(entity_ids=ids, value=value, predicate=predicate, typed_only=True, wing=wing,
                           statuses=("planned",))
        planned = tuple(v for v in fact_views(conn, plans, registry, limit=limit, undated_last=True, today=now)
                        if v.confirmed_by is None)
    return FactsResult(about, predicate, as_of.isoformat() if as_of else None, known_at, history, views, pending,
                       planned)


def restatements(views: tuple[FactView, ...], registry: dict) -> tuple[FactView, ...]:
    """``views`` with each restated state shown once (issue 22, item 6): live views of a
    state with the same subject, predicate, value (case folded) and end — "Dana Lee works
    at Initech" in January's note and again in March's — are one fact, the one begun first
    (a dated one before an undated one), whose :attr:`FactView.restated_in` cites the
    others (``path:line``, in the order given). Events ("joined" twice is two events),
    candidates, plans and history rows are left as they are; the order is kept."""
    keep: dict[tuple, int] = {}
    cited: dict[int, list[str]] = {}
    out: list[FactView] = []
    for view in views:
        spec = registry.get(view.predicate)
        if view.state not in ("current", "ended") or (spec is not None and spec.kind == "event") or not view.object:
            out.append(view)
            continue
        key = (view.subject, view.predicate, view.object.casefold(), view.valid_to)
        if key not in keep:
            keep[key] = len(out)
            out.append(view)
            continue
        at = keep[key]
        first = out[at]
        if view.valid_from and (first.valid_from is None or view.valid_from < first.valid_from):
            cited.setdefault(id(view), []).extend([cite(first), *cited.pop(id(first), [])])
            out[at] = view
        else:
            cited.setdefault(id(first), []).append(cite(view))
    return tuple(replace(v, restated_in=tuple(cited[id(v)])) if id(v) in cited else v for v in out)


def cite(view: FactView) -> str:
    """``path:line`` of a fact (``path`` alone once its drawer is gone)."""
    return f"{view.path}:{view.line}" if view.line else view.path
