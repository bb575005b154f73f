"""Take the graph with you: ``palace export`` and ``palace import``.

:func:`export_graph` writes the entities (with their aliases), the typed facts with both
times, evidence and provenance (note, line, sentence, rule), and the user's decisions
(entity merges and splits, added, retracted, confirmed, accepted and rejected facts):

- as JSON (:data:`FORMAT` ``palace-graph/1``), every field named as in ``palace facts
  --json``;
- as GraphML, which networkx (``networkx.read_graphml``), Gephi, yEd and Cytoscape read:
  one node per entity (``name``, ``type``, ``aliases``) and per literal value (type
  ``VALUE``), one edge per typed fact with its attributes (``predicate``, ``valid_from``,
  ``valid_to``, ``recorded_at``, ``invalidated_at``, ``state``, ``evidence``, ``path``,
  ``line``, ``sentence``…; a missing value is the empty string, GraphML has no null).

:func:`import_decisions` replays the decisions of a JSON export into a palace — typically
one rebuilt by mining the same notes again — so that it keeps every correction: merges
and splits are recorded by name key and the wings resolved again; an added fact is
added again (its evidence and note kept); retractions, confirmations, acceptances and
rejections are recorded by their keys and replayed on the facts that match, now and on
every later re-mine. A decision already in the palace is not recorded twice. The
exported states come back with the decisions: a fact added as a candidate (or rejected)
is added again as a candidate, and the rejection replayed on it.

Both take the store (:class:`palace.store.store.Store`) and the predicate registry,
never the handle; the handle holds the write lock around an import.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from palace.errors import UsageError
from palace.results import to_data
from palace.store import decisions as rows
from palace.store import sqlite as db
from palace.store.entities import all_entities
from palace.store.facts import FactFilter, fact_views
from palace.store.store import Store

if TYPE_CHECKING:
    from palace.config import Config

#: The format name and version of a JSON export.
FORMAT = "palace-graph/1"


def graph_data(store: Store, registry: dict) -> dict:
    """The palace's graph as plain data (the JSON export): ``format``, ``exported_at``,
    ``palace`` (its folder), ``entities``, ``facts`` (every typed fact, ``mentioned_with``
    left out, in any state), ``entity_decisions``, ``fact_decisions`` and ``forgotten``
    (the forget list: hashes of each forgotten note's ``wing/path`` and content, no path,
    no content; :func:`palace.store.forget.forget_list`)."""
    from palace.store.forget import forget_list

    conn = store.conn
    facts = fact_views(conn, FactFilter(typed_only=True), registry, limit=10**9)
    return {
        "format": FORMAT,
        "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "palace": str(store.path),
        "entities": all_entities(conn),
        "facts": [to_data(f) for f in sorted(facts, key=lambda f: f.id)],
        "entity_decisions": [dict(r) for r in rows.entity_decisions(conn)],
        "fact_decisions": [dict(r) for r in rows.fact_decisions(conn)],
        "forgotten": forget_list(conn),
    }


def export_graph(store: Store, registry: dict, *, graphml: bool = False) -> tuple[str, dict]:
    """The graph as text — JSON, or GraphML — and its counts ``{entities, facts,
    decisions}``."""
    data = graph_data(store, registry)
    text = _graphml(data) if graphml else json.dumps(data, indent=1, ensure_ascii=False)
    return text, {"entities": len(data["entities"]), "facts": len(data["facts"]),
                  "decisions": len(data["entity_decisions"]) + len(data["fact_decisions"])}


def _graphml(data: dict) -> str:
    import networkx as nx

    graph = nx.MultiDiGraph(format=FORMAT, exported_at=data["exported_at"])
    by_name: dict[str, str] = {}
    for entity in data["entities"]:
        node = f"e{entity['id']}"
        by_name.setdefault(entity["name"], node)
        graph.add_node(node, name=entity["name"], type=entity["type"],
                       aliases="; ".join(a["alias"] for a in entity["aliases"]))
    for fact in data["facts"]:
        subject = by_name.get(fact["subject"])
        if subject is None:
            continue
        target = by_name.get(fact["object"])
        if target is None:  # a literal value: a node of its own
            target = f"v:{fact['object']}"
            graph.add_node(target, name=fact["object"], type="VALUE", aliases="")
        attributes = {k: ("" if fact.get(k) is None else fact[k]) for k in (
            "predicate", "valid_from", "valid_to", "valid_granularity", "recorded_at", "invalidated_at",
            "invalidation_reason", "state", "evidence", "confidence", "extractor", "wing", "path", "line", "sentence")}
        graph.add_edge(subject, target, key=f"f{fact['id']}", fact_id=fact["id"], **attributes)
    return "\n".join(nx.generate_graphml(graph)) + "\n"


@dataclass(frozen=True)
class ImportReport:
    """What :func:`import_decisions` recorded: entity decisions, facts added again,
    fact decisions recorded, facts they changed now, and those already present; and the
    notes of this palace its forget list made it forget (``notes_forgotten``)."""

    entity_decisions: int
    facts_added: int
    fact_decisions: int
    facts_changed: int
    already_present: int
    notes_forgotten: int = 0


def import_decisions(store: Store, config: "Config", registry: dict, path: Path) -> ImportReport:
    """Replay the user's decisions of the JSON export at ``path`` into the palace of
    ``store`` (``config``, ``registry``: its settings and predicate registry), after
    applying its forget list (:func:`palace.ops.forgetting.forget_listed`: a note the
    exporting palace forgot is forgotten here too, found by its path or its content, and
    never mined again). The caller holds the write lock. Raises :class:`UsageError` for
    a file that is not a palace export."""
    from palace.graph.corrections import add_fact, replay
    from palace.graph.resolution import resolve_every_wing
    from palace.ops.forgetting import forget_listed

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}", hint="give a file written by `palace export`") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path} is not a palace export ({FORMAT})", hint="write one with `palace export --json`")
    conn = store.conn
    listed = data.get("forgotten") or []
    forgotten = forget_listed(store, config, registry, listed) if isinstance(listed, list) and listed else 0
    present = 0
    entity_count = 0
    with db.transaction(conn):
        for d in data.get("entity_decisions", []):
            if rows.entity_decision_recorded(conn, d["action"], d["name_key"], d["into_key"], d["created_at"]):
                present += 1
                continue
            rows.insert_entity_decision(conn, d["action"], d["name"], d["name_key"], d["into_name"], d["into_key"],
                                        d["created_at"], d.get("reverted_at"))
            entity_count += 1
        if entity_count:
            resolve_every_wing(conn, registry)
    added = 0
    recorded = 0
    exported_state = {f.get("id"): f.get("state") for f in data.get("facts", [])}
    for d in data.get("fact_decisions", []):
        if rows.fact_decision_recorded(conn, d["action"], d["subject_key"], d["predicate"], d["object_key"],
                                       d["valid_from"], d["created_at"]):
            present += 1
            continue
        if d["action"] == "add" and not d.get("reverted_at"):
            made = add_fact(conn, registry, d["subject"], d["predicate"], d["object"],
                            valid_from=_day(d["valid_from"]), valid_to=_day(d["valid_to"]), note=d.get("note") or "",
                            # a candidate when exported (pending or rejected: the rejection is replayed after)
                            by=d.get("by") or "user",
                            candidate=exported_state.get(d.get("fact_id")) in ("candidate", "rejected"),
                            new=True)  # the export's own names: made again if this palace lacks them
            with db.transaction(conn):  # keep when it was decided
                rows.set_decided_at(conn, made.id, d["created_at"])
            added += 1
            continue
        with db.transaction(conn):
            rows.insert_fact_decision(conn, rows.NewFactDecision(
                d["action"], d.get("by") or "user", d["subject"], d["subject_key"], d["predicate"], d["object"],
                d["object_key"], d["valid_from"], d["valid_to"], d.get("note") or "", None, d.get("previous_evidence"),
                bool(d.get("pending")), d["created_at"], d.get("reverted_at")))
        recorded += 1
    with db.transaction(conn):
        changed = replay(conn, registry)
    return ImportReport(entity_count, added, recorded, changed, present, forgotten)


def _day(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text[:10]) if text else None
