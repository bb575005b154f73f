"""Typed relations read from a sentence's dependency parse: rules, no model of our own.

The rules come from the predicate registry (:mod:`palace.temporal`, ``palace/data/
predicates.json``): each predicate lists patterns over spaCy's dependency labels
(ClearNLP style, as ``en_core_web_sm`` produces them: ``nsubj``, ``dobj``, ``prep``/
``pobj``, ``attr``, ``oprd``, ``appos``, ``agent``…) keyed by verb lemmas. A pattern
names where the object sits (the direct object, the object of one of some prepositions,
the attribute of a copula…), where the subject sits (default: the verb's subject), and
optionally a value lexicon the object must match (job titles, plan tiers, statuses,
medications). This is the subject–verb–object approach of open information extraction
(Fader et al., "Identifying Relations for Open Information Extraction", EMNLP 2011),
restricted to a closed set of predicates so that every fact is typed.

Deliberate limits, each visible in the rule that applies:

- a subject must be a named entity (or a compound modifier of the subject noun that is
  one: "the *Harbor* migration"); ``he``/``she``/``him``/``her`` resolve to the nearest
  preceding PERSON of the drawer and the fact is marked ``inferred``;
- negated ("not", "never"), hedged ("might", "may", "could", "would", "should") and
  conditional ("if", "whether") clauses and questions yield nothing;
- a decision line ("Decision: we downgrade Larkspur…") whose deciders are not named is
  filed under the first entity it names, marked ``inferred``; other decisions and
  approvals need a named subject ("we decided" alone yields nothing);
- literal objects of ``created``/``owns``/``leads`` must name something (a proper
  noun, an acronym, a number): "wrote the RFC", not "write a post".

Only sentences that can match (a verb form of some pattern, or a lexicon word, and an
entity or a pronoun) are parsed at all: :meth:`RelationRules.may_match` is the cheap
filter that keeps the parser off most of a corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from palace.nlp.extraction import EntityMention

RELATIONS_EXTRACTOR = "palace.relations.v1"
STATED_CONFIDENCE = 0.8
VALUE_CONFIDENCE = 0.7
INFERRED_CONFIDENCE = 0.5
MAX_VALUE_CHARS = 160

SAME_PAST = frozenset({"put", "set", "cut", "quit", "let", "hit", "read", "shut", "spread"})
PRONOUNS = frozenset({"he", "she", "him", "her"})
HEDGES = frozenset({"might", "may", "could", "would", "should", "must", "can", "ca", "cannot"})
CONDITIONS = frozenset({"if", "whether", "unless", "after", "before", "when", "once", "until", "whenever"})
NEGATIONS = frozenset({"not", "n't", "never", "no"})
SUBJECT_DEPS = ("nsubj", "nsubjpass", "csubj")
TEAM_WORDS = frozenset({"team", "council", "committee", "group", "board", "crew", "squad", "guild", "club", "wg", "panel", "project"})
IRREGULAR = {
    "be": ("am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m", "’s", "’re"),
    "lead": ("led",), "run": ("ran",), "write": ("wrote", "written"), "leave": ("left",),
    "take": ("took", "taken"), "make": ("made",), "become": ("became",), "build": ("built",),
    "begin": ("began", "begun"), "give": ("gave", "given"), "go": ("went", "gone"),
    "get": ("got", "gotten"), "keep": ("kept",), "buy": ("bought",), "choose": ("chose", "chosen"),
    "put": ("put",), "quit": ("quit",), "hold": ("held",), "sign": ("signed",),
}


def verb_forms(lemma: str) -> set[str]:
    """Surface forms of an English verb ``lemma`` (regular inflection plus a table of
    irregular ones), lower case: enough for a prefilter, the parse decides."""
    forms = {lemma, lemma + "s", lemma + "es", lemma + "ed", lemma + "d", lemma + "ing", *IRREGULAR.get(lemma, ())}
    if lemma.endswith("e"):
        forms.add(lemma[:-1] + "ing")
    if lemma.endswith("y"):
        forms |= {lemma[:-1] + "ies", lemma[:-1] + "ied"}
    if len(lemma) >= 3 and lemma[-1] not in "aeiouwxy" and lemma[-2] in "aeiou" and lemma[-3] not in "aeiou":
        forms |= {lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"}
    return forms


@dataclass(frozen=True)
class Pattern:
    """One rule of a predicate (see ``palace/data/predicates.json`` for the fields)."""

    predicate: str
    rule: str
    verbs: tuple[str, ...]
    object: str
    preps: tuple[str, ...] = ()
    nouns: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    value: str | None = None
    subject: tuple[str, ...] = ("nsubj",)
    entity: bool = False
    passive: bool = False
    object_types: tuple[str, ...] = ()
    team: bool | None = None
    kind: str = "state"
    proper: bool = False


@dataclass(frozen=True)
class Relation:
    """A typed fact read from one sentence.

    ``subject`` and ``object`` index the drawer's entity mentions; a literal object is in
    ``value`` instead. ``start``/``end``: the sentence's chars in the drawer.
    ``clause_start``/``clause_end``: the verb's clause, where its own date is looked for.
    ``evidence`` is ``stated`` or ``inferred`` (a pronoun or an unnamed decider resolved).
    """

    predicate: str
    subject: int
    object: int | None
    value: str | None
    start: int
    end: int
    clause_start: int
    clause_end: int
    sentence: int
    rule: str
    evidence: str
    confidence: float
    kind: str = "state"
    past: bool = False
    #: set when the subject is part of a mention: "Larkspur" of "Larkspur Enterprise"
    subject_name: str | None = None

    @property
    def extractor(self) -> str:
        """Versioned extractor name with the rule, e.g. ``palace.relations.v1/report-to``."""
        return f"{RELATIONS_EXTRACTOR}/{self.rule}"


@dataclass
class RelationRules:
    """Patterns compiled from a predicate registry and its value lexicons."""

    patterns: tuple[Pattern, ...]
    values: dict[str, frozenset[str]]
    by_verb: dict[str, list[Pattern]] = field(default_factory=dict)
    verbless: list[Pattern] = field(default_factory=list)
    cues: frozenset[str] = frozenset()
    subject_types: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_registry(cls, registry: dict, values: dict[str, Iterable[str]]) -> "RelationRules":
        """Compile ``registry`` (name → :class:`palace.temporal.Predicate`) and ``values``."""
        patterns = []
        for spec in registry.values():
            entries = list(spec.patterns)
            if not entries and spec.verbs:  # the default: entity subject, direct object
                entries = [{"rule": spec.name, "verbs": list(spec.verbs), "object": "dobj"}]
            for entry in entries:
                patterns.append(Pattern(
                    predicate=spec.name, rule=entry.get("rule", spec.name), verbs=tuple(entry.get("verbs", ())),
                    object=entry.get("object", "dobj"), preps=tuple(entry.get("preps", ())),
                    nouns=tuple(entry.get("nouns", ())), markers=tuple(entry.get("markers", ())),
                    value=entry.get("value"), subject=tuple(entry.get("subject", ("nsubj",))),
                    entity=bool(entry.get("entity", False)), passive=bool(entry.get("passive", False)),
                    object_types=tuple(entry.get("object_types", ())),
                    team=(True if entry.get("team") else False if entry.get("not_team") else None),
                    kind=spec.kind, proper=bool(entry.get("proper", False)),
                ))
        lexicons = {name: frozenset(w.casefold() for w in words) for name, words in values.items()}
        rules = cls(tuple(patterns), lexicons, subject_types={s.name: s.subject for s in registry.values()})
        cues: set[str] = set()
        for pattern in patterns:
            if not pattern.verbs or pattern.verbs == ("*",):
                rules.verbless.append(pattern)
            for lemma in pattern.verbs:
                rules.by_verb.setdefault(lemma, []).append(pattern)
                if lemma not in ("be", "*"):
                    cues |= verb_forms(lemma)
            if "be" in pattern.verbs and pattern.entity:  # "she's at Acme": the preposition is the cue
                cues |= set(pattern.preps)
            cues |= {m.casefold() for m in pattern.markers}
            cues |= {n.casefold() for n in pattern.nouns}
        for name in ("title", "tier", "tier_nouns", "status", "medications"):
            cues |= {w.split()[-1] for w in lexicons.get(name, ())}
        rules.cues = frozenset(cues)
        return rules

    def may_match(self, words: Sequence[str]) -> bool:
        """Cheap prefilter on a sentence's lower-case words: could any pattern apply?"""
        for word in words:
            if word in self.cues or self.is_medication_word(word) or word.endswith("mg"):
                return True
        return False

    def is_medication_word(self, word: str) -> bool:
        """A drug name by the lexicon or a drug-class suffix (``-olol``, ``-pril``…)."""
        word = word.casefold()
        if word in self.values.get("medications", ()):
            return True
        return len(word) >= 6 and word.isalpha() and any(word.endswith(s) for s in self.values.get("medication_suffixes", ()))


