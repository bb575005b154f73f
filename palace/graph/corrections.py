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

**Candidates** are facts stored with their provenance but never current until a person
accepts them (``palace review``): an agent's facts and observations (unless
``config.json`` says ``"agents": {"writes": "commit"}``), and the facts mined in a wing
marked ``"trust": "untrusted"`` or by a rule the wing marks low-trust
(``"wings": {"W": {"low_trust_rules": ["title-appos"]}}``). They are stored invalidated
with the reason :data:`palace.store.facts.CANDIDATE`, so no current view, answer or
timeline ever counts them; accepting one makes it live (evidence ``confirmed`` for a
mined one), rejecting one keeps it out with ``rejected by the user (decision #N)``; both
are decisions, replayed on re-mines and reversible. An agent's retraction is a pending
decision until accepted.

Evidence is one field with defined values (:data:`EVIDENCE`), never folded into the
confidence.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace.config import Config
from palace.store import sqlite as store
from palace.store.entities import find_entities
from palace.store.facts import CANDIDATE, REJECTED, RETRACTED, FactFilter, FactView, fact_views
from palace.store.graph import NewFact, entity_id, insert_fact
from palace.errors import UsageError
from palace.nlp.names import entity_key
from palace.graph.temporal import apply_timelines, recorded_now

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
    pending: bool = False


def decisions(palace: "Palace", *, include_undone: bool = True) -> list[FactDecision]:
    """Every fact decision, oldest first (without the undone ones unless ``include_undone``)."""
    sql = "SELECT * FROM fact_decisions" + ("" if include_undone else " WHERE reverted_at IS NULL") + " ORDER BY id"
    return [_decision(row) for row in palace.conn.execute(sql)]


def add_fact(palace: "Palace", subject: str, predicate: str, obj: str, *, valid_from: dt.date | None = None,
             valid_to: dt.date | None = None, note: str = "", wing: str | None = None,
             by: str = "user", candidate: bool = False) -> FactDecision:
    """Add the fact ``subject predicate obj`` valid over ``[valid_from, valid_to)``
    (either open; an event without an end holds on its day). ``subject`` and an entity
    ``obj`` are names or aliases (a new name makes a new entity of the predicate's type);
    ``wing`` defaults to the wing that mentions the subject most. ``by`` is ``user`` or
    ``agent`` (its evidence); a ``candidate`` awaits review (:func:`review`). The
    predicate ``observation`` takes any free statement (:func:`observe`). Raises
    :class:`UsageError` for an unknown predicate, a value the predicate does not take, or
    an end before the start."""
    registry = palace.registry
    spec = OBSERVATION_SPEC if predicate == OBSERVATION else registry.get(predicate)
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
        if candidate:
            conn.execute("UPDATE facts SET invalidated_at = recorded_at, invalidation_reason = ? WHERE id = ?",
                         (CANDIDATE, fact_id))
        else:
            apply_timelines(conn, [(subject_id, predicate)], registry)
    return _load(conn, decision_id)


#: The predicate of an observation: a free statement about an entity, with valid time.
OBSERVATION = "observation"


def _observation_spec():
    from palace.nlp.registry import Predicate

    return Predicate(OBSERVATION, "many", ("*",), ("VALUE",))


OBSERVATION_SPEC = _observation_spec()


def observe(palace: "Palace", entity: str, text: str, *, valid_from: dt.date | None = None,
            by: str = "user", candidate: bool = False, wing: str | None = None) -> FactDecision:
    """Attach a free statement ("prefers email over phone", "timezone is CET") to
    ``entity``, valid from ``valid_from``: a fact of predicate :data:`OBSERVATION`
    whose value is the text. It shows on the entity's card and can be retracted like
    any fact. Raises :class:`UsageError` for an empty text."""
    if not text.strip():
        raise UsageError("an observation needs a text", hint='palace observe "Alice Chen" "prefers email"')
    return add_fact(palace, entity, OBSERVATION, text, valid_from=valid_from, by=by, candidate=candidate, wing=wing)


def retract_fact(palace: "Palace", fact_id: int, *, reason: str = "", by: str = "user",
                 pending: bool = False) -> FactDecision:
    """Retract the fact ``fact_id``: it leaves the current view (invalidated now, with
    the reason), history keeps it, the value before it comes back, and a re-mine that
    reads it again retracts it again. A ``pending`` retraction (an agent's) changes
    nothing until accepted (:func:`review`). Raises :class:`UsageError` for an unknown or
    already invalidated fact."""
    conn = palace.conn
    row = _live_fact(conn, fact_id)
    now = recorded_now()
    with store.transaction(conn):
        decision_id = _record(conn, "retract", by, row, reason, now)
        if pending:
            conn.execute("UPDATE fact_decisions SET pending = 1 WHERE id = ?", (decision_id,))
        else:
            _apply_retraction(conn, decision_id, fact_id, reason, palace.registry)
    return _load(conn, decision_id)


def _apply_retraction(conn, decision_id: int, fact_id: int, reason: str, registry: dict) -> None:
    row = conn.execute("SELECT subject_id, predicate FROM facts WHERE id = ?", (fact_id,)).fetchone()
    conn.execute("UPDATE facts SET invalidated_at = ?, invalidation_reason = ? WHERE id = ? AND invalidated_at IS NULL",
                 (recorded_now(), _retracted(decision_id, reason), fact_id))
    apply_timelines(conn, [(row["subject_id"], row["predicate"])], registry)


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
    comes back, a confirmed one gets its evidence back, an accepted or rejected
    candidate awaits review again; the timelines are recomputed.
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
        elif row["action"] == "retract":  # back: the statements still in the notes; older readings stay out
            touched = conn.execute("SELECT id, subject_id, predicate FROM facts WHERE invalidation_reason LIKE ?",
                                   (_retracted(decision_id, "") + "%",)).fetchall()
            conn.execute("UPDATE facts SET invalidation_reason = 'file changed: text no longer there'"
                         " WHERE invalidation_reason LIKE ? AND drawer_id NOT LIKE 'user:%'"
                         " AND drawer_id NOT IN (SELECT id FROM drawers)", (_retracted(decision_id, "") + "%",))
            conn.execute("UPDATE facts SET invalidated_at = NULL, invalidation_reason = NULL"
                         " WHERE invalidation_reason LIKE ?", (_retracted(decision_id, "") + "%",))
        elif row["action"] == "reject":
            touched = conn.execute("SELECT id, subject_id, predicate FROM facts WHERE invalidation_reason LIKE ?",
                                   (_rejected(decision_id, "") + "%",)).fetchall()
            conn.execute("UPDATE facts SET invalidation_reason = ? WHERE invalidation_reason LIKE ?",
                         (CANDIDATE, _rejected(decision_id, "") + "%"))
        elif row["action"] == "accept":  # back to a candidate: the fact it accepted, and where the wing's trust says so
            previous = row["previous_evidence"] or "stated"
            touched = [t for t in _matching(conn, row, evidence=("confirmed", previous))
                       if t["id"] == row["fact_id"] or _needs_review(conn, palace.config, t["id"])]
            conn.execute(f"UPDATE facts SET invalidated_at = recorded_at, invalidation_reason = ?, evidence = ?"
                         f" WHERE id IN ({','.join('?' * len(touched))})",
                         (CANDIDATE, previous, *[t["id"] for t in touched]))
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
    for row in conn.execute("SELECT * FROM fact_decisions WHERE reverted_at IS NULL AND pending = 0"
                            " AND action != 'add' ORDER BY id").fetchall():
        if row["action"] in ("accept", "reject"):
            found = _matching(conn, row, evidence=("stated", "inferred", "user", "agent"), candidates=True)
            if found and row["action"] == "accept":  # a mined fact becomes confirmed; a user's or agent's keeps its own
                conn.execute(f"UPDATE facts SET invalidated_at = NULL, invalidation_reason = NULL,"
                             f" evidence = CASE WHEN evidence IN ('stated', 'inferred') THEN 'confirmed' ELSE evidence END"
                             f" WHERE id IN ({','.join('?' * len(found))})", [f["id"] for f in found])
                groups |= {(f["subject_id"], f["predicate"]) for f in found}
            elif found:
                conn.execute(f"UPDATE facts SET invalidation_reason = ? WHERE id IN ({','.join('?' * len(found))})",
                             (_rejected(row["id"], row["note"]), *[f["id"] for f in found]))
        elif row["action"] == "retract":
            found = _matching(conn, row, evidence=EVIDENCE)
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


# -- candidates and review ----------------------------------------------------------------


@dataclass(frozen=True)
class Review:
    """What awaits review: ``candidates`` (facts, with provenance: rule, note, evidence)
    and ``proposals`` (an agent's pending retractions)."""

    candidates: tuple[FactView, ...]
    proposals: tuple[FactDecision, ...]


def pending_review(palace: "Palace", *, limit: int = 500) -> Review:
    """The candidates and proposals awaiting a decision, oldest first."""
    found = fact_views(palace.conn, FactFilter(candidates=True), palace.registry, limit=limit)
    proposals = [_decision(r) for r in palace.conn.execute(
        "SELECT * FROM fact_decisions WHERE pending = 1 AND reverted_at IS NULL ORDER BY id")]
    return Review(tuple(sorted(found, key=lambda f: f.id)), tuple(proposals))


def review(palace: "Palace", accept: bool, *, fact_ids: tuple[int, ...] = (), proposal_ids: tuple[int, ...] = (),
           rule: str | None = None, reason: str = "") -> list[FactDecision]:
    """Accept (or reject) candidates by fact id, every candidate a ``rule`` made (the
    part of the extractor after ``/``: ``title-appos``), and proposals by decision id.
    An accepted candidate becomes current (a mined one with evidence ``confirmed``) and
    takes part in supersession; a rejected one stays out with the reason. Each is one
    decision, replayed on re-mines, reversible with :func:`undo`. Raises
    :class:`UsageError` for an id that awaits no review, or when nothing is named."""
    conn = palace.conn
    ids = list(fact_ids)
    if rule:
        ids += [r[0] for r in conn.execute(
            "SELECT id FROM facts WHERE invalidation_reason = ? AND substr(extractor, instr(extractor, '/') + 1) = ?"
            " ORDER BY id", (CANDIDATE, rule))]
        if not ids and not proposal_ids:
            raise UsageError(f"no candidate awaits review from the rule {rule!r}", hint="palace review lists them")
    if not ids and not proposal_ids:
        raise UsageError("name candidates (fact ids), proposals (decision ids) or --all-from RULE",
                         hint="palace review lists what awaits a decision")
    done = []
    now = recorded_now()
    with store.transaction(conn):
        for fact_id in dict.fromkeys(ids):
            row = _fact(conn, fact_id)
            if row["invalidation_reason"] != CANDIDATE:
                raise UsageError(f"fact #{fact_id} awaits no review", hint="palace review lists what does")
            decision_id = _record(conn, "accept" if accept else "reject", "user", row, reason, now,
                                  previous=row["evidence"])
            if accept:
                mined = row["evidence"] in ("stated", "inferred")
                conn.execute("UPDATE facts SET invalidated_at = NULL, invalidation_reason = NULL, evidence = ?"
                             " WHERE id = ?", ("confirmed" if mined else row["evidence"], fact_id))
                apply_timelines(conn, [(row["subject_id"], row["predicate"])], palace.registry)
            else:
                conn.execute("UPDATE facts SET invalidation_reason = ? WHERE id = ?",
                             (_rejected(decision_id, reason), fact_id))
            done.append(decision_id)
        for proposal in proposal_ids:
            row = conn.execute("SELECT * FROM fact_decisions WHERE id = ? AND pending = 1 AND reverted_at IS NULL",
                               (proposal,)).fetchone()
            if row is None:
                raise UsageError(f"decision #{proposal} is no pending proposal", hint="palace review lists them")
            if accept:
                conn.execute("UPDATE fact_decisions SET pending = 0 WHERE id = ?", (proposal,))
                targets = [row["fact_id"]] if row["fact_id"] is not None and conn.execute(
                    "SELECT 1 FROM facts WHERE id = ? AND invalidated_at IS NULL", (row["fact_id"],)).fetchone() \
                    else [f["id"] for f in _matching(conn, row, evidence=EVIDENCE)]  # an imported proposal: by its keys
                if not targets:
                    raise UsageError(f"the fact decision #{proposal} proposes to retract is not in this palace",
                                     hint=f"reject it: palace review reject {proposal}")
                for target in targets:
                    _apply_retraction(conn, proposal, target, row["note"], palace.registry)
            else:
                conn.execute("UPDATE fact_decisions SET reverted_at = ? WHERE id = ?", (now, proposal))
            done.append(proposal)
    return [_load(conn, d) for d in done]


def _needs_review(conn, config: Config, fact_id: int) -> bool:
    """Whether the wing's trust settings make a mined fact a candidate."""
    row = conn.execute("SELECT wing, extractor, evidence FROM facts WHERE id = ?", (fact_id,)).fetchone()
    if row is None or row["evidence"] in ("user", "agent"):
        return False
    settings = config.wing(row["wing"])
    return settings.untrusted or row["extractor"].split("/", 1)[-1] in settings.low_trust_rules


def mark_candidates(conn, config: Config, wing: str, registry: dict) -> int:
    """Make candidates of the live mined facts of ``wing`` that its trust settings in
    ``config`` say need review (every one in an untrusted wing; those of low-trust
    rules), and reopen the timelines they had closed. Inside the caller's transaction;
    returns how many."""
    settings = config.wing(wing)
    untrusted, rules = settings.untrusted, settings.low_trust_rules
    if not untrusted and not rules:
        return 0
    sql = ("SELECT id, subject_id, predicate FROM facts WHERE wing = ? AND invalidated_at IS NULL"
           " AND evidence IN ('stated', 'inferred') AND predicate != 'mentioned_with'")
    params: list = [wing]
    if not untrusted:
        sql += f" AND substr(extractor, instr(extractor, '/') + 1) IN ({','.join('?' * len(rules))})"
        params += sorted(rules)
    found = conn.execute(sql, params).fetchall()
    if found:
        conn.execute(f"UPDATE facts SET invalidated_at = recorded_at, invalidation_reason = ?"
                     f" WHERE id IN ({','.join('?' * len(found))})", (CANDIDATE, *[f["id"] for f in found]))
        apply_timelines(conn, {(f["subject_id"], f["predicate"]) for f in found}, registry)
    return len(found)


# -- helpers -------------------------------------------------------------------------


def _fact(conn, fact_id: int):
    row = conn.execute(
        "SELECT f.*, s.name AS subject_name, s.key AS subject_key, coalesce(o.name, f.object_value) AS object_name,"
        " coalesce(o.key, lower(trim(f.object_value))) AS object_key FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id WHERE f.id = ?",
        (fact_id,)).fetchone()
    if row is None:
        raise UsageError(f"no fact #{fact_id}", hint="palace facts and palace history show facts with their #id")
    return row


def _matching(conn, decision, *, evidence: tuple[str, ...], candidates: bool = False) -> list:
    """Live facts (or candidates) with the decision's keys and one of ``evidence``."""
    alive = "f.invalidation_reason = ?" if candidates else "f.invalidated_at IS NULL"
    return conn.execute(
        f"SELECT f.id, f.subject_id, f.predicate FROM facts f JOIN entities s ON s.id = f.subject_id"
        f" LEFT JOIN entities o ON o.id = f.object_id WHERE {alive} AND s.key = ?"
        f" AND f.predicate = ? AND coalesce(o.key, lower(trim(f.object_value))) = ? AND f.valid_from IS ?"
        f" AND f.evidence IN ({','.join('?' * len(evidence))})",
        ((CANDIDATE,) if candidates else ()) + (decision["subject_key"], decision["predicate"],
                                                decision["object_key"], decision["valid_from"], *evidence),
    ).fetchall()


def _record(conn, action: str, by: str, fact, note: str, now: str, previous: str | None = None) -> int:
    return conn.execute(
        "INSERT INTO fact_decisions (action, by, subject, subject_key, predicate, object, object_key, valid_from,"
        " valid_to, note, fact_id, previous_evidence, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (action, by, fact["subject_name"], fact["subject_key"], fact["predicate"], fact["object_name"],
         fact["object_key"], fact["valid_from"], fact["valid_to"], note, fact["id"], previous, now)).lastrowid


def _live_fact(conn, fact_id: int):
    row = _fact(conn, fact_id)
    if row["invalidated_at"]:
        raise UsageError(f"fact #{fact_id} was already invalidated at {row['invalidated_at']}: "
                         f"{row['invalidation_reason']}")
    return row


def _rejected(decision_id: int, reason: str) -> str:
    return f"{REJECTED} (decision #{decision_id})" + (f": {reason}" if reason else "")


def _retracted(decision_id: int, reason: str) -> str:
    return f"{RETRACTED} (decision #{decision_id})" + (f": {reason}" if reason else "")


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
                        row["reverted_at"], bool(row["pending"]))
