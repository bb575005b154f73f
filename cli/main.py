"""The ``palace`` command: typer app, option parsing, one place that turns errors into
``Error: … / hint: …`` and exit codes (0 ok, 1 user error, 2 usage)."""

from __future__ import annotations

import sys
from typing import Callable

import typer

from palace.errors import PalaceError

app = typer.Typer(
    name="palace",
    help="Mine your notes into drawers and a temporal knowledge graph; ask them questions, offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

PalaceOption = typer.Option(None, "--palace", help="Palace folder (default: $PALACE_PATH, else ~/.palace).")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"palace {version('palace')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("palace (not installed)")
        raise typer.Exit()


@app.callback()
def main(
    show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                      help="Print palace's version and exit."),
) -> None:
    """Mine your notes into drawers and a temporal knowledge graph; ask them questions, offline."""


def fail(message: str, hint: str | None = None) -> None:
    """Print ``Error: message`` (and the hint) on stderr and exit 1."""
    from rich.console import Console

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    err.print(f"[bold red]Error:[/] {message}", markup=True)
    if hint:
        err.print(f"[dim]hint:[/] {hint}", markup=True)
    raise typer.Exit(1)


def guarded(func: Callable) -> Callable:
    """Decorator for commands: a :class:`PalaceError` becomes ``Error: … / hint`` and exit
    1; so does an error of the storage underneath (SQLite: read-only, full disk, damaged;
    Chroma), with a hint, never a traceback."""
    import functools
    import sqlite3

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except PalaceError as exc:
            fail(exc.message, exc.hint)
        except sqlite3.Error as exc:
            fail(f"the palace's database failed: {exc}",
                 "check that palace.db is writable and its disk has room; if it is damaged, move it aside"
                 " and mine again (the notes are the source)")
        except Exception as exc:
            if type(exc).__module__.split(".")[0] != "chromadb":
                raise
            fail(f"the palace's vector store failed: {exc}",
                 "run the command again; if it persists, move chroma/ aside: `palace mine` embeds the drawers again")

    return wrapper


from palace.cli import ask as _ask  # noqa: E402  (commands register themselves on `app`)
from palace.cli import entity as _entity  # noqa: E402
from palace.cli import extract as _extract  # noqa: E402
from palace.cli import facts as _facts  # noqa: E402
from palace.cli import mine as _mine  # noqa: E402
from palace.cli import status as _status  # noqa: E402
from palace.cli import watch as _watch  # noqa: E402

del _ask, _entity, _extract, _facts, _mine, _status, _watch


def run() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    run()
