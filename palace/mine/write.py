"""The writes of a mining run: a note's ``files`` row, its drawers with their FTS rows,
the graph material of each drawer's extraction, its front-matter facts and the
timelines they touch; and the forgetting of what a changed, skipped or deleted note no
longer holds.

:class:`NoteWriter` writes the notes of one run (one wing and root) and
:class:`GraphWriter` the graph material of one note, both through
:mod:`palace.store`, inside the transactions :class:`palace.mine.run.MineRun` opens (one
per note, or per step of a long note). Entities are stored as read; the wing's
resolution repoints them at the end of the run.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from palace.graph.temporal import apply_timelines, recorded_now
from palace.mine.indexing import embed_input
from palace.mine.options import MineOptions
from palace.mine.prepare import PendingNote, drawer_date, fact_date, room_of, text_hash
from palace.nlp.dates import DateInterval
from palace.nlp.extraction import (
    COOCCURRENCE_CONFIDENCE,
    COOCCURRENCE_EXTRACTOR,
    DATES_EXTRACTOR,
    NER_CONFIDENCE,
    Extraction,
    Extractor,
    ValidTime,
    email_aliases,
)
from palace.nlp import confidence
from palace.nlp.documents import DOCUMENT_LABEL, note_relations
from palace.nlp.lines import LineReader
from palace.store import sqlite as db
from palace.store.drawers import (
    drawers_of_file,
    insert_drawer,
    remove_drawer,
    renumber_drawer,
    save_file,
    set_file_state,
)
from palace.store.graph import (
    NewFact,
    add_alias,
    add_date_mention,
    add_mention,
    entity_id,
    front_matter_facts,
    insert_fact,
    invalidate_facts,
    set_entity_type,
    timeline_groups,
    typed_facts_of_drawer,
)
from palace.store.fact_states import NEAR_INSTRUCTION, NEAR_INSTRUCTION_REASON, hold_for_review

__all__ = ["PARTIAL", "FactSite", "GraphWriter", "NoteWriter"]

#: the content hash of a note stored in part: it never equals a real one, so the next run
#: reads the note again and only its drawers not yet stored go through the NLP
PARTIAL = "partial"


@dataclass(frozen=True)
class FactSite:
    """Where the facts read in one drawer are cited: the drawer, its wing and path, the
    moment they are recorded, and ``text``, the drawer's text, whose spans they quote.
    A note's front matter is a site without text (``None``): its facts cite no span
    (``0, 0``) and quote the field as written."""

    drawer_id: str
    wing: str
    path: str
    recorded_at: str
    text: str | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The chars ``[start, end)`` a fact cites (``(0, 0)`` in front matter)."""
        return (start, end) if self.text is not None else (0, 0)

    def quote(self, start: int, end: int, quote: str | None) -> str:
        """What a fact quotes: ``quote`` when the reading gave one, else the text at
        ``[start, end)`` with its whitespace folded."""
        if self.text is None:
            return quote or ""
        return quote if quote is not None else " ".join(self.text[start:end].split())

    def relation_fact(self, relation, subject: int, obj: int | None, time: ValidTime, state: bool,
                      status: str = "live") -> NewFact:
        """The fact of a typed ``relation`` (a :class:`palace.nlp.rules.Relation`) between
        the entities ``subject`` and ``obj`` (None: a literal value or an ending), valid
        ``time``; a ``state`` keeps the end its text states; ``status``: ``live`` or
        ``planned``."""
        start, end = self.span(relation.start, relation.end)
        return NewFact(subject, relation.predicate, obj, relation.value, time.start, time.end, time.granularity,
                       self.recorded_at, self.drawer_id, self.wing, self.path, start, end,
                       self.quote(relation.start, relation.end, relation.quote), relation.extractor,
                       relation.confidence, relation.evidence, time.end if state else None, status)

    def cooccurrence_fact(self, subject: int, obj: int, pair, valid: DateInterval | None) -> NewFact:
        """The ``mentioned_with`` fact of two entities named in one sentence (``pair``: a
        :class:`palace.nlp.extraction.Cooccurrence`), valid on the sentence's date."""
        start, end = self.span(pair.start, pair.end)
        return NewFact(subject, "mentioned_with", obj, None, valid and valid.start, valid and valid.end,
                       valid and valid.granularity, self.recorded_at, self.drawer_id, self.wing, self.path,
                       start, end, self.quote(pair.start, pair.end, None), COOCCURRENCE_EXTRACTOR,
                       COOCCURRENCE_CONFIDENCE, "stated")


