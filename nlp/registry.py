"""The model of the predicate registry: what a predicate is, read from its JSON entries.

The entries themselves ship in ``palace/data/predicates.json`` and a palace's
``config.json`` may extend them; loading those is the core's work
(:func:`palace.graph.temporal.load_registry`). The relation reader (:mod:`palace.nlp.relations`)
and the rules (:mod:`palace.nlp.rules`) only need the model below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Predicate:
    """One entry of the registry: ``cardinality`` is ``"one"`` or ``"many"``; ``kind`` is
    ``"state"`` (true from its date until superseded) or ``"event"`` (true on its date);
    subject and object types are spaCy labels (``VALUE`` for a literal, ``*`` for any);
    ``verbs`` are lemmas that yield it with the default pattern (entity subject, direct
    object), ``patterns`` explicit rules for :mod:`palace.nlp.relations` and ``nouns``
    its relational nouns ("manager", "plan": copulas, appositions, key–value lines)."""

    name: str
    cardinality: str
    subject: tuple[str, ...]
    object: tuple[str, ...]
    verbs: tuple[str, ...] = ()
    kind: str = "state"
    patterns: tuple[dict, ...] = ()
    nouns: tuple[dict, ...] = ()


def predicates_from(entries: Iterable[dict]) -> dict[str, Predicate]:
    """``{name: Predicate}`` from the registry's JSON entries (``palace/data/predicates.json``
    or a palace's ``config.json``). Raises ValueError for a malformed entry."""
    out = {}
    for entry in entries:
        cardinality = entry.get("cardinality", "many")
        if cardinality not in ("one", "many"):
            raise ValueError(f"predicate {entry.get('name')!r}: cardinality must be 'one' or 'many'")
        kind = entry.get("kind", "state")
        if kind not in ("state", "event"):
            raise ValueError(f"predicate {entry.get('name')!r}: kind must be 'state' or 'event'")
        patterns = entry.get("patterns", ())
        if not all(isinstance(p, dict) for p in patterns):
            raise ValueError(f"predicate {entry.get('name')!r}: patterns must be objects")
        nouns = entry.get("nouns", ())
        if not all(isinstance(n, dict) and isinstance(n.get("words", []), list) for n in nouns):
            raise ValueError(f"predicate {entry.get('name')!r}: nouns must be objects with a 'words' list")
        out[entry["name"]] = Predicate(
            entry["name"], cardinality, tuple(entry.get("subject", ["*"])), tuple(entry.get("object", ["*"])),
            tuple(entry.get("verbs", ())), kind, tuple(patterns), tuple(nouns),
        )
    return out
