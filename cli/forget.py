"""``palace forget``: remove a note, a wing or an entity from the palace, everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, guarded
from palace.results import to_json


@app.command()
@guarded
def forget(
    path: Optional[str] = typer.Argument(None, help="A note, or a folder of notes, under a mined root."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Forget a whole wing."),
    entity: Optional[str] = typer.Option(None, "--entity", help="Forget an entity (its notes stay)."),
    allow: bool = typer.Option(False, "--allow", help="Let the forgotten notes at PATH (or of --wing) be mined again."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would go; change nothing."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Remove what came from a note, a folder, a wing or about an entity: drawers,
    vectors, full-text rows, mentions, facts and their sentences in history, and the
    entities and aliases nothing else supports; then compact the store. The audit keeps
    no forgotten content, and a forgotten note is not mined again (unless --allow)."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        if allow:
            count = palace.allow(path, wing=wing)
            typer.echo(f"{count} forgotten note{'' if count == 1 else 's'} at {path or 'wing ' + str(wing)}"
                       f" may be mined again")
            return
        report = palace.forget(path, wing=wing, entity=entity, dry_run=dry_run)
    if as_json:
        typer.echo(to_json(report))
        return
    verb = "would forget" if report.dry_run else "forgot"
    typer.echo(f"{verb} {report.kind} {report.target}: {report.files} files, {report.drawers} drawers,"
               f" {report.facts} facts, {report.mentions} mentions, {report.entities} entities,"
               f" {report.decisions} decisions" + (f" (audit #{report.audit_id})" if report.audit_id else ""))
    if report.kind != "entity" and not report.dry_run:
        typer.echo("these notes will not be mined again; `palace forget --allow PATH` lets them")

