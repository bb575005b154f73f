"""``palace status``: location, model, counts, and every file's state."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded
from palace.results import to_json


@app.command()
@guarded
def status(
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
    all_files: bool = typer.Option(False, "--all", help="List indexed files too, not only skipped and failed ones."),
) -> None:
    """Show the palace: where it is, its model, counts, and files skipped or failed (and why)."""
    from rich.markup import escape
    from rich.table import Table

    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        report = palace.status()
    if as_json:
        typer.echo(to_json(report))
        return
    out = console()
    out.print(
        f"palace: {report.palace}\n"
        f"model: {report.embedding_model or '—'} ({report.embedding_dimension or '—'} dims)\n"
        f"wings: {', '.join(report.wings) or '—'}\n"
        f"files: {report.files.get('indexed', 0)} indexed, {report.files.get('skipped', 0)} skipped, "
        f"{report.files.get('failed', 0)} failed\n"
        f"drawers: {report.drawers} ({report.drawers_awaiting_vectors} awaiting vectors)   "
        f"entities: {report.entities}   mentions: {report.mentions}   dates: {report.date_mentions}   "
        f"facts: {report.facts} current, {report.facts_invalidated} invalidated",
        highlight=False,
    )
    for warning in report.warnings:
        out.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    if report.unused_predicates:
        out.print(f"[yellow]predicates of config.json that no note has yielded:[/] "
                  f"{escape(', '.join(report.unused_predicates))}  "
                  f"[dim](try one of your sentences with `palace extract`)[/]", highlight=False)
    rows = [s for s in report.file_states if all_files or s.status != "indexed"]
    if rows:
        table = Table("wing", "path", "state", "reason", box=None, pad_edge=False)
        for s in rows:
            colour = {"indexed": "green", "skipped": "yellow", "failed": "red"}.get(s.status, "")
            table.add_row(escape(s.wing), escape(s.path), f"[{colour}]{s.status}[/]",
                          escape(s.reason) or f"{s.drawers} drawer{'s' if s.drawers != 1 else ''}")
        out.print(table)
