"""``palace doctor``: check the palace and rebuild what is derived."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded
from palace.results import to_json


@app.command()
@guarded
def doctor(
    palace_dir: Optional[Path] = PalaceOption,
    repair: bool = typer.Option(False, "--repair", help="Rebuild what failed (FTS, vectors, resolution, orphans)."),
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Check the palace: SQLite integrity, schema, full-text index, vectors, pending
    resolution, orphan rows. Exit 1 while a check fails."""
    from rich.markup import escape

    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:  # a mistyped path is refused before any lock is made
        report = palace.doctor(repair=repair)
    if as_json:
        typer.echo(to_json(report))
    else:
        out = console(highlight=False, soft_wrap=True)
        for check in report.before:
            out.print(f"[red]was[/] {check.name:<11} {escape(check.detail)}")
        for line in report.repaired:
            out.print(f"[cyan]repaired[/] {escape(line)}")
        for check in report.checks:
            mark = "[green]ok[/]  " if check.ok else "[red]FAIL[/]"
            out.print(f"{mark} {check.name:<11} {escape(check.detail)}")
            if check.hint and not check.ok:
                out.print(f"     [dim]hint:[/] {escape(check.hint)}")
    if not report.ok:
        raise typer.Exit(1)