class GraphWriter:
    """Writes the graph material of one note (or one step of a long note): entities as
    read (each name key looked up once), mentions, aliases, date mentions and facts,
    every fact recorded at ``now`` and cited in ``wing``/``path``. ``registry``: the
    predicate registry (a relation of an unknown predicate is not stored)."""

    def __init__(self, conn: sqlite3.Connection, registry: dict, options: MineOptions, wing: str, path: str,
                 now: str) -> None:
        self.conn, self.registry, self.options = conn, registry, options
        self.wing, self.path, self.now = wing, path, now
        self.cache: dict = {}

    def entity(self, name: str, label: str) -> int:
        """The entity of ``name`` as read (created with ``label`` the first time)."""
        return entity_id(self.conn, self.cache, name, label)

    def site(self, drawer_id: str, text: str | None) -> FactSite:
        """Where the facts of ``drawer_id`` are cited (``text`` None: front matter)."""
        return FactSite(drawer_id, self.wing, self.path, self.now, text)

    def drawer(self, drawer_id: str, text: str, extraction: Extraction, when: DateInterval | None,
               ner_extractor: str) -> None:
        """Store one drawer's mentions, e-mail aliases, date mentions, co-occurrences and
        relations. ``when`` is the date its facts take when their sentence gives none
        (None: the drawer has no date of its own)."""
        ids = []
        for mention in extraction.entities:
            entity = self.entity(mention.name, mention.label)
            ids.append(entity)
            add_mention(self.conn, entity, drawer_id, mention.start, mention.end, mention.surface, mention.label,
                        ner_extractor, NER_CONFIDENCE)
        for index, address in email_aliases(text, extraction.entities):
            add_alias(self.conn, ids[index], address, "e-mail")
        for date in extraction.dates:
            add_date_mention(self.conn, drawer_id, date.start, date.end, date.surface, date.interval,
                             DATES_EXTRACTOR)
        site = self.site(drawer_id, text)
        self._cooccurrences(site, extraction, ids, when)
        for relation in (*extraction.relations, *extraction.planned):
            self.relation(site, relation, extraction, ids, when)
        if extraction.instruction:  # the section's readings wait for the user: planted beside an instruction?
            hold_for_review(self.conn, typed_facts_of_drawer(self.conn, drawer_id),
                            f"{NEAR_INSTRUCTION_REASON} ({extraction.instruction!r}); "
                            f"palace review accept --all-from {NEAR_INSTRUCTION}")

    def _cooccurrences(self, site: FactSite, extraction: Extraction, ids: list[int],
                       when: DateInterval | None) -> None:
        """One ``mentioned_with`` fact per pair of entities of a sentence, at most
        :attr:`MineOptions.cooccurrences_per_drawer` per drawer."""
        paired: set[tuple[int, int]] = set()
        for pair in extraction.cooccurrences:
            subject, obj = ids[pair.subject], ids[pair.object]
            if subject == obj or (min(subject, obj), max(subject, obj)) in paired:
                continue
            if len(paired) == self.options.cooccurrences_per_drawer:
                break
            paired.add((min(subject, obj), max(subject, obj)))
            valid = extraction.sentence_date(extraction.entities[pair.subject].sentence, when)
            insert_fact(self.conn, site.cooccurrence_fact(subject, obj, pair, valid))

    def relation(self, site: FactSite, relation, extraction: Extraction, ids: list[int],
                 when: DateInterval | None) -> tuple[int, str] | None:
        """Store one typed relation: its subject and object entities (a mention's, or one
        named outright: a chat line's speaker, the note a key–value line or front-matter
        field is about) and its valid time as the text states it
        (:meth:`Extraction.fact_time`, ``when`` when it gives none). Returns the
        ``(subject, predicate)`` group it joined, or None when nothing was stored."""
        spec = self.registry.get(relation.predicate)
        if spec is None:
            return None
        if relation.subject_name:
            label = relation.subject_label or (extraction.entities[relation.subject].label
                                               if relation.subject is not None else "CONCEPT")
            subject = self.entity(relation.subject_name, label)
        elif relation.subject is not None:
            subject = ids[relation.subject]
        else:
            return None
        obj = ids[relation.object] if relation.object is not None else None
        if obj is None and relation.object_name:
            obj = self.entity(relation.object_name, relation.object_label or "CONCEPT")
        if obj is not None and obj == subject:
            return None
        plan = extraction.plan_time(relation, spec.kind, when) if site.text is not None else None
        if relation.planned and plan is None:
            return None  # a planned clause with no day of its own: nothing to keep
        time = plan or extraction.fact_time(relation, spec.kind, when)
        fact = insert_fact(self.conn, site.relation_fact(relation, subject, obj, time, spec.kind == "state",
                                                         "planned" if plan is not None else "live"))
        if plan is not None:
            return None
        if relation.confidence < confidence.BAR:  # too unsure to take as it stands: a candidate
            hold_for_review(self.conn, [fact], confidence.reason(relation.confidence, relation.doubts))
        return subject, relation.predicate


