"""The palace handle: one object owns the store (STYLE.md §2).

``Palace.open(path)`` opens palace.db (WAL, foreign keys, migrations) and opens the
Chroma index and the embedding model lazily; ``mine``, ``ask`` and ``status`` all go through
it, and so do the tests.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection

from palace import store
from palace.config import fiscal_year_start, quiet_third_parties, resolve_palace_path
from palace.errors import ModelMismatch, PalaceNotFound, UsageError
from palace.vectors import EmbeddedChroma, VectorStore

if TYPE_CHECKING:
    import threading

    from palace.doctor import DoctorReport
    from palace.embedding import Embedder
    from palace.mining import FileOutcome, MineReport
    from palace.query import AskResult
    from palace.status import StatusReport


class Palace:
    """An open palace: ``conn`` (SQLite, the truth), ``vectors`` (Chroma, derived).

    Use :meth:`open`; close with :meth:`close` or a ``with`` block.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, embedder: "Embedder | None" = None,
                 vectors: VectorStore | None = None) -> None:
        self.path = path
        self.conn = conn
        self.vectors: VectorStore = vectors if vectors is not None else EmbeddedChroma(path)
        self._embedder = embedder
        self._registry: dict | None = None

    @classmethod
    def open(
        cls, path: str | Path | None = None, *, create: bool = True, embedder: "Embedder | None" = None,
        vectors: VectorStore | None = None,
    ) -> "Palace":
        """Open the palace at ``path`` (resolved by :func:`resolve_palace_path`), its
        vectors in ``vectors`` (default: the embedded Chroma under ``path/chroma``).

        With ``create=False`` a missing palace raises :class:`PalaceNotFound`.
        """
        quiet_third_parties()
        resolved = resolve_palace_path(path)
        if resolved.exists() and not resolved.is_dir():
            raise UsageError(f"the palace path {resolved} is a file, not a folder", hint="pass --palace DIR")
        if not create and not (resolved / store.DB_FILENAME).exists():
            raise PalaceNotFound(
                f"no palace at {resolved}", hint="run `palace mine DIR` first, or pass --palace"
            )
        return cls(resolved, store.connect(resolved), embedder, vectors)

    def close(self) -> None:
        """Close the SQLite connection."""
        self.conn.close()

    def __enter__(self) -> "Palace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> "Embedder":
        """The embedding model (the packaged all-MiniLM-L6-v2 unless one was given)."""
        if self._embedder is None:
            from palace.embedding import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    @property
    def registry(self) -> dict:
        """The predicate registry: the shipped one, extended by ``config.json`` here
        (:func:`palace.temporal.load_registry`). Raises ValueError for a malformed entry."""
        if self._registry is None:
            from palace.temporal import load_registry

            self._registry = load_registry(self.path)
        return self._registry

    @property
    def fiscal_year_start(self) -> int:
        """The month (1–12) this palace's fiscal years start in (``config.json``;
        :func:`palace.config.fiscal_year_start`)."""
        return fiscal_year_start(self.path)

    def model_info(self) -> tuple[str | None, int | None]:
        """``(name, dimension)`` of the embedding model recorded in this palace, if any."""
        name = store.get_meta(self.conn, "embedding_model")
        dim = store.get_meta(self.conn, "embedding_dimension")
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
                with store.transaction(self.conn):
                    store.set_meta(self.conn, "embedding_model", current[0])
                    store.set_meta(self.conn, "embedding_dimension", str(current[1]))
            return
        if (name, dim) != current:
            raise ModelMismatch(
                f"this palace was built with the embedding model {name} ({dim} dimensions); "
                f"palace is using {current[0]} ({current[1]} dimensions)",
                hint="use the palace with the model it was built with, or mine into a new --palace",
            )

    def mine(
        self,
        root: str | Path,
        *,
        wing: str | None = None,
        on_file: "Callable[[FileOutcome], None] | None" = None,
        on_start: "Callable[[int], None] | None" = None,
        paths: "Collection[str] | None" = None,
        verify: bool = False,
        cancel: "threading.Event | None" = None,
    ) -> "MineReport":
        """Mine the folder ``root`` into the wing ``wing`` (default: the folder's name);
        ``paths``, ``verify`` and ``cancel`` as in :func:`palace.mining.mine`."""
        from palace.mining import mine

        return mine(self, Path(root), wing=wing, on_file=on_file, on_start=on_start, paths=paths, verify=verify,
                    cancel=cancel)

    def ask(self, question: str, **options) -> "AskResult":
        """Answer ``question`` with cited drawers; see :func:`palace.query.ask`."""
        from palace.query import ask

        return ask(self, question, **options)

    def doctor(self, *, repair: bool = False) -> "DoctorReport":
        """Check the palace (and with ``repair`` rebuild what is derived); see
        :func:`palace.doctor.doctor`. Hold :func:`palace.locks.sole_writer` to repair."""
        from palace.doctor import doctor

        return doctor(self, repair=repair)

    def status(self) -> "StatusReport":
        """Counts and per-file state; see :func:`palace.status.status`."""
        from palace.status import status

        return status(self)
