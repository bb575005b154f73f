"""``palace mine PATH``: mine a folder, with a progress bar and a summary."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded
from palace.errors import UsageError
from palace.results import to_json


@app.command()
@guarded
def mine(
    path: Path = typer.Argument(..., help="Folder of notes to mine (.md, .markdown, .txt)."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Wing name (default: the folder's name)."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Mine PATH into the palace: drawers, entities, dates, facts, vectors."""
    from rich.markup import escape

    from palace.core import Palace

    if not path.expanduser().is_dir():
        raise UsageError(f"not a folder: {path}", hint="give `palace mine` a folder of notes")
    err = console(stderr=True)
    with Palace.open(palace_dir) as palace:
        progress = _progress_bar(err, disable=as_json)
        state = {"task": None, "drawers": 0}

        def on_start(total: int) -> None:
            state["task"] = progress.add_task("mine", total=total, current="", rate="")

        def on_file(outcome) -> None:
            state["drawers"] += outcome.drawers
            state["files"] = state.get("files", 0) + 1
            progress.update(state["task"], advance=1, current=outcome.path,
                            rate=f"{state['drawers']} drawers")
            if not err.is_terminal and not as_json and state["files"] % 50 == 0:
                err.print(f"mining: {state['files']} paths done, {state['drawers']} drawers", highlight=False)

        def on_progress(note: str, read: int, total: int) -> None:
            progress.update(state["task"], current=f"{note} {read}/{total} drawers")
            if not err.is_terminal and not as_json and (read % 500 == 0 or read == total):
                err.print(f"mining: {note}: {read}/{total} drawers read", highlight=False)

        def on_phase(phase: str, done: int, total: int) -> None:
            # after the last path the bar stays full: say what the run still does
            current = "resolving names" if phase == "resolving" else f"vectors {done}/{total} drawers"
            progress.update(state["task"], current=current, refresh=True)
            if not err.is_terminal and not as_json and state.get("phase") != phase:  # a log: once a phase
                err.print(f"mining: {current}", highlight=False)
            state["phase"] = phase

        with progress:
            report = palace.mine(path, wing=wing, on_file=on_file, on_start=on_start, on_progress=on_progress,
                                 on_phase=on_phase)
    if as_json:
        typer.echo(to_json(report))
        return
    out = console(soft_wrap=not sys.stdout.isatty())
    out.print(
        f"[bold]{escape(report.wing)}[/] ← {escape(report.root)}\n"
        f"files: {report.indexed} indexed, {report.unchanged} unchanged, "
        f"{str(report.moved) + ' moved, ' if report.moved else ''}{report.skipped} skipped, "
        f"{report.failed} failed, {report.deleted} deleted\n"
        f"drawers: {report.drawers} ({report.new_drawers} new, {report.embedded} vectors computed)   "
        f"entities: {report.entities}   facts: {report.facts}\n"
        f"elapsed: {report.elapsed_s:.1f} s   words: {report.words:,}   words/s: {report.words_per_s:,.0f}",
        highlight=False,
    )
    failed = [o for o in report.outcomes if o.status == "failed"]
    for outcome in failed[:20]:
        out.print(f"[red]failed[/] {escape(outcome.path)}: {escape(outcome.reason)}", highlight=False)
    if report.indexed + report.unchanged == 0:
        out.print("[yellow]no notes found[/] (palace reads .md, .markdown and .txt files)")
    if report.skipped:
        out.print("[dim]`palace status` lists skipped files and why.[/]")


def _progress_bar(err, *, disable: bool):
    """The bar of ``palace mine`` on the console ``err``: label, bar, paths done, drawers,
    clock, then the path at hand (its task's ``current`` field) — shortened from its start
    to the room the terminal leaves, so a narrow terminal cuts the path, never the count
    or the clock."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.table import Column
    from rich.text import Text

    class CurrentColumn(ProgressColumn):
        def render(self, task) -> Text:
            total = len(str(int(task.total or 0)))
            used = len("mining") + BAR + 2 * total + 1 + len(task.fields["rate"]) + len("0:00:00") + 5 + 1
            return Text(_tail(task.fields["current"], err.width - used), style="dim", no_wrap=True)

    def fixed() -> Column:
        return Column(no_wrap=True)

    return Progress(
        TextColumn("[bold]mining[/]", table_column=fixed()), BarColumn(bar_width=BAR, table_column=fixed()),
        MofNCompleteColumn(table_column=fixed()), TextColumn("{task.fields[rate]}", table_column=fixed()),
        TimeElapsedColumn(table_column=fixed()), CurrentColumn(), console=err, transient=True, disable=disable,
    )


#: columns of the progress bar's bar
BAR = 20


def _tail(text: str, room: int) -> str:
    """``text`` cut from its start to ``room`` characters (at least 8), led by "…"."""
    room = max(8, room)
    return text if len(text) <= room else "…" + text[len(text) - room + 1:]
