"""How sure a reading is: one confidence per typed fact, and the doubts that lowered it.

A wrong live fact becomes a confidently wrong answer, so a reading's confidence says how
far its text can be trusted, from three things (issue 22, item 1):

- its **construction**, the rule that read it: a field line, a list of holders, or a
  finite verb with a named subject ("Marco Bell leads Project Osprey") is strong; a
  subject reached through a pronoun or the page's own subject, a lower-case subject, an
  appositive, a subject far from its verb are weaker;
- the **agreement of its types**: the subject's and object's types (decided by
  :func:`palace.nlp.types.vote`, the NER label one vote among others) against what the
  predicate's registry entry expects;
- the **resolution of its names**: a one-word name with no fuller form in its drawer
  (resolved across notes, if at all) is weaker than a full name.

The score is :data:`WEIGHTS` ``["named"]`` (or ``["field"]`` for a field line, a list
of holders, a design record's header) plus the weight of each doubt, clamped to
``[0, 1]``. A reading under :data:`BAR` is kept as a *candidate*
(:func:`palace.store.fact_states.hold_for_review`, reason :func:`reason`): stored with its
provenance, never in answers, cards, change lists or the default ``palace facts``, shown
by ``palace extract`` and ``palace history --all``, and accepted or rejected by rule with
``palace review accept --all-from low-confidence``
(:data:`palace.store.fact_states.LOW_CONFIDENCE`; the reason starts "confidence").
"""

from __future__ import annotations

import re

__all__ = ["BAR", "WEIGHTS", "DOUBTS", "FAMILIES", "RECORD_WORDS", "score", "doubt", "type_doubt", "reason",
           "vague_name"]

#: The named weights: the two starting scores, then one (negative) per doubt.
WEIGHTS: dict[str, float] = {
    # starting scores
    "named": 0.9,           # a finite verb or relational noun with a named subject
    "field": 0.9,           # a key–value line, a front-matter field, a list of holders, a record's header
    # doubts about the construction
    "pronoun": -0.15,       # the subject is reached through a pronoun or an unnamed subject
    "page_subject": -0.15,  # the subject is the page's own subject, not named in the sentence
    "lowercase": -0.15,     # the subject is written in lower case ("the club"; not "the platform team")
    "appositive": -0.15,    # read from an appositive ("Willi Weber, the manager of …")
    "far": -0.1,            # the subject is far from the verb (another clause, 100+ chars)
    # doubts about the types
    # the recogniser's label alone is weak evidence ("Zalando" a PERSON, "Marcus Feld" an ORG):
    "subject_type": -0.1,   # the subject's label is of another family than the predicate takes
    "subject_kind": -0.05,  # … of the same family (PRODUCT where ORG is expected)
    "person": -0.3,         # … and the name is surely a person (a speaker of the note, a full name)
    "object_type": -0.15,   # the object's label is of another family (a PERSON where ORG is expected)
    "object_kind": -0.05,   # … of the same family (PRODUCT or FAC where ORG is expected)
    # a type a construction fixes is strong evidence ("the Kestrel team" is no PERSON):
    "fixed_type": -0.5,     # the subject's fixed type is not one the predicate takes
    "fixed_object": -0.5,   # the object's fixed type is not one the predicate takes
    # doubts about the names
    "bare_name": -0.15,     # a one-word subject with no fuller name in its drawer
    "vague": -0.35,         # a one-word subject that names nothing in particular ("RFC", "Lint")
}
#: What users read for each doubt (``{subject}``, ``{object}``: the types; ``{expected}``).
DOUBTS: dict[str, str] = {
    "pronoun": "subject through a pronoun",
    "page_subject": "subject is the page's subject, not named here",
    "lowercase": "lower-case subject",
    "appositive": "read from an appositive",
    "far": "subject far from its verb",
    "subject_type": "subject type {found} vs expected {expected}",
    "fixed_type": "subject is a project or team ({found}), expected {expected}",
    "fixed_object": "object is a project or team ({found}), expected {expected}",
    "object_type": "object type {found} vs expected {expected}",
    "subject_kind": "subject type {found} vs expected {expected}",
    "person": "subject is a person, and {predicate} is not said of people",
    "object_kind": "object type {found} vs expected {expected}",
    "bare_name": "one-word subject with no full name in its note",
    "vague": "subject '{word}' names nothing in particular",
}
#: The families of types: a type of the same family as the one expected is a small
#: doubt (the recogniser mixes them up: "Globex" a PRODUCT), of another a large one.
FAMILIES: dict[str, str] = {
    "PERSON": "person",
    "GPE": "place", "LOC": "place",
    **{label: "thing" for label in ("ORG", "PRODUCT", "FAC", "NORP", "EVENT", "WORK_OF_ART", "LAW", "DOCUMENT",
                                    "CONCEPT")},
}


