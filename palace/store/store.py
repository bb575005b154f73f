"""The store: the one door to what a palace keeps on disk.

A :class:`Store` owns ``palace.db`` (one SQLite connection per thread, opened with WAL,
foreign keys and the migrations of :mod:`palace.store.sqlite`), the vector store derived
from it (:class:`palace.store.vectors.VectorStore`), the embedding model that fills it
(loaded on first use) and the maker of the NLP extractor that reads the notes' graph
(:meth:`Store.extractor`; the spaCy pipeline loads on the first text). The flows (mine,
ask, the graph, the operations) receive a store, the :class:`palace.config.Config` and
the predicate registry; only the handle, :class:`palace.core.Palace`, opens one.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from palace.errors import ModelMismatch
from palace.store import sqlite as db
from palace.store.vectors import VectorStore

if TYPE_CHECKING:
    from palace.nlp.extraction import Extractor
    from palace.nlp.rules import RelationRules
    from palace.store.embedding import Embedder

__all__ = ["Store"]


class Store:
    """``palace.db`` at ``path`` (its connection for this thread: :attr:`conn`), the
    ``vectors``, the ``embedder`` and the maker of each mining run's NLP ``extractor``
    (called as ``extractor(rules=…, processes=…)``; default
    :class:`palace.nlp.extraction.Extractor`).

    One warm process may use it from several threads: each thread reads and writes
    through its own SQLite connection, so a read sees the latest committed state (WAL)
    and never another thread's open transaction; the connections of threads that have
    ended are closed when a new thread opens one. Close with :meth:`close` once no
    thread uses it.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, vectors: VectorStore,
                 embedder: "Embedder | None" = None, extractor: "Callable[..., Extractor] | None" = None) -> None:
        self.path = path
        self.vectors = vectors
        self._embedder = embedder
        self._make_extractor = extractor
        self._local = threading.local()
        self._local.conn = conn
        self._connections: dict[int, tuple[threading.Thread, sqlite3.Connection]] = {
            threading.get_ident(): (threading.current_thread(), conn)}
        self._connections_lock = threading.Lock()

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's SQLite connection to ``palace.db`` (opened on its first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = db.connect(self.path, setup=False)
            with self._connections_lock:
                for ident, (thread, old) in list(self._connections.items()):
                    if not thread.is_alive():
                        old.close()
                        del self._connections[ident]
                self._connections[threading.get_ident()] = (threading.current_thread(), conn)
        return conn

    @property
    def embedder(self) -> "Embedder":
        """The embedding model (the packaged all-MiniLM-L6-v2 unless one was given); the
        ONNX session loads on the first text embedded, not here."""
        if self._embedder is None:
            from palace.store.embedding import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    def extractor(self, rules: "RelationRules | None", processes: int = 1) -> "Extractor":
        """A new NLP extractor for one mining run, reading relations by ``rules`` in
        ``processes`` worker processes: :class:`palace.nlp.extraction.Extractor` (its spaCy
        pipeline loads on the first text), or what the maker given to the store returns
        (a test's fake that loads no model)."""
        if self._make_extractor is not None:
            return self._make_extractor(rules=rules, processes=processes)
        from palace.nlp.extraction import Extractor

        return Extractor(rules=rules, processes=processes)

    def model_info(self) -> tuple[str | None, int | None]:
        """``(name, dimension)`` of the embedding model recorded in this palace, if any."""
        name = db.get_meta(self.conn, "embedding_model")
        dim = db.get_meta(self.conn, "embedding_dimension")
        return name, int(dim) if dim else None

    def check_model(self, *, record: bool = False) -> None:
        """Make sure the palace's vectors were made by the current embedder.

        With ``record=True`` an empty palace records the current model. Raises
        :class:`ModelMismatch` (with a hint) when the names or dimensions differ.
        """
        name, dim = self.model_info()
        current = (self.embedder.name, self.embedder.dimension)
        if name is None:
            if record:
                with db.transaction(self.conn):
                    db.set_meta(self.conn, "embedding_model", current[0])
                    db.set_meta(self.conn, "embedding_dimension", str(current[1]))
            return
        if (name, dim) != current:
            raise ModelMismatch(
                f"this palace was built with the embedding model {name} ({dim} dimensions); "
                f"palace is using {current[0]} ({current[1]} dimensions)",
                hint="use the palace with the model it was built with, or mine into a new --palace",
            )

    def close(self) -> None:
        """Close every SQLite connection of this store."""
        with self._connections_lock:
            for _thread, conn in self._connections.values():
                conn.close()
            self._connections.clear()
