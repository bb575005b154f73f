"""Reading facts: :class:`FactFilter` says which, :func:`fact_views` returns them as
:class:`FactView`. The one place that knows what "a fact holds on a day" means in SQL.

Valid time is half-open ``[valid_from, valid_to)`` (ISO days); recorded time is
``recorded_at``/``invalidated_at`` (ISO moments). See :mod:`palace.graph.temporal` for how
one-value facts are closed (``superseded_by``).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass

from palace.nlp.markup import readable

__all__ = ["FactFilter", "FactView", "fact_views", "count_facts", "any_fact", "fact_with_keys", "is_live", "fact_wing",
           "candidates_of_rule", "live_mined_facts", "fact_values", "entity_edges", "cooccurrences",
           "read_across_table_cells", "decided_against"]


@dataclass(frozen=True)
class FactView:
    """One fact as shown to users. ``state`` is, for a live fact, ``current``,
    ``superseded`` (closed by a later value; ``superseded_by`` names it) or ``ended`` (a
    state whose valid time is over: a note ended or bounded it); else its status
    (:mod:`palace.store.fact_states`): ``candidate``, ``rejected``, ``retracted``,
    ``invalidated`` (its source text left the palace at ``invalidated_at``, for
    ``invalidation_reason``) or ``planned``. Valid time is half-open
    ``[valid_from, valid_to)``; ``path``, ``line`` (1-based, None once the drawer is gone)
    and ``sentence`` cite where it was read (``drawer_id`` names its drawer, which may be gone). ``conflicts_with``: live facts of the same
    one-value predicate and subject, from the same day, with another value (neither wins)."""

    id: int
    subject: str
    predicate: str
    object: str
    valid_from: str | None
    valid_to: str | None
    valid_granularity: str | None
    recorded_at: str
    invalidated_at: str | None
    invalidation_reason: str | None
    superseded_by: int | None
    state: str
    wing: str
    path: str
    line: int | None
    sentence: str
    extractor: str
    confidence: float
    evidence: str
    conflicts_with: tuple[int, ...] = ()
    drawer_id: str = ""
    #: for a planned fact, what became of the plan: "planned for D" (D not come yet),
    #: "planned for D, not confirmed" (D gone by and no note states the fact), "planned
    #: for D, confirmed by #N" (a live fact of the same subject, predicate and value,
    #: begun since the plan was written); "planned, no day given" for a plan with no valid
    #: time (mining keeps none such; a user's or an import's may)
    plan: str = ""
    #: the live fact that confirms a plan (None: not confirmed, or no plan)
    confirmed_by: int | None = None
    #: other notes that state the same state again (``path:line``): ``palace facts`` shows
    #: a restated fact once, citing them (:func:`palace.graph.facts.restatements`)
    restated_in: tuple[str, ...] = ()


#: SQL condition of a fact read in a note with no date of its own that a dated note has
#: since contradicted (superseded, with no valid time): valid on no day.
UNDATED_SUPERSEDED = "(f.valid_from IS NULL AND f.valid_to IS NULL AND f.superseded_by IS NOT NULL)"


#: The ``valid_granularity`` of a fact whose start its note does not give and must not
#: be guessed (a design record's status with no day for it: never its creation date).
START_UNKNOWN = "unknown"
#: SQL condition (one parameter: a day) of such a fact asked of a day before the palace
#: learned it: it holds now, and says nothing of a past day.
START_UNKNOWN_BEFORE = (f"(f.valid_from IS NULL AND f.valid_granularity = '{START_UNKNOWN}'"
                        " AND substr(f.recorded_at, 1, 10) > ?)")


#: SQL condition (one parameter: a day) of a fact with no start ("instead of Priya": it
#: ended, from an unknown start) whose value the notes state with a start only after the
#: day: nothing says it held then ("who did Bob report to" on a day before any note).
NOT_BEGUN_BY = (
    "(f.valid_from IS NULL AND EXISTS (SELECT 1 FROM facts g WHERE g.subject_id = f.subject_id"
    " AND g.predicate = f.predicate AND g.object_id IS f.object_id AND g.object_value IS f.object_value"
    " AND g.status = 'live' AND g.valid_from IS NOT NULL)"
    " AND NOT EXISTS (SELECT 1 FROM facts g WHERE g.subject_id = f.subject_id AND g.predicate = f.predicate"
    " AND g.object_id IS f.object_id AND g.object_value IS f.object_value AND g.status = 'live'"
    " AND g.valid_from <= ?))"
)


def _holds_on(registry: dict, day: dt.date) -> tuple[str, list]:
    """The SQL condition (and its parameters) of a fact that still holds on ``day``: live
    (:mod:`palace.store.fact_states`: no candidate, rejected, retracted, invalidated or
    planned fact), not superseded, and — for a state — begun and not ended by then (a state
    a note ended, "stepped down as lead", or an interval it bounded, "until 2010"; "starts
    at Feedzai in May", read in April, is not current yet). Events and
    co-occurrences (a sentence naming two entities, dated by it) stay on record. One place
    for what "current" means."""
    events = sorted({name for name, spec in registry.items() if spec.kind == "event"} | {"mentioned_with"})
    marks = ",".join("?" * len(events)) or "''"
    return (f"f.status = 'live' AND f.superseded_by IS NULL"
            f" AND (f.valid_to IS NULL OR f.valid_to > ? OR f.predicate IN ({marks}))"
            f" AND (f.valid_from IS NULL OR f.valid_from <= ? OR f.predicate IN ({marks}))"
            f" AND (f.object_id IS NOT NULL OR f.object_value IS NOT NULL)",
            [day.isoformat(), *events, day.isoformat(), *events])


def _events(registry: dict) -> list[str]:
    return sorted(name for name, spec in registry.items() if spec.kind == "event")


def _marks(values) -> str:
    """``?`` placeholders for ``values``; for none, a value no column holds (so that
    ``IN`` is false and ``NOT IN`` true, as for an empty set: ``NOT IN (NULL)`` is never true)."""
    return ",".join("?" * len(values)) or "''"


@dataclass(frozen=True)
class FactFilter:
    """Which facts to read; every field set narrows the selection (they are ANDed), and
    ``any_of`` adds one condition met by any of its filters.

    Days are :class:`datetime.date`; moments are ISO strings (``2024-06-01T12:00:00``;
    for ``known_at`` a bare day means its last second).

    - ``entity_ids`` / ``value``: about these entities (subject or object) or this literal
      value (case-insensitive object value); both set, either matches.
    - ``fact_ids``, ``predicate``, ``wing``, ``room``: what they say.
    - ``typed_only``: leave out ``mentioned_with`` (a co-occurrence, not a statement).
    - ``kind``: ``"state"`` or ``"event"`` (by the registry).
    - ``holds_on``: current on that day: live, not superseded, and — a state —
      begun and not ended by then (an ending with no value never holds). Events and
      co-occurrences stay on record.
    - ``valid_on``: true in the world on that day (``as of``): begun, not ended, names a
      value, and not an undated fact a dated one contradicted, nor an ending whose value
      the notes only state later, nor a fact of unknown start (:data:`START_UNKNOWN`)
      asked of a day before the palace recorded it.
    - ``known_at``: what the palace held at that moment (recorded, not yet invalidated).
    - ``live``: in the state ``live`` (:mod:`palace.store.fact_states`); ``unsuperseded``:
      not superseded.
    - ``overlaps``: valid at some time in ``[start, end)``.
    - ``begun_by`` / ``not_ended_by`` / ``ended_by`` / ``begins_after``: the valid start
      is on or before, the valid end after, on or before, the start after that day (a
      missing start counts as begun).
    - ``drop_undated_superseded``: leave out an undated fact a dated one contradicted
      (valid on no day).
    - ``changed_in``: began, or (a state) ended, in ``[start, end)`` of valid time.
    - ``changed_since``: learned, invalidated or superseded after that moment (recorded time).
    - ``candidates``: candidates awaiting review (the state ``candidate``).
    - ``statuses``: in one of these states (:mod:`palace.store.fact_states`: ``live``,
      ``planned``, ``candidate``…).
    - ``not_wings``: read in none of these wings (a map leaves out the private ones).
    """

    entity_ids: tuple[int, ...] = ()
    value: str | None = None
    fact_ids: tuple[int, ...] = ()
    predicate: str | None = None
    typed_only: bool = False
    kind: str | None = None
    wing: str | None = None
    room: str | None = None
    holds_on: dt.date | None = None
    valid_on: dt.date | None = None
    known_at: str | None = None
    live: bool = False
    unsuperseded: bool = False
    overlaps: tuple[dt.date, dt.date] | None = None
    begun_by: dt.date | None = None
    not_ended_by: dt.date | None = None
    ended_by: dt.date | None = None
    begins_after: dt.date | None = None
    drop_undated_superseded: bool = False
    changed_in: tuple[dt.date, dt.date] | None = None
    changed_since: str | None = None
    candidates: bool = False
    statuses: tuple[str, ...] = ()
    not_wings: tuple[str, ...] = ()
    any_of: tuple["FactFilter", ...] = ()

    def where(self, registry: dict) -> tuple[str, list]:
        """The SQL condition over ``facts f`` and its parameters."""
        clauses: list[str] = []
        params: list = []

        def add(sql: str, *values) -> None:
            clauses.append(sql)
            params.extend(values)

        ids = list(self.entity_ids)
        if ids and self.value is not None:
            add(f"(f.subject_id IN ({_marks(ids)}) OR f.object_id IN ({_marks(ids)}) OR lower(f.object_value) = ?)",
                *ids, *ids, self.value.casefold())
        elif ids:
            add(f"(f.subject_id IN ({_marks(ids)}) OR f.object_id IN ({_marks(ids)}))", *ids, *ids)
        elif self.value is not None:
            add("lower(f.object_value) = ?", self.value.casefold())
        if self.fact_ids:
            add(f"f.id IN ({_marks(self.fact_ids)})", *self.fact_ids)
        if self.predicate:
            add("f.predicate = ?", self.predicate)
        if self.typed_only:
            add("f.predicate != 'mentioned_with'")
        if self.kind:
            events = _events(registry)
            add(f"f.predicate {'' if self.kind == 'event' else 'NOT '}IN ({_marks(events)})", *events)
        if self.wing:
            add("f.wing = ?", self.wing)
        if self.room:
            add("EXISTS (SELECT 1 FROM files r WHERE r.wing = f.wing AND r.path = f.path AND r.room = ?)", self.room)
        if self.holds_on:
            add(*_split(_holds_on(registry, self.holds_on)))
        if self.valid_on:
            day = self.valid_on.isoformat()
            add("(f.valid_from IS NULL OR f.valid_from <= ?) AND (f.valid_to IS NULL OR f.valid_to > ?)"
                f" AND (f.object_id IS NOT NULL OR f.object_value IS NOT NULL) AND NOT {UNDATED_SUPERSEDED}"
                f" AND NOT {NOT_BEGUN_BY} AND NOT {START_UNKNOWN_BEFORE}", day, day, day, day)
        if self.known_at:
            moment = self.known_at if "T" in self.known_at else self.known_at + "T23:59:59"
            add("f.recorded_at <= ? AND (f.invalidated_at IS NULL OR f.invalidated_at > ?)", moment, moment)
        if self.candidates:
            add("f.status = 'candidate'")
        if self.live:
            add("f.status = 'live'")
        if self.unsuperseded:
            add("f.superseded_by IS NULL")
        if self.statuses:
            add(f"f.status IN ({_marks(self.statuses)})", *self.statuses)
        if self.not_wings:
            add(f"f.wing NOT IN ({_marks(self.not_wings)})", *self.not_wings)
        if self.overlaps:
            start, end = self.overlaps
            add("(f.valid_from IS NULL OR f.valid_from < ?) AND (f.valid_to IS NULL OR f.valid_to > ?)",
                end.isoformat(), start.isoformat())
        if self.begun_by:
            add("(f.valid_from IS NULL OR f.valid_from <= ?)", self.begun_by.isoformat())
        if self.not_ended_by:
            add("(f.valid_to IS NULL OR f.valid_to > ?)", self.not_ended_by.isoformat())
        if self.ended_by:
            add("f.valid_to <= ?", self.ended_by.isoformat())
        if self.begins_after:
            add("f.valid_from > ?", self.begins_after.isoformat())
        if self.drop_undated_superseded:
            add(f"NOT {UNDATED_SUPERSEDED}")
        if self.changed_in:
            s, e = (d.isoformat() for d in self.changed_in)
            events = _events(registry)
            add(f"((f.valid_from >= ? AND f.valid_from < ?) OR (f.valid_to >= ? AND f.valid_to < ?"
                f" AND f.predicate NOT IN ({_marks(events)})))", s, e, s, e, *events)
        if self.changed_since is not None:
            c = self.changed_since
            add("(f.recorded_at > ? OR f.invalidated_at > ? OR (f.superseded_by IS NOT NULL AND f.recorded_at <= ?"
                " AND (SELECT n.recorded_at FROM facts n WHERE n.id = f.superseded_by) > ?))", c, c, c, c)
        if self.any_of:
            parts = [alt.where(registry) for alt in self.any_of]
            add("(" + " OR ".join(f"({sql})" for sql, _ in parts) + ")", *(p for _, ps in parts for p in ps))
        return " AND ".join(clauses) or "1", params


def _split(condition: tuple[str, list]) -> tuple:
    sql, params = condition
    return (sql, *params)


def any_fact(conn: sqlite3.Connection, wanted: FactFilter, registry: dict) -> bool:
    """Whether ``wanted`` selects at least one fact (stops at the first)."""
    where, params = wanted.where(registry)
    return conn.execute(f"SELECT 1 FROM facts f WHERE {where} LIMIT 1", params).fetchone() is not None


def count_facts(conn: sqlite3.Connection, wanted: FactFilter, registry: dict) -> int:
    """How many facts ``wanted`` selects."""
    where, params = wanted.where(registry)
    return conn.execute(f"SELECT count(*) FROM facts f WHERE {where}", params).fetchone()[0]


def _ended(row, registry: dict) -> bool:
    """A state whose valid time is over today: a note ended it ("stepped down"), bounded
    it ("until 2010") or it is an ending that names no value ("Ines retired")."""
    spec = registry.get(row["predicate"])
    if spec is None or spec.kind != "state" or row["predicate"] == "mentioned_with":
        return False
    if row["object_id"] is None and row["object_value"] is None:
        return True
    return row["valid_to"] is not None and row["valid_to"] <= dt.date.today().isoformat()


def fact_views(conn: sqlite3.Connection, wanted: FactFilter, registry: dict, *, limit: int = 500,
               newest_first: bool = False, undated_last: bool = False,
               today: dt.date | None = None) -> tuple[FactView, ...]:
    """The facts ``wanted`` selects, as :class:`FactView`, ordered by valid time, then
    recorded time (``newest_first``: the latest recorded first), at most ``limit``; with
    ``undated_last`` the facts with no valid start come after the dated ones (else
    before). ``registry`` (``{name: Predicate}``) says which predicates are events and
    which take one value (for ``conflicts_with``). ``today`` (default: the real today)
    is the day a plan's "not confirmed" is decided on: a question's ``--now``."""
    where, params = wanted.where(registry)
    order = "f.recorded_at DESC, f.id DESC" if newest_first else "f.valid_from, f.recorded_at, f.id"
    if undated_last and not newest_first:
        order = "f.valid_from IS NULL, " + order
    rows = conn.execute(
        "SELECT f.*, s.name AS subject_name, coalesce(o.name, f.object_value) AS object_name,"
        " d.line_start + length(substr(d.text, 1, f.char_start)) - length(replace(substr(d.text, 1, f.char_start),"
        " char(10), '')) AS line FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
        " LEFT JOIN drawers d ON d.id = f.drawer_id"
        f" WHERE {where} ORDER BY {order} LIMIT ?",
        (*params, limit),
    ).fetchall()
    conflicts: dict[int, tuple[int, ...]] = {}
    for r in rows:
        spec = registry.get(r["predicate"])
        if spec is None or spec.cardinality != "one" or r["status"] != "live" or r["valid_from"] is None:
            continue
        rivals = conn.execute(
            "SELECT c.id FROM facts c LEFT JOIN entities co ON co.id = c.object_id, facts f"
            " LEFT JOIN entities fo ON fo.id = f.object_id WHERE f.id = ? AND c.subject_id = f.subject_id"
            " AND c.predicate = f.predicate AND c.valid_from = f.valid_from AND c.status = 'live' AND c.id != f.id"
            " AND coalesce(co.key, lower(c.object_value)) IS NOT coalesce(fo.key, lower(f.object_value)) ORDER BY c.id",
            (r["id"],),
        ).fetchall()
        if rivals:
            conflicts[r["id"]] = tuple(x[0] for x in rivals)
    plans = {r["id"]: _plan(conn, r, today or dt.date.today()) for r in rows if r["status"] == "planned"}
    return tuple(
        FactView(
            id=r["id"], subject=r["subject_name"], predicate=r["predicate"], object=r["object_name"] or "",
            valid_from=r["valid_from"], valid_to=r["valid_to"], valid_granularity=r["valid_granularity"],
            recorded_at=r["recorded_at"], invalidated_at=r["invalidated_at"],
            invalidation_reason=r["invalidation_reason"], superseded_by=r["superseded_by"],
            state=r["status"] if r["status"] != "live" else "superseded" if r["superseded_by"] else
            "ended" if _ended(r, registry) else "current",
            wing=r["wing"], path=r["path"], line=r["line"], sentence=readable(r["sentence"] or ""),
            extractor=r["extractor"],
            confidence=r["confidence"], evidence=r["evidence"], conflicts_with=conflicts.get(r["id"], ()),
            drawer_id=r["drawer_id"], plan=plans.get(r["id"], ("", None))[0],
            confirmed_by=plans.get(r["id"], ("", None))[1],
        )
        for r in rows
    )


def _plan(conn: sqlite3.Connection, row, today: dt.date) -> tuple[str, int | None]:
    """``(words, confirming fact id or None)`` of the planned fact ``row`` (see
    :attr:`FactView.plan`): confirmed by the earliest live fact of its subject, predicate
    and value (by key) whose valid start is on or after the day the plan was written
    (its drawer's day; any dated start once the drawer is gone); ``today`` decides
    between "planned for D" and "not confirmed"."""
    found = conn.execute(
        "SELECT c.id FROM facts c LEFT JOIN entities co ON co.id = c.object_id, facts f"
        " LEFT JOIN entities fo ON fo.id = f.object_id WHERE f.id = ? AND c.subject_id = f.subject_id"
        " AND c.predicate = f.predicate AND c.status = 'live' AND c.valid_from IS NOT NULL"
        " AND coalesce(co.key, lower(c.object_value)) IS coalesce(fo.key, lower(f.object_value))"
        " AND c.valid_from >= coalesce((SELECT substr(d.date_start, 1, 10) FROM drawers d WHERE d.id = f.drawer_id), '')"
        " ORDER BY c.valid_from, c.id LIMIT 1", (row["id"],)).fetchone()
    day = row["valid_from"]
    words = f"planned for {day}" if day else "planned, no day given"
    if found is not None:
        return f"{words}, confirmed by #{found[0]}", found[0]
    if day and day <= today.isoformat():
        words += ", not confirmed"
    return words, None


# -- single facts and small reads of the graph flows -----------------------------------


def fact_with_keys(conn: sqlite3.Connection, fact_id: int) -> sqlite3.Row | None:
    """The fact of that id (every column) with its ``subject_name``, ``subject_key``,
    ``object_name`` (entity name or literal) and ``object_key`` (the keys a fact decision
    is recorded by), or None."""
    return conn.execute(
        "SELECT f.*, s.name AS subject_name, s.key AS subject_key, coalesce(o.name, f.object_value) AS object_name,"
        " coalesce(o.key, lower(trim(f.object_value))) AS object_key FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id WHERE f.id = ?",
        (fact_id,)).fetchone()


def restatement_ids(conn: sqlite3.Connection, fact_id: int) -> list[int]:
    """The other live, unsuperseded facts that state the same state as ``fact_id`` again:
    same subject, predicate, value (entity or literal, case folded) and valid end
    (:func:`palace.graph.facts.restatements` shows them as one), in id order."""
    return [r[0] for r in conn.execute(
        "SELECT c.id FROM facts c LEFT JOIN entities co ON co.id = c.object_id, facts f"
        " LEFT JOIN entities fo ON fo.id = f.object_id WHERE f.id = ? AND c.id != f.id AND c.subject_id = f.subject_id"
        " AND c.predicate = f.predicate AND c.status = 'live' AND c.superseded_by IS NULL"
        " AND c.valid_to IS f.valid_to"
        " AND coalesce(co.key, lower(trim(c.object_value))) IS coalesce(fo.key, lower(trim(f.object_value)))"
        " ORDER BY c.id", (fact_id,))]


def is_live(conn: sqlite3.Connection, fact_id: int) -> bool:
    """Whether the fact of that id exists and is live."""
    return conn.execute("SELECT 1 FROM facts WHERE id = ? AND status = 'live'", (fact_id,)).fetchone() is not None


def fact_wing(conn: sqlite3.Connection, fact_id: int) -> str | None:
    """The wing a fact was read (or stated) in; None for an unknown fact."""
    row = conn.execute("SELECT wing FROM facts WHERE id = ?", (fact_id,)).fetchone()
    return row[0] if row else None


def candidates_of_rule(conn: sqlite3.Connection, rule: str) -> list[int]:
    """The ids of the candidates a rule made (the part of the extractor after ``/``:
    ``title-appos``), oldest first; ``near-instruction``: those held near
    instruction-like text, whatever rule read them
    (:func:`palace.store.fact_states.hold_for_review`); ``low-confidence``: those held
    for a confidence under the bar (:mod:`palace.nlp.confidence`)."""
    from palace.store.fact_states import (
        CANDIDATE, LOW_CONFIDENCE, LOW_CONFIDENCE_REASON, NEAR_INSTRUCTION, NEAR_INSTRUCTION_REASON)

    held = {NEAR_INSTRUCTION: NEAR_INSTRUCTION_REASON, LOW_CONFIDENCE: LOW_CONFIDENCE_REASON}.get(rule)
    if held is not None:
        return [r[0] for r in conn.execute(
            "SELECT id FROM facts WHERE status = 'candidate' AND substr(invalidation_reason, 1, ?) = ? ORDER BY id",
            (len(CANDIDATE) + 2 + len(held), f"{CANDIDATE}: {held}"))]
    return [r[0] for r in conn.execute(
        "SELECT id FROM facts WHERE status = 'candidate' AND substr(extractor, instr(extractor, '/') + 1) = ?"
        " ORDER BY id", (rule,))]


def live_mined_facts(conn: sqlite3.Connection, wing: str, rules=None) -> list[sqlite3.Row]:
    """The live mined facts (evidence ``stated`` or ``inferred``; ``mentioned_with`` left
    out) of ``wing`` — all, or those of ``rules`` (extractor names after ``/``) — as rows
    of ``(id, subject_id, predicate)``."""
    sql = ("SELECT id, subject_id, predicate FROM facts WHERE wing = ? AND status = 'live'"
           " AND evidence IN ('stated', 'inferred') AND predicate != 'mentioned_with'")
    params: list = [wing]
    if rules is not None:
        sql += f" AND substr(extractor, instr(extractor, '/') + 1) IN ({_marks(sorted(rules))})"
        params += sorted(rules)
    return conn.execute(sql, params).fetchall()


def fact_values(conn: sqlite3.Connection, ids) -> dict[int, tuple[str, str]]:
    """The value (object name or literal) of each fact of ``ids``, and where it was
    stated (``path:line``, the path alone once its drawer is gone)."""
    ids = list(ids)
    if not ids:
        return {}
    out = {}
    for r in conn.execute(
        f"SELECT f.id, coalesce(o.name, f.object_value), f.path, d.line_start, d.text, f.char_start FROM facts f"
        f" LEFT JOIN entities o ON o.id = f.object_id LEFT JOIN drawers d ON d.id = f.drawer_id"
        f" WHERE f.id IN ({_marks(ids)})", ids,
    ):
        line = r[3] + r[4][:r[5]].count("\n") if r[3] is not None and r[4] is not None else None
        out[r[0]] = (r[1], f"{r[2]}:{line}" if line else r[2])
    return out


def entity_edges(conn: sqlite3.Connection, wanted: FactFilter, registry: dict) -> list[tuple[int, int, int, int]]:
    """The pairs of entities that the facts ``wanted`` selects join (subject and an
    entity object, never itself): ``(subject id, object id, citing fact id, typed)``,
    one per pair, citing its first typed fact (else its first co-occurrence; ``typed``
    1 when it has a typed fact)."""
    where, params = wanted.where(registry)
    return [tuple(r) for r in conn.execute(
        "SELECT f.subject_id, f.object_id,"
        " coalesce(min(CASE WHEN f.predicate != 'mentioned_with' THEN f.id END), min(f.id)),"
        f" max(f.predicate != 'mentioned_with') FROM facts f WHERE f.object_id IS NOT NULL AND {where}"
        " AND f.subject_id != f.object_id GROUP BY f.subject_id, f.object_id", params)]


def cooccurrences(conn: sqlite3.Connection, entity_ids) -> list[tuple[int, int]]:
    """``(subject id, object id)`` of every live ``mentioned_with`` fact (two names in one
    sentence) about ``entity_ids``, one per sentence."""
    ids = tuple(entity_ids)
    return [tuple(r) for r in conn.execute(
        f"SELECT subject_id, object_id FROM facts WHERE predicate = 'mentioned_with' AND status = 'live'"
        f" AND (subject_id IN ({_marks(ids)}) OR object_id IN ({_marks(ids)}))", ids + ids)]


def read_across_table_cells(conn: sqlite3.Connection, fact_ids) -> set[int]:
    """Those of ``fact_ids`` that a sentence rule read across the cells of a table row
    ("| Dana Lee | uses Kafka |" is no sentence): their sentence holds a ``|`` and their
    rule is not a key–value or front-matter reading (``| Plan | Pro |`` is one)."""
    ids = list(fact_ids)
    if not ids:
        return set()
    return {r[0] for r in conn.execute(
        f"SELECT id FROM facts WHERE id IN ({_marks(ids)}) AND instr(sentence, '|') > 0"
        " AND substr(extractor, instr(extractor, '/') + 1) NOT LIKE 'key-%'"
        " AND substr(extractor, instr(extractor, '/') + 1) NOT LIKE 'front-matter-%'", ids)}


def decided_against(conn: sqlite3.Connection, drawer_ids) -> dict[str, tuple[str, ...]]:
    """``{drawer id: states}``: the drawers of ``drawer_ids`` holding a fact the user
    ``rejected`` (a candidate turned down in review) or ``retracted``, and which of the two."""
    ids = list(drawer_ids)
    if not ids:
        return {}
    out: dict[str, list[str]] = {}
    for drawer, status in conn.execute(
            f"SELECT DISTINCT drawer_id, status FROM facts WHERE drawer_id IN ({_marks(ids)})"
            " AND status IN ('rejected', 'retracted') ORDER BY drawer_id, status", ids):
        out.setdefault(drawer, []).append(status)
    return {d: tuple(v) for d, v in out.items()}
