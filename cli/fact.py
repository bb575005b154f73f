"""``palace fact add|retract|confirm|undo|decisions``, ``palace observe`` and ``palace review``: the
user's corrections of the graph and the review of candidates."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

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
    done = {"add": "added", "retract": "retracted", "confirm": "confirmed", "accept": "accepted",
            "reject": "rejected"}[decision.action]
    state = f"; undone at {decision.reverted_at}" if decision.reverted_at else ""
    state += "; proposed, awaiting review" if decision.pending and not decision.reverted_at else ""
    typer.echo(f"decision #{decision.id}: {done} fact #{decision.fact_id} {decision.subject} –{decision.predicate}→"
               f" {decision.object}{valid} ({decision.by}, {decision.created_at}{state})"
               + (f" — {decision.note}" if decision.note else ""))


@fact_app.command("add")
@guarded
def add(
    subject: str = typer.Argument(..., help="A name or alias (a name the palace does not know needs --new)."),
    predicate: str = typer.Argument(..., help="A predicate of the registry (works_at, reports_to, role…)."),
    obj: str = typer.Argument(..., metavar="OBJECT", help="A name, or a value for a predicate that takes one."),
    valid_from: Optional[str] = typer.Option(None, "--from", help="First day it holds (YYYY-MM-DD)."),
    valid_to: Optional[str] = typer.Option(None, "--to", help="First day it no longer holds."),
    note: str = typer.Option("", "--note", help="Why, or where it comes from; shown as its citation."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Its wing (default: where the subject is mentioned most)."),
    new: bool = typer.Option(False, "--new", help="Make a name the palace does not know a new entity."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
) -> None:
    """State a fact (evidence `user`). It supersedes like a mined fact: a one-value fact
    added for a later day closes the earlier value. A name the palace does not know is
    refused with the closest known ones, unless --new."""
    from palace.core import Palace

    start = parse_day(valid_from, "--from")
    end = parse_day(valid_to, "--to")
    with Palace.open(palace_dir, create=False) as palace:
        _print(palace.add_fact(subject, predicate, obj, valid_from=start, valid_to=end, note=note, wing=wing, new=new),
               as_json)


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


@app.command()
@guarded
def observe(
    entity: str = typer.Argument(..., help="A name or alias (a name the palace does not know needs --new)."),
    text: str = typer.Argument(..., help='A free statement: "prefers email over phone", "timezone is CET".'),
    valid_from: Optional[str] = typer.Option(None, "--from", help="First day it holds (YYYY-MM-DD)."),
    new: bool = typer.Option(False, "--new", help="Make a name the palace does not know a new entity."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
) -> None:
    """Attach an observation to an entity, with valid time: it shows on its card and can
    be retracted like a fact (`palace fact retract ID`). A name the palace does not know
    is refused with the closest known ones, unless --new."""
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        _print(palace.observe(entity, text, valid_from=parse_day(valid_from, "--from"), new=new), as_json)


review_app = typer.Typer(help="Candidates awaiting review: list, accept, reject.", invoke_without_command=True)
app.add_typer(review_app, name="review")


@review_app.callback()
@guarded
def review_list(
    ctx: typer.Context,
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """List what awaits review: candidate facts (an agent's, or mined in an untrusted wing
    or by a low-trust rule) with their provenance, and an agent's proposed retractions."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.markup import escape

    from palace.cli.app import console, render_fact
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        pending = palace.pending_review()
    if as_json:
        typer.echo(to_json(pending))
        return
    out = console(highlight=False, soft_wrap=True)
    if not pending.candidates and not pending.proposals:
        out.print("nothing awaits review")
    for fact in pending.candidates:
        rule = fact.extractor.split("/", 1)[-1]
        out.print(f"#{fact.id} ({escape(fact.evidence)}, rule {escape(rule)})", end="")
        render_fact(out, fact)
    for proposal in pending.proposals:
        _print(proposal, False)
    if pending.candidates or pending.proposals:
        out.print("accept: palace review accept ID… | --all-from RULE;  reject: palace review reject ID…")


def _decide(accept: bool, ids: list[int], rule: Optional[str], reason: str, palace_dir, as_json: bool) -> None:
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:
        proposals = {d.id for d in palace.pending_review().proposals}
        done = palace.review(accept, fact_ids=tuple(i for i in ids if i not in proposals),
                             proposal_ids=tuple(i for i in ids if i in proposals), rule=rule, reason=reason)
    if as_json:
        typer.echo(to_json(done))
        return
    for decision in done:
        _print(decision, False)


@review_app.command("accept")
@guarded
def review_accept(
    ids: Optional[List[int]] = typer.Argument(None, metavar="ID...", help="Candidate fact ids or proposal decision ids."),
    all_from: Optional[str] = typer.Option(None, "--all-from", help="Every candidate of this rule (title-appos…)."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decisions as JSON."),
) -> None:
    """Accept candidates (they become current) or proposals (they are applied)."""
    _decide(True, list(ids or ()), all_from, "", palace_dir, as_json)


@review_app.command("reject")
@guarded
def review_reject(
    ids: Optional[List[int]] = typer.Argument(None, metavar="ID...", help="Candidate fact ids or proposal decision ids."),
    all_from: Optional[str] = typer.Option(None, "--all-from", help="Every candidate of this rule."),
    reason: str = typer.Option("", "--reason", help="Why; history shows it."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print the decisions as JSON."),
) -> None:
    """Reject candidates (they stay out, with the reason) or proposals (dropped)."""
    _decide(False, list(ids or ()), all_from, reason, palace_dir, as_json)
