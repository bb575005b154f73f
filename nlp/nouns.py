"""Relational nouns and titles: the facts a noun carries between its possessor and a value.

"His manager is Ola Berg", "Ola Berg is her manager", "The status of Kestrel is
blocked", "Initrode's plan is Pro", "Project lead for Osprey changed from Hugo to
Aylin"; titles in apposition or brackets ("Ola Berg, the new CFO of Umbrella", "Anders
Holm (CTO)") with the employer or what a head title leads; and values named with their
owner ("Quill Media's Business plan renews…"). :class:`NounReading` is the part of
:class:`palace.nlp.relations.RelationReader` that reads them; it relies on the reader's
``_thing``, ``_resolve``, ``_relation`` and ``_reject``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from palace.nlp.clauses import child_of, mood, noun_phrase, plain_title, prep_objects, subtree_span
from palace.nlp.rules import (
    FIRST_PERSON,
    GROUP_NOUNS,
    NOT_THINGS,
    ORG_LIKE,
    PERSON_PRONOUNS,
    Pattern,
    RelationalNoun,
    TEAM_WORDS,
    TITLE_DROP,
)
from palace.nlp.sentence import Referent, Relation, Sentence
from palace.nlp.types import CLUB_DESCRIPTORS, COACH_TITLES, about_sport

if TYPE_CHECKING:
    from spacy.tokens import Token


_ENDING_VERBS = frozenset({"expire", "lapse", "cancel", "discontinue", "terminate", "end", "stop", "drop", "run"})
#: A clock time ("1:56 pm", "10.30", "9 am"): never a title, a role or any value.
CLOCK = re.compile(r"\b\d{1,2}(?:[:.]\d{2})+\b|\b\d{1,2}\s*(?:[ap]\.?m\.?)(?!\w)", re.I)


def clock_word(token: "Token") -> bool:
    """``token`` is the "am"/"pm" of a clock time ("1:56 pm", "9 am"), not a title (PM)."""
    return token.lower_ in ("am", "pm", "a.m.", "p.m.") and token.i > 0 and bool(
        re.fullmatch(r"\d{1,2}(?:[:.]\d{2})*", token.nbor(-1).text))


_BRACKET = re.compile(r"\s*\(([^()\n]{2,60})\)")


class NounReading:
    def _possessor(self, noun: "Token", sentence: Sentence) -> tuple[Referent | None, "Token | None"]:
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
                            found = Referent(index) if index is not None else None
                        return found, pobj
        for child in noun.lefts:
            found = sentence.mention_of(child) if child.dep_ in ("compound", "nmod") else None
            # "Team members: Niko, Josh": a bare "Team" names no particular team
            if found is not None and sentence.mentions[found].label not in NOT_THINGS \
                    and sentence.mentions[found].name.casefold() not in GROUP_NOUNS | TEAM_WORDS:
                return Referent(found), child
        return None, None

    def _noun_readings(self, noun: "Token") -> list[RelationalNoun]:
        words = [noun.lower_, noun.lemma_.casefold()]
        mods = [c for c in noun.lefts if c.dep_ in ("compound", "amod")]
        if mods:
            words.insert(0, f"{mods[-1].lower_} {noun.lower_}")
        if len(mods) > 1:
            words.insert(0, f"{mods[-2].lower_} {mods[-1].lower_} {noun.lower_}")
        for word in words:
            readings = [r for r in self.rules.nouns.get(word, ()) if not r.lines_only]
            if readings:
                return readings
        return []

    def _relational(self, sentence: Sentence) -> list[Relation]:
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
                subj = child_of(token, "nsubj")
                attr = child_of(token, "attr", "acomp")
                if subj is None:
                    continue
                if attr is None:  # "Harbor's status is in progress"
                    status = next(iter(prep_objects(token, ("in", "on"))), None)
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
                subj = child_of(token, "nsubj", "nsubjpass")
                new = next(iter(prep_objects(token, ("to",))), None)
                if subj is not None and new is not None and self._noun_readings(subj):
                    pairs.append((subj, new, token, next(iter(prep_objects(token, ("from",))), None)))
            elif token.tag_ == "VBN" and child_of(token, "auxpass") is not None:
                subj = child_of(token, "nsubjpass")  # "The status of Kestrel is blocked"
                if subj is not None and self._noun_readings(subj):
                    pairs.append((subj, token, child_of(token, "auxpass"), None))
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
                        possessor = Referent(other, inferred=True) if other is not None else None
                if possessor is None and self._title_word(noun) and noun.dep_ == "nsubj" and (
                        possessor_token is None or possessor_token.lower_ in FIRST_PERSON):
                    # "Our account manager at Contoso is Priyanka Sethi": her role
                    person = sentence.proper_mention(value_token, "PERSON")
                    if person is not None:
                        out.extend(self._title_facts(Pattern("role", "noun-title", (), "attr"), noun, sentence,
                                                     Referent(person), verb))
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

    def _owned_values(self, sentence: Sentence) -> list[Relation]:
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
            if clause.pos_ in ("VERB", "AUX") and (mood(clause) != "fact" or clause.lemma_.casefold() in _ENDING_VERBS):
                continue  # "Initrode's Pro plan expired": no longer the plan
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

    def _noun_fact(self, noun, value_token, possessor: Referent, possessor_token, verb, sentence: Sentence, *,
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
                if value is None and kind == "tier" and value_token.text[:1].isupper() \
                        and value_token.pos_ in ("PROPN", "NOUN", "ADJ"):  # "Pro", not "That was my plan"
                    value = value_token.text
                if value is None and kind == "medication" and value_token.pos_ == "PROPN":
                    value = value_token.text
                if value is None and kind == "title" and value_token.pos_ in ("NOUN", "PROPN"):
                    value = noun_phrase(value_token, drop=TITLE_DROP)
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
                rel = self._relation(pattern, sentence, Referent(mention), possessor.index, None, verb, ending=ending)
                title = plain_title(noun)
                if self._title_word(noun) and sentence.mentions[possessor.index].label in ORG_LIKE \
                        and noun.lower_ not in ("lead", "leader", "head", "owner", "manager", "coordinator"):
                    # "Its founder is Goran", "Its chief executive is Rachel": also their role
                    out.append(self._relation(pattern, sentence, Referent(mention), None, title, verb,
                                              ending=ending, predicate="role", kind="state"))
            if rel.subject is not None and rel.object is not None and \
                    sentence.mentions[rel.subject].key == sentence.mentions[rel.object].key:
                continue
            out.append(rel)
        return out

    def _appos(self, pattern: Pattern, sentence: Sentence) -> list[Relation]:
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
                if person_token.i == token.i and not any(c.dep_ in ("det", "poss") for c in title_token.children):
                    continue  # "Our cardiologist, Dr. Rao", "the CTO, Arjun": not "$60k for PM (Tomas)"
                subject = sentence.proper_mention(person_token, "PERSON")
                if subject is None or sentence.mentions[subject].label in NOT_THINGS or \
                        sentence.mentions[subject].label in ("GPE", "LOC", "FAC", "EVENT", "WORK_OF_ART", "LAW"):
                    continue
                out.extend(self._title_facts(pattern, title_token, sentence, Referent(subject), None,
                                             clause=subtree_span(title_token)))
        out.extend(self._parenthetical(pattern, sentence))
        return out

    def _parenthetical(self, pattern: Pattern, sentence: Sentence) -> list[Relation]:
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
            if CLOCK.search(parts[0]):
                continue  # "Session 1 (1:56 pm on 8 May, 2023)": a clock time, never a title
            words = parts[0].casefold().split()
            titles = self.rules.values.get("title", frozenset())
            if not words or not (words[-1] in titles or words[0] in titles or parts[0].casefold() in titles):
                continue
            clause = (found.start(), found.end())
            out.append(self._relation(pattern, sentence, Referent(index), None, parts[0], None, predicate="role",
                                      kind="state", clause=clause))
            if len(parts) > 1 and parts[1][:1].isupper() and len(parts[1].split()) <= 4:
                start = found.start(1) + found.group(1).index(parts[1])
                org = next((i for i, m in enumerate(sentence.mentions)
                            if m.start <= sentence.offset + start < m.end), None)
                if org is None:
                    from palace.nlp.names import EntityMention

                    sentence.mentions.append(EntityMention(sentence.offset + start, sentence.offset + start + len(parts[1]),
                                                           parts[1], parts[1], "ORG", sentence.index))
                    org = len(sentence.mentions) - 1
                out.append(self._relation(pattern, sentence, Referent(index), org, None, None, predicate="works_at",
                                          kind="state", rule=f"{pattern.rule}-of", clause=clause))
        return out

    def _title_word(self, token: "Token") -> bool:
        if clock_word(token):
            return False
        words = self.rules.values.get("title", frozenset())
        head_titles = self.rules.values.get("head_titles", frozenset())
        mods = [c for c in token.lefts if c.dep_ in ("compound", "amod")]
        pair = f"{mods[-1].lower_} {token.lower_}" if mods else token.lower_
        return token.lower_ in words or pair in words or token.lower_ in head_titles or pair in head_titles \
            or token.lower_.rstrip("s") in ("chairman", "chairwoman", "chairperson")

    @staticmethod
    def _club_name(index: int, sentence: Sentence) -> int:
        """The club a mention names past its descriptor: "Palermo" of "Serie A club
        Palermo" (:data:`CLUB_DESCRIPTORS`); the mention itself when it holds none."""
        mention = sentence.mentions[index]
        words = mention.name.split()
        cut = max((i for i, w in enumerate(words[:-1]) if w.casefold() in CLUB_DESCRIPTORS), default=None)
        if cut is None:
            return index
        tokens = [t for t in sentence.doc if mention.start <= sentence.offset + t.idx < mention.end]
        first = next((t for t in tokens if t.text == words[cut + 1]), None)
        if first is None:
            return index
        found = sentence._add_mention(first.i, tokens[-1].i, "ORG", name=" ".join(words[cut + 1:]))
        return index if found is None else found

    @staticmethod
    def _coach_title(token: "Token", mods: list, sentence: Sentence) -> bool:
        """Whether a title phrase names a club's coach: "coach", "head coach", "trainer",
        "manager" or "boss" in a drawer about sport (:func:`about_sport`)."""
        if any(m.pos_ != "PROPN" and m.lower_ not in ("head", "caretaker", "interim", "assistant") for m in mods):
            return False  # "engineering manager", "product manager": a job, not a club's coach ("the Inter manager" is)
        words = " ".join(m.lower_ for m in mods if m.lower_ in ("head", "caretaker", "interim"))
        title = f"{words} {token.lower_}".strip()
        if title not in COACH_TITLES:
            return False
        return about_sport(sentence.context.text or sentence.doc.text)  # not "agile coach at Atlassian"

    def _title_facts(self, pattern: Pattern, token: "Token", sentence: Sentence, subject: Referent, verb,
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
        doc, end = token.doc, token.i
        while end + 2 < len(doc) and doc[end + 1].text == "-" and not doc[end].whitespace_ \
                and not doc[end + 1].whitespace_ and doc[end + 2].is_alpha:
            end += 2  # "editor-in-chief", "co-chair"
        if end > token.i:
            title += doc[token.i + 1:end + 1].text
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
                is_department = noun_phrase(pobj).casefold() in self.rules.values.get("departments", frozenset())
                thing = None if (prep.lower_ == "of" and is_department) else self._thing(pobj, sentence, "ORG")
                named = thing is not None and sentence.mentions[thing].label in ORG_LIKE + ("GPE", "PERSON")
                if prep.lower_ == "at" and thing is not None:
                    employers.append(thing)
                elif prep.lower_ == "of" and named:
                    portfolio = self.rules.values.get("portfolio_titles", frozenset())
                    if sentence.mentions[thing].label in ("GPE", "LOC") and (
                            token.lower_ in self.rules.values.get("civic_titles", frozenset())
                            or full_title in self.rules.values.get("civic_titles", frozenset())):
                        department = pobj  # "Mayor of Trondheim": the place is part of the title
                    elif (token.lower_ in portfolio or full_title in portfolio) and not (
                            set(sentence.mentions[thing].name.casefold().split()) & _CONGREGATIONS):
                        department = pobj  # "Minister of National Defence": a portfolio, no employer
                        # ("a minister of the Church of Scotland" serves a church)
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
            title = f"{title} of {noun_phrase(department, drop=TITLE_DROP)}"
            if is_head and not led:
                thing = sentence.phrase_mention(department, "ORG", lower_ok=True) or sentence.proper_mention(department, "ORG")
                if thing is None and department.pos_ in ("NOUN", "PROPN"):
                    first = last = department.i
                    thing = sentence._add_mention(first, last, "ORG")
                if thing is not None:
                    led.append(thing)
        coached: list[int] = []
        if self._coach_title(token, mods, sentence):
            # "coach of Reggina", "manager of Napoli" in a drawer about sport, "the Inter manager":
            # the club is coached (one club at a time), not led or worked at
            coached = [self._club_name(t, sentence) for t in (*employers, *led)]
            employers, led = [], []
            for mod in mods:
                if mod.dep_ == "compound" and sentence.is_name_word(mod):
                    club = self._thing(mod, sentence, "ORG")
                    if club is not None and sentence.mentions[club].label not in ("NORP",):
                        coached.append(club)
                        title = token.text if not [m for m in mods if m is not mod] else title
        out = [self._relation(pattern, sentence, subject, None, title, verb, ending=ending, predicate="role",
                              kind="state", clause=clause)]
        groups = [t for t in employers if set(sentence.mentions[t].name.casefold().split()) & (TEAM_WORDS | GROUP_NOUNS)]
        employers = [t for t in employers if t not in groups]  # "treasurer of the Running Club": a member
        before = token.doc[max(0, token.i - 2):token.i].text.casefold().replace(" ", "")
        second = before.endswith(("vice-", "co-", "vice", "deputy"))  # "the vice-chair of …" does not chair it
        head = "leads" if second else _head_predicate(full_title, token.lower_)  # a chair chairs, a CEO is ceo_of
        for predicate, things in (("works_at", employers), ("member_of", groups), (head, led), ("coaches", coached)):
            for thing in dict.fromkeys(things):
                if subject.index is None or thing != subject.index:
                    out.append(self._relation(pattern, sentence, subject, thing, None, verb, ending=ending,
                                              predicate=predicate, rule=f"{pattern.rule}-{predicate}", kind="state",
                                              clause=clause))
        return out


#: Words of a church's name: its minister serves it (no portfolio).
_CONGREGATIONS = frozenset("church kirk parish congregation chapel cathedral abbey synagogue mosque temple".split())
#: Titles whose holder ``chairs`` what they head, or is its chief executive (``ceo_of``);
#: any other head title ``leads`` it ("director of", "head of", "president of").
CHAIR_TITLES = frozenset({"chair", "chairman", "chairwoman", "chairperson", "chairs"})
CEO_TITLES = frozenset({"ceo", "chief executive", "chief executive officer", "group chief executive"})


def _head_predicate(title: str, word: str) -> str:
    """The predicate a head title gives what it heads: ``chairs`` for a chair
    ("chairman of Dunmore Steel"), ``ceo_of`` for a chief executive ("CEO of Kuda"),
    ``leads`` for any other ("Head of Sales", "director of the museum")."""
    first = title.replace("-", " ").split()[0] if title.strip() else ""
    if first in ("vice", "deputy", "co"):
        return "leads"  # a vice-chair or a deputy CEO heads with someone else
    if title in CHAIR_TITLES or word in CHAIR_TITLES:
        return "chairs"
    if title in CEO_TITLES or word == "ceo":
        return "ceo_of"
    return "leads"
