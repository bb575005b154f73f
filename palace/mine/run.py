"""The mine flow as a run: decide → prepare → store → resolve → report.

One code path mines a file, whether it comes from ``palace mine``
(:meth:`palace.core.Palace.mine`, which holds the write lock) or from the watcher
(:mod:`palace.mine.watch`, which takes it for each step). A :class:`MineRun` receives
what it uses — the :class:`~palace.store.store.Store`, the :class:`~palace.config.Config`,
the predicate registry, its budget (:class:`~palace.mine.options.MineOptions`) and its
:class:`~palace.mine.options.MineCallbacks` — never the handle, and keeps the state its
stages share; it returns a :class:`~palace.mine.outcomes.MineReport`.

How the work is laid out, for speed on a laptop's two cores:

1. **decide**: discovery and change detection (size + mtime, then the content hash)
   decide which files need work; an unchanged folder costs a walk and a few ``stat``
   calls, and no NLP and no embedding at all. A note that left one path while its bytes
   appeared at another moved; one that left for good is deleted.
2. **prepare**: changed files are read, decoded and chunked
   (:mod:`palace.mine.prepare`); a drawer whose id already exists (same file, same text,
   same date) keeps its row, mentions, facts and vector, so only new drawers go through
   spaCy.
3. **store**: spaCy runs in the main thread over all new drawers (``nlp.pipe``, batched
   across files); each file is committed to SQLite in one transaction as soon as its
   drawers are done (:mod:`palace.mine.write`), a long note in steps. A worker thread
   embeds committed drawers (onnxruntime releases the GIL, so it runs on the other core
   while spaCy works) and upserts them into the vector store; a drawer is marked
   ``embedded`` only after the store has it, so a killed run is finished by the next one.
4. **resolve**: entity resolution of the wing runs once, at the end
   (:func:`finish_resolution`), with the template lines of the wing counted again
   (:mod:`palace.graph.templates`). A run that stores or deletes anything first records that
   the wing owes a resolution (:func:`palace.store.runs.mark_resolution_pending`);
   resolution clears it when it commits, so a run killed in between is resolved by the
   next one even if every note is then unchanged.
5. **report**: the run is recorded (``mine_runs``) and summed up in a :class:`MineReport`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import threading
import time
from pathlib import Path
from typing import Collection, Generator, Iterator

from palace.config import Config
from palace.errors import UsageError
from palace.graph.corrections import mark_candidates, replay
from palace.graph.lowercase import link_lowercase_mentions
from palace.graph.resolution import resolve_wing
from palace.graph.templates import mark_templates
from palace.graph.temporal import load_values, recorded_now
from palace.mine.discovery import Decision, PathFilter, decide_paths, walk
from palace.mine.indexing import EmbedWorker, find_lost_vectors, flush_tombstones, one_core, unembedded
from palace.mine.options import MineCallbacks, MineOptions, nlp_processes
from palace.mine.outcomes import FileOutcome, MineReport
from palace.mine.prepare import PendingNote, bytes_hash, drawer_date, prepare_note
from palace.mine.reading import GitDates, Note, Unreadable, read_note
from palace.mine.write import NoteWriter
from palace.nlp.extraction import Extractor
from palace.nlp.lines import continued_label
from palace.nlp.rules import RelationRules
from palace.nlp.sentence import Context
from palace.store import sqlite as db
from palace.store.drawers import (
    embed_hashes_of_file,
    forgotten_paths,
    move_file,
    move_wing_root,
    opening_of,
    path_hash,
)
from palace.store.entities import count_entities
from palace.store.files import delete_file, file_rows, has_file, touch_file, wing_roots
from palace.store.graph import count_live_facts
from palace.store.runs import (
    clear_resolution_pending,
    mark_resolution_pending,
    pending_resolutions,
    record_mine_run,
    resolution_pending,
)
from palace.store.store import Store
from palace.store.upkeep import count_drawers

__all__ = ["FORGOTTEN", "MineRun", "finish_resolution", "pending_resolutions"]

#: why a note ``palace forget`` removed is not mined again
FORGOTTEN = "forgotten (palace forget); `palace forget --allow PATH` lets it be mined again"


#: what the NLP of a run yields: a note, why it failed ("" when it did not), and the
#: indexes of a long note's step that was read (empty once the note is complete)
Extracted = tuple[PendingNote, str, list[int]]


class MineRun:
    """One mining run of a folder into a wing: :meth:`mine` goes through the stages
    decide (:meth:`decide`, :meth:`decide_departures`), prepare (:meth:`prepare`), store
    (:meth:`store_notes`), resolve (:meth:`resolve`) and report (:meth:`report`).

    ``store``, ``config`` and ``registry`` (the predicate registry) are what it reads and
    writes; ``options`` its budget (default :class:`MineOptions`); ``callbacks`` whom it
    tells and what stops it (:class:`MineCallbacks`). A run holds no lock: the caller
    holds the palace's write lock (:meth:`palace.core.Palace.mine`, the watcher's step).
    Make one run per call of :meth:`mine`. A subclass may replace a stage or the two
    reads tests steer (:meth:`walk_root`, :meth:`read`), e.g. to simulate a kill."""

    def __init__(self, store: Store, config: Config, registry: dict, options: MineOptions | None = None,
                 callbacks: MineCallbacks | None = None) -> None:
        self.store, self.config, self.registry = store, config, registry
        self.options = options or MineOptions()
        self.callbacks = callbacks or MineCallbacks()
        self.cancel = self.callbacks.cancel or threading.Event()
        # what the stages share, set as the run goes
        self.root = Path()
        self.wing = ""
        self.wanted: set[str] | None = None  # a watcher's step: only these paths
        self.known: dict[str, sqlite3.Row] = {}  # the files rows of the wing (or of the step's paths) by path
        self.seen: set[str] = set()
        self.unreadable: list[str] = []  # folders the walk could not read: nothing under them is deleted
        self.outcomes: list[FileOutcome] = []
        self.pending: list[PendingNote] = []
        self.git_dates: GitDates | None = None
        self.writer: NoteWriter | None = None
        self.extractor: Extractor | None = None
        self.worker: EmbedWorker | None = None
        self.submitted: set[str] = set()  # drawer ids handed to the embed worker
        self.embedded = 0

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection to ``palace.db``."""
        return self.store.conn

    def mine(self, root: Path, *, wing: str | None = None, paths: Collection[str] | None = None) -> "MineReport":
        """Mine ``root`` into ``wing`` (default: the folder's name); return a :class:`MineReport`.

        ``paths`` (relative, POSIX) limits the run to those paths — the watcher's step; a
        listed path that no longer exists is deleted. A file whose size and mtime are
        unchanged is skipped unless :attr:`MineOptions.verify` (then its bytes are
        hashed: an edit that kept both is found). A note that left one path while a note
        with the same bytes appeared at another is **moved**: its drawers, facts and
        vectors follow it, nothing is re-embedded. Once ``cancel`` is set the run ends
        early and cleanly: the files stored so far stay, drawers not yet embedded are
        embedded by the next run, the rest waits for it; it is checked between drawers,
        so a stop waits at most for the spaCy batch at hand (128 drawers), never for the
        rest of a long note.

        Work budget (:class:`MineOptions`): notes of more than ``large_note_drawers`` new
        drawers are read after all the others, so one huge note never holds back the
        notes saved beside it, and are stored in steps of that many drawers, each its own
        transaction: a stop or a kill loses at most one step, and the next run reads only
        the drawers not yet stored. Raises :class:`UsageError` if ``root`` is not a
        folder or holds another folder's wing, :class:`palace.errors.ModelMismatch` for
        a palace of another embedding model. A file that fails is recorded with its
        reason and the run goes on."""
        started, started_at = time.perf_counter(), recorded_now()
        self._begin(Path(root), wing, paths)
        for rel, path, previous in self.decide(paths):
            self.prepare(rel, path, previous)
        self.decide_departures()
        self._start_embedding()
        try:
            self.store_notes()
            self.resolve()
        finally:
            self.embedded = self.worker.finish(self._phase_vectors if self.callbacks.on_phase else None)
        flush_tombstones(self.store)
        db.private(self.store.path)  # the files Chroma and SQLite made during the run: owner-only
        return self.report(started, started_at)

    def _begin(self, root: Path, wing: str | None, paths: Collection[str] | None) -> None:
        """Check the folder, its wing and the embedding model; find lost vectors."""
        root = root.expanduser()
        if not root.is_dir():
            raise UsageError(f"not a folder: {root}", hint="give `palace mine` a folder of notes")
        self.root = root.resolve()
        self.wing = wing or self.root.name or "root"
        self.wanted = set(paths) if paths is not None else None
        self.writer = NoteWriter(self.conn, self.wing, self.root, self.registry, self.options)
        self._check_wing_root()
        self.store.check_model(record=True)
        if paths is None or self.store.vectors.lost():
            # every vector is checked by a whole mine (or a store gone); a watcher's step of
            # named notes does not count the palace's drawers for each save
            find_lost_vectors(self.store)

    def _check_wing_root(self) -> None:
        """A wing holds one root folder. Mining another folder of the same name into it
        would delete the first folder's drawers, so it is refused with a hint; a wing
        whose old root no longer exists (the folder was moved) follows it to the new place."""
        roots = wing_roots(self.conn, self.wing)
        others = [r for r in roots if r != str(self.root) and Path(r).exists()]
        if others:
            raise UsageError(
                f"the wing {self.wing!r} already holds {others[0]}, not {self.root}",
                hint=f"pass --wing NAME to mine {self.root} as a wing of its own",
            )
        if roots and str(self.root) not in roots:
            with db.transaction(self.conn):
                move_wing_root(self.conn, self.wing, str(self.root))

    def done(self, outcome: "FileOutcome") -> None:
        """Record what happened to one path, and tell ``on_file``."""
        self.outcomes.append(outcome)
        if self.callbacks.on_file is not None:
            self.callbacks.on_file(outcome)

    def _record(self, rel: str, status: str, reason: str, previous: sqlite3.Row | None) -> None:
        """A path that was not mined (skipped or failed): its row and its outcome."""
        self.writer.record_file(rel, status, reason, previous)
        self.done(FileOutcome(rel, status, reason))

    # -- decide ------------------------------------------------------------------------

    def decide(self, paths: Collection[str] | None) -> Iterator[tuple[str, Path, sqlite3.Row | None]]:
        """The decide stage, path by path: a forgotten note is skipped, a skipped path's
        old drawers leave search, a note whose size and mtime (and, with ``verify``,
        bytes) are unchanged is done. Yields ``(rel, path, previous row)`` of each note
        that must be read (:meth:`prepare`); stops once ``cancel`` is set."""
        decisions = self._decisions(paths)
        if self.callbacks.on_start is not None:
            self.callbacks.on_start(len(decisions))
        self.known = file_rows(self.conn, self.wing, self.wanted)  # a step costs its notes, not the wing
        self.unreadable = [d.path for d in decisions if d.is_dir and d.reason.startswith("unreadable folder")]
        forgotten = forgotten_paths(self.conn)  # read once: a walk of many notes asks for each
        self.git_dates = GitDates(self.root)
        for decision in decisions:
            if self.cancel.is_set():
                break
            rel = decision.path + ("/" if decision.is_dir else "")
            self.seen.add(rel)
            previous = self.known.get(rel)
            if forgotten and not decision.is_dir and path_hash(self.wing, rel) in forgotten:
                self.done(FileOutcome(rel, "skipped", FORGOTTEN))  # not even its name is recorded
            elif decision.action == "skip":
                if previous is not None and previous["status"] == "indexed":
                    # a note ignored after it was mined leaves search, as a deleted one does
                    with db.transaction(self.conn):
                        self.writer.forget_drawers(previous, reason=f"file now skipped: {decision.reason}")
                self._record(rel, "skipped", decision.reason, previous)
            elif self._changed(rel, self.root / decision.path, previous):
                yield rel, self.root / decision.path, previous

    def _decisions(self, paths: Collection[str] | None) -> list[Decision]:
        """What discovery decides for the step's ``paths`` (found without a walk when it
        can be) or for every path under the root, the palace's own folder left out."""
        decisions = decide_paths(self.root, paths) if paths is not None else None
        if decisions is None:
            decisions = self.walk_root()
        try:  # a palace kept inside the folder it mines is not part of the notes
            inside = self.store.path.resolve().relative_to(self.root).as_posix()
            decisions = [d for d in decisions if d.path != inside and not d.path.startswith(inside + "/")]
        except ValueError:
            pass
        if self.wanted is not None:
            decisions = [d for d in decisions if d.path in self.wanted and not d.is_dir]
        return decisions

    def walk_root(self) -> list[Decision]:
        """Every path under the root with its decision (:func:`palace.mine.discovery.walk`):
        a whole run's listing, and a step's when its paths need the walk."""
        return list(walk(self.root, PathFilter(self.root)))

    def _changed(self, rel: str, path: Path, previous: sqlite3.Row | None) -> bool:
        """Whether the note at ``path`` must be read; a note gone meanwhile is recorded as
        failed, an unchanged one as done."""
        try:
            st = path.stat()
        except OSError:
            self._record(rel, "failed", "vanished before it could be read", previous)
            return False
        if (
            previous is not None
            and previous["status"] == "indexed"
            and previous["size"] == st.st_size
            and previous["mtime"] == st.st_mtime
            and not (self.options.verify and bytes_hash(path) != previous["content_hash"])
        ):
            self.done(FileOutcome(rel, "unchanged"))
            return False
        return True

    def decide_departures(self) -> None:
        """The decide stage's end, once every path was seen: a note that left one path
        while its bytes appeared at another moved (:meth:`_moves`); one that left for
        good is deleted (its facts invalidated, not erased). A walk cut short has not seen
        every file: it deletes nothing. Before anything of the wing changes, the wing is
        marked as owing a resolution."""
        vanished = [
            row for rel, row in self.known.items()
            if rel not in self.seen and not self._under_unreadable(rel) and (self.wanted is None or rel in self.wanted)
        ] if not self.cancel.is_set() else []
        vanished = self._moves(vanished)
        if self.pending or vanished or any(o.status == "moved" for o in self.outcomes):
            # recorded before any note is stored: a kill before resolution commits leaves it
            # set, and the next run resolves the wing even when every note is then unchanged
            with db.transaction(self.conn):
                mark_resolution_pending(self.conn, self.wing, recorded_now())
        for row in vanished:
            with db.transaction(self.conn):
                self.writer.forget_drawers(row, reason="file deleted")
                delete_file(self.conn, row["id"])
            self.done(FileOutcome(row["path"], "deleted", "no longer under the root"))

    def _under_unreadable(self, rel: str) -> bool:
        return any(u == "." or rel.startswith(u.rstrip("/") + "/") for u in self.unreadable)

    def _moves(self, vanished: list[sqlite3.Row]) -> list[sqlite3.Row]:
        """Pair each vanished note with a new note of the same bytes under another path: a
        move. The file row takes the new path and room, its drawers keep their ids and
        text, its facts their history (their ``path`` follows), and its vectors are
        re-written to the vector store with the new metadata from the vectors already
        stored (the drawers are marked unembedded; the embedding worker finds their
        vectors by ``embed_hash``). A move that would change what the note's name says
        (its date or, lacking a heading, its title) is left as a deletion and a new note.
        Returns the vanished rows left; the moved notes leave :attr:`pending`."""
        by_hash: dict[str, list] = {}
        for row in vanished:
            if row["status"] == "indexed" and row["content_hash"]:
                by_hash.setdefault(row["content_hash"], []).append(row)
        if not by_hash:
            return vanished
        moved_rows: set[int] = set()
        left: list[PendingNote] = []
        for item in self.pending:
            row = self._moved_from(item, by_hash, moved_rows)
            if row is None:
                left.append(item)
                continue
            moved_rows.add(row["id"])
            with db.transaction(self.conn):
                move_file(self.conn, row["id"], wing=row["wing"], old_path=row["path"], path=item.rel, room=item.room,
                          root=str(self.root), mtime=item.note.mtime, size=item.note.size, at=recorded_now())
            self.done(FileOutcome(item.rel, "moved", f"from {row['path']}"))
        self.pending = left
        return [r for r in vanished if r["id"] not in moved_rows]

    def _moved_from(self, item: PendingNote, by_hash: dict[str, list], moved_rows: set[int]) -> sqlite3.Row | None:
        """The vanished row ``item`` moved from: same bytes, same date and title, not yet
        paired, and no row of its own at the new path."""
        note = item.note
        candidates = [r for r in by_hash.get(note.content_hash, ()) if r["id"] not in moved_rows]
        day = note.doc_date.isoformat() if note.doc_date else None
        row = next((r for r in candidates if r["doc_date"] == day and r["title"] == note.title), None)
        if row is None or has_file(self.conn, row["wing"], item.rel):
            return None
        return row

    # -- prepare -----------------------------------------------------------------------

    def prepare(self, rel: str, path: Path, previous: sqlite3.Row | None) -> None:
        """The prepare stage of one note: read it (a note that cannot be read is recorded
        with its reason; one now binary or too large leaves search), find it unchanged by
        its bytes' hash, else chunk it, keeping the drawers an earlier run stored."""
        try:
            note = self.read(path)
        except Unreadable as exc:
            if exc.status == "skipped":  # binary or too large now: its old text leaves search
                with db.transaction(self.conn):
                    self.writer.forget_drawers(previous, reason=f"file now skipped: {exc.reason}")
            # a failure (permission, vanished mid-run) may pass: what was stored stays
            self._record(rel, exc.status, exc.reason, previous)
            return
        if previous is not None and previous["status"] == "indexed" and previous["content_hash"] == note.content_hash:
            touch_file(self.conn, previous["id"], mtime=note.mtime, size=note.size)
            self.done(FileOutcome(rel, "unchanged"))
            return
        try:
            stored = embed_hashes_of_file(self.conn, previous["id"]) if previous is not None else {}
            opening = opening_of(self.conn, previous["id"]) if previous is not None else None
            self.pending.append(prepare_note(self.wing, rel, note, stored, self.store.embedder, opening))
        except Exception as exc:  # a chunking bug must not stop the run
            self._record(rel, "failed", f"could not chunk: {exc}", previous)

    def read(self, path: Path) -> Note:
        """Read one note (:func:`palace.mine.reading.read_note`, dated by its git history
        where it has one). Raises :class:`palace.mine.reading.Unreadable`."""
        return read_note(path, self.git_dates, self.config.date_order)

    # -- store -------------------------------------------------------------------------

    def _start_embedding(self) -> None:
        """Start the embed worker, first with the drawers an earlier run left unembedded."""
        self.worker = EmbedWorker(self.store, one_core(self.store.embedder), self.cancel)
        self.worker.start()
        leftovers = unembedded(self.conn)
        self.submitted = {item[0] for item in leftovers}
        self.worker.submit(leftovers)

    def store_notes(self) -> None:
        """The store stage: run the NLP over the prepared notes (small notes first) and
        store each one in its own transaction — a long note in steps — handing its new
        drawers to the embed worker as soon as it is committed. Stops between drawers once
        ``cancel`` is set: a complete note not yet stored is left for the next run, a step
        of a long note that was read is stored first."""
        processes = nlp_processes(sum(len(item.new) for item in self.pending), self.config, self.options)
        self.extractor = self.store.extractor(RelationRules.from_registry(self.registry, load_values(self.config)),
                                              processes)
        # spaCy's string store keeps every new token; a memory zone frees those of this
        # run once it ends (the watcher mines for days; nothing of a Doc outlives the loop)
        zone = self.extractor.memory_zone() if self.pending else contextlib.nullcontext()
        with zone:
            self.pending.sort(key=lambda item: len(item.new) > self.options.large_note_drawers)  # stable
            failed: set[str] = set()
            for item, failure, step in self._extractions():
                if self.cancel.is_set() and not step:  # a step that was read is stored: the stop comes right after it
                    break
                if item.rel in failed:  # a step of it could not be stored: the rest is not either
                    continue
                if failure:
                    self._record(item.rel, "failed", failure, self.known.get(item.rel))
                elif not self._store(item, step):
                    failed.add(item.rel)

    def _store(self, item: PendingNote, step: list[int]) -> bool:
        """Store a note, or one ``step`` of a long note, in one transaction, and hand its
        new drawers to the embed worker. False (the note recorded as failed) when it
        could not be stored."""
        previous = self.known.get(item.rel)
        try:
            with db.transaction(self.conn):
                if step:
                    file_id = self.writer.write_step(item, previous, self.extractor, step)
                else:
                    file_id = self.writer.write_file(item, previous, self.extractor)
        except Exception as exc:
            self._record(item.rel, "failed", f"could not store: {exc}", previous)
            return False
        fresh = [d for d in unembedded(self.conn, file_id) if d[0] not in self.submitted]
        self.submitted.update(d[0] for d in fresh)
        self.worker.submit(fresh)
        if not step:
            self.done(FileOutcome(item.rel, "indexed", "", len(item.chunks), item.words))
        return True

    def _extractions(self) -> Iterator[Extracted]:
        """Run NER over the new drawers of every prepared note; yield each note when
        complete: ``(item, "", [])``, or ``(item, reason, [])`` if spaCy failed on it,
        and for a note of more than ``large_note_drawers`` new drawers, before it is
        complete, ``(item, "", step)`` each time another step of that many drawers was
        read. Yields nothing more once ``cancel`` is set (checked between drawers)."""
        if not any(item.new for item in self.pending):  # nothing new to read: no spaCy at all
            for item in self.pending:
                yield item, "", []
            return
        results = self.extractor.extract_many(self._texts())
        for item in self.pending:
            stopped = yield from self._extract_note(item, results)
            if stopped:
                return

    def _texts(self) -> Iterator[tuple[str, dt.date, Context]]:
        """The new drawers of every prepared note, in order, as the extractor reads them:
        text, date, and context (title, heading, who ``I`` is: ``config.json``'s
        ``owner`` in notes that are not chat lines)."""
        for item in self.pending:
            for index in item.new:
                chunk = item.chunks[index]
                context = Context(title=item.note.title, heading=chunk.heading_path[-1] if chunk.heading_path else "",
                                  owner=self.config.owner, date_order=item.note.date_order, topic=item.topic,
                                  document=item.note.document.name if item.note.document else "",
                                  list_label=continued_label([c.text for c in item.chunks[max(0, index - 4):index]],
                                                             chunk.text))
                yield chunk.text, drawer_date(item.note, chunk).start, context

    def _extract_note(self, item: PendingNote, results: Iterator) -> Generator[Extracted, None, bool]:
        """Take the extractions of ``item``'s new drawers from ``results``, reporting a
        long note's progress every ``progress_every`` drawers and yielding its steps.
        Returns True when the run must read no further (``cancel``, or the NLP ended)."""
        total = len(item.new)
        every, large = self.options.progress_every, self.options.large_note_drawers
        report = self.callbacks.on_progress if total > every else None
        step: list[int] = []
        for read, index in enumerate(item.new, 1):
            if self.cancel.is_set():
                return True
            try:
                item.extractions[index] = next(results)
            except StopIteration:
                yield item, "NLP stopped early", []
                return True
            step.append(index)
            if report is not None and (read % every == 0 or read == total):
                report(item.rel, read, total)
            if total > large and len(step) == large and read < total:
                yield item, "", step
                step = []
        yield item, "", []
        return False

    # -- resolve and report ------------------------------------------------------------

    def _phase_vectors(self, done: int, total: int) -> None:
        """Tell ``on_phase`` how far the vectors of the run are: ``done`` of ``total`` drawers."""
        self.callbacks.on_phase("vectors", done, total)

    def resolve(self) -> None:
        """The resolve stage: when the run changed anything, or an earlier run left the
        wing's resolution owed, link lower-case names, resolve the wing's entities and
        replay the user's decisions (:func:`finish_resolution`)."""
        if any(o.status != "unchanged" for o in self.outcomes) or resolution_pending(self.conn, self.wing):
            if self.callbacks.on_phase:
                self.callbacks.on_phase("resolving", 0, 0)
            finish_resolution(self.conn, self.wing, self.registry, self.config)

    def report(self, started: float, started_at: str) -> "MineReport":
        """The report stage: record the run in ``mine_runs`` and sum it up (``started``:
        its ``perf_counter``; ``started_at``: its ISO moment)."""
        elapsed = time.perf_counter() - started
        words = sum(o.words for o in self.outcomes if o.status == "indexed")
        counts = {status: 0 for status in ("indexed", "unchanged", "moved", "skipped", "failed", "deleted")}
        for outcome in self.outcomes:
            counts[outcome.status] += 1
        with db.transaction(self.conn):
            record_mine_run(self.conn, wing=self.wing, started_at=started_at, finished_at=recorded_now(),
                            indexed=counts["indexed"] + counts["moved"], deleted=counts["deleted"])
        return MineReport(
            palace=str(self.store.path), wing=self.wing, root=str(self.root),
            indexed=counts["indexed"], unchanged=counts["unchanged"], moved=counts["moved"],
            skipped=counts["skipped"], failed=counts["failed"], deleted=counts["deleted"],
            drawers=count_drawers(self.conn), new_drawers=sum(len(p.new) for p in self.pending),
            embedded=self.embedded, entities=count_entities(self.conn), facts=count_live_facts(self.conn),
            words=words, elapsed_s=round(elapsed, 3), words_per_s=round(words / elapsed, 1) if elapsed > 0 else 0.0,
            outcomes=tuple(self.outcomes),
        )


def finish_resolution(conn: sqlite3.Connection, wing: str, registry: dict, config: Config | None = None) -> None:
    """Link lower-case names, re-resolve ``wing``'s entities and replay the user's fact
    decisions (:func:`palace.graph.corrections.replay`), then clear its
    ``resolution_pending`` mark, in two transactions. A kill between them leaves the mark set, and the next
    run (``palace mine`` or ``palace doctor --repair``) does both again: each is a
    function of the stored drawers, so doing it twice ends as doing it once."""
    with db.transaction(conn):
        link_lowercase_mentions(conn, wing)
    with db.transaction(conn):
        resolve_wing(conn, wing, registry)
        mark_templates(conn, wing, registry)  # lines repeated across notes: counts of the whole wing
        if config is not None:  # facts this wing's trust settings send to review
            mark_candidates(conn, config, wing, registry)
        replay(conn, registry)  # the user's decisions, on the facts read again
        clear_resolution_pending(conn, wing)


