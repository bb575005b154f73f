"""``palace mcp``: a Model Context Protocol server over stdio, and ``palace card``.

One warm process (the model loaded once, the vector store opened once) answers an
agent's tool calls with what the commands print as JSON (:func:`palace.results.to_data`):

=================  ============================================================
``ask``            the same result as ``palace ask --json``
``search_nodes``   entities whose names hold the query's words, scored, with their
                   current relations (:meth:`palace.core.Palace.search_entities`)
``open_nodes``     the profile cards of named entities (``palace entity --json``)
``facts``          current facts, or those valid ``as_of`` a day, or held ``known_at``
``history``        every fact about a name, superseded and ended ones included
``changes``        what began, ended or was superseded in a valid-time window
``profile_card``   the text block of :meth:`palace.core.Palace.profile_card`, for a prompt
``remember``       an observation about an entity (a candidate)
``relate``         a typed fact (a candidate)
``retract``        a proposal to retract a fact (pending review)
=================  ============================================================

Built on the official ``mcp`` Python SDK (``MCPServer``). ``--wing W`` limits every
tool to one wing; a wing marked ``"private": true`` under ``"wings"`` in
``config.json`` is never served unless named with ``--wing``. The tools that write —
``remember`` (an observation), ``relate`` (a typed fact), ``retract`` (a proposal) — make
candidates the user reviews (``palace review``), unless ``config.json`` says
``"agents": {"writes": "commit"}``; their evidence is ``agent``. Nothing is printed on
stdout but the protocol; logs go to stderr.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from palace.cli.app import PalaceOption, app, console, guarded, parse_day
from palace.errors import PalaceError, UsageError, translate


def build_server(palace, *, wing: str | None = None):
    """The ``MCPServer`` of ``palace`` (an open handle), its tools limited to ``wing``
    when given. Raises :class:`UsageError` when the palace has private wings and no
    ``wing`` names what to serve."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from palace.results import to_data

    private = palace.config.private_wings
    if private and wing is None:
        raise UsageError(f"wing{'s' if len(private) > 1 else ''} {', '.join(sorted(private))} "
                         f"{'are' if len(private) > 1 else 'is'} private and never served unless named",
                         hint="serve one wing: palace mcp --wing NAME")
    if wing is not None:
        known = palace.wings()
        if wing not in known:
            raise UsageError(f"no wing {wing!r} in this palace", hint=f"wings: {', '.join(sorted(known))}")
    server = MCPServer("palace", version=palace_version(), instructions=(
        "palace holds the user's notes as drawers and a temporal knowledge graph. Use `ask` for questions "
        "(cited drawers and a direct answer), `search_nodes` and `open_nodes` for people, organisations and "
        "projects, `facts`/`history`/`changes` for what holds, held and changed (valid time), and "
        "`profile_card` for a short summary to keep in mind. Cite the path:line given."))

    def day(value: str | None, name: str, *, end: bool = False) -> dt.date | None:
        try:
            return parse_day(value, name, end=end) if value else None
        except PalaceError as exc:
            raise ToolError(_said(exc)) from None

    def said(exc: PalaceError) -> str:  # a hint may name what other wings hold: none when limited to one
        return exc.message if wing is not None else _said(exc)

    def call_raw(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # the agent reads what a person would: the error and its hint
            error = translate(exc)
            if error is None:
                raise
            raise ToolError(said(error)) from None

    def call(fn, *args, **kwargs) -> Any:
        return to_data(call_raw(fn, *args, **kwargs))

    @server.tool()
    def ask(question: str, top_k: int = 10, now: Optional[str] = None, since: Optional[str] = None,
            until: Optional[str] = None, history: bool = False) -> dict[str, Any]:
        """Answer a question from the notes: a plan, a direct answer from the graph where
        there is one, and the drawers that support it, each cited by path and lines. `now`
        (YYYY-MM-DD) anchors relative dates; `since`/`until` bound the drawers' dates."""
        return call(palace.ask, question, top_k=max(1, min(top_k, 200)), wing=wing, now=day(now, "now"),
                    since=day(since, "since"), until=day(until, "until", end=True), history=history)

    @server.tool()
    def search_nodes(query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Find entities (people, organisations, projects…) whose names or aliases hold the
        query's words; each with a score in [0, 1], its aliases and current relations."""
        return call(palace.search_entities, query, limit=max(1, min(limit, 50)), wing=wing)

    @server.tool()
    def open_nodes(names: List[str]) -> list[dict[str, Any]]:
        """The profile cards of these entities: types, aliases, current facts with
        citations, first and last seen, related entities, latest mentions."""
        cards = []
        for name in names[:20]:
            if wing is not None and not call(palace.mentioned_in, name, wing):
                raise ToolError(f"no entity named {name!r} in wing {wing!r}")
            card = call(palace.entity, name)
            if wing is not None:  # only what this wing holds: its facts and mentions, no neighbours from elsewhere
                card["current"] = [f for f in card["current"] if f["wing"] == wing]
                card["recent"] = [c for c in card["recent"] if c["wing"] == wing]
                card["related"], card["degree"], card["ambiguous_with"] = [], 0, []
                card["limited_to_wing"] = wing
            cards.append(card)
        return cards

    @server.tool()
    def facts(about: Optional[str] = None, predicate: Optional[str] = None, as_of: Optional[str] = None,
              known_at: Optional[str] = None, limit: int = 100) -> dict[str, Any]:
        """Typed facts, each with its valid time, recorded time and citation: those that
        hold today, or those valid on `as_of` (YYYY-MM-DD), or those the palace held at
        `known_at` (an ISO day or moment). `about` is a name or alias."""
        return call(palace.facts, about=about, predicate=predicate, as_of=day(as_of, "as_of"), known_at=known_at,
                    limit=max(1, min(limit, 500)), wing=wing)

    @server.tool()
    def history(name: str, predicate: Optional[str] = None) -> dict[str, Any]:
        """Every fact about a name in valid-time order, superseded, ended and retracted
        ones included, each with its state."""
        return call(palace.history, name, predicate=predicate, wing=wing)

    @server.tool()
    def changes(since: Optional[str] = None, until: Optional[str] = None,
                about: Optional[str] = None) -> dict[str, Any]:
        """Facts that began, ended or were superseded between `since` and `until`
        (YYYY-MM-DD, either may be open), grouped by entity; with neither, what the
        latest mining changed."""
        start = day(since, "since")
        end = day(until, "until", end=True)
        return call(palace.changes, start, end + dt.timedelta(days=1) if end else None, about=about, wing=wing)

    @server.tool()
    def profile_card(names: Optional[List[str]] = None, entities: int = 8, facts: int = 5) -> str:
        """A short text block of what the notes currently hold about the named entities,
        or about those most recently updated: at most `entities` entities × `facts`
        facts, each with its valid time and source. Made to be kept in a system prompt."""
        return call_raw(_card, palace, tuple(names or ()), entities, facts, wing).text

    agent_commits = palace.config.agent_writes == "commit"

    def written(decision) -> dict[str, Any]:
        data = to_data(decision)
        data["status"] = "committed" if agent_commits else "candidate: awaits the user's review (palace review)"
        return data

    @server.tool()
    def remember(entity: str, text: str, since: Optional[str] = None, new: bool = False) -> dict[str, Any]:
        """Remember an observation about an entity ("prefers email over phone", "timezone
        is CET"), valid from `since` (YYYY-MM-DD). It is a candidate the user reviews,
        unless the palace lets agents commit. A name the palace does not know is refused
        with the closest known names; `new` makes it a new entity."""
        return written(call_raw(palace.observe, entity, text, valid_from=day(since, "since"), by="agent",
                                candidate=not agent_commits, wing=wing, new=new))

    @server.tool()
    def relate(subject: str, predicate: str, object: str, since: Optional[str] = None,
               until: Optional[str] = None, note: str = "", new: bool = False) -> dict[str, Any]:
        """State a typed fact (`subject predicate object`, a predicate of the registry:
        works_at, reports_to, role, leads…) valid over [since, until). It is a candidate
        the user reviews, unless the palace lets agents commit. A name the palace does not
        know is refused with the closest known names; `new` makes it a new entity."""
        return written(call_raw(palace.add_fact, subject, predicate, object, valid_from=day(since, "since"),
                                valid_to=day(until, "until"), note=note, wing=wing, by="agent",
                                candidate=not agent_commits, new=new))

    @server.tool()
    def retract(fact_id: int, reason: str = "") -> dict[str, Any]:
        """Propose to retract a wrong fact (its #id from facts or history), with the reason.
        The user accepts or rejects the proposal, unless the palace lets agents commit."""
        if wing is not None:  # a fact of another wing is as unknown as a missing one: its content stays there
            if palace.fact_wing(fact_id) != wing:
                raise ToolError(f"no fact #{fact_id} in wing {wing!r}")
        return written(call_raw(palace.retract_fact, fact_id, reason=reason, by="agent", pending=not agent_commits))

    return server


def palace_version() -> str:
    """palace's version as installed (``0.1.0``), for the server's ``initialize`` reply."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("palace")
    except PackageNotFoundError:  # a source tree never installed
        return "0+unknown"


def _refuse(exc: Exception) -> None:
    """The server cannot start (an unknown ``--wing``, a private wing not named, no
    palace): tell the client in its own protocol — the ``initialize`` request (and any
    other before it) is answered with a JSON-RPC error carrying the message and its hint,
    so an agent reads why instead of "connection closed" — then raise the error for the
    command line (``Error: …`` on stderr, exit 1). A terminal on stdin gets only the latter."""
    import json

    error = translate(exc)
    if error is None:
        raise exc
    if not _isatty(sys.stdin):
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or "id" not in message or "method" not in message:
                continue  # a notification wants no answer
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32603, "message": f"palace mcp could not start: {_said(error)}"}}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
            if message["method"] == "initialize":
                break
    raise error


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _card(palace, names, entities: int, facts: int, wing: str | None):
    return palace.profile_card(names, entities=max(1, min(entities, 50)), facts=max(1, min(facts, 20)), wing=wing)


def _said(exc: PalaceError) -> str:
    return exc.message + (f" (hint: {exc.hint})" if exc.hint else "")


@app.command("mcp")
@guarded
def mcp_command(
    palace_dir: Optional[Path] = PalaceOption,
    wing: Optional[str] = typer.Option(None, "--wing", help="Serve only this wing (private wings need it)."),
) -> None:
    """Serve the palace to an agent over the Model Context Protocol (stdio): ask,
    search_nodes, open_nodes, facts, history, changes and profile_card, from one warm
    process. Register `palace mcp --palace DIR` as a stdio server in the MCP client."""
    import logging

    from palace.core import Palace

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)  # stdout carries the protocol only
    try:
        palace = Palace.open(palace_dir, create=False)
    except Exception as exc:
        _refuse(exc)
    with palace:
        try:
            server = build_server(palace, wing=wing)
        except Exception as exc:
            _refuse(exc)
        try:  # load the model and the vector index before the first call
            palace.ask("what changed", top_k=1, wing=wing)
        except PalaceError:
            pass
        palace.vectors.preload()  # the stored vectors in memory, for exact scans
        server.run("stdio")


@app.command()
@guarded
def card(
    names: Optional[List[str]] = typer.Argument(None, help="Names or aliases (default: the most recently updated)."),
    entities: int = typer.Option(8, "--entities", min=1, max=50, help="How many entities at most."),
    facts: int = typer.Option(5, "--facts", min=1, max=20, help="How many current facts per entity at most."),
    wing: Optional[str] = typer.Option(None, "--wing", help="Only facts read in this wing."),
    palace_dir: Optional[Path] = PalaceOption,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Print a profile card: what the notes currently hold about a few entities, as a
    short text block for a system prompt (the MCP tool profile_card prints the same)."""
    from palace.core import Palace
    from palace.results import to_json

    with Palace.open(palace_dir, create=False) as palace:
        found = _card(palace, tuple(names or ()), entities, facts, wing)
    if as_json:
        typer.echo(to_json(found))
        return
    console(highlight=False, soft_wrap=True).print(found.text, markup=False)
