"""Reading one clause of a dependency parse (spaCy's ClearNLP labels, as
``en_core_web_sm`` produces them): voice, logical subject and object, coordination,
mood (a fact, an ending, or why it is none), the words of the clause and its noun
phrases. Pure functions of tokens.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Sequence

from palace.nlp.rules import (
    BELIEF_HEADS,
    PROPOSAL_HEADS,
    CHANGE_VERBS,
    CONDITIONS,
    FUTURE,
    HEARSAY_NOUNS,
    HEDGES,
    HEDGE_ADVERBS,
    NEGATIONS,
    PAST_ADVERBS,
    PLAN_HEADS,
    QUANTITY_HEADS,
    RELATIVE_PRONOUNS,
    SAME_PAST,
    START_HEADS,
    STOP_HEADS,
    SUBJECT_DEPS,
    TITLE_DROP,
)
from palace.nlp.sentence import MAX_VALUE_CHARS

if TYPE_CHECKING:
    from spacy.tokens import Token


def child_of(token: "Token", *deps: str) -> "Token | None":
    for child in token.children:
        if child.dep_ in deps:
            return child
    return None


def prep_objects(token: "Token", preps: Sequence[str]) -> list["Token"]:
    """The objects of ``token``'s prepositions ``preps``; the small model often hangs the
    "to B" of "from A to B" on A, where it is looked for too."""
    out = []
    for child in token.children:
        if child.dep_ in ("prep", "dative", "agent") and child.lower_ in preps:
            out += [g for g in child.children if g.dep_ == "pobj"]
        elif child.dep_ in ("advmod", "prt") and child.lower_ in ("back", "over", "away", "out", "up", "down", "off", "home"):
            out += [g for p in child.children if p.dep_ == "prep" and p.lower_ in preps   # "moved back to Montréal"
                    for g in p.children if g.dep_ == "pobj"]
    if not out and any(p in ("to", "into", "onto") for p in preps):
        for child in token.children:
            if child.dep_ == "prep" and child.lower_ == "from":
                holders = [child, *(g for g in child.children if g.dep_ == "pobj")]
                out += [g for holder in holders for p in holder.children if p.dep_ == "prep" and p.lower_ in preps
                        for g in p.children if g.dep_ == "pobj"]
    return out


def is_passive(verb: "Token") -> bool:
    if verb.tag_ != "VBN":
        return False
    if any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
        return True
    if verb.dep_ == "acl":  # "the project, led by Ines," / "Ines, hired in May,"
        return True
    return verb.dep_ == "conj" and verb.head.i != verb.i and is_passive(verb.head)


def mood(verb: "Token") -> str:
    """How a clause states its verb: ``fact``, ``ending`` ("no longer works", "stopped
    taking", "used to work", "previously at") or the reason it is not a fact:
    ``negated``, ``hedged`` ("might", "probably", "I think…", "Rumour is that…"),
    ``conditional``, ``planned`` ("will move", "is going to switch", "plans to join",
    "is leaving next month": kept as a planned fact), ``proposed`` ("propose that we
    confirm Josh", "hope that Ana joins") or ``not a statement`` (an infinitive or a bare gerund: "Josh
    to write a comment", "Creating a proposal doc…")."""
    ending = False
    for child in verb.children:
        low = child.lower_
        if child.dep_ in ("advmod", "npadvmod") and low in ("longer", "anymore", "more") and (
                low == "anymore" or any(g.lower_ in ("no", "any") for g in child.children)):
            ending = True
        if child.dep_ == "advmod" and low in PAST_ADVERBS and verb.tag_ not in ("VB", "VBZ", "VBP") \
                and not is_frequency(child):
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
    if verb.dep_ == "ccomp" and head.i != verb.i and apart(verb, head):
        head = verb  # "Ana leads Kestrel; Bo moved to Heron": two statements, not one inside the other
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
        if verb.dep_ == "ccomp" and lemma in PROPOSAL_HEADS:
            return "proposed"  # "propose that we confirm Josh as our representative": a wish, no plan
        if verb.dep_ == "ccomp" and (lemma in BELIEF_HEADS or any(
                c.dep_ in ("nsubj", "attr") and c.lemma_.casefold() in HEARSAY_NOUNS for c in head.children)):
            return "hedged"
        if (lemma in PLAN_HEADS or head.lower_ == "going") and (
                verb.dep_ == "xcomp" or any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)):
            return "planned"  # "plans to join"; not "the studio has" of "founded it; the studio has…"
    if verb.tag_ == "VB" and not any(c.dep_ in ("aux", "auxpass") for c in verb.children) and verb.dep_ != "ROOT":
        if verb.dep_ != "conj":
            return "not a statement"
        return mood(head)
    if any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children):
        return "not a statement"
    if verb.tag_ == "VBG" and not any(c.dep_ in ("aux", "auxpass") for c in verb.children):
        # a gerund as subject or complement is an activity ("Creating a proposal doc…");
        # a participle modifying a name is a statement ("Marcus Webb, now living in Lisbon"),
        # and so is one that carries a past narrative on (:func:`narrative_gerund`)
        narrated = narrative_gerund(verb)
        if narrated is not None:
            return "fact" if mood(narrated) in ("fact", "ending") else "not a statement"
        if verb.dep_ in ("csubj", "csubjpass", "pcomp", "xcomp", "ROOT", "advcl"):
            return "not a statement"
    if verb.dep_ in ("conj", "ccomp", "advcl", "relcl") and head.pos_ in ("VERB", "AUX") and head.i != verb.i:
        outer = mood(head)
        if outer not in ("fact", "ending", "not a statement") and (verb.dep_ == "conj" or outer in ("hedged", "conditional")):
            return outer
    return "ending" if ending else "fact"