class _Sentence:
    """One parsed sentence and the drawer's mentions around it."""

    def __init__(self, doc: "Doc", offset: int, index: int, mentions: Sequence["EntityMention"]) -> None:
        self.doc = doc
        self.offset = offset
        self.index = index
        self.mentions = mentions
        self._by_token: dict[int, int] = {}
        for token in doc:
            start = offset + token.idx
            for m_index, mention in enumerate(mentions):
                if mention.start <= start < mention.end:
                    self._by_token[token.i] = m_index
                    break

    def mention_of(self, token: "Token | None") -> int | None:
        return None if token is None else self._by_token.get(token.i)

    def mention_in(self, token: "Token") -> int | None:
        """The mention at ``token`` or at one of its compound/nmod modifiers."""
        found = self.mention_of(token)
        if found is not None:
            return found
        for child in token.children:
            if child.dep_ in ("compound", "nmod") and child.i < token.i:
                found = self.mention_of(child)
                if found is not None:
                    return found
        return None

    def resolve_pronoun(self, token: "Token") -> int | None:
        """The person a ``he``/``she``/``him``/``her`` most likely refers to: of the PERSON
        mentions before it in the drawer, those of the latest sentence that has any, and
        of these the first (a sentence's first person is usually its subject: "Alice rang
        Bob; she…" is Alice). A heuristic, so facts built on it are ``inferred``."""
        position = self.offset + token.idx
        before = [i for i, m in enumerate(self.mentions) if m.label == "PERSON" and m.end <= position]
        if not before:
            return None
        latest = max(self.mentions[i].sentence for i in before)
        return min((i for i in before if self.mentions[i].sentence == latest), key=lambda i: self.mentions[i].start)


