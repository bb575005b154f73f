"""Typed relations read from a sentence's dependency parse: rules, no model of our own.

The rules come from the predicate registry (``palace/data/predicates.json``, loaded by
the core and handed in as :class:`RelationRules`): each predicate lists patterns over
spaCy's dependency labels (ClearNLP style, as ``en_core_web_sm`` produces them:
``nsubj``, ``dobj``, ``prep``/``pobj``, ``attr``, ``oprd``, ``appos``, ``agent``…) keyed by
verb lemmas, and **relational nouns** ("manager", "plan", "owner", "status") that carry
the predicate in a copula, an apposition or a key–value line ("His manager is Ola Berg",
"Ola Berg, her manager, …", "Owner: Ana"). This is the subject–verb–object approach of
open information extraction (Fader et al., "Identifying Relations for Open Information
Extraction", EMNLP 2011), restricted to a closed set of predicates so that every fact is
typed.

How a clause is read:

- **Voice.** Patterns are written for the active voice. A passive clause is read back to
  it: the ``by`` agent is the logical subject and the passive subject the logical direct
  object ("The Falcon project is led by Ines" = "Ines leads the Falcon project").
- **Subjects.** The verb's subject, or that of the verb it is conjoined with, of the verb
  whose complement it is, of the noun a relative clause or participle hangs on ("Ana, who
  leads Falcon"); each conjunct of a coordinated subject gives its own fact ("Ana and Bo
  joined Acme"). A proper noun that the named-entity recogniser missed still names
  something and becomes a mention. Pronouns resolve to the nearest earlier mention of a
  fitting kind (``he``/``she`` a person; ``they``/``its`` an organisation, product or
  team); ``I``/``my``/``we`` to the speaker of a chat line ("Mara: I …") or the palace's
  owner. Facts resting on a resolved pronoun are marked ``inferred``.
- **Objects.** The head word decides ("the Harbor budget" is a budget, not Harbor), but a
  quantity is looked through ("5mg of Amlodipine") and a kind noun names what modifies it
  ("the Falcon project" is Falcon).
- **Mood.** Negated ("not", "never"), hedged ("might", "could"), conditional ("if"),
  questioned and planned ("will", "is going to", "plans to") clauses give no fact; the
  reason is kept in the trace. "No longer", "not … anymore", "stopped/quit doing" turn
  the fact into an **ending**: the state is closed on that day.
- **Transitions.** "moved from Oslo to Bergen", "downgraded from Pro to Basic": the
  ``from`` value ends where the ``to`` value begins. Hand-overs ("took over Falcon from
  Ana", "handed Falcon over to Bo") end the previous holder's fact.

Only sentences that can match (a cue word of some pattern and an entity, a proper noun or
a pronoun) are parsed at all: :meth:`RelationRules.may_match` is the cheap filter that
keeps the parser off most of a corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Sequence

from palace.nlp.names import NOTE_VERBS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from palace.nlp.extraction import EntityMention

RELATIONS_EXTRACTOR = "palace.relations.v2"
STATED_CONFIDENCE = 0.8
VALUE_CONFIDENCE = 0.7
INFERRED_CONFIDENCE = 0.5
MAX_VALUE_CHARS = 160

SAME_PAST = frozenset({"put", "set", "cut", "quit", "let", "hit", "read", "shut", "spread"})
PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers"})
GROUP_PRONOUNS = frozenset({"they", "them", "their", "it", "its"})
FIRST_PERSON = frozenset({"i", "me", "my", "myself", "we", "us", "our"})
#: Every pronoun that may stand for a subject (the parse prefilter looks for them).
PRONOUNS = PERSON_PRONOUNS | GROUP_PRONOUNS | FIRST_PERSON
RELATIVE_PRONOUNS = frozenset({"who", "which", "that", "whom"})
HEDGES = frozenset({"might", "may", "could", "would", "should", "must", "can", "ca", "cannot"})
FUTURE = frozenset({"will", "shall", "'ll", "’ll", "wo"})
CONDITIONS = frozenset({"if", "whether", "unless", "after", "before", "when", "once", "until", "whenever"})
NEGATIONS = frozenset({"not", "n't", "never", "no", "n’t"})
#: Verbs whose complement is not (yet) a fact: "plans to move", "is going to switch".
PLAN_HEADS = frozenset({
    "go", "plan", "intend", "hope", "want", "expect", "aim", "schedule", "propose", "consider", "wish",
    "like", "try", "prepare", "decide", "agree", "offer", "promise", "threaten", "need", "hate", "love",
    "suggest", "recommend", "ask", "tell", "allow", "let", "encourage", "urge", "seem", "appear", "refuse",
    "fail", "forget", "remember", "mean", "have", "use", "help", "make", "get", "would", "able",
})
#: Verbs whose complement is a fact that begins ("started taking", "began working at").
START_HEADS = frozenset({"start", "begin", "continue", "keep", "resume", "commence"})
#: Verbs whose complement is a fact that ends ("stopped taking", "quit working at").
STOP_HEADS = frozenset({"stop", "quit", "cease", "discontinue", "finish", "end"})
#: Adverbs that hedge a statement ("probably works for…") or put it in the past
#: ("previously at Mercado Libre", "formerly of Goldman Sachs").
HEDGE_ADVERBS = frozenset({"probably", "maybe", "perhaps", "possibly", "apparently", "reportedly", "allegedly",
                           "supposedly", "likely", "presumably", "seemingly", "rumoured", "rumored", "hopefully"})
PAST_ADVERBS = frozenset({"previously", "formerly", "once", "earlier"})
#: Verbs whose clausal complement is hearsay or belief, not a statement of fact.
BELIEF_HEADS = frozenset({"think", "believe", "guess", "suppose", "suspect", "hear", "doubt", "wonder", "assume",
                          "reckon", "rumor", "rumour", "imagine", "fear", "bet", "speculate", "claim"})
#: Changes that, in the present progressive, announce a plan ("is leaving Turkcell").
CHANGE_VERBS = frozenset({"leave", "move", "join", "quit", "retire", "switch", "relocate", "migrate", "step",
                          "hand", "transfer", "change", "upgrade", "downgrade", "start", "resign", "sell", "buy"})
#: Nouns of hearsay that make their clause no fact ("Rumour is that…").
HEARSAY_NOUNS = frozenset({"rumour", "rumor", "gossip", "word", "speculation", "hearsay"})
SUBJECT_DEPS = ("nsubj", "nsubjpass", "csubj")
TEAM_WORDS = frozenset({"team", "council", "committee", "group", "board", "crew", "squad", "guild", "club", "wg",
                        "panel", "project", "department", "working group", "taskforce", "task force", "band",
                        "orchestra", "choir", "party", "caucus", "union", "society", "association", "league"})
#: Nouns that name a kind of thing: "the Falcon project" is Falcon.
KIND_NOUNS = frozenset({"project", "app", "application", "product", "initiative", "program", "programme", "platform",
                        "tool", "repo", "repository", "site", "website", "campaign", "library", "crate", "framework",
                        "company", "firm", "startup"})
#: Nouns whose phrase is the name of a group: "the Search team", "the Kraków office".
GROUP_NOUNS = frozenset({"team", "squad", "guild", "council", "committee", "board", "group", "club", "department",
                         "office", "hub", "unit", "family", "chapter", "crew", "panel", "taskforce", "band", "choir",
                         "orchestra", "caucus", "union", "society", "association", "league", "division", "branch",
                         "lab", "studio", "cabinet", "parliament", "assembly", "senate", "chamber", "guild"})
#: Heads a quantity stands on: "5mg of Amlodipine", "a course of amoxicillin".
QUANTITY_HEADS = frozenset({"mg", "mcg", "µg", "g", "ml", "iu", "unit", "units", "dose", "dosage", "tablet",
                            "tablets", "pill", "pills", "capsule", "capsules", "course", "shot", "shots",
                            "prescription", "drop", "drops", "puff", "puffs", "bit", "lot", "kind", "type", "seat",
                            "seats", "licence", "licences", "license", "licenses", "user", "users", "tb", "gb", "mb",
                            "pb", "%", "percent", "share", "shares", "stake"})
#: Entity labels that are no thing a fact links (a date, a number, a value word).
TITLE_DROP = frozenset({"new", "former", "current", "then", "now", "previous", "incoming", "outgoing", "longtime",
                        "long-time", "our", "their", "his", "her", "its", "my", "your", "the", "a", "an", "acting"})
NOT_THINGS = frozenset({"DATE", "TIME", "CARDINAL", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "VALUE"})
ORG_LIKE = ("ORG", "PRODUCT", "FAC", "WORK_OF_ART", "EVENT", "LAW")
IRREGULAR = {
    "be": ("am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m", "’s", "’re"),
    "lead": ("led",), "run": ("ran",), "write": ("wrote", "written"), "leave": ("left",),
    "take": ("took", "taken"), "make": ("made",), "become": ("became",), "build": ("built",),
    "begin": ("began", "begun"), "give": ("gave", "given"), "go": ("went", "gone"),
    "get": ("got", "gotten"), "keep": ("kept",), "buy": ("bought",), "choose": ("chose", "chosen"),
    "put": ("put",), "quit": ("quit",), "hold": ("held",), "sign": ("signed",), "sell": ("sold",),
    "teach": ("taught",), "step": ("stepped",), "stop": ("stopped",), "hand": ("handed",),
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
    """One rule of a predicate (see ``palace/data/predicates.json``'s ``_doc`` for the
    fields). Roles are those of the active voice."""

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
    object_types: tuple[str, ...] = ()
    team: bool | None = None
    kind: str = "state"
    proper: bool = False
    particle: str | None = None
    ending: bool = False
    optional: bool = False
    previous: str | None = None
    transition: bool = True
    old: str = "prep:from"
    with_prep: str | None = None
    subject_types: tuple[str, ...] = ()
    not_object_types: tuple[str, ...] = ()
    any_value: bool = False


@dataclass(frozen=True)
class RelationalNoun:
    """A noun that carries a predicate between its possessor and a value: "manager" is
    ``reports_to`` from the possessor (``his manager is Ola``: he reports to Ola); "lead"
    is ``leads`` towards the possessor (``Falcon's lead is Ines``: Ines leads Falcon).
    ``possessor`` is ``subject`` or ``object``; ``possessor_types`` (spaCy labels, empty:
    any) choose between two readings of one noun ("manager" of a person or of a team)."""

    word: str
    predicate: str
    possessor: str = "subject"
    possessor_types: tuple[str, ...] = ()
    exclude_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class Relation:
    """A typed fact read from one sentence.

    ``subject`` and ``object`` index the drawer's entity mentions; a subject that is no
    mention (the speaker of a chat line, the palace's owner, the note a key–value line
    belongs to) is ``subject_name`` (with ``subject_label``) instead, and a literal object
    is in ``value``. An **ending** (``ending``: "stepped down as lead", the ``A`` of "from A
    to B") closes the state on its date; its object may be unknown ("Ines retired").
    ``start``/``end``: the sentence's chars in the drawer; ``clause_start``/``clause_end``
    the verb's clause, where its own date is looked for. ``evidence`` is ``stated`` or
    ``inferred`` (a pronoun or an unnamed subject resolved).
    """

    predicate: str
    subject: int | None
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
    #: set when the subject is not a mention of its own: "Larkspur" of "Larkspur
    #: Enterprise", a chat line's speaker, the note's title
    subject_name: str | None = None
    subject_label: str | None = None
    ending: bool = False
    #: an object that is no mention: the note a key–value line is about ("Owner: Ana")
    object_name: str | None = None
    object_label: str | None = None
    #: the cited text when it is not the drawer's (a front-matter field)
    quote: str | None = None
    #: drawer chars of the clause's words that may date it (not "2025" of "the 2025
    #: hiring plan", a year naming a thing); empty: any date inside the clause span
    date_tokens: tuple[int, ...] = ()

    @property
    def extractor(self) -> str:
        """Versioned extractor name with the rule, e.g. ``palace.relations.v2/report-to``."""
        return f"{RELATIONS_EXTRACTOR}/{self.rule}"


@dataclass(frozen=True)
class Candidate:
    """A candidate fact a rule turned down, for the trace: the sentence number in the
    drawer, the rule, the predicate, the reason, and the words it would have linked."""

    sentence: int
    start: int
    end: int
    rule: str
    predicate: str
    reason: str
    subject: str | None = None
    object: str | None = None


@dataclass(frozen=True)
class Context:
    """What a drawer's text cannot say about itself: ``title`` (the note's title) and
    ``heading`` (the nearest heading above), the possessors of key–value lines;
    ``owner``, who ``I``/``my`` are outside chat lines; ``speakers`` the chat lines'
    speakers as ``(line start, line end, name)`` in drawer chars."""

    title: str = ""
    heading: str = ""
    owner: str | None = None
    speakers: tuple[tuple[int, int, str], ...] = ()
    #: the drawer's text, where a pronoun's antecedent the recogniser missed is looked for
    text: str = ""

    def speaker_at(self, position: int) -> str | None:
        for start, end, name in self.speakers:
            if start <= position < end:
                return name
        return None


@dataclass
class RelationRules:
    """Patterns compiled from a predicate registry and its value lexicons."""

    patterns: tuple[Pattern, ...]
    values: dict[str, frozenset[str]]
    by_verb: dict[str, list[Pattern]] = field(default_factory=dict)
    verbless: list[Pattern] = field(default_factory=list)
    cues: frozenset[str] = frozenset()
    subject_types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    object_types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    nouns: dict[str, list[RelationalNoun]] = field(default_factory=dict)
    value_kinds: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    cardinality: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_registry(cls, registry: dict, values: dict[str, Iterable[str]]) -> "RelationRules":
        """Compile ``registry`` (name → predicate with ``patterns``, ``nouns``, ``subject``,
        ``object``, ``kind``, ``cardinality``; see :class:`palace.temporal.Predicate`) and
        the value lexicons ``values`` (lexicon name → words)."""
        patterns = []
        nouns: dict[str, list[RelationalNoun]] = {}
        value_kinds = {}
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
                    entity=bool(entry.get("entity", False)),
                    object_types=tuple(entry.get("object_types", ())),
                    team=(True if entry.get("team") else False if entry.get("not_team") else None),
                    kind=spec.kind, proper=bool(entry.get("proper", False)), particle=entry.get("particle"),
                    ending=bool(entry.get("ending", False)), optional=bool(entry.get("optional", False)),
                    previous=entry.get("previous"), transition=bool(entry.get("transition", True)),
                    old=entry.get("old", "prep:from"), with_prep=entry.get("with_prep"),
                    subject_types=tuple(entry.get("subject_types", ())),
                    not_object_types=tuple(entry.get("not_object_types", ())),
                    any_value=bool(entry.get("any_value", False)),
                ))
                if entry.get("value"):
                    value_kinds.setdefault(spec.name, entry["value"])
            for noun in getattr(spec, "nouns", ()) or ():
                for word in noun.get("words", ()):
                    nouns.setdefault(word.casefold(), []).append(RelationalNoun(
                        word.casefold(), spec.name, noun.get("possessor", "subject"),
                        tuple(noun.get("possessor_types", ())), tuple(noun.get("exclude_types", ()))))
                if noun.get("value"):
                    value_kinds.setdefault(spec.name, noun["value"])
        lexicons = {name: frozenset(w.casefold() for w in words) for name, words in values.items()}
        rules = cls(tuple(patterns), lexicons, subject_types={s.name: s.subject for s in registry.values()},
                    object_types={s.name: s.object for s in registry.values()}, nouns=nouns,
                    value_kinds=value_kinds, kinds={s.name: s.kind for s in registry.values()},
                    cardinality={s.name: s.cardinality for s in registry.values()})
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
        cues |= {w.split()[-1] for w in nouns}
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
        return len(word) >= 7 and word.isalpha() and any(word.endswith(s) for s in self.values.get("medication_suffixes", ()))

    def is_value_word(self, word: str) -> bool:
        """A word of a value lexicon (tier, status, title, medication): never a name."""
        low = word.casefold()
        return (low in self.values.get("tier", ()) or low in self.values.get("status", ())
                or low in self.values.get("title", ()) or self.is_medication_word(low))


class _Sentence:
    """One parsed sentence and the drawer's mentions around it (a list this sentence may
    add to: a proper noun the recogniser missed becomes a mention)."""

    def __init__(self, doc: "Doc", offset: int, index: int, mentions: list["EntityMention"],
                 context: Context, rules: RelationRules, known_words: frozenset[str] = frozenset()) -> None:
        self.doc = doc
        self.known_words = known_words
        self.offset = offset
        self.index = index
        self.mentions = mentions
        self.context = context
        self.rules = rules
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

    def is_name_word(self, token: "Token") -> bool:
        """A capitalised word that can be part of a name: a proper noun, or a common-noun
        tag on a word that is no English word (the small model tags unfamiliar names
        "Ines" as NNS); never a value word, a pronoun or a date."""
        text = token.text
        if not (text[:1].isupper() or (token.pos_ == "PROPN" and any(ch.isupper() for ch in text[1:]))) \
                or token.ent_type_ in NOT_THINGS:  # "Ines", "bKash", "eBay"
            return False
        if self.rules.is_value_word(token.text) or token.lower_ in PRONOUNS:
            return False
        if token.pos_ == "PROPN" or token.tag_ in ("NNP", "NNPS"):
            return True
        return bool(self.known_words) and token.tag_ in ("NN", "NNS") and token.lower_ not in self.known_words \
            and token.lemma_.casefold() not in self.known_words

    def _name_chain(self, token: "Token") -> tuple[int, int]:
        """The run of name words around ``token`` joined by compound/flat arcs, with the
        particles inside a name ("Ana de la Cruz", "Hendrik ter Horst")."""
        first = last = token.i
        particles = ("de", "la", "del", "da", "das", "dos", "di", "du", "van", "von", "der", "den", "ter", "ten",
                     "le", "bin", "ibn", "al", "el", "y", "&")
        while first > 0:
            prev = self.doc[first - 1]
            if prev.dep_ in ("compound", "flat", "nmod") and prev.head.i >= token.i and self.is_name_word(prev):
                first -= 1
            elif prev.lower_ in particles:
                back = first - 1
                while back > 0 and self.doc[back - 1].lower_ in particles:
                    back -= 1  # "Ana de la Cruz"
                if back >= 1 and self.is_name_word(self.doc[back - 1]):
                    first = back - 1
                else:
                    break
            elif prev.is_alpha and prev.text.islower() and first >= 3 and self.doc[first - 2].text in ("-", "‐") \
                    and not self.doc[first - 2].whitespace_ and not self.doc[first - 3].whitespace_ \
                    and self.is_name_word(self.doc[first - 3]):
                first -= 3  # "Jae-won Park"
            elif prev.text in ("-", "‐") and first >= 2 and not prev.whitespace_ and \
                    not self.doc[first - 2].whitespace_ and self.doc[first - 2].text[:1].isalpha():
                first -= 2  # "Jae-won Park": the hyphen joins the two halves of a name
            else:
                break
        while last + 1 < len(self.doc):
            nxt = self.doc[last + 1]
            if nxt.head.i == token.i and nxt.dep_ in ("flat", "compound") and self.is_name_word(nxt):
                last += 1
            else:
                break
        return first, last

    def _add_mention(self, first: int, last: int, label: str) -> int | None:
        from palace.nlp.extraction import EntityMention  # the dataclass only: no cycle at import time
        from palace.nlp.markup import normalise_entity_name

        doc = self.doc
        surface = doc.text[doc[first].idx:doc[last].idx + len(doc[last].text)]
        name = normalise_entity_name(surface)
        if len(name) < 2:
            return None
        start = self.offset + doc[first].idx
        self.mentions.append(EntityMention(start, start + len(surface), surface, name, label, self.index))
        index = len(self.mentions) - 1
        for i in range(first, last + 1):
            self._by_token[i] = index
        return index

    def proper_mention(self, token: "Token", label: str) -> int | None:
        """A mention for a name the recogniser missed or cut ("Ana", "Initrode"; "Lima" of
        "Ana Lima", "Hammarby" of "Hammarby IF"): the run of capitalised name words around
        ``token``; None when it is no name (lower case, a value word, a pronoun, a common
        English noun)."""
        if self._by_token.get(token.i) is None and not self.is_name_word(token):
            return None
        first, last = self._name_chain(token)
        start = self.offset + self.doc[first].idx
        end = self.offset + self.doc[last].idx + len(self.doc[last].text)
        known = [self._by_token[i] for i in range(first, last + 1) if self._by_token.get(i) is not None]
        for index in known:
            mention = self.mentions[index]
            if mention.start <= start and end <= mention.end:
                outside = [t for t in self.doc if mention.start <= self.offset + t.idx < mention.end
                           and not first <= t.i <= last]
                if any(t.lower_ in ("for", "with", "to", "and", "or", "from", "at", "by", "in", "on", "as")
                       for t in outside) and self.is_name_word(token):
                    return self._add_mention(first, last, mention.label)  # "Slack for Discord" is two names
                return index  # the recogniser's mention holds the whole name
        if known:  # the recogniser cut the name: the whole run, with the label it gave
            return self._add_mention(first, last, self.mentions[known[0]].label)
        return self._add_mention(first, last, label)

    def phrase_mention(self, token: "Token", label: str, *, lower_ok: bool = False) -> int | None:
        """A mention for a noun phrase that names a group or a thing: "the Search team",
        "the Nordics sales team", "the Kraków office", "the Q4 budget sheet" — the head
        with its compound and adjective modifiers (no article, possessive or "new"). A
        phrase without a capitalised word or a number counts only with ``lower_ok`` ("the
        platform team")."""
        drop = {"new", "old", "whole", "entire", "current", "former", "same", "other", "first", "second",
                "all", "both", "our", "their", "his", "her", "its", "my", "your", "the", "a", "an", "this", "that"}
        mods = [c for c in token.lefts if c.dep_ in ("compound", "amod", "nmod", "nummod", "npadvmod")
                and c.lower_ not in drop and not c.is_punct]
        if not mods:
            return None
        words = sorted({t.i for m in mods for t in m.subtree if not t.is_punct or t.text in "-&'"} | {token.i})
        named = any(self.doc[i].text[:1].isupper() or self.doc[i].like_num for i in words if i != token.i)
        if not named and not lower_ok:
            return None
        first, last = words[0], words[-1]
        if any(self._by_token.get(i) is not None and self.mentions[self._by_token[i]].label in NOT_THINGS
               for i in range(first, last + 1)):
            pass  # "the 2025 hiring plan": the year is part of the thing's name here
        existing = self._by_token.get(token.i)
        if existing is not None:
            return existing
        return self._add_mention(first, last, label)

    def _unrecognised_antecedent(self, position: int, label: str) -> int | None:
        """A name the recogniser missed, written before ``position`` in the drawer ("Met
        Henrik Dahl at the meetup. He joined…", "Talked to Olu. He takes…"): the first
        run of capitalised words of the latest sentence that has one, less a capitalised
        English word opening the sentence ("Met", "Talked"). Becomes a mention."""
        text = self.context.text[:position]
        if not text:
            return None
        best = None
        for m in _NAME_RUN.finditer(text):
            words = m.group(0).split()
            start = m.start()
            opening = start == 0 or text[:start].rstrip()[-1:] in ".!?:\n" or text[:start].endswith("\n")
            while words and (opening or len(words) == 1) and (words[0].casefold() in self.known_words
                                                              or words[0].casefold() in NOTE_VERBS):
                start += len(words[0]) + 1
                words = words[1:]
                opening = False
            if not words or any(w.casefold() in PRONOUNS or self.rules.is_value_word(w) for w in words):
                continue
            if len(words) == 1 and words[0].casefold() in self.known_words:
                continue
            sentence_start = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start))
            if best is None or sentence_start > best[2]:
                best = (start, " ".join(words), sentence_start)
        if best is None:
            return None
        from palace.nlp.extraction import EntityMention

        start, name, _ = best
        self.mentions.append(EntityMention(start, start + len(name), name, name, label, -1))
        return len(self.mentions) - 1

    def rollback(self, mark: int) -> None:
        """Forget the mentions added since ``mark`` (a rule that read nothing must not
        leave names behind for the next rule to find)."""
        if len(self.mentions) > mark:
            del self.mentions[mark:]
            self._by_token = {i: m for i, m in self._by_token.items() if m < mark}

    def nearest(self, token: "Token", labels: Sequence[str], team: bool = False, *, before: int | None = None,
                exclude: str | None = None) -> int | None:
        """The mention a pronoun most likely refers to: of the mentions of ``labels`` (or
        naming a team, with ``team``) before it in the drawer, those of the latest
        sentence that has any, and of these the first (a sentence's first person is
        usually its subject: "Alice rang Bob; she…" is Alice). A heuristic, so facts built
        on it are ``inferred``."""
        position = self.offset + token.idx if before is None else before
        before = [i for i, m in enumerate(self.mentions) if m.end <= position and m.key != exclude and (
            m.label in labels or (team and set(m.name.casefold().split()) & TEAM_WORDS))]
        if not before and team:  # an organisation the recogniser took for a person: the
            # first thing named in the latest sentence that has one
            before = [i for i, m in enumerate(self.mentions) if m.end <= position and m.label not in NOT_THINGS
                      and m.label not in ("GPE", "LOC") and not set(m.name.casefold().split()) & PRONOUNS]
        if not before:
            return self._unrecognised_antecedent(position, "PERSON" if "PERSON" in labels else "ORG")
        latest = max(self.mentions[i].sentence for i in before)
        return min((i for i in before if self.mentions[i].sentence == latest), key=lambda i: self.mentions[i].start)


