"""The vector store: a small protocol (:class:`VectorStore`) and its embedded Chroma
implementation (:class:`EmbeddedChroma`). Vectors are derived from SQLite: anything in
the store can be rebuilt from the drawers' texts (``palace doctor --repair``).

The protocol is what palace needs of any store — a Chroma server can be another
implementation: ids are drawer ids; metadata carries wing, room, ``embed_hash`` (to reuse a
vector for text already embedded) and the drawer's date bounds as ``YYYYMMDD`` integers
(Chroma ``where`` filters compare numbers; :func:`palace.mine.indexing.unembedded` builds
it): no text and no path, so a forgotten note leaves neither in the vector store.
Chroma is opened lazily, with telemetry off, and is never asked to embed anything:
palace passes the vectors it computed.

Chroma's persistent client is not safe for several processes at once: an ``ask`` that
read the HNSW files while a watcher wrote them crashed (SIGSEGV in Chroma's Rust
bindings), and concurrent writers corrupted ``link_lists.bin``. So every Chroma call —
opening the client, reads and writes — runs under an exclusive ``flock`` on
``chroma.lock`` beside the store (and a re-entrant lock between the threads of one
process). Writers hold it one batch at a time, so a reader waits at most one batch.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

import numpy as np

from palace.config import Config, quiet_third_parties
from palace.store.vector_cache import VECTOR_CACHE, VectorCache

if TYPE_CHECKING:
    import chromadb

__all__ = ["VectorStore", "EmbeddedChroma", "ChromaServer", "open_vector_store", "date_number", "usable"]

COLLECTION = "drawers"
CHROMA_DIRNAME = "chroma"
LOCK_FILENAME = "chroma.lock"
#: Rewritten with a new token by every write of the embedded store; readers reopen when it changes.
GENERATION_FILENAME = "vectors.generation"


def usable(vectors: np.ndarray) -> np.ndarray:
    """Per row of ``vectors`` (shape ``(n, dim)``), whether it can be searched: every
    value finite and not all zero (a damaged store can hold either)."""
    finite = np.isfinite(vectors).all(axis=1)
    return finite & (np.linalg.norm(np.where(np.isfinite(vectors), vectors, 0), axis=1) > 1e-6)


def date_number(iso: str | None) -> int | None:
    """``"2024-04-12"`` → ``20240412`` (for Chroma ``where`` filters); None stays None."""
    return int(iso.replace("-", "")) if iso else None


#: vectors read per call while preloading (:meth:`_ChromaStore.preload`)
PRELOAD_BATCH = 5_000


@runtime_checkable
class VectorStore(Protocol):
    """What palace needs of a vector store. Ids are drawer ids (str); vectors are float32
    rows of the embedder's dimension; distances are cosine distances (0 = same
    direction); ``where`` is Chroma's filter language over the metadata (``{"wing": w}``,
    ``{"date_end": {"$gt": 20240101}}``, ``{"$and": [...]}``). Every call sees what any
    process committed before it (no stale view), and a write is visible to every later
    read."""

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict]) -> None:
        """Add or replace the vectors of ``ids`` (shape ``(len(ids), dim)``) with their metadata."""

    def delete(self, ids: Sequence[str]) -> None:
        """Remove the vectors of ``ids``; absent ids are ignored."""

    def query(self, vector: np.ndarray, k: int, where: dict | None = None) -> list[tuple[str, float]]:
        """The ``k`` nearest vectors that match ``where``: ``[(id, cosine distance)]``, best first."""

    def count(self) -> int:
        """How many vectors the store holds."""

    def ids(self) -> set[str]:
        """The ids of every stored vector."""

    def embeddings(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The stored vectors of those ``ids`` that are present: ``(ids, matrix)``."""

    def similarities(self, ids: Sequence[str], vector: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Cosine similarities of the unit ``vector`` to the stored vectors of those ``ids``
        that are present: ``(ids, similarities)`` (an exact scan)."""

    def missing(self, ids: Sequence[str]) -> int:
        """How many of ``ids`` an exact scan would have to read (not in memory already)."""

    def preload(self) -> int:
        """Read into memory what later exact scans will need (a warm server, at start);
        returns how many vectors are held (0 for a store that keeps none)."""

    def vectors_by_embed_hash(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors whose metadata ``embed_hash`` is one of ``hashes``, keyed by it
        (text already embedded is never embedded again)."""

    def lost(self) -> bool:
        """True when the store's data is gone (the embedded store's folder deleted): the
        vectors must be rebuilt from SQLite."""


class _ChromaStore:
    """What the embedded and the server Chroma share: the :class:`VectorStore` calls on
    a collection. Subclasses give ``collection`` (opened on first use), ``locked()``
    (held around every call), ``lost()`` and ``_wrote()`` (called after each write)."""

    _client: Any = None
    _batch: int | None = None
    #: the vectors :meth:`similarities` keeps in memory for the next exact scans (None: none)
    _cache: VectorCache | None = None
    _preloaded = False

    @property
    def collection(self) -> Any:  # pragma: no cover — each subclass has its own
        raise NotImplementedError

    def locked(self):  # pragma: no cover
        raise NotImplementedError

    def lost(self) -> bool:  # pragma: no cover
        raise NotImplementedError

    def _wrote(self) -> None:
        """After a write of this process."""

    def max_batch(self) -> int:
        """The largest number of records Chroma accepts in one write."""
        self.collection  # opens the client
        assert self._client is not None
        with self.locked():
            if self._batch is None:
                self._batch = int(self._client.get_max_batch_size())
            return self._batch

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict]) -> None:
        """Write vectors (shape ``(len(ids), dim)``), in batches within Chroma's limit."""
        if not ids:
            return
        step = self.max_batch()
        for i in range(0, len(ids), step):
            with self.locked():
                self.collection.upsert(
                    ids=list(ids[i:i + step]),
                    embeddings=vectors[i:i + step],
                    metadatas=list(metadatas[i:i + step]),
                )
                self._forget_cached(ids[i:i + step])
                self._wrote()

    def delete(self, ids: Sequence[str]) -> None:
        """Remove vectors by drawer id (ids that are absent are ignored)."""
        if not ids:
            return
        step = self.max_batch()
        for i in range(0, len(ids), step):
            with self.locked():
                self.collection.delete(ids=list(ids[i:i + step]))
                self._forget_cached(ids[i:i + step])
                self._wrote()

    def vectors_by_embed_hash(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Return stored vectors for texts already embedded, keyed by ``embed_hash``."""
        found: dict[str, np.ndarray] = {}
        if self.lost():  # a read never creates the store
            return found
        unique = list(dict.fromkeys(hashes))
        for i in range(0, len(unique), 500):
            with self.locked():
                got = self.collection.get(
                    where={"embed_hash": {"$in": unique[i:i + 500]}}, include=["embeddings", "metadatas"]
                )
            for meta, vector in zip(got["metadatas"] or [], got["embeddings"] if got["embeddings"] is not None else []):
                found.setdefault(meta["embed_hash"], np.asarray(vector, dtype=np.float32))
        return found

    def query(
        self, vector: np.ndarray, k: int, where: dict | None = None
    ) -> list[tuple[str, float]]:
        """Nearest drawers to ``vector``: ``[(drawer_id, cosine_distance)]``, best first."""
        if self.lost():  # a read never creates the store: status and doctor still see it lost
            return []
        with self.locked():  # Chroma (≥ 1.0) returns fewer than k, or none, when it holds fewer
            result = self.collection.query(
                query_embeddings=vector.reshape(1, -1),
                n_results=k,
                where=where or None,
                include=["distances"],
            )
        return list(zip(result["ids"][0], result["distances"][0]))

    def embeddings(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The stored vectors of ``ids`` (those present): ``(ids, matrix)``, float32, read
        from the store itself (``palace doctor`` checks them)."""
        if self.lost():
            return [], np.zeros((0, 0), dtype=np.float32)
        with self.locked():
            got = self.collection.get(ids=list(ids), include=["embeddings"])
        if not len(got["ids"]):
            return [], np.zeros((0, 0), dtype=np.float32)
        return list(got["ids"]), np.asarray(got["embeddings"], dtype=np.float32)

    def missing(self, ids: Sequence[str]) -> int:
        """How many of ``ids`` :meth:`similarities` would read from the store (not held in
        this process's :class:`VectorCache`)."""
        with self.locked():
            cache = None if self.lost() else self._current_cache()
            return len(ids) if cache is None else sum(1 for i in ids if i not in cache)

    def _current_cache(self) -> VectorCache | None:
        """The cache, once the store is current: a write of another process empties it
        (the store reopens), and a cache that was preloaded is loaded again."""
        if self._cache is None:
            return None
        self.collection
        if self._preloaded and not len(self._cache):
            self.preload()
        return self._cache

    def similarities(self, ids: Sequence[str], vector: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Cosine similarities of the unit ``vector`` to the stored vectors of ``ids``
        (those present): ``(ids, similarities)``. A warm process reads each vector once
        and keeps it (:class:`VectorCache`); what a full cache cannot take is scored
        from what was read. Under the store's lock throughout: a write of another
        process in between cannot empty the cache under the scan."""
        if self.lost():
            return [], np.zeros(0, dtype=np.float32)
        with self.locked():
            cache = self._current_cache()
            wanted = list(ids) if cache is None else [i for i in ids if i not in cache]
            got_ids, matrix = self.embeddings(wanted) if wanted else ([], np.zeros((0, 0), dtype=np.float32))
            if cache is None:
                return got_ids, (matrix @ vector if got_ids else np.zeros(0, dtype=np.float32))
            cache.add(got_ids, matrix)
            found, sims = cache.similarities(ids, vector)
        held = set(found)
        rest = [k for k, i in enumerate(got_ids) if i not in held]
        if rest:  # the cache is full
            found = found + [got_ids[k] for k in rest]
            sims = np.concatenate([sims, matrix[rest] @ vector])
        return found, sims

    def preload(self) -> int:
        """Read the store's vectors into this process's cache, as far as it holds (a
        warm server does it once, at start). Returns how many it holds."""
        if self._cache is None or self.lost():
            return 0
        self._preloaded = True
        offset = 0
        while len(self._cache) < self._cache.capacity:
            with self.locked():
                got = self.collection.get(include=["embeddings"], limit=PRELOAD_BATCH, offset=offset)
                if not len(got["ids"]):
                    break
                self._cache.add(list(got["ids"]), np.asarray(got["embeddings"], dtype=np.float32))
            offset += PRELOAD_BATCH
        return len(self._cache)

    def _forget_cached(self, ids) -> None:
        if self._cache is not None:
            self._cache.drop(ids)

    def count(self) -> int:
        """Number of vectors stored."""
        if self.lost():
            return 0
        with self.locked():
            return int(self.collection.count())

    def ids(self) -> set[str]:
        """The ids of every stored vector."""
        if self.lost():
            return set()
        with self.locked():
            return set(self.collection.get(include=[])["ids"])


class EmbeddedChroma(_ChromaStore):
    """A Chroma ``PersistentClient`` collection under ``palace_dir/chroma`` (cosine
    space): the embedded :class:`VectorStore`."""

    def __init__(self, palace_dir: Path) -> None:
        self.path = palace_dir / CHROMA_DIRNAME
        self._lock_path = palace_dir / LOCK_FILENAME
        self._client: "chromadb.ClientAPI | None" = None
        self._collection: Any = None
        self._lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        self._stamp: bytes | None = None
        self._generation_path = palace_dir / GENERATION_FILENAME
        self._writes = 0
        self._cache = VectorCache(VECTOR_CACHE)

    @contextlib.contextmanager
    def locked(self):
        """Hold the cross-process Chroma lock (re-entrant within this process)."""
        with self._lock:
            if self._depth == 0:
                self._fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
                    os.close(self._fd)
                    self._fd = None

    @property
    def collection(self) -> Any:
        """The Chroma collection, opened on first use, and opened again when another
        process has written the store since (a warm reader — ``ask --batch``, a server —
        must not answer from stale vectors, nor fail with Chroma's "Error finding id" on
        ids its old view lacks). Call its methods only inside :meth:`locked` (the methods
        of this class do)."""
        with self.locked():
            if self._collection is not None and self._store_stamp() != self._stamp:
                self._reset()
            return self._open()

    def _store_stamp(self) -> bytes | None:
        """What changes whenever any process writes the store: the token of
        ``vectors.generation``, which every write through this class replaces. (Chroma's
        own files will not do: a process that only reads also touches its SQLite file and
        log, and every warm reader would then reopen the index after each cold one.)"""
        try:
            with open(self._generation_path, "rb") as file:
                return file.read(64)
        except OSError:
            return None

    def _reset(self) -> None:
        """Drop this process's view of the store (the next use opens it again)."""
        client, self._client, self._collection = self._client, None, None
        if self._cache is not None:
            self._cache.clear()
        try:
            if client is not None:
                client.close()  # releases Chroma's shared system for this path
        except Exception:  # noqa: BLE001 — an old client that cannot close is dropped all the same
            pass

    def _open(self) -> Any:
        if self._collection is None:
            quiet_third_parties()
            import chromadb
            from chromadb.config import Settings

            self._client = chromadb.PersistentClient(
                path=str(self.path),
                settings=Settings(anonymized_telemetry=False, allow_reset=False),
            )
            self._collection = self._client.get_or_create_collection(
                COLLECTION, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
            )
            self._stamp = self._store_stamp()
        return self._collection

    def lost(self) -> bool:
        """True when ``chroma/`` is missing (deleted, or never created)."""
        return not self.path.is_dir()

    def _wrote(self) -> None:
        """Give the store a new generation (other processes reopen it), which this
        process has seen: no reason to reopen here."""
        self._writes += 1
        token = f"{os.getpid()}:{time.time_ns()}:{self._writes}".encode()
        fd = os.open(self._generation_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, token)
        finally:
            os.close(fd)
        self._stamp = token


class ChromaServer(_ChromaStore):
    """A collection on a Chroma server (``chroma run``, or a team's server): the
    :class:`VectorStore` for palaces that outgrow one laptop. ``url`` is
    ``http(s)://host:port``; ``collection`` names this palace's collection (palaces that
    share a server need distinct names, 3–512 characters of ``[a-zA-Z0-9._-]``). The
    server holds the vectors and their metadata (wing, room, date bounds, the text's
    hash), never the text nor the path; telemetry is off. Raises :class:`palace.errors.UsageError`
    for a URL it cannot read."""

    def __init__(self, url: str, collection: str = COLLECTION) -> None:
        from urllib.parse import urlsplit

        from palace.errors import UsageError

        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"not a Chroma server URL: {url!r}", hint="e.g. http://localhost:8000")
        self.url = url
        self.host, self.ssl = parts.hostname, parts.scheme == "https"
        self.port = parts.port or (443 if self.ssl else 8000)
        self.name = collection
        self._collection: Any = None
        self._lock = threading.RLock()

    @contextlib.contextmanager
    def locked(self):
        """The server orders writers itself: only the threads of this process are held."""
        with self._lock:
            yield

    @property
    def collection(self) -> Any:
        """The collection, opened (created when absent) on first use."""
        with self._lock:
            if self._collection is None:
                quiet_third_parties()
                import chromadb
                from chromadb.config import Settings

                from palace.errors import PalaceError

                try:
                    self._client = chromadb.HttpClient(host=self.host, port=self.port, ssl=self.ssl,
                                                       settings=Settings(anonymized_telemetry=False))
                    self._collection = self._client.get_or_create_collection(
                        self.name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
                except Exception as exc:  # noqa: BLE001 — refused, unreachable, a bad name: one message
                    raise PalaceError(f"cannot use the Chroma server at {self.url}: {exc}",
                                      hint="start it (`chroma run --path DIR --port N`), or check --chroma-url"
                                           " and config.json's vectors") from None
            return self._collection

    def lost(self) -> bool:
        """A server's store is never "lost" from here: an unreachable server is an error."""
        return False


def open_vector_store(palace_dir: Path, config: "Config | None" = None) -> VectorStore:
    """The vector store of the palace at ``palace_dir``: a Chroma server when
    ``$PALACE_CHROMA_URL`` (set by ``palace --chroma-url URL``) or ``config``'s
    ``vectors`` (``config.json``'s ``"vectors": {"url": …, "collection": …}``) names one,
    else the embedded Chroma under ``palace_dir/chroma``."""
    settings = config.vectors if config is not None and config.vectors is not None else None
    url = os.environ.get("PALACE_CHROMA_URL") or (settings.url if settings else None)
    if not url:
        return EmbeddedChroma(palace_dir)
    return ChromaServer(str(url), str((settings.collection if settings else None) or COLLECTION))
