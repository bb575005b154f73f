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
a pronoun) are parsed at all: :meth:`RelationRules.may_match_hashes` is the cheap filter that
keeps the parser off most of a corpus.
"""


from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from palace.nlp.clauses import (
    child_of,
    clause_span,
    clause_text,
    conjuncts,
    dating_tokens,
    is_passive,
    is_past,
    logical_role,
    mood,
    narrative_gerund,
    names_something,
    noun_phrase,
    particle_of,
    prep_objects,
    unwrap,
)
from palace.nlp.nouns import NounReading, clock_word
from palace.nlp.rules import (
    CLUB_THROUGH,
    FIRST_PERSON,
    GROUP_NOUNS,
    GROUP_PRONOUNS,
    KIND_NOUNS,
    NOT_THINGS,
    ORG_LIKE,
    PERSON_PRONOUNS,
    PRONOUNS,
    Pattern,
    RelationRules,
    SUBJECT_DEPS,
    TEAM_WORDS,
    TITLE_DROP,
)
from palace.nlp.sentence import (
    Candidate,
    Context,
    MAX_VALUE_CHARS,
    Referent,
    Relation,
    Sentence,
)
from palace.nlp.confidence import doubt, score, type_doubt, vague_name
from palace.nlp.types import (
    CLUB_DESCRIPTORS,
    OBJECT_KINDS,
    about_sport,
    construction_type,
    is_club,
    shape_type,
    vote as vote_type,
)

#: A subject more than this many chars from its verb is "far" (another clause).
FAR_CHARS = 100
#: The types a predicate's ``CONCEPT`` takes: things, not persons or places.
_THINGS = ("ORG", "PRODUCT", "FAC", "EVENT", "WORK_OF_ART", "LAW", "NORP", "DOCUMENT", "CONCEPT")


def _type_fits(label: str, expected) -> bool:
    """Whether a name of type ``label`` fits a predicate taking ``expected`` types."""
    return "*" in expected or label in expected or ("CONCEPT" in expected and label in _THINGS)


if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from palace.nlp.names import EntityMention


#: Predicates whose object may be "them" ("has played for them since 2017").
_GROUP_OBJECTS = frozenset({"plays_for", "member_of", "works_at", "coaches"})
#: Verbs of a decision only when a group is their subject ("we agreed to ship", "the council
#: concluded …"); one person agreeing or concluding gives an opinion or consent, not a decision.
CONSENT_VERBS = frozenset({"agree", "conclude"})
#: Events one person does; "we decided/approved/created" is the group's act, not the speaker's.
_PERSONAL_EVENTS = frozenset({"joined", "left", "moved_to"})


#: A player's contract, signed: no approval ("signing a two-year deal at Albacete").
_CONTRACT = re.compile(r"\b(?:contract|deal|extension|agreement|loan)\b")


#: Participles the small model tags as adjectives after "be" that still carry a
#: registry verb's reading ("was married to Pierre Fabre", "is headquartered in Chico").
STATE_ADJECTIVES = frozenset({"married", "headquartered", "based", "engaged"})


#: A note's title that names a meeting or a conversation: "we decided" there is the meeting's act.
_MEETING_TITLE = re.compile(r"\b(?:meeting|minutes|sync|call|stand-?up|retro(?:spective)?|chat|council|committee|"
                            r"board|triage|planning|session|summit|workshop|huddle|decision|kick-?off|(?:design|sprint|budget|security|code|quarterly|project) review|all[- ]hands|off-?site|"
                            r"one-on-one|1:1|catch-?up)s?\b", re.I)


def _meeting(context: Context) -> str | None:
    """The meeting a note records, as the maker of its group decisions: its title, when
    the note is a chat (speaker lines) or its title names a meeting ("Lang team triage
    meeting"); None otherwise (a journal's "we" names no group of its own)."""
    title = " ".join(context.title.split())
    if not re.search(r"[A-Za-z]{3}", title) or len(title) > 80:
        return None
    return title if context.speakers or _MEETING_TITLE.search(title) else None


def _infinitive(verb: "Token") -> "Token | None":
    """The infinitive a verb governs ("agreed **to help** out"), or None ("I agree having
    more bandwidth would help": a gerund, an opinion)."""
    found = child_of(verb, "xcomp")
    if found is not None and any(c.dep_ == "aux" and c.lower_ == "to" for c in found.children):
        return found
    return None


def _said_now(pronoun: "Token") -> bool:
    """The group's decision is the meeting's own: "we decided", "we agreed" — not one
    recalled ("we had agreed", "I recall us agreeing", "the plan we agreed on"), asked
    ("we did decide …, right?") or to come ("we agree to this early", "we should decide")."""
    verb = pronoun.head
    if verb.tag_ != "VBD" or pronoun.dep_ not in ("nsubj", "nsubjpass") or verb.dep_ == "relcl":
        return False
    if any(c.dep_ == "aux" for c in verb.children):  # "had agreed", "did decide"
        return False
    return not any(t.text == "?" for t in verb.sent)


class RelationReader(NounReading):
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
        if clock_word(token):
            return None  # "at 1:56 pm": a clock time, no title
        if head in words or pair in words or head.rstrip("s") in ("chairman", "chairwoman", "chairperson"):
            return noun_phrase(token, drop=("new", "former", "current", "acting", "interim", "then"))
        return None

    def _tier(self, token: "Token", sentence: Sentence) -> tuple[str | None, int | None]:
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

    def _value(self, kind: str | None, token: "Token", sentence: Sentence) -> tuple[str | None, int | None]:
        """A lexicon value at ``token`` for ``kind`` (title, tier, status, medication):
        ``(value, entity in the phrase)``."""
        if kind == "title":
            return self._title(token), None
        if kind == "tier":
            return self._tier(unwrap(token), sentence)  # "40 seats of the Enterprise edition"
        if kind == "status":
            return self._status(token), None
        if kind == "medication":
            return self._medication(unwrap(token)), None
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
        sentence = Sentence(doc, offset, index, mentions, context, self.rules, self.known_words)
        self._trace = trace
        self._sentence = sentence
        out: list[Relation] = []
        # a "?" asks about the clause it hangs on: "I work at Nimbus too, remember?" states
        # that I work at Nimbus; "Does Bob report to Helen?" asks it
        asked = {t.head.i for t in doc if t.text == "?"}
        question = bool(asked)
        for token in doc:
            if token.pos_ not in ("VERB", "AUX") and token.dep_ != "ROOT" and token.tag_ not in ("VBN", "VBD", "VBG") \
                    and not (token.dep_ == "acomp" and token.lower_ in STATE_ADJECTIVES):  # "was married to"
                continue
            lemma = token.lemma_.casefold()
            candidates = list(self.rules.by_verb.get(lemma, []))
            if token.tag_ == "VBN" and is_passive(token):
                candidates += [p for p in self.rules.verbless if p.object == "passive-verb"]
            if not candidates:
                continue
            how = "question" if token.i in asked or (token.dep_ == "conj" and token.head.i in asked) else mood(token)
            outer, self._trace = trace, [] if trace is not None else None
            accepted = 0
            for pattern in candidates:
                if pattern.particle and particle_of(token) != pattern.particle:
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
                    if how == "planned":  # kept apart, as planned facts
                        out.extend(replace(rel, planned=True) for rel in found if not rel.ending)
                if not found or how not in ("fact", "ending", "planned"):
                    sentence.rollback(mark)
            if outer is not None:
                # a verb many patterns share ("be", "move"): a lexicon or type mismatch
                # is news only when no pattern of that verb read anything
                outer.extend(c for c in self._trace if not accepted or not c.reason.startswith(("object not a", "object type",
                                                                                            "object is a")))
            self._trace = outer
        if not question or not any(doc[i].pos_ in ("VERB", "AUX") for i in asked):
            out.extend(self._relational(sentence))
            for pattern in self.rules.verbless:
                if pattern.object == "appos":
                    out.extend(self._appos(pattern, sentence))
                elif pattern.object == "marker":
                    out.extend(self._marker(pattern, sentence))
        unique: dict[tuple, Relation] = {}
        for rel in out:
            # by name: the page's subject may be two mentions of one sentence ("Acme Freight", its topic)
            key = (rel.predicate, self._name(rel.subject, rel.subject_name), rel.subject_name,
                   self._name(rel.object, None), (rel.value or "").casefold(), rel.ending, rel.planned)
            unique.setdefault(key, rel)
        # a club's player is no employee nor member of it: "joined Alicante CF" plays for it
        clubs = {(key[1], key[3]) for key in unique if key[0] == "plays_for"}
        unique = {key: rel for key, rel in unique.items()
                  if not (key[0] in ("works_at", "member_of") and (key[1], key[3]) in clubs)
                  and not (clubs and key[0] == "approved" and _CONTRACT.search(key[4]))}  # "signed a deal"
        # a state the same sentence ends is no start ("Ruth's Warfarin was discontinued")
        ended = {key[:5] for key in unique if key[5]}
        return [rel for key, rel in unique.items() if key[5] or key[:5] not in ended]

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

    def _thing(self, token: "Token", sentence: Sentence, label: str, *, lower_ok: bool = False) -> int | None:
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
        if found is None and (sentence.is_topic_phrase(token) or sentence.is_topic_name(token)):
            return sentence.topic_mention(token)  # "the club" on the club's page, "Gibbons" on hers
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
        if token.pos_ == "NOUN" and names_something(token):  # "the Tally forecasting model"
            return sentence.phrase_mention(token, "PRODUCT")
        return None

    def _resolve(self, token: "Token | None", sentence: Sentence, label: str, *, lower_ok: bool = True,
                 group_act: str = "") -> Referent | None:
        """Who ``token`` names: a mention or a pronoun's referent (see :meth:`_thing`).
        ``group_act``: the predicate of an event a group does ("decided"), else ""."""
        if token is None:
            return None
        low = token.lower_
        if low in PERSON_PRONOUNS:
            found, _ = sentence.pronoun_referent(token, ("PERSON",))
            return Referent(found, inferred=True) if found is not None else None
        if low in GROUP_PRONOUNS:
            found, _ = sentence.pronoun_referent(token, ORG_LIKE, team=True)
            return Referent(found, inferred=True) if found is not None else None
        if low in FIRST_PERSON:
            if low in ("we", "us", "our") and group_act:
                # "we agreed to…": the group decided, not the one who says so; "we decided" in a
                # meeting's minutes or a chat names the meeting (the note), the group that met
                group = _meeting(sentence.context) if group_act == "decided" and _said_now(token) else None
                return Referent(None, group, "ORG", inferred=True) if group else None
            # a mention of the speaker (or owner) at the pronoun: the name then resolves like any
            # other ("Priya" of a chat line joins "Priya Nair")
            index = sentence.first_person_mention(token)
            return Referent(index, inferred=True) if index is not None else None
        if token.pos_ == "PRON" or token.tag_ in ("WP", "WDT", "WP$"):
            return None  # "what's been approved": no one in particular
        found = self._thing(token, sentence, label, lower_ok=lower_ok)
        if found is None:
            found = sentence.mention_in(token)
            if found is not None and sentence.mentions[found].label in NOT_THINGS:
                found = None
        return Referent(found) if found is not None else None

    def _implied(self, verb: "Token", sentence: Sentence) -> Referent | None:
        """The writer of a sentence without a subject in a journal or a chat line ("Quit
        Falabella today.", "Mara: Started at Monzo"): the verb opens the sentence."""
        if verb.dep_ != "ROOT" or child_of(verb, *SUBJECT_DEPS) is not None or verb.tag_ not in ("VBD", "VBN", "VBZ"):
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
        return Referent(None, who, "PERSON", inferred=True) if who else None

    def _subjects(self, pattern: Pattern, verb: "Token", sentence: Sentence, obj: "Token | None") -> list[Referent]:
        """The fact's subjects under ``pattern`` (each conjunct of a coordinated subject):
        the first place in ``pattern.subject`` that names something."""
        label = next((t for t in (pattern.subject_types or self.rules.subject_types.get(pattern.predicate, ()))
                      if t not in ("*", "VALUE")), "PERSON")
        unresolved = None
        for where in pattern.subject:
            tokens: list = []
            if where in ("nsubj", "dobj"):
                token = logical_role(verb, where)
                if token is not None and token.pos_ == "NOUN" and self._noun_readings(token) and any(
                        c.dep_ == "poss" or (c.dep_ == "prep" and c.lower_ in ("of", "for")) for c in token.children):
                    token = None  # "Project lead for Osprey changed…": read by _relational
                if token is not None and (obj is None or token.i != obj.i):
                    tokens = conjuncts(token)
                elif token is None and where == "nsubj" and not is_passive(verb):
                    implied = self._implied(verb, sentence)
                    if implied is not None:
                        return [implied]
            elif where == "dative":
                token = child_of(verb, "dative")
                if token is not None and token.pos_ == "ADP":
                    token = child_of(token, "pobj")
                tokens = [token] if token is not None else []
            elif where.startswith("prep:"):
                tokens = prep_objects(verb, (where[5:],))
            elif where == "poss" and obj is not None:
                tokens = [c for c in obj.children if c.dep_ == "poss"]
            elif where == "compound" and obj is not None:
                head_at = sentence.offset + obj.idx
                for mod in obj.lefts:
                    found = sentence.mention_of(mod) if mod.dep_ in ("compound", "nmod") else None
                    if found is not None and sentence.mentions[found].label not in NOT_THINGS \
                            and not sentence.mentions[found].start <= head_at < sentence.mentions[found].end:
                        return [Referent(found)]
                continue
            elif where == "person":  # the nearest person before the verb (an unnamed patient)
                found = sentence.nearest(verb, ("PERSON",))
                if found is not None:
                    return [Referent(found, inferred=True)]
                continue
            group_act = (pattern.predicate if self.rules.kinds.get(pattern.predicate) == "event"
                         and pattern.predicate not in _PERSONAL_EVENTS else "")
            # "it's ready", "they are released": a status needs its thing named
            tokens = [t for t in tokens if not (pattern.predicate == "status" and t.lower_ in ("it", "they"))]
            resolved = [s for s in (self._resolve(t, sentence, label, group_act=group_act) for t in tokens)
                        if s is not None]
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
        if pattern.with_prep and not prep_objects(verb, (pattern.with_prep,)):
            return []
        if mode == "dobj":
            found = logical_role(verb, "dobj")
            return [found] if found is not None else []
        if mode == "direct":  # the direct object whatever the voice: "was prescribed Ramipril"
            found = child_of(verb, "dobj")
            if found is None and is_passive(verb):  # "was prescribed 50mg Metoprolol"
                found = next((c for c in verb.children if c.dep_ in ("npadvmod", "oprd", "attr")
                              and c.pos_ in ("NOUN", "PROPN")), None)
            return [found] if found is not None else []
        if mode == "nsubj-or-prep":
            found = logical_role(verb, "nsubj")
            return [found] if found is not None else prep_objects(verb, pattern.preps)
        if mode == "prep":
            if pattern.nouns:  # "moved its headquarters to Y": the verb's object must be one of them
                held = logical_role(verb, "dobj")
                if held is None or (held.lemma_.casefold() not in pattern.nouns and held.lower_ not in pattern.nouns):
                    return []
            through = [o for noun in self._through(verb, pattern.through) for o in prep_objects(noun, pattern.preps)]
            if through or pattern.through_only:  # "took charge of X"; "remained at the Met" is in charge of nothing
                return through
            found = prep_objects(verb, pattern.preps)
            if not found and (pattern.old == "dobj" or pattern.value) and child_of(verb, "dobj") is not None:
                # the parser hangs the phrase on the object: "replaced Airflow with Dagster",
                # "upgraded all 300 seats to the Premium tier"
                found = prep_objects(child_of(verb, "dobj"), pattern.preps)
            if not found and pattern.club:  # "signed a deal with X", "spent a season on loan at X"
                found = [o for noun in self._through(verb, CLUB_THROUGH) for o in prep_objects(noun, pattern.preps)]
            return found
        if mode == "dobj-or-prep":
            found = logical_role(verb, "dobj")
            return [found] if found is not None else prep_objects(verb, pattern.preps)
        if mode == "attr":
            found = child_of(verb, "attr")
            return [found] if found is not None else []
        if mode == "oprd-or-prep":
            found = child_of(verb, "oprd", "attr", "xcomp")
            if found is None and is_passive(verb):  # "was appointed chief financial officer"
                found = next((c for c in verb.children if c.dep_ in ("dobj", "npadvmod") and c.pos_ in ("NOUN", "PROPN")), None)
            return [found] if found is not None else prep_objects(verb, pattern.preps)
        if mode == "attr-prep":
            attr = child_of(verb, "attr")
            if attr is None or attr.lemma_.casefold() not in pattern.nouns:
                return []
            return prep_objects(attr, pattern.preps)
        if mode == "acomp-or-prep":
            found = child_of(verb, "acomp")
            return [found] if found is not None else prep_objects(verb, pattern.preps)
        if mode == "passive-verb":
            return [verb] if not prep_objects(verb, ("by",)) else []  # with an agent it is an event
        if mode == "clause":  # "agreed to fund X" is a decision, "I agree this would…" an opinion
            found = _infinitive(verb) if verb.lemma_ in CONSENT_VERBS else child_of(verb, "ccomp", "xcomp")
            if found is None:
                return prep_objects(verb, ("on", "upon"))
            return [found]
        return []

    @staticmethod
    def _through(verb: "Token", nouns) -> list["Token"]:
        """The ``nouns`` (:data:`CLUB_THROUGH`, a pattern's ``through``) a clause's object
        hangs on: the verb's object ("signed a contract with", "took charge of") or the
        object of its preposition ("on loan at", "was in charge of")."""
        out = []
        for child in verb.children:
            found = [child] if child.dep_ in ("dobj", "npadvmod") else (
                [c for c in child.children if c.dep_ == "pobj"] if child.dep_ == "prep" else [])
            out.extend(n for n in found if n.lemma_.casefold() in nouns or n.lower_ in nouns)
        return out

    def _object(self, pattern: Pattern, verb: "Token", obj: "Token", sentence: Sentence
                ) -> tuple[int | None, str | None, int | None, str | None]:
        """``(object mention, value, subject hint, rejection reason)`` of one object token."""
        if pattern.value:
            if pattern.value == "status" and pattern.object == "passive-verb" and not child_of(verb, "auxpass"):
                return None, None, None, "not a passive"
            value, hint = self._value(pattern.value, obj, sentence)
            if value is None and pattern.any_value and obj.pos_ == "NOUN" and not obj.ent_type_ \
                    and sentence.mention_of(obj) is None:
                value = noun_phrase(obj, drop=TITLE_DROP)  # "employed … as an actuary"
            return None, value, hint, None if value else f"object not a {pattern.value}"
        obj = unwrap(obj)
        if pattern.sport and not about_sport(sentence.context.text or sentence.doc.text):
            return None, None, None, "not about sport"
        described = False
        if pattern.club and obj.lemma_.casefold() in CLUB_DESCRIPTORS:
            # "moved to the Italian Serie B club U.S. Triestina Calcio", "to another team in
            # the third tier, SD Ponferradina": the name in apposition to the descriptor
            near = [*obj.subtree, *(t for t in obj.doc[obj.i + 1:obj.i + 9] if verb in t.ancestors)]
            named = next((t for t in near if t.dep_ == "appos" and sentence.is_name_word(t)), None)
            if named is None:
                return None, None, None, "not a club"
            obj, described = named, True
        if obj.ent_type_ in NOT_THINGS and sentence.mention_of(obj) is None:
            if self.rules.is_value_word(obj.text):  # "Metoprolol", "Premium": a value another rule reads
                return None, None, None, "object not a thing but a value"
            return None, None, None, "object is a date or a number"
        if obj.lemma_.casefold() in self.rules.values.get("tier_nouns", ()) and self._tier(obj, sentence)[0]:
            return None, None, None, "a plan tier"  # "bought 40 seats of the Enterprise edition": a plan
        label = next((t for t in (pattern.object_types or self.rules.object_types.get(pattern.predicate, ()))
                      if t not in ("*", "VALUE", "CONCEPT")), "ORG")
        mention = None
        if obj.lower_ == "them" and pattern.entity and pattern.predicate in _GROUP_OBJECTS:  # "played for them"
            resolved = self._resolve(obj, sentence, label)
            mention = resolved.index if resolved is not None else None
        elif obj.lower_ in ("it", "they") and obj.dep_ == "nsubjpass":  # "It was owned by Halcyon Capital"
            found, _ = sentence.pronoun_referent(obj, ORG_LIKE, team=True)
            mention = found if found is not None and sentence.mentions[found].label != "PERSON" else None
        elif obj.lower_ in ("me", "us") and pattern.entity:  # "He reports to me": the speaker
            mention = sentence.first_person_mention(obj)
        elif obj.pos_ != "PRON":
            mention = self._thing(obj, sentence, label,
                                  lower_ok=pattern.team is True or obj.lemma_.casefold() in GROUP_NOUNS)
            if mention is None and obj.pos_ == "NOUN" and child_of(obj, "appos") is not None:
                # "reports to the CTO, Arjun Mehta": the name in apposition
                mention = self._thing(child_of(obj, "appos"), sentence, label)
        if mention is None:
            if pattern.entity or obj.lower_ in PRONOUNS or obj.pos_ == "PRON":
                return None, None, None, "object not an entity"
            value = clause_text(obj) if pattern.object == "clause" else noun_phrase(obj)
            if not value or len(value) < 2:
                return None, None, None, "no object"
            if pattern.proper and not names_something(obj) and not (
                    pattern.predicate == "owns" and any(c.lower_ == "the" for c in obj.lefts)
                    and any(c.dep_ == "compound" for c in obj.lefts)):  # "owns the billing service"
                return None, None, None, "object names nothing in particular"
            return None, value, None, None
        found_label = sentence.mentions[mention].label
        if pattern.club:  # a club by its words or descriptor, in a drawer about sport ("CD Projekt" is none)
            if not described and not is_club(sentence.mentions[mention].name, sentence.context.text):
                return None, None, None, "not a club"
            if not about_sport(sentence.context.text or sentence.doc.text):
                return None, None, None, "not about sport"
            return mention, None, None, None
        if pattern.object_kind:  # "SoFi Stadium", "Liga II": the name's words tell, not the label
            if not OBJECT_KINDS[pattern.object_kind](sentence.mentions[mention].name, sentence.context.text):
                return None, None, None, f"not a {pattern.object_kind}"
            return mention, None, None, None
        if pattern.object == "prep" and obj.head.lower_ != "from":
            # "moved from Oslo to Bergen": the place left tells what kind the new one is,
            # whatever the recogniser made of it
            source = next((sentence.mention_of(t) for t in prep_objects(verb, ("from",))
                           if sentence.mention_of(t) is not None), None)
            fixed = vote_type(sentence.mentions[mention].name, None, sentence.context.text)  # "GitHub Actions"
            if source is not None and fixed is None and sentence.mentions[source].label in ("GPE", "LOC", "ORG"):
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

    def _apply(self, pattern: Pattern, verb: "Token", sentence: Sentence, *, ending: bool = False) -> list[Relation]:
        if pattern.predicate == "approved" and (narrative_gerund(verb) is not None or (
                verb.lemma_.casefold() == "sign"
                and any(t.lemma_.casefold() in ("contract", "deal", "extension", "loan") for t in verb.subtree))):
            return []  # "signed Gerrit Cole to a nine-year contract", "…, signing her paintings": no approval
        objects = self._objects(pattern, verb)
        if not objects:
            if pattern.optional and (pattern.ending or ending) and narrative_gerund(verb) is None:
                # "Ines retired": whatever it was ends; not "…, before retiring" (from a race, a match)
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
                subjects = [Referent(subject_hint)]
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

    def _fact(self, pattern, sentence: Sentence, subject: Referent, object_mention, value, verb, *, ending: bool
              ) -> Relation | None:
        """The relation of one subject and object, after the checks every fact passes."""
        if subject.index is not None and subject.index == object_mention:
            return None
        if not self._subject_fits(pattern, subject, sentence):
            self._reject(pattern.rule, pattern.predicate, "subject type does not fit", self._subject_text(subject), value)
            return None
        if verb is not None and pattern.predicate == "decided" and verb.dep_ == "relcl":
            # "They had money they decided to give to us": a decision recalled, not taken here
            self._reject(pattern.rule, pattern.predicate, "a decision recalled in a relative clause",
                         self._subject_text(subject), value)
            return None
        if verb is not None and verb.lemma_ in CONSENT_VERBS and pattern.predicate == "decided" \
                and _infinitive(verb) is None:
            label = sentence.mentions[subject.index].label if subject.index is not None else subject.label
            if label == "PERSON":  # "Jakub: Agreed on outliers", "Josh now agrees": an opinion
                self._reject(pattern.rule, pattern.predicate, "one person's agreement is no decision",
                             self._subject_text(subject), value)
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
            tokens = prep_objects(verb, (pattern.old[5:],))
        elif pattern.old == "dobj":
            found = logical_role(verb, "dobj")
            tokens = [found] if found is not None else []
        doc = verb.doc
        for token in doc:  # "reports to Hugo instead of Amélie" (however the parser hangs it)
            if token.lower_ == "instead" and token.i + 2 < len(doc) and doc[token.i + 1].lower_ == "of":
                head = next((t for t in doc[token.i + 2:] if t.dep_ != "compound" and t.pos_ in ("PROPN", "NOUN")), None)
                if head is not None:
                    tokens.append(head)
        return tokens

    def _transition(self, pattern: Pattern, verb: "Token", sentence: Sentence, subject: Referent,
                    rel: Relation) -> list[Relation]:
        """The value a transition or hand-over ends: the ``from`` of "from A to B", the
        previous holder of "took over Falcon from Ana" / "handed Falcon over to Bo"."""
        out = []
        if pattern.previous:
            where = pattern.previous
            tokens = prep_objects(verb, (where[5:],)) if where.startswith("prep:") else (
                [logical_role(verb, where)] if logical_role(verb, where) is not None else [])
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

    def _subject_text(self, subject: Referent) -> str | None:
        return subject.name or (self._sentence.mentions[subject.index].name if subject.index is not None else None)

    def _subject_fits(self, pattern: Pattern, subject: Referent, sentence: Sentence) -> bool:
        """NER types are noisy ("Beacon" the app is often a PERSON, "Marcus Webb" a GPE), so
        the registry's subject types only rule out a pronoun of the wrong kind (a he/she
        where the predicate takes no persons: a status)."""
        if not subject.inferred:
            return True
        allowed = self.rules.subject_types.get(pattern.predicate, ("*",))
        label = sentence.mentions[subject.index].label if subject.index is not None else (subject.label or "PERSON")
        if "*" in allowed:
            return True
        if label == "PERSON":
            return "PERSON" in allowed
        return any(t in allowed for t in ORG_LIKE + ("CONCEPT",)) or label in allowed

    def _relation(self, pattern, sentence: Sentence, subject: Referent, object_mention, value, verb, *,
                  ending: bool = False, rule: str | None = None, predicate: str | None = None,
                  kind: str | None = None, clause: tuple[int, int] | None = None) -> Relation:
        dating: tuple[int, ...] = ()
        if clause is None and verb is not None:
            clause = clause_span(verb)
            dating = tuple(sentence.offset + t.idx for t in dating_tokens(verb))
        elif clause is None:
            clause = (0, 0)
        inferred = subject.inferred
        predicate = predicate or pattern.predicate
        doubts = self._doubts(predicate, rule or pattern.rule, sentence, subject, object_mention, verb)
        # the cited span: the sentence (one block of it), without surrounding space
        text = sentence.doc.text
        first = len(text) - len(text.lstrip())
        last = len(text.rstrip())
        line = next((start for start, end, _ in sentence.context.speakers
                     if start < sentence.offset + first < end and sentence.offset + first - start <= 60), None)
        if line is not None:  # a chat line is cited whole, from its time stamp and speaker
            first = line - sentence.offset
        return Relation(
            date_tokens=dating,
            predicate=predicate, subject=subject.index, object=object_mention,
            value=value[:MAX_VALUE_CHARS] if value else None,
            start=sentence.offset + first, end=sentence.offset + last,
            clause_start=sentence.offset + clause[0], clause_end=sentence.offset + clause[1],
            sentence=sentence.index, rule=rule or pattern.rule, evidence="inferred" if inferred else "stated",
            confidence=score(doubts), kind=kind or self.rules.kinds.get(predicate, pattern.kind if pattern else "state"),
            past=verb is not None and is_past(verb), subject_name=subject.name, subject_label=subject.label,
            ending=ending, doubts=doubts,
        )

    def _doubts(self, predicate: str, rule: str, sentence: Sentence, subject: Referent, object_mention,
                verb) -> tuple[tuple[str, str], ...]:
        """What makes a reading less sure (:mod:`palace.nlp.confidence`): its construction
        (a subject through a pronoun or the page's subject, in lower case, far from its
        verb; an appositive), its types against the registry's, a bare one-word name, a
        subject that names nothing in particular (:func:`palace.nlp.confidence.vague_name`)."""
        out = []
        mention = sentence.mentions[subject.index] if subject.index is not None else None
        topic = sentence.context.topic
        if subject.inferred:
            on_page = mention is not None and topic is not None and mention.name == topic.name
            out.append(doubt("page_subject" if on_page else "pronoun"))
        elif mention is not None and mention.surface[:1].islower() and construction_type(mention.name) is None:
            out.append(doubt("lowercase"))
        if "appos" in rule:
            out.append(doubt("appositive"))
        if verb is not None and mention is not None and not subject.inferred:
            at = sentence.offset + verb.idx
            if min(abs(at - mention.start), abs(at - mention.end)) > FAR_CHARS:
                out.append(doubt("far"))
        label = mention.label if mention is not None else subject.label
        expected = self.rules.subject_types.get(predicate, ("*",))
        fixed = construction_type(mention.name, sentence.context.text) if mention is not None else None
        if fixed and not _type_fits(fixed, expected):
            out.append(doubt("fixed_type", found=fixed, expected="/".join(expected)))
        elif label:
            out.append(type_doubt("subject", label, expected))
            if label == "PERSON" and "PERSON" not in expected and "*" not in expected and mention is not None \
                    and self._surely_person(mention.name, sentence,
                                            full_name=predicate == "status"):
                out.append(doubt("person", predicate=predicate))
        if object_mention is not None:
            expected = self.rules.object_types.get(predicate, ("*",))
            fixed = construction_type(sentence.mentions[object_mention].name, sentence.context.text)
            if fixed and not _type_fits(fixed, expected):
                out.append(doubt("fixed_object", found=fixed, expected="/".join(expected)))
            elif tuple(expected) != ("VALUE",):  # a value's predicate takes any name
                out.append(type_doubt("object", sentence.mentions[object_mention].label, expected))
        expected = self.rules.subject_types.get(predicate, ("*",))
        if mention is not None and not subject.inferred and label == "PERSON" and len(mention.name.split()) == 1 \
                and "PERSON" in expected \
                and not (topic is not None and topic.names(mention.name)):
            word = mention.name.casefold()
            if not any(len(m.name.split()) > 1 and word in m.name.casefold().split() for m in sentence.mentions):
                out.append(doubt("bare_name"))
        if mention is not None and not (subject.inferred and topic is not None and topic.names(mention.name)) and (
                vague_name(mention.name, sentence.context.text)
                or (not subject.inferred and self._common_opening(mention, sentence))):
            out.append(doubt("vague", word=mention.name))  # "They ultimately decide …" after "the RFC"
        return tuple(d for d in out if d is not None)

    def _common_opening(self, mention, sentence: Sentence) -> bool:
        """Whether a subject is a common noun phrase capitalised only because it opens a
        sentence or a line ("Crater run was done", "Draft document is ready"; one word
        only when the tagger calls it a common noun, whatever the recogniser says: "Blog
        post is blocked", "Goals accepted", while "Harbor is done" stays a name): its first word an English word
        (:attr:`known_words`, by lemma), its other words lower case, and the drawer never
        writes the word capitalised inside a sentence (where "Rust" or "Falcon" is a name)."""
        doc = sentence.doc
        at = mention.start - sentence.offset
        first = next((t for t in doc if t.idx >= at), None)
        words = mention.name.split()
        if first is None or first.idx != at or not self.known_words:
            return False
        after = doc[first.i + len(words)] if first.i + len(words) < len(doc) else None
        if (after is not None and after.text == ":") or any(
                speaker.casefold() == mention.name.casefold() for _, _, speaker in sentence.context.speakers):
            return False  # "Jack: Decided to …": who speaks a line is someone
        if len(words) == 1 and (first.pos_ != "NOUN"
                                or first.lower_ in self.rules.values.get("departments", frozenset())):
            return False  # one word is a name unless the tagger calls it a common noun ("Blog", "Goals"),
            # and a department ("Sales uses HubSpot") is a group of people
        before = [t for t in doc[:first.i] if not t.is_space]
        opening = not before or before[-1].text in (":", "-", "*", "•", "#", ">", ".", "!", "?") or \
            "\n" in doc.text[before[-1].idx:first.idx]
        if not opening or not words or any(w[:1].isupper() for w in words[1:]) \
                or construction_type(mention.name) is not None or shape_type(mention.name) is not None:
            return False
        if first.lemma_.casefold() not in self.known_words and first.lower_ not in self.known_words:
            return False
        inside = re.search(rf"[a-z,;(] +{re.escape(words[0])}\b", sentence.context.text)
        return inside is None

    @staticmethod
    def _surely_person(name: str, sentence: Sentence, *, full_name: bool) -> bool:
        """Whether a name the recogniser calls a person is one beyond its label: it speaks
        in the note ("Josh: …" lines; its first word, "Niko" for "Niko Matsakis") or, with
        ``full_name`` (a status: people have none), it is a full name of two or
        three capitalised words with no kind word ("Manish Goregaokar", not "Project
        Osprey" nor "GitHub Actions"; a club the recogniser calls a person, "Real Madrid",
        stays a weak doubt for the predicates of teams)."""
        words = name.split()
        first = words[0].casefold() if words else ""
        if any(speaker.casefold().split()[:1] == [first] for _, _, speaker in sentence.context.speakers):
            return True
        return full_name and 2 <= len(words) <= 3 and all(w[:1].isupper() and w[1:].islower() for w in words) \
            and construction_type(name) is None and shape_type(name) is None

    # relational nouns -------------------------------------------------------------------
    def _marker(self, pattern: Pattern, sentence: Sentence) -> list[Relation]:
        """"Decision: we downgrade Larkspur …": the rest of a marked line, made by the
        meeting the note records (:func:`_meeting`). A name inside the line is what the
        decision is about or who carries it out ("Decision: Mara to help form a WG"), never
        its maker; outside a meeting's record the maker is not written, so no fact."""
        words = [t for t in sentence.doc if not t.is_space]
        if len(words) < 4 or words[0].lower_ not in pattern.markers:
            return []
        colon = next((i for i, t in enumerate(words[:3]) if t.text in (":", "-", "—")), None)
        if colon is None:
            return []
        rest = words[colon + 1:]
        meeting = _meeting(sentence.context)
        if meeting is None:
            self._reject(pattern.rule, pattern.predicate, "no meeting named as its maker", None,
                         sentence.doc.text[rest[0].idx:].strip()[:60])
            return []
        doc = sentence.doc
        value = " ".join(doc.text[rest[0].idx:].split("\n", 1)[0].split()).rstrip(".")[:MAX_VALUE_CHARS]
        if sum(ch.isalpha() for ch in value) < 12 or len(value.split()) < 3:  # "Resolved: (Niko)"
            return []
        return [self._relation(pattern, sentence, Referent(None, meeting, "ORG", inferred=True), None, value, None)]
