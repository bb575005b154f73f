"""The palace handle: one object on top that composes the store and the flows (STYLE.md §2).

``Palace.open(path)`` opens the store (:class:`palace.store.store.Store`: palace.db with
WAL, foreign keys and migrations; the vector index; the embedding model, loaded lazily)
and reads the settings (:class:`palace.config.Config`). Every command is a method that
hands the flow what it uses — the store, the config, the predicate registry — and takes
the palace's write lock (:mod:`palace.ops.locks`) around the writes; no flow imports
the handle. ``mine``, ``ask`` and ``status`` all go through it, and so do the tests.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterator, cast

from palace.store import sqlite as db
from palace.config import CONFIG_FILENAME, Config, quiet_third_parties, resolve_palace_path
from palace.errors import PalaceNotFound, UsageError
from palace.store.store import Store
from palace.store.vectors import VectorStore, open_vector_store

if TYPE_CHECKING:
    import datetime as dt
    import threading

    from palace.graph.changes import ChangeSet
    from palace.graph.corrections import FactDecision, Review
    from palace.ops.daemon import DaemonStatus
    from palace.ops.doctor import DoctorReport
    from palace.store.embedding import Embedder
    from palace.graph.facts import FactsResult
    from palace.graph.profile import Connection, EntityProfile
    from palace.mine.run import FileOutcome, MineReport
    from palace.ask.result import AskResult
    from palace.graph.resolution import AliasReport, Decision
    from palace.ops.status import StatusReport


class Palace:
    """An open palace: its :attr:`store` (``conn``: SQLite, the truth; ``vectors``: a
    :class:`~palace.store.vectors.VectorStore`, derived; the embedder), its
    :attr:`config` and :attr:`registry`, and every command as a method returning a typed
    result (its JSON by :func:`palace.results.to_json`).

    Use :meth:`open`; close with :meth:`close` or a ``with`` block. One warm process
    may call it from several threads: each thread reads and writes through its own
    SQLite connection (:attr:`conn`), so a read sees the latest committed state (WAL)
    and never another thread's open transaction, and the vector store reopens itself
    when another process wrote it.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, embedder: "Embedder | None" = None,
                 vectors: VectorStore | None = None) -> None:
        self.path = path
        self._config: tuple[tuple | None, Config] | None = None
        self._registry: tuple[Config, dict] | None = None
        try:
            config = self.config
        except Exception:
            conn.close()
            raise
        self.store = Store(path, conn, vectors if vectors is not None else open_vector_store(path, config), embedder)

    @classmethod
    def open(
        cls, path: str | Path | None = None, *, create: bool = True, embedder: "Embedder | None" = None,
        vectors: VectorStore | None = None,
    ) -> "Palace":
        """Open the palace at ``path`` (resolved by :func:`resolve_palace_path`), its
        vectors in ``vectors`` (default: :func:`palace.store.vectors.open_vector_store`, the
        embedded Chroma under ``path/chroma`` unless a Chroma server is configured).

        With ``create=False`` a missing palace raises :class:`PalaceNotFound`.
        """
        quiet_third_parties()
        resolved = resolve_palace_path(path)
        lent = _LENT.get(resolved) if embedder is None and vectors is None else None
        if lent is not None:
            return cast(Palace, _Borrowed(lent))
        if resolved.exists() and not resolved.is_dir():
            raise UsageError(f"the palace path {resolved} is a file, not a folder", hint="pass --palace DIR")
        if not create and not (resolved / db.DB_FILENAME).exists():
            raise PalaceNotFound(
                f"no palace at {resolved}", hint="run `palace mine DIR` first, or pass --palace"
            )
        return cls(resolved, db.connect(resolved), embedder, vectors)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's SQLite connection to ``palace.db`` (:attr:`Store.conn`)."""
        return self.store.conn

    @property
    def vectors(self) -> VectorStore:
        """The vector store (:attr:`Store.vectors`)."""
        return self.store.vectors

    @contextmanager
    def lend(self) -> Iterator["Palace"]:
        """While the block runs, :meth:`open` of this palace in this process (with the
        default embedder and vectors) returns this handle, whose ``close`` and ``with``
        then do nothing: a warm server runs each command on the models and the vector
        index it has loaded, however the command opens the palace."""
        _LENT[self.path] = self
        try:
            yield self
        finally:
            if _LENT.get(self.path) is self:
                del _LENT[self.path]

    def close(self) -> None:
        """Close every SQLite connection of this handle (call it once no thread uses it)."""
        self.store.close()

    @contextmanager
    def _writing(self, doing: str, *, whole_run: bool = True) -> Iterator[None]:
        """Hold the palace's write lock for a ``with`` block (:mod:`palace.ops.locks`):
        for a whole run (``whole_run``: a mine, a repair, a forget, an import) it is
        refused at once beside another writer or a watcher; for one short write it waits
        a few seconds for the write at hand. ``doing`` names the work in the refusal.
        Raises :class:`palace.errors.PalaceBusy`."""
        from palace.ops.locks import sole_writer, write_lock

        with sole_writer(self.path, doing) if whole_run else write_lock(self.path, doing):
            yield

    def __enter__(self) -> "Palace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> "Embedder":
        """The embedding model (:attr:`Store.embedder`)."""
        return self.store.embedder

    @property
    def config(self) -> Config:
        """This palace's settings (:class:`palace.config.Config`), read from ``config.json``
        once and again only when the file changes (its size, modification time or inode),
        so a warm server follows an edit. Raises :class:`palace.errors.ConfigError` for a
        file palace cannot use."""
        try:
            st = (self.path / CONFIG_FILENAME).stat()
            stamp: tuple | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        cached = self._config
        if cached is None or cached[0] != stamp:
            cached = self._config = (stamp, Config.load(self.path))
        return cached[1]

    @property
    def registry(self) -> dict:
        """The predicate registry: the shipped one, extended by this palace's
        :attr:`config` (:func:`palace.graph.temporal.load_registry`), built once per
        version of the settings."""
        config = self.config
        if self._registry is None or self._registry[0] is not config:
            from palace.graph.temporal import load_registry

            self._registry = (config, load_registry(config))
        return self._registry[1]

    def model_info(self) -> tuple[str | None, int | None]:
        """``(name, dimension)`` of the embedding model recorded in this palace, if any."""
        return self.store.model_info()

    def check_model(self, *, record: bool = False) -> None:
        """Make sure the palace's vectors were made by the current embedder
        (:meth:`Store.check_model`); raises :class:`palace.errors.ModelMismatch`."""
        self.store.check_model(record=record)

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
        on_progress: "Callable[[str, int, int], None] | None" = None,
    ) -> "MineReport":
        """Mine the folder ``root`` into the wing ``wing`` (default: the folder's name);
        ``paths``, ``verify``, ``cancel`` and ``on_progress`` (a long note's drawers read)
        as in :func:`palace.mine.run.mine`. Holds the write lock for the run: raises
        :class:`palace.errors.PalaceBusy` beside another writer or a watcher."""
        from palace.mine.run import mine

        with self._writing("mine"):
            return mine(self, Path(root), wing=wing, on_file=on_file, on_start=on_start, paths=paths,
                        verify=verify, cancel=cancel, on_progress=on_progress)

    def ask(self, question: str, **options) -> "AskResult":
        """Answer ``question`` with cited drawers; ``options`` are the fields of
        :class:`palace.ask.options.AskOptions`; see :func:`palace.ask.query.ask`."""
        from palace.ask.query import AskOptions, ask

        return ask(self.store, self.config, self.registry, question, AskOptions(**options))

    def doctor(self, *, repair: bool = False) -> "DoctorReport":
        """Check the palace (and with ``repair`` rebuild what is derived, holding the write
        lock: :class:`palace.errors.PalaceBusy` beside another writer); see
        :func:`palace.ops.doctor.doctor`."""
        from palace.ops.doctor import doctor

        if not repair:
            return doctor(self, repair=False)
        with self._writing("repair"):
            return doctor(self, repair=True)

    def status(self) -> "StatusReport":
        """Counts and per-file state; see :func:`palace.ops.status.status`."""
        from palace.ops.status import status

        return status(self)

    def facts(self, *, about: str | None = None, predicate: str | None = None, as_of: "dt.date | None" = None,
              known_at: str | None = None, limit: int = 500, typed_only: bool = True,
              now: "dt.date | None" = None, wing: str | None = None) -> "FactsResult":
        """The facts that hold ``now`` (default today), or those valid ``as_of`` a day, or
        those the palace held ``known_at`` a moment (in ``wing`` when given); see
        :func:`palace.graph.facts.facts`."""
        from palace.graph.facts import facts

        return facts(self.conn, self.registry, about=about, predicate=predicate, as_of=as_of, known_at=known_at,
                     limit=limit, typed_only=typed_only, now=now, wing=wing)

    def history(self, name: str, *, predicate: str | None = None, limit: int = 500,
                typed_only: bool = True, wing: str | None = None) -> "FactsResult":
        """Every fact about ``name`` (in ``wing`` when given), superseded, ended and
        invalidated ones included, in valid-time order. Raises :class:`UsageError` for an
        unknown name."""
        from palace.graph.facts import facts

        return facts(self.conn, self.registry, about=name, predicate=predicate, history=True, limit=limit,
                     typed_only=typed_only, wing=wing)

    def changes(self, start: "dt.date | None" = None, end: "dt.date | None" = None, *, about: str | None = None,
                wing: str | None = None, room: str | None = None) -> "ChangeSet":
        """What changed in valid time over ``[start, end)`` (either may be open), or —
        with neither — in recorded time since the previous mining; about ``about`` (a name)
        when given. See :mod:`palace.graph.changes`."""
        import datetime as dt

        from palace.graph.changes import changes_in_window, changes_since_previous_mining
        from palace.store.entities import find_entities

        ids = tuple(r["id"] for r in find_entities(self.conn, about)) if about else ()
        if start is None and end is None:
            return changes_since_previous_mining(self.conn, entity_ids=ids, wing=wing, room=room,
                                                 registry=self.registry)
        return changes_in_window(self.conn, start or dt.date.min, end or dt.date.max, entity_ids=ids, wing=wing,
                                 room=room, registry=self.registry)

    def entity(self, name: str) -> "EntityProfile":
        """The profile card of ``name``; see :func:`palace.graph.profile.profile`."""
        from palace.graph.profile import profile

        return profile(self, name)

    def connection(self, source: str, target: str) -> "Connection":
        """How two names are connected over current facts; see :func:`palace.graph.profile.connection`."""
        from palace.graph.profile import connection

        return connection(self, source, target)

    def aliases(self, name: str) -> "AliasReport":
        """``name``'s aliases and why each name resolves as it does; see :func:`palace.graph.resolution.aliases`."""
        from palace.graph.resolution import aliases

        return aliases(self.conn, name)

    def merge(self, name: str, into: str) -> "Decision":
        """Record that ``name`` is ``into`` (kept on every re-mine, reversible)."""
        from palace.graph.resolution import merge

        return merge(self.conn, name, into, self.registry)

    def split(self, name: str) -> "list[Decision]":
        """Undo what ``name`` was joined to and keep it apart."""
        from palace.graph.resolution import split

        return split(self.conn, name, self.registry)

    def add_fact(self, subject: str, predicate: str, obj: str, **options) -> "FactDecision":
        """State a fact (evidence ``user``); see :func:`palace.graph.corrections.add_fact`."""
        from palace.graph.corrections import add_fact

        return add_fact(self, subject, predicate, obj, **options)

    def retract_fact(self, fact_id: int, **options) -> "FactDecision":
        """Retract a fact, for good across re-mines; see :func:`palace.graph.corrections.retract_fact`."""
        from palace.graph.corrections import retract_fact

        return retract_fact(self, fact_id, **options)

    def confirm_fact(self, fact_id: int) -> "FactDecision":
        """Confirm a mined fact; see :func:`palace.graph.corrections.confirm_fact`."""
        from palace.graph.corrections import confirm_fact

        return confirm_fact(self, fact_id)

    def undo_fact_decision(self, decision_id: int) -> "FactDecision":
        """Undo an added, retracted or confirmed fact; see :func:`palace.graph.corrections.undo`."""
        from palace.graph.corrections import undo

        return undo(self, decision_id)

    def observe(self, entity: str, text: str, **options) -> "FactDecision":
        """Attach a free statement to an entity; see :func:`palace.graph.corrections.observe`."""
        from palace.graph.corrections import observe

        return observe(self, entity, text, **options)

    def pending_review(self) -> "Review":
        """Candidates and proposals awaiting review; see :func:`palace.graph.corrections.pending_review`."""
        from palace.graph.corrections import pending_review

        return pending_review(self)

    def review(self, accept: bool, **options) -> "list[FactDecision]":
        """Accept or reject candidates and proposals; see :func:`palace.graph.corrections.review`."""
        from palace.graph.corrections import review

        return review(self, accept, **options)

    def fact_decisions(self) -> "list[FactDecision]":
        """Every fact decision, oldest first; see :func:`palace.graph.corrections.decisions`."""
        from palace.graph.corrections import decisions

        return decisions(self)

    def daemon_status(self) -> "DaemonStatus":
        """Whether a watcher keeps this palace current, and its state; see :mod:`palace.ops.daemon`."""
        from palace.ops.daemon import daemon_status

        return daemon_status(self.path)

    def start_daemon(self, paths: "Collection[Path]", *, debounce: float = 0.5, polling: bool = False) -> "DaemonStatus":
        """Start a background watcher of ``paths``; see :func:`palace.ops.daemon.start_daemon`."""
        from palace.ops.daemon import start_daemon

        return start_daemon(self.path, list(paths), debounce=debounce, polling=polling)

    def stop_daemon(self) -> int | None:
        """Stop the background watcher (its pid, or None when none ran)."""
        from palace.ops.daemon import stop_daemon

        return stop_daemon(self.path)


#: Handles lent by :meth:`Palace.lend` (palace folder → handle).
_LENT: dict[Path, Palace] = {}


class _Borrowed:
    """A lent :class:`Palace` as :meth:`Palace.open` returns it: every attribute is the
    handle's, but closing it (or leaving its ``with`` block) leaves the handle open."""

    def __init__(self, palace: Palace) -> None:
        self._palace = palace

    def __getattr__(self, name: str):
        return getattr(self._palace, name)

    def __enter__(self) -> "_Borrowed":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        """Nothing: the lender closes the handle."""
