"""``palace map``: the temporal graph as one self-contained HTML page that works offline."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from palace.cli.app import PalaceOption, app, guarded, parse_day


@app.command("map")
@guarded
def map_command(
    names: Optional[List[str]] = typer.Argument(None, help="Names or aliases to centre on (default: the busiest)."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Only this wing (a private wing needs it)."),
    since: Optional[str] = typer.Option(None, "--since", help="Only facts valid on or after this day."),
    until: Optional[str] = typer.Option(None, "--until", help="Only facts valid on or before this day."),
    out: Path = typer.Option(Path("palace-map.html"), "--out", help="The HTML file to write."),
    candidates: bool = typer.Option(False, "--candidates", help="Carry candidates too, behind a toggle, marked."),
    nodes: int = typer.Option(200, "--nodes", min=1, max=2000, help="Draw at most this many nodes."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the map's data as JSON instead of writing a page."),
) -> None:
    """Write the graph as one HTML page that works offline: entities as nodes, typed facts
    as edges (current solid, superseded and ended dashed), a time slider that redraws it
    as valid on a day, the changes of the window, and each fact's citation on a click."""
    from palace.core import Palace

    start = parse_day(since, "--since")
    end = parse_day(until, "--until", end=True)
    with Palace.open(palace_dir, create=False) as palace:
        data = palace.map(tuple(names or ()), wing=wing, since=start, until=end, candidates=candidates,
                          max_nodes=nodes)
    if as_json:
        from palace.results import to_json

        typer.echo(to_json(data))
        return
    out.write_text(Palace.map_page(data), encoding="utf-8")
    typer.echo(f"wrote {out} ({len(data.nodes)} nodes, {len(data.edges)} edges, {len(data.facts)} facts;"
               f" {data.entities_shown} of {data.entities_total} entities); open it in a browser")
