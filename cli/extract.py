"""``palace extract``: the mining NLP on a text, nothing stored, every decision shown."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, fail, guarded, parse_day
from palace.results import to_json


@app.command("extract")
@guarded
def extract_command(
    text: Optional[str] = typer.Argument(None, help="The text to read ('-': standard input)."),
    file: Optional[Path] = typer.Option(None, "--file", help="Read this note instead (front matter included)."),
    date: Optional[str] = typer.Option(None, "--date", help="The note's date (default: the file's own, else today)."),
    title: Optional[str] = typer.Option(None, "--title", help="The note's title (the subject of 'Status:' lines)."),
    owner: Optional[str] = typer.Option(None, "--owner", help="Who 'I' is outside chat lines (default: config.json)."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Show the facts mining would read from TEXT (or --file): for each sentence, the rule
    that fired, the predicate and its route (one value: supersedes; many: coexist), the
    valid time and where it came from, and the candidates turned down and why."""
    from palace.core import Palace

    if (text is None) == (file is None):
        fail("give a TEXT or --file FILE (not both)", hint='palace extract "Ines moved from Oslo to Bergen."')
    day = parse_day(date, "--date")
    source = None if file is not None else sys.stdin.read() if text == "-" else text
    result = Palace.extract(source, file=file, date=day, title=title, owner=owner, palace=palace_dir)
    if as_json:
        typer.echo(to_json(result))
        return
    _render(result)


def _render(result) -> None:
    from rich.markup import escape

    out = console(highlight=False, soft_wrap=not sys.stdout.isatty())
    out.print(f"[dim]dated {result.date}{', title ' + escape(result.title) if result.title else ''}; "
              f"{len(result.entities)} names, {len(result.facts)} facts, {len(result.planned)} planned,"
              f" {len(result.rejected)} turned down[/]")
    sentences: dict[tuple[int, str], list] = {}
    for fact in (*result.facts, *getattr(result, "planned", ())):
        sentences.setdefault((fact.line, fact.sentence), []).append(fact)
    for rejection in result.rejected:
        sentences.setdefault((rejection.line, rejection.sentence), []).append(rejection)
    for (line, sentence), items in sorted(sentences.items(), key=lambda kv: kv[0][0]):
        out.print(f"\n[cyan]{line}[/]  {escape(sentence[:200])}")
        for item in items:
            if hasattr(item, "route"):
                if item.ending:
                    when = f"ends {item.valid_to}" if not item.valid_from else f"{item.valid_from} → {item.valid_to}"
                else:
                    when = f"{item.valid_from or '?'} → {item.valid_to or 'open'}"
                if getattr(item, "planned", False):
                    out.print(f"  [yellow]◷[/] planned: [bold]{escape(item.subject)}[/] –{item.predicate}→ "
                              f"[bold]{escape(item.object or '')}[/]  [dim]for {item.valid_from or 'no day given'}"
                              f" ({item.date_source}); never current; rule {item.rule}[/]")
                    continue
                mark = "[yellow]?[/] candidate:" if item.status == "candidate" else "[green]✓[/]"
                out.print(f"  {mark} [bold]{escape(item.subject)}[/] –{item.predicate}→ "
                          f"[bold]{escape(item.object or '(whatever held)')}[/]  [dim]{when} ({item.date_source}); "
                          f"{item.route}; {item.evidence}; rule {item.rule}[/]")
                if item.status == "candidate":
                    out.print(f"      [yellow]{escape(item.reason)}[/]")
            else:
                words = " / ".join(escape(w) for w in (item.subject, item.object) if w)
                out.print(f"  [red]✗[/] {item.predicate} ({item.rule}): {escape(item.reason)}"
                          f"{'  [dim]' + words + '[/]' if words else ''}")