@dataclass(frozen=True)
class _Subject:
    index: int | None
    name: str | None = None
    label: str | None = None
    inferred: bool = False


def _child(token: "Token", *deps: str) -> "Token | None":
    for child in token.children:
        if child.dep_ in deps:
            return child
    return None


def _prep_objects(token: "Token", preps: Sequence[str]) -> list["Token"]:
    """The objects of ``token``'s prepositions ``preps``; the small model often hangs the
    "to B" of "from A to B" on A, where it is looked for too."""
    out = []
    for child in token.children:
        if child.dep_ in ("prep", "dative", "agent") and child.lower_ in preps:
            out += [g for g in child.children if g.dep_ == "pobj"]
    if not out and any(p in ("to", "into", "onto") for p in preps):
        for child in token.children:
            if child.dep_ == "prep" and child.lower_ == "from":
                holders = [child, *(g for g in child.children if g.dep_ == "pobj")]
                out += [g for holder in holders for p in holder.children if p.dep_ == "prep" and p.lower_ in preps
                        for g in p.children if g.dep_ == "pobj"]
    return out


def _is_passive(verb: "Token") -> bool:
    if verb.tag_ != "VBN":
        return False
    if any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
        return True
    if verb.dep_ == "acl":  # "the project, led by Ines," / "Ines, hired in May,"
        return True
    return verb.dep_ == "conj" and verb.head.i != verb.i and _is_passive(verb.head)


