"""What the relation readers produce and work on.

- :class:`Relation`: a typed fact read from a sentence or a line, with its span, the
  clause that dates it, its evidence and whether it ends a state;
- :class:`Candidate`: a fact a rule turned down, and why (``palace extract``'s trace);
- :class:`Context`: what a drawer cannot say about itself (the note's title, the heading
  above, who ``I`` is, the chat lines' speakers);
- :class:`Sentence`: one parsed sentence and the drawer's entity mentions around it — the
  names the recogniser missed or cut are made whole here, and a pronoun finds its
  antecedent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from palace.nlp.names import NOTE_VERBS
from palace.nlp.rules import NOT_THINGS, PRONOUNS, RelationRules, TEAM_WORDS
from palace.nlp.types import vote as vote_type

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from palace.nlp.names import EntityMention
    from palace.nlp.topic import Topic


RELATIONS_EXTRACTOR = "palace.relations.v2"
#: a field line's, a list of holders', a front-matter field's (:data:`palace.nlp.confidence.WEIGHTS`)
VALUE_CONFIDENCE = 0.9
MAX_VALUE_CHARS = 160


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
    #: the valid start a note-level reading states itself (a design record's status:
    #: the day the record gives for it, with its granularity); ``(None, None)`` when it
    #: gives none: the start is unknown, never the note's date. None: the usual rules
    stated_start: tuple | None = None
    #: read from a planned clause ("will join", "plans to move", "is leaving"): kept as a
    #: ``planned`` fact, never a current one
    planned: bool = False
    #: what lowered ``confidence`` (:mod:`palace.nlp.confidence`): ``(name, words)`` pairs
    doubts: tuple[tuple[str, str], ...] = ()

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
    #: how the note writes numeric dates ("dmy", "mdy", None: ambiguous ones are not read)
    date_order: str | None = None
    #: what the note is about (:func:`palace.nlp.topic.note_topic`): its pronouns and
    #: short forms stand for it when nothing nearer fits
    topic: "Topic | None" = None
    #: the design record the note is ("PEP 572"; :mod:`palace.nlp.documents`), else ""
    document: str = ""
    #: the label of a list that an earlier drawer opened and this one continues
    #: ("Managers." above items cut into two drawers; :func:`palace.nlp.lines.continued_label`)
    list_label: str = ""

    def speaker_at(self, position: int) -> str | None:
        for start, end, name in self.speakers:
            if start <= position < end:
                return name
        return None


_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]+(?:[ \t](?:(?:de|da|van|von|der|la|le|ter|dos|del|bin|al)[ \t])?[A-Z][\w'’-]+)*")


class Sentence:
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
        if token.lower_ in self.rules.values.get("departments", ()):  # "Finance moved to Xero"
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

    def first_person_mention(self, token: "Token") -> int | None:
        """A mention of the speaker of the chat line (or the palace's owner) at a first-
        person pronoun used as an object ("He reports to me"); None when no one is known."""
        name = self.context.speaker_at(self.offset + token.idx) or self.context.owner
        return self._add_mention(token.i, token.i, "PERSON", name=name) if name else None

    def topic_mention(self, token: "Token") -> int | None:
        """A mention of the note's topic at ``token`` (a pronoun, "the club"), or None
        when the note has no topic."""
        topic = self.context.topic
        if topic is None:
            return None
        same = next((i for i, m in enumerate(self.mentions) if m.sentence == self.index and m.name == topic.name), None)
        if same is not None:  # one mention of the topic per sentence, whichever word named it first
            self._by_token[token.i] = same
            return same
        return self._add_mention(token.i, token.i, topic.label, name=topic.name)

    def is_topic_phrase(self, token: "Token") -> bool:
        """"the club" on a club's page, "the ship" on a ship's: a definite noun phrase of
        one of the topic's kinds, with nothing else to tell it from the topic."""
        topic = self.context.topic
        if topic is None or token.pos_ != "NOUN" or token.lemma_.casefold() not in topic.kinds:
            return False
        lefts = [c for c in token.lefts if not c.is_punct]
        return bool(lefts) and all(c.dep_ == "det" and c.lower_ in ("the", "this") for c in lefts) \
            and not any(c.dep_ in ("prep", "acl", "relcl") and c.lower_ != "of" for c in token.rights)

    def is_topic_name(self, token: "Token") -> bool:
        """A capitalised word the recogniser missed that is one of the topic's short forms
        ("Gibbons" on Leeza Gibbons's page, tagged a common noun)."""
        topic = self.context.topic
        if topic is None or not token.text[:1].isupper() or token.pos_ not in ("NOUN", "PROPN"):
            return False
        first = token
        while True:  # "Kestrel Insurance": the proper nouns compounded before the head
            before = [c for c in first.lefts if c.dep_ == "compound" and c.i == first.i - 1 and c.text[:1].isupper()]
            if not before:
                break
            first = before[0]
        return topic.names(self.doc[first.i:token.i + 1].text)

    def pronoun_referent(self, token: "Token", labels: Sequence[str], team: bool = False) -> tuple[int | None, bool]:
        """Who a third-person pronoun stands for, and whether it is the note's topic. On
        a page about someone (:class:`palace.nlp.topic.Topic`) a pronoun the topic takes
        ("he" on his page, "it" on a club's) is the topic, unless a subject of the same
        sentence before it fits (another person named as the subject); otherwise the
        nearest fitting mention (:meth:`nearest`), the topic left out."""
        topic = self.context.topic
        if topic is not None and topic.takes(token.lower_):
            rival = self._subject_before(token, labels)
            if rival is None:
                return self.topic_mention(token), True
            return rival, False
        exclude = None
        if topic is not None:
            from palace.nlp.names import entity_key

            exclude = entity_key(topic.name)
        return self.nearest(token, labels, team, exclude=exclude), False

    def _subject_before(self, token: "Token", labels: Sequence[str]) -> int | None:
        """A mention of ``labels`` before ``token`` in this sentence that is a verb's
        subject and not the topic ("Jonsin signed B.o.B, and he…": Jonsin)."""
        topic = self.context.topic
        for other in self.doc[:token.i]:
            if other.dep_ not in ("nsubj", "nsubjpass"):
                continue
            index = self.mention_of(other)
            if index is None or self.mentions[index].label not in labels:
                continue
            if topic is not None and topic.names(self.mentions[index].name):
                continue
            return index
        return None

    def _add_mention(self, first: int, last: int, label: str, *, name: str | None = None) -> int | None:
        from palace.nlp.names import EntityMention
        from palace.nlp.markup import normalise_entity_name

        doc = self.doc
        surface = doc.text[doc[first].idx:doc[last].idx + len(doc[last].text)]
        name = name or normalise_entity_name(surface)
        if len(name) < 2 or any(ch in name for ch in '`{}[]<>|=\\"@#*_'):
            return None  # code and diagrams are no names: TypesTeamApproval["Types team
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
        # a name the recogniser missed: its type by the vote of its shape and construction
        # ("GitHub Actions" a product), else the type the rule looks for
        words = self.doc.text[self.doc[first].idx:self.doc[last].idx + len(self.doc[last].text)]
        return self._add_mention(first, last, vote_type(words, None, self.context.text) or label)

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
        existing = self._by_token.get(token.i)
        if existing is not None:
            return existing
        return self._add_mention(first, last, label)

    def _unrecognised_antecedent(self, position: int, label: str) -> int | None:
        """A name the recogniser missed, written before ``position`` in the drawer ("Met
        Henrik Dahl at the meetup. He joined…", "Talked to Olu. He takes…"): the first
        run of capitalised words of the latest sentence that has one, less a capitalised
        English word opening the sentence ("Met", "Talked"). Becomes a mention."""
        from spacy.lang.en.stop_words import STOP_WORDS  # here: the query path never loads spaCy

        start_at = max(0, position - 600)  # the last few sentences: a pronoun looks back that far
        text = self.context.text[start_at:position]
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
            if not words or any(w.casefold() in PRONOUNS or w.casefold() in STOP_WORDS
                                or self.rules.is_value_word(w) for w in words):
                continue  # "What a week. He joined…": "What" is no one
            if len(words) == 1 and words[0].casefold() in self.known_words:
                continue
            sentence_start = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start))
            if best is None or sentence_start > best[2]:
                best = (start, " ".join(words), sentence_start)
        if best is None:
            return None
        from palace.nlp.names import EntityMention

        start, name, _ = best
        start += start_at
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
                      and m.label not in ("GPE", "LOC", "PERSON") and not set(m.name.casefold().split()) & PRONOUNS]
        if not before:
            return self._unrecognised_antecedent(position, "PERSON" if "PERSON" in labels else "ORG")
        latest = max(self.mentions[i].sentence for i in before)
        return min((i for i in before if self.mentions[i].sentence == latest), key=lambda i: self.mentions[i].start)


