"""The mine flow: discover → read → chunk → NLP → graph → SQLite commit → embed → Chroma.

One code path mines a file, whether it comes from ``palace mine`` or (later) the watcher.

How the work is laid out, for speed on a laptop's two cores:

1. Discovery and change detection (size + mtime, then the content hash) decide which files
   need work; an unchanged folder costs a walk and a few ``stat`` calls, and no NLP and no
   embedding at all.
2. Changed files are read, decoded and chunked; a drawer whose id already exists (same file,
   same text, same date) keeps its row, mentions, facts and vector, so only new drawers go
   through spaCy.
3. spaCy runs in the main thread over all new drawers (``nlp.pipe``, batched across files);
   each file is committed to SQLite in one transaction as soon as its drawers are done.
4. A worker thread embeds committed drawers (onnxruntime releases the GIL, so it runs on
   the other core while spaCy works) and upserts them into Chroma; a drawer is marked
   ``embedded`` only after Chroma has it, so a killed run is finished by the next one.
5. Entity resolution of the wing runs once, at the end, in one transaction. A run that
   stores or deletes anything first records ``resolution_pending:<wing>`` in ``meta``;
   resolution clears it when it commits, so a run killed in between is resolved by the
   next one even if every note is then unchanged.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Callable, Collection, Iterator

from palace.config import Config
from palace.graph.corrections import mark_candidates, replay
from palace.store import sqlite as store
from palace.store.drawers import (
    forgotten_paths,
    insert_drawer,
    move_file,
    move_wing_root,
    path_hash,
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
    insert_fact,
    invalidate_facts,
)
from palace.mine.discovery import PathFilter, decide_paths, walk
from palace.errors import ConfigError, UsageError
from palace.mine.indexing import (
    PREFIX_TOKENS,
    EmbedWorker,
    embed_input,
    find_lost_vectors,
    flush_tombstones,
    one_core,
    unembedded,
)
from palace.nlp.chunking import Chunk, chunk_markdown
from palace.nlp.dates import DateInterval, first_dated_heading
from palace.nlp.extraction import (
    COOCCURRENCE_CONFIDENCE,
    COOCCURRENCE_EXTRACTOR,
    DATES_EXTRACTOR,
    NER_CONFIDENCE,
    Extraction,
    Extractor,
    email_aliases,
)
from palace.nlp.lines import LineReader
from palace.nlp.rules import RelationRules
from palace.nlp.sentence import Context
from palace.mine.reading import GitDates, Note, Unreadable, content_hash, read_note
from palace.graph.lowercase import link_lowercase_mentions
from palace.graph.resolution import resolve_wing
from palace.graph.temporal import apply_timelines, load_values, recorded_now

if TYPE_CHECKING:
    from palace.core import Palace



@dataclass(frozen=True)
class FileOutcome:
    """What happened to one path: ``status`` is indexed, unchanged, moved (the same
    content under a new path: its drawers, facts and vectors follow it; ``reason`` names
    the old path), skipped, failed or deleted."""

    path: str
    status: str
    reason: str = ""
    drawers: int = 0
    words: int = 0


@dataclass(frozen=True)
class MineReport:
    """The summary of one ``mine`` run (counts are files unless named otherwise).

    ``drawers``, ``entities`` and ``facts`` are totals of the palace after the run
    (``facts`` counts current facts); ``new_drawers`` the drawers this run added;
    ``words`` the words of the files indexed in this run; ``words_per_s`` words / elapsed.
    """

    palace: str
    wing: str
    root: str
    indexed: int
    unchanged: int
    moved: int
    skipped: int
    failed: int
    deleted: int
    drawers: int
    new_drawers: int
    embedded: int
    entities: int
    facts: int
    words: int
    elapsed_s: float
    words_per_s: float
    outcomes: tuple[FileOutcome, ...] = ()


#: a note with more new drawers than this is read after the others (the work budget),
#: and stored in steps of this many drawers, each in its own transaction
LARGE_NOTE_DRAWERS = 200
#: why a note ``palace forget`` removed is not mined again
FORGOTTEN = "forgotten (palace forget); `palace forget --allow PATH` lets it be mined again"
#: the content hash of a note stored in part: it never equals a real one, so the next run
#: reads the note again and only its drawers not yet stored go through the NLP
PARTIAL = "partial"
#: a note's progress is reported every this many drawers
PROGRESS_EVERY = 50


#: fewer new drawers than this are read in this process: a worker process starts in about
#: the time this process reads a few hundred drawers
PARALLEL_MIN_DRAWERS = 2000
#: what one extraction worker holds (its spaCy pipeline and two batches), in MB, measured
#: as the peak RSS of a worker on the Rust minutes; workers are capped by free memory
WORKER_MB = 400


def nlp_processes(drawers: int, config: Config) -> int:
    """How many processes read the NLP of a run with ``drawers`` new drawers.

    1 — this process — for fewer than :data:`PARALLEL_MIN_DRAWERS` drawers (a watcher's
    save), whatever the settings. Else ``$PALACE_NLP_PROCESSES`` (raises
    :class:`ConfigError` unless a whole number ≥ 1) or ``config.nlp_processes`` when set;
    else 1 on a machine with two cores or fewer (spaCy and the embedding thread already
    keep one core each), and one per core but the embedder's, no more than the free
    memory holds at :data:`WORKER_MB` each."""
    if drawers < PARALLEL_MIN_DRAWERS:  # a watcher's save: no worker is worth starting, whatever the setting
        return 1
    raw = os.environ.get("PALACE_NLP_PROCESSES")
    if raw:
        try:
            wanted = int(raw)
            if wanted < 1:
                raise ValueError
        except ValueError:
            raise ConfigError(f"nlp_processes must be a whole number ≥ 1, not {raw!r}",
                              hint="set it in config.json or $PALACE_NLP_PROCESSES, e.g. 4") from None
        return wanted
    if config.nlp_processes is not None:
        return config.nlp_processes
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores <= 2:
        return 1
    return max(1, min(cores - 1, _available_mb() // WORKER_MB))


def _available_mb() -> int:
    """Memory the system can give without swapping, in MB (``MemAvailable``; where there
    is no ``/proc/meminfo``, the free pages)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (ValueError, OSError):
        return WORKER_MB