def mood(verb: "Token") -> str:
    """How a clause states its verb: ``fact``, ``ending`` ("no longer works", "stopped
    taking", "used to work", "previously at") or the reason it is not a fact:
    ``negated``, ``hedged`` ("might", "probably", "I think…", "Rumour is that…"),
    ``conditional``, ``planned`` ("will move", "is going to switch", "plans to join",
    "is leaving next month") or ``not a statement`` (an infinitive or a bare gerund: "Josh
    to write a comment", "Creating a proposal doc…")."""
    ending = False
    for child in verb.children:
        low = child.lower_
        if child.dep_ in ("advmod", "npadvmod") and low in ("longer", "anymore", "more") and (
                low == "anymore" or any(g.lower_ in ("no", "any") for g in child.children)):
            ending = True
        if child.dep_ == "advmod" and low in PAST_ADVERBS and verb.tag_ not in ("VB", "VBZ", "VBP"):
            ending = True
    for child in verb.children:
        low = child.lower_
        if child.dep_ == "neg" or low in NEGATIONS and child.dep_ in ("advmod", "neg", "det"):
            if ending:
                continue
            return "negated"
        if child.dep_ in ("aux", "auxpass"):
            if low in HEDGES:
                return "hedged"
            if low in FUTURE:
                return "planned"
        if child.dep_ == "advmod" and low in HEDGE_ADVERBS:
            return "hedged"
        if child.dep_ == "mark" and low in CONDITIONS:
            return "conditional"
    if verb.tag_ == "VBG" and verb.lemma_.casefold() in CHANGE_VERBS and any(
            c.dep_ == "aux" and c.lemma_ == "be" and c.tag_ in ("VBZ", "VBP") for c in verb.children):
        return "planned"  # "is leaving Turkcell", "are moving to Oslo": announced, not done
    head = verb.head
    if verb.dep_ in ("xcomp", "ccomp") and head.i != verb.i and head.pos_ in ("VERB", "AUX", "ADJ"):
        lemma = head.lemma_.casefold()
        if lemma in STOP_HEADS:
            outer = mood(head)
            return outer if outer not in ("fact", "ending") else "ending"
        if lemma in START_HEADS:
            return mood(head) if not ending else "ending"
        if lemma == "use" and head.tag_ == "VBD":  # "used to work at KPMG"
            outer = mood(head)
            return outer if outer not in ("fact", "ending") else "ending"
        if verb.dep_ == "ccomp" and (lemma in BELIEF_HEADS or any(
                c.dep_ in ("nsubj", "attr") and c.lemma_.casefold() in HEARSAY_NOUNS for c in head.children)):
            return "hedged"
        if lemma in PLAN_HEADS or head.lower_ == "going":
            return "planned"
    if verb.tag_ == "VB" and not any(c.dep_ in ("aux", "auxpass") for c in verb.children) and verb.dep_ != "ROOT":
        if verb.dep_ != "conj":
            return "not a statement"
        return mood(head)
    if any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children):
        return "not a statement"
    if verb.tag_ == "VBG" and not any(c.dep_ in ("aux", "auxpass") for c in verb.children):
        # a gerund as subject or complement is an activity ("Creating a proposal doc…");
        # a participle modifying a name is a statement ("Marcus Webb, now living in Lisbon")
        if verb.dep_ in ("csubj", "csubjpass", "pcomp", "xcomp", "ROOT", "advcl"):
            return "not a statement"
    if verb.dep_ in ("conj", "ccomp", "advcl", "relcl") and head.pos_ in ("VERB", "AUX") and head.i != verb.i:
        outer = mood(head)
        if outer not in ("fact", "ending", "not a statement") and (verb.dep_ == "conj" or outer in ("hedged", "conditional")):
            return outer
    return "ending" if ending else "fact"


def _is_past(verb: "Token") -> bool:
    """Simple past ("switched", "was switched"), not the present perfect ("has lived").
    A VBD tag on a form equal to its lemma ("we downgrade") is the small model's slip,
    unless the verb's past is its lemma ("put", "set")."""
    if verb.tag_ == "VBD":
        return verb.lower_ != verb.lemma_.casefold() or verb.lower_ in SAME_PAST
    return verb.tag_ == "VBN" and any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in verb.children)


def _copula_partner(noun: "Token") -> "Token":
    """A noun a relative clause or participle hangs on that is one side of a copula
    stands for the other side when that is a name: in "Marco Ruiz is a footballer who
    plays for Betis" the one who plays is Marco Ruiz; in "The customer that upgraded is
    Faro Logistics", Faro Logistics."""
    head = noun.head
    if head.i == noun.i or head.lemma_ not in ("be", "become", "remain"):
        return noun
    other = _child(head, "nsubj") if noun.dep_ == "attr" else _child(head, "attr") if noun.dep_ == "nsubj" else None
    if other is not None and (other.pos_ == "PROPN" or other.tag_ in ("NNP", "NNPS")):
        return other
    return noun


def _subject_token(verb: "Token") -> "Token | None":
    """The verb's grammatical subject; a conjoined verb without one shares its head's, a
    complement its governor's, a relative clause or participle the noun it modifies."""
    seen = 0
    while verb is not None and seen < 4:
        subject = _child(verb, *SUBJECT_DEPS)
        if subject is None:  # the small model sometimes hangs a name on the verb as a compound
            subject = next((c for c in verb.lefts if c.dep_ in ("compound", "npadvmod", "dep")
                            and (c.pos_ == "PROPN" or c.tag_ in ("NNP", "NNPS"))), None)
        if subject is not None:
            if subject.lower_ in RELATIVE_PRONOUNS and verb.dep_ == "relcl":
                return _copula_partner(verb.head)
            return subject
        if verb.dep_ == "conj":
            verb = verb.head
            seen += 1
            continue
        if verb.dep_ in ("xcomp", "advcl") and verb.head.pos_ in ("VERB", "AUX"):
            verb = verb.head
            seen += 1
            continue
        if verb.dep_ in ("acl", "relcl") and verb.head.pos_ in ("PROPN", "NOUN"):  # "Marcus Webb, living in…"
            return _copula_partner(verb.head)
        return None
    return None


def _logical(verb: "Token", role: str) -> "Token | None":
    """The token in an active-voice ``role`` (``nsubj`` or ``dobj``) of ``verb``, whatever
    its voice: in "Falcon is led by Ines" the subject is Ines and the object Falcon; a
    relative pronoun stands for the noun its clause modifies ("Kestrel, which Goran
    owns")."""
    passive = _is_passive(verb)
    if role == "nsubj":
        if passive:
            agents = _prep_objects(verb, ("by",))
            return agents[0] if agents else None
        return _subject_token(verb)
    if role == "dobj":
        if passive:
            if verb.dep_ == "acl":
                return _copula_partner(verb.head)
            return _subject_token(verb)
        found = _child(verb, "dobj")
        if found is not None and found.lower_ in RELATIVE_PRONOUNS and verb.dep_ == "relcl":
            return _copula_partner(verb.head)
        return found
    return None


def _conjuncts(token: "Token") -> list["Token"]:
    """``token`` and the tokens coordinated with it ("Ana, Bo and Cy")."""
    out = [token]
    stack = [token]
    while stack:
        for child in stack.pop().children:
            if child.dep_ == "conj" and len(out) < 8:
                out.append(child)
                stack.append(child)
    return out


def _unwrap(token: "Token") -> "Token":
    """Look through a quantity: "5mg of Amlodipine" is Amlodipine; "a Falcon" stays."""
    seen = 0
    while seen < 3 and (token.lower_ in QUANTITY_HEADS or token.like_num or re.fullmatch(r"\d+(\.\d+)?[a-zµ]+", token.lower_)):
        objects = _prep_objects(token, ("of",))
        if not objects:
            break
        token = objects[0]
        seen += 1
    return token


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
    """The phrase names a particular thing: a proper noun or an acronym in it ("the Q4
    budget sheet", "the Tally model"; not "40 seats")."""
    for t in [*token.lefts, token]:
        if t.pos_ == "PROPN" or (t.pos_ == "NUM" and not t.like_num) or (t.text.isupper() and len(t.text) > 1) or "`" in t.text or "#" in t.text:
            return True
    return False


def _clause_text(token: "Token") -> str:
    """The text of ``token``'s clause (its subtree without conjoined clauses), up to the
    end of its line: "to restart the clock", not "… and writes"."""
    start, end = _clause_span(token)
    return " ".join(token.doc.text[start:end].split("\n", 1)[0].split())[:MAX_VALUE_CHARS]