def _child(token: "Token", *deps: str) -> "Token | None":
    for child in token.children:
        if child.dep_ in deps:
            return child
    return None


def _prep_objects(token: "Token", preps: Sequence[str]) -> list["Token"]:
    out = []
    for child in token.children:
        if child.dep_ in ("prep", "dative", "agent") and child.lower_ in preps:
            out += [g for g in child.children if g.dep_ == "pobj"]
    return out


def _is_blocked(verb: "Token") -> bool:
    """Not a statement of fact: negated ("not", "never"), hedged ("might", "can"),
    conditional or temporal-subordinate ("if", "after an RFC is approved"), an
    infinitive ("Josh to write a comment", "likes to write") or a bare gerund
    ("Creating a proposal doc…"): plans, wishes and generalities, not facts."""
    for child in verb.children:
        if child.dep_ == "neg" or child.lower_ in NEGATIONS and child.dep_ in ("advmod", "neg", "det"):
            return True
        if child.dep_ == "aux" and (child.lower_ in HEDGES or child.lower_ == "to"):
            return True
        if child.dep_ == "mark" and child.lower_ in CONDITIONS:
            return True
    if verb.tag_ == "VB" and not any(c.dep_ in ("aux", "auxpass") for c in verb.children) and verb.dep_ != "ROOT":
        return verb.dep_ != "conj" or _is_blocked(verb.head)
    if verb.tag_ == "VBG" and not any(c.dep_ in ("aux", "auxpass") for c in verb.children):
        # a gerund as subject or complement is an activity ("Creating a proposal doc…");
        # a participle modifying a name is a statement ("Marcus Webb, now living in Lisbon")
        if verb.dep_ in ("csubj", "csubjpass", "pcomp", "xcomp", "ROOT", "advcl"):
            return True
    if verb.dep_ == "conj" and verb.head.pos_ in ("VERB", "AUX") and verb.head is not verb:
        return _is_blocked(verb.head)
    return False


