"""``palace watch``: keep a palace current with folders of notes as they change.

One watcher per palace (a lock file). The flow:

1. A watchdog observer — the native one (inotify on Linux), or polling where native
   events cannot work (a network file system, the inotify watch limit reached; the log
   and the status say so) — reports file system events from its own thread.
2. Events are **coalesced per path** into a queue, keeping the time of the last one.
   Editor temp, swap, backup and lock files (:func:`palace.mine.discovery.is_editor_artifact`)
   and anything inside hidden or skipped folders never enter it. A move queues both ends,
   so the mine run (:class:`palace.mine.run.MineRun`) sees the note leave one path and
   appear at another and keeps its drawers and vectors. A folder event or a change of
   ``.gitignore`` / ``.palaceignore`` queues a scan of the whole root.
3. A path is **due** once it has been quiet for ``debounce`` seconds, whatever sequence
   of events its editor's save produced (vim: rename to a backup, write a new file,
   delete the backup — one modification). Due paths of a root are mined together by the
   same per-file step as ``palace mine`` (a :class:`palace.mine.run.MineRun` over those
   paths), whose NLP runs inside a spaCy ``memory_zone`` so that a long-running watcher's
   string store does not grow. Each step holds the palace's write lock
   (:func:`palace.ops.locks.write_lock`), so a short write of another process — a fact
   added, a review — waits for the step at hand instead of racing it.
4. At start, before it reports itself ready, each root is caught up: a whole mine with
   ``verify`` (hashes, not only mtimes) finds what changed while it was not running.

The watcher never imports the handle: it is given ``open_palace``, a callable that opens
the palace at a path as a context manager giving what a run needs (:class:`Opened`:
its ``store``, ``config`` and ``registry``). :meth:`palace.core.Palace.watcher` builds
one with :meth:`palace.core.Palace.open` (so a watcher beside a warm server mines with
the server's lent handle); ``palace watch`` and the daemon's child use it.

A root that disappears, or a mine that raises, is logged and retried with exponential
backoff (1 s doubling to 60 s); the watcher thread never dies silently — its state is in
``watch.json`` (:class:`WatchState`), rewritten on every change and every few seconds,
which ``palace daemon status`` reads. SQLite runs in WAL mode, so ``palace ask`` beside a
watcher never waits for it and sees the last committed update.
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import logging
import os
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Callable, ContextManager, Protocol

from palace.mine.discovery import IGNORE_FILES, SKIPPED_FOLDERS, is_editor_artifact
from palace.mine.options import MineCallbacks, MineOptions
from palace.mine.run import MineRun
from palace.errors import PalaceBusy, UsageError
from palace.ops.locks import WATCH_LOCK, WATCH_PID, try_lock, unlock, watcher_pid, write_lock
from palace.ops.daemon import STATE_FILE, already_watching

if TYPE_CHECKING:
    from palace.config import Config
    from palace.mine.outcomes import MineReport
    from palace.store.store import Store

log = logging.getLogger("palace.watch")

DEBOUNCE_S = 0.5
HEARTBEAT_S = 5.0
MAX_BACKOFF_S = 60.0
#: how long a mine step waits for the write lock a short write (a fact added, a review)
#: holds, in seconds, as long as such a write waits for a step (then the step fails and
#: the root is retried with backoff)
STEP_LOCK_WAIT_S = 10.0
#: File systems where inotify sees no change made by another machine: poll them.
NETWORK_FS = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "davfs", "fuse.sshfs",
                        "fuse.rclone", "fuse.s3fs", "ceph", "glusterfs", "lustre"})


@dataclass
class RootState:
    """One watched root: its folder, its wing, how it is observed (``native`` or
    ``polling``), and whether it is ``watching``, ``catching up`` or ``missing``."""

    path: str
    wing: str
    observer: str = "native"
    state: str = "catching up"
    reason: str = ""


@dataclass
class WatchState:
    """What the watcher is doing, as written to ``watch.json`` (``palace daemon status``).

    ``health`` is ``healthy``, or ``degraded`` with ``problems`` (a root missing, polling
    instead of native events, recent errors); ``ready`` turns true once every root was
    caught up; ``queue`` counts paths waiting; ``mining`` names the paths being mined now;
    ``last_event`` / ``last_update`` are ISO moments (UTC); ``updates`` counts finished
    mine steps; ``errors`` keeps the last 20 (``{at, root, error}``); ``heartbeat`` is
    rewritten every few seconds while the watcher lives; ``stopped_at`` is set when it
    stopped (the file stays, so ``palace daemon status`` can say how the last one ended)."""

    pid: int
    palace: str
    started_at: str
    roots: list[RootState] = field(default_factory=list)
    ready: bool = False
    queue: int = 0
    mining: list[str] = field(default_factory=list)
    last_event: str | None = None
    last_update: str | None = None
    updates: int = 0
    errors: list[dict] = field(default_factory=list)
    health: str = "healthy"
    problems: list[str] = field(default_factory=list)
    heartbeat: str = ""
    stopped_at: str | None = None


class Opened(Protocol):
    """What the watcher needs of an open palace (:class:`palace.core.Palace` is one):
    the store a run writes, the settings and the predicate registry (read again for each
    step, so an edit of ``config.json`` is followed)."""

    store: "Store"

    @property
    def config(self) -> "Config": ...

    @property
    def registry(self) -> dict: ...


def now_iso() -> str:
    """The current moment, UTC, ISO 8601 to the millisecond."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


