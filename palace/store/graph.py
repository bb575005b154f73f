"""Writes of the graph tables: entities as read, aliases, mentions, date mentions, facts.

Mining and resolution store the graph through these functions, inside the caller's
transaction (:class:`palace.store.sqlite.transaction`). A fact is never deleted by a newer
one: it is closed (:mod:`palace.graph.temporal`) or invalidated (:func:`invalidate_facts`).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import unicodedata
from dataclasses import dataclass, fields

from palace.nlp.names import entity_key
from palace.store.fact_states import invalidate

__all__ = ["NewFact", "add_alias", "add_date_mention", "add_mention", "close_fact", "count_live_facts", "entity_id", "typed_facts_of_drawer",
           "front_matter_facts", "insert_fact", "invalidate_facts", "live_group", "timeline_groups"]


@dataclass(frozen=True)
class NewFact:
    """A fact as mined, before resolution: ``subject_id``/``object_id`` are the entities
    as read (stored as both the resolved and the raw ids; resolution repoints the first),
    ``object_value`` a literal value instead of an entity; valid time half-open
    ``[valid_from, valid_to)`` with its granularity; ``recorded_at`` an ISO moment;
    ``drawer_id``, ``wing``, ``path``, ``char_start``/``char_end`` and ``sentence`` cite
    where it was read; ``stated_to`` is the end its own text states (a state);
    ``status`` its state as stored."""

    subject_id: int
    predicate: str
    object_id: int | None
    object_value: str | None
    valid_from: dt.date | None
    valid_to: dt.date | None
    valid_granularity: str | None
    recorded_at: str
    drawer_id: str
    wing: str
    path: str
    char_start: int
    char_end: int
    sentence: str
    extractor: str
    confidence: float
    evidence: str
    stated_to: dt.date | None = None
    #: ``live``, or ``planned`` for a plan read from the notes (a future valid time,
    #: never current: :mod:`palace.store.fact_states`)
    status: str = "live"


#: the columns of a live fact (``status`` takes its default: a palace before migration
#: 0012 has none) and of a planned one
_FACT_COLUMNS = [f.name for f in fields(NewFact) if f.name != "status"]
_INSERT_FACT, _INSERT_PLANNED = (
    f"INSERT INTO facts (raw_subject_id, raw_object_id, {', '.join(columns)})"
    f" VALUES (?, ?, {', '.join('?' * len(columns))})" for columns in (_FACT_COLUMNS, [*_FACT_COLUMNS, "status"])
)


def _iso(value):
    return value.isoformat() if isinstance(value, dt.date) else value


def insert_fact(conn: sqlite3.Connection, fact: NewFact) -> int:
    """Store ``fact``; return its id."""
    values = [_iso(getattr(fact, name)) for name in _FACT_COLUMNS]  # astuple deep-copies: slow
    if fact.status != "live":
        return conn.execute(_INSERT_PLANNED, [fact.subject_id, fact.object_id, *values, fact.status]).lastrowid
    return conn.execute(_INSERT_FACT, [fact.subject_id, fact.object_id, *values]).lastrowid


def entity_id(conn: sqlite3.Connection, cache: dict, name: str, label: str) -> int:
    """The entity of a name as read (one per name key; created with ``label`` as its
    type and its name as its first alias, in Unicode's composed form, NFC, as its key).
    ``cache`` maps keys to ids within one note."""
    name = unicodedata.normalize("NFC", name)
    key = entity_key(name)
    cached = cache.get(key)
    if cached is not None:
        return cached
    row = conn.execute("SELECT id FROM entities WHERE key = ?", (key,)).fetchone()
    if row is None:
        entity = conn.execute(
            "INSERT INTO entities (name, type, key) VALUES (?, ?, ?)", (name, label, key)
        ).lastrowid
        add_alias(conn, entity, name, "name")
    else:
        entity = row[0]
    cache[key] = entity
    return entity


def set_entity_type(conn: sqlite3.Connection, entity: int, label: str) -> None:
    """Give ``entity`` the type ``label`` (a design record read as a ``DOCUMENT``)."""
    conn.execute("UPDATE entities SET type = ? WHERE id = ? AND type != ?", (label, entity, label))


def add_alias(conn: sqlite3.Connection, entity: int, alias: str, source: str) -> None:
    """Record ``alias`` of ``entity`` (``source``: ``name``, ``front matter``, ``e-mail``…);
    an alias it already has is left as it is. Stored in NFC, as names are."""
    alias = unicodedata.normalize("NFC", alias)
    conn.execute("INSERT OR IGNORE INTO aliases (entity_id, alias, key, source) VALUES (?, ?, ?, ?)",
                 (entity, alias, entity_key(alias), source))


def add_mention(conn: sqlite3.Connection, entity: int, drawer_id: str, start: int, end: int, surface: str,
                label: str, extractor: str, confidence: float) -> None:
    """Record that ``entity`` is named at ``[start, end)`` (chars) of a drawer."""
    conn.execute(
        "INSERT INTO mentions (entity_id, raw_entity_id, drawer_id, char_start, char_end, surface, label,"
        " extractor, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (entity, entity, drawer_id, start, end, surface, label, extractor, confidence),
    )


def add_date_mention(conn: sqlite3.Connection, drawer_id: str, start: int, end: int, surface: str,
                     interval, extractor: str) -> None:
    """Record a date named at ``[start, end)`` of a drawer, read as ``interval`` (a
    :class:`palace.nlp.dates.DateInterval`)."""
    conn.execute(
        "INSERT INTO date_mentions (drawer_id, char_start, char_end, surface, start, end, granularity, extractor)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (drawer_id, start, end, surface, interval.start.isoformat(), interval.end.isoformat(),
         interval.granularity, extractor),
    )


def invalidate_facts(conn: sqlite3.Connection, *, at: str, reason: str, drawer_id: str | None = None,
                     fact_ids: list[int] | None = None) -> None:
    """Invalidate (recorded time) the live facts read in ``drawer_id``, or those of
    ``fact_ids``: status ``invalidated``, ``invalidated_at`` = ``at``, with ``reason``
    (:func:`palace.store.fact_states.invalidate`). They stay in history."""
    invalidate(conn, at=at, reason=reason, drawer_id=drawer_id, fact_ids=fact_ids or ())


def live_group(conn: sqlite3.Connection, subject_id: int, predicate: str) -> tuple[list[tuple], dict[int, str]]:
    """The live facts (status ``live``) of one subject and predicate, as rows of ``(id,
    object_id, object_value, valid_from, valid_to, superseded_by, stated_to)``, and the
    name keys of their object entities (``{entity id: key}``): what a timeline is
    computed from (:func:`palace.graph.temporal.apply_timelines`)."""
    rows = [tuple(r) for r in conn.execute(
        "SELECT id, object_id, object_value, valid_from, valid_to, superseded_by, stated_to FROM facts"
        " WHERE subject_id = ? AND predicate = ? AND status = 'live'",
        (subject_id, predicate),
    )]
    ids = sorted({r[1] for r in rows if r[1] is not None})
    names = dict(conn.execute(f"SELECT id, key FROM entities WHERE id IN ({','.join('?' * len(ids))})",
                              ids)) if ids else {}
    return rows, names


def close_fact(conn: sqlite3.Connection, fact_id: int, valid_to: str | None, superseded_by: int | None) -> None:
    """Set where a fact's valid time ends (ISO day, None while current) and the fact
    that superseded it (None: it ended, or holds)."""
    conn.execute("UPDATE facts SET valid_to = ?, superseded_by = ? WHERE id = ?", (valid_to, superseded_by, fact_id))


def front_matter_facts(conn: sqlite3.Connection, wing: str, path: str) -> list[sqlite3.Row]:
    """The live facts (status ``live``) a note's front matter or its design record's
    header gave (extractor ``…/front-matter-…`` or ``…/document-…``): rows of ``id``, ``subject_id``, ``predicate`` and ``sentence``
    (the field as quoted)."""
    return conn.execute(
        "SELECT id, subject_id, predicate, sentence FROM facts WHERE wing = ? AND path = ? AND status = 'live'"
        " AND (extractor LIKE ? OR extractor LIKE ?)", (wing, path, "%/front-matter-%", "%/document-%")).fetchall()


def typed_facts_of_drawer(conn: sqlite3.Connection, drawer_id: str) -> list[int]:
    """The ids of the live (or planned) typed facts (not ``mentioned_with``) read from ``drawer_id``."""
    return [r[0] for r in conn.execute("SELECT id FROM facts WHERE drawer_id = ? AND status IN ('live', 'planned')"
                                       " AND predicate != 'mentioned_with'", (drawer_id,))]


def timeline_groups(conn: sqlite3.Connection, drawer_ids: list[str]) -> set[tuple[int, str]]:
    """The ``(subject_id, predicate)`` pairs of the typed facts (not co-occurrences) read
    in ``drawer_ids``, live or not: the timelines a change of those drawers touches."""
    groups: set[tuple[int, str]] = set()
    for i in range(0, len(drawer_ids), 500):
        chunk = drawer_ids[i:i + 500]
        groups |= {tuple(r) for r in conn.execute(
            f"SELECT DISTINCT subject_id, predicate FROM facts WHERE drawer_id IN ({','.join('?' * len(chunk))})"
            " AND predicate != 'mentioned_with'",
            chunk,
        )}
    return groups


def count_live_facts(conn: sqlite3.Connection) -> int:
    """How many facts are live (status ``live``: current, not a candidate)."""
    return conn.execute("SELECT count(*) FROM facts WHERE status = 'live'").fetchone()[0]
