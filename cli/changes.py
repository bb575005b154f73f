"""``palace changes``: what changed in the graph, in valid time or since the last mining."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded, parse_day, render_changes
from palace.results import to_json


@app.command()
@guarded
def changes(
    since: Optional[str] = typer.Option(None, "--since", help="From this day (valid time), e.g. 2024-07-01 or 'Q3 2024'."),
    until: Optional[str] = typer.Option(None, "--until", help="Through this day (valid time)."),
    about: Optional[str] = typer.Option(None, "--about", help="Only facts about this name (subject or object)."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Only this wing."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Facts that began, ended or were superseded between --since and --until (valid
    time); without either, what the latest mining changed (recorded time)."""
    import datetime as dt


    from palace.core import Palace

    start = parse_day(since, "--since")
    last = parse_day(until, "--until", end=True)
    with Palace.open(palace_dir, create=False) as palace:
        found = palace.changes(start, last + dt.timedelta(days=1) if last else None, about=about, wing=wing)
    if as_json:
        typer.echo(to_json(found))
        return
    render_changes(console(highlight=False, soft_wrap=not sys.stdout.isatty()), found)