class PalaceLock:
    """The one-watcher-per-palace lock: an exclusive ``flock`` on ``watch.lock``, held for
    the life of the process (the kernel drops it when the process dies, so a killed
    watcher never blocks the next), plus ``watch.pid`` for ``palace daemon``."""

    def __init__(self, palace_dir: Path) -> None:
        self.palace_dir = palace_dir
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise :class:`AlreadyWatching` naming the holder's pid."""
        fd = try_lock(self.palace_dir / WATCH_LOCK)
        if fd is None:
            raise already_watching(self.palace_dir)
        self._fd = fd
        (self.palace_dir / WATCH_PID).write_text(f"{os.getpid()}\n")

    def release(self) -> None:
        """Remove the pid file and drop the lock."""
        if self._fd is None:
            return
        try:
            if watcher_pid(self.palace_dir) == os.getpid():
                (self.palace_dir / WATCH_PID).unlink(missing_ok=True)
        finally:
            unlock(self._fd)
            self._fd = None


def filesystem_type(path: Path) -> str:
    """The type of the file system ``path`` lives on (``ext4``, ``nfs4``…), from
    ``/proc/mounts``; empty where that cannot be read."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return ""
    best, kind = "", ""
    target = str(path.resolve())
    for line in mounts:
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
            best, kind = point, parts[2]
    return kind


def _identity(folder: Path) -> tuple[int, int] | None:
    """``(device, inode)`` of a folder, or None when it is gone."""
    try:
        st = folder.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if os.path.isdir(folder) else None


def _relevant(rel: str, *, editor_files: bool = False) -> bool:
    """Whether a path under a root can matter: not inside a hidden or skipped folder,
    not an editor's temp, swap, backup or lock file (unless ``editor_files``)."""
    parts = PurePosixPath(rel).parts
    if not parts:
        return False
    if any(p.startswith(".") or p in SKIPPED_FOLDERS for p in parts[:-1]):
        return False
    return editor_files or not is_editor_artifact(parts[-1])


class _Yielding:
    """The ``cancel`` of a watcher's mine step (the ``threading.Event`` methods mine and
    its embedding worker use). It is set when the watcher stops, and also when a long
    note has just committed a step of its drawers while other notes became due: the step
    ends there, losing nothing, the due notes are mined next and the long note resumes
    after them from its stored drawers. Yielding only right after a committed step
    means a long note advances at least one step between two yields, however busy the
    folder (no starvation)."""

    def __init__(self, stop: threading.Event, should_yield) -> None:
        self._stop = stop
        self._should_yield = should_yield
        self.yielded = False

    def is_set(self) -> bool:
        if self._stop.is_set():
            return True
        if not self.yielded and self._should_yield():
            self.yielded = True
        return self.yielded

    def wait(self, timeout: float | None = None) -> bool:
        return self._stop.wait(timeout) or self.is_set()

    def set(self) -> None:
        self._stop.set()