def _is_past(verb: "Token") -> bool:
    """Simple past ("switched", "was switched"), not the present perfect ("has lived").
    A VBD tag on a form equal to its lemma ("we downgrade") is the small model's slip,
    unless the verb's past is its lemma ("put", "set")."""
    if verb.tag_ == "VBD":
        return verb.lower_ != verb.lemma_.casefold() or verb.lower_ in SAME_PAST
    return verb.tag_ == "VBN" and any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in verb.children)


def _subject_token(verb: "Token") -> "Token | None":
    """The verb's subject; a conjoined verb without one shares its head's."""
    seen = 0
    while verb is not None and seen < 4:
        subject = _child(verb, *SUBJECT_DEPS)
        if subject is not None:
            return subject
        if verb.dep_ == "conj":
            verb = verb.head
            seen += 1
            continue
        if verb.dep_ in ("xcomp", "advcl") and verb.head.pos_ in ("VERB", "AUX"):
            verb = verb.head
            seen += 1
            continue
        if verb.dep_ == "acl" and verb.head.pos_ in ("PROPN", "NOUN"):  # "Marcus Webb, living in…"
            return verb.head
        return None
    return None


def _noun_phrase(token: "Token", *, drop: Iterable[str] = ()) -> str:
    """The phrase of a noun: its left modifiers, itself and an ``of`` complement, no
    determiner or possessive; words in ``drop`` (lower case) left out."""
    drop = set(drop)
    words = []
    for child in token.lefts:
        if child.dep_ in ("compound", "amod", "nmod", "nummod", "npadvmod", "quantmod") and child.lower_ not in drop:
            words.extend(t for t in child.subtree)
    if token.lower_ not in drop:
        words.append(token)
    for child in token.rights:
        if child.dep_ == "prep" and child.lower_ == "of":
            words.extend(child.subtree)
        elif child.dep_ in ("compound", "flat"):
            words.extend(child.subtree)
    words.sort(key=lambda t: t.i)
    text = " ".join(t.text for t in words if not t.is_punct or t.text in "-&")
    return re.sub(r"\s+", " ", text).strip()


def _names_something(token: "Token") -> bool:
    """The phrase names a particular thing: a proper noun, an acronym or a number in it."""
    for t in [*token.lefts, token]:
        if t.pos_ in ("PROPN", "NUM") or (t.text.isupper() and len(t.text) > 1) or "`" in t.text or "#" in t.text:
            return True
    return False


def _clause_text(token: "Token") -> str:
    """The text of ``token``'s clause (its subtree without conjoined clauses), up to the
    end of its line: "to restart the clock", not "… and writes"."""
    start, end = _clause_span(token)
    return " ".join(token.doc.text[start:end].split("\n", 1)[0].split())[:MAX_VALUE_CHARS]


def _clause_span(verb: "Token") -> tuple[int, int]:
    """The chars of the verb's own clause (its subtree without conjoined clauses)."""
    tokens = [verb]
    for child in verb.children:
        if child.dep_ in ("conj", "cc"):
            continue
        tokens.extend(child.subtree)
    return min(t.idx for t in tokens), max(t.idx + len(t.text) for t in tokens)