#: Prepositions whose gerund is a step of a narrative: "before moving to X", "after leaving X".
NARRATIVE_PREPS = frozenset({"before", "after", "upon", "on"})


def narrative_gerund(verb: "Token") -> "Token | None":
    """The finite past-tense verb a gerund carries on, when it does: a participle clause
    ("He returned to Spain, signing a two-year deal at Albacete") or a gerund after
    "before"/"after" ("played for Auxerre before moving to Triestina in 2007") hung on a
    verb in the simple past; the gerund is then a statement with that verb's subject and
    mood. None otherwise ("Creating a proposal doc…", "for leading the team")."""
    if verb.tag_ != "VBG":
        return None
    head = verb.head
    if verb.dep_ == "pcomp" and head.lower_ in NARRATIVE_PREPS and head.dep_ == "prep":
        head = head.head
    elif verb.dep_ != "advcl" or child_of(verb, "mark") is not None:
        return None
    if head.i == verb.i or head.pos_ not in ("VERB", "AUX"):
        return None
    if head.tag_ == "VBG":  # "…, playing forty games before joining X": the narrative two steps up
        return narrative_gerund(head)
    past = head.tag_ == "VBD" or any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in head.children)
    return head if past else None


def apart(verb: "Token", head: "Token") -> bool:
    """Whether a semicolon or a dash stands between a clause and the verb the parser hung
    it on: the small model reads "A leads X; B moved to Y" as one clause inside the other."""
    span = [t.i for t in verb.subtree]
    between = verb.doc[max(span) + 1:head.i] if verb.i < head.i else verb.doc[head.i + 1:min(span)]
    return any(t.text in (";", "—", "–") for t in between)


def is_frequency(adverb: "Token") -> bool:
    """"once a day", "once weekly", "once per week": how often, not "once" = formerly."""
    if any(c.dep_ in ("npadvmod", "prep", "advmod") for c in adverb.children):
        return True
    doc = adverb.doc
    nxt = doc[adverb.i + 1].lower_ if adverb.i + 1 < len(doc) else ""
    return nxt in ("a", "an", "per", "every", "each", "daily", "weekly", "monthly", "nightly", "yearly", "more")


def is_past(verb: "Token") -> bool:
    """Simple past ("switched", "was switched"), not the present perfect ("has lived").
    A VBD tag on a form equal to its lemma ("we downgrade") is the small model's slip,
    unless the verb's past is its lemma ("put", "set")."""
    if verb.tag_ == "VBD":
        return verb.lower_ != verb.lemma_.casefold() or verb.lower_ in SAME_PAST
    return verb.tag_ == "VBN" and any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in verb.children)


def copula_partner(noun: "Token") -> "Token":
    """A noun a relative clause or participle hangs on that is one side of a copula
    stands for the other side when that is a name: in "Marco Ruiz is a footballer who
    plays for Betis" the one who plays is Marco Ruiz; in "The customer that upgraded is
    Faro Logistics", Faro Logistics."""
    head = noun.head
    if head.i == noun.i or head.lemma_ not in ("be", "become", "remain"):
        return noun
    other = child_of(head, "nsubj") if noun.dep_ == "attr" else child_of(head, "attr") if noun.dep_ == "nsubj" else None
    if other is not None and (other.pos_ == "PROPN" or other.tag_ in ("NNP", "NNPS")):
        return other
    return noun


