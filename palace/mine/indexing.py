"""Keeping the vector store in step with SQLite: the drawers' vectors are derived.

A drawer is embedded from its **embed input** (title and heading path, then its text:
:func:`embed_input`) and marked ``embedded`` only once the store has its vector, so a
killed run is finished by the next one (:func:`unembedded` lists what waits). The
:class:`EmbedWorker` embeds on one core while spaCy runs on the other; text already
embedded (same ``embed_hash``) is never embedded again. Deleted drawers leave tombstones,
flushed from the store after the run (:func:`flush_tombstones`); drawers whose vectors the
store lost are found and embedded again (:func:`find_lost_vectors`, :func:`embed_pending`).
"""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
import weakref
from typing import TYPE_CHECKING, Callable

from palace.store import sqlite as db
from palace.store.drawers import clear_tombstones, existing_ids, mark_embedded, tombstoned_ids, unembedded_drawers
from palace.store.upkeep import count_drawers, drawer_ids, mark_for_embedding
from palace.store.vectors import date_number, usable

if TYPE_CHECKING:
    from palace.store.store import Store

__all__ = ["EmbedWorker", "embed_input", "embed_pending", "find_lost_vectors", "flush_tombstones", "unembedded"]

#: Tokens of the embedder's window kept free for the title and heading path prefix.
PREFIX_TOKENS = 32
#: drawers per vector-store upsert and per queue item
EMBED_BATCH = 64


def embed_input(title: str, heading_path: tuple[str, ...], text: str) -> str:
    """The text given to the embedder and to FTS: title and heading path, then the drawer.

    DESIGN.md: indexing each drawer with its file title and heading path lifts both BM25
    and vectors. The prefix is clipped so it stays within :data:`PREFIX_TOKENS`.
    """
    prefix = " › ".join(p for p in (title, *heading_path) if p)
    words = prefix.split()
    if len(words) > 20:
        prefix = " ".join(words[:20])
    prefix = prefix[:120]
    return f"{prefix}\n{text}" if prefix else text


def unembedded(conn: sqlite3.Connection, file_id: int | None = None) -> list[tuple[str, str, str, dict]]:
    """Drawers whose vectors are not yet in the vector store (of one file, or of all):
    ``(id, embed input, embed_hash, metadata)``."""
    out = []
    for row in unembedded_drawers(conn, file_id):
        heading = tuple(json.loads(row["heading_path"]))
        meta = {
            "wing": row["wing"], "room": row["room"], "embed_hash": row["embed_hash"],  # no path: forget leaves none
            "date_start": date_number(row["date_start"]), "date_end": date_number(row["date_end"]),
        }
        out.append((row["id"], embed_input(row["title"], heading, row["text"]), row["embed_hash"], meta))
    return out


