"""The user's corrections of the graph: facts a person states, retracts or confirms.

Each is a **decision** in ``fact_decisions`` (who, when, what, why), keyed by the fact's
subject and object name keys, predicate and valid start, apart from the facts
themselves, so that:

- an **added** fact (evidence ``user``, or ``agent`` for an agent's) is a fact like a mined
  one: it takes part in supersession (a one-value fact added for a later day closes the
  earlier value) and shows in every view, cited as stated by the user with its recorded
  time and note;
- a **retracted** fact leaves the current view; history keeps it, invalidated, with the
  reason ``retracted by the user (decision #N): …``; the value before it comes back;
- a **confirmed** fact gets evidence ``confirmed``;
- every re-mine **replays** the retractions and confirmations on the facts it reads again
  (:func:`replay`, run with the wing's resolution), as entity merges are replayed;
- every decision can be **undone** (:func:`undo`), and undoing restores what it changed.

Evidence is one field with defined values (:data:`EVIDENCE`), never folded into the
confidence.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace.db import store
from palace.db.entities import find_entities
from palace.db.graph import NewFact, entity_id, insert_fact
from palace.errors import UsageError
from palace.nlp.names import entity_key
from palace.temporal import apply_timelines, recorded_now

if TYPE_CHECKING:
    from palace.core import Palace

#: What a fact rests on: read as written (``stated``), read through a pronoun, a
#: previous sentence or a default (``inferred``), stated by the user (``user``), a mined
#: fact the user confirmed (``confirmed``), written by an agent (``agent``).
EVIDENCE = ("stated", "inferred", "user", "confirmed", "agent")
#: The path a fact the user states is cited by.
USER_PATH = "(stated by the user)"


@dataclass(frozen=True)
class FactDecision:
    """One decision of ``fact_decisions``: ``action`` (``add``, ``retract``,
    ``confirm``), ``by`` (``user`` or ``agent``), the fact's ``subject``, ``predicate``,
    ``object`` and valid time, the ``note`` (an added fact's note, a retraction's
    reason), the ``fact_id`` it made or acted on, and when it was made and undone."""

    id: int
    action: str
    by: str
    subject: str
    predicate: str
    object: str
    valid_from: str | None
    valid_to: str | None
    note: str
    fact_id: int | None
    created_at: str
    reverted_at: str | None


def decisions(palace: "Palace", *, include_undone: bool = True) -> list[FactDecision]:
    """Every fact decision, oldest first (without the undone ones unless ``include_undone``)."""
    sql = "SELECT * FROM fact_decisions" + ("" if include_undone else " WHERE reverted_at IS NULL") + " ORDER BY id"
    return [_decision(row) for row in palace.conn.execute(sql)]


def add_fact(palace: "Palace", subject: str, predicate: str, obj: str, *, valid_from: dt.date | None = None,
             valid_to: dt.date | None = None, note: str = "", wing: str | None = None,
             by: str = "user") -> FactDecision:
    """Add the fact ``subject predicate obj`` valid over ``[valid_from, valid_to)``
    (either open; an event without an end holds on its day). ``subject`` and an entity
    ``obj`` are names or aliases (a new name makes a new entity of the predicate's type);
    ``wing`` defaults to the wing that mentions the subject most. Raises
    :class:`UsageError` for an unknown predicate, a value the predicate does not take, or
    an end before the start."""
    registry = palace.registry
    spec = registry.get(predicate)
    if spec is None or predicate == "mentioned_with":
        known = sorted(name for name in registry if name != "mentioned_with")
        raise UsageError(f"no predicate {predicate!r}", hint="predicates: " + ", ".join(known))
    if not subject.strip() or not obj.strip():
        raise UsageError("a fact needs a subject and an object", hint='palace fact add "Bob Okafor" reports_to "Helen Marsh"')
    if valid_from and valid_to and valid_to <= valid_from:
        raise UsageError(f"--to {valid_to} is not after --from {valid_from}", hint="the valid time is [from, to)")
    if spec.kind == "event" and valid_from and not valid_to:
        valid_to = valid_from + dt.timedelta(days=1)
    conn = palace.conn
    now = recorded_now()
    with store.transaction(conn):
        cache: dict = {}
        subject_id = _entity(conn, cache, subject, spec.subject)
        object_id, object_value = (None, " ".join(obj.split())) if spec.object == ("VALUE",) else (
            _entity(conn, cache, obj, spec.object), None)
        subject_name = conn.execute("SELECT name FROM entities WHERE id = ?", (subject_id,)).fetchone()[0]
        object_name = object_value if object_id is None else conn.execute(
            "SELECT name FROM entities WHERE id = ?", (object_id,)).fetchone()[0]
        decision_id = conn.execute(
            "INSERT INTO fact_decisions (action, by, subject, subject_key, predicate, object, object_key, valid_from,"
            " valid_to, note, created_at) VALUES ('add', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (by, subject_name, entity_key(subject_name), predicate, object_name, _value_key(object_name, object_id),
             _iso(valid_from), _iso(valid_to), note, now)).lastrowid
        sentence = f"{subject_name} {predicate} {object_name}" + (f" — {note}" if note else "")
        fact_id = insert_fact(conn, NewFact(
            subject_id=subject_id, predicate=predicate, object_id=object_id, object_value=object_value,
            valid_from=valid_from, valid_to=valid_to, valid_granularity="day" if valid_from else None,
            recorded_at=now, drawer_id=f"user:{decision_id}", wing=wing or _home_wing(conn, subject_id),
            path=USER_PATH if by == "user" else "(written by an agent)", char_start=0, char_end=0,
            sentence=sentence, extractor=by, confidence=1.0, evidence=by, stated_to=valid_to))
        conn.execute("UPDATE fact_decisions SET fact_id = ? WHERE id = ?", (fact_id, decision_id))
        apply_timelines(conn, [(subject_id, predicate)], registry)
    return _load(conn, decision_id)


def retract_fact(palace: "Palace", fact_id: int, *, reason: str = "", by: str = "user") -> FactDecision:
    """Retract the fact ``fact_id``: it leaves the current view (invalidated now, with
    the reason), history keeps it, the value before it comes back, and a re-mine that
    reads it again retracts it again. Raises :class:`UsageError` for an unknown or
    already invalidated fact."""
    conn = palace.conn
    row = _live_fact(conn, fact_id)
    now = recorded_now()
    with store.transaction(conn):
        decision_id = _record(conn, "retract", by, row, reason, now)
        conn.execute("UPDATE facts SET invalidated_at = ?, invalidation_reason = ? WHERE id = ?",
                     (now, _retracted(decision_id, reason), fact_id))
        apply_timelines(conn, [(row["subject_id"], row["predicate"])], palace.registry)
    return _load(conn, decision_id)


def confirm_fact(palace: "Palace", fact_id: int, *, by: str = "user") -> FactDecision:
    """Raise a mined fact (``stated`` or ``inferred``) to ``confirmed``; a re-mine that
    reads it again confirms it again. Raises :class:`UsageError` for an unknown,
    invalidated, already confirmed or user-stated fact."""
    conn = palace.conn
    row = _live_fact(conn, fact_id)
    if row["evidence"] not in ("stated", "inferred"):
        raise UsageError(f"fact #{fact_id} is {row['evidence']}, not a mined fact to confirm",
                         hint="confirm a fact whose evidence is stated or inferred")
    now = recorded_now()
    with store.transaction(conn):
        decision_id = _record(conn, "confirm", by, row, "", now, previous=row["evidence"])
        conn.execute("UPDATE facts SET evidence = 'confirmed' WHERE id = ?", (fact_id,))
    return _load(conn, decision_id)


def undo(palace: "Palace", decision_id: int) -> FactDecision:
    """Undo a fact decision: an added fact is withdrawn (invalidated), a retracted one
    comes back, a confirmed one gets its evidence back; the timelines are recomputed.
    Raises :class:`UsageError` for an unknown or already undone decision."""
    conn = palace.conn
    row = conn.execute("SELECT * FROM fact_decisions WHERE id = ?", (decision_id,)).fetchone()
    if row is None:
        raise UsageError(f"no fact decision #{decision_id}", hint="palace fact decisions lists them")
    if row["reverted_at"]:
        raise UsageError(f"fact decision #{decision_id} was undone at {row['reverted_at']}")
    now = recorded_now()
    with store.transaction(conn):
        conn.execute("UPDATE fact_decisions SET reverted_at = ? WHERE id = ?", (now, decision_id))
        if row["action"] == "add":
            touched = conn.execute("SELECT id, subject_id, predicate FROM facts WHERE drawer_id = ?",
                                   (f"user:{decision_id}",)).fetchall()
            conn.execute("UPDATE facts SET invalidated_at = ?, invalidation_reason = ? WHERE drawer_id = ?"
                         " AND invalidated_at IS NULL",
                         (now, f"withdrawn by the user (undo of decision #{decision_id})", f"user:{decision_id}"))
        elif row["action"] == "retract":
            touched = conn.execute("SELECT id, subject_id, predicate FROM facts WHERE invalidation_reason LIKE ?",
                                   (_retracted(decision_id, "") + "%",)).fetchall()
            conn.execute("UPDATE facts SET invalidated_at = NULL, invalidation_reason = NULL"
                         " WHERE invalidation_reason LIKE ?", (_retracted(decision_id, "") + "%",))
        else:
            touched = _matching(conn, row, evidence=("confirmed",))
            conn.execute(f"UPDATE facts SET evidence = ? WHERE id IN ({','.join('?' * len(touched))})",
                         (row["previous_evidence"] or "stated", *[t["id"] for t in touched]))
        apply_timelines(conn, {(t["subject_id"], t["predicate"]) for t in touched}, palace.registry)
    return _load(conn, decision_id)


def replay(conn, registry: dict) -> int:
    """Apply the retractions and confirmations in force to the live facts that match
    them (subject and object name keys, predicate, valid start) and do not carry them
    yet: the facts a re-mine read again. Inside the caller's transaction. Returns how
    many facts changed."""
    changed = 0
    groups = set()
    for row in conn.execute("SELECT * FROM fact_decisions WHERE reverted_at IS NULL AND action != 'add'"
                            " ORDER BY id").fetchall():
        if row["action"] == "retract":
            found = _matching(conn, row, evidence=("stated", "inferred", "confirmed"))
            if found:
                conn.execute(f"UPDATE facts SET invalidated_at = ?, invalidation_reason = ?"
                             f" WHERE id IN ({','.join('?' * len(found))})",
                             (recorded_now(), _retracted(row["id"], row["note"]), *[f["id"] for f in found]))
                groups |= {(f["subject_id"], f["predicate"]) for f in found}
        else:
            found = _matching(conn, row, evidence=("stated", "inferred"))
            if found:
                conn.execute(f"UPDATE facts SET evidence = 'confirmed' WHERE id IN ({','.join('?' * len(found))})",
                             [f["id"] for f in found])
        changed += len(found)
    if groups:
        apply_timelines(conn, groups, registry)
    return changed


# -- helpers -------------------------------------------------------------------------


def _matching(conn, decision, *, evidence: tuple[str, ...]) -> list:
    """Live facts with the decision's keys and one of ``evidence``."""
    return conn.execute(
        f"SELECT f.id, f.subject_id, f.predicate FROM facts f JOIN entities s ON s.id = f.subject_id"
        f" LEFT JOIN entities o ON o.id = f.object_id WHERE f.invalidated_at IS NULL AND s.key = ?"
        f" AND f.predicate = ? AND coalesce(o.key, lower(trim(f.object_value))) = ? AND f.valid_from IS ?"
        f" AND f.evidence IN ({','.join('?' * len(evidence))})",
        (decision["subject_key"], decision["predicate"], decision["object_key"], decision["valid_from"], *evidence),
    ).fetchall()


def _record(conn, action: str, by: str, fact, note: str, now: str, previous: str | None = None) -> int:
    return conn.execute(
        "INSERT INTO fact_decisions (action, by, subject, subject_key, predicate, object, object_key, valid_from,"
        " valid_to, note, fact_id, previous_evidence, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (action, by, fact["subject_name"], fact["subject_key"], fact["predicate"], fact["object_name"],
         fact["object_key"], fact["valid_from"], fact["valid_to"], note, fact["id"], previous, now)).lastrowid