def _clause_tokens(verb: "Token") -> list["Token"]:
    """The words of the verb's own clause: its subtree without conjoined clauses and
    without the clauses nested in its arguments ("Helena, who moved in 2020, works for
    Siemens": 2020 is not when she works there); a final "." is left out."""
    nested = ("relcl", "acl", "appos", "conj", "cc", "parataxis")
    tokens = [verb]
    stack = [c for c in verb.children if c.dep_ not in ("conj", "cc", "parataxis")]
    while stack:
        token = stack.pop()
        if not token.is_punct:
            tokens.append(token)
        stack.extend(c for c in token.children if c.dep_ not in nested
                     or (c.dep_ in ("conj", "cc") and c.pos_ not in ("VERB", "AUX"))  # "2006 and 2020"
                     or (c.dep_ == "appos" and (c.pos_ == "NUM" or c.ent_type_ == "DATE")))  # "(2015–2019)"
    return tokens


def _clause_span(verb: "Token") -> tuple[int, int]:
    """The chars of the verb's own clause (see :func:`_clause_tokens`)."""
    tokens = _clause_tokens(verb)
    return min(t.idx for t in tokens), max(t.idx + len(t.text) for t in tokens)


def _dating_tokens(verb: "Token") -> list["Token"]:
    """The clause's words that may date it: not a date that modifies a noun ("the 2025
    hiring plan", "Q3 roadmap") — that one names a thing."""
    return [t for t in _clause_tokens(verb)
            if not (t.dep_ in ("compound", "nummod", "amod", "nmod", "poss") and t.head.pos_ in ("NOUN", "PROPN"))]


def _plain_title(token: "Token") -> str:
    """A title without its complements: "chief executive" of "Its chief executive"."""
    mods = [c for c in token.lefts if c.dep_ in ("compound", "amod") and c.lower_ not in TITLE_DROP]
    return " ".join(t.text for t in sorted([*mods, token], key=lambda t: t.i))


def _subtree_span(token: "Token") -> tuple[int, int]:
    tokens = list(token.subtree)
    return tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)


