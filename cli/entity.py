"""``palace entity``: the profile card of a name, and the audit of its resolution
(``aliases``), with the user's ``merge`` and ``split``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from palace.cli.app import PalaceOption, app, console, cite, guarded

USAGE = "palace entity NAME | aliases NAME | merge NAME INTO | split NAME | path NAME OTHER"


@app.command()
@guarded
def entity(
    words: List[str] = typer.Argument(..., metavar="NAME | aliases NAME | merge NAME INTO | split NAME | path NAME OTHER",
                                      help="A name or alias, any case (e.g. \"Alice Chen\", \"alice's\"), "
                                           "or a sub-command and its names."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Show what the palace knows of NAME: types, aliases, current facts with citations,
    counts, first and last seen, closest related entities, latest mentions.

    `palace entity aliases NAME` shows its aliases and why each name resolves as it
    does; `palace entity merge NAME INTO` records that NAME is INTO (kept on every
    re-mine); `palace entity split NAME` undoes what NAME was merged into and keeps it
    apart; `palace entity path NAME OTHER` shows how two names are connected, each hop
    with its citation.
    """
    from palace.core import Palace
    from palace.results import to_json

    command, names = ("profile", words) if len(words) == 1 else (words[0], words[1:])
    arity = {"profile": 1, "aliases": 1, "split": 1, "merge": 2, "path": 2}
    if arity.get(command) != len(names):  # a usage error: exit 2, as for a bad option
        typer.echo(f"Error: cannot read `palace entity {' '.join(words)}`\nusage: {USAGE} (quote names with spaces)",
                   err=True)
        raise typer.Exit(2)
    with Palace.open(palace_dir, create=False) as palace:
        if command == "profile":
            card = palace.entity(names[0])
            return typer.echo(to_json(card)) if as_json else _render_profile(card)
        if command == "path":
            found = palace.connection(names[0], names[1])
            return typer.echo(to_json(found)) if as_json else _render_connection(found)
        if command == "aliases":
            report = palace.aliases(names[0])
            return typer.echo(to_json(report)) if as_json else _render_aliases(report)
        done = [palace.merge(names[0], names[1])] if command == "merge" else palace.split(names[0])
    if as_json:
        return typer.echo(to_json(done))
    for d in done:
        verb = "merged into" if d.action == "merge" else "split from"
        typer.echo(f"{d.name} {verb} {d.into} (decision #{d.id}, {d.created_at}; kept on every re-mine)")


def _console():

    return console(highlight=False, soft_wrap=not sys.stdout.isatty())


def _render_profile(card) -> None:
    from rich.markup import escape


    out = _console()
    out.print(f"[bold]{escape(card.name)}[/] ({'/'.join(card.types)})")
    if card.ambiguous_with:
        out.print(f"[yellow]unresolved: could be {escape(', '.join(card.ambiguous_with))}[/]"
                  f"  (`palace entity merge {escape(card.name)!r} NAME` decides)")
    if len(card.aliases) > 1:
        out.print(f"aliases: {escape(', '.join(card.aliases))}")
    out.print(
        f"mentions: {card.mentions} in {card.drawers} drawers of {card.files} files   "
        f"first seen {card.first_seen or '—'}, last seen {card.last_seen or '—'}   facts: {len(card.current)} current ({card.facts} statements)   "
        f"degree: {card.degree}"
    )
    for f in card.current:
        if f.valid_to is None:
            since = f"since {f.valid_from}" if f.valid_from else "undated"
        else:
            since = f"{f.valid_from or '?'} → {f.valid_to}"
        flag = " [red](conflict)[/]" if f.conflicts_with else ""
        flag += "" if f.evidence == "stated" else f" [dim]({escape(f.evidence)})[/]"  # inferred, user, confirmed, agent
        out.print(f"  {escape(f.subject)} –{f.predicate}→ [bold]{escape(f.object or '(whatever held)')}[/]  [dim]{since}[/]{flag}"
                  f"  [cyan]{escape(cite(f))}[/]")
    for f in getattr(card, "planned", ()):
        out.print(f"  {escape(f.subject)} –{f.predicate}→ [bold]{escape(f.object or '')}[/]  [yellow]{escape(f.plan)}[/]"
                  f"  [cyan]{escape(cite(f))}[/]")
    if card.related:
        out.print("related: " + escape(", ".join(f"{n.name} ({n.weight})" for n in card.related)))
    if card.recent:
        out.print("latest mentions:")
    for c in card.recent:
        out.print(f"  [cyan]{escape(c.path)}:{c.line_start}-{c.line_end}[/]  [dim]{c.date or 'undated'}[/]  {escape(c.surface)}")


def _render_aliases(report) -> None:
    from rich.markup import escape

    out = _console()
    out.print(f"[bold]{escape(report.name)}[/] ({report.type})")
    for a in report.aliases:
        out.print(f"  {escape(a.alias)}  [dim]{a.source}[/]")
    for r in report.resolved_from:
        out.print(f"  ← {escape(r.name)} in {escape(r.wing)}: {r.rule} — {escape(r.evidence)} [dim](since {r.since})[/]")
    for r in report.resolved_into:
        target = escape(r.into) if r.into else "[yellow]unresolved[/]"
        out.print(f"  → {target} in {escape(r.wing)}: {r.rule} — {escape(r.evidence)}")
    for d in report.decisions:
        state = f"reverted {d.reverted_at}" if d.reverted_at else "in force"
        out.print(f"  decision #{d.id}: {d.action} {escape(d.name)} / {escape(d.into)} ({d.created_at}, {state})")


def _render_connection(found) -> None:
    from rich.markup import escape

    out = _console()
    if not found.hops:
        out.print(f"no connection between {escape(found.source)} and {escape(found.target)} within 4 hops")
        return
    for hop in found.hops:
        where = f"{hop.path}:{hop.line}" if hop.line else hop.path
        out.print(f"{escape(hop.subject)} –{hop.predicate}→ {escape(hop.object)}  [cyan]{escape(where)}[/]")
        out.print(f"    [dim]{escape(hop.sentence[:160])}[/]")
