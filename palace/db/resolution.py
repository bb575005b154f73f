"""Writes of entity resolution: which entity each name as read resolves to, the
mentions and facts repointed at it, the aliases and types it implies, and the user's
merge and split decisions. The rules that decide are :mod:`palace.resolution`'s; all
here runs inside the caller's transaction.
"""

from __future__ import annotations

import sqlite3

__all__ = ["record_resolutions", "repoint", "refresh_aliases", "refresh_types", "record_decision",
           "LowercaseIndex"]


def record_resolutions(conn: sqlite3.Connection, wing: str, plan: dict[int, tuple[int | None, str, str]],
                       now: str) -> None:
    """Replace ``wing``'s resolutions by ``plan`` (``{raw entity: (target or None, rule,
    evidence)}``); a resolution that did not change keeps the moment it was first made."""
    before = {r[0]: r for r in conn.execute(
        "SELECT raw_entity_id, entity_id, rule, evidence, created_at FROM entity_resolutions WHERE wing = ?", (wing,)
    )}
    conn.execute("DELETE FROM entity_resolutions WHERE wing = ?", (wing,))
    for raw, (target, rule, evidence) in plan.items():
        old = before.get(raw)
        since = old[4] if old is not None and (old[1], old[2]) == (target, rule) else now
        conn.execute(
            "INSERT INTO entity_resolutions (raw_entity_id, wing, entity_id, rule, evidence, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (raw, wing, target, rule, evidence, since),
        )


def repoint(conn: sqlite3.Connection, wing: str, mapping: dict[int, int]) -> list[tuple[int, int, str, int, int]]:
    """Point ``wing``'s mentions and facts at the entity their name as read resolves to
    (``mapping``: raw entity → target; a raw entity not in it stands for itself). Returns
    the facts that moved: ``(fact id, old subject, predicate, new subject, new object)``."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS resolution_map (raw INTEGER PRIMARY KEY, target INTEGER)")
    conn.execute("DELETE FROM resolution_map")
    conn.executemany("INSERT INTO resolution_map VALUES (?, ?)", mapping.items())
    conn.execute(
        "UPDATE mentions SET entity_id = coalesce((SELECT target FROM resolution_map WHERE raw = raw_entity_id), raw_entity_id)"
        " WHERE drawer_id IN (SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?)"
        " AND entity_id IS NOT coalesce((SELECT target FROM resolution_map WHERE raw = raw_entity_id), raw_entity_id)",
        (wing,),
    )
    moved = conn.execute(
        "SELECT id, subject_id, predicate,"
        " coalesce((SELECT target FROM resolution_map WHERE raw = raw_subject_id), raw_subject_id) AS new_subject,"
        " CASE WHEN raw_object_id IS NULL THEN object_id"
        "  ELSE coalesce((SELECT target FROM resolution_map WHERE raw = raw_object_id), raw_object_id) END AS new_object"
        " FROM facts WHERE wing = ? AND raw_subject_id IS NOT NULL"
        " AND (subject_id IS NOT new_subject OR object_id IS NOT new_object)",
        (wing,),
    ).fetchall()
    for fact_id, _old_subject, _predicate, new_subject, new_object in moved:
        conn.execute("UPDATE facts SET subject_id = ?, object_id = ? WHERE id = ?", (new_subject, new_object, fact_id))
    return [tuple(r) for r in moved]


def refresh_aliases(conn: sqlite3.Connection, mapping: dict[int, int], rules: dict[int, str],
                    joining_rules: tuple[str, ...]) -> None:
    """Aliases implied by resolutions: a short form or merged name is an alias of its
    target (``rules``: raw entity → the rule that joined it, the alias's source); those
    of ``joining_rules`` no resolution implies any more are removed."""
    conn.execute(f"DELETE FROM aliases WHERE source IN ({', '.join('?' * len(joining_rules))}) AND NOT EXISTS"
                 " (SELECT 1 FROM entity_resolutions r JOIN entities e ON e.id = r.raw_entity_id"
                 " WHERE r.entity_id = aliases.entity_id AND e.key = aliases.key)",
                 joining_rules)
    for raw, target in mapping.items():
        name, key = conn.execute("SELECT name, key FROM entities WHERE id = ?", (raw,)).fetchone()
        conn.execute("INSERT OR IGNORE INTO aliases (entity_id, alias, key, source) VALUES (?, ?, ?, ?)",
                     (target, name, key, rules[raw]))


def refresh_types(conn: sqlite3.Connection, wing: str) -> None:
    """Each entity read in ``wing`` takes the majority label of its mentions (ties:
    PERSON, then alphabetical)."""
    conn.execute(
        "UPDATE entities SET type = coalesce((SELECT label FROM mentions m WHERE m.raw_entity_id = entities.id"
        " GROUP BY label ORDER BY count(*) DESC, label != 'PERSON', label LIMIT 1), type)"
        " WHERE id IN (SELECT m.raw_entity_id FROM mentions m JOIN drawers d ON d.id = m.drawer_id"
        " JOIN files f ON f.id = d.file_id WHERE f.wing = ?)",
        (wing,),
    )


def record_decision(conn: sqlite3.Connection, action: str, name: sqlite3.Row, into: sqlite3.Row, now: str) -> int:
    """Record the user's ``merge`` of ``name`` into ``into`` (it reverts any decision in
    force about the pair, either way) or ``split`` (it reverts a merge of ``name`` into
    ``into``); ``name`` and ``into`` are entity rows with ``name`` and ``key``. Returns
    the decision's id."""
    if action == "merge":
        conn.execute("UPDATE entity_decisions SET reverted_at = ? WHERE reverted_at IS NULL AND"
                     " ((name_key = ? AND into_key = ?) OR (name_key = ? AND into_key = ?))",
                     (now, name["key"], into["key"], into["key"], name["key"]))
    else:
        conn.execute("UPDATE entity_decisions SET reverted_at = ? WHERE reverted_at IS NULL AND action = 'merge'"
                     " AND name_key = ? AND into_key = ?", (now, name["key"], into["key"]))
    return conn.execute(
        "INSERT INTO entity_decisions (action, name, name_key, into_name, into_key, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)", (action, name["name"], name["key"], into["name"], into["key"], now),
    ).lastrowid


