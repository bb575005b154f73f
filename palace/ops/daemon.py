"""The background watcher of a palace: start it, read its status, stop it.

The watcher itself is :class:`palace.mine.watch.Watcher`, run by ``python -m palace watch``
in a process of its own session (it outlives the shell), its output appended to
``watch.log`` in the palace. It writes ``watch.json`` (its state) and holds
``watch.lock`` for its life; :func:`daemon_status` reads both. Nothing here needs the
palace's database, so a status can be read before the first mine.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from palace.errors import AlreadyWatching, PalaceError, UsageError
from palace.ops.locks import watcher_pid, watcher_running

__all__ = ["DaemonStatus", "daemon_status", "start_daemon", "stop_daemon", "already_watching", "read_state"]

#: the watcher's state and log, inside the palace (its lock and pid file: :mod:`palace.ops.locks`)
STATE_FILE = "watch.json"
LOG_FILE = "watch.log"
#: a running watcher whose heartbeat is older than this many seconds is degraded
STALE_HEARTBEAT_S = 60.0


def already_watching(palace_dir: Path) -> AlreadyWatching:
    """The error for a second watcher of ``palace_dir``, naming the holder's pid when known."""
    pid = watcher_pid(palace_dir)
    return AlreadyWatching(f"a watcher is already running for {palace_dir}" + (f" (pid {pid})" if pid else ""),
                           hint="`palace daemon status` shows it; `palace daemon stop` stops it")


def read_state(palace_dir: Path) -> dict | None:
    """The last ``watch.json`` a watcher wrote, or None. A heartbeat older than
    :data:`STALE_HEARTBEAT_S` makes its ``health`` ``degraded``, with the problem named
    (the watcher is stuck, or the process is gone without a clean stop):
    ``heartbeat_age_s`` gives the age in seconds."""
    try:
        state = json.loads((palace_dir / STATE_FILE).read_text())
    except (OSError, ValueError):
        return None
    try:
        beat = dt.datetime.fromisoformat(state.get("heartbeat") or "")
    except (TypeError, ValueError):
        return state
    age = (dt.datetime.now(dt.timezone.utc) - beat).total_seconds()
    state["heartbeat_age_s"] = round(age, 1)
    if age > STALE_HEARTBEAT_S and not state.get("stopped_at"):
        state["health"] = "degraded"
        busy = ", ".join(state.get("mining") or []) or "nothing"
        state["problems"] = [*state.get("problems", []),
                             f"no heartbeat for {age:.0f} s (mining: {busy})"]
    return state


#: seconds a starting watcher has to catch up before start_daemon returns anyway
START_PATIENCE_S = 600
#: seconds a stopping watcher has to finish the note at hand
STOP_PATIENCE_S = 120


@dataclass(frozen=True)
class DaemonStatus:
    """Whether a watcher runs for ``palace`` (a folder path), its ``pid`` while it
    runs, ``health``, and ``state``: the last ``watch.json`` a watcher wrote (roots,
    queue, mining, last event and update, errors, ``health`` with its ``problems``,
    heartbeat; see :class:`palace.mine.watch.WatchState`), or None.

    ``health`` is ``healthy`` or ``degraded`` (a stale heartbeat, a root gone…) while a
    watcher runs; ``stopped`` when the last one stopped cleanly; ``dead`` when it died
    without cleaning up (killed, crashed: its lock is gone, or its process is, and its
    state names no stop), with ``died_at`` its last heartbeat and a problem saying so;
    None when no watcher ever ran."""

    palace: str
    running: bool
    pid: int | None
    state: dict | None
    health: str | None = None
    died_at: str | None = None

    @property
    def log(self) -> Path:
        """The watcher's log file, in the palace."""
        return Path(self.palace) / LOG_FILE


def daemon_status(palace_dir: Path) -> DaemonStatus:
    """The status of ``palace_dir``'s watcher: a stale heartbeat makes it degraded, a
    watcher that is gone without a clean stop is dead — never healthy."""
    running = watcher_running(palace_dir)
    pid = watcher_pid(palace_dir) if running else None
    state = read_state(palace_dir)
    if running and pid is not None and not _alive(pid):  # the lock outlived its watcher (held by an orphan)
        running, pid = False, None
    if not running and state is not None:
        if state.get("stopped_at"):
            state["health"] = "stopped"
        else:
            state["health"] = "dead"
            died = state.get("heartbeat") or state.get("started_at") or "?"
            state["died_at"] = died
            state["problems"] = [*state.get("problems", []),
                                 f"the watcher (pid {state.get('pid', '?')}) died without a clean stop;"
                                 f" its last heartbeat was at {died}"]
    health = state.get("health") if state is not None else None
    return DaemonStatus(str(palace_dir), running, pid, state, health,
                        state.get("died_at") if state is not None and health == "dead" else None)


def start_daemon(palace_dir: Path, paths: Sequence[Path], *, debounce: float = 0.5,
                 polling: bool = False) -> DaemonStatus:
    """Start a watcher of ``paths`` in the background and wait until it has caught up
    (at most :data:`START_PATIENCE_S` seconds). Raises :class:`UsageError` for a path
    that is not a folder or when a watcher already runs (naming its pid), and
    :class:`PalaceError` (pointing at ``watch.log``) when the watcher exits at start."""
    for path in paths:
        if not Path(path).expanduser().is_dir():
            raise UsageError(f"not a folder: {path}", hint="give `palace watch` folders of notes")
    if watcher_running(palace_dir):  # say so now, with the pid, rather than in the log
        raise already_watching(palace_dir)
    palace_dir.mkdir(parents=True, exist_ok=True)
    log_path = palace_dir / LOG_FILE
    args = [sys.executable, "-m", "palace", "watch",
            *[str(Path(p).expanduser().resolve()) for p in paths], "--palace", str(palace_dir),
            "--debounce", str(debounce)] + (["--polling"] if polling else [])
    with open(log_path, "ab") as log:
        # run from the palace folder, with the safe path (Python ≥ 3.11): a `palace/` folder
        # where the user stands must not be imported in place of the installed package
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                 cwd=palace_dir, env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONSAFEPATH": "1"})
    deadline = time.monotonic() + START_PATIENCE_S
    while time.monotonic() < deadline:  # until it has caught up, or died
        if child.poll() is not None:
            raise PalaceError(f"the watcher exited at start (code {child.returncode})", hint=f"see {log_path}")
        state = read_state(palace_dir)
        if state and state.get("pid") == child.pid and state.get("ready"):
            break
        time.sleep(0.2)
    return daemon_status(palace_dir)


def stop_daemon(palace_dir: Path) -> int | None:
    """Ask ``palace_dir``'s watcher to stop (SIGTERM: it finishes the note it is mining)
    and wait for it, at most :data:`STOP_PATIENCE_S` seconds. Returns its pid, or None
    when none runs. Raises :class:`PalaceError` when it did not stop in time."""
    pid = watcher_pid(palace_dir)
    if not watcher_running(palace_dir) or pid is None:
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_PATIENCE_S
    while time.monotonic() < deadline and watcher_running(palace_dir):
        time.sleep(0.1)
    while time.monotonic() < deadline and _alive(pid):  # it let go of the lock; now let it exit
        time.sleep(0.05)
    if watcher_running(palace_dir) or _alive(pid):
        raise PalaceError(f"the watcher (pid {pid}) did not stop within {STOP_PATIENCE_S} s", hint=f"kill {pid}")
    return pid


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie child counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True