class _Queue:
    """Paths waiting to be mined, per root, coalesced: ``{root index: {rel: last event}}``,
    plus roots waiting for a whole scan. Filled by the observer thread, drained by the
    watcher thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.paths: dict[int, dict[str, float]] = {}
        self.scans: dict[int, float] = {}
        self.last_event = 0.0
        self.arrived = threading.Event()  # wakes the watcher thread: no polling while idle

    def add(self, index: int, rel: str) -> None:
        with self._lock:
            self.last_event = time.monotonic()
            self.paths.setdefault(index, {})[rel] = self.last_event
        self.arrived.set()

    def scan(self, index: int) -> None:
        with self._lock:
            self.last_event = time.monotonic()
            self.scans[index] = self.last_event
        self.arrived.set()

    def __len__(self) -> int:
        with self._lock:
            return sum(len(p) for p in self.paths.values()) + len(self.scans)

    def due(self, quiet: float) -> tuple[dict[int, set[str]], set[int]]:
        """Take the paths and scans quiet for ``quiet`` seconds: ``({root: paths}, scans)``.
        Each path waits for its own quiet, so a file written without pause does not hold
        back the others; the two ends of a move share their moment and go together, and
        so do the files of a burst that settled at once."""
        now = time.monotonic()
        with self._lock:
            taken: dict[int, set[str]] = {}
            for index, paths in list(self.paths.items()):
                ready = {rel for rel, at in paths.items() if now - at >= quiet}
                if ready:
                    taken[index] = ready
                    for rel in ready:
                        del paths[rel]
                if not paths:
                    del self.paths[index]
            scans = {i for i, at in self.scans.items() if now - at >= quiet}
            for index in scans:
                del self.scans[index]
                taken.pop(index, None)  # a whole scan covers them
                self.paths.pop(index, None)
            return taken, scans

    def has_due(self, quiet: float) -> bool:
        """Whether a path or a scan has been quiet for ``quiet`` seconds (nothing is taken)."""
        now = time.monotonic()
        with self._lock:
            return any(now - at >= quiet for p in self.paths.values() for at in p.values()) or any(
                now - at >= quiet for at in self.scans.values())

    def requeue(self, index: int, rels: set[str] | None) -> None:
        """Put back, due at once, what a step yielded before finishing: ``rels`` of root
        ``index``, or (None) its whole scan."""
        with self._lock:
            due = time.monotonic() - 3600.0
            if rels is None:
                self.scans[index] = min(self.scans.get(index, due), due)
            else:
                paths = self.paths.setdefault(index, {})
                for rel in rels:
                    paths[rel] = min(paths.get(rel, due), due)
        self.arrived.set()

    def next_due_paths(self, quiet: float) -> float | None:
        """Seconds until the first queued path or scan is quiet long enough, or None."""
        with self._lock:
            moments = [at for p in self.paths.values() for at in p.values()] + list(self.scans.values())
        if not moments:
            return None
        return max(0.0, min(moments) + quiet - time.monotonic())


class _Handler:
    """The watchdog event handler of one root: turns events into queue entries."""

    def __init__(self, index: int, root: Path, queue: _Queue, palace_rel: str | None = None) -> None:
        self.index, self.root, self.queue = index, root, queue
        self.palace_rel = palace_rel  # the palace's own folder, when it lies in the root

    def dispatch(self, event) -> None:  # watchdog's handler protocol
        try:
            self._dispatch(event)
        except Exception:  # the observer thread must never die of one event
            log.exception("could not queue %s", getattr(event, "src_path", event))

    def _rel(self, path) -> str | None:
        path = os.fsdecode(path)
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if rel == "." else rel

    def _dispatch(self, event) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return
        ends = [self._rel(event.src_path)]
        if kind == "moved":
            ends.append(self._rel(event.dest_path))
        ends = [rel for rel in ends if rel and not (
            self.palace_rel and (rel == self.palace_rel or rel.startswith(self.palace_rel + "/")))]
        if event.is_directory:
            if kind != "modified" and any(_relevant(rel + "/x") for rel in ends):
                self.queue.scan(self.index)  # a new, moved or deleted folder: scan the root
            return
        for position, rel in enumerate(ends):
            name = PurePosixPath(rel).name
            if name in IGNORE_FILES and _relevant(rel):
                self.queue.scan(self.index)  # the ignore rules changed
            elif _relevant(rel):
                self.queue.add(self.index, rel)
            elif kind == "deleted" or (kind == "moved" and position == 0):
                # an editor file that left: a whole-folder scan may have recorded it as
                # skipped, and its row must go (a path never recorded costs nothing)
                if _relevant(rel, editor_files=True):
                    self.queue.add(self.index, rel)


class Watcher:
    """Keeps the palace at ``palace_dir`` current with ``roots`` (folders; each its own
    wing, named after the folder as ``palace mine`` names it).

    :meth:`start` takes the palace's lock (raises :class:`AlreadyWatching`), starts the
    observers and the watcher thread, which opens the palace with ``open_palace``
    (``open_palace(palace_dir)``: a context manager giving an :class:`Opened`), catches
    each root up and then mines due paths; :meth:`stop` ends both cleanly. ``debounce``:
    seconds a path must be quiet; ``polling``: force the polling observer
    (``poll_interval`` seconds apart); ``options``: the budget of each mine step
    (:class:`MineOptions`; its ``verify`` is the watcher's to set). Raises
    :class:`UsageError` for a root that is not a folder. Build it with
    :meth:`palace.core.Palace.watcher`.
    """

    def __init__(self, palace_dir: Path, roots: list[Path], *,
                 open_palace: Callable[[Path], ContextManager[Opened]], debounce: float = DEBOUNCE_S,
                 polling: bool = False, poll_interval: float = 1.0, options: MineOptions | None = None) -> None:
        if not roots:
            raise UsageError("no folder to watch", hint="palace watch NOTES_DIR")
        self.palace_dir = Path(palace_dir)
        self.roots = []
        for root in roots:
            root = Path(root).expanduser()
            if not root.is_dir():
                raise UsageError(f"not a folder: {root}", hint="give `palace watch` folders of notes")
            self.roots.append(root.resolve())
        names = [r.name or "root" for r in self.roots]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise UsageError(f"two folders would be the wing {twice[0]!r}: {', '.join(str(r) for r in self.roots if r.name == twice[0])}",
                             hint="watch them from separate palaces, or mine one with `palace mine --wing`")
        self.open_palace = open_palace
        self.options = options or MineOptions()
        self.debounce = debounce
        self.polling = polling
        self.poll_interval = poll_interval
        self.queue = _Queue()
        self.lock = PalaceLock(self.palace_dir)
        self.state = WatchState(os.getpid(), str(self.palace_dir), now_iso(),
                                [RootState(str(r), r.name or "root") for r in self.roots])
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._idle = threading.Event()
        self._thread: threading.Thread | None = None
        self._observers: list = []
        self._watches: dict[int, object] = {}
        self._identities: dict[int, tuple[int, int] | None] = {}
        self._retry_at: dict[int, float] = {}
        self._backoff: dict[int, float] = {}
        self._state_lock = threading.Lock()

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Take the lock, start observing, and start the watcher thread (which catches
        up every root before :meth:`wait_ready` returns). Raises :class:`AlreadyWatching`
        when another watcher runs and :class:`palace.errors.PalaceBusy` while a ``palace
        mine`` writes."""
        from palace.errors import PalaceBusy
        from palace.ops.locks import mine_running

        if mine_running(self.palace_dir):
            raise PalaceBusy(f"a `palace mine` is writing {self.palace_dir}",
                             hint="start the watcher when it has finished")
        self.lock.acquire()
        try:
            self._start_observers()
        except Exception:
            self.lock.release()
            raise
        self._thread = threading.Thread(target=self._run, name="palace-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 600.0) -> None:
        """Stop observing, end the current mine step after the note at hand (what is
        stored stays; the rest is caught up at the next start), release the lock."""
        self._stop.set()
        self.stop_event_wakes()
        for observer in self._observers:
            observer.stop()
        for observer in self._observers:
            observer.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)  # mine steps stop between notes once _stop is set
        if self.state.health != "stopped":
            self.state.health, self.state.problems = "stopped", []
        self.state.stopped_at = now_iso()
        try:
            self._write_state(final=True)  # `palace daemon status` shows how the last one ended
        except OSError:
            log.exception("could not write %s", STATE_FILE)
        self.lock.release()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until every root was caught up (True) or ``timeout`` passed (False)."""
        return self._ready.wait(timeout)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until nothing is queued or being mined (True), or ``timeout`` (False)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._ready.is_set() and self._idle.is_set() and len(self.queue) == 0:
                return True
            time.sleep(0.05)
        return False

    @property
    def alive(self) -> bool:
        """True while the watcher thread runs."""
        return self._thread is not None and self._thread.is_alive()

    # -- observers -----------------------------------------------------------------

    def _start_observers(self) -> None:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        native = Observer()
        poller = PollingObserver(timeout=self.poll_interval)
        self._observers = [native, poller]
        native.start()  # started first: a running observer starts each watch as it is
        poller.start()  # scheduled, so an inotify limit raises in schedule() and is caught
        for index, root in enumerate(self.roots):
            self._schedule(index, root, native, poller)

    def _schedule(self, index: int, root: Path, native, poller) -> None:
        """Watch one root natively, or by polling where native events cannot work."""
        self._identities[index] = _identity(root)
        state = self.state.roots[index]
        handler = _Handler(index, root, self.queue, self._inside(root))
        fs = filesystem_type(root)
        reason = ""
        if self.polling:
            reason = "polling requested"
        elif fs in NETWORK_FS:
            reason = f"{fs} is a network file system: native events miss changes made elsewhere"
        if not reason:
            try:
                self._watches[index] = native.schedule(handler, str(root), recursive=True)
                state.observer, state.reason = "native", ""
                return
            except OSError as exc:  # ENOSPC: the inotify watch limit; EMFILE: instances
                reason = f"native events failed ({exc.strerror or exc}); raise fs.inotify.max_user_watches"
        self._watches[index] = poller.schedule(handler, str(root), recursive=True)
        state.observer, state.reason = "polling", reason
        log.warning("polling %s: %s", root, reason)

    def _inside(self, root: Path) -> str | None:
        """The palace folder relative to ``root`` when it lies inside it (its own writes
        must not wake the watcher), else None."""
        try:
            return self.palace_dir.resolve().relative_to(root).as_posix()
        except ValueError:
            return None

    def _reschedule(self, index: int) -> None:
        native, poller = self._observers
        watch = self._watches.pop(index, None)
        for observer in (native, poller):
            try:
                if watch is not None:
                    observer.unschedule(watch)
            except (KeyError, ValueError):
                pass
        self._schedule(index, self.roots[index], native, poller)

    # -- the watcher thread --------------------------------------------------------

    def _run(self) -> None:
        try:
            with self.open_palace(self.palace_dir) as palace:
                for index in range(len(self.roots)):
                    self._catch_up(palace, index)
                # spaCy, Chroma and the model stay for the watcher's life: collect once, then
                # move what is left out of the collector's sight, so that an idle watcher's
                # rare collections do not walk hundreds of MB of objects (gc.freeze)
                gc.collect()
                gc.freeze()
                self.state.ready = True
                self._write_state()  # before wait_ready() returns: a reader sees it ready
                self._ready.set()
                log.info("ready: watching %s", ", ".join(str(r) for r in self.roots))
                beat = time.monotonic()
                while not self._stop.is_set():
                    worked = self._step(palace)
                    if time.monotonic() - beat >= HEARTBEAT_S:
                        beat = time.monotonic()
                        try:
                            self._check_roots(palace)
                            self._write_state()
                        except Exception as exc:  # noqa: BLE001 — e.g. a full disk: say so, go on
                            log.exception("heartbeat failed")
                            self._error(None, f"heartbeat failed: {exc}")
                    if not worked:
                        self._idle.set()
                        self._sleep(beat)
        except Exception as exc:  # never die silently: say so in the log and the state
            log.exception("the watcher stopped")
            self._error(None, f"the watcher stopped: {exc}")
            self.state.health = "stopped"
            try:
                self._write_state()
            except OSError:
                log.exception("could not write %s", STATE_FILE)
            raise

    def _sleep(self, beat: float) -> None:
        """Wait for the first of: an event, the next due path, a retry, the heartbeat,
        or stop. Idle, the thread wakes once per heartbeat."""
        waits = [HEARTBEAT_S - (time.monotonic() - beat)]
        due = self.queue.next_due_paths(self.debounce)
        if due is not None:
            waits.append(due)
        waits += [at - time.monotonic() for at in self._retry_at.values()]
        timeout = max(0.0, min(waits))
        if self.queue.arrived.wait(timeout):
            self.queue.arrived.clear()

    def stop_event_wakes(self) -> None:
        """Wake the watcher thread (used by :meth:`stop`)."""
        self.queue.arrived.set()

    def _catch_up(self, palace, index: int) -> None:
        state = self.state.roots[index]
        state.state = "catching up"
        self._write_state()
        if self._mine(palace, index, None, verify=True):
            state.state = "watching"
        self._write_state()

    def _step(self, palace) -> bool:
        """Mine whatever is due; True when something was."""
        self._idle.clear()  # before taking from the queue: wait_idle() never sees an empty gap
        taken, scans = self.queue.due(self.debounce)
        retry = {i for i, at in self._retry_at.items() if time.monotonic() >= at}
        if not taken and not scans and not retry:
            self.state.queue = len(self.queue)
            return False
        self.state.queue = len(self.queue)
        for index in sorted(scans | retry):
            self._retry_at.pop(index, None)
            if self._mine(palace, index, None, verify=index in retry):
                self.state.roots[index].state = "watching"
        for index, paths in taken.items():
            if index in scans or index in retry or self.state.roots[index].state == "refused":
                continue
            self._mine(palace, index, paths, verify=True)  # a few files: hash them, mtimes can lie
        self.state.queue = len(self.queue)
        self._write_state()
        return True

    def _progress(self, path: str, read: int, total: int) -> None:
        """A long note's progress, shown in ``watch.json``'s ``mining`` (at most every few
        seconds: the heartbeat thread writes the state too). Also notes whether the note
        has just committed a step (see :class:`_Yielding`)."""
        step = self.options.large_note_drawers
        self._step_committed = total > step and read < total and read % step == 0
        label = f"{path} ({read}/{total} drawers)"
        self.state.mining = [label] + [m for m in self.state.mining if not m.startswith(f"{path} (") and m != path]
        now = time.monotonic()
        if now - getattr(self, "_progress_written", 0.0) >= 2.0 or read == total:
            self._progress_written = now
            self._write_state()

    def _mine(self, palace, index: int, paths: set[str] | None, verify: bool = False) -> bool:
        """One mine step of a root (``paths`` None: the whole root). True when it ran;
        on failure the root is retried later with backoff."""
        root, state = self.roots[index], self.state.roots[index]
        if not root.is_dir():
            state.state, state.reason = "missing", "the folder is gone"
            self._fail(index, f"{root} is missing; retrying")
            return False
        self.state.mining = sorted(paths)[:20] if paths else [f"{state.wing}/ (whole folder)"]
        self._write_state()
        self._step_committed = False
        cancel = _Yielding(self._stop, lambda: self._step_committed and self.queue.has_due(self.debounce))
        try:
            report = self._run_step(palace, index, paths, verify, cancel)
        except PalaceBusy as exc:  # a short write held the lock too long: try again later
            self._fail(index, f"mining {root} waited for the write lock in vain: {exc.message}")
            return False
        except UsageError as exc:  # e.g. the wing belongs to another folder: retrying cannot help
            state.state, state.reason = "refused", exc.message
            self._error(index, f"{root}: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""))
            return False
        except Exception as exc:  # noqa: BLE001 — logged, retried, never fatal
            log.exception("mining %s failed", root)
            self._fail(index, f"mining {root} failed: {exc}")
            return False
        finally:
            self.state.mining = []
        self._backoff.pop(index, None)
        if cancel.yielded and not self._stop.is_set():  # a long note gave way: the rest goes back in the queue
            finished = {o.path for o in report.outcomes}
            self.queue.requeue(index, None if paths is None else {p for p in paths if p not in finished})
            log.info("a long note gave way to notes saved meanwhile; it resumes after them")
        if state.reason and state.observer == "native" or state.state == "missing":
            state.reason = ""
        changed = [o for o in report.outcomes if o.status != "unchanged"]
        for outcome in changed:
            log.info("%s %s%s", outcome.status, outcome.path, f" ({outcome.reason})" if outcome.reason else "")
            if outcome.status == "failed":
                self._error(index, f"{outcome.path}: {outcome.reason}")
        self.state.updates += 1
        self.state.last_update = now_iso()
        return True

    def _run_step(self, palace: Opened, index: int, paths: set[str] | None, verify: bool,
                  cancel: "_Yielding") -> "MineReport":
        """One mine step of root ``index`` through the flow (:class:`MineRun`:
        ``Palace.mine`` refuses beside a watcher), holding the palace's write lock for
        it. Raises :class:`PalaceBusy` when another process's write holds the lock for
        :data:`STEP_LOCK_WAIT_S`."""
        options = replace(self.options, verify=verify)
        callbacks = MineCallbacks(on_progress=self._progress, cancel=cancel)  # type: ignore[arg-type]
        with write_lock(self.palace_dir, "mine", wait=STEP_LOCK_WAIT_S):
            run = MineRun(palace.store, palace.config, palace.registry, options, callbacks)
            return run.mine(self.roots[index], wing=self.state.roots[index].wing, paths=paths)

    def _fail(self, index: int, message: str) -> None:
        delay = min(MAX_BACKOFF_S, self._backoff.get(index, 0.5) * 2)
        self._backoff[index] = delay
        self._retry_at[index] = time.monotonic() + delay
        self._error(index, f"{message} (next try in {delay:.0f} s)")

    def _error(self, index: int | None, message: str) -> None:
        log.error(message)
        with self._state_lock:
            self.state.errors = (self.state.errors + [
                {"at": now_iso(), "root": self.state.roots[index].path if index is not None else None,
                 "error": message}])[-20:]

    def _check_roots(self, palace) -> None:
        """A root that vanished is marked missing; one that came back — or was replaced
        by a new folder of the same name between two checks, which leaves the old watch
        dead — is watched again and caught up."""
        for index, root in enumerate(self.roots):
            state = self.state.roots[index]
            identity = _identity(root)
            if identity is None:
                if state.state != "missing":
                    state.state, state.reason = "missing", "the folder is gone"
                    self._error(index, f"{root} is missing; watching for it to come back")
            elif state.state == "missing" or identity != self._identities.get(index):
                log.info("%s is back", root)
                self._reschedule(index)
                state.state, state.reason = "catching up", ""
                self._retry_at[index] = time.monotonic()  # the next step catches it up

    def _write_state(self, final: bool = False) -> None:
        """Rewrite ``watch.json`` atomically (a reader never sees half of it)."""
        with self._state_lock:
            state = self.state
            if final:
                data = json.dumps(asdict(state), indent=2)
                self._replace_state(data)
                return
            if self.queue.last_event:
                ago = time.monotonic() - self.queue.last_event
                state.last_event = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=ago)).isoformat(
                    timespec="milliseconds")
            # an error counts until a later update succeeded, for at most 10 minutes
            since = max(state.last_update or "", (dt.datetime.now(dt.timezone.utc)
                                                  - dt.timedelta(minutes=10)).isoformat())
            recent = [e for e in state.errors if e["at"] > since]
            problems = [f"{r.path}: {r.state}" for r in state.roots if r.state == "missing"]
            problems += [f"{r.path}: polling ({r.reason})" for r in state.roots if r.observer == "polling"]
            problems += [f"{len(recent)} error{'s' if len(recent) > 1 else ''} not yet followed by a good update"] if recent else []
            problems += [f"{r.path}: refused ({r.reason})" for r in state.roots if r.state == "refused"]
            state.problems = problems
            if state.health != "stopped":
                state.health = "degraded" if problems else "healthy"
            state.heartbeat = now_iso()
            data = json.dumps(asdict(state), indent=2)
        self._replace_state(data)

    def _replace_state(self, data: str) -> None:
        path = self.palace_dir / STATE_FILE
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(data)
        os.replace(tmp, path)