@dataclass
class _Pending:
    rel: str
    room: str
    note: Note
    chunks: list[Chunk]
    drawer_ids: list[str]
    keep: set[str]
    new: list[int]  # indexes into chunks of drawers needing NLP
    words: int
    extractions: dict[int, Extraction] = field(default_factory=dict)
    file_id: int | None = None  # once a first step of a large note is stored
    stored: set[int] = field(default_factory=set)  # indexes of new drawers stored by steps


def room_of(rel: str) -> str:
    """The room of a path relative to its wing: its first folder, or ``.`` at the root."""
    parts = PurePosixPath(rel).parts
    return parts[0] if len(parts) > 1 else "."


def drawer_id(wing: str, rel: str, doc_date: dt.date | None, text_hash: str, occurrence: int) -> str:
    """Deterministic drawer id (20 hex chars of SHA-256).

    Built from the wing, the path, the document date, the text's hash and which occurrence
    of that text in the file it is: stable while the text is unchanged (an edit elsewhere
    in the file keeps it), distinct when the same text stands twice in one file or in two
    files. A note dated only by its mtime or its first dated heading passes ``None`` (an
    edit moves the mtime; a new entry on top of a journal changes its first heading), so
    editing it keeps the drawers whose text it kept, with the dates they had.
    """
    day = doc_date.isoformat() if doc_date else "-"
    key = f"{wing}\x1f{rel}\x1f{day}\x1f{text_hash}\x1f{occurrence}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def mine(
    palace: "Palace",
    root: Path,
    *,
    wing: str | None = None,
    on_file: Callable[[FileOutcome], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    paths: Collection[str] | None = None,
    verify: bool = False,
    cancel: threading.Event | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> MineReport:
    """Mine ``root`` into ``wing``; return a :class:`MineReport`.

    ``on_start(n)`` is called once with the number of paths to consider; ``on_file`` once
    per path as it is decided (the CLI draws its progress bar from them). ``paths``
    (relative, POSIX) limits the run to those paths — the watcher's step; a listed path
    that no longer exists is deleted. A file whose size and mtime are unchanged is
    skipped unless ``verify`` (then its bytes are hashed: an edit that kept both is
    found). A note that left one path while a note with the same bytes appeared at
    another is **moved**: its drawers, facts and vectors follow it, nothing is
    re-embedded. ``cancel``, once set, ends the run early and cleanly: the files stored
    so far stay, drawers not yet embedded are embedded by the next run, the rest waits
    for it (the watcher's stop); it is checked between drawers, so a stop waits at most
    for the spaCy batch at hand (128 drawers), never for the rest of a long note.

    Work budget: notes of more than :data:`LARGE_NOTE_DRAWERS` new drawers are read
    after all the others, so one huge note never holds back the notes saved beside it,
    and are stored in steps of that many drawers, each its own transaction
    (:func:`_write_step`): a stop or a kill loses at most one step, and the next run
    reads only the drawers not yet stored.
    A note of more than :data:`PROGRESS_EVERY` new drawers reports its progress:
    ``on_progress(path, drawers_read, drawers)`` every :data:`PROGRESS_EVERY` drawers
    (the CLI's progress bar and the watcher's status show it). Raises :class:`UsageError` if ``root`` is not a folder. A file that fails
    is recorded with its reason and the run goes on.
    """
    started = time.perf_counter()
    started_at = recorded_now()
    root = root.expanduser()
    if not root.is_dir():
        raise UsageError(f"not a folder: {root}", hint="give `palace mine` a folder of notes")
    root = root.resolve()
    wing = wing or root.name or "root"
    conn = palace.conn
    _check_wing_root(conn, wing, root)
    palace.check_model(record=True)
    if paths is None or palace.vectors.lost():
        # every vector is checked by a whole mine (or a store gone); a watcher's step of
        # named notes does not count the palace's drawers for each save
        find_lost_vectors(palace)
    registry = palace.registry
    on_file = on_file or (lambda outcome: None)

    decisions = decide_paths(root, paths) if paths is not None else None  # a watcher's step: only its notes
    if decisions is None:
        decisions = list(walk(root, PathFilter(root)))
    try:  # a palace kept inside the folder it mines is not part of the notes
        inside = palace.path.resolve().relative_to(root).as_posix()
        decisions = [d for d in decisions if d.path != inside and not d.path.startswith(inside + "/")]
    except ValueError:
        pass
    if paths is not None:
        wanted = set(paths)
        decisions = [d for d in decisions if d.path in wanted and not d.is_dir]
    if on_start:
        on_start(len(decisions))
    if paths is None:
        known = {row["path"]: row for row in conn.execute("SELECT * FROM files WHERE wing = ?", (wing,))}
    else:  # only the named notes' rows: a step costs its notes, not the wing
        known = {row["path"]: row for row in conn.execute(
            "SELECT * FROM files WHERE wing = ? AND path IN (SELECT value FROM json_each(?))",
            (wing, json.dumps(sorted(wanted))))}
    outcomes: list[FileOutcome] = []
    pending: list[_Pending] = []
    seen: set[str] = set()
    embedder = palace.embedder
    max_chunk_tokens = embedder.max_tokens - PREFIX_TOKENS

    def done(outcome: FileOutcome) -> None:
        outcomes.append(outcome)
        on_file(outcome)

    cancel = cancel or threading.Event()
    forgotten = forgotten_paths(conn)  # read once: a walk of many notes asks for each
    git_dates = GitDates(root)
    config = palace.config
    order = config.date_order
    for decision in decisions:
        if cancel.is_set():
            break
        rel = decision.path + ("/" if decision.is_dir else "")
        seen.add(rel)
        if forgotten and not decision.is_dir and path_hash(wing, rel) in forgotten:  # not even its name is recorded
            done(FileOutcome(rel, "skipped", FORGOTTEN))
            continue
        if decision.action == "skip":
            previous = known.get(rel)
            if previous is not None and previous["status"] == "indexed":
                # a note ignored after it was mined leaves search, as a deleted one does
                with store.transaction(conn):
                    _forget_drawers(conn, previous, reason=f"file now skipped: {decision.reason}", registry=registry)
            _record_file(conn, wing, root, rel, "skipped", decision.reason, previous)
            done(FileOutcome(rel, "skipped", decision.reason))
            continue
        path = root / decision.path
        previous = known.get(rel)
        try:
            st = path.stat()
        except OSError:
            _record_file(conn, wing, root, rel, "failed", "vanished before it could be read", previous)
            done(FileOutcome(rel, "failed", "vanished before it could be read"))
            continue
        if (
            previous is not None
            and previous["status"] == "indexed"
            and previous["size"] == st.st_size
            and previous["mtime"] == st.st_mtime
            and not (verify and _bytes_hash(path) != previous["content_hash"])
        ):
            done(FileOutcome(rel, "unchanged"))
            continue
        try:
            note = read_note(path, git_dates, order)
        except Unreadable as exc:
            if exc.status == "skipped":  # binary or too large now: its old text leaves search
                with store.transaction(conn):
                    _forget_drawers(conn, previous, reason=f"file now skipped: {exc.reason}", registry=registry)
            # a failure (permission, vanished mid-run) may pass: what was stored stays
            _record_file(conn, wing, root, rel, exc.status, exc.reason, previous)
            done(FileOutcome(rel, exc.status, exc.reason))
            continue
        if previous is not None and previous["status"] == "indexed" and previous["content_hash"] == note.content_hash:
            conn.execute("UPDATE files SET mtime = ?, size = ? WHERE id = ?", (note.mtime, note.size, previous["id"]))
            done(FileOutcome(rel, "unchanged"))
            continue
        try:
            item = _prepare(conn, wing, rel, note, previous, embedder, max_chunk_tokens)
        except Exception as exc:  # a chunking bug must not stop the run
            _record_file(conn, wing, root, rel, "failed", f"could not chunk: {exc}", previous)
            done(FileOutcome(rel, "failed", f"could not chunk: {exc}"))
            continue
        pending.append(item)

    unreadable = [d.path for d in decisions if d.is_dir and d.reason.startswith("unreadable folder")]
    vanished = [
        row for rel, row in known.items()
        if rel not in seen and not any(u == "." or rel.startswith(u.rstrip("/") + "/") for u in unreadable)
        and (paths is None or rel in wanted)
    ] if not cancel.is_set() else []  # a walk cut short has not seen every file: delete nothing
    pending, vanished = _moves(conn, root, pending, vanished, done)
    resolution_key = f"resolution_pending:{wing}"
    if pending or vanished or any(o.status == "moved" for o in outcomes):
        # recorded before any note is stored: a kill before resolution commits leaves it
        # set, and the next run resolves the wing even when every note is then unchanged
        with store.transaction(conn):
            store.set_meta(conn, resolution_key, recorded_now())
    for row in vanished:
        with store.transaction(conn):
            _forget_drawers(conn, row, reason="file deleted", registry=registry)
            conn.execute("DELETE FROM files WHERE id = ?", (row["id"],))
        done(FileOutcome(row["path"], "deleted", "no longer under the root"))

    embedded_count = [0]
    worker = EmbedWorker(palace, one_core(embedder), cancel)
    worker.start()
    leftovers = unembedded(conn)  # drawers an earlier, interrupted run did not embed
    submitted = {item[0] for item in leftovers}
    worker.submit(leftovers)
    try:
        processes = nlp_processes(sum(len(item.new) for item in pending), config)
        extractor = palace.store.extractor(RelationRules.from_registry(registry, load_values(config)), processes)
        # spaCy's string store keeps every new token; a memory zone frees those of this
        # run once it ends (the watcher mines for days; nothing of a Doc outlives the loop)
        zone = extractor.memory_zone() if pending else contextlib.nullcontext()
        with zone:
            pending.sort(key=lambda item: len(item.new) > LARGE_NOTE_DRAWERS)  # stable: small notes first
            _extract_and_write(conn, wing, root, pending, known, extractor, registry, worker, submitted, done, cancel,
                               owner=config.owner, on_progress=on_progress)
        if any(o.status != "unchanged" for o in outcomes) or store.get_meta(conn, resolution_key):
            finish_resolution(conn, wing, registry, config)
    finally:
        embedded_count[0] = worker.finish()
    flush_tombstones(palace)
    store.private(palace.path)  # the files Chroma and SQLite made during the run: owner-only

    elapsed = time.perf_counter() - started
    words = sum(o.words for o in outcomes if o.status == "indexed")
    counts = {status: 0 for status in ("indexed", "unchanged", "moved", "skipped", "failed", "deleted")}
    for outcome in outcomes:
        counts[outcome.status] += 1
    with store.transaction(conn):
        conn.execute(
            "INSERT INTO mine_runs (wing, started_at, finished_at, indexed, deleted) VALUES (?, ?, ?, ?, ?)",
            (wing, started_at, recorded_now(), counts["indexed"] + counts["moved"], counts["deleted"]),
        )
    return MineReport(
        palace=str(palace.path),
        wing=wing,
        root=str(root),
        indexed=counts["indexed"],
        unchanged=counts["unchanged"],
        moved=counts["moved"],
        skipped=counts["skipped"],
        failed=counts["failed"],
        deleted=counts["deleted"],
        drawers=conn.execute("SELECT count(*) FROM drawers").fetchone()[0],
        new_drawers=sum(len(p.new) for p in pending),
        embedded=embedded_count[0],
        entities=conn.execute("SELECT count(*) FROM entities").fetchone()[0],
        facts=conn.execute("SELECT count(*) FROM facts WHERE invalidated_at IS NULL").fetchone()[0],
        words=words,
        elapsed_s=round(elapsed, 3),
        words_per_s=round(words / elapsed, 1) if elapsed > 0 else 0.0,
        outcomes=tuple(outcomes),
    )


def _extract_and_write(conn, wing, root, pending, known, extractor, registry, worker, submitted, done,
                       cancel: threading.Event, owner: str | None = None, on_progress=None) -> None:
    """Run the NLP over the pending notes and store each one in its own transaction,
    handing its new drawers to the embedding worker as soon as it is committed. Stops
    between drawers once ``cancel`` is set: a complete note not yet stored is left for
    the next run, a step of a long note that was read is stored first."""
    failed: set[str] = set()
    for item, failure, step in _run_nlp(extractor, pending, owner, cancel=cancel, on_progress=on_progress):
        if cancel.is_set() and not step:  # a step that was read is stored: the stop comes right after it
            break
        if item.rel in failed:  # a step of it could not be stored: the rest is not either
            continue
        if failure:
            _record_file(conn, wing, root, item.rel, "failed", failure, known.get(item.rel))
            done(FileOutcome(item.rel, "failed", failure))
            continue
        try:
            with store.transaction(conn):
                if step:
                    file_id = _write_step(conn, wing, root, item, known.get(item.rel), extractor, registry, step)
                else:
                    file_id = _write_file(conn, wing, root, item, known.get(item.rel), extractor, registry)
        except Exception as exc:
            failed.add(item.rel)
            _record_file(conn, wing, root, item.rel, "failed", f"could not store: {exc}", known.get(item.rel))
            done(FileOutcome(item.rel, "failed", f"could not store: {exc}"))
            continue
        fresh = [d for d in unembedded(conn, file_id) if d[0] not in submitted]
        submitted.update(d[0] for d in fresh)
        worker.submit(fresh)
        if not step:
            done(FileOutcome(item.rel, "indexed", "", len(item.chunks), item.words))


def _bytes_hash(path: Path) -> str | None:
    """The content hash of a file's bytes (as :func:`palace.mine.reading.content_hash`), or
    None when it cannot be read (the normal read then records why)."""
    try:
        return content_hash(path.read_bytes())
    except OSError:
        return None


def _moves(conn, root: Path, pending: list[_Pending], vanished: list, done) -> tuple[list[_Pending], list]:
    """Pair each vanished note with a new note of the same bytes under another path: a
    move. The file row takes the new path and room, its drawers keep their ids and text,
    its facts their history (their ``path`` follows), and its vectors are re-written to
    Chroma with the new metadata from the vectors already stored (the drawers are marked
    unembedded; the embedding worker finds their vectors by ``embed_hash``). A move that
    would change what the note's name says (its date or, lacking a heading, its title) is
    left as a deletion and a new note. Returns the pending notes and vanished rows left."""
    by_hash: dict[str, list] = {}
    for row in vanished:
        if row["status"] == "indexed" and row["content_hash"]:
            by_hash.setdefault(row["content_hash"], []).append(row)
    if not by_hash:
        return pending, vanished
    moved_rows: set[int] = set()
    left: list[_Pending] = []
    for item in pending:
        candidates = [r for r in by_hash.get(item.note.content_hash, ()) if r["id"] not in moved_rows]
        row = next((r for r in candidates if r["doc_date"] == (item.note.doc_date.isoformat() if item.note.doc_date
                    else None) and r["title"] == item.note.title), None)
        if row is None or conn.execute("SELECT 1 FROM files WHERE wing = ? AND path = ?",
                                        (row["wing"], item.rel)).fetchone():
            left.append(item)
            continue
        moved_rows.add(row["id"])
        with store.transaction(conn):
            move_file(conn, row["id"], wing=row["wing"], old_path=row["path"], path=item.rel, room=item.room,
                      root=str(root), mtime=item.note.mtime, size=item.note.size, at=recorded_now())
        done(FileOutcome(item.rel, "moved", f"from {row['path']}"))
    return left, [r for r in vanished if r["id"] not in moved_rows]


def finish_resolution(conn, wing: str, registry: dict, config: Config | None = None) -> None:
    """Link lower-case names, re-resolve ``wing``'s entities and replay the user's fact
    decisions (:func:`palace.graph.corrections.replay`), then clear its
    ``resolution_pending`` mark, in two transactions. A kill between them leaves the mark set, and the next
    run (``palace mine`` or ``palace doctor --repair``) does both again: each is a
    function of the stored drawers, so doing it twice ends as doing it once."""
    with store.transaction(conn):
        link_lowercase_mentions(conn, wing)
    with store.transaction(conn):
        resolve_wing(conn, wing, registry)
        if config is not None:  # facts this wing's trust settings send to review
            mark_candidates(conn, config, wing, registry)
        replay(conn, registry)  # the user's decisions, on the facts read again
        conn.execute("DELETE FROM meta WHERE key = ?", (f"resolution_pending:{wing}",))


def pending_resolutions(conn) -> list[str]:
    """The wings whose resolution an interrupted run left to do."""
    return [key.split(":", 1)[1] for (key,) in conn.execute(
        "SELECT key FROM meta WHERE key LIKE 'resolution_pending:%' ORDER BY key")]


def _check_wing_root(conn, wing: str, root: Path) -> None:
    """A wing holds one root folder. Mining another folder of the same name into it would
    delete the first folder's drawers, so it is refused with a hint; a wing whose old root
    no longer exists (the folder was moved) follows it to the new place."""
    roots = [r[0] for r in conn.execute("SELECT DISTINCT root FROM files WHERE wing = ?", (wing,))]
    others = [r for r in roots if r != str(root) and Path(r).exists()]
    if others:
        raise UsageError(
            f"the wing {wing!r} already holds {others[0]}, not {root}",
            hint=f"pass --wing NAME to mine {root} as a wing of its own",
        )
    if roots and str(root) not in roots:
        with store.transaction(conn):
            move_wing_root(conn, wing, str(root))


def _prepare(conn, wing, rel, note: Note, previous, embedder, max_tokens) -> _Pending:
    chunks = chunk_markdown(
        note.text, body_start=note.body_start, count_tokens=embedder.count_tokens, max_tokens=max_tokens
    )
    occurrences: dict[str, int] = {}
    ids = []
    for chunk in chunks:
        text_hash = _sha(chunk.text)
        n = occurrences.get(text_hash, 0)
        occurrences[text_hash] = n + 1
        guessed = note.doc_date_source in ("mtime", "heading", "git")  # may move without the text changing
        ids.append(drawer_id(wing, rel, None if guessed else note.doc_date, text_hash, n))
    stored: dict[str, str] = {}
    if previous is not None:
        stored = dict(conn.execute("SELECT id, embed_hash FROM drawers WHERE file_id = ?", (previous["id"],)))
    # a drawer is kept only if what it indexes is unchanged: its text and also the title
    # and heading path that prefix it in FTS and in the embedder's input
    keep = {
        did for did, chunk in zip(ids, chunks)
        if stored.get(did) == _sha(embed_input(note.title, chunk.heading_path, chunk.text))
    }
    new = [i for i, did in enumerate(ids) if did not in keep]
    return _Pending(rel, room_of(rel), note, chunks, ids, keep, new, len(note.body.split()))


def _drawer_date(note: Note, chunk: Chunk) -> DateInterval:
    """The drawer's date: the date of the nearest dated heading above it (a running
    log's ``## 2025-03-12``: its facts happened then, whatever the note's own date),
    else the note's date."""
    day = _heading_day(chunk)
    if day is not None:
        return DateInterval(day, day + dt.timedelta(days=1), "day")
    return DateInterval(note.doc_date, note.doc_date + dt.timedelta(days=1), "day")


def _heading_day(chunk: Chunk) -> dt.date | None:
    for heading in reversed(chunk.heading_path):
        day = first_dated_heading(f"# {heading}")
        if day is not None:
            return day
    return None


def _fact_date(note: Note, chunk: Chunk) -> DateInterval | None:
    """The date a drawer's facts take when their sentence states none: the drawer's
    date, or None for a note dated only by its file's mtime (a copy or a clone sets it
    to the day of the copy): such facts carry no valid time of their own, so they never
    supersede a dated fact nor enter a valid-time change list."""
    if note.doc_date_source == "mtime" and _heading_day(chunk) is None:
        return None
    return _drawer_date(note, chunk)


def _run_nlp(extractor: Extractor, pending: list[_Pending], palace_owner: str | None = None, *,
             cancel: threading.Event | None = None, on_progress=None) -> Iterator[tuple[_Pending, str, list[int]]]:
    """Run NER over the new drawers of every pending file; yield each file when complete.

    Yields ``(item, "", [])`` on success, ``(item, reason, [])`` if spaCy failed on the
    file, and for a note of more than :data:`LARGE_NOTE_DRAWERS` new drawers, before it
    is complete, ``(item, "", step)`` each time another step of that many drawers was
    read (``step``: their indexes into ``item.chunks``). ``palace_owner``: who ``I`` is
    in notes that are not chat lines (``config.json``'s ``owner``). Stops, yielding
    nothing more, once ``cancel`` is set (checked between drawers);
    ``on_progress(path, read, total)`` reports a large note every :data:`PROGRESS_EVERY`
    drawers.
    """
    def stream() -> Iterator[tuple[str, dt.date, Context]]:
        for item in pending:
            for index in item.new:
                chunk = item.chunks[index]
                context = Context(title=item.note.title, heading=chunk.heading_path[-1] if chunk.heading_path else "",
                                  owner=palace_owner, date_order=item.note.date_order)
                yield chunk.text, _drawer_date(item.note, chunk).start, context

    order = [(item, index) for item in pending for index in item.new]
    if not order:  # nothing new to read: no spaCy at all
        for item in pending:
            yield item, "", []
        return
    results = extractor.extract_many(stream())
    position = 0
    for item in pending:
        total = len(item.new)
        report = on_progress if on_progress is not None and total > PROGRESS_EVERY else None
        step: list[int] = []
        try:
            for read, _ in enumerate(item.new, 1):
                if cancel is not None and cancel.is_set():
                    return
                owner, index = order[position]
                owner.extractions[index] = next(results)
                position += 1
                step.append(index)
                if report is not None and (read % PROGRESS_EVERY == 0 or read == total):
                    report(item.rel, read, total)
                if total > LARGE_NOTE_DRAWERS and len(step) == LARGE_NOTE_DRAWERS and read < total:
                    yield item, "", step
                    step = []
        except StopIteration:
            yield item, "NLP stopped early", []
            return
        yield item, "", []


def _record_file(conn, wing, root, rel, status, reason, previous) -> None:
    with store.transaction(conn):
        set_file_state(conn, wing=wing, root=str(root), path=rel, room=room_of(rel.rstrip("/")), status=status,
                       reason=reason, at=recorded_now(), previous_id=previous["id"] if previous is not None else None)


def _forget_drawers(conn, file_row, *, reason: str, keep: set[str] | None = None, registry: dict | None = None) -> int:
    """Remove a file's drawers (except ``keep``) from SQLite and FTS, tombstone their
    vectors and invalidate the facts drawn only from them. Returns how many were removed."""
    if file_row is None:
        return 0
    rows = conn.execute("SELECT rowid, id FROM drawers WHERE file_id = ?", (file_row["id"],)).fetchall()
    gone = [r for r in rows if not keep or r["id"] not in keep]
    now = recorded_now()
    for row in gone:
        invalidate_facts(conn, at=now, reason=reason, drawer_id=row["id"])
        remove_drawer(conn, row["rowid"], row["id"])
    _retime(conn, [row["id"] for row in gone], registry)  # a retracted value reopens the one before it
    return len(gone)


def _retime(conn, drawer_ids: list[str], registry: dict | None = None, groups: set | None = None) -> None:
    """Recompute the timelines of the subjects whose facts these drawers hold (and of
    ``groups``, more ``(subject_id, predicate)`` pairs)."""
    groups = set(groups or ())
    for i in range(0, len(drawer_ids), 500):
        chunk = drawer_ids[i:i + 500]
        groups |= set(conn.execute(
            f"SELECT DISTINCT subject_id, predicate FROM facts WHERE drawer_id IN ({','.join('?' * len(chunk))})"
            " AND predicate != 'mentioned_with'",
            chunk,
        ).fetchall())
    if groups:
        apply_timelines(conn, [tuple(g) for g in groups], registry)


def _file_values(wing, root, item: _Pending, now: str, *, partial: bool = False) -> dict:
    """The ``files`` row of a note; a note stored in part (:func:`_write_step`) gets the
    hash :data:`PARTIAL` and size -1, so no later run takes it for unchanged."""
    note = item.note
    read = len(item.stored)
    return dict(
        wing=wing, root=str(root), path=item.rel, room=item.room, size=-1 if partial else note.size,
        mtime=note.mtime, content_hash=PARTIAL if partial else note.content_hash, status="indexed",
        reason=f"stored in part: {read} of {len(item.new)} new drawers; the next run reads the rest" if partial else "",
        encoding=note.encoding, title=note.title, doc_date=note.doc_date.isoformat(),
        doc_date_source=note.doc_date_source, tags=json.dumps(list(note.tags)), aliases=json.dumps(list(note.aliases)),
        words=item.words, mined_at=now,
    )


def _save_note(conn, wing, root, item: _Pending, previous, registry: dict, now: str, *, partial: bool) -> int:
    """Write the note's ``files`` row; the first time (not after a step), first forget the
    previous version's drawers that are not kept."""
    if item.file_id is None and previous is not None:
        _forget_drawers(conn, previous, reason="file changed: text no longer there", keep=item.keep,
                        registry=registry)
    previous_id = item.file_id if item.file_id is not None else previous["id"] if previous is not None else None
    item.file_id = save_file(conn, _file_values(wing, root, item, now, partial=partial), previous_id)
    return item.file_id


def _write_drawer(conn, cache, wing, item: _Pending, index: int, file_id: int, ner_extractor: str, now: str,
                  registry: dict) -> None:
    """Insert one new drawer of ``item`` with its FTS row and the graph material its
    extraction holds (dropped from memory once written)."""
    note, chunk, did = item.note, item.chunks[index], item.drawer_ids[index]
    when = _drawer_date(note, chunk)
    insert_drawer(conn, drawer_id=did, file_id=file_id, chunk=chunk, text_hash=_sha(chunk.text),
                  embed_hash=_sha(embed_input(note.title, chunk.heading_path, chunk.text)),
                  date_start=when.start.isoformat(), date_end=when.end.isoformat(),
                  date_granularity=when.granularity, title=note.title, path=item.rel)
    extraction = item.extractions.pop(index, None)
    if extraction is not None:
        _write_graph(conn, cache, did, wing, item.rel, chunk.text, _fact_date(note, chunk), extraction,
                     ner_extractor, now, registry)


def _write_step(conn, wing, root, item: _Pending, previous, extractor: Extractor, registry: dict,
                step: list[int]) -> int:
    """Store one step of a large note — the new drawers ``step`` (indexes into its
    chunks), their FTS rows, graph material and timelines — and mark the note stored in
    part; inside the caller's transaction. A kill or a stop after it loses none of it:
    the next run keeps these drawers, as it keeps any unchanged drawer, and reads only the
    rest. Returns the file id."""
    now = recorded_now()
    item.stored.update(step)
    file_id = _save_note(conn, wing, root, item, previous, registry, now, partial=True)
    cache: dict = {}
    for index in step:
        _write_drawer(conn, cache, wing, item, index, file_id, extractor.ner_extractor, now, registry)
    _retime(conn, [item.drawer_ids[i] for i in step], registry)
    return file_id


def _write_file(conn, wing, root, item: _Pending, previous, extractor: Extractor, registry: dict) -> int:
    """Replace one file's drawers and graph material (those of its steps already
    stored, :func:`_write_step`, stay); inside the caller's transaction."""
    note = item.note
    now = recorded_now()
    file_id = _save_note(conn, wing, root, item, previous, registry, now, partial=False)
    cache: dict = {}
    if note.aliases:
        concept = entity_id(conn, cache, note.title, "CONCEPT")
        for alias in note.aliases:
            add_alias(conn, concept, alias, "front matter")
    ner_extractor = extractor.ner_extractor if item.new else ""
    for index, chunk in enumerate(item.chunks):
        if index in item.stored:
            continue
        if item.drawer_ids[index] in item.keep:
            renumber_drawer(conn, item.drawer_ids[index], chunk)
            continue
        _write_drawer(conn, cache, wing, item, index, file_id, ner_extractor, now, registry)
    groups = _front_matter_facts(conn, cache, wing, item, extractor, registry, now)
    _retime(conn, [item.drawer_ids[i] for i in item.new if i not in item.stored], registry, groups)
    return file_id


def _front_matter_facts(conn, cache, wing, item: _Pending, extractor: Extractor, registry: dict, now: str) -> set:
    """Facts of the note's front-matter fields (``status:``, ``owner:``, ``lead:``…),
    cited by the field and attached to the note's first drawer. They are rewritten only
    when the fields changed: the old ones are invalidated, so history keeps them.
    Returns the ``(subject_id, predicate)`` groups touched, for their timelines."""
    rules = extractor.rules
    if rules is None or not item.drawer_ids:
        return set()
    relations = LineReader(rules, extractor.label_of).front_matter(item.note.metadata, item.note.title)
    first = item.drawer_ids[0]
    day = item.note.doc_date
    rows = conn.execute(
        "SELECT id, subject_id, predicate, sentence FROM facts WHERE wing = ? AND path = ? AND invalidated_at IS NULL"
        " AND extractor LIKE ?", (wing, item.rel, "%/front-matter-%")).fetchall()
    # (a first drawer that changed took its facts with it when it left)
    if sorted((r["predicate"], r["sentence"]) for r in rows) == sorted((r.predicate, r.quote) for r in relations):
        return set()
    groups = {(r["subject_id"], r["predicate"]) for r in rows}
    if rows:
        invalidate_facts(conn, at=now, reason="front matter changed", fact_ids=[r["id"] for r in rows])
    when = None if item.note.doc_date_source == "mtime" else DateInterval(day, day + dt.timedelta(days=1), "day")
    empty = Extraction(base=day)

    def fact(subject, predicate, obj, value, valid_from, valid_to, granularity, start, end, extractor_name,
             confidence, evidence, stated_to=None, sentence=None) -> None:
        insert_fact(conn, NewFact(
            subject, predicate, obj, value, valid_from, valid_to, granularity, now, first, wing, item.rel, 0, 0,
            sentence or "", extractor_name, confidence, evidence, stated_to))
        groups.add((subject, predicate))

    for relation in relations:
        write_relation(conn, cache, fact, relation, empty, [], registry, when)
    return groups


#: At most this many co-occurrence facts (``mentioned_with``) per drawer, each pair once:
#: a long note of many names must not grow the graph with the square of its length.
COOCCURRENCES_PER_DRAWER = 40


def _write_graph(conn, cache, did, wing, rel, text, when: DateInterval | None, extraction: Extraction,
                 ner_extractor: str, now: str, registry: dict) -> None:
    """Store one drawer's mentions, date mentions and facts (entities as read; the wing's
    resolution repoints them at the end of the run). ``when`` is the date facts take
    when their sentence gives none (None: the drawer has no date of its own).
    Co-occurrences are stored once per pair of entities, at most
    :data:`COOCCURRENCES_PER_DRAWER` per drawer."""
    ids = []
    for mention in extraction.entities:
        entity = entity_id(conn, cache, mention.name, mention.label)
        ids.append(entity)
        add_mention(conn, entity, did, mention.start, mention.end, mention.surface, mention.label, ner_extractor,
                    NER_CONFIDENCE)
    for index, address in email_aliases(text, extraction.entities):
        add_alias(conn, ids[index], address, "e-mail")
    for date in extraction.dates:
        add_date_mention(conn, did, date.start, date.end, date.surface, date.interval, DATES_EXTRACTOR)

    def fact(subject, predicate, obj, value, valid_from, valid_to, granularity, start, end, extractor, confidence,
             evidence, stated_to=None, sentence=None) -> None:
        insert_fact(conn, NewFact(
            subject, predicate, obj, value, valid_from, valid_to, granularity, now, did, wing, rel, start, end,
            sentence if sentence is not None else " ".join(text[start:end].split()), extractor, confidence, evidence,
            stated_to))

    paired: set[tuple[int, int]] = set()
    for pair in extraction.cooccurrences:
        subject, obj = ids[pair.subject], ids[pair.object]
        if subject == obj or (min(subject, obj), max(subject, obj)) in paired:
            continue
        if len(paired) == COOCCURRENCES_PER_DRAWER:
            break
        paired.add((min(subject, obj), max(subject, obj)))
        valid = extraction.sentence_dates.get(extraction.entities[pair.subject].sentence, when)
        fact(subject, "mentioned_with", obj, None, valid and valid.start, valid and valid.end,
             valid and valid.granularity, pair.start, pair.end, COOCCURRENCE_EXTRACTOR, COOCCURRENCE_CONFIDENCE,
             "stated")
    for relation in extraction.relations:
        write_relation(conn, cache, fact, relation, extraction, ids, registry, when)


def write_relation(conn, cache, fact, relation, extraction: Extraction, ids: list[int], registry: dict,
                   when: DateInterval | None) -> None:
    """Store one typed relation through ``fact`` (the drawer's fact writer): its subject
    and object entities (a mention's, or one named outright: a chat line's speaker, the
    note a key–value line or front-matter field is about) and its valid time as the text
    states it (:meth:`Extraction.relation_time`, the drawer's date when it gives none)."""
    spec = registry.get(relation.predicate)
    if spec is None:
        return
    if relation.subject_name:
        label = relation.subject_label or (extraction.entities[relation.subject].label
                                           if relation.subject is not None else "CONCEPT")
        subject = entity_id(conn, cache, relation.subject_name, label)
    elif relation.subject is not None:
        subject = ids[relation.subject]
    else:
        return
    obj = ids[relation.object] if relation.object is not None else None
    if obj is None and relation.object_name:
        obj = entity_id(conn, cache, relation.object_name, relation.object_label or "CONCEPT")
    if obj is not None and obj == subject:
        return
    time = extraction.fact_time(relation, spec.kind, when)
    start, end, granularity = time.start, time.end, time.granularity
    stated_to = end if spec.kind == "state" else None
    fact(subject, relation.predicate, obj, relation.value, start, end, granularity, relation.start, relation.end,
         relation.extractor, relation.confidence, relation.evidence, stated_to=stated_to, sentence=relation.quote)