def _live_fact(conn, fact_id: int):
    row = conn.execute(
        "SELECT f.*, s.name AS subject_name, s.key AS subject_key, coalesce(o.name, f.object_value) AS object_name,"
        " coalesce(o.key, lower(trim(f.object_value))) AS object_key FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id WHERE f.id = ?",
        (fact_id,)).fetchone()
    if row is None:
        raise UsageError(f"no fact #{fact_id}", hint="palace facts and palace history show facts with their #id")
    if row["invalidated_at"]:
        raise UsageError(f"fact #{fact_id} was already invalidated at {row['invalidated_at']}: "
                         f"{row['invalidation_reason']}")
    return row


def _retracted(decision_id: int, reason: str) -> str:
    return f"retracted by the user (decision #{decision_id})" + (f": {reason}" if reason else "")


def _entity(conn, cache: dict, name: str, types: tuple[str, ...]) -> int:
    """The entity ``name`` stands for (most mentioned of a name or alias), else a new one
    typed as the predicate wants (``CONCEPT`` when it takes any)."""
    try:
        return find_entities(conn, name)[0]["id"]
    except UsageError:
        label = next((t for t in types if t not in ("*", "VALUE")), "CONCEPT")
        return entity_id(conn, cache, " ".join(name.split()), label)


def _home_wing(conn, entity: int) -> str:
    row = conn.execute(
        "SELECT f.wing FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id"
        " WHERE m.entity_id = ? GROUP BY f.wing ORDER BY count(*) DESC, f.wing LIMIT 1", (entity,)).fetchone()
    return row[0] if row else "user"


def _value_key(name: str, object_id: int | None) -> str:
    return entity_key(name) if object_id is not None else " ".join(name.split()).casefold()


def _iso(day: dt.date | None) -> str | None:
    return day.isoformat() if day else None


def _load(conn, decision_id: int) -> FactDecision:
    return _decision(conn.execute("SELECT * FROM fact_decisions WHERE id = ?", (decision_id,)).fetchone())


def _decision(row) -> FactDecision:
    return FactDecision(row["id"], row["action"], row["by"], row["subject"], row["predicate"], row["object"],
                        row["valid_from"], row["valid_to"], row["note"], row["fact_id"], row["created_at"],
                        row["reverted_at"])
