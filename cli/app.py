"""What every command module shares: the typer ``app``, the ``--palace`` option, the one
place that turns errors into ``Error: … / hint: …`` and exit codes (0 ok, 1 user error, 2
usage), and the parsing and citing helpers. The command modules import this module and
register themselves on ``app``; :mod:`palace.cli.main` imports them all."""

from __future__ import annotations

import datetime as dt
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import typer


if TYPE_CHECKING:
    from rich.console import Console

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
    chroma_url: str = typer.Option(None, "--chroma-url", envvar="PALACE_CHROMA_URL",
                                   help="Keep the vectors on this Chroma server (http://host:port) instead of"
                                        " the embedded store; config.json's \"vectors\" can say it too."),
) -> None:
    """Mine your notes into drawers and a temporal knowledge graph; ask them questions, offline."""
    if chroma_url:
        import os

        os.environ["PALACE_CHROMA_URL"] = chroma_url  # read by palace.store.vectors.open_vector_store


@dataclass(frozen=True)
class Terminal:
    """The caller's terminal, when a command runs for a client of the warm server
    (:mod:`palace.cli.serve`): whether its stdout and stderr are terminals, its width in
    columns, and the environment that shapes colour (``TERM``, ``NO_COLOR``…)."""

    stdout_tty: bool
    stderr_tty: bool
    width: int | None
    env: dict[str, str]


#: Set by the warm server for the command it runs; None when the command runs here.
TERMINAL: ContextVar[Terminal | None] = ContextVar("palace_terminal", default=None)


def console(*, stderr: bool = False, **options: Any) -> "Console":
    """A rich ``Console`` on stdout (or stderr) with ``options``. Under the warm server it
    renders for the caller's terminal (:data:`TERMINAL`), so a served command prints what
    it would print here."""
    Console = _console_class()
    terminal = TERMINAL.get()
    if terminal is None:
        return Console(stderr=stderr, **options)
    return Console(stderr=stderr, force_terminal=terminal.stderr_tty if stderr else terminal.stdout_tty,
                   width=terminal.width, _environ=terminal.env, **options)


_CONSOLE: list = []


def _console_class():
    """rich's ``Console``, but a closed pipe ends the command with exit 0 (rich's own
    ``on_broken_pipe`` exits 1): see :func:`closed_pipe`."""
    if not _CONSOLE:
        from rich.console import Console

        class PipedConsole(Console):
            def on_broken_pipe(self) -> None:
                self.quiet = True
                closed_pipe()
                raise typer.Exit(0)

        _CONSOLE.append(PipedConsole)
    return _CONSOLE[0]


def fail(message: str, hint: str | None = None) -> None:
    """Print ``Error: message`` (and the hint) on stderr and exit 1."""
    err = console(stderr=True, highlight=False, soft_wrap=True)
    err.print(f"[bold red]Error:[/] {message}", markup=True)
    if hint:
        err.print(f"[dim]hint:[/] {hint}", markup=True)
    raise typer.Exit(1)


def closed_pipe() -> None:
    """What to do when the reader of stdout went away (``palace ask … | head -1``): send
    what is left to print nowhere — stdout pointed at ``/dev/null``, so the interpreter's
    last flush cannot fail either (the recipe of Python's ``signal`` docs). The command
    then ends with exit 0, as ``head`` had all it asked for."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (a served command's stream): nothing to redirect
        pass


def guarded(func: Callable) -> Callable:
    """Decorator for commands: any failure a user can meet (:func:`palace.errors.translate`:
    a :class:`PalaceError`, an error of SQLite or of the vector store underneath) becomes
    ``Error: … / hint`` and exit 1, never a traceback; anything else is a bug and raises.
    A reader of stdout that went away (a closed pipe) ends the command with exit 0
    (:func:`closed_pipe`)."""
    import functools

    from palace.errors import translate

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            closed_pipe()
            raise typer.Exit(0) from None
        except Exception as exc:
            error = translate(exc)
            if error is None:
                raise
            fail(error.message, error.hint)

    return wrapper


def parse_day(value: str | None, option: str, *, end: bool = False, now: dt.date | None = None) -> dt.date | None:
    """The day an option names (ISO ``YYYY-MM-DD``, ``2024``, ``Q3 2024``, ``last month``…;
    its last day with ``end=True``): :meth:`palace.core.Palace.parse_day`. Raises
    :class:`UsageError` naming ``option`` when nothing in ``value`` is a date."""
    from palace.core import Palace

    return Palace.parse_day(value, option, end=end, now=now)


def cite(fact) -> str:
    """``path:line`` of a fact (``path`` alone once its drawer is gone)."""
    return f"{fact.path}:{fact.line}" if fact.line else fact.path


def render_fact(out, fact, prefix: str = "") -> None:
    """One fact on one line: subject, predicate, value, valid time, state, citation."""
    from rich.markup import escape

    valid = f"{fact.valid_from or '?'} → {fact.valid_to or 'now'}"
    state = "" if fact.state == "current" else f" [{fact.state}]"
    evidence = getattr(fact, "evidence", "stated")
    state += "" if evidence == "stated" else f" ({evidence})"  # inferred, user, confirmed, agent
    out.print(f"  {prefix}{escape(fact.subject)} [bold]{escape(fact.predicate)}[/] {escape(fact.object)}"
              f"  [dim]{valid}{escape(state)}  {escape(cite(fact))}[/]")


def render_changes(out, changes) -> None:
    """A :class:`palace.graph.changes.ChangeSet`, grouped by entity, one line per change."""
    from rich.markup import escape

    out.print(f"\n[bold]changes[/] [dim]({escape(changes.description)})[/]")
    if not changes.groups:
        out.print("  no fact began, ended or was superseded")
    for group in changes.groups:
        out.print(f" [bold]{escape(group.entity)}[/]")
        for change in group.changes:
            replaced = f" → {change.replaced_by}" if change.replaced_by else ""
            out.print(f"  {change.day[:10]} {change.kind}{escape(replaced)}:", end="")
            render_fact(out, change.fact, prefix="")
    if changes.truncated:
        out.print(f"  [dim]… more than {changes.total} changes; narrow the question[/]")
