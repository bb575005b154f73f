"""``palace ask QUESTION``: hybrid retrieval with a plan and an explanation per hit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded, parse_day, render_changes, render_fact
from palace.errors import UsageError
from palace.results import to_json


@app.command()
@guarded
def ask(
    question: Optional[str] = typer.Argument(None, help="A question in plain words."),
    top_k: int = typer.Option(10, "--top-k", "-k", min=1, max=200, help="How many drawers to return."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Only this wing."),
    room: Optional[str] = typer.Option(None, "--room", help="Only this room."),
    since: Optional[str] = typer.Option(None, "--since", help="Only drawers dated on or after this day."),
    until: Optional[str] = typer.Option(None, "--until", help="Only drawers dated on or before this day."),
    now: Optional[str] = typer.Option(None, "--now", help="Anchor for relative dates (default: today)."),
    history: bool = typer.Option(False, "--history", help="Show superseded facts too."),
    explain: bool = typer.Option(False, "--explain", help="Show the plan, its weights and every retriever's rank and score."),
    batch: Optional[Path] = typer.Option(
        None, "--batch", help="Answer each line of FILE ('-' for stdin): a question, or JSON with question, wing, now."
    ),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as one JSON object."),
) -> None:
    """Ask the palace a question; get cited drawers and why each was returned."""
    from palace.core import Palace

    now_day = parse_day(now, "--now")
    since_day = parse_day(since, "--since", now=now_day)
    until_day = parse_day(until, "--until", end=True, now=now_day)
    question = question.strip() if question else question
    if (batch is None) == (not question):  # a usage error: exit 2, as for a bad option
        typer.echo("Error: give a QUESTION or --batch FILE (one of them)\n"
                   'usage: palace ask "what changed in Q3" [options] | palace ask --batch FILE [options]', err=True)
        raise typer.Exit(2)
    if batch is not None:
        # stdin is read line by line: a script keeps the pipe open and gets each answer at once
        lines = (line.rstrip("\n") for line in sys.stdin) if str(batch) == "-" else _read_batch(batch)
        with Palace.open(palace_dir, create=False) as palace:
            failed = 0
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                failed += not _answer_line(palace, number, line, dict(
                    top_k=top_k, wing=wing, room=room, since=since_day, until=until_day, now=now_day, history=history))
        if failed:
            raise typer.Exit(1)
        return
    from palace.errors import PalaceError

    with Palace.open(palace_dir, create=False) as palace:
        try:
            result = palace.ask(question, top_k=top_k, wing=wing, room=room, since=since_day, until=until_day,
                                now=now_day, history=history)
        except PalaceError as exc:
            if as_json:  # scripts read stdout: the error as JSON there too, beside stderr's
                typer.echo(to_json({"question": question, "error": exc.message, "hint": exc.hint}, indent=None))
            raise
    if as_json:
        typer.echo(to_json(result))
        return
    render(result, explain=explain)


def _read_batch(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--batch: cannot read {path}: {exc}", hint="give a UTF-8 text file, one question per line")


def _answer_line(palace, number: int, line: str, options: dict) -> bool:
    """Answer one batch line and print one JSON object (the result, or ``{"line",
    "question", "error", "hint"}``). A line starting with ``{`` is JSON with ``question``
    and optional ``wing``, ``room``, ``now``, ``top_k``, ``history``. True when answered."""
    import json

    from palace.errors import PalaceError

    question = line.strip()
    try:
        if question.startswith("{"):
            try:
                item = json.loads(question)
            except ValueError as exc:
                raise UsageError(f"not JSON: {exc}", hint='{"question": "...", "wing": "...", "now": "YYYY-MM-DD"}')
            if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                raise UsageError("a JSON line needs a \"question\" string", hint='{"question": "what changed in Q3"}')
            question = item["question"]
            for key, kind in (("wing", str), ("room", str), ("top_k", int), ("history", bool)):
                if key not in item:
                    continue
                value = item[key]
                if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or not 1 <= value <= 200)):
                    wanted = {"wing": "a string", "room": "a string", "top_k": "a whole number 1-200",
                              "history": "true or false"}[key]
                    raise UsageError(f"{key!r} must be {wanted}, not {value!r}", hint='{"question": "...", "top_k": 5}')
                options[key] = value
            if item.get("now"):
                options["now"] = parse_day(str(item["now"]), "now")
        result = palace.ask(question, **options)
    except PalaceError as exc:
        typer.echo(to_json({"line": number, "question": question, "error": str(exc),
                            "hint": getattr(exc, "hint", None)}, indent=None))
        sys.stdout.flush()
        return False
    typer.echo(to_json(result, indent=None))
    sys.stdout.flush()
    return True


DIRECT_LINES = 8  # palace.ask.answers.DIRECT_LINES, without importing the query path here


def render(result, *, explain: bool = False) -> None:
    """Print an :class:`palace.ask.result.AskResult` with rich: the plan in one line, then the
    direct answer (:class:`palace.ask.answers.Direct`: the one fact asked for, the changes,
    the facts about the question's names, or that the graph holds none), the whole change
    list or fact list when the answer could not show it all (or with ``explain``, or for
    a history question), then the drawers with path:line, date, snippet and why.
    ``explain`` adds the retriever weights and each retriever's rank and raw score."""
    from rich.markup import escape

    out = console(highlight=False, soft_wrap=not sys.stdout.isatty())  # no hard wraps in pipes
    plan = result.plan
    line = plan.line(weights=explain)
    out.print("[dim]plan:[/] " + escape(line))
    for note in plan.notes:
        out.print(f"[dim]note: {escape(note)}[/]")
    direct = result.direct
    out.print("\n[bold]answer[/]")
    if result.answer is not None and result.answer.values:
        lines = result.answer.text.splitlines()
        for line, value in zip(lines, result.answer.values):  # one line per value, its citation last
            cited = " — " + value.cite()
            said = line[:-len(cited)] if line.endswith(cited) else line
            out.print(f"  [bold]{escape(said)}[/]" + (f"[dim]{escape(cited)}[/]" if said != line else ""))
    elif direct.kind in ("changes", "facts"):
        for line in direct.text.splitlines():
            said, _, cited = line.partition(" — ")
            out.print(f"  [bold]{escape(said)}[/]" + (f"[dim] — {escape(cited)}[/]" if cited else ""))
        if direct.kind == "changes" and result.changes is not None and not explain:
            out.print(f"  [dim]{result.changes.total} changes read from the notes (one line per change,"
                      f" however many notes state it); --explain lists each[/]")
    else:
        out.print(f"  [yellow]{escape(direct.text)}[/]")
    if result.changes is not None and (explain or len(direct.text.splitlines()) > DIRECT_LINES):
        render_changes(out, result.changes)
    if result.facts and (explain or plan.intent == "history" or len(result.facts) > DIRECT_LINES):
        title = "facts (history)" if plan.intent == "history" else "facts"
        out.print(f"\n[bold]{title}[/]")
        for fact in result.facts:
            render_fact(out, fact)
    if result.results:
        out.print("\n[bold]evidence[/]")
    for hit in result.results:
        if explain:
            why = ", ".join(f"{c.retriever} #{c.rank} (score {c.score:.3f}, weight {c.weight:g}, +{c.rrf:.4f})"
                            for c in hit.why.retrievers)
        else:
            why = ", ".join(f"{c.retriever} #{c.rank}" for c in hit.why.retrievers)
        extra = []
        if hit.why.matched_entities:
            extra.append("entities: " + ", ".join(hit.why.matched_entities))
        if hit.why.matched_terms:
            extra.append("terms: " + " ".join(hit.why.matched_terms))
        heading = " › ".join(hit.heading_path)
        out.print(
            f"\n[bold]{hit.rank}.[/] [cyan]{escape(hit.path)}:{hit.line_start}-{hit.line_end}[/]"
            f"  [dim]{escape(hit.wing)}/{escape(hit.room)}  {escape(_dated(hit))}  score {hit.score:.4f}[/]"
        )
        if heading:
            out.print(f"   [dim]{escape(heading)}[/]")
        out.print(f"   {escape(hit.snippet)}")
        if hit.caution:  # an untrusted wing, or a fact read here the user rejected or retracted
            out.print(f"   [bold red]caution:[/] [red]{escape('; '.join(hit.caution))}[/]")
        if hit.same_text_in:
            more = ", ".join(hit.same_text_in[:5]) + (" …" if len(hit.same_text_in) > 5 else "")
            out.print(f"   [dim]same text in {escape(more)}[/]")
        out.print(f"   [dim]why: {escape(why)}{'; ' + escape('; '.join(extra)) if extra else ''}[/]")
    out.print(f"\n[dim]{len(result.results)} results in {result.elapsed_ms:.0f} ms[/]")


def _dated(hit) -> str:
    """A hit's date and where it came from: ``2024-03-05 (file name)``, ``undated``."""
    if hit.date is None:
        return "undated"
    return f"{hit.date} ({hit.date_source})" if hit.date_source else hit.date