def subject_token(verb: "Token") -> "Token | None":
    """The verb's grammatical subject; a conjoined verb without one shares its head's, a
    complement its governor's, a relative clause or participle the noun it modifies."""
    seen = 0
    while verb is not None and seen < 4:
        subject = child_of(verb, *SUBJECT_DEPS)
        if subject is None:  # the small model sometimes hangs a name on the verb as a compound
            subject = next((c for c in verb.lefts if c.dep_ in ("compound", "npadvmod", "dep")
                            and (c.pos_ == "PROPN" or c.tag_ in ("NNP", "NNPS"))), None)
        if subject is None:
            subject = _dated_subject(verb)
        if subject is not None:
            if subject.lower_ in RELATIVE_PRONOUNS and verb.dep_ == "relcl":
                return copula_partner(verb.head)
            return subject
        if verb.dep_ == "conj":
            verb = verb.head
            seen += 1
            continue
        if verb.dep_ in ("xcomp", "advcl", "acomp") and verb.head.pos_ in ("VERB", "AUX"):
            verb = verb.head
            seen += 1
            continue
        if verb.dep_ == "pcomp" and narrative_gerund(verb) is not None:  # "…before moving to X"
            verb = narrative_gerund(verb)
            seen += 1
            continue
        if verb.dep_ in ("acl", "relcl") and verb.head.pos_ in ("PROPN", "NOUN"):  # "Marcus Webb, living in…"
            return copula_partner(verb.head)
        return None
    return None


def _dated_subject(verb: "Token") -> "Token | None":
    """"On 03/04/2024 Ruth started…", "In 1998 Smith joined…": the small model reads the
    name right before the verb into the date's phrase; a proper noun there, after a
    date, is the subject."""
    doc = verb.doc
    if verb.i == 0 or verb.dep_ != "ROOT":
        return None
    name = doc[verb.i - 1]
    if name.pos_ != "PROPN" or name.dep_ not in ("pobj", "npadvmod", "appos", "conj", "nummod") or name.ent_type_ in (
            "DATE", "TIME", "CARDINAL"):
        return None
    first = min(t.i for t in name.subtree)
    before = doc[:first]
    if not any(t.like_num or t.ent_type_ == "DATE" or re.fullmatch(r"\d[\d/.-]*", t.text) for t in before) or any(t.pos_ in ("VERB", "AUX") for t in before):
        return None
    return name


def logical_role(verb: "Token", role: str) -> "Token | None":
    """The token in an active-voice ``role`` (``nsubj`` or ``dobj``) of ``verb``, whatever
    its voice: in "Falcon is led by Ines" the subject is Ines and the object Falcon; a
    relative pronoun stands for the noun its clause modifies ("Kestrel, which Goran
    owns")."""
    passive = is_passive(verb)
    if role == "nsubj":
        if passive:
            agents = prep_objects(verb, ("by",))
            return agents[0] if agents else None
        return subject_token(verb)
    if role == "dobj":
        if passive:
            if verb.dep_ == "acl":
                return copula_partner(verb.head)
            return subject_token(verb)
        found = child_of(verb, "dobj")
        if found is not None and found.lower_ in RELATIVE_PRONOUNS and verb.dep_ == "relcl":
            return copula_partner(verb.head)
        if found is None:  # "joined Allegro": the small model takes a name for an adverb
            found = next((c for c in verb.rights if c.dep_ in ("advmod", "npadvmod", "dep")
                          and c.pos_ == "PROPN" and c.ent_type_ not in ("DATE", "TIME")), None)
        return found
    return None


def conjuncts(token: "Token") -> list["Token"]:
    """``token`` and the tokens coordinated with it ("Ana, Bo and Cy")."""
    out = [token]
    stack = [token]
    while stack:
        for child in stack.pop().children:
            if child.dep_ == "conj" and len(out) < 8:
                out.append(child)
                stack.append(child)
    return out


def unwrap(token: "Token") -> "Token":
    """Look through a quantity: "5mg of Amlodipine" is Amlodipine; "a Falcon" stays."""
    seen = 0
    while seen < 3 and (token.lower_ in QUANTITY_HEADS or token.like_num or re.fullmatch(r"\d+(\.\d+)?[a-zµ]+", token.lower_)):
        objects = prep_objects(token, ("of",))
        if not objects:
            break
        token = objects[0]
        seen += 1
    return token


