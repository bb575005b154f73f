"""``palace watch`` and ``palace daemon status|stop``: keep a palace current as notes change."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from palace.cli.app import PalaceOption, app, fail, guarded

daemon_app = typer.Typer(help="The background watcher of a palace: status, stop.", no_args_is_help=True)
app.add_typer(daemon_app, name="daemon")


@app.command()
@guarded
def watch(
    paths: List[Path] = typer.Argument(..., help="Folders of notes to keep mined (each its own wing)."),
    palace_dir: Optional[Path] = PalaceOption,
    daemon: bool = typer.Option(False, "--daemon", help="Run in the background (log and pid in the palace)."),
    debounce: float = typer.Option(0.5, "--debounce", min=0.05, max=30, help="Seconds a file must be quiet."),
    polling: bool = typer.Option(False, "--polling", help="Poll instead of native events (network drives)."),
) -> None:
    """Watch folders and mine every change, in the foreground (Ctrl-C stops) or as a daemon."""
    from palace.config import resolve_palace_path
    from palace.watch import AlreadyWatching, Watcher, is_locked

    palace_path = resolve_palace_path(palace_dir)
    if daemon:
        if is_locked(palace_path):  # say so now, with the pid, rather than in the log
            raise AlreadyWatching.of(palace_path)
        return _start_daemon(palace_path, paths, debounce, polling)
    watcher = Watcher(palace_path, paths, debounce=debounce, polling=polling)
    _run_foreground(watcher, quiet=not sys.stdout.isatty())


def _run_foreground(watcher, *, quiet: bool) -> None:
    """Run ``watcher`` until SIGINT or SIGTERM, with a live status line on a terminal."""
    import logging

    from rich.console import Console
    from rich.logging import RichHandler

    console = Console(stderr=True)
    handler = RichHandler(console=console, show_path=False) if not quiet else logging.StreamHandler()
    if quiet:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logging.getLogger("palace.watch").addHandler(handler)
    logging.getLogger("palace.watch").setLevel(logging.INFO)
    import threading

    stopping: list[int] = []
    wake = threading.Event()

    def ask_to_stop(signum, frame):  # noqa: ARG001
        stopping.append(signum)
        wake.set()

    signal.signal(signal.SIGTERM, ask_to_stop)
    signal.signal(signal.SIGINT, ask_to_stop)
    watcher.start()
    try:
        if quiet:  # no terminal: wake only to see whether the watcher still lives
            while not stopping and watcher.alive:
                wake.wait(2.0)
        else:
            from rich.live import Live

            with Live(_line(watcher), console=console, refresh_per_second=4, transient=True) as live:
                while not stopping and watcher.alive:
                    live.update(_line(watcher))
                    time.sleep(0.25)
    finally:
        watcher.stop()
    if not watcher.alive and not stopping:
        raise typer.Exit(1)


def _line(watcher) -> str:
    state = watcher.state
    roots = ", ".join(f"{r.wing} ({r.state}{', polling' if r.observer == 'polling' else ''})" for r in state.roots)
    doing = f"mining {', '.join(state.mining)}" if state.mining else ("ready" if state.ready else "catching up")
    last = f"last update {state.last_update[11:19]} UTC" if state.last_update else "no update yet"
    return f"watching {roots} · {doing} · queued {len(watcher.queue)} · {last} · Ctrl-C stops"


def _start_daemon(palace_path: Path, paths: list[Path], debounce: float, polling: bool) -> None:
    from palace.watch import LOG_FILE, read_pid, read_state

    for path in paths:
        if not path.expanduser().is_dir():

            fail(f"not a folder: {path}", "give `palace watch` folders of notes")
    palace_path.mkdir(parents=True, exist_ok=True)
    log_path = palace_path / LOG_FILE
    args = [sys.executable, "-m", "palace", "watch",
            *[str(p.expanduser().resolve()) for p in paths], "--palace", str(palace_path),
            "--debounce", str(debounce)] + (["--polling"] if polling else [])
    with open(log_path, "ab") as log:
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:  # until it has caught up, or died
        if child.poll() is not None:

            fail(f"the watcher exited at start (code {child.returncode})", f"see {log_path}")
        state = read_state(palace_path)
        if state and state.get("pid") == child.pid and state.get("ready"):
            break
        time.sleep(0.2)
    typer.echo(f"watching {', '.join(str(p) for p in paths)} in the background (pid {read_pid(palace_path) or child.pid})")
    typer.echo(f"log: {log_path}   status: palace daemon status   stop: palace daemon stop")


@daemon_app.command("status")
@guarded
def daemon_status(
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Show whether a watcher runs for this palace, what it watches, its queue, last event and errors."""
    from palace.config import resolve_palace_path
    from palace.watch import is_locked, read_pid, read_state

    palace_path = resolve_palace_path(palace_dir)
    running = is_locked(palace_path)
    state = read_state(palace_path)
    report = {"palace": str(palace_path), "running": running, "pid": read_pid(palace_path) if running else None,
              "state": state}
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        if not running:
            raise typer.Exit(3)
        return
    if not running:
        typer.echo(f"no watcher runs for {palace_path}")
        if state:
            ended = state.get("stopped_at") or state.get("heartbeat") or "?"
            how = "stopped" if state.get("stopped_at") else "died (no clean stop)"
            last = state["errors"][-1]["error"] if state.get("errors") else ""
            typer.echo(f"  the last one (pid {state['pid']}) {how} at {ended}" + (f": {last}" if last else ""))
        raise typer.Exit(3)
    if not state or state.get("pid") != report["pid"]:
        typer.echo(f"a watcher runs (pid {report['pid']}) but has written no status yet")
        return
    typer.echo(f"watcher pid {state['pid']}: {state['health']}{'' if state['ready'] else ' (catching up)'}")
    for root in state["roots"]:
        extra = f" — {root['reason']}" if root["reason"] else ""
        typer.echo(f"  {root['path']} → wing {root['wing']}: {root['state']}, {root['observer']} events{extra}")
    typer.echo(f"  queue {state['queue']}  mining {', '.join(state['mining']) or '-'}  updates {state['updates']}")
    typer.echo(f"  last event {state['last_event'] or '-'}  last update {state['last_update'] or '-'}")
    for problem in state["problems"]:
        typer.echo(f"  problem: {problem}")
    for error in state["errors"][-5:]:
        typer.echo(f"  error {error['at']}: {error['error']}")


@daemon_app.command("stop")
@guarded
def daemon_stop(palace_dir: Optional[Path] = PalaceOption) -> None:
    """Stop the background watcher of this palace (it finishes the note it is mining)."""
    from palace.config import resolve_palace_path
    from palace.watch import is_locked, read_pid

    palace_path = resolve_palace_path(palace_dir)
    pid = read_pid(palace_path)
    if not is_locked(palace_path) or pid is None:
        typer.echo(f"no watcher runs for {palace_path}")
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and is_locked(palace_path):
        time.sleep(0.1)
    if is_locked(palace_path):

        fail(f"the watcher (pid {pid}) did not stop within 120 s", f"kill {pid}")
    typer.echo(f"stopped the watcher (pid {pid})")
