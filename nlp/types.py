"""A name's type from a vote of the evidence its drawer holds, the NER label one vote.

The small recogniser tags "Project Osprey" a PERSON and "Actions" of "GitHub Actions" a
place; a predicate's type check on that one label loses "Marco Bell leads Project
Osprey." So a name's type is decided by a vote (issue 22, item 2):

- the recogniser's label: one vote (:data:`NER_VOTE`);
- a construction that fixes the type, in the name or around it in the text: "Project
  Osprey", "the Heron project", "the Kestrel team", "Acme Robotics" (an organisation's
  last word): :data:`CONSTRUCTION_VOTE`, which outweighs the label;
- the shape of a name the recogniser missed: a word with a capital inside it ("GitHub",
  "CircleCI", "PostgreSQL") names a product or a company, not a place or a person:
  :data:`SHAPE_VOTE`.

A recognised name is voted by its own words (``palace.nlp.extraction``); the drawer's
text around a name ("the Atlas team") votes for a name the recogniser missed and for the
readings' doubts (:mod:`palace.nlp.confidence`), not for the mention's label, so that
"They" after "The Atlas team" still stands for the team.

What other notes say of a name (its own note's front matter, how the palace uses it) is
not voted here: a drawer's reading must depend on its drawer only, so that a one-note
edit leaves the graph a fresh mine gives.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["NER_VOTE", "CONSTRUCTION_VOTE", "SHAPE_VOTE", "GROUP_WORDS", "vote", "construction_type", "shape_type"]

#: The weight of the recogniser's label.
NER_VOTE = 1
#: The weight of a construction that fixes the type ("Project X", "the X team").
CONSTRUCTION_VOTE = 3
#: The weight of a missed name's shape ("GitHub"): it outweighs a place label.
SHAPE_VOTE = 2
#: Words that, first or last in a name, or after it ("the Heron project"), make it an
#: organisation or a group of people (the registry's ``ORG``).
GROUP_WORDS = frozenset({"project", "programme", "program", "initiative", "team", "squad", "taskforce",
                         "working group", "workstream", "committee", "council"})
_LEADING = frozenset({"project", "operation", "programme", "program", "team"})
#: Person-name prefixes with an inner capital ("McDonald", "DeShawn"): no product shape.
_NAME_PREFIX = re.compile(r"^(?:Mc|Mac|O'|O’|De|Di|Da|Du|La|Le|Van|Von|St)[A-Z]")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


def construction_type(name: str, text: str = "") -> str | None:
    """``ORG`` when the name's words or ``text`` around it fix it as a project or team:
    "Project Osprey", "Osprey project", "Kestrel Team", or "the Heron project" /
    "the Kestrel team" written in ``text``; else None."""
    words = name.split()
    if len(words) >= 2 and (words[0].casefold() in _LEADING or words[-1].casefold() in GROUP_WORDS):
        return "ORG"
    if text and re.search(rf"\b(?:the|our|their|its|his|her) {re.escape(name)}\s+(?:{'|'.join(sorted(GROUP_WORDS))})\b",
                          text, re.IGNORECASE):
        return "ORG"
    return None


def shape_type(name: str) -> str | None:
    """``PRODUCT`` for a name with a word whose capital is inside it ("GitHub Actions",
    "CircleCI"), not a person's prefix ("McDonald"); else None."""
    for word in name.split():
        if _INNER_CAPITAL.search(word) and not _NAME_PREFIX.match(word):
            return "PRODUCT"
    return None


def vote(name: str, ner_label: str | None, text: str = "") -> str | None:
    """The type of ``name`` by the vote of its evidence: ``ner_label`` (may be None: a
    name the recogniser missed), the construction (:func:`construction_type` over
    ``text``, the drawer) and the shape (:func:`shape_type`, only for a missed name or
    a place: the recogniser's places and people are often products). Ties keep the
    recogniser's label. None when nothing votes."""
    votes: Counter[str] = Counter()
    if ner_label:
        votes[ner_label] += NER_VOTE
    fixed = construction_type(name, text)
    if fixed:
        votes[fixed] += CONSTRUCTION_VOTE
    shaped = shape_type(name) if ner_label in (None, "GPE", "LOC") else None
    if shaped:
        votes[shaped] += SHAPE_VOTE
    if not votes:
        return None
    best = max(votes.values())
    if ner_label and votes[ner_label] == best:
        return ner_label
    return next(label for label, count in votes.items() if count == best)
