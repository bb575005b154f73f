"""``palace fact add|retract|confirm|undo|decisions``: the user's corrections of the graph."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from palace.cli.app import PalaceOption, app, guarded, parse_day
from palace.results import to_json

fact_app = typer.Typer(help="State, retract or confirm facts; every decision survives re-mining and can be undone.",
                       no_args_is_help=True)
app.add_typer(fact_app, name="fact")


def _print(decision, as_json: bool) -> None:
    if as_json:
        typer.echo(to_json(decision))
        return
    valid = f"  {decision.valid_from or '?'} → {decision.valid_to or 'now'}" if decision.action == "add" else ""
    done = {"add": "added", "retract": "retracted", "confirm": "confirmed"}[decision.action]
    state = f"; undone at {decision.reverted_at}" if decision.reverted_at else ""
    typer.echo(f"decision #{decision.id}: {done} fact #{decision.fact_id} {decision.subject} –{decision.predicate}→"
               f" {decision.object}{valid} ({decision.by}, {decision.created_at}{state})"
               + (f" — {decision.note}" if decision.note else ""))


@fact_app.command("add")
@guarded
def add(
    subject: str = typer.Argument(..., help="A name or alias (a new name makes a new entity)."),
    predicate: str = typer.Argument(..., help="A predicate of the registry (works_at, reports_to, role…)."),
    obj: str = typer.Argument(..., metavar="OBJECT", help="A name, or a value for a predicate that takes one."),
    valid_from: Optional[str] = typer.Option(None, "--from", help="First day it holds (YYYY-MM-DD)."),
    valid_to: Optional[str] = typer.Option(None, "--to", help="First day it no longer holds."),
    note: str = typer.Option("", "--note", help="Why, or where it comes from; shown as its citation."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Its wing (default: where the subject is mentioned most)."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
) -> None:
    """State a fact (evidence `user`). It supersedes like a mined fact: a one-value fact
    added for a later day closes the earlier value."""
    from palace.core import Palace

    start = parse_day(valid_from, "--from")
    end = parse_day(valid_to, "--to")
    with Palace.open(palace_dir, create=False) as palace:
        _print(palace.add_fact(subject, predicate, obj, valid_from=start, valid_to=end, note=note, wing=wing), as_json)


@fact_app.command("retract")
@guarded
def retract(
    fact_id: int = typer.Argument(..., metavar="ID", help="The fact's #id (palace facts, palace history)."),
    reason: str = typer.Option("", "--reason", help="Why it is wrong; history shows it."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
) -> None:
    """Retract a wrong fact: it leaves the current view, history says who retracted it
    and why, and a re-mine that reads it again retracts it again."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        _print(palace.retract_fact(fact_id, reason=reason), as_json)


@fact_app.command("confirm")
@guarded
def confirm(
    fact_id: int = typer.Argument(..., metavar="ID", help="The fact's #id."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
) -> None:
    """Confirm a mined fact (evidence `confirmed`), again on every re-mine."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        _print(palace.confirm_fact(fact_id), as_json)


@fact_app.command("undo")
@guarded
def undo(
    decision_id: int = typer.Argument(..., metavar="DECISION", help="The decision's #id."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
) -> None:
    """Undo an added, retracted or confirmed fact."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        _print(palace.undo_fact_decision(decision_id), as_json)


@fact_app.command("decisions")
@guarded
def decisions(
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as a JSON list."),
) -> None:
    """List every fact decision: who, when, what, why, and whether it was undone."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        found = palace.fact_decisions()
    if as_json:
        typer.echo(to_json(found))
        return
    if not found:
        typer.echo("no fact decisions")
    for decision in found:
        _print(decision, False)