_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]+(?:[ \t](?:(?:de|da|van|von|der|la|le|ter|dos|del|bin|al)[ \t])?[A-Z][\w'’-]+)*")
_BRACKET = re.compile(r"\s*\(([^()\n]{2,60})\)")


def _particle(verb: "Token") -> str | None:
    found = _child(verb, "prt")
    if found is None:  # the small model often tags "down" in "stepped down" an adverb
        found = next((c for c in verb.children if c.dep_ == "advmod" and c.lower_ in ("down", "over", "off", "out", "up")), None)
    return found.lower_ if found is not None else None


class RelationReader:
    """Applies :class:`RelationRules` to parsed sentences. ``known_words``: lower-case
    English words (a capitalised one of them is no name unless tagged a proper noun)."""

    def __init__(self, rules: RelationRules, known_words: frozenset[str] = frozenset()) -> None:
        self.rules = rules
        self.known_words = known_words

    # value lexicons -------------------------------------------------------------------
    def _title(self, token: "Token") -> str | None:
        words = self.rules.values.get("title", frozenset())
        head = token.lower_
        pair = " ".join(t.lower_ for t in (*[c for c in token.lefts if c.dep_ == "compound"][-1:], token))
        if head in words or pair in words or head.rstrip("s") in ("chairman", "chairwoman", "chairperson"):
            return _noun_phrase(token, drop=("new", "former", "current", "acting", "interim", "then"))
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
                if found is None and mod.lower_ not in tiers and sentence.is_name_word(mod):
                    found = sentence.proper_mention(mod, "ORG")  # "the Larkspur Enterprise plan"
                if found is not None and mod.lower_ not in tiers:
                    entity = found
                    continue
                if mod.lower_ not in tiers and not mod.text[:1].isupper():
                    continue  # "the 5-user Starter package", "our support tier"
                words.append(mod.text)
            if words and (words[-1].casefold() in tiers or words[-1][:1].isupper()):
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
        # the small model often hangs the drug on the wrong word of "5mg of Amlodipine
        # daily": look through the object's own phrase
        for other in token.subtree:
            if other.i != token.i and other.dep_ not in ("relcl", "acl") and self.rules.is_medication_word(other.text) \
                    and other.head.i in {t.i for t in token.subtree}:
                return other.text
        # a name followed by a dose: "Zestril 10mg", "Zestril 10 mg"
        nxt = token.nbor(1) if token.i + 1 < len(token.doc) else None
        if token.pos_ == "PROPN" and nxt is not None and (
            re.fullmatch(r"\d+(\.\d+)?(mg|mcg|µg|ml|g|iu)", nxt.lower_)
            or (nxt.like_num and nxt.i + 1 < len(token.doc) and nxt.nbor(1).lower_ in units)
        ):
            return token.text
        return None

    def _value(self, kind: str | None, token: "Token", sentence: _Sentence) -> tuple[str | None, int | None]:
        """A lexicon value at ``token`` for ``kind`` (title, tier, status, medication):
        ``(value, entity in the phrase)``."""
        if kind == "title":
            return self._title(token), None
        if kind == "tier":
            return self._tier(token, sentence)
        if kind == "status":
            return self._status(token), None
        if kind == "medication":
            return self._medication(_unwrap(token)), None
        return None, None

    # reading ----------------------------------------------------------------------------
    def read(self, doc: "Doc", offset: int, index: int, mentions: list["EntityMention"],
             context: Context | None = None, trace: list[Candidate] | None = None) -> list[Relation]:
        """Relations of one parsed sentence ``doc`` starting at drawer char ``offset``.

        ``index`` is the sentence's number in the drawer, ``mentions`` the drawer's entity
        mentions (drawer chars; a proper noun the recogniser missed is appended to it).
        ``context`` says who ``I`` is and what the note is about; candidates turned down
        are appended to ``trace`` when given. Returns the relations in reading order,
        without duplicates.
        """
        context = context or Context()
        sentence = _Sentence(doc, offset, index, mentions, context, self.rules, self.known_words)
        self._trace = trace
        self._sentence = sentence
        out: list[Relation] = []
        question = doc.text.rstrip().endswith("?")
        for token in doc:
            if token.pos_ not in ("VERB", "AUX") and token.dep_ != "ROOT" and token.tag_ not in ("VBN", "VBD", "VBG"):
                continue
            lemma = token.lemma_.casefold()
            candidates = list(self.rules.by_verb.get(lemma, []))
            if token.tag_ == "VBN" and _is_passive(token):
                candidates += [p for p in self.rules.verbless if p.object == "passive-verb"]
            if not candidates:
                continue
            how = "question" if question else mood(token)
            outer, self._trace = trace, [] if trace is not None else None
            accepted = 0
            for pattern in candidates:
                if pattern.particle and _particle(token) != pattern.particle:
                    continue
                mark = len(sentence.mentions)
                found = self._apply(pattern, token, sentence, ending=(how == "ending"))
                if how in ("fact", "ending"):
                    out.extend(found)
                    accepted += len(found)
                else:
                    for rel in found:
                        self._reject(rel.rule, rel.predicate, how, self._name(rel.subject, rel.subject_name),
                                     self._name(rel.object, rel.value))
                if not found or how not in ("fact", "ending"):
                    sentence.rollback(mark)
            if outer is not None:
                # a verb many patterns share ("be", "move"): a lexicon or type mismatch
                # is news only when no pattern of that verb read anything
                outer.extend(c for c in self._trace if not accepted or not c.reason.startswith(("object not a", "object type")))
            self._trace = outer
        if not question:
            out.extend(self._relational(sentence))
            for pattern in self.rules.verbless:
                if pattern.object == "appos":
                    out.extend(self._appos(pattern, sentence))
                elif pattern.object == "marker":
                    out.extend(self._marker(pattern, sentence))
        unique: dict[tuple, Relation] = {}
        for rel in out:
            key = (rel.predicate, rel.subject, rel.subject_name, rel.object, (rel.value or "").casefold(), rel.ending)
            unique.setdefault(key, rel)
        return list(unique.values())

    def _name(self, index: int | None, name: str | None) -> str | None:
        if name:
            return name
        if index is None:
            return None
        return self._sentence.mentions[index].name

    def _reject(self, rule: str, predicate: str, reason: str, subject: str | None = None, obj: str | None = None) -> None:
        if self._trace is None:
            return
        s = self._sentence
        self._trace.append(Candidate(s.index, s.offset, s.offset + len(s.doc.text), rule, predicate, reason, subject, obj))

    def _thing(self, token: "Token", sentence: _Sentence, label: str, *, lower_ok: bool = False) -> int | None:
        """The mention ``token`` names, as a subject, an object or a possessor: the
        recogniser's mention at the head word (made whole when it cut a name), a group
        named by its phrase ("the Search team", "the Kraków office"), the name of a kind
        noun ("the Falcon project" is Falcon), a proper noun the recogniser missed, or a
        phrase naming a particular thing ("the Q4 budget sheet"); None for a date, a
        number or a common noun. ``lower_ok`` accepts a group in lower case ("the platform
        team")."""
        if token.ent_type_ in NOT_THINGS and sentence.mention_of(token) is None:
            return None
        found = sentence.mention_of(token)
        if found is not None and sentence.mentions[found].label in NOT_THINGS:
            return None
        low = token.lemma_.casefold()
        if found is None and low in GROUP_NOUNS:
            found = sentence.phrase_mention(token, "ORG", lower_ok=lower_ok)
        if found is not None:
            return sentence.proper_mention(token, label) if sentence.is_name_word(token) else found
        if low in KIND_NOUNS:
            for child in token.lefts:
                if child.dep_ in ("compound", "nmod", "amod"):
                    found = sentence.mention_of(child)
                    if found is None and sentence.is_name_word(child):
                        found = sentence.proper_mention(child, "ORG")
                    if found is not None and sentence.mentions[found].label not in NOT_THINGS:
                        return found
        found = sentence.proper_mention(token, label)
        if found is not None:
            return found
        if token.pos_ == "NOUN" and _names_something(token):  # "the Tally forecasting model"
            return sentence.phrase_mention(token, "PRODUCT")
        return None

    def _resolve(self, token: "Token | None", sentence: _Sentence, label: str, *, lower_ok: bool = True
                 ) -> _Subject | None:
        """Who ``token`` names: a mention or a pronoun's referent (see :meth:`_thing`)."""
        if token is None:
            return None
        low = token.lower_
        if low in PERSON_PRONOUNS:
            found = sentence.nearest(token, ("PERSON",))
            return _Subject(found, inferred=True) if found is not None else None
        if low in GROUP_PRONOUNS:
            found = sentence.nearest(token, ORG_LIKE, team=True)
            return _Subject(found, inferred=True) if found is not None else None
        if low in FIRST_PERSON:
            speaker = sentence.context.speaker_at(sentence.offset + token.idx) or sentence.context.owner
            return _Subject(None, speaker, "PERSON", inferred=True) if speaker else None
        if token.pos_ == "PRON":
            return None
        found = self._thing(token, sentence, label, lower_ok=lower_ok)
        if found is None:
            found = sentence.mention_in(token)
            if found is not None and sentence.mentions[found].label in NOT_THINGS:
                found = None
        return _Subject(found) if found is not None else None

    def _implied(self, verb: "Token", sentence: _Sentence) -> _Subject | None:
        """The writer of a sentence without a subject in a journal or a chat line ("Quit
        Falabella today.", "Mara: Started at Monzo"): the verb opens the sentence."""
        if verb.dep_ != "ROOT" or _child(verb, *SUBJECT_DEPS) is not None or verb.tag_ not in ("VBD", "VBN", "VBZ"):
            return None
        opening = [t for t in sentence.doc if not t.is_space and not t.is_punct]
        speaker = sentence.context.speaker_at(sentence.offset + verb.idx)
        if speaker:
            line_start = next(start for start, _, name in sentence.context.speakers
                              if start <= sentence.offset + verb.idx and name == speaker)
            opening = [t for t in opening if sentence.offset + t.idx > line_start + len(speaker)]
        lead = [t for t in opening if t.i < verb.i]
        if any(t.pos_ not in ("ADV", "INTJ", "NUM") and t.ent_type_ not in ("DATE", "TIME") for t in lead):
            return None
        who = speaker or sentence.context.owner
        return _Subject(None, who, "PERSON", inferred=True) if who else None

    def _subjects(self, pattern: Pattern, verb: "Token", sentence: _Sentence, obj: "Token | None") -> list[_Subject]:
        """The fact's subjects under ``pattern`` (each conjunct of a coordinated subject):
        the first place in ``pattern.subject`` that names something."""
        label = next((t for t in (pattern.subject_types or self.rules.subject_types.get(pattern.predicate, ()))
                      if t not in ("*", "VALUE")), "PERSON")
        unresolved = None
        for where in pattern.subject:
            tokens: list = []
            if where in ("nsubj", "dobj"):
                token = _logical(verb, where)
                if token is not None and self._noun_readings(token) and token.pos_ == "NOUN":
                    token = None  # "Project lead for Osprey changed…": read by _relational
                if token is not None and (obj is None or token.i != obj.i):
                    tokens = _conjuncts(token)
                elif token is None and where == "nsubj" and not _is_passive(verb):
                    implied = self._implied(verb, sentence)
                    if implied is not None:
                        return [implied]
            elif where == "dative":
                token = _child(verb, "dative")
                if token is not None and token.pos_ == "ADP":
                    token = _child(token, "pobj")
                tokens = [token] if token is not None else []
            elif where.startswith("prep:"):
                tokens = _prep_objects(verb, (where[5:],))
            elif where == "poss" and obj is not None:
                tokens = [c for c in obj.children if c.dep_ == "poss"]
            elif where == "compound" and obj is not None:
                head_at = sentence.offset + obj.idx
                for mod in obj.lefts:
                    found = sentence.mention_of(mod) if mod.dep_ in ("compound", "nmod") else None
                    if found is not None and sentence.mentions[found].label not in NOT_THINGS \
                            and not sentence.mentions[found].start <= head_at < sentence.mentions[found].end:
                        return [_Subject(found)]
                continue
            elif where == "person":  # the nearest person before the verb (an unnamed patient)
                found = sentence.nearest(verb, ("PERSON",))
                if found is not None:
                    return [_Subject(found, inferred=True)]
                continue
            resolved = [s for s in (self._resolve(t, sentence, label) for t in tokens) if s is not None]
            if pattern.subject_types:
                resolved = [s for s in resolved if (s.label if s.index is None else
                                                    sentence.mentions[s.index].label) in pattern.subject_types]
            if resolved:
                return resolved
            if tokens and unresolved is None:
                unresolved = tokens[0]
        if unresolved is not None:
            self._reject(pattern.rule, pattern.predicate, "subject not an entity", unresolved.text,
                         obj.text if obj is not None else None)
        return []

    def _objects(self, pattern: Pattern, verb: "Token") -> list["Token"]:
        mode = pattern.object
        if pattern.with_prep and not _prep_objects(verb, (pattern.with_prep,)):
            return []
        if mode == "dobj":
            found = _logical(verb, "dobj")
            return [found] if found is not None else []
        if mode == "nsubj-or-prep":
            found = _logical(verb, "nsubj")
            return [found] if found is not None else _prep_objects(verb, pattern.preps)
        if mode == "prep":
            return _prep_objects(verb, pattern.preps)
        if mode == "dobj-or-prep":
            found = _logical(verb, "dobj")
            return [found] if found is not None else _prep_objects(verb, pattern.preps)
        if mode == "attr":
            found = _child(verb, "attr")
            return [found] if found is not None else []
        if mode == "oprd-or-prep":
            found = _child(verb, "oprd", "attr", "xcomp")
            if found is None and _is_passive(verb):  # "was appointed chief financial officer"
                found = next((c for c in verb.children if c.dep_ in ("dobj", "npadvmod") and c.pos_ in ("NOUN", "PROPN")), None)
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
            return [verb] if not _prep_objects(verb, ("by",)) else []  # with an agent it is an event
        if mode == "clause":  # "agreed to fund X" is a decision, "I agree this would…" an opinion
            found = _child(verb, "xcomp") if verb.lemma_ == "agree" else _child(verb, "ccomp", "xcomp")
            if found is None:
                return _prep_objects(verb, ("on", "upon"))
            return [found]
        return []

    def _object(self, pattern: Pattern, verb: "Token", obj: "Token", sentence: _Sentence
                ) -> tuple[int | None, str | None, int | None, str | None]:
        """``(object mention, value, subject hint, rejection reason)`` of one object token."""
        if pattern.value:
            if pattern.value == "status" and pattern.object == "passive-verb" and not _child(verb, "auxpass"):
                return None, None, None, "not a passive"
            value, hint = self._value(pattern.value, obj, sentence)
            if value is None and pattern.any_value and obj.pos_ == "NOUN" and not obj.ent_type_ \
                    and sentence.mention_of(obj) is None:
                value = _noun_phrase(obj, drop=TITLE_DROP)  # "employed … as an actuary"
            return None, value, hint, None if value else f"object not a {pattern.value}"
        obj = _unwrap(obj)
        if obj.ent_type_ in NOT_THINGS and sentence.mention_of(obj) is None:
            return None, None, None, "object is a date or a number"
        if obj.lemma_.casefold() in self.rules.values.get("tier_nouns", ()) and self._tier(obj, sentence)[0]:
            return None, None, None, "a plan tier"  # "bought 40 seats of the Enterprise edition": a plan
        label = next((t for t in (pattern.object_types or self.rules.object_types.get(pattern.predicate, ()))
                      if t not in ("*", "VALUE", "CONCEPT")), "ORG")
        mention = None
        if obj.lower_ in ("them", "it", "their", "its") and pattern.entity:  # "has played for them since 2017"
            resolved = self._resolve(obj, sentence, label)
            mention = resolved.index if resolved is not None else None
        elif obj.pos_ != "PRON":
            mention = self._thing(obj, sentence, label, lower_ok=pattern.team is True)
            if mention is None and obj.pos_ == "NOUN" and _child(obj, "appos") is not None:
                # "reports to the CTO, Arjun Mehta": the name in apposition
                mention = self._thing(_child(obj, "appos"), sentence, label)
        if mention is None:
            if pattern.entity or obj.lower_ in PRONOUNS or obj.pos_ == "PRON":
                return None, None, None, "object not an entity"
            value = _clause_text(obj) if pattern.object == "clause" else _noun_phrase(obj)
            if not value or len(value) < 2:
                return None, None, None, "no object"
            if pattern.proper and not _names_something(obj) and not (
                    pattern.predicate == "owns" and any(c.lower_ == "the" for c in obj.lefts)
                    and any(c.dep_ == "compound" for c in obj.lefts)):  # "owns the billing service"
                return None, None, None, "object names nothing in particular"
            return None, value, None, None
        found_label = sentence.mentions[mention].label
        if pattern.object == "prep" and obj.head.lower_ != "from":
            # "moved from Oslo to Bergen": the place left tells what kind the new one is,
            # whatever the recogniser made of it
            source = next((sentence.mention_of(t) for t in _prep_objects(verb, ("from",))
                           if sentence.mention_of(t) is not None), None)
            if source is not None and sentence.mentions[source].label in ("GPE", "LOC", "ORG"):
                source_label = sentence.mentions[source].label
                if source_label in ("GPE", "LOC") or found_label in ("GPE", "LOC"):
                    found_label = "GPE" if "GPE" in (source_label, found_label) or "LOC" in (source_label, found_label) \
                        else found_label
        if pattern.object_types and found_label not in pattern.object_types:
            return None, None, None, f"object type {found_label} not {'/'.join(pattern.object_types)}"
        if pattern.not_object_types and found_label in pattern.not_object_types:
            return None, None, None, f"object type {found_label}"
        if pattern.team is not None:
            words = set(sentence.mentions[mention].name.casefold().split())
            if bool(words & (TEAM_WORDS | GROUP_NOUNS)) != pattern.team:
                return None, None, None, "a team" if pattern.team is False else "not a team"
        return mention, None, None, None

    def _apply(self, pattern: Pattern, verb: "Token", sentence: _Sentence, *, ending: bool = False) -> list[Relation]:
        objects = self._objects(pattern, verb)
        if not objects:
            if pattern.optional and (pattern.ending or ending):  # "Ines retired": whatever it was ends
                return [self._relation(pattern, sentence, s, None, None, verb, ending=True)
                        for s in self._subjects(pattern, verb, sentence, None)]
            return []
        out = []
        conjoined = [] if pattern.object == "clause" else [c for c in objects[0].children if c.dep_ == "conj"]
        resolved = []
        for obj in objects[:1] + conjoined:
            object_mention, value, subject_hint, reason = self._object(pattern, verb, obj, sentence)
            if reason:
                self._reject(pattern.rule, pattern.predicate, reason, None, obj.text)
                continue
            subjects = self._subjects(pattern, verb, sentence, obj)
            if not subjects and subject_hint is not None:
                subjects = [_Subject(subject_hint)]
            resolved.append((obj, object_mention, value, subjects))
        respectively = any(c.lower_ == "respectively" for c in verb.subtree)
        for n, (obj, object_mention, value, subjects) in enumerate(resolved):
            if respectively:  # "Arjun and Meera work at Infosys and Wipro respectively"
                if len(subjects) != len(resolved):
                    return []
                subjects = subjects[n:n + 1]
            for subject in subjects:
                is_ending = pattern.ending or ending
                if pattern.value == "title":
                    if any(c.dep_ == "poss" and c.lower_ not in FIRST_PERSON for c in obj.children) \
                            and self._noun_readings(obj):
                        continue  # "Ola is her manager": a relational noun, read by _relational
                    # "CFO of Umbrella": the role, and the employer (or what a head title leads)
                    if self._subject_fits(pattern, subject, sentence):
                        for rel in self._title_facts(pattern, obj, sentence, subject, verb, ending=is_ending,
                                                     value=value):
                            out.append(rel)
                            out.extend(self._transition(pattern, verb, sentence, subject, rel))
                    continue
                rel = self._fact(pattern, sentence, subject, object_mention, value, verb, ending=is_ending)
                if rel is None:
                    continue
                out.append(rel)
                out.extend(self._transition(pattern, verb, sentence, subject, rel))
        return out

    def _fact(self, pattern, sentence: _Sentence, subject: _Subject, object_mention, value, verb, *, ending: bool
              ) -> Relation | None:
        """The relation of one subject and object, after the checks every fact passes."""
        if subject.index is not None and subject.index == object_mention:
            return None
        if not self._subject_fits(pattern, subject, sentence):
            self._reject(pattern.rule, pattern.predicate, "subject type does not fit", self._subject_text(subject), value)
            return None
        subject_name = subject.name
        if pattern.value == "tier" and subject.index is not None:  # "Larkspur Enterprise" is Larkspur on Enterprise
            tiers = self.rules.values.get("tier", frozenset())
            words = sentence.mentions[subject.index].name.split()
            if words[-1].casefold() in tiers:
                if len(words) == 1:
                    return None
                subject_name, value = " ".join(words[:-1]), value or words[-1]
        if object_mention is not None and subject.index is not None and \
                sentence.mentions[subject.index].key == sentence.mentions[object_mention].key:
            return None
        if subject.name is None and subject_name is not None:
            subject = replace(subject, name=subject_name, label=sentence.mentions[subject.index].label)
        return self._relation(pattern, sentence, subject, object_mention, value, verb, ending=ending)

    def _old_values(self, pattern: Pattern, verb: "Token") -> list["Token"]:
        """Where a transition names the value it leaves: "from A" ("moved from Oslo to
        Bergen"), the direct object of a swap ("replaced Airflow with Dagster", "swapped
        Slack for Discord"), "instead of A"."""
        tokens = []
        if pattern.old.startswith("prep:"):
            tokens = _prep_objects(verb, (pattern.old[5:],))
        elif pattern.old == "dobj":
            found = _logical(verb, "dobj")
            tokens = [found] if found is not None else []
        for child in verb.children:  # "reports to Hugo instead of Amélie"
            if child.lower_ == "instead":
                tokens += [g for p in child.children if p.lower_ == "of" for g in p.children if g.dep_ == "pobj"]
            if child.dep_ == "prep" and child.lower_ == "of" and any(g.lower_ == "instead" for g in child.lefts):
                tokens += [g for g in child.children if g.dep_ == "pobj"]
        return tokens

    def _transition(self, pattern: Pattern, verb: "Token", sentence: _Sentence, subject: _Subject,
                    rel: Relation) -> list[Relation]:
        """The value a transition or hand-over ends: the ``from`` of "from A to B", the
        previous holder of "took over Falcon from Ana" / "handed Falcon over to Bo"."""
        out = []
        if pattern.previous:
            where = pattern.previous
            tokens = _prep_objects(verb, (where[5:],)) if where.startswith("prep:") else (
                [_logical(verb, where)] if _logical(verb, where) is not None else [])
            label = sentence.mentions[rel.subject].label if rel.subject is not None else "PERSON"
            for token in tokens:
                previous = self._resolve(token, sentence, label)
                if previous is not None and (previous.index, previous.name) != (subject.index, subject.name) \
                        and previous.index != rel.object:
                    out.append(replace(rel, subject=previous.index, subject_name=previous.name,
                                       subject_label=previous.label, ending=True,
                                       evidence="inferred" if previous.inferred else rel.evidence))
        elif pattern.transition and not rel.ending and self.rules.kinds.get(pattern.predicate) == "state" \
                and pattern.object in ("prep", "dobj-or-prep") and pattern.value != "title":
            for token in self._old_values(pattern, verb):
                if rel.object is not None and sentence.mention_of(token) == rel.object:
                    continue
                object_mention, value, _, reason = self._object(pattern, verb, token, sentence)
                if reason is None and (object_mention != rel.object or value != rel.value):
                    out.append(replace(rel, object=object_mention, value=value, ending=True))
        return out

    def _subject_text(self, subject: _Subject) -> str | None:
        return subject.name or (self._sentence.mentions[subject.index].name if subject.index is not None else None)

    def _subject_fits(self, pattern: Pattern, subject: _Subject, sentence: _Sentence) -> bool:
        """NER types are noisy ("Beacon" the app is often a PERSON, "Marcus Webb" a GPE), so
        the registry's subject types only rule out a pronoun of the wrong kind (a he/she
        where the predicate takes no persons: a status)."""
        if not subject.inferred or subject.index is None:
            return True
        allowed = self.rules.subject_types.get(pattern.predicate, ("*",))
        label = sentence.mentions[subject.index].label
        if "*" in allowed:
            return True
        if label == "PERSON":
            return "PERSON" in allowed
        return any(t in allowed for t in ORG_LIKE + ("CONCEPT",)) or label in allowed

    def _relation(self, pattern, sentence: _Sentence, subject: _Subject, object_mention, value, verb, *,
                  ending: bool = False, rule: str | None = None, predicate: str | None = None,
                  kind: str | None = None, clause: tuple[int, int] | None = None) -> Relation:
        dating: tuple[int, ...] = ()
        if clause is None and verb is not None:
            clause = _clause_span(verb)
            dating = tuple(sentence.offset + t.idx for t in _dating_tokens(verb))
        elif clause is None:
            clause = (0, 0)
        inferred = subject.inferred
        confidence = INFERRED_CONFIDENCE if inferred else (STATED_CONFIDENCE if object_mention is not None else VALUE_CONFIDENCE)
        # the cited span: the sentence (one block of it), without surrounding space
        text = sentence.doc.text
        first = len(text) - len(text.lstrip())
        last = len(text.rstrip())
        predicate = predicate or pattern.predicate
        return Relation(
            date_tokens=dating,
            predicate=predicate, subject=subject.index, object=object_mention,
            value=value[:MAX_VALUE_CHARS] if value else None,
            start=sentence.offset + first, end=sentence.offset + last,
            clause_start=sentence.offset + clause[0], clause_end=sentence.offset + clause[1],
            sentence=sentence.index, rule=rule or pattern.rule, evidence="inferred" if inferred else "stated",
            confidence=confidence, kind=kind or self.rules.kinds.get(predicate, pattern.kind if pattern else "state"),
            past=verb is not None and _is_past(verb), subject_name=subject.name, subject_label=subject.label,
            ending=ending,
        )

    # relational nouns -------------------------------------------------------------------
    def _possessor(self, noun: "Token", sentence: _Sentence) -> tuple[_Subject | None, "Token | None"]:
        """Whose ``noun`` is: "her manager", "Initrode's plan", "the lead of Falcon", "the
        Falcon lead", "Tariq, whose manager is…" — ``(the possessor, its token)``."""
        for child in noun.children:
            if child.dep_ == "poss":
                if child.lower_ == "whose":  # the noun the relative clause hangs on
                    clause = noun.head
                    while clause.dep_ not in ("relcl", "ROOT") and clause.head.i != clause.i:
                        clause = clause.head
                    owner = clause.head if clause.dep_ == "relcl" else None
                    return (self._resolve(owner, sentence, "PERSON"), owner) if owner is not None else (None, None)
                return self._resolve(child, sentence, "PERSON"), child
        for child in noun.children:
            if child.dep_ == "prep" and child.lower_ in ("of", "for", "at"):
                for pobj in child.children:
                    if pobj.dep_ == "pobj":
                        found = self._resolve(pobj, sentence, "ORG")
                        if found is None and any(r.possessor == "object" for r in self._noun_readings(noun)) \
                                and pobj.pos_ == "NOUN" and any(c.dep_ == "compound" for c in pobj.lefts):
                            # "ownership of the billing service": a thing named by its phrase
                            index = sentence.phrase_mention(pobj, "PRODUCT", lower_ok=True)
                            found = _Subject(index) if index is not None else None
                        return found, pobj
        for child in noun.lefts:
            if child.dep_ in ("compound", "nmod") and sentence.mention_of(child) is not None \
                    and sentence.mentions[sentence.mention_of(child)].label not in NOT_THINGS:
                return _Subject(sentence.mention_of(child)), child
        return None, None

    def _noun_readings(self, noun: "Token") -> list[RelationalNoun]:
        words = [noun.lower_, noun.lemma_.casefold()]
        mods = [c for c in noun.lefts if c.dep_ in ("compound", "amod")]
        if mods:
            words.insert(0, f"{mods[-1].lower_} {noun.lower_}")
        if len(mods) > 1:
            words.insert(0, f"{mods[-2].lower_} {mods[-1].lower_} {noun.lower_}")
        for word in words:
            if word in self.rules.nouns:
                return self.rules.nouns[word]
        return []

    def _relational(self, sentence: _Sentence) -> list[Relation]:
        """Copulas, appositions and transitions with a relational noun: "His manager is
        Ola Berg", "Ola Berg is her manager", "The lead of Falcon is Ines", "Her support
        tier is Premium", "Harbor's status is in progress", "Ines, Falcon's lead, …", "her
        manager, Ola Berg, …", "Project lead for Osprey changed from Hugo to Aylin";
        and values named with their owner: "Quill Media's Business plan", "Grandpa Joe's
        Levothyroxine"."""
        out = []
        for token in sentence.doc:
            pairs = []  # (relational noun token, value token, verb, old value token)
            if token.lemma_ in ("be", "remain", "become", "stay") and token.pos_ in ("AUX", "VERB"):
                subj = _child(token, "nsubj")
                attr = _child(token, "attr", "acomp")
                if subj is None:
                    continue
                if attr is None:  # "Harbor's status is in progress"
                    status = next(iter(_prep_objects(token, ("in", "on"))), None)
                    if status is not None and self._noun_readings(subj):
                        pairs.append((subj, status, token, None))
                    if not pairs:
                        continue
                else:
                    if self._noun_readings(subj):
                        pairs.append((subj, attr, token, None))
                    if self._noun_readings(attr):
                        pairs.append((attr, subj, token, None))
            elif token.lemma_ in ("change", "switch", "pass", "move", "go", "transfer", "shift") and \
                    token.pos_ in ("VERB", "AUX"):
                subj = _child(token, "nsubj", "nsubjpass")
                new = next(iter(_prep_objects(token, ("to",))), None)
                if subj is not None and new is not None and self._noun_readings(subj):
                    pairs.append((subj, new, token, next(iter(_prep_objects(token, ("from",))), None)))
            elif token.tag_ == "VBN" and _child(token, "auxpass") is not None:
                subj = _child(token, "nsubjpass")  # "The status of Kestrel is blocked"
                if subj is not None and self._noun_readings(subj):
                    pairs.append((subj, token, _child(token, "auxpass"), None))
            elif token.dep_ == "appos":
                if self._noun_readings(token):
                    pairs.append((token, token.head, None, None))
                if self._noun_readings(token.head):
                    pairs.append((token.head, token, None, None))
            for noun, value_token, verb, old in pairs:
                if self._title_word(noun) and not any(c.dep_ == "poss" for c in noun.children) and old is None \
                        and noun.dep_ != "nsubj":
                    continue  # "Ines is the chair of the Board": a title, read with its role
                if verb is not None:
                    how = mood(verb)
                    if how not in ("fact", "ending"):
                        self._reject("relational-noun", noun.lower_, how)
                        continue
                else:
                    how = "fact"
                mark = len(sentence.mentions)
                possessor, possessor_token = self._possessor(noun, sentence)
                if possessor is not None and possessor.inferred and possessor.index is not None \
                        and possessor_token is not None and possessor_token.lower_ in PERSON_PRONOUNS:
                    value = sentence.mention_of(value_token)
                    if value is not None and sentence.mentions[value].key == sentence.mentions[possessor.index].key:
                        # "Ola Berg is her manager": "her" is someone before Ola Berg
                        other = sentence.nearest(value_token, ("PERSON",), before=sentence.mentions[value].start,
                                                 exclude=sentence.mentions[value].key)
                        possessor = _Subject(other, inferred=True) if other is not None else None
                if possessor is None and self._title_word(noun) and noun.dep_ == "nsubj" and (
                        possessor_token is None or possessor_token.lower_ in FIRST_PERSON):
                    # "Our account manager at Contoso is Priyanka Sethi": her role
                    person = sentence.proper_mention(value_token, "PERSON")
                    if person is not None:
                        out.extend(self._title_facts(Pattern("role", "noun-title", (), "attr"), noun, sentence,
                                                     _Subject(person), verb))
                    continue
                if possessor is None:
                    sentence.rollback(mark)
                    continue
                facts = self._noun_fact(noun, value_token, possessor, possessor_token, verb, sentence,
                                        ending=how == "ending")
                if not facts:
                    sentence.rollback(mark)
                out.extend(facts)
                if old is not None:  # "changed from Hugo to Aylin": Hugo's fact ends
                    for rel in self._noun_fact(noun, old, possessor, possessor_token, verb, sentence, ending=True):
                        out.append(rel)
        out.extend(self._owned_values(sentence))
        return out

    def _owned_values(self, sentence: _Sentence) -> list[Relation]:
        """A plan tier or a medication named with its owner states the fact in passing:
        "Quill Media's 2-year Business plan renews in June" (plan Business), "Grandpa
        Joe's Levothyroxine went up" (takes Levothyroxine), unless its clause is no fact."""
        out = []
        tier_nouns = self.rules.values.get("tier_nouns", frozenset())
        for token in sentence.doc:
            owner = next((c for c in token.children if c.dep_ == "poss"), None)
            if owner is None or owner.lower_ == "whose" or token.dep_ not in ("nsubj", "nsubjpass"):
                continue  # as an object its verb says what happens to it ("cancelled their Pro plan")
            clause = token.head
            while clause.pos_ not in ("VERB", "AUX") and clause.head.i != clause.i:
                clause = clause.head
            if clause.pos_ in ("VERB", "AUX") and mood(clause) != "fact":
                continue
            if token.lemma_.casefold() in tier_nouns:
                predicate, (value, _) = "plan", self._tier(token, sentence)
            elif self.rules.is_medication_word(token.text):
                predicate, value = "takes", token.text
            else:
                continue
            if not value or predicate not in self.rules.kinds:
                continue
            who = self._resolve(owner, sentence, "ORG" if predicate == "plan" else "PERSON")
            if who is None or (predicate == "takes" and who.index is not None
                               and sentence.mentions[who.index].label not in ("PERSON",)):
                continue
            out.append(self._relation(Pattern(predicate, f"owned-{predicate}", (), "poss"), sentence, who, None,
                                      value, None, clause=(token.idx, token.idx + len(token.text))))
        return out

    def _noun_fact(self, noun, value_token, possessor: _Subject, possessor_token, verb, sentence: _Sentence, *,
                   ending: bool = False) -> list[Relation]:
        label = sentence.mentions[possessor.index].label if possessor.index is not None else (possessor.label or "PERSON")
        out = []
        for reading in self._noun_readings(noun):
            if reading.possessor_types and label not in reading.possessor_types:
                continue
            if reading.exclude_types and label in reading.exclude_types:
                continue
            kind = self.rules.value_kinds.get(reading.predicate)
            value, mention = None, None
            if kind and reading.possessor == "subject":
                value, _ = self._value(kind, value_token, sentence)
                for other in value_token.subtree:  # "Initrode's plan is Pro, 25 seats"
                    if value is not None or other.i == value_token.i:
                        continue
                    value, _ = self._value(kind, other, sentence)
                if value is None and kind == "tier" and value_token.text[:1].isupper():
                    value = value_token.text
                if value is None and kind == "medication" and value_token.pos_ == "PROPN":
                    value = value_token.text
                if value is None and kind == "title" and value_token.pos_ in ("NOUN", "PROPN"):
                    value = _noun_phrase(value_token, drop=TITLE_DROP)
            else:
                other = "PERSON" if reading.possessor == "object" else next(
                    (t for t in self.rules.object_types.get(reading.predicate, ()) if t not in ("*", "VALUE")), "ORG")
                resolved = self._resolve(value_token, sentence, other)
                if resolved is not None and resolved.index is not None:
                    mention = resolved.index
            if value is None and mention is None:
                self._reject(f"noun-{reading.word}", reading.predicate, "value not recognised", self._subject_text(possessor),
                             value_token.text)
                continue
            pattern = Pattern(reading.predicate, f"noun-{reading.word.replace(' ', '-')}", (), "attr")
            if reading.possessor == "subject":
                rel = self._relation(pattern, sentence, possessor, mention, value, verb, ending=ending)
            else:
                if possessor.index is None or mention is None:
                    continue
                rel = self._relation(pattern, sentence, _Subject(mention), possessor.index, None, verb, ending=ending)
                title = _plain_title(noun)
                if self._title_word(noun) and sentence.mentions[possessor.index].label in ORG_LIKE \
                        and noun.lower_ not in ("lead", "leader", "head", "owner", "manager", "coordinator"):
                    # "Its founder is Goran", "Its chief executive is Rachel": also their role
                    out.append(self._relation(pattern, sentence, _Subject(mention), None, title, verb,
                                              ending=ending, predicate="role", kind="state"))
            if rel.subject is not None and rel.object is not None and \
                    sentence.mentions[rel.subject].key == sentence.mentions[rel.object].key:
                continue
            out.append(rel)
        return out

    def _appos(self, pattern: Pattern, sentence: _Sentence) -> list[Relation]:
        """A title beside a person: "Priya Raman, Director of Engineering, …", "Ola Berg,
        the new CFO of Umbrella" (the role, and the employer or, for a head title, what
        the person leads), "Our cardiologist, Dr. Sunita Rao", "Anders Holm (CTO)",
        "Carmen Vidal (VP Sales, Glovo)"."""
        out = []
        for token in sentence.doc:
            if token.dep_ != "appos":
                continue
            for person_token, title_token in ((token.head, token), (token, token.head)):
                after = title_token.nbor(1) if title_token.i + 1 < len(sentence.doc) else None
                if after is not None and after.text == ":":
                    continue  # "Owner: Ade Bello" is a key–value line
                if not self._title_word(title_token) or (sentence.mention_of(title_token) is not None and
                                                         not self.rules.is_value_word(title_token.text)):
                    continue
                if any(c.dep_ == "poss" and c.lower_ not in FIRST_PERSON for c in title_token.children) \
                        and self._noun_readings(title_token):
                    continue  # "her manager, Ola Berg": a relation, read by _relational ("our manager": a role)
                subject = sentence.proper_mention(person_token, "PERSON")
                if subject is None or sentence.mentions[subject].label in NOT_THINGS or \
                        sentence.mentions[subject].label in ("GPE", "LOC", "FAC", "EVENT", "WORK_OF_ART", "LAW"):
                    continue
                out.extend(self._title_facts(pattern, title_token, sentence, _Subject(subject), None,
                                             clause=_subtree_span(title_token)))
        out.extend(self._parenthetical(pattern, sentence))
        return out

    def _parenthetical(self, pattern: Pattern, sentence: _Sentence) -> list[Relation]:
        """"Anders Holm (CTO)", "Carmen Vidal (VP Sales, Glovo)": a title, and maybe an
        employer, in brackets right after a person's name."""
        out = []
        text = sentence.doc.text
        for index, mention in enumerate(list(sentence.mentions)):
            if mention.label != "PERSON":
                continue
            at = mention.end - sentence.offset
            last = next((t for t in sentence.doc if t.idx < at <= t.idx + len(t.text)), None)
            if last is not None:  # a name the recogniser cut ("Holm" of "Anders Holm")
                index = sentence.proper_mention(last, "PERSON") or index
            if not 0 <= at < len(text):
                continue
            found = _BRACKET.match(text, at)
            if found is None:
                continue
            parts = [p.strip() for p in found.group(1).split(",")]
            words = parts[0].casefold().split()
            titles = self.rules.values.get("title", frozenset())
            if not words or not (words[-1] in titles or words[0] in titles or parts[0].casefold() in titles):
                continue
            clause = (found.start(), found.end())
            out.append(self._relation(pattern, sentence, _Subject(index), None, parts[0], None, predicate="role",
                                      kind="state", clause=clause))
            if len(parts) > 1 and parts[1][:1].isupper() and len(parts[1].split()) <= 4:
                start = found.start(1) + found.group(1).index(parts[1])
                org = next((i for i, m in enumerate(sentence.mentions)
                            if m.start <= sentence.offset + start < m.end), None)
                if org is None:
                    from palace.nlp.extraction import EntityMention

                    sentence.mentions.append(EntityMention(sentence.offset + start, sentence.offset + start + len(parts[1]),
                                                           parts[1], parts[1], "ORG", sentence.index))
                    org = len(sentence.mentions) - 1
                out.append(self._relation(pattern, sentence, _Subject(index), org, None, None, predicate="works_at",
                                          kind="state", rule=f"{pattern.rule}-of", clause=clause))
        return out

    def _title_word(self, token: "Token") -> bool:
        words = self.rules.values.get("title", frozenset())
        head_titles = self.rules.values.get("head_titles", frozenset())
        mods = [c for c in token.lefts if c.dep_ in ("compound", "amod")]
        pair = f"{mods[-1].lower_} {token.lower_}" if mods else token.lower_
        return token.lower_ in words or pair in words or token.lower_ in head_titles or pair in head_titles \
            or token.lower_.rstrip("s") in ("chairman", "chairwoman", "chairperson")

    def _title_facts(self, pattern: Pattern, token: "Token", sentence: _Sentence, subject: _Subject, verb,
                     *, ending: bool = False, value: str | None = None,
                     clause: tuple[int, int] | None = None) -> list[Relation]:
        """The role a title phrase states, and what its complements add: "CFO of Umbrella"
        and "CFO at Umbrella" also work at Umbrella, "chair of the Board" and "product lead
        for Checkout" also lead it, "Head of Sales" leads Sales. A description is no role
        ("a Nigerian computer scientist")."""
        if not self._title_word(token):
            if value is None:
                return []
            return [self._relation(pattern, sentence, subject, None, value, verb, ending=ending, predicate="role",
                                   kind="state", clause=clause)]
        head_titles = self.rules.values.get("head_titles", frozenset())
        if any(c.lower_ in ("a", "an") for c in token.lefts) and any(
                c.ent_type_ in ("NORP", "GPE") or (c.tag_ == "JJ" and c.text[:1].isupper()) for c in token.lefts):
            return []  # "is a Nigerian computer scientist": a description
        mods = [c for c in token.lefts if c.dep_ in ("compound", "amod", "nmod") and c.lower_ not in TITLE_DROP
                and c.ent_type_ not in ("NORP", "GPE") and not (c.tag_ == "JJ" and c.text[:1].isupper())]
        title_tokens = sorted({t for m in mods for t in m.subtree if not t.is_punct or t.text == "-"} | {token},
                              key=lambda t: t.i)
        title = " ".join(t.text for t in title_tokens)
        full_title = title.casefold()
        is_head = full_title in head_titles or (token.lower_ in head_titles and not mods) or \
            token.lower_.rstrip("s") in ("chairman", "chairwoman", "chairperson") or \
            (mods and mods[-1].lower_ in ("chief", "executive", "managing", "general", "head", "vice", "deputy", "co"))
        employers, led, department = [], [], None
        preps = [c for c in token.children if c.dep_ == "prep"]
        if verb is not None:
            preps += [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "at"]
        for prep in preps:
            for pobj in (g for g in prep.children if g.dep_ == "pobj"):
                # "of Engineering", "of Digital Affairs": a department, part of the title
                is_department = _noun_phrase(pobj).casefold() in self.rules.values.get("departments", frozenset())
                thing = None if (prep.lower_ == "of" and is_department) else self._thing(pobj, sentence, "ORG")
                named = thing is not None and sentence.mentions[thing].label in ORG_LIKE + ("GPE", "PERSON")
                if prep.lower_ == "at" and thing is not None:
                    employers.append(thing)
                elif prep.lower_ == "of" and named:
                    if sentence.mentions[thing].label in ("GPE", "LOC") and (
                            token.lower_ in self.rules.values.get("civic_titles", frozenset())
                            or full_title in self.rules.values.get("civic_titles", frozenset())):
                        department = pobj  # "Mayor of Trondheim": the place is part of the title
                    else:
                        (led if is_head else employers).append(thing)
                elif prep.lower_ == "of":  # "Director of Engineering": a department, part of the title
                    department = pobj
                elif prep.lower_ in ("for", "on") and is_head and thing is not None:
                    led.append(thing)
        if department is not None:
            for prep in department.children:  # "Head of Partnerships at Nubank"
                if prep.dep_ == "prep" and prep.lower_ == "at":
                    employers += [t for t in (self._thing(g, sentence, "ORG") for g in prep.children if g.dep_ == "pobj")
                                  if t is not None]
            title = f"{title} of {_noun_phrase(department, drop=TITLE_DROP)}"
            if is_head and not led:
                thing = sentence.phrase_mention(department, "ORG", lower_ok=True) or sentence.proper_mention(department, "ORG")
                if thing is None and department.pos_ in ("NOUN", "PROPN"):
                    first = last = department.i
                    thing = sentence._add_mention(first, last, "ORG")
                if thing is not None:
                    led.append(thing)
        out = [self._relation(pattern, sentence, subject, None, title, verb, ending=ending, predicate="role",
                              kind="state", clause=clause)]
        groups = [t for t in employers if set(sentence.mentions[t].name.casefold().split()) & (TEAM_WORDS | GROUP_NOUNS)]
        employers = [t for t in employers if t not in groups]  # "treasurer of the Running Club": a member
        for predicate, things in (("works_at", employers), ("member_of", groups), ("leads", led)):
            for thing in dict.fromkeys(things):
                if subject.index is None or thing != subject.index:
                    out.append(self._relation(pattern, sentence, subject, thing, None, verb, ending=ending,
                                              predicate=predicate, rule=f"{pattern.rule}-{predicate}", kind="state",
                                              clause=clause))
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
        return [self._relation(pattern, sentence, _Subject(subject, inferred=True), None, value, None)]


# lines people write: key–value fields, chat lines, front matter ------------------------

_TABLE_ROW = re.compile(r"^[ \t]*\|[ \t]*(?P<key>[A-Za-z][A-Za-z /&'’-]{0,30}?)[ \t]*\|[ \t]*(?P<value>[^|\n]{1,150}?)[ \t]*\|[ \t]*$", re.M)
_KEY_VALUE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?P<key>[A-Za-z][A-Za-z /&'’-]{0,30}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?"
    r"[ \t]*(?P<value>\S[^\n]{0,150}?)[ \t]*$", re.M)
_SPEAKER = re.compile(
    r"^[ \t]*(?:[-*+>][ \t]+)?"
    r"(?:(?:\[[^\]\n]{1,40}\]|\(?\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[ \t]*[AaPp]\.?[Mm]\.?)?\)?"
    r"|\d{1,2}/\d{1,2}/\d{2,4},?[ \t]*\d{1,2}:\d{2}(?:[ \t]*[AaPp][Mm])?)[ \t]*[-–—,]?[ \t]*)?"
    r"(?:<(?P<nick>[^>\s]{1,30})>[ \t]+\S|(?:\*\*|__)?(?P<name>[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*){0,2})"
    r"(?:\*\*|__)?[ \t]*:[ \t]+\S)", re.M)
#: Words before a colon that label a line rather than name a speaker.
LINE_LABELS = frozenset("""
note notes decision decisions action actions action item todo to-do q a agenda summary update updates re subject
from to cc date time when where who what why how attendees present absent apologies minutes next next steps
outcome outcomes result results context background problem proposal question questions answer answers tl;dr
tldr important warning fyi edit ps p.s. source link links ref reference see example examples step steps
goal goals risk risks blocker blockers issue issues topic topics item items discussion follow-up follow up
""".split()) | {"action item", "next steps", "follow up", "to do"}
MARKUP = re.compile(r"\*\*|__|`|\[\[|\]\]")


def speakers(text: str, labels: Iterable[str] = ()) -> tuple[tuple[int, int, str], ...]:
    """The chat lines of ``text`` and who speaks them: ``(line start, line end, name)``
    for lines such as ``Mara: I started…``, ``[10:02] Mara Lind: my manager…``,
    ``**Bo**: we moved…``, ``- 14:05 Ana: …``, ``12/03/2024, 19:22 - Amaka: …`` (a
    phone's export), ``<Rin> i work…`` (IRC). A word that labels a line ("Decision:",
    "Status:", or any of ``labels``) is no speaker."""
    skip = LINE_LABELS | {w.casefold() for w in labels}
    out = []
    for m in _SPEAKER.finditer(text):
        name = (m.group("name") or m.group("nick")).strip().rstrip(".")
        if name.casefold() in skip or name.split()[0].casefold() in skip:
            continue
        start = m.start()
        end = text.find("\n", start)
        out.append((start, len(text) if end < 0 else end, name))
    return tuple(out)


def name_like(text: str) -> bool:
    """A title or heading that can be the subject of key–value lines: a short name
    ("Initrode", "Project Falcon", "Ruth Adler"), not a date, a sentence or a generic
    label ("Notes", "Weekly sync")."""
    text = text.strip()
    words = text.split()
    if not words or len(words) > 6 or not text[:1].isupper() or any(ch.isdigit() for ch in text[:4]):
        return False
    if text.endswith((".", "?", "!", ":")):
        return False
    generic = LINE_LABELS | {"meeting", "sync", "standup", "stand-up", "weekly", "daily", "monthly", "retro",
                             "retrospective", "journal", "diary", "log", "overview", "index", "readme", "untitled",
                             "inbox", "misc", "ideas", "thoughts", "plan", "plans", "status", "report", "review",
                             "account", "profile", "details", "info", "contact", "contacts", "vendor", "people",
                             "team", "background", "history", "timeline", "open", "questions", "decisions"}
    return not all(w.casefold().strip(":,") in generic for w in words)


class LineReader:
    """Reads the key–value lines of a drawer ("Status: blocked", "- Owner: Ana Lima",
    "**Plan:** Pro") and the fields of a note's front matter, through the relational
    nouns of the registry: the possessor is the drawer's heading or the note's title,
    when it is a name (:func:`name_like`)."""

    def __init__(self, rules: RelationRules, label_of=None) -> None:
        self.rules = rules
        self.label_of = label_of or (lambda name: None)

    def _readings(self, key: str) -> list[RelationalNoun]:
        key = " ".join(key.casefold().split())
        return self.rules.nouns.get(key) or self.rules.nouns.get(key.rstrip("s")) or []

    def _clean(self, value: str) -> str:
        value = MARKUP.sub("", value).strip()
        value = re.split(r"\s+[(\[—–]|\s-\s|;|,\s|\s+(?:since|from|as of|until)\s", value, maxsplit=1)[0]
        return value.strip().rstrip(".!").strip()

    def value_ok(self, kind: str | None, value: str, entity: bool) -> str | None:
        """``value`` as the fact's literal when it fits ``kind`` (a value lexicon) or, for
        an entity predicate, when it looks like a name; else None."""
        if not value or len(value) > 80:
            return None
        low = value.casefold()
        words = low.split()
        if kind == "status":
            low = low.replace("-", " ").replace("_", " ")
            return low if low in self.rules.values.get("status", ()) else None
        if kind == "tier":
            first = value.split()[0]
            if words[-1] in self.rules.values.get("tier_nouns", ()) and len(words) > 1:
                value = " ".join(value.split()[:-1])
            return value if (first.casefold() in self.rules.values.get("tier", ()) or first[:1].isupper()) and len(words) <= 3 else None
        if kind == "medication":
            first = value.split()[0]
            return first if self.rules.is_medication_word(first) or first[:1].isupper() else None
        if kind == "title":
            return value if (low in self.rules.values.get("title", ()) or words[-1] in self.rules.values.get("title", ())
                             or value[:1].isupper()) and len(words) <= 6 else None
        if entity:
            return value if all(w[:1].isupper() or w in ("de", "van", "von", "der", "la", "du", "da", "of", "&")
                                for w in value.split()) and len(words) <= 6 else None
        return value

    def _fitting(self, readings: list[RelationalNoun], possessor: str, mentions=()) -> list[RelationalNoun]:
        """The readings whose possessor types fit ``possessor`` (a project's "Manager:"
        leads it, a person's "Manager:" is whom she reports to)."""
        if not any(r.possessor_types or r.exclude_types for r in readings):
            return readings
        label = next((x.label for x in mentions if x.key == possessor.casefold()), None) or self.label_of(possessor)
        return [r for r in readings if not (r.possessor_types and label not in r.possessor_types)
                and not (r.exclude_types and label in r.exclude_types)]

    def read(self, text: str, mentions: list["EntityMention"], sentence_of, context: Context) -> list[Relation]:
        """The relations of ``text``'s key–value lines. ``sentence_of(char)`` gives the
        sentence number of a char; a name in a value that the recogniser missed is
        appended to ``mentions``; ``label_of(name)`` the entity label of the possessor (a
        project's "Manager:" leads it, a person's "Manager:" is whom she reports to)."""
        from palace.nlp.extraction import EntityMention
        from palace.nlp.markup import normalise_entity_name

        possessor = next((p for p in (context.heading, context.title) if p and name_like(p)), None)
        out: list[Relation] = []
        found = sorted([*_KEY_VALUE.finditer(text), *_TABLE_ROW.finditer(text)], key=lambda m: m.start())
        for m in found:
            readings = self._readings(m.group("key"))
            if not readings or possessor is None:
                continue
            raw = m.group("value")
            for value, start in self._values(raw, m.start("value")):
                out.extend(self._line_facts(m, readings, value, start, possessor, mentions, sentence_of, text))
        return out

    def _values(self, raw: str, at: int) -> list[tuple[str, int]]:
        """The values of a field, each with its char position: "Warfarin 3 mg, Digoxin
        125 mcg", "Nia Brooks (frontend) and Omar Sheikh (API)" are two each."""
        out = []
        bare = re.sub(r"\([^()]*\)", lambda m: " " * len(m.group(0)), raw)
        for piece in re.finditer(r"[^,;]+", bare):
            for part in re.split(r"\s+(?:and|&)\s+", piece.group(0)):
                value = self._clean(part)
                if value:
                    out.append((value, at + raw.find(value, piece.start())))
        return out[:8]

    def _line_facts(self, m, readings, value: str, start: int, possessor: str, mentions, sentence_of, text: str
                    ) -> list[Relation]:
        """The fact of one value of a key–value line, through the first reading of its
        key that fits the possessor and the value."""
        from palace.nlp.extraction import EntityMention
        from palace.nlp.markup import normalise_entity_name

        for reading in self._fitting(readings, possessor, mentions):
            kind = self.rules.value_kinds.get(reading.predicate)
            entity = kind is None or reading.possessor == "object"
            literal = self.value_ok(None if entity else kind, value, entity)
            if literal is None:
                continue
            index = None
            if entity:  # the recogniser's mention when it lies inside the value, else a new one
                end = start + len(literal)
                index = next((i for i, x in enumerate(mentions) if x.start <= start + 1 and end - 1 <= x.end <= end + 1), None)
                if index is None:
                    label = "PERSON" if reading.possessor == "object" else next(
                        (t for t in self.rules.object_types.get(reading.predicate, ()) if t not in ("*", "VALUE")), "ORG")
                    mentions.append(EntityMention(start, end, literal, normalise_entity_name(literal), label, -1))
                    index = len(mentions) - 1
            line = text[m.start():m.end()]
            common = dict(start=m.start() + len(line) - len(line.lstrip()), end=m.end(), clause_start=m.start(),
                          clause_end=m.end(), sentence=sentence_of(m.start()),
                          rule=f"key-{reading.word.replace(' ', '-')}", evidence="stated", confidence=VALUE_CONFIDENCE,
                          kind=self.rules.kinds.get(reading.predicate, "state"))
            if reading.possessor == "subject":
                subject_label = next((t for t in self.rules.subject_types.get(reading.predicate, ())
                                      if t not in ("*", "VALUE")), "CONCEPT")
                return [Relation(reading.predicate, None, index, None if entity else literal,
                                 subject_name=possessor, subject_label=subject_label, **common)]
            return [Relation(reading.predicate, index, None, None, object_name=possessor, object_label="ORG", **common)]
        return []

    def front_matter(self, metadata: dict, title: str) -> list[Relation]:
        """Facts of a note's front-matter fields (``status:``, ``owner:``, ``lead:``,
        ``plan:``…) about the note's title; they cite the field (``quote``)."""
        out: list[Relation] = []
        if not title or not isinstance(metadata, dict):
            return out
        for key, raw in metadata.items():
            if not isinstance(key, str) or key.casefold() in ("title", "date", "tags", "aliases"):
                continue
            readings = self._readings(key.replace("_", " "))
            if not readings:
                continue
            readings = self._fitting(readings, title)
            values = raw if isinstance(raw, list) else [raw]
            for item in values[:10]:
                if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                    continue
                value = self._clean(str(item))
                for reading in readings:
                    kind = self.rules.value_kinds.get(reading.predicate)
                    entity = kind is None or reading.possessor == "object"
                    literal = self.value_ok(None if entity else kind, value, entity)
                    if literal is None:
                        continue
                    common = dict(start=0, end=0, clause_start=0, clause_end=0, sentence=-1,
                                  rule=f"front-matter-{key.casefold()}", evidence="stated", confidence=VALUE_CONFIDENCE,
                                  kind=self.rules.kinds.get(reading.predicate, "state"), quote=f"{key}: {item}")
                    if reading.possessor == "subject":
                        label = next((t for t in self.rules.subject_types.get(reading.predicate, ())
                                      if t not in ("*", "VALUE")), "CONCEPT")
                        other = next((t for t in self.rules.object_types.get(reading.predicate, ())
                                      if t not in ("*", "VALUE")), "ORG")
                        out.append(Relation(reading.predicate, None, None, None if entity else literal,
                                            subject_name=title, subject_label=label,
                                            object_name=literal if entity else None,
                                            object_label=other if entity else None, **common))
                    else:
                        out.append(Relation(reading.predicate, None, None, None, subject_name=literal,
                                            subject_label="PERSON", object_name=title, object_label="CONCEPT", **common))
                    break
        return out
