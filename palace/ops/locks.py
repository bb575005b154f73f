"""One writer at a time: the locks a palace's writers hold.

A watcher holds ``watch.lock`` for its whole life (:class:`palace.mine.watch.Watcher`);
every write holds ``mine.lock`` while it writes: a ``palace mine``, a repair, a forget or
an import for their whole run (:func:`sole_writer`: refused at once, with
:class:`PalaceBusy`, beside another writer or a watcher, rather than racing over the same
notes), a short write such as a fact the user or an agent adds for its transaction
(:func:`write_lock`: it waits a few seconds for the write at hand, a watcher's mining step
included). Both are exclusive ``flock`` s the kernel drops when the process dies, so a
killed writer never blocks the next; a writer never takes it twice (the handle's write
methods take it, the flows they call never do). Readers (``ask``, ``status``) take no lock.
A warm server (``palace serve``) holds ``serve.lock`` for its life: one server a palace.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from pathlib import Path

from palace.errors import PalaceBusy, UsageError

MINE_LOCK = "mine.lock"
#: the watcher's lock (held for its life) and pid file (see :mod:`palace.mine.watch`)
WATCH_LOCK = "watch.lock"
WATCH_PID = "watch.pid"
#: the warm server's lock, held for its life (:meth:`palace.core.Palace.claim_server`)
SERVE_LOCK = "serve.lock"


#: how long a short write (a fact added, retracted, reviewed…) waits for the write lock, in seconds
WRITE_WAIT_S = 10.0
#: how often a waiting writer tries the lock again, in seconds
_RETRY_S = 0.05


class MineLock:
    """An exclusive ``flock`` on ``mine.lock`` (with the holder's pid written in it), for
    a ``with`` block, waiting up to ``wait`` seconds for it: raises :class:`PalaceBusy`
    naming the holder when it is still taken then."""

    def __init__(self, palace_dir: Path, *, wait: float = 0.0, doing: str = "mine") -> None:
        self.path = palace_dir / MINE_LOCK
        self.wait = wait
        self.doing = doing
        self._fd: int | None = None

    def __enter__(self) -> "MineLock":
        fd = open_lock_file(self.path)
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                if time.monotonic() >= deadline:
                    holder = os.read(fd, 32).decode("ascii", "replace").strip()
                    os.close(fd)
                    raise PalaceBusy(
                        f"the palace at {self.path.parent} is busy: another process is writing it"
                        + (f" (pid {holder})" if holder.isdigit() else "") + f"; it cannot {self.doing} now",
                        hint="wait for it to finish, then run this again",
                    ) from None
                time.sleep(_RETRY_S)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def write_lock(palace_dir: Path, doing: str, *, wait: float = WRITE_WAIT_S) -> MineLock:
    """The write lock for one short write (``doing`` names it: "add a fact"), waiting up
    to ``wait`` seconds for the writer at hand — a watcher's mining step included — and
    raising :class:`PalaceBusy` after that (a whole ``palace mine`` or repair holds it
    for its run)."""
    return MineLock(palace_dir, wait=wait, doing=doing)


def mine_running(palace_dir: Path) -> bool:
    """True while some process holds the palace's ``mine.lock``."""
    return held(palace_dir / MINE_LOCK)


def watcher_running(palace_dir: Path) -> bool:
    """True while some process holds the palace's ``watch.lock`` (a watcher runs)."""
    return held(palace_dir / WATCH_LOCK)


def held(lock_file: Path) -> bool:
    """True while some process holds an exclusive ``flock`` on ``lock_file`` (False when
    the file does not exist)."""
    try:
        fd = os.open(lock_file, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def watcher_pid(palace_dir: Path) -> int | None:
    """The pid in the watcher's ``watch.pid``, or None."""
    try:
        return int((palace_dir / WATCH_PID).read_text().strip())
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def sole_writer(palace_dir: Path, doing: str = "mine"):
    """Hold the right to write the palace for a ``with`` block: refused at once with
    :class:`PalaceBusy` when a watcher keeps it current (two writers would race over the
    same notes) or another writer holds :class:`MineLock`. ``doing`` names the work in the
    message ("mine", "repair")."""
    if watcher_running(palace_dir):
        pid = watcher_pid(palace_dir)
        raise PalaceBusy(f"a watcher{f' (pid {pid})' if pid else ''} keeps this palace current: it cannot {doing}"
                         " beside it",
                         hint="let it mine (`palace watch` the folder), or `palace daemon stop` first")
    with MineLock(palace_dir, doing=doing):
        yield


def try_lock(path: Path) -> int | None:
    """Take an exclusive ``flock`` on ``path`` without waiting: its descriptor, or None
    when another process holds it. Release with :func:`unlock`. Raises
    :class:`UsageError` when the lock file cannot be made (:func:`open_lock_file`)."""
    fd = open_lock_file(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return None
        raise
    return fd


def unlock(fd: int) -> None:
    """Drop a lock taken with :func:`try_lock`."""
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def open_lock_file(path: Path) -> int:
    """Open (creating it and its folder) a lock file owner-only; return its descriptor.
    Raises :class:`UsageError` with a hint when the palace folder cannot be written (a
    read-only disk, another user's folder): nothing can be mined there."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise UsageError(f"cannot write the palace at {path.parent}: {exc.strerror or exc}",
                         hint="give write access to that folder, or pass --palace DIR on a writable disk") from None
