"""Time for facts: the predicate registry and supersession of one-value facts.

Facts carry two times (the bitemporal model of Snodgrass, "Developing Time-Oriented
Database Applications in SQL", 1999): **valid time** (``valid_from``/``valid_to``: when
it was true in the world, half-open) and **recorded time** (``recorded_at``/
``invalidated_at``: when the palace learned it and when it retracted it).

For a cardinality-one predicate (employer, role, plan, medication…) the values of one
subject form a timeline. :func:`close_timeline` computes it from the set of live facts
alone, so the order in which notes were mined never matters:

- a fact stays valid through later days that assert only its value (a later note saying
  "still on Lisinopril" does not end it);
- the first later day that asserts anything else closes it: ``valid_to`` = that day,
  ``superseded_by`` = the lowest id among that day's other values; the rest stays open;
- a group with two values on the same day is a **conflict**: both are kept, reported
  with each other's ids, and neither wins.

Nothing is deleted: a superseded fact is closed, and stays in history.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable, Iterable

from palace.config import Config
from palace.store.graph import close_fact, live_group
from palace.errors import ConfigError
from palace.nlp.registry import Predicate, predicates_from

__all__ = ["Predicate", "default_registry", "load_registry", "load_values", "Assertion", "Closure",
           "close_timeline", "recorded_now", "set_clock", "system_clock"]


@lru_cache(maxsize=1)
def _default_data() -> dict:
    return json.loads(resources.files("palace").joinpath("data/predicates.json").read_text(encoding="utf-8"))


def load_values(config: Config | None = None) -> dict[str, tuple[str, ...]]:
    """The value lexicons (job titles, plan tiers, statuses, medications…) of the registry,
    each extended by the palace ``config``'s ``"values"`` lists of the same name."""
    values = {name: tuple(words) for name, words in _default_data()["values"].items()}
    for name, words in (config.values if config is not None else {}).items():
        values[name] = tuple(values.get(name, ())) + tuple(words)
    return values


@lru_cache(maxsize=1)
def default_registry() -> dict[str, Predicate]:
    """The registry shipped in ``palace/data/predicates.json``."""
    return predicates_from(_default_data()["predicates"])


def load_registry(config: Config | None = None) -> dict[str, Predicate]:
    """The default registry, extended or overridden by the palace ``config``'s
    ``"predicates"`` list (same fields). Raises :class:`ConfigError` for a malformed entry."""
    registry = dict(default_registry())
    try:
        registry.update(predicates_from(config.predicates if config is not None else ()))
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(f"config.json: {exc}", hint="see the predicate fields in the README") from None
    return registry


@dataclass(frozen=True)
class Assertion:
    """A live fact of one subject and predicate: its id, value (``None`` for an ending
    that names no value: "Ines retired"), valid start (``None`` when the text gives none:
    "stepped down as lead", "until 2010") and the end its text states (``stated_to``)."""

    id: int
    value: str | None
    valid_from: dt.date | None
    stated_to: dt.date | None = None


@dataclass(frozen=True)
class Closure:
    """Where a fact's validity ends: ``valid_to`` (None while current), the fact that
    superseded it, and the ids it conflicts with (same day, other value)."""

    valid_to: dt.date | None
    superseded_by: int | None
    conflicts_with: tuple[int, ...] = ()