class EmbedWorker:
    """Embeds drawers and writes their vectors to Chroma, then marks them ``embedded``.

    A thread of its own embeds while the main thread runs spaCy (onnxruntime releases the
    GIL; each session runs on one core, so the two never fight over the same core). When
    spaCy is done, :meth:`finish` has the main thread take batches from the same queue, so
    both cores embed the tail. Each consumer writes through its own SQLite connection (WAL).
    """

    def __init__(self, store: "Store", embedder, cancel: threading.Event | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.cancel = cancel or threading.Event()  # set: stop after the batch at hand
        self.queue: "queue.Queue[list | None]" = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="palace-embed", daemon=True)
        self.error: BaseException | None = None
        self.count = 0  # drawers embedded (a vector copied by its embed_hash is not counted)
        self.queued = 0  # drawers submitted
        self.stored = 0  # drawers whose vectors the store has and which are marked embedded
        self.on_batch: Callable[[int, int], None] | None = None  # set by finish()
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the embedding thread."""
        self.thread.start()

    def submit(self, items: list) -> None:
        """Queue drawers (as :func:`unembedded` lists them) in batches of :data:`EMBED_BATCH`."""
        with self._lock:
            self.queued += len(items)
        for i in range(0, len(items), EMBED_BATCH):
            self.queue.put(items[i:i + EMBED_BATCH])

    def finish(self, on_batch: "Callable[[int, int], None] | None" = None) -> int:
        """Embed what is left with both threads; re-raise the worker's error, if any.
        ``on_batch(stored, queued)`` hears how many of the drawers submitted are stored:
        once now, then after each batch either thread stores. Returns :attr:`count`."""
        with self._lock:
            self.on_batch = on_batch
            if on_batch is not None:
                on_batch(self.stored, self.queued)
        self.queue.put(None)
        try:
            while self.error is None and not self.cancel.is_set():
                batch = self.queue.get()
                if batch is None:
                    self.queue.put(None)  # leave the sentinel for the worker
                    break
                self._embed(self.store.conn, batch)
        finally:
            self.thread.join()
        if self.cancel.is_set():  # the worker may be waiting on an empty queue
            self.queue.put(None)
            self.thread.join()
        if self.error is not None:
            raise self.error
        return self.count

    def _run(self) -> None:
        conn = db.connect(self.store.path)
        try:
            while True:
                batch = self.queue.get()
                if batch is None or self.cancel.is_set():  # left unembedded: the next run's leftovers
                    self.queue.put(None)  # the main thread may still be waiting for it
                    break
                self._embed(conn, batch)
        except BaseException as exc:  # surfaced by finish()
            self.error = exc
        finally:
            conn.close()

    def _embed(self, conn: sqlite3.Connection, batch: list) -> None:
        import numpy as np

        vectors_index = self.store.vectors
        known = {h: v for h, v in vectors_index.vectors_by_embed_hash([item[2] for item in batch]).items()
                 if usable(v.reshape(1, -1))[0]}  # a damaged vector is never copied
        missing = [item for item in batch if item[2] not in known]
        if missing:
            fresh = self.embedder.embed([item[1] for item in missing])
            for item, vector in zip(missing, fresh):
                known[item[2]] = vector
            with self._lock:
                self.count += len(missing)
        vectors = np.stack([known[item[2]] for item in batch])
        vectors_index.upsert([item[0] for item in batch], vectors, [item[3] for item in batch])
        ids = [item[0] for item in batch]

        def mark() -> None:
            with db.transaction(conn):
                mark_embedded(conn, ids)

        db.retry_locked(mark, cancel=self.cancel)
        with self._lock:  # told under the lock, so the last one heard is the furthest
            self.stored += len(ids)
            if self.on_batch is not None:
                self.on_batch(self.stored, self.queued)


_ONE_CORE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def one_core(embedder):
    """The mining copy of an ONNX embedder: one onnxruntime thread per session, so the
    embedding thread and spaCy each keep a core (measured: two threads per session while
    spaCy runs make both slower). Made once per embedder (a session costs ~0.2 s, which a
    watcher mining one note at a time would pay on every save)."""
    from palace.store.embedding import OnnxEmbedder

    if isinstance(embedder, OnnxEmbedder) and embedder.intra_op_num_threads is None:
        copy = _ONE_CORE.get(embedder)
        if copy is None:
            copy = _ONE_CORE[embedder] = OnnxEmbedder(
                embedder.model_dir, batch_size=embedder.batch_size, intra_op_num_threads=1)
        return copy
    return embedder


def embed_pending(store: "Store", cancel: threading.Event | None = None) -> int:
    """Embed every drawer of ``store`` not yet in its vector store (``embedded = 0``),
    from its stored text, in batches that each commit: a kill loses at most the batch at
    hand, and the next call goes on from there. Returns how many were embedded. Raises
    :class:`palace.errors.ModelMismatch` when the palace was built with another model."""
    store.check_model(record=True)
    worker = EmbedWorker(store, one_core(store.embedder), cancel)
    worker.start()
    worker.submit(unembedded(store.conn))
    return worker.finish()


def find_lost_vectors(store: "Store") -> int:
    """Mark for embedding the drawers whose vectors are no longer in the vector store
    (``chroma/`` deleted or damaged, a restore from an older backup): the run embeds them
    again from the stored texts. Returns how many were lost."""
    conn = store.conn
    marked = count_drawers(conn, embedded=True)
    if not marked or store.vectors.count() >= marked:
        return 0
    present = store.vectors.ids()
    lost = sorted(drawer_ids(conn, embedded=True) - present)
    with db.transaction(conn):
        mark_for_embedding(conn, lost)
    return len(lost)


def flush_tombstones(store: "Store") -> None:
    """Delete tombstoned vectors from the vector store (those of drawers that are not
    back), then forget the tombstones."""
    ids = tombstoned_ids(store.conn)
    if not ids:
        return
    live = existing_ids(store.conn, ids)
    store.vectors.delete([i for i in ids if i not in live])
    with db.transaction(store.conn):
        clear_tombstones(store.conn, ids)
