"""``palace entity NAME``: the profile card of a person, organisation, place or concept."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.main import PalaceOption, app, guarded


@app.command()
@guarded
def entity(
    name: str = typer.Argument(..., help="A name or alias, any case (e.g. \"Alice Chen\", \"alice's\")."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Show what the palace knows of NAME: types, aliases, counts, first and last seen,
    closest related entities, latest mentions."""
    from rich.console import Console
    from rich.markup import escape

    from palace.core import Palace
    from palace.graph import profile

    with Palace.open(palace_dir, create=False) as palace:
        card = profile(palace, name)
    if as_json:
        typer.echo(card.to_json())
        return
    out = Console(highlight=False, soft_wrap=not sys.stdout.isatty())
    out.print(f"[bold]{escape(card.name)}[/] ({'/'.join(card.types)})")
    if len(card.aliases) > 1:
        out.print(f"aliases: {escape(', '.join(card.aliases))}")
    out.print(
        f"mentions: {card.mentions} in {card.drawers} drawers of {card.files} files   "
        f"first seen {card.first_seen or '—'}, last seen {card.last_seen or '—'}   facts: {card.facts} current"
    )
    if card.related:
        out.print("related: " + escape(", ".join(f"{n.name} ({n.weight})" for n in card.related)))
    for c in card.recent:
        out.print(f"  [cyan]{escape(c.path)}:{c.line_start}-{c.line_end}[/]  [dim]{c.date or ''}[/]  {escape(c.surface)}")
