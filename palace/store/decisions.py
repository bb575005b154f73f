"""The user's decisions as rows: ``fact_decisions`` (facts added, retracted, confirmed,
accepted, rejected; an agent's pending proposals) and ``entity_decisions`` (merges and
splits). The rules that apply them are :mod:`palace.graph.corrections`' and
:mod:`palace.graph.resolution`'s; a fact's state is written by
:mod:`palace.store.fact_states`. Writes run inside the caller's transaction.

A fact decision is keyed by the fact's subject and object name keys, predicate and
valid start (``subject_key``, ``object_key``, ``predicate``, ``valid_from``), so that a
re-mine, which reads the same statement into a new fact row, finds it again
(:func:`facts_matching`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields

__all__ = ["NewFactDecision", "insert_fact_decision", "fact_decision", "fact_decisions", "pending_proposals",
           "pending_proposal", "decisions_to_replay", "set_decision_fact", "settle_proposal", "revert_fact_decision",
           "set_decided_at", "fact_decision_moments", "facts_matching", "entity_decisions",
           "entity_decisions_in_force", "entity_decisions_about", "entity_decision_moments",
           "insert_entity_decision"]


@dataclass(frozen=True)
class NewFactDecision:
    """A fact decision to record: ``action`` (``add``, ``retract``, ``confirm``,
    ``accept``, ``reject``), ``by`` (``user`` or ``agent``), the fact's names and keys,
    predicate and valid time (ISO days or None), the ``note`` (an added fact's note, a
    retraction's or rejection's reason), the ``fact_id`` it made or acted on, the fact's
    ``previous_evidence`` (a confirmation, an acceptance), whether it is ``pending`` (an
    agent's proposal), when it was made (``created_at``) and undone (``reverted_at``)."""

    action: str
    by: str
    subject: str
    subject_key: str
    predicate: str
    object: str
    object_key: str
    valid_from: str | None
    valid_to: str | None
    note: str = ""
    fact_id: int | None = None
    previous_evidence: str | None = None
    pending: bool = False
    created_at: str = ""
    reverted_at: str | None = None


_DECISION_COLUMNS = [f.name for f in fields(NewFactDecision)]
_INSERT_DECISION = (f"INSERT INTO fact_decisions ({', '.join(_DECISION_COLUMNS)})"
                    f" VALUES ({', '.join('?' * len(_DECISION_COLUMNS))})")


def insert_fact_decision(conn: sqlite3.Connection, decision: NewFactDecision) -> int:
    """Record ``decision``; return its id."""
    values = [int(v) if isinstance(v, bool) else v for v in (getattr(decision, f.name) for f in fields(decision))]  # astuple deep-copies: slow
    return conn.execute(_INSERT_DECISION, values).lastrowid


def fact_decision(conn: sqlite3.Connection, decision_id: int) -> sqlite3.Row | None:
    """The fact decision of that id (every column), or None."""
    return conn.execute("SELECT * FROM fact_decisions WHERE id = ?", (decision_id,)).fetchone()


def fact_decisions(conn: sqlite3.Connection, *, include_undone: bool = True) -> list[sqlite3.Row]:
    """Every fact decision, oldest first (without the undone ones unless ``include_undone``)."""
    sql = "SELECT * FROM fact_decisions" + ("" if include_undone else " WHERE reverted_at IS NULL") + " ORDER BY id"
    return conn.execute(sql).fetchall()


def pending_proposals(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """An agent's proposals awaiting review (pending, not undone), oldest first."""
    return conn.execute("SELECT * FROM fact_decisions WHERE pending = 1 AND reverted_at IS NULL ORDER BY id").fetchall()


def pending_proposal(conn: sqlite3.Connection, decision_id: int) -> sqlite3.Row | None:
    """The proposal of that id if it still awaits review, else None."""
    return conn.execute("SELECT * FROM fact_decisions WHERE id = ? AND pending = 1 AND reverted_at IS NULL",
                        (decision_id,)).fetchone()


def decisions_to_replay(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """The decisions a re-mine applies again to the facts it reads: in force (not undone,
    not pending), every action but ``add`` (an added fact is a row of its own), oldest first."""
    return conn.execute("SELECT * FROM fact_decisions WHERE reverted_at IS NULL AND pending = 0"
                        " AND action != 'add' ORDER BY id").fetchall()


def set_decision_fact(conn: sqlite3.Connection, decision_id: int, fact_id: int) -> None:
    """The fact a decision made (an added fact, once stored)."""
    conn.execute("UPDATE fact_decisions SET fact_id = ? WHERE id = ?", (fact_id, decision_id))


def settle_proposal(conn: sqlite3.Connection, decision_id: int) -> None:
    """A proposal the user accepted: no longer pending (in force)."""
    conn.execute("UPDATE fact_decisions SET pending = 0 WHERE id = ?", (decision_id,))


def revert_fact_decision(conn: sqlite3.Connection, decision_id: int, at: str) -> None:
    """A decision undone (or a proposal rejected) at ``at``."""
    conn.execute("UPDATE fact_decisions SET reverted_at = ? WHERE id = ?", (at, decision_id))


def set_decided_at(conn: sqlite3.Connection, decision_id: int, at: str) -> None:
    """When a decision was made (an imported one keeps its own moment)."""
    conn.execute("UPDATE fact_decisions SET created_at = ? WHERE id = ?", (at, decision_id))


def fact_decision_moments(conn: sqlite3.Connection) -> set[tuple]:
    """Every fact decision recorded, as ``(action, subject_key, predicate, object_key,
    valid_from, created_at)``: what an import finds already here (one read, however many
    decisions it brings)."""
    return {tuple(r) for r in conn.execute(
        "SELECT action, subject_key, predicate, object_key, valid_from, created_at FROM fact_decisions")}


def facts_matching(conn: sqlite3.Connection, decision, *, evidence: tuple[str, ...],
                   status: str = "live") -> list[sqlite3.Row]:
    """The facts in ``status`` with the keys of ``decision`` (a ``fact_decisions`` row:
    subject and object name keys, predicate, valid start) and one of ``evidence``, as
    rows of ``(id, subject_id, predicate)``."""
    return conn.execute(
        f"SELECT f.id, f.subject_id, f.predicate FROM facts f JOIN entities s ON s.id = f.subject_id"
        f" LEFT JOIN entities o ON o.id = f.object_id WHERE f.status = ? AND s.key = ?"
        f" AND f.predicate = ? AND coalesce(o.key, lower(trim(f.object_value))) = ? AND f.valid_from IS ?"
        f" AND f.evidence IN ({','.join('?' * len(evidence))})",
        (status, decision["subject_key"], decision["predicate"], decision["object_key"], decision["valid_from"],
         *evidence),
    ).fetchall()


# -- entity decisions (merges and splits) --------------------------------------------------


def entity_decisions(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Every merge and split, undone ones included, oldest first (every column)."""
    return conn.execute("SELECT * FROM entity_decisions ORDER BY id").fetchall()


def entity_decisions_in_force(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """The merges and splits in force, oldest first: ``(action, name key, into key)``."""
    return [tuple(r) for r in conn.execute(
        "SELECT action, name_key, into_key FROM entity_decisions WHERE reverted_at IS NULL ORDER BY id")]


def entity_decisions_about(conn: sqlite3.Connection, key: str) -> list[tuple]:
    """The merges and splits naming the name key ``key`` either way, oldest first:
    ``(id, action, name, into name, created at, reverted at)``."""
    return [tuple(r) for r in conn.execute(
        "SELECT id, action, name, into_name, created_at, reverted_at FROM entity_decisions"
        " WHERE name_key = ? OR into_key = ? ORDER BY id", (key, key))]


def entity_decision_moments(conn: sqlite3.Connection) -> set[tuple]:
    """Every merge and split recorded, as ``(action, name_key, into_key, created_at)``."""
    return {tuple(r) for r in conn.execute("SELECT action, name_key, into_key, created_at FROM entity_decisions")}


def insert_entity_decision(conn: sqlite3.Connection, action: str, name: str, name_key: str, into_name: str,
                           into_key: str, created_at: str, reverted_at: str | None) -> int:
    """Record a merge or split as it was exported (its moments kept); return its id.
    A decision the user makes now goes through :func:`palace.store.resolution.record_decision`."""
    return conn.execute(
        "INSERT INTO entity_decisions (action, name, name_key, into_name, into_key, created_at, reverted_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)", (action, name, name_key, into_name, into_key, created_at, reverted_at),
    ).lastrowid
