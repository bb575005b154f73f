"""The user's corrections of the graph: facts a person states, retracts or confirms.

Each is a **decision** in ``fact_decisions`` (who, when, what, why), keyed by the fact's
subject and object name keys, predicate and valid start, apart from the facts
themselves, so that:

- an **added** fact (evidence ``user``, or ``agent`` for an agent's) is a fact like a mined
  one: it takes part in supersession (a one-value fact added for a later day closes the
  earlier value) and shows in every view, cited as stated by the user with its recorded
  time and note;
- a **retracted** fact leaves the current view; history keeps it (status ``retracted``,
  the decision in ``decision_id``), with the reason ``retracted by the user (decision
  #N): …``; the value before it comes back;
- a **confirmed** fact gets evidence ``confirmed``;
- every re-mine **replays** the decisions on the facts it reads again
  (:func:`replay`, run with the wing's resolution), as entity merges are replayed;
- every decision can be **undone** (:func:`undo`), and undoing restores what it changed.

**Candidates** are facts stored with their provenance but never current until a person
accepts them (``palace review``): an agent's facts and observations (unless
``config.json`` says ``"agents": {"writes": "commit"}``), and the facts mined in a wing
marked ``"trust": "untrusted"`` or by a rule the wing marks low-trust
(``"wings": {"W": {"low_trust_rules": ["title-appos"]}}``). They are stored in the state
``candidate`` (:mod:`palace.store.fact_states`), so no current view, answer or timeline
ever counts them; accepting one makes it live (evidence ``confirmed`` for a
mined one), rejecting one keeps it out with ``rejected by the user (decision #N)``; both
are decisions, replayed on re-mines and reversible. An agent's retraction is a pending
decision until accepted.

Evidence is one field with defined values (:data:`EVIDENCE`), never folded into the
confidence. Every state write goes through :mod:`palace.store.fact_states`, every
decision row through :mod:`palace.store.decisions`; the flows here take the connection
and the predicate registry (and, to mark candidates, the config), never the handle.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import dataclass

from palace.config import Config
from palace.errors import UsageError
from palace.graph.temporal import apply_timelines, recorded_now
from palace.nlp.names import entity_key
from palace.store import decisions as rows
from palace.store import fact_states as states
from palace.store import sqlite as store
from palace.store.entities import close_names, entities_with_name, entity_name, find_entities, home_wing
from palace.store.facts import (FactFilter, FactView, candidates_of_rule, fact_views, fact_with_keys, is_live,
                                live_mined_facts, restatement_ids)
from palace.store.graph import NewFact, entity_id, insert_fact

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


def decisions(conn: sqlite3.Connection, *, include_undone: bool = True) -> list[FactDecision]:
    """Every fact decision, oldest first (without the undone ones unless ``include_undone``)."""
    return [_decision(row) for row in rows.fact_decisions(conn, include_undone=include_undone)]


#: Longest name (a subject, an entity object) a written fact takes, in characters.
MAX_NAME_CHARS = 500
#: Longest free text (a value, an observation, a note, a reason) a written fact takes.
MAX_TEXT_CHARS = 10_000
#: Characters no written name or text may hold: C0 controls but tab, line feed and
#: carriage return, DEL, C1 controls, lone surrogates, U+FFFE and U+FFFF.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def check_written(what: str, value: str, limit: int) -> None:
    """Refuse a written ``value`` (``what`` names it: "the subject", "the note") longer
    than ``limit`` characters or holding a control character: what an agent writes
    (``palace mcp``; an import checks the same, :mod:`palace.ops.import_schema`) is shown
    in cards meant for a prompt. Raises :class:`UsageError`, never echoing the value."""
    if len(value) > limit:
        raise UsageError(f"{what} is {len(value):,} characters long; at most {limit:,}",
                         hint="write a short statement; the note it comes from can hold the rest")
    found = CONTROL.search(value)
    if found:
        raise UsageError(f"{what} holds the control character U+{ord(found.group()):04X} at character "
                         f"{found.start() + 1}", hint="write it without control characters")


def add_fact(conn: sqlite3.Connection, registry: dict, subject: str, predicate: str, obj: str, *,
             valid_from: dt.date | None = None, valid_to: dt.date | None = None, note: str = "",
             wing: str | None = None, by: str = "user", candidate: bool = False, new: bool = False,
             timelines: set | None = None) -> FactDecision:
    """Add the fact ``subject predicate obj`` valid over ``[valid_from, valid_to)``
    (either open; an event without an end holds on its day). ``subject`` and an entity
    ``obj`` are names or aliases; a name the palace does not know is refused with the
    closest known names ("did you mean", of ``wing`` when given), unless ``new``, which
    makes it a new entity of the predicate's type. ``wing`` defaults to the wing that
    mentions the subject most. ``by`` is ``user`` or
    ``agent`` (its evidence); a ``candidate`` awaits review (:func:`review`). The
    predicate ``observation`` takes any free statement (:func:`observe`). ``registry``:
    the predicate registry. ``timelines``: a set that collects the ``(subject id,
    predicate)`` group to recompute, for a caller adding many facts in one transaction
    (an import), instead of recomputing it here. Raises :class:`UsageError` for an
    unknown predicate, a value the predicate does not take, an end before the start, or
    an unknown name without ``new``."""
    spec = OBSERVATION_SPEC if predicate == OBSERVATION else registry.get(predicate)
    if spec is None or predicate == "mentioned_with":
        known = sorted(name for name in registry if name != "mentioned_with")
        raise UsageError(f"no predicate {predicate!r}", hint="predicates: " + ", ".join(known))
    if not subject.strip() or not obj.strip():
        raise UsageError("a fact needs a subject and an object", hint='palace fact add "Bob Okafor" reports_to "Helen Marsh"')
    if by == "agent":  # data from outside: bounded, and no control characters (an import is checked whole)
        check_written("the subject", subject, MAX_NAME_CHARS)
        check_written("the object", obj, MAX_TEXT_CHARS if spec.object == ("VALUE",) else MAX_NAME_CHARS)
        check_written("the note", note, MAX_TEXT_CHARS)
    if valid_from and valid_to and valid_to <= valid_from:
        raise UsageError(f"--to {valid_to} is not after --from {valid_from}", hint="the valid time is [from, to)")
    if spec.kind == "event" and valid_from and not valid_to:
        valid_to = valid_from + dt.timedelta(days=1)
    now = recorded_now()
    with store.transaction(conn):
        cache: dict = {}
        subject_id = _entity(conn, cache, subject, spec.subject, new=new, wing=wing)
        object_id, object_value = (None, " ".join(obj.split())) if spec.object == ("VALUE",) else (
            _entity(conn, cache, obj, spec.object, new=new, wing=wing), None)
        subject_name = entity_name(conn, subject_id)
        object_name = object_value if object_id is None else entity_name(conn, object_id)
        decision_id = rows.insert_fact_decision(conn, rows.NewFactDecision(
            "add", by, subject_name, entity_key(subject_name), predicate, object_name,
            _value_key(object_name, object_id), _iso(valid_from), _iso(valid_to), note, created_at=now))
        sentence = f"{subject_name} {predicate} {object_name}" + (f" — {note}" if note else "")
        fact_id = insert_fact(conn, NewFact(
            subject_id=subject_id, predicate=predicate, object_id=object_id, object_value=object_value,
            valid_from=valid_from, valid_to=valid_to, valid_granularity="day" if valid_from else None,
            recorded_at=now, drawer_id=f"{states.USER_DRAWER}{decision_id}",
            wing=wing or home_wing(conn, subject_id) or "user",
            path=USER_PATH if by == "user" else "(written by an agent)", char_start=0, char_end=0,
            sentence=sentence, extractor=by, confidence=1.0, evidence=by, stated_to=valid_to))
        rows.set_decision_fact(conn, decision_id, fact_id)
        if candidate:
            states.make_candidates(conn, [fact_id])
        elif timelines is not None:
            timelines.add((subject_id, predicate))
        else:
            apply_timelines(conn, [(subject_id, predicate)], registry)
    return _load(conn, decision_id)


#: The predicate of an observation: a free statement about an entity, with valid time.
OBSERVATION = "observation"


def _observation_spec():
    from palace.nlp.registry import Predicate

    return Predicate(OBSERVATION, "many", ("*",), ("VALUE",))


OBSERVATION_SPEC = _observation_spec()


def observe(conn: sqlite3.Connection, registry: dict, entity: str, text: str, *, valid_from: dt.date | None = None,
            by: str = "user", candidate: bool = False, wing: str | None = None, new: bool = False) -> FactDecision:
    """Attach a free statement ("prefers email over phone", "timezone is CET") to
    ``entity``, valid from ``valid_from``: a fact of predicate :data:`OBSERVATION`
    whose value is the text. It shows on the entity's card and can be retracted like
    any fact. An unknown ``entity`` is refused with the closest known names unless
    ``new`` (:func:`add_fact`). Raises :class:`UsageError` for an empty text."""
    if not text.strip():
        raise UsageError("an observation needs a text", hint='palace observe "Alice Chen" "prefers email"')
    return add_fact(conn, registry, entity, OBSERVATION, text, valid_from=valid_from, by=by, candidate=candidate,
                    wing=wing, new=new)


def retract_fact(conn: sqlite3.Connection, registry: dict, fact_id: int, *, reason: str = "", by: str = "user",
                 pending: bool = False) -> FactDecision:
    """Retract the fact ``fact_id``: it leaves the current view (retracted now, with the
    reason) together with its restatements (the same state stated again in other notes,
    shown as one fact: :func:`palace.store.facts.restatement_ids`), history keeps them,
    the value before comes back, and a re-mine that reads it again retracts it again. A
    ``pending`` retraction (an agent's) changes nothing until accepted (:func:`review`).
    Raises :class:`UsageError` for an unknown or no longer live fact."""
    if by == "agent":
        check_written("the reason", reason, MAX_TEXT_CHARS)
    row = _live_fact(conn, fact_id)
    now = recorded_now()
    with store.transaction(conn):
        decision_id = _record(conn, "retract", by, row, reason, now, pending=pending)
        if not pending:
            _apply_retraction(conn, decision_id, [fact_id, *restatement_ids(conn, fact_id)], reason, registry, by)
    return _load(conn, decision_id)


def _apply_retraction(conn, decision_id: int, fact_ids: list[int], reason: str, registry: dict,
                      by: str) -> None:
    done = states.retract(conn, fact_ids, decision_id, reason, recorded_now(), by=by)
    apply_timelines(conn, {(r["subject_id"], r["predicate"]) for r in done}, registry)


def confirm_fact(conn: sqlite3.Connection, fact_id: int, *, by: str = "user") -> FactDecision:
    """Raise a mined fact (``stated`` or ``inferred``) to ``confirmed``; a re-mine that
    reads it again confirms it again. Raises :class:`UsageError` for an unknown,
    no longer live, already confirmed or user-stated fact."""
    row = _live_fact(conn, fact_id)
    if row["evidence"] not in states.MINED:
        raise UsageError(f"fact #{fact_id} is {row['evidence']}, not a mined fact to confirm",
                         hint="confirm a fact whose evidence is stated or inferred")
    now = recorded_now()
    with store.transaction(conn):
        decision_id = _record(conn, "confirm", by, row, "", now, previous=row["evidence"])
        states.set_evidence(conn, [fact_id], "confirmed")
    return _load(conn, decision_id)


def undo(conn: sqlite3.Connection, registry: dict, decision_id: int) -> FactDecision:
    """Undo a fact decision: an added fact is withdrawn (invalidated), a retracted one
    comes back (unless its text left the notes meanwhile), a confirmed one gets its
    evidence back, an accepted or rejected candidate awaits review again; the timelines
    are recomputed. The facts a retraction, rejection or acceptance changed are found by
    the decision (``facts.decision_id``). Raises :class:`UsageError` for an unknown or
    already undone decision."""
    row = rows.fact_decision(conn, decision_id)
    if row is None:
        raise UsageError(f"no fact decision #{decision_id}", hint="palace fact decisions lists them")
    if row["reverted_at"]:
        raise UsageError(f"fact decision #{decision_id} was undone at {row['reverted_at']}")
    now = recorded_now()
    with store.transaction(conn):
        rows.revert_fact_decision(conn, decision_id, now)
        if row["action"] == "add":
            touched = states.withdraw(conn, decision_id, now)
        elif row["action"] == "confirm":
            touched = rows.facts_matching(conn, row, evidence=("confirmed",))
            states.set_evidence(conn, [t["id"] for t in touched], row["previous_evidence"] or "stated")
        else:  # retract: back, but for the statements no longer in the notes; accept, reject: candidates again
            touched = states.reopen(conn, decision_id, row["action"], previous_evidence=row["previous_evidence"])
        apply_timelines(conn, {(t["subject_id"], t["predicate"]) for t in touched}, registry)
    return _load(conn, decision_id)


def replay(conn: sqlite3.Connection, registry: dict) -> int:
    """Apply the retractions, confirmations, acceptances and rejections in force to the
    facts that match them (subject and object name keys, predicate, valid start) and do
    not carry them yet: the facts a re-mine read again (live ones, or candidates for an
    acceptance or a rejection). Inside the caller's transaction. Returns how many facts
    changed."""
    changed = 0
    groups = set()
    for row in rows.decisions_to_replay(conn):
        if row["action"] in ("accept", "reject"):
            found = rows.facts_matching(conn, row, evidence=("stated", "inferred", "user", "agent"), status="candidate")
            if found and row["action"] == "accept":  # a mined fact becomes confirmed; a user's or agent's keeps its own
                states.accept(conn, [f["id"] for f in found], row["id"])
                groups |= {(f["subject_id"], f["predicate"]) for f in found}
            elif found:
                states.reject(conn, [f["id"] for f in found], row["id"], row["note"])
        elif row["action"] == "retract":
            found = rows.facts_matching(conn, row, evidence=EVIDENCE)
            if found:
                states.retract(conn, [f["id"] for f in found], row["id"], row["note"], recorded_now(), by=row["by"])
                groups |= {(f["subject_id"], f["predicate"]) for f in found}
        else:
            found = rows.facts_matching(conn, row, evidence=states.MINED)
            if found:
                states.set_evidence(conn, [f["id"] for f in found], "confirmed")
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


def pending_review(conn: sqlite3.Connection, registry: dict, *, limit: int = 500) -> Review:
    """The candidates and proposals awaiting a decision, oldest first."""
    found = fact_views(conn, FactFilter(candidates=True), registry, limit=limit)
    proposals = [_decision(r) for r in rows.pending_proposals(conn)]
    return Review(tuple(sorted(found, key=lambda f: f.id)), tuple(proposals))


def review(conn: sqlite3.Connection, registry: dict, accept: bool, *, fact_ids: tuple[int, ...] = (),
           proposal_ids: tuple[int, ...] = (), rule: str | None = None, reason: str = "") -> list[FactDecision]:
    """Accept (or reject) candidates by fact id, every candidate a ``rule`` made (the
    part of the extractor after ``/``: ``title-appos``), and proposals by decision id.
    An accepted candidate becomes live (a mined one with evidence ``confirmed``) and
    takes part in supersession; a rejected one stays out with the reason. Each is one
    decision, replayed on re-mines, reversible with :func:`undo`. Raises
    :class:`UsageError` for an id that awaits no review, or when nothing is named."""
    ids = list(fact_ids)
    if rule:
        ids += candidates_of_rule(conn, rule)
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
            if row["status"] != "candidate":
                raise UsageError(f"fact #{fact_id} awaits no review", hint="palace review lists what does")
            decision_id = _record(conn, "accept" if accept else "reject", "user", row, reason, now,
                                  previous=row["evidence"])
            if accept:
                states.accept(conn, [fact_id], decision_id)
                apply_timelines(conn, [(row["subject_id"], row["predicate"])], registry)
            else:
                states.reject(conn, [fact_id], decision_id, reason)
            done.append(decision_id)
        for proposal in proposal_ids:
            row = rows.pending_proposal(conn, proposal)
            if row is None:
                raise UsageError(f"decision #{proposal} is no pending proposal", hint="palace review lists them")
            if accept:
                rows.settle_proposal(conn, proposal)
                targets = [row["fact_id"]] if row["fact_id"] is not None and is_live(conn, row["fact_id"]) \
                    else [f["id"] for f in rows.facts_matching(conn, row, evidence=EVIDENCE)]  # an imported proposal: by its keys
                if not targets:
                    raise UsageError(f"the fact decision #{proposal} proposes to retract is not in this palace",
                                     hint=f"reject it: palace review reject {proposal}")
                for target in targets:
                    _apply_retraction(conn, proposal, [target], row["note"], registry, row["by"])
            else:
                rows.revert_fact_decision(conn, proposal, now)
            done.append(proposal)
    return [_load(conn, d) for d in done]


def mark_candidates(conn: sqlite3.Connection, config: Config, wing: str, registry: dict) -> int:
    """Make candidates of the live mined facts of ``wing`` that its trust settings in
    ``config`` say need review (every one in an untrusted wing; those of low-trust
    rules), and reopen the timelines they had closed. Inside the caller's transaction;
    returns how many."""
    settings = config.wing(wing)
    untrusted, rules = settings.untrusted, settings.low_trust_rules
    if not untrusted and not rules:
        return 0
    found = live_mined_facts(conn, wing, None if untrusted else rules)
    if found:
        states.make_candidates(conn, [f["id"] for f in found])
        apply_timelines(conn, {(f["subject_id"], f["predicate"]) for f in found}, registry)
    return len(found)


# -- helpers -------------------------------------------------------------------------


def _fact(conn, fact_id: int):
    row = fact_with_keys(conn, fact_id)
    if row is None:
        raise UsageError(f"no fact #{fact_id}", hint="palace facts and palace history show facts with their #id")
    return row


def _record(conn, action: str, by: str, fact, note: str, now: str, previous: str | None = None,
            pending: bool = False) -> int:
    return rows.insert_fact_decision(conn, rows.NewFactDecision(
        action, by, fact["subject_name"], fact["subject_key"], fact["predicate"], fact["object_name"],
        fact["object_key"], fact["valid_from"], fact["valid_to"], note, fact["id"], previous, pending, now))


def _live_fact(conn, fact_id: int):
    row = _fact(conn, fact_id)
    if row["status"] != "live":
        raise UsageError(f"fact #{fact_id} was already invalidated at {row['invalidated_at']}: "
                         f"{row['invalidation_reason']}")
    return row


def _entity(conn, cache: dict, name: str, types: tuple[str, ...], *, new: bool, wing: str | None) -> int:
    """The entity ``name`` stands for (most mentioned of a name or alias); else, with
    ``new``, a new one typed as the predicate wants (``CONCEPT`` when it takes any);
    else :class:`UsageError` naming the closest known names (of ``wing`` when given):
    "Dnaa" is a typo of "Dana" far more often than a new person. With ``wing``, a name
    only other wings hold is unknown, as if they did not exist."""
    found = entities_with_name(conn, name, wing=wing)
    if found:
        return found[0]["id"]
    if not new:
        close = close_names(conn, name, wing=wing)
        where = f" in wing {wing!r}" if wing else " in this palace"
        raise UsageError(f"no entity named {name!r}{where}",
                         hint=(f"did you mean: {', '.join(close)}? " if close else "")
                         + "To make it a new entity, pass --new")
    label = next((t for t in types if t not in ("*", "VALUE")), "CONCEPT")
    return entity_id(conn, cache, " ".join(name.split()), label)


def _value_key(name: str, object_id: int | None) -> str:
    return entity_key(name) if object_id is not None else " ".join(name.split()).casefold()


def _iso(day: dt.date | None) -> str | None:
    return day.isoformat() if day else None


def _load(conn, decision_id: int) -> FactDecision:
    return _decision(rows.fact_decision(conn, decision_id))


def _decision(row) -> FactDecision:
    return FactDecision(row["id"], row["action"], row["by"], row["subject"], row["predicate"], row["object"],
                        row["valid_from"], row["valid_to"], row["note"], row["fact_id"], row["created_at"],
                        row["reverted_at"], bool(row["pending"]))