class NoteWriter:
    """The writes of one run over ``root``, mined as ``wing``: each inside the caller's
    transaction unless it says otherwise. ``registry``: the predicate registry (for the
    timelines); ``options``: the run's budget."""

    def __init__(self, conn: sqlite3.Connection, wing: str, root: Path, registry: dict,
                 options: MineOptions) -> None:
        self.conn, self.wing, self.root, self.registry, self.options = conn, wing, root, registry, options

    def record_file(self, rel: str, status: str, reason: str, previous: sqlite3.Row | None) -> None:
        """Record, in a transaction of its own, a path that was not mined (``skipped`` or
        ``failed``, with its reason); a note stored before keeps its drawers."""
        with db.transaction(self.conn):
            set_file_state(self.conn, wing=self.wing, root=str(self.root), path=rel, room=room_of(rel.rstrip("/")),
                           status=status, reason=reason, at=recorded_now(),
                           previous_id=previous["id"] if previous is not None else None)

    def forget_drawers(self, file_row: sqlite3.Row | None, *, reason: str, keep: set[str] | None = None) -> int:
        """Remove a file's drawers (except ``keep``) from SQLite and FTS, tombstone their
        vectors and invalidate the facts drawn only from them (``reason`` says why);
        the timelines they held are recomputed (a retracted value reopens the one before
        it). Returns how many were removed."""
        if file_row is None:
            return 0
        gone = [r for r in drawers_of_file(self.conn, file_row["id"]) if not keep or r["id"] not in keep]
        now = recorded_now()
        for row in gone:
            invalidate_facts(self.conn, at=now, reason=reason, drawer_id=row["id"])
            remove_drawer(self.conn, row["rowid"], row["id"])
        self.retime([row["id"] for row in gone])
        return len(gone)

    def retime(self, drawer_ids: list[str], groups: set | None = None) -> None:
        """Recompute the timelines of the subjects whose facts these drawers hold (and of
        ``groups``, more ``(subject_id, predicate)`` pairs)."""
        groups = set(groups or ()) | timeline_groups(self.conn, drawer_ids)
        if groups:
            apply_timelines(self.conn, [tuple(g) for g in groups], self.registry)

    def write_step(self, item: PendingNote, previous: sqlite3.Row | None, extractor: Extractor,
                   step: list[int]) -> int:
        """Store one step of a long note — the new drawers ``step`` (indexes into its
        chunks), their FTS rows, graph material and timelines — and mark the note stored
        in part. A kill or a stop after it loses none of it: the next run keeps these
        drawers, as it keeps any unchanged drawer, and reads only the rest. Returns the
        file id."""
        now = recorded_now()
        item.stored.update(step)
        file_id = self._save_note(item, previous, now, partial=True)
        graph = GraphWriter(self.conn, self.registry, self.options, self.wing, item.rel, now)
        for index in step:
            self._write_drawer(graph, item, index, file_id, extractor.ner_extractor)
        self.retime([item.drawer_ids[i] for i in step])
        return file_id

    def write_file(self, item: PendingNote, previous: sqlite3.Row | None, extractor: Extractor) -> int:
        """Replace one note's drawers and graph material (those of its steps already
        stored, :meth:`write_step`, stay); returns the file id."""
        note = item.note
        now = recorded_now()
        file_id = self._save_note(item, previous, now, partial=False)
        graph = GraphWriter(self.conn, self.registry, self.options, self.wing, item.rel, now)
        if note.aliases:
            concept = graph.entity(note.title, "CONCEPT")
            for alias in note.aliases:
                add_alias(self.conn, concept, alias, "front matter")
        if item.topic is not None:  # the note's own subject is a known name, whatever the recogniser read
            topic = graph.entity(item.topic.name, item.topic.label)
            if item.topic.title != item.topic.name:
                add_alias(self.conn, topic, item.topic.title, "title")
        ner_extractor = extractor.ner_extractor if item.new else ""
        for index, chunk in enumerate(item.chunks):
            if index in item.stored:
                continue
            if item.drawer_ids[index] in item.keep:
                renumber_drawer(self.conn, item.drawer_ids[index], chunk)
                continue
            self._write_drawer(graph, item, index, file_id, ner_extractor)
        groups = self._front_matter_facts(graph, item, extractor)
        self.retime([item.drawer_ids[i] for i in item.new if i not in item.stored], groups)
        return file_id

    def _save_note(self, item: PendingNote, previous: sqlite3.Row | None, now: str, *, partial: bool) -> int:
        """Write the note's ``files`` row; the first time (not after a step), first forget
        the previous version's drawers that are not kept."""
        if item.file_id is None and previous is not None:
            self.forget_drawers(previous, reason="file changed: text no longer there", keep=item.keep)
        previous_id = item.file_id if item.file_id is not None else previous["id"] if previous is not None else None
        item.file_id = save_file(self.conn, self._file_values(item, now, partial=partial), previous_id)
        return item.file_id

    def _file_values(self, item: PendingNote, now: str, *, partial: bool) -> dict:
        """The ``files`` row of a note; a note stored in part (:meth:`write_step`) gets the
        hash :data:`PARTIAL` and size -1, so no later run takes it for unchanged."""
        note = item.note
        read = len(item.stored)
        return dict(
            wing=self.wing, root=str(self.root), path=item.rel, room=item.room, size=-1 if partial else note.size,
            mtime=note.mtime, content_hash=PARTIAL if partial else note.content_hash, status="indexed",
            reason=f"stored in part: {read} of {len(item.new)} new drawers; the next run reads the rest"
            if partial else "",
            encoding=note.encoding, title=note.title, doc_date=note.doc_date.isoformat(),
            doc_date_source=note.doc_date_source, tags=json.dumps(list(note.tags)),
            aliases=json.dumps(list(note.aliases)), words=item.words, mined_at=now,
        )

    def _write_drawer(self, graph: GraphWriter, item: PendingNote, index: int, file_id: int,
                      ner_extractor: str) -> None:
        """Insert one new drawer of ``item`` with its FTS row and the graph material its
        extraction holds (dropped from memory once written)."""
        note, chunk, did = item.note, item.chunks[index], item.drawer_ids[index]
        when = drawer_date(note, chunk)
        insert_drawer(self.conn, drawer_id=did, file_id=file_id, chunk=chunk, text_hash=text_hash(chunk.text),
                      embed_hash=text_hash(embed_input(note.title, chunk.heading_path, chunk.text)),
                      date_start=when.start.isoformat(), date_end=when.end.isoformat(),
                      date_granularity=when.granularity, title=note.title, path=item.rel)
        extraction = item.extractions.pop(index, None)
        if extraction is not None:
            graph.drawer(did, chunk.text, extraction, fact_date(note, chunk), ner_extractor)

    def _front_matter_facts(self, graph: GraphWriter, item: PendingNote, extractor: Extractor) -> set:
        """Facts of the note's front-matter fields (``status:``, ``owner:``, ``lead:``…),
        cited by the field and attached to the note's first drawer. They are rewritten
        only when the fields changed: the old ones are invalidated, so history keeps them.
        Returns the ``(subject_id, predicate)`` groups touched, for their timelines."""
        rules = extractor.rules
        if rules is None or not item.drawer_ids:
            return set()
        note = item.note
        relations = note_relations(LineReader(rules, extractor.label_of), note.metadata, note.title, note.document,
                                   note.body)
        rows = front_matter_facts(self.conn, self.wing, item.rel)
        # (a first drawer that changed took its facts with it when it left)
        if sorted((r["predicate"], r["sentence"]) for r in rows) == sorted((r.predicate, r.quote) for r in relations):
            return set()
        groups = {(r["subject_id"], r["predicate"]) for r in rows}
        if rows:
            invalidate_facts(self.conn, at=graph.now, reason="front matter changed", fact_ids=[r["id"] for r in rows])
        day = item.note.doc_date
        when = None if item.note.doc_date_source == "mtime" else DateInterval(day, day + dt.timedelta(days=1), "day")
        site, empty = graph.site(item.drawer_ids[0], None), Extraction(base=day)
        for relation in relations:
            group = graph.relation(site, relation, empty, [], when)
            if group is not None:
                groups.add(group)
        if note.document is not None:  # the record is a DOCUMENT, also known by its title
            record = graph.entity(note.document.name, DOCUMENT_LABEL)
            set_entity_type(self.conn, record, DOCUMENT_LABEL)
            for alias in note.document.aliases:
                add_alias(self.conn, record, alias, "document")
        return groups
