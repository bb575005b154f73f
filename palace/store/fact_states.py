"""Writing a fact's state: every change of ``facts.status`` goes through one
:class:`StateChange`, compiled to SQL in one function, so the state, the recorded time
and the reason users read never drift apart.

A fact's ``status`` is one of :data:`STATUSES`:

- ``live``: it counts — current views, answers, timelines. Mined, stated by the user, or
  a candidate accepted (``decision_id``: the acceptance).
- ``candidate``: stored with its provenance, never current until a person accepts it
  (``palace review``): an agent's fact, or one mined in an untrusted wing or by a
  low-trust rule. Its ``invalidated_at`` is its ``recorded_at``: the palace never held it.
- ``rejected``: a candidate the user rejected (``decision_id``: the rejection).
- ``retracted``: a fact the user retracted (``decision_id``: the retraction), at
  ``invalidated_at``.
- ``invalidated``: its text left the notes (the note changed or went), its front matter
  changed, or the user withdrew the fact they had added; at ``invalidated_at``.
- ``planned``: a plan read from the notes ("will join Acme on 1 March", "starts on
  Monday" in a note of the week before), with the valid time it is planned for (a
  planned clause with no day of its own is not kept): never current, never in answers or timelines; shown
  as planned, "not confirmed" once its day is past, until a live fact of the same
  subject, predicate and value begun since the plan was written confirms it
  (:func:`palace.store.facts.fact_views`). Its text leaving the notes invalidates it.

``invalidation_reason`` keeps the words users read in history ("retracted by the user
(decision #7): old job"); nothing reads a state from them. ``decision_id`` names the
fact decision that put the fact in its state (None for the state mining, or the fact's
own statement, gave it), so that undoing a decision finds its facts by it
(:func:`reopen`). Every function here runs inside the caller's transaction
(:class:`palace.store.sqlite.transaction`) and returns the facts it changed as rows of
``(id, subject_id, predicate)``: the groups whose timelines the caller recomputes
(:func:`palace.graph.temporal.apply_timelines`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

__all__ = ["STATUSES", "CANDIDATE", "NEAR_INSTRUCTION", "NEAR_INSTRUCTION_REASON", "LOW_CONFIDENCE", "LOW_CONFIDENCE_REASON", "hold_for_review", "REJECTED", "RETRACTED", "RETRACTED_BY_AGENT", "SOURCE_GONE", "USER_DRAWER", "StateChange",
           "change_state", "make_candidates", "accept", "reject", "retract", "reopen", "invalidate", "withdraw",
           "set_evidence"]

#: Every state a fact can be in (the CHECK of ``facts.status``).
STATUSES = ("live", "candidate", "rejected", "retracted", "invalidated", "planned")
#: The reason users read for a candidate.
CANDIDATE = "candidate awaiting review"
#: How a rejected candidate's reason starts.
REJECTED = "rejected by the user"
#: How a retracted fact's reason starts (``palace fact retract``).
RETRACTED = "retracted by the user"
#: How it starts when an agent retracted it (committed, or its proposal accepted).
RETRACTED_BY_AGENT = "retracted by an agent"
#: The reason of a retracted fact whose text left the notes meanwhile, once the
#: retraction is undone: it stays out, as any fact whose text went.
SOURCE_GONE = "file changed: text no longer there"
#: How the drawer id of a fact the user (or an agent) stated starts: ``user:N`` for the
#: fact decision N (it has no drawer of its own).
USER_DRAWER = "user:"
#: The mined evidences a confirmation raises to ``confirmed`` (a user's or an agent's
#: fact keeps its own).
MINED = ("stated", "inferred")


@dataclass(frozen=True)
class StateChange:
    """Facts to put in a state: which (every field set narrows the selection; they are
    ANDed, and at least one of ``fact_ids``, ``drawer_id``, ``decided_by`` is required)
    and what they become.

    Which:

    - ``fact_ids``: these facts.
    - ``drawer_id``: the facts read in this drawer (``user:N``: the fact decision N added).
    - ``decided_by``: the facts the decision of this id put in their state (``decision_id``).
    - ``was``: whose status is now one of these.
    - ``source_gone``: True keeps only the facts whose drawer has left the palace (not
      one a person stated); False only the others.

    What:

    - ``status``: one of :data:`STATUSES`.
    - ``decision_id``: the decision that puts them there (an acceptance, a rejection, a
      retraction); None for every other change.
    - ``at``: the moment (ISO, recorded time) of an invalidation or a retraction, their
      ``invalidated_at``; None keeps the one they have. ``live`` clears it; a candidate's
      is its ``recorded_at``; a rejection keeps the candidate's.
    - ``reason``: for ``invalidated``, the reason users read; for ``rejected`` and
      ``retracted``, the user's note after "(decision #N): ". ``live`` clears the
      reason; a candidate's is :data:`CANDIDATE`.
    - ``evidence``: what they now rest on (``confirmed`` raises only mined facts,
      :data:`MINED`); None keeps it.
    - ``by``: who decided a retraction, ``user`` or ``agent`` (the words users read:
      :data:`RETRACTED`, :data:`RETRACTED_BY_AGENT`).
    """

    status: str
    fact_ids: tuple[int, ...] = ()
    drawer_id: str | None = None
    decided_by: int | None = None
    was: tuple[str, ...] = ()
    source_gone: bool | None = None
    decision_id: int | None = None
    at: str | None = None
    reason: str = ""
    evidence: str | None = None
    by: str = "user"

    def compile(self) -> tuple[str, list, str, list]:
        """``(assignments, their parameters, condition over facts f, its parameters)``.
        Raises :class:`ValueError` for an unknown status, a change that selects every
        fact, or a rejection or retraction without its decision."""
        if self.status not in STATUSES:
            raise ValueError(f"no fact status {self.status!r}")
        if not (self.fact_ids or self.drawer_id is not None or self.decided_by is not None):
            raise ValueError("a state change names its facts: fact_ids, drawer_id or decided_by")
        if self.status in ("rejected", "retracted") and self.decision_id is None:
            raise ValueError(f"a {self.status} fact names the decision that {self.status} it")
        sets: list[tuple[str, tuple]] = []
        wheres: list[tuple[str, tuple]] = []

        def add(part: list, sql: str, *values) -> None:
            part.append((sql, values))

        add(sets, "status = ?", self.status)
        add(sets, "decision_id = ?", self.decision_id)
        if self.status in ("live", "planned"):
            add(sets, "invalidated_at = NULL")
            add(sets, "invalidation_reason = NULL")
        elif self.status == "candidate":
            add(sets, "invalidated_at = recorded_at")
            add(sets, "invalidation_reason = ?", CANDIDATE + (f": {self.reason}" if self.reason else ""))
        else:
            if self.at is not None and self.status != "rejected":
                add(sets, "invalidated_at = ?", self.at)
            if self.status == "invalidated":
                add(sets, "invalidation_reason = ?", self.reason)
            else:
                words = REJECTED if self.status == "rejected" else RETRACTED if self.by == "user" else RETRACTED_BY_AGENT
                add(sets, "invalidation_reason = ?",
                    f"{words} (decision #{self.decision_id})" + (f": {self.reason}" if self.reason else ""))
        if self.evidence == "confirmed":
            add(sets, f"evidence = CASE WHEN evidence IN ({_marks(MINED)}) THEN 'confirmed' ELSE evidence END", *MINED)
        elif self.evidence is not None:
            add(sets, "evidence = ?", self.evidence)

        if self.fact_ids:
            add(wheres, "f.id IN (SELECT value FROM json_each(?))", json.dumps(list(self.fact_ids)))
        if self.drawer_id is not None:
            add(wheres, "f.drawer_id = ?", self.drawer_id)
        if self.decided_by is not None:
            add(wheres, "f.decision_id = ?", self.decided_by)
        if self.was:
            add(wheres, f"f.status IN ({_marks(self.was)})", *self.was)
        if self.source_gone is not None:
            gone = (f"substr(f.drawer_id, 1, {len(USER_DRAWER)}) != ?"
                    " AND NOT EXISTS (SELECT 1 FROM drawers d WHERE d.id = f.drawer_id)")
            add(wheres, f"({gone})" if self.source_gone else f"NOT ({gone})", USER_DRAWER)
        return (", ".join(sql for sql, _ in sets), [v for _, vs in sets for v in vs],
                " AND ".join(sql for sql, _ in wheres), [v for _, vs in wheres for v in vs])


def _marks(values) -> str:
    return ",".join("?" * len(values))


def change_state(conn: sqlite3.Connection, change: StateChange) -> list[sqlite3.Row]:
    """Put the facts ``change`` selects in its state; return them (``id``,
    ``subject_id``, ``predicate``), oldest first."""
    assignments, set_params, where, where_params = change.compile()
    rows = conn.execute(f"SELECT f.id, f.subject_id, f.predicate FROM facts f WHERE {where} ORDER BY f.id",
                        where_params).fetchall()
    if rows:
        conn.execute(f"UPDATE facts SET {assignments} WHERE id IN (SELECT value FROM json_each(?))",
                     [*set_params, json.dumps([r["id"] for r in rows])])
    return rows


#: The rule name under which ``palace review --all-from`` finds every fact held near
#: instruction-like text (:func:`hold_for_review`, :data:`NEAR_INSTRUCTION_REASON`).
NEAR_INSTRUCTION = "near-instruction"
#: How the reason of such a fact starts, after :data:`CANDIDATE` and ": ".
NEAR_INSTRUCTION_REASON = "near text that instructs"
#: The rule name under which ``palace review --all-from`` finds every reading held for its
#: low confidence (:mod:`palace.nlp.confidence`), whatever rule read it.
LOW_CONFIDENCE = "low-confidence"
#: How the reason of such a fact starts, after :data:`CANDIDATE` and ": " ("confidence
#: 0.45 < 0.6: subject through a pronoun, object type GPE vs expected ORG").
LOW_CONFIDENCE_REASON = "confidence "


def hold_for_review(conn: sqlite3.Connection, fact_ids, reason: str) -> list[sqlite3.Row]:
    """The live (or planned) facts of ``fact_ids``, just read, are held for review:
    candidates whose reason is ``candidate awaiting review: {reason}``. The one path from
    a reading to a candidate — facts near instruction-like text (``reason`` from
    :data:`NEAR_INSTRUCTION_REASON`), a reading too unsure to take as it stands."""
    ids = tuple(fact_ids)
    return change_state(conn, StateChange("candidate", fact_ids=ids, was=("live", "planned"), reason=reason)) \
        if ids else []


def make_candidates(conn: sqlite3.Connection, fact_ids) -> list[sqlite3.Row]:
    """The live facts of ``fact_ids`` become candidates awaiting review."""
    ids = tuple(fact_ids)
    return change_state(conn, StateChange("candidate", fact_ids=ids, was=("live",))) if ids else []


def accept(conn: sqlite3.Connection, fact_ids, decision_id: int) -> list[sqlite3.Row]:
    """The candidates of ``fact_ids`` become live, by the acceptance ``decision_id``; a
    mined one is ``confirmed`` (a user's or an agent's keeps its evidence)."""
    ids = tuple(fact_ids)
    return change_state(conn, StateChange("live", fact_ids=ids, was=("candidate",), decision_id=decision_id,
                                          evidence="confirmed")) if ids else []


def reject(conn: sqlite3.Connection, fact_ids, decision_id: int, note: str = "") -> list[sqlite3.Row]:
    """The candidates of ``fact_ids`` are rejected by ``decision_id`` (``note``: why)."""
    ids = tuple(fact_ids)
    return change_state(conn, StateChange("rejected", fact_ids=ids, was=("candidate",), decision_id=decision_id,
                                          reason=note)) if ids else []


def retract(conn: sqlite3.Connection, fact_ids, decision_id: int, note: str, at: str, *,
            by: str = "user") -> list[sqlite3.Row]:
    """The live facts of ``fact_ids`` are retracted by ``decision_id`` at ``at`` (``note``:
    why; ``by``: ``user`` or ``agent``, who made the decision)."""
    ids = tuple(fact_ids)
    return change_state(conn, StateChange("retracted", fact_ids=ids, was=("live",), decision_id=decision_id, at=at,
                                          reason=note, by=by)) if ids else []


def invalidate(conn: sqlite3.Connection, *, at: str, reason: str, drawer_id: str | None = None,
               fact_ids=()) -> list[sqlite3.Row]:
    """The live (and planned) facts read in ``drawer_id``, or those of ``fact_ids``, are
    invalidated at ``at`` for ``reason`` (their text left the notes; history keeps them)."""
    done = []
    if drawer_id is not None:
        done += change_state(conn, StateChange("invalidated", drawer_id=drawer_id, was=("live", "planned"), at=at,
                                               reason=reason))
    if fact_ids:
        done += change_state(conn, StateChange("invalidated", fact_ids=tuple(fact_ids), was=("live", "planned"), at=at,
                                               reason=reason))
    return done


def withdraw(conn: sqlite3.Connection, decision_id: int, at: str) -> list[sqlite3.Row]:
    """The undo of the fact decision ``decision_id`` that added a fact: the fact it added,
    if live, is invalidated at ``at`` ("withdrawn by the user")."""
    return invalidate(conn, at=at, reason=f"withdrawn by the user (undo of decision #{decision_id})",
                      drawer_id=f"{USER_DRAWER}{decision_id}")


def reopen(conn: sqlite3.Connection, decision_id: int, action: str, *,
           previous_evidence: str | None = None) -> list[sqlite3.Row]:
    """The undo of the decision ``decision_id`` (``action``: ``retract``, ``reject`` or
    ``accept``), on the facts it put in their state (found by ``decision_id``): a
    retracted fact is live again — unless its text left the notes meanwhile, then it is
    invalidated (:data:`SOURCE_GONE`, at the moment it was retracted); a rejected one is
    a candidate again; an accepted one is a candidate again, with its
    ``previous_evidence`` (default ``stated``). Raises :class:`ValueError` for another
    action."""
    if action == "retract":
        gone = change_state(conn, StateChange("invalidated", decided_by=decision_id, was=("retracted",),
                                              source_gone=True, reason=SOURCE_GONE))
        return sorted(gone + change_state(conn, StateChange("live", decided_by=decision_id, was=("retracted",))),
                      key=lambda r: r["id"])
    if action == "reject":
        return change_state(conn, StateChange("candidate", decided_by=decision_id, was=("rejected",)))
    if action == "accept":
        return change_state(conn, StateChange("candidate", decided_by=decision_id, was=("live",),
                                              evidence=previous_evidence or "stated"))
    raise ValueError(f"a {action!r} decision puts no fact in a state")


def set_evidence(conn: sqlite3.Connection, fact_ids, evidence: str) -> None:
    """What the facts of ``fact_ids`` rest on (a confirmation, or its undo); their state
    stays. ``confirmed`` raises only mined facts (:data:`MINED`)."""
    ids = json.dumps(list(fact_ids))
    if evidence == "confirmed":
        conn.execute(f"UPDATE facts SET evidence = 'confirmed' WHERE id IN (SELECT value FROM json_each(?))"
                     f" AND evidence IN ({_marks(MINED)})", (ids, *MINED))
    else:
        conn.execute("UPDATE facts SET evidence = ? WHERE id IN (SELECT value FROM json_each(?))", (evidence, ids))
