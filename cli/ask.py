"""``palace ask QUESTION``: hybrid retrieval with a plan and an explanation per hit."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.main import PalaceOption, app, guarded
from palace.errors import UsageError


def parse_day(value: str | None, option: str, *, end: bool = False, now: dt.date | None = None) -> dt.date | None:
    """Parse an option's day: ISO ``YYYY-MM-DD``, or any form palace reads in questions
    (``2024``, ``Q3 2024``, ``last month``; relative to ``now``). A period gives its first
    day, or its last day with ``end=True`` (``--until 2024`` means through 2024-12-31).
    Raises :class:`UsageError` when nothing in ``value`` is a date."""
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        pass
    from palace.nlp.dates import find_date_window

    found = find_date_window(value, now or dt.date.today())
    if found is None or found[1].strip().lower() not in value.strip().lower():
        raise UsageError(f"{option}: cannot read a date from {value!r}", hint="use YYYY-MM-DD, e.g. 2024-04-12")
    interval, text = found
    leftover = value.strip().lower().replace(text.strip().lower(), "", 1).strip(" ,.")
    if leftover:
        raise UsageError(f"{option}: cannot read a date from {value!r}", hint="use YYYY-MM-DD, e.g. 2024-04-12")
    return interval.end - dt.timedelta(days=1) if end else interval.start


@app.command()
@guarded
def ask(
    question: str = typer.Argument(..., help="A question in plain words."),
    top_k: int = typer.Option(10, "--top-k", "-k", min=1, max=200, help="How many drawers to return."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Only this wing."),
    room: Optional[str] = typer.Option(None, "--room", help="Only this room."),
    since: Optional[str] = typer.Option(None, "--since", help="Only drawers dated on or after this day."),
    until: Optional[str] = typer.Option(None, "--until", help="Only drawers dated on or before this day."),
    now: Optional[str] = typer.Option(None, "--now", help="Anchor for relative dates (default: today)."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Ask the palace a question; get cited drawers and why each was returned."""
    from palace.core import Palace

    now_day = parse_day(now, "--now")
    since_day = parse_day(since, "--since", now=now_day)
    until_day = parse_day(until, "--until", end=True, now=now_day)
    with Palace.open(palace_dir, create=False) as palace:
        result = palace.ask(question, top_k=top_k, wing=wing, room=room, since=since_day, until=until_day, now=now_day)
    if as_json:
        typer.echo(result.to_json())
        return
    render(result)


def render(result) -> None:
    """Print an :class:`palace.query.AskResult` with rich."""
    from rich.console import Console
    from rich.markup import escape

    out = Console(highlight=False, soft_wrap=not sys.stdout.isatty())  # no hard wraps in pipes
    plan = result.plan
    parts = []
    if plan.date_window:
        w = plan.date_window
        parts.append(f"window {w['start']} → {w['end']} ({w['granularity']}, from {plan.date_window_source}"
                     f"{' ' + repr(plan.date_window_text) if plan.date_window_text else ''}) [{plan.date_window_mode}]")
    if plan.entities:
        parts.append("entities " + ", ".join(f"{e['name']} ({'/'.join(e['types'])}) [boost]" for e in plan.entities))
    if plan.identifiers:
        parts.append("identifiers " + " ".join(plan.identifiers) + " [exact]")
    parts.append("terms " + " ".join(plan.terms) if plan.terms else "no terms")
    out.print("[dim]plan:[/] " + escape("; ".join(parts)))
    for note in plan.notes:
        out.print(f"[dim]note: {escape(note)}[/]")
    if not result.results:
        out.print("no drawers matched")
    for hit in result.results:
        why = ", ".join(f"{c.retriever} #{c.rank}" for c in hit.why.retrievers)
        extra = []
        if hit.why.matched_entities:
            extra.append("entities: " + ", ".join(hit.why.matched_entities))
        if hit.why.matched_terms:
            extra.append("terms: " + " ".join(hit.why.matched_terms))
        heading = " › ".join(hit.heading_path)
        out.print(
            f"\n[bold]{hit.rank}.[/] [cyan]{escape(hit.path)}:{hit.line_start}-{hit.line_end}[/]"
            f"  [dim]{escape(hit.wing)}/{escape(hit.room)}  {hit.date or ''}  score {hit.score:.4f}[/]"
        )
        if heading:
            out.print(f"   [dim]{escape(heading)}[/]")
        out.print(f"   {escape(hit.snippet)}")
        out.print(f"   [dim]why: {escape(why)}{'; ' + escape('; '.join(extra)) if extra else ''}[/]")
    out.print(f"\n[dim]{len(result.results)} results in {result.elapsed_ms:.0f} ms[/]")
