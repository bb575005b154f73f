"""``palace watch`` and ``palace daemon status|stop``: keep a palace current as notes change."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded

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
    from palace.core import Palace

    palace_path = resolve_palace_path(palace_dir)
    if daemon:
        started = Palace.start_watcher(palace_path, paths, debounce=debounce, polling=polling)
        typer.echo(f"watching {', '.join(str(p) for p in paths)} in the background (pid {started.pid})")
        typer.echo(f"log: {started.log}   status: palace daemon status   stop: palace daemon stop")
        return
    watcher = Palace.watcher(palace_path, paths, debounce=debounce, polling=polling)
    import threading

    with Palace.open(palace_path) as palace:
        held = [_serve(palace)]
        done = threading.Event()

        def take_over() -> None:  # another server that served this palace may die: serve in its place
            while not done.wait(SERVE_RETRY_S):
                if held[0] is None:
                    held[0] = _serve(palace, quiet=True)

        threading.Thread(target=take_over, name="palace-serve-retry", daemon=True).start()
        try:
            _run_foreground(watcher, quiet=not sys.stdout.isatty())
        finally:
            done.set()
            if held[0] is not None:
                held[0].stop()


#: Seconds between two attempts of a watcher to serve, while another process does.
SERVE_RETRY_S = 10.0


def _serve(palace, *, quiet: bool = False):
    """Serve ``palace`` to cold read commands while watching (:mod:`palace.cli.serve`),
    its handle lent to the watcher too, so one model and one vector index serve both.
    None when it cannot (another server, a too-long path), with a line in the log unless
    ``quiet``."""
    import logging

    from palace.cli.serve import Server
    from palace.errors import UsageError

    server = Server(palace)
    try:
        server.start(warm=not quiet)
    except UsageError as exc:
        if not quiet:
            logging.getLogger("palace.watch").warning("not serving cold commands: %s (the watcher serves once"
                                                      " it stops)", exc.message)
        return None
    logging.getLogger("palace.watch").info("serving cold commands on %s", server.socket)
    return server


def _run_foreground(watcher, *, quiet: bool) -> None:
    """Run ``watcher`` until SIGINT or SIGTERM, with a live status line on a terminal."""
    import logging

    from rich.logging import RichHandler

    err = console(stderr=True)
    handler = RichHandler(console=err, show_path=False) if not quiet else logging.StreamHandler()
    if quiet:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    for name in ("palace.watch", "palace.serve"):  # the server's refusals too
        logging.getLogger(name).addHandler(handler)
        logging.getLogger(name).setLevel(logging.INFO)
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

            with Live(_line(watcher), console=err, refresh_per_second=4, transient=True) as live:
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


@daemon_app.command("status")
@guarded
def daemon_status(
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Show whether a watcher runs for this palace, what it watches, its queue, last event and errors."""
    from palace.config import resolve_palace_path
    from palace.core import Palace
    from palace.results import to_json

    palace_path = resolve_palace_path(palace_dir)
    report = Palace.watcher_status(palace_path)
    running, state = report.running, report.state
    if as_json:
        typer.echo(to_json(report))
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
    if not state or state.get("pid") != report.pid:
        typer.echo(f"a watcher runs (pid {report.pid}) but has written no status yet")
        return
    typer.echo(f"watcher pid {state['pid']}: {state['health']}{'' if state['ready'] else ' (catching up)'}")
    for root in state["roots"]:
        extra = f" — {root['reason']}" if root["reason"] else ""
        typer.echo(f"  {root['path']} → wing {root['wing']}: {root['state']}, {root['observer']} events{extra}")
    typer.echo(f"  queue {state['queue']}  mining {', '.join(state['mining']) or '-'}  updates {state['updates']}")
    typer.echo(f"  last event {state['last_event'] or '-'}  last update {state['last_update'] or '-'}")
    from palace.cli.client import server_info, socket_path

    served = server_info(palace_path)
    typer.echo(f"  serving cold commands on {socket_path(palace_path)} (pid {served['pid']},"
               f" {served['requests']} answered)" if served else "  not serving cold commands (see the log)")
    for problem in state["problems"]:
        typer.echo(f"  problem: {problem}")
    for error in state["errors"][-5:]:
        typer.echo(f"  error {error['at']}: {error['error']}")


@daemon_app.command("stop")
@guarded
def daemon_stop(palace_dir: Optional[Path] = PalaceOption) -> None:
    """Stop the background watcher of this palace (it finishes the note it is mining)."""
    from palace.config import resolve_palace_path
    from palace.core import Palace

    palace_path = resolve_palace_path(palace_dir)
    pid = Palace.stop_watcher(palace_path)
    typer.echo(f"stopped the watcher (pid {pid})" if pid else f"no watcher runs for {palace_path}")
