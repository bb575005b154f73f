"""The predicate registry compiled for the relation readers, and the word lists they use.

:class:`RelationRules` holds each predicate's patterns (verb lemmas and dependency roles,
written for the active voice), its relational nouns ("manager", "plan", "owner"), the
value lexicons (titles, plan tiers, statuses, medications, departments) and a cheap
prefilter of cue words. The constants below are the closed word lists that decide a
clause's mood (hedges, futures, plan and stop verbs) and what a phrase names (kind nouns,
group nouns, quantities). The registry itself is loaded by the core
(:mod:`palace.graph.temporal`) and handed in: nothing here reads files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


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
#: Verbs whose that-clause is a proposal, not a fact ("propose that we confirm Josh").
PROPOSAL_HEADS = frozenset({"propose", "suggest", "recommend", "request", "ask", "want", "wish", "hope", "insist",
                            "demand", "prefer", "move"})
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
                         "lab", "studio", "cabinet", "parliament", "assembly", "senate", "chamber"})
#: Nouns a career clause reaches its club through: "signed a two-year contract with X",
#: "spent the season on loan at X", "began his first spell at X".
CLUB_THROUGH = frozenset({"contract", "deal", "agreement", "loan", "spell", "stint", "move", "transfer", "career",
                          "season", "seasons", "year", "years"})
#: Heads a quantity stands on: "5mg of Amlodipine", "a course of amoxicillin".
QUANTITY_HEADS = frozenset({"mg", "mcg", "µg", "g", "ml", "iu", "unit", "units", "dose", "dosage", "tablet",
                            "tablets", "pill", "pills", "capsule", "capsules", "course", "shot", "shots",
                            "prescription", "drop", "drops", "puff", "puffs", "bit", "lot", "kind", "type", "seat",
                            "seats", "licence", "licences", "license", "licenses", "user", "users", "tb", "gb", "mb",
                            "pb", "%", "percent", "share", "shares", "stake"})
#: Words of a title phrase that say nothing of the role ("our new CFO" is a CFO).
TITLE_DROP = frozenset({"new", "former", "current", "then", "now", "previous", "incoming", "outgoing", "longtime",
                        "long-time", "our", "their", "his", "her", "its", "my", "your", "the", "a", "an", "acting"})
#: Entity labels that are no thing a fact links (a date, a number, a value word).
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


_COPULAS = frozenset({"is", "are", "was", "were", "am", "be", "been", "being", "'s", "’s", "'re", "’re", "'m",
                      "remains", "remained", "stays", "stayed", "sits", "sat"})


_FUNCTION_WORDS = frozenset({"the", "and", "for", "with", "from", "into", "onto", "out"})
#: Words that frame a noun as a fact: possessives, apposition and field punctuation.
_FRAME_WORDS = frozenset({"his", "her", "their", "its", "my", "our", "your", "whose", ",", ":", "(", "—", "–", "-",
                          "'s", "’s", "of"})


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
    #: the object must be a sports club (:func:`palace.nlp.types.is_club`: "Alicante CF",
    #: "League One side Crewe Alexandra"), whatever the recogniser's label
    club: bool = False
    #: nouns the object's preposition may hang on instead of the verb ("took *charge* of
    #: Torino"); a club pattern reaches through :data:`CLUB_THROUGH` by default
    through: tuple[str, ...] = ()
    #: the object only through those nouns, never on the verb itself ("was in charge of X")
    through_only: bool = False
    #: only in a drawer about sport (:func:`palace.nlp.types.about_sport`): "in charge of X"
    #: is a coach's post there, not elsewhere
    sport: bool = False
    #: the object must be of this kind by its own words (:data:`palace.nlp.types.OBJECT_KINDS`:
    #: ``venue`` "SoFi Stadium", ``league`` "Liga II"), whatever the recogniser's label
    object_kind: str | None = None


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
    #: read only as the key of a field ("Team: Payments"), never in a sentence ("the
    #: GitHub team, the Zulip group" names no membership)
    lines_only: bool = False


@dataclass
class RelationRules:
    """Patterns compiled from a predicate registry and its value lexicons."""

    patterns: tuple[Pattern, ...]
    values: dict[str, frozenset[str]]
    by_verb: dict[str, list[Pattern]] = field(default_factory=dict)
    verbless: list[Pattern] = field(default_factory=list)
    cues: frozenset[str] = frozenset()
    copula_cues: frozenset[str] = frozenset()
    noun_cues: frozenset[str] = frozenset()
    frames: frozenset[str] = frozenset()
    _suffixes: tuple[str, ...] = ()
    subject_types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    object_types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    nouns: dict[str, list[RelationalNoun]] = field(default_factory=dict)
    value_kinds: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_registry(cls, registry: dict, values: dict[str, Iterable[str]]) -> "RelationRules":
        """Compile ``registry`` (name → predicate with ``patterns``, ``nouns``, ``subject``,
        ``object``, ``kind``; see :class:`palace.nlp.registry.Predicate`) and
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
                    any_value=bool(entry.get("any_value", False)), club=bool(entry.get("club", False)),
                    through=tuple(entry.get("through", ())),
                    through_only=bool(entry.get("through_only", False)), sport=bool(entry.get("sport", False)),
                    object_kind=entry.get("object_kind"),
                ))
                if entry.get("value"):
                    value_kinds.setdefault(spec.name, entry["value"])
            for noun in getattr(spec, "nouns", ()) or ():
                for word in noun.get("words", ()):
                    nouns.setdefault(word.casefold(), []).append(RelationalNoun(
                        word.casefold(), spec.name, noun.get("possessor", "subject"),
                        tuple(noun.get("possessor_types", ())), tuple(noun.get("exclude_types", ())),
                        bool(noun.get("lines_only", False))))
                if noun.get("value"):
                    value_kinds.setdefault(spec.name, noun["value"])
        lexicons = {name: frozenset(w.casefold() for w in words) for name, words in values.items()}
        rules = cls(tuple(patterns), lexicons, subject_types={s.name: s.subject for s in registry.values()},
                    object_types={s.name: s.object for s in registry.values()}, nouns=nouns,
                    value_kinds=value_kinds, kinds={s.name: s.kind for s in registry.values()})
        cues: set[str] = set()  # a verb of a pattern, a decision marker: always worth a parse
        value_verbs: set[str] = set()  # a verb whose object must be a lexicon value
        copula_cues: set[str] = set()
        for pattern in patterns:
            if not pattern.verbs or pattern.verbs == ("*",):
                rules.verbless.append(pattern)
            for lemma in pattern.verbs:
                rules.by_verb.setdefault(lemma, []).append(pattern)
                if lemma not in ("be", "*"):
                    (value_verbs if pattern.value else cues).update(verb_forms(lemma))
            if "be" in pattern.verbs and pattern.entity:  # "she's at Acme": the preposition, beside a copula
                copula_cues |= set(pattern.preps)
            cues |= {m.casefold() for m in pattern.markers}
        # nouns and values ("manager", "plan", "CFO", "blocked") carry a fact only in a
        # frame: a copula, a possessive, an apposition, a field, or a verb that takes them
        noun_cues = {w for phrase in nouns for w in phrase.split()
                     if " " not in phrase or (len(w) > 2 and w not in _FUNCTION_WORDS)}
        noun_cues |= {n.casefold() for pattern in patterns for n in pattern.nouns}
        for name in ("title", "tier", "tier_nouns", "status"):
            noun_cues |= {w.split()[-1] for w in lexicons.get(name, ())}
        rules._suffixes = tuple(lexicons.get("medication_suffixes", ()))
        rules.cues = frozenset(cues)
        rules.noun_cues = frozenset(noun_cues - cues)
        rules.frames = frozenset((value_verbs | _COPULAS | _FRAME_WORDS) - cues)
        rules.copula_cues = frozenset(copula_cues - cues)
        return rules

    def hashed(self) -> dict[str, frozenset[int]]:
        """The prefilter's word sets as spaCy string hashes (``LOWER`` attribute values),
        so :meth:`may_match_hashes` reads a whole sentence without making Token objects."""
        cached = self.__dict__.get("_hashed")
        if cached is None:
            from spacy.strings import hash_string

            sets = {"cues": self.cues | {"mg", "mcg", "ml"}, "noun_cues": self.noun_cues, "frames": self.frames,
                    "copulas": _COPULAS, "copula_cues": self.copula_cues,
                    "third_person": PRONOUNS - FIRST_PERSON, "first_person": FIRST_PERSON}
            cached = {name: frozenset(hash_string(w) for w in words) for name, words in sets.items()}
            self.__dict__["_hashed"] = cached
        return cached

    def may_match_hashes(self, lowers, has_value: bool) -> bool:
        """Cheap prefilter over the ``LOWER`` hashes of a sentence's tokens: could any
        pattern apply? A verb of a pattern or a value the ruler marked (``has_value``: a
        medication…) always may; a relational noun or a lexicon word ("manager", "CFO",
        "blocked") only in a frame for it (a form of "be", a possessive, a comma or
        colon, a verb that takes a value); a preposition of a copula pattern ("is at
        Acme") only beside a form of "be"."""
        sets = self.hashed()
        words = set(lowers)
        if has_value or words & sets["cues"]:
            return True
        if words & sets["noun_cues"] and words & sets["frames"]:
            return True
        return bool(words & sets["copulas"] and words & sets["copula_cues"])

    def is_medication_word(self, word: str) -> bool:
        """A drug name by the lexicon or a drug-class suffix (``-olol``, ``-pril``…)."""
        word = word.casefold()
        if word in self.values.get("medications", ()):
            return True
        return len(word) >= 7 and word.isalpha() and word.endswith(self._suffixes)

    def is_value_word(self, word: str) -> bool:
        """A word of a value lexicon (tier, status, title, medication): never a name."""
        low = word.casefold()
        return (low in self.values.get("tier", ()) or low in self.values.get("status", ())
                or low in self.values.get("title", ()) or self.is_medication_word(low))