@dataclass(frozen=True)
class Referent:
    """Who a word names: a mention of the drawer (``index``), or a name with no mention
    (``name``, ``label``: a chat line's speaker, the palace's owner); ``inferred`` when
    it was reached through a pronoun or an unnamed subject."""

    index: int | None
    name: str | None = None
    label: str | None = None
    inferred: bool = False


#: Phrases of text that tries to instruct a reader program ("prompt injection"): a drawer
#: holding one yields no typed fact, whatever its other sentences say, since an attacker
#: writes the instruction and the planted "fact" side by side.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,30}?\b(?:previous|prior|above|earlier|preceding|"
    r"all (?:previous |prior |above |earlier )?|any (?:previous |prior )?)\s*(?:instructions|prompts?|directives)\b"
    r"|\byou are now (?:an? |the )?(?:ai|assistant|language model|llm|chatbot)\b"
    r"|\b(?:system prompt|jailbreak mode|developer mode enabled|new instructions\s*:)"
    r"|\bas an ai (?:language model|assistant)\b",
    re.IGNORECASE,
)


def instructs(text: str) -> bool:
    """Whether ``text`` tries to instruct a program that reads it ("Ignore all previous
    instructions…", "You are now an assistant that…", "system prompt"). Narrow on
    purpose: "ignore the old linter rules", "Assistant: Jane Doe" or "System: macOS 14"
    are notes, not instructions; the defence against planted facts is review (untrusted
    wings, candidates), this only keeps the plainest injections out of the graph. Such text is
    never taken as a fact as it stands: the typed facts of its drawer are held for review
    (:meth:`palace.nlp.extraction.Extractor.extract_many`, :func:`instruction_line`); its
    names stay searchable."""
    return bool(_INSTRUCTION.search(text))


def instruction_line(text: str, limit: int = 120) -> str | None:
    """The line of ``text`` holding the first instruction-like phrase (:func:`instructs`),
    whitespace collapsed and cut to ``limit`` characters, or None."""
    found = _INSTRUCTION.search(text)
    if found is None:
        return None
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    line = " ".join(text[start:end if end != -1 else len(text)].split())
    return line if len(line) <= limit else line[:limit - 1] + "…"