def type_doubt(role: str, found: str, expected) -> tuple[str, str] | None:
    """The doubt of a ``role`` (``subject`` or ``object``) of type ``found`` where the
    predicate takes ``expected`` types (``*`` any; ``CONCEPT`` any thing): None when it
    fits, ``{role}_kind`` within the same family, ``{role}_type`` across families."""
    if "*" in expected or found in expected:
        return None
    family = FAMILIES.get(found, "thing")
    wanted = {FAMILIES.get(label, "thing") for label in expected if label != "VALUE"}
    if "CONCEPT" in expected and family == "thing":
        return None
    name = f"{role}_kind" if family in wanted else f"{role}_type"
    return doubt(name, found=found, expected="/".join(expected))


#: Kinds of record and meeting words that, alone, name no record in particular ("the RFC
#: was closed", "Council meeting"): which one is for its note to say.
RECORD_WORDS = frozenset("""rfc rfcs pep peps adr adrs kep keps rfd jep nep eip bip kip flip dep tep sep zep
decision proposal issue pr fcp meeting council team committee minutes agenda""".split())


def vague_name(name: str, text: str) -> bool:
    """Whether a subject ``name`` read in ``text`` (its drawer) names nothing in
    particular: one word that is a kind of record alone ("RFC", "PEP" with no number), or
    a capitalised word the same text also writes in lower case (a common noun at the
    head of a sentence or a line: "Lint was implemented …" where the text speaks of
    "lint"; "Blog", "Goals")."""
    word = name.strip()
    if not word or " " in word or not word[:1].isupper():
        return False
    if word.casefold() in RECORD_WORDS:
        return True
    lower = word.lower()
    return lower != word and re.search(rf"(?<![\w/.-]){re.escape(lower)}(?![\w/-])", text) is not None


#: Under this a reading is a candidate, not a live fact.
BAR = 0.6


def score(doubts: tuple[tuple[str, str], ...], *, start: str = "named") -> float:
    """The confidence of a reading: ``WEIGHTS[start]`` plus the weight of each doubt
    (``doubts``: ``(name, words)`` pairs, ``name`` a key of :data:`WEIGHTS`), rounded to
    two places and clamped to ``[0, 1]``. Raises KeyError for an unknown name."""
    value = WEIGHTS[start] + sum(WEIGHTS[name] for name, _ in doubts)
    return round(min(1.0, max(0.0, value)), 2)


def doubt(name: str, **words: str) -> tuple[str, str]:
    """One doubt as a reading carries it: ``(name, the words users read)``."""
    return name, DOUBTS[name].format(**words)


def reason(confidence: float, doubts) -> str:
    """What ``palace extract`` and history print for a candidate: "confidence 0.42 <
    0.6: subject through a pronoun, object type ORG vs expected PERSON"."""
    words = ", ".join(text for _, text in doubts) or "no doubt named"
    return f"confidence {confidence:.2f} < {BAR}: {words}"