class LowercaseIndex:
    """Where the drawers of one wing write its known names in lower case: the stored
    matches (``lowercase_hits``), the drawers already scanned, and the names the scan
    covered. :func:`palace.resolution.link_lowercase_mentions` decides; this reads and
    writes, inside the caller's transaction."""

    def __init__(self, conn: sqlite3.Connection, wing: str) -> None:
        self.conn, self.wing = conn, wing

    def names(self) -> set[str]:
        """The name keys the stored matches are for."""
        return {r[0] for r in self.conn.execute("SELECT key FROM lowercase_names WHERE wing = ?", (self.wing,))}

    def set_names(self, keys) -> None:
        self.conn.execute("DELETE FROM lowercase_names WHERE wing = ?", (self.wing,))
        self.conn.executemany("INSERT INTO lowercase_names VALUES (?, ?)", [(self.wing, k) for k in sorted(keys)])

    def unscanned(self) -> list[tuple[str, str]]:
        """``(drawer id, text)`` of the wing's drawers never scanned (new since the last run)."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT d.id, d.text FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?"
            " AND NOT EXISTS (SELECT 1 FROM lowercase_scanned s WHERE s.drawer_id = d.id)", (self.wing,))]

    def texts(self):
        """``(drawer id, text)`` of every drawer of the wing."""
        return self.conn.execute(
            "SELECT d.id, d.text FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?", (self.wing,))

    def taken(self, drawer_id: str) -> list[tuple[int, int]]:
        """The spans of the drawer's mentions read by NER (not lower-case links)."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT char_start, char_end FROM mentions WHERE drawer_id = ? AND extractor != ?",
            (drawer_id, LOWERCASE_EXTRACTOR))]

    def replace_hits(self, drawer_id: str, hits) -> None:
        """The drawer's matches (``(key, start, end, surface)``), now scanned."""
        self.conn.execute("DELETE FROM lowercase_hits WHERE drawer_id = ?", (drawer_id,))
        self.conn.executemany("INSERT INTO lowercase_hits VALUES (?, ?, ?, ?, ?)",
                              [(drawer_id, *hit) for hit in hits])
        self.conn.execute("INSERT OR IGNORE INTO lowercase_scanned VALUES (?)", (drawer_id,))

    def hits(self) -> list[tuple[str, str, int, int, str]]:
        """Every stored match in the wing: ``(drawer id, key, start, end, surface)``."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT h.drawer_id, h.key, h.char_start, h.char_end, h.surface FROM lowercase_hits h"
            " JOIN drawers d ON d.id = h.drawer_id JOIN files f ON f.id = d.file_id WHERE f.wing = ?"
            " ORDER BY h.drawer_id, h.char_start", (self.wing,))]

    def replace_mentions(self, rows, confidence: float) -> None:
        """The wing's lower-case mentions become ``rows``: ``(entity, drawer, start, end,
        surface, label)``."""
        self.conn.execute(
            "DELETE FROM mentions WHERE extractor = ? AND drawer_id IN"
            " (SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?)",
            (LOWERCASE_EXTRACTOR, self.wing))
        self.conn.executemany(
            "INSERT INTO mentions (entity_id, raw_entity_id, drawer_id, char_start, char_end, surface, label,"
            " extractor, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(eid, eid, did, start, end, surface, label, LOWERCASE_EXTRACTOR, confidence)
             for eid, did, start, end, surface, label in rows])


#: the extractor name of mentions linked from a known name written in lower case
LOWERCASE_EXTRACTOR = "palace.lowercase.v1"
