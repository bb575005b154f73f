"""Reading facts: what was true at a date (valid time), what the palace knew at a moment
(recorded time), and the whole history of a name, superseded and invalidated facts included.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from palace.errors import UsageError
from palace.graph import find_entities

if TYPE_CHECKING:
    from palace.core import Palace


@dataclass(frozen=True)
class FactView:
    """One fact as shown to users. ``state`` is ``current``, ``superseded`` (closed by a
    later value; ``superseded_by`` names it), ``ended`` (a state whose valid time is over:
    a note ended or bounded it) or ``invalidated`` (its source text left the palace at
    ``invalidated_at``, for ``invalidation_reason``). Valid time is half-open
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


@dataclass(frozen=True)
class FactsResult:
    """A list of facts and the question it answers (``about``, ``predicate``, ``as_of``
    valid day, ``known_at`` recorded moment, ``history`` whether closed facts are in)."""

    about: str | None
    predicate: str | None
    as_of: str | None
    known_at: str | None
    history: bool
    facts: tuple[FactView, ...]

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README."""
        return json.dumps(asdict(self), ensure_ascii=False, indent=2)


#: SQL condition of a fact read in a note with no date of its own that a dated note has
#: since contradicted (superseded, with no valid time): valid on no day.
UNDATED_SUPERSEDED = "(f.valid_from IS NULL AND f.valid_to IS NULL AND f.superseded_by IS NOT NULL)"


#: SQL condition (one parameter: a day) of a fact with no start ("instead of Priya": it
#: ended, from an unknown start) whose value the notes state with a start only after the
#: day: nothing says it held then ("who did Bob report to" on a day before any note).
NOT_BEGUN_BY = (
    "(f.valid_from IS NULL AND EXISTS (SELECT 1 FROM facts g WHERE g.subject_id = f.subject_id"
    " AND g.predicate = f.predicate AND g.object_id IS f.object_id AND g.object_value IS f.object_value"
    " AND g.invalidated_at IS NULL AND g.valid_from IS NOT NULL)"
    " AND NOT EXISTS (SELECT 1 FROM facts g WHERE g.subject_id = f.subject_id AND g.predicate = f.predicate"
    " AND g.object_id IS f.object_id AND g.object_value IS f.object_value AND g.invalidated_at IS NULL"
    " AND g.valid_from <= ?))"
)


def holds_now(registry: dict, day: dt.date, alias: str = "f") -> tuple[str, list]:
    """The SQL condition (and its parameters) of a fact that still holds on ``day``: not
    invalidated, not superseded, and — for a state — begun and not ended by then (a state
    a note ended, "stepped down as lead", or an interval it bounded, "until 2010"; "starts
    at Feedzai in May", read in April, is not current yet). Events and
    co-occurrences (a sentence naming two entities, dated by it) stay on record. One place
    for what "current" means."""
    events = sorted({name for name, spec in registry.items() if spec.kind == "event"} | {"mentioned_with"})
    marks = ",".join("?" * len(events)) or "''"
    return (f"{alias}.invalidated_at IS NULL AND {alias}.superseded_by IS NULL"
            f" AND ({alias}.valid_to IS NULL OR {alias}.valid_to > ? OR {alias}.predicate IN ({marks}))"
            f" AND ({alias}.valid_from IS NULL OR {alias}.valid_from <= ? OR {alias}.predicate IN ({marks}))"
            f" AND ({alias}.object_id IS NOT NULL OR {alias}.object_value IS NOT NULL)",
            [day.isoformat(), *events, day.isoformat(), *events])


def facts(
    palace: "Palace",
    *,
    about: str | None = None,
    predicate: str | None = None,
    as_of: dt.date | None = None,
    known_at: str | None = None,
    history: bool = False,
    limit: int = 500,
    now: dt.date | None = None,
    typed_only: bool = False,
) -> FactsResult:
    """Facts about ``about`` (a name or alias; subject or object) with ``predicate``.

    Without options, the facts that hold ``now`` (default today; :func:`holds_now`).
    ``as_of`` keeps facts valid on that day; ``known_at`` (ISO date or timestamp) keeps
    what the palace held then, retracted facts included; without it only facts not
    invalidated count. ``history=True`` keeps superseded, ended and invalidated facts
    too. ``typed_only`` leaves out ``mentioned_with`` (two names in one sentence: a
    co-occurrence, not a statement). Ordered by valid time, then recorded time. Raises
    :class:`palace.errors.UsageError` for an unknown name.
    """
    clauses, params = [], []
    if about:
        try:
            ids = [r["id"] for r in find_entities(palace.conn, about)]
        except UsageError:  # not an entity: maybe a literal value ("Metoprolol", "Starter")
            key = " ".join(about.split()).casefold()
            if not palace.conn.execute("SELECT 1 FROM facts WHERE lower(object_value) = ? LIMIT 1", (key,)).fetchone():
                raise
            ids = []
            clauses.append("lower(f.object_value) = ?")
            params.append(key)
        if ids:
            marks = ",".join("?" * len(ids))
            clauses.append(f"(f.subject_id IN ({marks}) OR f.object_id IN ({marks}) OR lower(f.object_value) = ?)")
            params += ids + ids + [" ".join(about.split()).casefold()]
    if predicate:
        clauses.append("f.predicate = ?")
        params.append(predicate)
    elif typed_only:
        clauses.append("f.predicate != 'mentioned_with'")
    if as_of:
        day = as_of.isoformat()
        clauses.append("(f.valid_from IS NULL OR f.valid_from <= ?) AND (f.valid_to IS NULL OR f.valid_to > ?)"
                       f" AND (f.object_id IS NOT NULL OR f.object_value IS NOT NULL) AND NOT {UNDATED_SUPERSEDED}"
                       f" AND NOT {NOT_BEGUN_BY}")
        params += [day, day, day]
    if known_at:
        clauses.append("f.recorded_at <= ? AND (f.invalidated_at IS NULL OR f.invalidated_at > ?)")
        moment = known_at if "T" in known_at else known_at + "T23:59:59"
        params += [moment, moment]
    elif not history and as_of:
        clauses.append("f.invalidated_at IS NULL")
    if not history and not as_of:
        if known_at:
            clauses.append("f.superseded_by IS NULL")
        else:
            sql, extra = holds_now(palace.registry, now or dt.date.today())
            clauses.append(sql)
            params += extra
    where = " AND ".join(clauses) or "1"
    views = fact_views(palace.conn, where, params, limit=limit, registry=palace.registry)
    if as_of and not history:
        # an ending ("stepped down as lead") holds from an unknown start: where a dated
        # statement of the same value covers the day too, that one says it
        dated = {(v.subject, v.predicate, v.object.casefold()) for v in views if v.valid_from}
        views = tuple(v for v in views if v.valid_from or (v.subject, v.predicate, v.object.casefold()) not in dated)
    return FactsResult(about, predicate, as_of.isoformat() if as_of else None, known_at, history, views)


def _ended(row, registry: dict) -> bool:
    """A state whose valid time is over today: a note ended it ("stepped down"), bounded
    it ("until 2010") or it is an ending that names no value ("Ines retired")."""
    spec = registry.get(row["predicate"])
    if spec is None or spec.kind != "state" or row["predicate"] == "mentioned_with":
        return False
    if row["object_id"] is None and row["object_value"] is None:
        return True
    return row["valid_to"] is not None and row["valid_to"] <= dt.date.today().isoformat()


def fact_views(conn, where: str, params, *, limit: int = 500, registry: dict | None = None) -> tuple[FactView, ...]:
    """The facts matching the SQL condition ``where`` (over ``facts f``), as
    :class:`FactView`, ordered by valid time, then recorded time. ``registry`` (default:
    the shipped one) says which predicates take one value, for ``conflicts_with``."""
    from palace.temporal import default_registry

    registry = registry or default_registry()
    rows = conn.execute(
        "SELECT f.*, s.name AS subject_name, coalesce(o.name, f.object_value) AS object_name,"
        " d.line_start + length(substr(d.text, 1, f.char_start)) - length(replace(substr(d.text, 1, f.char_start),"
        " char(10), '')) AS line FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
        " LEFT JOIN drawers d ON d.id = f.drawer_id"
        f" WHERE {where} ORDER BY f.valid_from, f.recorded_at, f.id LIMIT ?",
        (*params, limit),
    ).fetchall()
    conflicts: dict[int, tuple[int, ...]] = {}
    for r in rows:
        spec = registry.get(r["predicate"])
        if spec is None or spec.cardinality != "one" or r["invalidated_at"] or r["valid_from"] is None:
            continue
        rivals = conn.execute(
            "SELECT c.id FROM facts c LEFT JOIN entities co ON co.id = c.object_id, facts f"
            " LEFT JOIN entities fo ON fo.id = f.object_id WHERE f.id = ? AND c.subject_id = f.subject_id"
            " AND c.predicate = f.predicate AND c.valid_from = f.valid_from AND c.invalidated_at IS NULL AND c.id != f.id"
            " AND coalesce(co.key, lower(c.object_value)) IS NOT coalesce(fo.key, lower(f.object_value)) ORDER BY c.id",
            (r["id"],),
        ).fetchall()
        if rivals:
            conflicts[r["id"]] = tuple(x[0] for x in rivals)
    return tuple(
        FactView(
            id=r["id"], subject=r["subject_name"], predicate=r["predicate"], object=r["object_name"] or "",
            valid_from=r["valid_from"], valid_to=r["valid_to"], valid_granularity=r["valid_granularity"],
            recorded_at=r["recorded_at"], invalidated_at=r["invalidated_at"],
            invalidation_reason=r["invalidation_reason"], superseded_by=r["superseded_by"],
            state="invalidated" if r["invalidated_at"] else "superseded" if r["superseded_by"] else
            "ended" if _ended(r, registry) else "current",
            wing=r["wing"], path=r["path"], line=r["line"], sentence=readable(r["sentence"] or ""),
            extractor=r["extractor"],
            confidence=r["confidence"], evidence=r["evidence"], conflicts_with=conflicts.get(r["id"], ()),
            drawer_id=r["drawer_id"],
        )
        for r in rows
    )


def readable(sentence: str) -> str:
    """A cited sentence as people read it: markdown markup removed (``**bold**``,
    ``[[Page|alias]]`` → alias, ``[text](url)`` → text, HTML tags, code ticks) and
    whitespace collapsed. The stored sentence keeps the note's own characters."""
    from palace.nlp.markup import plain_text_for_ner

    return tidy(plain_text_for_ner(sentence))


def tidy(text: str) -> str:
    """Whitespace collapsed, and no space left before punctuation where markup was
    blanked ("**Priya Raman**," → "Priya Raman,")."""
    return re.sub(r"\s+([,.;:!?)\]])", r"\1", " ".join(text.split()))