def close_timeline(assertions: Iterable[Assertion], one_value: bool = True) -> dict[int, Closure]:
    """Compute the timeline of one subject's predicate: ``{fact id: Closure}``.

    A fact ends at the earliest of: the end its own text states; an **ending** of its
    value (a fact with no start that ends that value, or any value when it names none:
    "Ines stepped down as lead", the ``A`` of "moved from A to B") dated after its start;
    and, for a one-value predicate (``one_value``), the first later day asserting another
    value — then ``superseded_by`` is the lowest id among that day's other values. An
    ending on the day the fact starts closes it ("was hired and resigned the same day"). A fact
    stays valid through later days that assert only its value (restatements). Facts of
    one day with different values conflict. A fact without a start ends where its text
    says, and a fact with neither start nor end (read in a note with no date of its own)
    is superseded by the first dated assertion of another value, with no end (it is not
    current, and no valid time says when it stopped). A pure function of the
    set of assertions (the input order is irrelevant).
    """
    items = list(assertions)
    by_day: dict[dt.date, list[Assertion]] = {}
    endings: list[Assertion] = []
    for a in items:
        if a.valid_from is not None and a.value is not None:
            by_day.setdefault(a.valid_from, []).append(a)
        elif a.valid_from is None and a.stated_to is not None:
            endings.append(a)
    days = sorted(by_day)
    values = {day: {a.value for a in by_day[day]} for day in days}
    out: dict[int, Closure] = {}
    for a in items:
        if a.valid_from is None and a.value is not None and a.stated_to is None and one_value:
            # undated (a note with no date of its own): it holds until a dated note says
            # otherwise, and never closes a dated value itself
            # (superseded with no end: it enters no valid-time change list)
            other = next((day for day in days if values[day] != {a.value}), None)
            superseded_by = min(b.id for b in by_day[other] if b.value != a.value) if other else None
            out[a.id] = Closure(None, superseded_by)
            continue
        if a.valid_from is None or a.value is None:
            out[a.id] = Closure(a.stated_to, None)
            continue
        ends: list[tuple[dt.date, int | None]] = []
        if a.stated_to is not None:
            ends.append((a.stated_to, None))
        closing = [e.stated_to for e in endings if e.stated_to >= a.valid_from and e.value in (None, a.value)]
        if closing:
            ends.append((min(closing), None))
        if one_value:
            for day in days:
                if day <= a.valid_from or values[day] == {a.value}:
                    continue
                ends.append((day, min(b.id for b in by_day[day] if b.value != a.value)))
                break
        valid_to, superseded_by = None, None
        if ends:
            valid_to = min(day for day, _ in ends)
            superseded_by = next((by for day, by in ends if day == valid_to and by is not None), None)
        rivals = tuple(sorted(b.id for b in by_day[a.valid_from] if b.value != a.value)) if one_value else ()
        out[a.id] = Closure(valid_to, superseded_by, rivals)
    return out


def system_clock() -> dt.datetime:
    """The machine's clock: the current moment, aware, in UTC."""
    return dt.datetime.now(dt.timezone.utc)


#: Where :func:`recorded_now` reads the time: :func:`system_clock` unless
#: :func:`set_clock` gave another (a test's clock that it moves on by hand).
_clock: Callable[[], dt.datetime] = system_clock


def set_clock(clock: Callable[[], dt.datetime] | None) -> Callable[[], dt.datetime]:
    """Make ``clock`` (a function returning an aware :class:`datetime.datetime`) the
    source of recorded time for this process, every thread included; ``None`` puts back
    :func:`system_clock`. Returns the clock it replaces, for the caller to put back.

    For tests: recorded time has one-second resolution, so two minings one second apart
    on a clock the test moves on by hand have distinct recorded times without waiting
    a second. Valid time never reads it."""
    global _clock
    previous, _clock = _clock, clock or system_clock
    return previous


def recorded_now() -> str:
    """The current moment as recorded time: UTC ISO 8601, seconds
    (``2024-05-01T09:30:00+00:00``), read from the clock of :func:`set_clock`."""
    return _clock().astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def apply_timelines(conn, groups: Iterable[tuple[int, str]], registry: dict[str, Predicate] | None = None) -> int:
    """Rewrite ``valid_to`` and ``superseded_by`` of the live facts of each
    ``(subject_id, predicate)`` group of a state predicate, from :func:`close_timeline`
    (supersession for cardinality one; stated ends and endings for both); inside the
    caller's transaction. Facts of events, other subjects and invalidated facts are never
    touched. Returns how many facts changed.

    The facts' object is their ``object_id`` entity's name key or, for a literal,
    ``object_value`` (both compared case-insensitively: "Acme Robotics" the entity and
    the literal "acme robotics" are one value); a fact with neither is an ending of any
    value.
    """
    registry = registry or default_registry()
    changed = 0
    for subject_id, predicate in set(groups):
        spec = registry.get(predicate)
        if spec is None or spec.kind != "state" or predicate == "mentioned_with":
            continue
        rows, names = live_group(conn, subject_id, predicate)

        def value(r) -> str | None:
            if r[1] is not None:
                return names.get(r[1], f"#{r[1]}")
            return " ".join((r[2] or "").split()).casefold() or None

        day = lambda text: dt.date.fromisoformat(text) if text else None  # noqa: E731
        assertions = [Assertion(r[0], value(r), day(r[3]), day(r[6])) for r in rows]
        timeline = close_timeline(assertions, one_value=spec.cardinality == "one")
        for r in rows:
            closure = timeline[r[0]]
            valid_to = closure.valid_to.isoformat() if closure.valid_to else None
            if (valid_to, closure.superseded_by) != (r[4], r[5]):
                close_fact(conn, r[0], valid_to, closure.superseded_by)
                changed += 1
    return changed
