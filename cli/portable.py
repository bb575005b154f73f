"""``palace export`` and ``palace import``: the graph in an open format, and the user's
decisions replayed into a rebuilt palace."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, guarded
from palace.results import to_json


@app.command()
@guarded
def export(
    graphml: bool = typer.Option(False, "--graphml", help="GraphML (networkx, Gephi, yEd) instead of JSON."),
    as_json: bool = typer.Option(False, "--json", help="JSON (the default; it holds the decisions for import)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write to FILE (default: stdout)."),
    palace_dir: Optional[Path] = PalaceOption,
) -> None:
    """Write the graph: entities and aliases, typed facts with both times, evidence and
    provenance, and the user's decisions (merges, splits, added, retracted, confirmed,
    accepted and rejected facts)."""
    from palace.core import Palace

    if graphml and as_json:
        raise typer.BadParameter("--graphml or --json, not both")
    with Palace.open(palace_dir, create=False) as palace:
        text, counts = palace.export(graphml=graphml)
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    out.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {out}: {counts['entities']} entities, {counts['facts']} facts, {counts['decisions']} decisions",
               err=True)


@app.command("import")
@guarded
def import_command(
    source: Path = typer.Argument(..., help="A JSON file written by `palace export`."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Replay the user's decisions of an export (merges, splits, added, retracted,
    confirmed, accepted and rejected facts) into this palace — one mined again from the
    same notes keeps every correction — and forget the notes the export's palace forgot."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        report = palace.import_decisions(source)
    if as_json:
        typer.echo(to_json(report))
        return
    typer.echo(f"imported {report.entity_decisions} entity decisions and {report.fact_decisions + report.facts_added}"
               f" fact decisions ({report.facts_added} facts added again, {report.facts_changed} facts changed now;"
               f" {report.already_present} already here)")
    if report.notes_forgotten:
        typer.echo(f"forgot {report.notes_forgotten} note{'' if report.notes_forgotten == 1 else 's'} the export's"
                   f" palace had forgotten; they will not be mined again (`palace forget --allow PATH` lets them)")
