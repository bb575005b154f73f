"""Time for facts: the predicate registry and supersession of one-value facts.

Facts carry two times (the bitemporal model of Snodgrass, "Developing Time-Oriented
Database Applications in SQL", 1999): **valid time** (``valid_from``/``valid_to``: when
it was true in the world, half-open) and **recorded time** (``recorded_at``/
``invalidated_at``: when the palace learned it and when it retracted it).

For a cardinality-one predicate (employer, role, plan, medication…) the values of one
subject form a timeline. :func:`close_timeline` computes it from the set of live facts
alone, so the order in which notes were mined never matters:

- facts are grouped by ``valid_from``; consecutive groups asserting the same single
  value are one **run** (a later note saying "still on Lisinopril" does not end it);
- every fact of a run gets ``valid_to`` = the start of the next run and
  ``superseded_by`` = the first fact (lowest id) of that run; the last run stays open;
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
from pathlib import Path
from typing import Iterable


@dataclass(frozen=True)
class Predicate:
    """One entry of the registry: ``cardinality`` is ``"one"`` or ``"many"``; subject and
    object types are spaCy labels (``VALUE`` for a literal, ``*`` for any); ``verbs`` are
    the lemmas that yield it."""

    name: str
    cardinality: str
    subject: tuple[str, ...]
    object: tuple[str, ...]
    verbs: tuple[str, ...] = ()


def _predicates(entries: Iterable[dict]) -> dict[str, Predicate]:
    out = {}
    for entry in entries:
        cardinality = entry.get("cardinality", "many")
        if cardinality not in ("one", "many"):
            raise ValueError(f"predicate {entry.get('name')!r}: cardinality must be 'one' or 'many'")
        out[entry["name"]] = Predicate(
            entry["name"], cardinality, tuple(entry.get("subject", ["*"])), tuple(entry.get("object", ["*"])),
            tuple(entry.get("verbs", ())),
        )
    return out


@lru_cache(maxsize=1)
def default_registry() -> dict[str, Predicate]:
    """The registry shipped in ``palace/data/predicates.json``."""
    text = resources.files("palace").joinpath("data/predicates.json").read_text(encoding="utf-8")
    return _predicates(json.loads(text)["predicates"])


def load_registry(palace_dir: Path | None = None) -> dict[str, Predicate]:
    """The default registry, extended or overridden by ``palace_dir/config.json``'s
    ``"predicates"`` list (same fields). Raises ValueError for a malformed entry."""
    registry = dict(default_registry())
    config = palace_dir / "config.json" if palace_dir else None
    if config and config.exists():
        registry.update(_predicates(json.loads(config.read_text(encoding="utf-8")).get("predicates", [])))
    return registry


@dataclass(frozen=True)
class Assertion:
    """A live fact of one subject and one-value predicate: its id, value and valid start."""

    id: int
    value: str
    valid_from: dt.date


@dataclass(frozen=True)
class Closure:
    """Where a fact's validity ends: ``valid_to`` (None while current), the fact that
    superseded it, and the ids it conflicts with (same day, other value)."""

    valid_to: dt.date | None
    superseded_by: int | None
    conflicts_with: tuple[int, ...] = ()


def close_timeline(assertions: Iterable[Assertion]) -> dict[int, Closure]:
    """Compute the timeline of one subject's one-value predicate: ``{fact id: Closure}``.

    A pure function of the set of assertions (the input order is irrelevant).
    """
    by_day: dict[dt.date, list[Assertion]] = {}
    for a in assertions:
        by_day.setdefault(a.valid_from, []).append(a)
    days = sorted(by_day)
    runs: list[tuple[dt.date, list[Assertion]]] = []
    for day in days:
        group = sorted(by_day[day], key=lambda a: a.id)
        values = {a.value for a in group}
        last_values = {a.value for a in runs[-1][1]} if runs else set()
        if runs and len(values) == 1 and values == last_values:
            runs[-1][1].extend(group)  # a restatement continues the run
        else:
            runs.append((day, group))
    out: dict[int, Closure] = {}
    for index, (_, members) in enumerate(runs):
        following = runs[index + 1] if index + 1 < len(runs) else None
        valid_to = following[0] if following else None
        superseded_by = min(a.id for a in following[1]) if following else None
        for a in members:
            rivals = tuple(sorted(b.id for b in members if b.valid_from == a.valid_from and b.value != a.value))
            out[a.id] = Closure(valid_to, superseded_by, rivals)
    return out


def valid_at(valid_from: dt.date | None, valid_to: dt.date | None, day: dt.date) -> bool:
    """True when ``day`` lies in the half-open valid time ``[valid_from, valid_to)``."""
    return (valid_from is None or valid_from <= day) and (valid_to is None or day < valid_to)


def known_at(recorded_at: str, invalidated_at: str | None, moment: str) -> bool:
    """True when the palace held the fact at ``moment`` (ISO timestamps, recorded time)."""
    return recorded_at <= moment and (invalidated_at is None or invalidated_at > moment)
