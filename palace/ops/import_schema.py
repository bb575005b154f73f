"""The shape of a JSON export as ``palace import`` reads it, checked whole before the
import changes anything (:func:`check_export`).

One row per field of each list the import reads — the user's decisions and the state of
the facts they made — with the kind of value it takes; every other key is left as it is
(an export carries more than an import reads). A value is checked for its type, its
range (an action, an evidence, an ISO day), its length, and for control characters,
which no name or note may hold. Nothing here touches a palace.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Callable

# the limits of what is written into the graph: the same for an agent's writes and an import
from palace.graph.corrections import CONTROL, MAX_NAME_CHARS, MAX_TEXT_CHARS

__all__ = ["ExportProblem", "check_export", "MAX_NAME_CHARS", "MAX_TEXT_CHARS"]

@dataclass(frozen=True)
class ExportProblem:
    """One thing wrong with an export: ``where`` (``fact_decisions[3].valid_from``) and ``what``."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _text(limit: int, *, empty: bool = True) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be a string, not {_kind(value)}"
        if len(value) > limit:
            return f"is {len(value):,} characters long; at most {limit:,}"
        if not empty and not value.strip():
            return "must not be empty"
        found = CONTROL.search(value)
        if found:
            return f"holds the control character U+{ord(found.group()):04X}"
        return None
    return check


def _one_of(*allowed: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in allowed else f"must be one of {', '.join(allowed)}, not {_shown(value)}"
    return check


def _day(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"must be a day (YYYY-MM-DD), not {_kind(value)}"
    try:
        dt.date.fromisoformat(value[:10])
    except ValueError:
        return f"must be a day (YYYY-MM-DD), not {_shown(value)}"
    return None


def _moment(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"must be a moment (ISO 8601), not {_kind(value)}"
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        return f"must be a moment (ISO 8601), not {_shown(value)}"
    return None


def _whole(value: Any) -> str | None:
    return None if isinstance(value, int) and not isinstance(value, bool) else f"must be a whole number, not {_kind(value)}"


def _flag(value: Any) -> str | None:
    return None if value in (True, False, 0, 1) else f"must be true or false, not {_shown(value)}"


def _or_null(check: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    return lambda value: None if value is None else check(value)


NAME = _text(MAX_NAME_CHARS, empty=False)
TEXT = _text(MAX_TEXT_CHARS)

#: (field, required, check) of each entry of each list the import reads.
SCHEMA: dict[str, tuple[tuple[str, bool, Callable[[Any], str | None]], ...]] = {
    "entity_decisions": (
        ("action", True, _one_of("merge", "split")),
        ("name", True, NAME),
        ("name_key", True, NAME),
        ("into_name", True, NAME),
        ("into_key", True, NAME),
        ("created_at", True, _moment),
        ("reverted_at", False, _or_null(_moment)),
    ),
    "fact_decisions": (
        ("action", True, _one_of("add", "retract", "confirm", "accept", "reject")),
        ("by", False, _or_null(_one_of("user", "agent"))),
        ("subject", True, NAME),
        ("subject_key", True, NAME),
        ("predicate", True, NAME),
        ("object", True, _text(MAX_TEXT_CHARS, empty=False)),
        ("object_key", True, _text(MAX_TEXT_CHARS, empty=False)),
        ("valid_from", True, _or_null(_day)),
        ("valid_to", True, _or_null(_day)),
        ("note", False, _or_null(TEXT)),
        ("fact_id", False, _or_null(_whole)),
        ("previous_evidence", False, _or_null(_one_of("stated", "inferred", "user", "confirmed", "agent"))),
        ("pending", False, _or_null(_flag)),
        ("created_at", True, _moment),
        ("reverted_at", False, _or_null(_moment)),
    ),
    "facts": (
        ("id", False, _or_null(_whole)),
        ("state", False, _or_null(_text(40))),
    ),
}


def check_export(data: Any, format_name: str, predicates: Callable[[str], bool], *,
                 limit: int = 5) -> list[ExportProblem]:
    """What is wrong with ``data`` (a parsed export) for an import, at most ``limit``
    problems (none: it can be imported whole). ``format_name`` is the format it must
    declare; ``predicates(name)`` says whether an added fact's predicate is one this
    palace knows."""
    problems: list[ExportProblem] = []

    def problem(where: str, what: str) -> bool:
        problems.append(ExportProblem(where, what))
        return len(problems) >= limit

    if not isinstance(data, dict):
        problem("the file", f"must hold a JSON object, not {_kind(data)}")
        return problems
    if data.get("format") != format_name:
        problem("format", f"must be {format_name!r}, not {_shown(data.get('format'))}")
        return problems
    for key in ("entities", *SCHEMA):
        if key in data and not isinstance(data[key], list):
            if problem(key, f"must be a list, not {_kind(data[key])}"):
                return problems
    for key, fields in SCHEMA.items():
        entries = data.get(key)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            where = f"{key}[{index}]"
            if not isinstance(entry, dict):
                if problem(where, f"must be an object, not {_kind(entry)}"):
                    return problems
                continue
            for name, required, check in fields:
                if name not in entry:
                    if required and problem(f"{where}.{name}", "is missing"):
                        return problems
                    continue
                what = check(entry[name])
                if what and problem(f"{where}.{name}", what):
                    return problems
            if (key == "fact_decisions" and entry.get("action") == "add" and isinstance(entry.get("predicate"), str)
                    and not predicates(entry["predicate"])):
                if problem(f"{where}.predicate", f"{entry['predicate']!r} is no predicate of this palace"):
                    return problems
    return problems


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, int, float, bool)) or value is None else _kind(value)
    return text if len(text) <= 60 else text[:57] + "…"