def noun_phrase(token: "Token", *, drop: Iterable[str] = ()) -> str:
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


def names_something(token: "Token") -> bool:
    """The phrase names a particular thing: a proper noun or an acronym in it ("the Q4
    budget sheet", "the Tally model"; not "40 seats")."""
    for t in [*token.lefts, token]:
        if t.pos_ == "PROPN" or (t.pos_ == "NUM" and not t.like_num) or (t.text.isupper() and len(t.text) > 1) or "`" in t.text or "#" in t.text:
            return True
    return False


def clause_text(token: "Token") -> str:
    """The text of ``token``'s clause (its subtree without conjoined clauses), up to the
    end of its line: "to restart the clock", not "… and writes"."""
    start, end = clause_span(token)
    return " ".join(token.doc.text[start:end].split("\n", 1)[0].split())[:MAX_VALUE_CHARS]


def clause_tokens(verb: "Token") -> list["Token"]:
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


def clause_span(verb: "Token") -> tuple[int, int]:
    """The chars of the verb's own clause (see :func:`clause_tokens`)."""
    tokens = clause_tokens(verb)
    return min(t.idx for t in tokens), max(t.idx + len(t.text) for t in tokens)


def _bracketed(token: "Token") -> bool:
    """Whether ``token`` stands inside round brackets ("Helene Schröder (1868-1900)"), within four words."""
    doc = token.doc
    for i in range(token.i - 1, max(-1, token.i - 5), -1):
        if doc[i].text == ")":
            return False
        if doc[i].text == "(":
            return True
    return False


#: Nouns a date modifies that still date the clause: "in the 2012–13 season", "the 2004 campaign".
PERIOD_NOUNS = frozenset({"season", "seasons", "campaign", "term", "tenure", "spell"})


def dating_tokens(verb: "Token") -> list["Token"]:
    """The clause's words that may date it: not a date that modifies a noun ("the 2025
    hiring plan", "Q3 roadmap") — that one names a thing — unless the noun is a period
    (:data:`PERIOD_NOUNS`: "the 2014–15 season")."""
    tokens = clause_tokens(verb)
    if verb.dep_ == "xcomp" and verb.head.i != verb.i:  # "On 3 April she started taking…": the governing verb's date
        own = {t.i for t in tokens}
        tokens = tokens + [t for t in clause_tokens(verb.head) if t.i not in own]
    elif not any(t.ent_type_ == "DATE" and (t.is_digit or t.tag_ == "NNP") for t in tokens) \
            and verb.dep_ == "advcl" and narrative_gerund(verb) is not None:
        # "On 8 July 2010 he returned to Spain, signing for Albacete": the narrative's date
        # (not for "after graduating", "before moving": another time than the main clause's)
        own = {t.i for t in tokens}
        tokens = tokens + [t for t in clause_tokens(narrative_gerund(verb)) if t.i not in own]
    elif verb.dep_ == "conj" and verb.head.i < verb.i and not any(t.ent_type_ == "DATE" and not _bracketed(t)
                                                                  for t in tokens):
        # "In 1897 the colony was founded and Modersohn married Helene": a date fronted
        # before the first clause's verb dates the clauses joined to it
        fronted = [c for c in verb.head.lefts if c.dep_ in ("prep", "npadvmod") and c.i < verb.head.i]
        tokens = tokens + [t for c in fronted for t in c.subtree]
    return [t for t in tokens
            if not (t.dep_ in ("compound", "nummod", "amod", "nmod", "poss") and t.head.pos_ in ("NOUN", "PROPN")
                    and t.head.lemma_.casefold() not in PERIOD_NOUNS)]


def plain_title(token: "Token") -> str:
    """A title without its complements: "chief executive" of "Its chief executive"."""
    mods = [c for c in token.lefts if c.dep_ in ("compound", "amod") and c.lower_ not in TITLE_DROP]
    return " ".join(t.text for t in sorted([*mods, token], key=lambda t: t.i))


def subtree_span(token: "Token") -> tuple[int, int]:
    tokens = list(token.subtree)
    return tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)


def particle_of(verb: "Token") -> str | None:
    found = child_of(verb, "prt")
    if found is None:  # the small model often tags "down" in "stepped down" an adverb
        found = next((c for c in verb.children if c.dep_ == "advmod" and c.lower_ in ("down", "over", "off", "out", "up")), None)
    return found.lower_ if found is not None else None