class RelationReader:
    """Applies :class:`RelationRules` to parsed sentences."""

    def __init__(self, rules: RelationRules) -> None:
        self.rules = rules

    # value lexicons -------------------------------------------------------------------
    def _title(self, token: "Token") -> str | None:
        words = self.rules.values.get("title", frozenset())
        head = token.lower_
        pair = " ".join(t.lower_ for t in (*[c for c in token.lefts if c.dep_ == "compound"][-1:], token))
        if head in words or pair in words:
            return _noun_phrase(token)
        return None

    def _tier(self, token: "Token", sentence: _Sentence) -> tuple[str | None, int | None]:
        """``(tier, entity in the phrase)`` for "the Larkspur Enterprise plan", "Starter"."""
        tiers = self.rules.values.get("tier", frozenset())
        nouns = self.rules.values.get("tier_nouns", frozenset())
        if token.lemma_.casefold() in nouns or token.lower_ in nouns:
            modifiers = [c for c in token.lefts if c.dep_ in ("compound", "amod", "nmod")]
            entity = None
            words = []
            for mod in modifiers:
                found = sentence.mention_of(mod)
                if found is not None and mod.lower_ not in tiers:
                    entity = found
                    continue
                words.append(mod.text)
            if words:
                return " ".join(words), entity
            return None, None
        if token.lower_ in tiers and (token.text[:1].isupper()):
            return token.text, None
        return None, None

    def _status(self, token: "Token") -> str | None:
        words = self.rules.values.get("status", frozenset())
        if token.lower_ in words:
            return token.lower_
        if token.dep_ == "pobj" and f"{token.head.lower_} {token.lower_}" in words:
            return f"{token.head.lower_} {token.lower_}"
        return None

    def _medication(self, token: "Token") -> str | None:
        units = self.rules.values.get("dose_units", frozenset())
        if self.rules.is_medication_word(token.text):
            return token.text
        # a name followed by a dose: "Zestril 10mg", "Zestril 10 mg"
        nxt = token.nbor(1) if token.i + 1 < len(token.doc) else None
        if token.pos_ == "PROPN" and nxt is not None and (
            re.fullmatch(r"\d+(\.\d+)?(mg|mcg|µg|ml|g|iu)", nxt.lower_)
            or (nxt.like_num and nxt.i + 1 < len(token.doc) and nxt.nbor(1).lower_ in units)
        ):
            return token.text
        return None

    # reading ----------------------------------------------------------------------------
    def read(self, doc: "Doc", offset: int, index: int, mentions: Sequence["EntityMention"]) -> list[Relation]:
        """Relations of one parsed sentence ``doc`` starting at drawer char ``offset``.

        ``index`` is the sentence's number in the drawer, ``mentions`` the drawer's entity
        mentions (drawer chars). Returns them in reading order, without duplicates.
        """
        if doc.text.rstrip().endswith("?"):
            return []
        sentence = _Sentence(doc, offset, index, mentions)
        out: list[Relation] = []
        for token in doc:
            if token.pos_ in ("VERB", "AUX") or token.dep_ == "ROOT":
                lemma = token.lemma_.casefold()
                candidates = self.rules.by_verb.get(lemma, [])
                if token.tag_ == "VBN" and _child(token, "auxpass", "nsubjpass"):
                    candidates = candidates + [p for p in self.rules.verbless if p.object == "passive-verb"]
                for pattern in candidates:
                    if _is_blocked(token):
                        break
                    out.extend(self._apply(pattern, token, sentence))
        for pattern in self.rules.verbless:
            if pattern.object == "appos":
                out.extend(self._appos(pattern, sentence))
            elif pattern.object == "marker":
                out.extend(self._marker(pattern, sentence))
        unique: dict[tuple, Relation] = {}
        for rel in out:
            unique.setdefault((rel.predicate, rel.subject, rel.object, (rel.value or "").casefold()), rel)
        return list(unique.values())

    def _subject(self, pattern: Pattern, verb: "Token", sentence: _Sentence, objects: list["Token"]) -> tuple[int | None, bool]:
        """``(mention index, inferred?)`` of the fact's subject under ``pattern``."""
        for where in pattern.subject:
            token = None
            if where == "nsubj":
                token = _subject_token(verb)
                if token is not None and token.dep_ == "nsubjpass" and pattern.passive:
                    token = None  # a passive's subject is its object
            elif where == "dobj":
                token = _child(verb, "dobj")
            elif where == "dative":
                token = _child(verb, "dative")
                if token is not None and token.dep_ == "dative" and token.pos_ == "ADP":
                    token = _child(token, "pobj")
            elif where == "compound":
                for obj in objects:
                    for mod in obj.lefts:
                        found = sentence.mention_of(mod) if mod.dep_ in ("compound", "nmod") else None
                        if found is not None:
                            return found, False
                continue
            if token is None:
                continue
            if token.lower_ in PRONOUNS:
                resolved = sentence.resolve_pronoun(token)
                if resolved is not None:
                    return resolved, True
                continue
            found = sentence.mention_in(token)
            if found is not None:
                return found, False
        return None, False

    def _objects(self, pattern: Pattern, verb: "Token") -> list["Token"]:
        mode = pattern.object
        passive = pattern.passive and _child(verb, "nsubjpass", "auxpass") is not None and verb.tag_ == "VBN"
        if mode == "dobj":
            if passive:
                found = _child(verb, "nsubjpass")
                return [found] if found is not None else []
            found = _child(verb, "dobj")
            return [found] if found is not None else []
        if mode == "prep":
            return _prep_objects(verb, pattern.preps)
        if mode == "dobj-or-prep":
            found = _child(verb, "dobj")
            return [found] if found is not None else _prep_objects(verb, pattern.preps)
        if mode == "agent-or-prep":
            return _prep_objects(verb, ("by", *pattern.preps))
        if mode == "attr":
            found = _child(verb, "attr")
            return [found] if found is not None else []
        if mode == "oprd-or-prep":
            found = _child(verb, "oprd", "attr", "xcomp")
            return [found] if found is not None else _prep_objects(verb, pattern.preps)
        if mode == "attr-prep":
            attr = _child(verb, "attr")
            if attr is None or attr.lemma_.casefold() not in pattern.nouns:
                return []
            return _prep_objects(attr, pattern.preps)
        if mode == "acomp-or-prep":
            found = _child(verb, "acomp")
            return [found] if found is not None else _prep_objects(verb, pattern.preps)
        if mode == "passive-verb":
            return [verb]
        if mode == "clause":  # "agreed to fund X" is a decision, "I agree this would…" an opinion
            found = _child(verb, "xcomp") if verb.lemma_ == "agree" else _child(verb, "ccomp", "xcomp")
            if found is None:
                return _prep_objects(verb, ("on", "upon"))
            return [found]
        return []

    def _apply(self, pattern: Pattern, verb: "Token", sentence: _Sentence) -> list[Relation]:
        objects = self._objects(pattern, verb)
        if not objects:
            return []
        out = []
        conjoined = [] if pattern.object == "clause" else [c for c in objects[0].children if c.dep_ == "conj"]
        for obj in objects[:1] + conjoined:
            object_mention, value, subject_hint = None, None, None
            if pattern.value == "title":
                value = self._title(obj)
            elif pattern.value == "tier":
                value, subject_hint = self._tier(obj, sentence)
            elif pattern.value == "status":
                if pattern.object == "passive-verb" and not _child(verb, "auxpass"):
                    continue
                value = self._status(obj)
            elif pattern.value == "medication":
                value = self._medication(obj)
            else:  # "the Harbor budget" is a budget, not Harbor: only the head word counts
                object_mention = sentence.mention_of(obj)
                if object_mention is None:
                    if pattern.entity or obj.lower_ in PRONOUNS or obj.pos_ == "PRON":
                        continue
                    value = _clause_text(obj) if pattern.object == "clause" else _noun_phrase(obj)
                    if not value or len(value) < 2:
                        continue
                    if pattern.proper and not _names_something(obj):
                        continue
                elif pattern.object_types and sentence.mentions[object_mention].label not in pattern.object_types:
                    continue
                if pattern.team is not None and object_mention is not None:
                    words = set(sentence.mentions[object_mention].name.casefold().split())
                    if bool(words & TEAM_WORDS) != pattern.team:
                        continue
            if object_mention is None and not value:
                continue
            subject, inferred = self._subject(pattern, verb, sentence, [obj])
            if subject is None and subject_hint is not None:
                subject = subject_hint
            if subject is None or subject == object_mention:
                continue
            if not self._subject_fits(pattern, sentence.mentions[subject].label, inferred and subject_hint is None):
                continue
            subject_name = None
            if pattern.value == "tier":  # "Larkspur Enterprise" is Larkspur on the Enterprise tier
                tiers = self.rules.values.get("tier", frozenset())
                words = sentence.mentions[subject].name.split()
                if words[-1].casefold() in tiers:
                    if len(words) == 1:
                        continue
                    subject_name, value = " ".join(words[:-1]), value or words[-1]
            if object_mention is not None and sentence.mentions[subject].key == sentence.mentions[object_mention].key:
                continue
            relation = self._relation(pattern, sentence, subject, object_mention, value, verb, inferred)
            out.append(replace(relation, subject_name=subject_name) if subject_name else relation)
        return out

    def _subject_fits(self, pattern: Pattern, label: str, pronoun: bool) -> bool:
        """NER types are noisy ("Beacon" the app is often a PERSON, "Marcus Webb" a GPE), so
        the registry's subject types only rule out a he/she where the predicate takes no
        persons (a status, a plan)."""
        allowed = self.rules.subject_types.get(pattern.predicate, ("*",))
        return not pronoun or "*" in allowed or "PERSON" in allowed

    def _relation(self, pattern, sentence: _Sentence, subject, object_mention, value, verb, inferred) -> Relation:
        clause = _clause_span(verb) if verb is not None else (0, len(sentence.doc.text))
        confidence = INFERRED_CONFIDENCE if inferred else (STATED_CONFIDENCE if object_mention is not None else VALUE_CONFIDENCE)
        # the cited span: the sentence (one block of it), without surrounding space
        text = sentence.doc.text
        first = len(text) - len(text.lstrip())
        last = len(text.rstrip())
        return Relation(
            predicate=pattern.predicate, subject=subject, object=object_mention,
            value=value[:MAX_VALUE_CHARS] if value else None,
            start=sentence.offset + first, end=sentence.offset + last,
            clause_start=sentence.offset + clause[0], clause_end=sentence.offset + clause[1],
            sentence=sentence.index, rule=pattern.rule, evidence="inferred" if inferred else "stated",
            confidence=confidence, kind=pattern.kind, past=verb is not None and _is_past(verb),
        )

    def _appos(self, pattern: Pattern, sentence: _Sentence) -> list[Relation]:
        """"Priya Raman, Director of Engineering, …": a title in apposition to a person."""
        out = []
        for token in sentence.doc:
            if token.dep_ != "appos":
                continue
            subject = sentence.mention_of(token.head)
            if subject is None or sentence.mentions[subject].label != "PERSON" or sentence.mention_of(token) is not None:
                continue
            value = self._title(token)
            if value:
                out.append(self._relation(pattern, sentence, subject, None, value, None, False))
        return out

    def _marker(self, pattern: Pattern, sentence: _Sentence) -> list[Relation]:
        """"Decision: we downgrade Larkspur …": the rest of a marked line, under the
        entity it names first."""
        words = [t for t in sentence.doc if not t.is_space]
        if len(words) < 4 or words[0].lower_ not in pattern.markers:
            return []
        colon = next((i for i, t in enumerate(words[:3]) if t.text in (":", "-", "—")), None)
        if colon is None:
            return []
        rest = words[colon + 1:]
        subject = next((m for m in (sentence.mention_of(t) for t in rest) if m is not None
                        and sentence.mentions[m].label in ("PERSON", "ORG", "PRODUCT", "GPE", "FAC", "EVENT", "WORK_OF_ART", "LAW", "NORP", "LOC")), None)
        if subject is None:
            return []
        doc = sentence.doc
        value = " ".join(doc.text[rest[0].idx:].split("\n", 1)[0].split()).rstrip(".")[:MAX_VALUE_CHARS]
        if sum(ch.isalpha() for ch in value) < 12 or len(value.split()) < 3:  # "Resolved: (Niko)"
            return []
        return [self._relation(pattern, sentence, subject, None, value, None, True)]
