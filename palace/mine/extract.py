"""The extract flow: the mining NLP run on a text, nothing stored (``palace extract``).

A note's text (front matter included) goes through the same steps as in ``palace mine``
— front matter, chunking into drawers, NER, dates, the relation rules — and comes back
as the facts mining would store, each with the rule that read it, its cardinality route
(seed 000's routing trace: a one-value predicate supersedes, a many-value one coexists)
and where its valid time came from, plus the candidates that were rejected and why.
:func:`extract_text` is also what ``benchmarks/eval_extraction.py`` measures.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from palace.config import Config
    from palace.nlp.extraction import Extractor


@dataclass(frozen=True)
class ReadFact:
    """One fact as mining would store it.

    ``object`` is the object entity's name or the literal value; ``None`` for an ending
    whose value the text does not name ("Ines retired"). ``valid_from``/``valid_to`` are
    ISO days, half-open; ``None`` where the text does not bound it (an open state, or a
    state whose start the text does not say). ``ending`` is true when the text closes the
    state ("stepped down", the ``A`` of "from A to B"). A plan ("will join on 1 March",
    "starts on Monday" in a note of the week before) is no fact: it is among the
    rejections (reason ``planned``) when its clause is planned, and in
    :attr:`ExtractResult.planned` with ``planned`` set and the day it is planned for. ``route`` is ``one: supersedes`` or
    ``many: coexists``; ``date_source`` is ``clause`` (a date in the verb's clause),
    ``heading`` (the dated heading above it: a running log's ``## 2025-03-12``) or
    ``note`` (the note's date). ``line`` is 1-based in the text given. ``confidence``
    is the reading's (:mod:`palace.nlp.confidence`); under the bar its ``status`` is
    ``candidate`` (stored for review, never current) and ``reason`` says why ("confidence
    0.45 < 0.6: subject through a pronoun, object type GPE vs expected ORG"); else
    ``live`` and ``reason`` is empty.
    """

    subject: str
    predicate: str
    object: str | None
    valid_from: str | None
    valid_to: str | None
    granularity: str | None
    evidence: str
    rule: str
    route: str
    date_source: str
    sentence: str
    line: int
    kind: str = "state"
    ending: bool = False
    confidence: float = 0.0
    planned: bool = False
    status: str = "live"
    reason: str = ""


@dataclass(frozen=True)
class Rejection:
    """A candidate a rule considered and turned down: ``reason`` says why (hedged,
    negated, conditional, planned, question, subject not an entity, object type or
    lexicon mismatch…)."""

    sentence: str
    line: int
    rule: str
    predicate: str
    reason: str
    subject: str | None = None
    object: str | None = None


@dataclass(frozen=True)
class ExtractResult:
    """What :func:`extract_text` read: the note's ``date`` (ISO) and ``title``, the named
    entities ``(name, label)``, the ``facts`` mining would store and the ``rejected``
    candidates, and the ``planned`` facts."""

    date: str
    title: str
    entities: tuple[tuple[str, str], ...]
    facts: tuple[ReadFact, ...]
    rejected: tuple[Rejection, ...]
    #: the plans mining would store as ``planned`` facts (never current)
    planned: tuple[ReadFact, ...] = ()

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README. (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def extract_text(
    text: str,
    *,
    date: dt.date,
    title: str = "",
    owner: str | None = None,
    config: "Config | None" = None,
    extractor: "Extractor | None" = None,
    path: str | None = None,
) -> ExtractResult:
    """Run the mining NLP on ``text`` (a whole note, front matter allowed) dated ``date``.

    ``title`` is the note's title (default: front matter ``title``, else its first ``#``
    heading, else empty); ``owner`` the person ``I``/``my`` stand for outside chat lines
    (default: ``config``'s ``owner``); ``config`` the settings of a palace whose
    predicates, value lexicons and date order apply. ``extractor`` reuses a loaded
    :class:`Extractor` (the eval passes one for hundreds of texts; it must trace to list
    rejections). ``path``: the note's file, when it has one (a ``.rst`` note is chunked
    as reStructuredText; its name and folders help say which design record it is).
    Nothing is stored. Raises :class:`palace.errors.UsageError` for a malformed
    ``config.json`` or front matter that cannot be read.
    """
    from palace.config import Config
    from palace.graph.temporal import load_registry, load_values
    from pathlib import PurePath

    from palace.nlp.dates import numeric_date_order
    from palace.nlp.documents import identify, note_relations
    from palace.nlp.extraction import Extraction, Extractor
    from palace.nlp.lines import LineReader
    from palace.nlp.rules import RelationRules
    from palace.nlp.sentence import Context

    config = config if config is not None else Config()
    registry = load_registry(config)
    if extractor is None:
        extractor = Extractor(rules=RelationRules.from_registry(registry, load_values(config)), trace=True)
    metadata, body_start, title = _front_matter(text, title)
    body = text[body_start:]
    where = PurePath(path) if path else None
    document = identify(where.name if where else "", [p.name for p in where.parents][:3] if where else [], title,
                        metadata, body)
    reading = _Reading(registry, date)
    front = note_relations(LineReader(extractor.rules, extractor.label_of), metadata, title, document,
                           body) if extractor.rules is not None else []
    for relation in front:
        reading.add(relation, Extraction(base=date), 1, relation.quote or "")
    context = Context(title=title, owner=owner if owner is not None else config.owner,
                      date_order=numeric_date_order(body) or config.date_order,
                      document=document.name if document else "")
    reading.read_drawers(extractor, text, body_start, context, rst=bool(where and where.suffix.casefold() == ".rst"))
    return ExtractResult(date.isoformat(), title, tuple(reading.entities), tuple(reading.facts),
                         tuple(reading.rejected), tuple(reading.planned))


def _front_matter(text: str, title: str) -> tuple[dict, int, str]:
    """The note's front matter, where its body starts, and its title (``title`` when
    given, else front matter ``title``, else its first ``#`` heading in the first 20
    lines of the body, else empty). Raises :class:`UsageError` for front matter that
    cannot be read."""
    from palace.errors import UsageError
    from palace.mine.reading import Unreadable, split_front_matter

    try:
        metadata, body_start = split_front_matter(text)
    except Unreadable as exc:
        raise UsageError(f"the text cannot be read: {exc.reason}", hint="shorten or simplify its front matter") from None
    if not title:
        title = str(metadata.get("title") or "").strip() or next(
            (line.strip()[2:].strip() for line in text[body_start:].splitlines()[:20] if line.strip().startswith("# ")),
            "")
    return metadata, body_start, title


class _Reading:
    """What :func:`extract_text` collects from one text dated ``date``: the ``facts`` mining
    would store, the ``rejected`` candidates and the named ``entities`` (in order)."""

    def __init__(self, registry: dict, date: dt.date) -> None:
        from palace.nlp.dates import DateInterval

        self.registry = registry
        self.when = DateInterval(date, date + dt.timedelta(days=1), "day")
        self.facts: list[ReadFact] = []
        self.rejected: list[Rejection] = []
        self.planned: list[ReadFact] = []
        self.entities: dict[tuple[str, str], None] = {}

    def add(self, relation, found, line: int, sentence: str) -> None:
        """Keep ``relation`` (read in ``found``, an :class:`Extraction`, at ``line``,
        quoting ``sentence``) as the fact mining would store, if its predicate is known
        and it has a subject."""
        from palace.nlp import confidence
        from palace.nlp.dates import DateInterval

        spec = self.registry.get(relation.predicate)
        if spec is None:
            return
        subject = relation.subject_name or (found.entities[relation.subject].name if relation.subject is not None else None)
        if subject is None:
            return
        obj = (found.entities[relation.object].name if relation.object is not None
               else relation.value or relation.object_name)
        day = found.base if relation.quote is None and found.base else self.when.start  # a drawer's day (a chat's)
        when = DateInterval(day, day + dt.timedelta(days=1), "day")
        plan = found.plan_time(relation, spec.kind, when) if relation.quote is None else None
        if relation.planned and plan is None:
            return  # a planned clause with no day of its own: mining keeps nothing (its rejection says why)
        time = plan or found.fact_time(relation, spec.kind, when)
        (self.planned if plan is not None else self.facts).append(ReadFact(
            subject=subject, predicate=relation.predicate, object=obj,
            valid_from=time.start.isoformat() if time.start else None,
            valid_to=time.end.isoformat() if time.end else None,
            granularity=time.granularity, evidence=relation.evidence, rule=relation.rule,
            route="one: supersedes" if spec.cardinality == "one" else "many: coexists",
            date_source=time.source, sentence=sentence, line=line, kind=spec.kind, ending=relation.ending,
            confidence=relation.confidence, planned=plan is not None,
            status="candidate" if relation.confidence < confidence.BAR else "live",
            reason=confidence.reason(relation.confidence, relation.doubts) if relation.confidence < confidence.BAR else "",
        ))

    def read_drawers(self, extractor: "Extractor", text: str, body_start: int, context, rst: bool = False) -> None:
        """Cut ``text`` into drawers (as reStructuredText when ``rst``) and read each with
        ``extractor`` (``context``: the note's :class:`palace.nlp.sentence.Context`, each
        drawer's heading added)."""
        from dataclasses import replace

        from palace.nlp.chats import chat_days
        from palace.nlp.chunking import chunk_markdown
        from palace.nlp.dates import first_dated_heading
        from palace.nlp.lines import continued_label

        # drawers as mining cuts them would need the embedder's tokenizer; a word count
        # is close enough for reading facts (a drawer only bounds pronoun look-back)
        chunks = chunk_markdown(text, body_start=body_start, max_tokens=200,
                                count_tokens=lambda texts: [len(t.split()) * 4 // 3 + 1 for t in texts], rst=rst,
                                days=[(at, day.isoformat()) for at, day in chat_days(text, body_start, context.date_order)])
        if context.topic is None and chunks:  # what the note is about, read from its opening drawer
            from palace.nlp.topic import note_topic

            context = replace(context, topic=note_topic(context.title, chunks[0].text))

        def day_of(chunk) -> dt.date:  # as mining dates a drawer: its nearest dated heading (a chat's day), else the note
            return next((d for d in (first_dated_heading(f"# {h}") for h in reversed(chunk.heading_path)) if d),
                        self.when.start)

        items = [(c.text, day_of(c), replace(context, heading=c.heading_path[-1] if c.heading_path else "",
                                             list_label=continued_label([p.text for p in chunks[:n]], c.text)))
                 for n, c in enumerate(chunks)]
        for chunk, found in zip(chunks, extractor.extract_many(items)):
            for mention in found.entities:
                self.entities.setdefault((mention.name, mention.label), None)
            for relation in (*found.relations, *found.planned):
                line = chunk.line_start + chunk.text.count("\n", 0, relation.start)
                self.add(relation, found, line, " ".join(chunk.text[relation.start:relation.end].split()))
            for candidate in found.rejected:
                self.rejected.append(Rejection(
                    sentence=" ".join(chunk.text[candidate.start:candidate.end].split()),
                    line=chunk.line_start + chunk.text.count("\n", 0, candidate.start), rule=candidate.rule,
                    predicate=candidate.predicate, reason=candidate.reason, subject=candidate.subject,
                    object=candidate.object))
