"""``palace facts`` and ``palace history``: facts by valid time and by recorded time."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, cite, guarded, parse_day


@app.command("facts")
@guarded
def facts_command(
    about: Optional[str] = typer.Option(None, "--about", help="A name or alias (subject or object)."),
    predicate: Optional[str] = typer.Option(None, "--predicate", help="Only this predicate, e.g. mentioned_with."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="What was true on this day (valid time)."),
    known_at: Optional[str] = typer.Option(None, "--known-at", help="What the palace knew then (recorded time)."),
    limit: int = typer.Option(100, "--limit", min=1, help="At most this many facts."),
    all_facts: bool = typer.Option(False, "--all", help="Co-occurrences (mentioned_with) too."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """List typed facts: current ones, or those true on --as-of, or those known at --known-at
    (--all adds co-occurrences)."""
    from palace.core import Palace

    day = parse_day(as_of, "--as-of")
    moment = parse_day(known_at, "--known-at", end=True)
    with Palace.open(palace_dir, create=False) as palace:
        result = palace.facts(about=about, predicate=predicate, as_of=day,
                              known_at=moment.isoformat() if moment else None, limit=limit, typed_only=not all_facts)
    _render(result, as_json)


@app.command()
@guarded
def history(
    name: str = typer.Argument(..., help="A name or alias."),
    predicate: Optional[str] = typer.Option(None, "--predicate", help="Only this predicate."),
    limit: int = typer.Option(200, "--limit", min=1, help="At most this many facts."),
    all_facts: bool = typer.Option(False, "--all", help="Co-occurrences (mentioned_with) too."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """The timeline of typed facts about NAME, superseded and invalidated ones included
    (--all adds co-occurrences)."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        result = palace.history(name, predicate=predicate, limit=limit, typed_only=not all_facts)
    _render(result, as_json)


def _render(result, as_json: bool) -> None:
    if as_json:
        from palace.results import to_json

        typer.echo(to_json(result))
        return
    from rich.markup import escape

    out = console(highlight=False, soft_wrap=not sys.stdout.isatty())
    if not result.facts:
        out.print("no facts" + (" (only plans)" if result.planned else ""))
    if result.pending_review:
        out.print(f"[magenta]{result.pending_review} candidate fact{'' if result.pending_review == 1 else 's'} about"
                  f" this await review, not counted here (palace review)[/]")
    labelled = result.history
    for f in result.facts:
        if f.valid_from is None and not labelled:  # dated facts first, then the undated ones, under a label
            labelled = True
            out.print("[bold]undated[/] [dim](no day in the note for when it began; listed after the dated facts)[/]")
        when = f"{f.valid_from or '?'} → {f.valid_to or 'now'}"
        mark = {"current": "", "ended": " [yellow]ended[/]", "superseded": f" [yellow]superseded by #{f.superseded_by}[/]",
                "invalidated": f" [red]invalidated {f.invalidated_at}: {escape(f.invalidation_reason or '')}[/]",
                "candidate": " [magenta]candidate, awaiting review (palace review)[/]",
                "retracted": f" [red]{escape(f.invalidation_reason or 'retracted')}[/]",
                "rejected": f" [red]{escape(f.invalidation_reason or 'rejected')}[/]",
                "planned": f" [yellow]{escape(f.plan or 'planned')}[/]"}[f.state]
        if f.conflicts_with:
            mark += f" [red]conflicts with {', '.join(f'#{i}' for i in f.conflicts_with)}[/]"
        out.print(f"#{f.id} [bold]{escape(f.subject)}[/] –{f.predicate}→ [bold]{escape(f.object or '(whatever held)')}[/]  "
                  f"[dim]{when}, recorded {f.recorded_at}, {f.evidence}[/]{mark}")
        out.print(f"    [cyan]{escape(cite(f))}[/]  {escape(f.sentence[:160])}")
        if f.restated_in:
            out.print(f"    [dim]stated again in {escape(', '.join(f.restated_in))}[/]")
    if result.planned:
        out.print("[bold]planned[/] [dim](plans the notes state; never current until a note states the fact)[/]")
    for f in result.planned:
        out.print(f"#{f.id} [bold]{escape(f.subject)}[/] –{f.predicate}→ [bold]{escape(f.object)}[/]  "
                  f"[yellow]{escape(f.plan)}[/]")
        out.print(f"    [cyan]{escape(cite(f))}[/]  {escape(f.sentence[:160])}")
