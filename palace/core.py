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

    from palace.graph.cards import EntityHit, ProfileCard
    from palace.graph.changes import ChangeSet
    from palace.graph.corrections import FactDecision, Review
    from palace.ops.daemon import DaemonStatus
    from palace.ops.doctor import DoctorReport
    from palace.ops.forgetting import ForgetReport
    from palace.nlp.extraction import Extractor
    from palace.store.embedding import Embedder
    from palace.graph.facts import FactsResult
    from palace.graph.map import MapData
    from palace.ops.map_server import MapServer
    from palace.graph.profile import Connection, EntityProfile
    from palace.mine.extract import ExtractResult
    from palace.mine.options import MineOptions
    from palace.mine.outcomes import FileOutcome, MineReport
    from palace.mine.watch import Watcher
    from palace.ask.result import AskResult
    from palace.graph.resolution import AliasReport, Decision
    from palace.ops.portable import ImportReport
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

    #: How long a short write (a fact added, retracted, confirmed, reviewed or undone; a
    #: merge or a split) waits for the write lock held by another writer, in seconds;
    #: None: :data:`palace.ops.locks.WRITE_WAIT_S`.
    write_wait: float | None = None

    def __init__(self, path: Path, conn: sqlite3.Connection, embedder: "Embedder | None" = None,
                 vectors: VectorStore | None = None, extractor: "Callable[..., Extractor] | None" = None) -> None:
        self.path = path
        self._config: tuple[tuple | None, Config] | None = None
        self._registry: tuple[Config, dict] | None = None
        try:
            config = self.config
        except Exception:
            conn.close()
            raise
        self.store = Store(path, conn, vectors if vectors is not None else open_vector_store(path, config), embedder,
                           extractor)

    @classmethod
    def open(
        cls, path: str | Path | None = None, *, create: bool = True, embedder: "Embedder | None" = None,
        vectors: VectorStore | None = None, extractor: "Callable[..., Extractor] | None" = None,
    ) -> "Palace":
        """Open the palace at ``path`` (resolved by :func:`resolve_palace_path`), its
        vectors in ``vectors`` (default: :func:`palace.store.vectors.open_vector_store`, the
        embedded Chroma under ``path/chroma`` unless a Chroma server is configured).
        ``embedder`` and ``extractor`` (the maker of each mining run's NLP extractor, see
        :class:`palace.store.store.Store`) replace the real models: the unit tests' fakes.

        With ``create=False`` a missing palace raises :class:`PalaceNotFound`.
        """
        quiet_third_parties()
        resolved = resolve_palace_path(path)
        lent = _LENT.get(resolved) if embedder is None and vectors is None and extractor is None else None
        if lent is not None:
            return cast(Palace, _Borrowed(lent))
        if resolved.exists() and not resolved.is_dir():
            raise UsageError(f"the palace path {resolved} is a file, not a folder", hint="pass --palace DIR")
        if not create and not (resolved / db.DB_FILENAME).exists():
            raise PalaceNotFound(
                f"no palace at {resolved}", hint="run `palace mine DIR` first, or pass --palace"
            )
        return cls(resolved, db.connect(resolved), embedder, vectors, extractor)

    @staticmethod
    def watcher(path: str | Path | None, roots: "Collection[Path]", **settings) -> "Watcher":
        """A watcher that keeps the palace at ``path`` (resolved by
        :func:`resolve_palace_path`) current with the folders ``roots``
        (:class:`palace.mine.watch.Watcher`; ``settings``: its ``debounce``, ``polling``,
        ``poll_interval`` and ``options``). It opens the palace with :meth:`open` in its
        own thread — the handle lent by :meth:`lend` when a warm server has one — and
        mines each step through the flow, holding the write lock for the step. Not yet
        started: call its ``start()``. Raises :class:`UsageError` for a root that is not
        a folder."""
        from palace.mine.watch import Watcher

        return Watcher(resolve_palace_path(path), list(roots), open_palace=Palace.open, **settings)

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
        up to :attr:`write_wait` seconds for the write at hand. ``doing`` names the work in
        the refusal.
        Raises :class:`palace.errors.PalaceBusy`."""
        from palace.ops.locks import WRITE_WAIT_S, sole_writer, write_lock

        wait = WRITE_WAIT_S if self.write_wait is None else self.write_wait
        with sole_writer(self.path, doing) if whole_run else write_lock(self.path, doing, wait=wait):
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
        options: "MineOptions | None" = None,
        on_phase: "Callable[[str, int, int], None] | None" = None,
    ) -> "MineReport":
        """Mine the folder ``root`` into the wing ``wing`` (default: the folder's name);
        ``paths``, ``cancel`` and the callbacks as in :class:`palace.mine.run.MineRun`;
        ``options`` its budget (:class:`palace.mine.options.MineOptions`), ``verify`` sets
        its ``verify``. Holds the write lock for the run: raises
        :class:`palace.errors.PalaceBusy` beside another writer or a watcher."""
        from dataclasses import replace

        from palace.mine.options import MineCallbacks, MineOptions
        from palace.mine.run import MineRun

        options = options or MineOptions()
        if verify:
            options = replace(options, verify=True)
        callbacks = MineCallbacks(on_start=on_start, on_file=on_file, on_progress=on_progress, on_phase=on_phase,
                                  cancel=cancel)
        with self._writing("mine"):
            return MineRun(self.store, self.config, self.registry, options, callbacks).mine(
                Path(root), wing=wing, paths=paths)

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
            return doctor(self.store, self.config, self.registry, repair=False)
        with self._writing("repair"):
            return doctor(self.store, self.config, self.registry, repair=True)

    def status(self) -> "StatusReport":
        """Counts and per-file state; see :func:`palace.ops.status.status`."""
        from palace.ops.status import status

        return status(self.store, self.config)

    def forget(self, path: str | None = None, *, wing: str | None = None, entity: str | None = None,
               dry_run: bool = False) -> "ForgetReport":
        """Forget a note or folder (``path``), a ``wing`` or an ``entity`` everywhere, then
        compact the store; see :func:`palace.ops.forgetting.forget`. Holds the write lock
        for the run (a ``dry_run`` changes nothing and takes none): raises
        :class:`palace.errors.PalaceBusy` beside another writer or a watcher, and
        :class:`UsageError` for an unknown target."""
        from palace.ops.forgetting import forget

        if dry_run:
            return forget(self.store, self.config, self.registry, path=path, wing=wing, entity=entity, dry_run=True)
        with self._writing("forget"):
            return forget(self.store, self.config, self.registry, path=path, wing=wing, entity=entity)

    def allow(self, path: str | None = None, *, wing: str | None = None) -> int:
        """Let the notes forgotten at ``path`` (a note or a folder) or of ``wing`` be mined
        again; how many were blocked. One short write: waits a few seconds for the write
        lock (:class:`palace.errors.PalaceBusy` after that). See
        :func:`palace.ops.forgetting.allow`."""
        from palace.ops.forgetting import allow

        with self._writing("allow forgotten notes", whole_run=False):
            return allow(self.conn, path, wing=wing)

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

    def map(self, names: tuple[str, ...] = (), *, wing: str | None = None, since: "dt.date | None" = None,
            until: "dt.date | None" = None, candidates: bool = False, max_nodes: int | None = None) -> "MapData":
        """What ``palace map`` draws about ``names`` (default: the busiest entities), in
        ``wing`` (default: every wing but the private ones), valid in ``[since, until]``;
        see :func:`palace.graph.map.map_data`. Raises :class:`UsageError` for an unknown
        wing or a name the map may not show."""
        from palace.graph.map import MAX_NODES, map_data

        if wing is not None and wing not in self.wings():
            raise UsageError(f"no wing {wing!r} in this palace", hint="palace status lists the wings")
        return map_data(self.conn, self.config, self.registry, tuple(names), wing=wing, since=since, until=until,
                        candidates=candidates, max_nodes=max_nodes or MAX_NODES, palace=str(self.path))

    @staticmethod
    def map_page(data: "MapData", *, served: bool = False) -> str:
        """The self-contained HTML page of a map (:func:`palace.graph.map_page.render_page`)."""
        from palace.graph.map_page import render_page

        return render_page(data, served=served)

    def serve_map(self, *, port: int = 0, wing: str | None = None) -> "MapServer":
        """A server of this palace's map on 127.0.0.1 (``port`` 0: a free one) behind a
        random token, limited to ``wing`` when given (else every wing but the private
        ones), not yet started; see :mod:`palace.ops.map_server`. Each request reads the
        palace anew (:meth:`map`), so the page follows a mine or a watcher. Raises
        :class:`UsageError` for an unknown wing."""
        from palace.ops.map_server import MapServer

        if wing is not None and wing not in self.wings():
            raise UsageError(f"no wing {wing!r} in this palace", hint="palace status lists the wings")

        def page(query) -> str:
            since = self.parse_day(query.since, "since")
            until = self.parse_day(query.until, "until", end=True)
            return self.map_page(self.map(query.names, wing=wing, since=since, until=until,
                                          candidates=query.candidates, max_nodes=query.nodes), served=True)

        return MapServer(page, port=port)

    def entity(self, name: str) -> "EntityProfile":
        """The profile card of ``name``; see :func:`palace.graph.profile.profile`."""
        from palace.graph.profile import profile

        return profile(self.conn, self.registry, name)

    def connection(self, source: str, target: str) -> "Connection":
        """How two names are connected over current facts; see :func:`palace.graph.profile.connection`."""
        from palace.graph.profile import connection

        return connection(self.conn, self.registry, source, target)

    def search_entities(self, query: str, *, limit: int = 10, relations: int = 5,
                        wing: str | None = None) -> "list[EntityHit]":
        """Entities whose names hold the query's words, scored; see :func:`palace.graph.cards.search_entities`."""
        from palace.graph.cards import search_entities

        return search_entities(self.conn, self.registry, query, limit=limit, relations=relations, wing=wing)

    def profile_card(self, names: tuple[str, ...] = (), *, entities: int = 8, facts: int = 5,
                     wing: str | None = None) -> "ProfileCard":
        """What the notes hold now about a few entities, as text for a prompt; see
        :func:`palace.graph.cards.profile_card`."""
        from palace.graph.cards import profile_card

        return profile_card(self.conn, self.registry, names, entities=entities, facts=facts, wing=wing)

    def mentioned_in(self, name: str, wing: str) -> bool:
        """Whether the entity ``name`` is mentioned in ``wing``; :class:`UsageError` for an unknown name."""
        from palace.graph.cards import mentioned_in

        return mentioned_in(self.conn, name, wing)

    def fact_wing(self, fact_id: int) -> str | None:
        """The wing a fact was read (or stated) in; None for an unknown fact."""
        from palace.store.facts import fact_wing

        return fact_wing(self.conn, fact_id)

    def wings(self) -> list[str]:
        """The wings of the palace, sorted."""
        from palace.store.drawers import wings

        return wings(self.conn)

    def aliases(self, name: str) -> "AliasReport":
        """``name``'s aliases and why each name resolves as it does; see :func:`palace.graph.resolution.aliases`."""
        from palace.graph.resolution import aliases

        return aliases(self.conn, name)

    def merge(self, name: str, into: str) -> "Decision":
        """Record that ``name`` is ``into`` (kept on every re-mine, reversible), holding the
        write lock (:class:`palace.errors.PalaceBusy` when another writer keeps it past
        :attr:`write_wait`)."""
        from palace.graph.resolution import merge

        with self._writing("merge names", whole_run=False):
            return merge(self.conn, name, into, self.registry)

    def split(self, name: str) -> "list[Decision]":
        """Undo what ``name`` was joined to and keep it apart, holding the write lock."""
        from palace.graph.resolution import split

        with self._writing("split a name", whole_run=False):
            return split(self.conn, name, self.registry)

    def add_fact(self, subject: str, predicate: str, obj: str, **options) -> "FactDecision":
        """State a fact (evidence ``user``), holding the write lock; see
        :func:`palace.graph.corrections.add_fact`."""
        from palace.graph.corrections import add_fact

        with self._writing("add a fact", whole_run=False):
            return add_fact(self.conn, self.registry, subject, predicate, obj, **options)

    def retract_fact(self, fact_id: int, **options) -> "FactDecision":
        """Retract a fact, for good across re-mines, holding the write lock; see
        :func:`palace.graph.corrections.retract_fact`."""
        from palace.graph.corrections import retract_fact

        with self._writing("retract a fact", whole_run=False):
            return retract_fact(self.conn, self.registry, fact_id, **options)

    def confirm_fact(self, fact_id: int) -> "FactDecision":
        """Confirm a mined fact, holding the write lock; see :func:`palace.graph.corrections.confirm_fact`."""
        from palace.graph.corrections import confirm_fact

        with self._writing("confirm a fact", whole_run=False):
            return confirm_fact(self.conn, fact_id)

    def undo_fact_decision(self, decision_id: int) -> "FactDecision":
        """Undo an added, retracted, confirmed, accepted or rejected fact, holding the write
        lock; see :func:`palace.graph.corrections.undo`."""
        from palace.graph.corrections import undo

        with self._writing("undo a fact decision", whole_run=False):
            return undo(self.conn, self.registry, decision_id)

    def observe(self, entity: str, text: str, **options) -> "FactDecision":
        """Attach a free statement to an entity, holding the write lock; see
        :func:`palace.graph.corrections.observe`."""
        from palace.graph.corrections import observe

        with self._writing("add an observation", whole_run=False):
            return observe(self.conn, self.registry, entity, text, **options)

    def pending_review(self) -> "Review":
        """Candidates and proposals awaiting review; see :func:`palace.graph.corrections.pending_review`."""
        from palace.graph.corrections import pending_review

        return pending_review(self.conn, self.registry)

    def review(self, accept: bool, **options) -> "list[FactDecision]":
        """Accept or reject candidates and proposals, holding the write lock; see
        :func:`palace.graph.corrections.review`."""
        from palace.graph.corrections import review

        with self._writing("accept a candidate" if accept else "reject a candidate", whole_run=False):
            return review(self.conn, self.registry, accept, **options)

    def fact_decisions(self) -> "list[FactDecision]":
        """Every fact decision, oldest first; see :func:`palace.graph.corrections.decisions`."""
        from palace.graph.corrections import decisions

        return decisions(self.conn)

    def export(self, *, graphml: bool = False) -> tuple[str, dict]:
        """The graph as JSON (or GraphML) text and its counts; see :func:`palace.ops.portable.export_graph`."""
        from palace.ops.portable import export_graph

        return export_graph(self.store, self.registry, graphml=graphml)

    def import_decisions(self, path: str | Path) -> "ImportReport":
        """Replay the user's decisions of an export into this palace (after forgetting the
        notes its forget list names), holding the write lock
        for the run (:class:`palace.errors.PalaceBusy` beside another writer or a watcher);
        see :func:`palace.ops.portable.import_decisions`."""
        from palace.ops.portable import import_decisions

        with self._writing("import"):
            return import_decisions(self.store, self.config, self.registry, Path(path))

    def claim_server(self) -> "Callable[[], None] | None":
        """Become the one process that serves this palace: an exclusive ``flock`` on its
        ``serve.lock``, held until the returned function is called (the kernel drops it
        when the process dies). None when another process serves it already. Raises
        :class:`UsageError` when the lock file cannot be made."""
        from palace.ops.locks import SERVE_LOCK, try_lock, unlock

        fd = try_lock(self.path / SERVE_LOCK)
        if fd is None:
            return None
        return lambda: unlock(fd)

    @staticmethod
    def parse_day(value: str | None, option: str, *, end: bool = False,
                  now: "dt.date | None" = None) -> "dt.date | None":
        """Read the day an option names (``option``, as the error says it): ISO
        ``YYYY-MM-DD``, or any form palace reads in questions (``2024``, ``Q3 2024``,
        ``last month``; relative to ``now``, default today). A period gives its first day,
        or its last day with ``end=True`` (``--until 2024`` means through 2024-12-31).
        None for no ``value``. Needs no open palace. Raises :class:`UsageError` when
        nothing in ``value`` is a date."""
        import datetime as dt

        if not value:
            return None
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
        from palace.nlp.dates import find_date_window

        found = find_date_window(value, now or dt.date.today())
        if found is None or found[1].strip().lower() not in value.strip().lower():
            raise UsageError(f"{option}: cannot read a date from {value!r}", hint="use YYYY-MM-DD, e.g. 2024-04-12")
        interval, text = found
        leftover = value.strip().lower().replace(text.strip().lower(), "", 1).strip(" ,.")
        if leftover:
            raise UsageError(f"{option}: cannot read a date from {value!r}", hint="use YYYY-MM-DD, e.g. 2024-04-12")
        return interval.end - dt.timedelta(days=1) if end else interval.start

    @staticmethod
    def extract(text: str | None = None, *, file: "Path | None" = None, date: "dt.date | None" = None,
                title: str | None = None, owner: str | None = None,
                palace: "str | Path | None" = None) -> "ExtractResult":
        """The facts mining would read from ``text``, or from the note ``file`` read as
        mining reads it (encoding, front matter, the note's own date), nothing stored; see
        :func:`palace.mine.extract.extract_text`. ``date`` dates the note (default: the
        file's own date, else today), ``title`` and ``owner`` as there; the settings
        (predicates, value lexicons, owner, date order) are those of the palace at
        ``palace`` (resolved by :func:`resolve_palace_path`), which need not exist: no
        palace is opened. Raises :class:`UsageError` when not exactly one of ``text`` and
        ``file`` is given, for a file that cannot be read, or for a malformed
        ``config.json``."""
        import datetime as dt

        from palace.mine.extract import extract_text
        from palace.mine.reading import Unreadable, read_note

        if (text is None) == (file is None):
            raise UsageError("give a TEXT or --file FILE (not both)",
                             hint='palace extract "Ines moved from Oslo to Bergen."')
        if file is not None:
            try:
                note = read_note(file)
            except Unreadable as exc:
                raise UsageError(f"cannot read {file}: {exc.reason}") from None
            text, date, title = note.text, date or note.doc_date, title or note.title
        return extract_text(text, date=date or dt.date.today(), title=title or "", owner=owner,
                            config=Config.load(resolve_palace_path(palace)),
                            path=str(file) if file is not None else None)

    def daemon_status(self) -> "DaemonStatus":
        """Whether a watcher keeps this palace current, and its state (:meth:`watcher_status`)."""
        return Palace.watcher_status(self.path)

    def start_daemon(self, paths: "Collection[Path]", *, debounce: float = 0.5, polling: bool = False) -> "DaemonStatus":
        """Start a background watcher of ``paths`` (:meth:`start_watcher`)."""
        return Palace.start_watcher(self.path, paths, debounce=debounce, polling=polling)

    def stop_daemon(self) -> int | None:
        """Stop the background watcher (its pid, or None when none ran; :meth:`stop_watcher`)."""
        return Palace.stop_watcher(self.path)

    @staticmethod
    def watcher_status(path: str | Path | None = None) -> "DaemonStatus":
        """Whether a watcher keeps the palace at ``path`` (resolved by
        :func:`resolve_palace_path`) current, and its last state; see
        :func:`palace.ops.daemon.daemon_status`. Needs no open palace (nor an existing one)."""
        from palace.ops.daemon import daemon_status

        return daemon_status(resolve_palace_path(path))

    @staticmethod
    def start_watcher(path: str | Path | None, roots: "Collection[Path]", *, debounce: float = 0.5,
                      polling: bool = False) -> "DaemonStatus":
        """Start a background watcher (``palace watch --daemon``) of the folders ``roots``
        for the palace at ``path`` and wait until it has caught up; see
        :func:`palace.ops.daemon.start_daemon` (its errors too). Its log is the status's
        ``log``."""
        from palace.ops.daemon import start_daemon

        return start_daemon(resolve_palace_path(path), list(roots), debounce=debounce, polling=polling)

    @staticmethod
    def stop_watcher(path: str | Path | None = None) -> int | None:
        """Stop the background watcher of the palace at ``path`` (it finishes the note at
        hand): its pid, or None when none ran; see :func:`palace.ops.daemon.stop_daemon`."""
        from palace.ops.daemon import stop_daemon

        return stop_daemon(resolve_palace_path(path))


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
