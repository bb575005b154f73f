"""Writes of entity resolution: which entity each name as read resolves to, the
mentions and facts repointed at it, the aliases and types it implies, and the user's
merge and split decisions, and the reads of its audit (what resolves into what, what
stays ambiguous). The rules that decide are :mod:`palace.graph.resolution`'s; the writes
run inside the caller's transaction.
"""

from __future__ import annotations

import json
import sqlite3

__all__ = ["record_resolutions", "repoint", "notes_to_resolve", "note_readings", "record_note_resolutions",
           "clear_changed_notes", "note_raws_into", "read_in_resolving_notes",
           "resolved_in_notes", "refresh_aliases", "record_decision", "LowercaseIndex", "unresolved",
           "resolved_targets", "resolutions_of"]


def record_resolutions(conn: sqlite3.Connection, wing: str, plan: dict[int, tuple[int | None, str, str]],
                       now: str, scope=None) -> dict[int, int | None]:
    """Replace ``wing``'s resolutions by ``plan`` (``{raw entity: (target or None, rule,
    evidence)}``): all of them, or only those of the raw entities in ``scope`` (the
    names a change can touch); a resolution that did not change keeps the moment it was
    first made. Returns the targets replaced: ``{raw entity: target or None}``."""
    where, args = "wing = ?", [wing]
    if scope is not None:
        where += " AND raw_entity_id IN (SELECT value FROM json_each(?))"
        args.append(json.dumps(sorted(scope)))
    before = {r[0]: r for r in conn.execute(
        f"SELECT raw_entity_id, entity_id, rule, evidence, created_at FROM entity_resolutions WHERE {where}", args)}
    conn.execute(f"DELETE FROM entity_resolutions WHERE {where}", args)
    for raw, (target, rule, evidence) in plan.items():
        old = before.get(raw)
        since = old[4] if old is not None and (old[1], old[2]) == (target, rule) else now
        conn.execute(
            "INSERT INTO entity_resolutions (raw_entity_id, wing, entity_id, rule, evidence, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (raw, wing, target, rule, evidence, since),
        )
    return {raw: row[1] for raw, row in before.items()}


def notes_to_resolve(conn: sqlite3.Connection, wing: str, *, every: bool = False) -> list[tuple[int, str]]:
    """``(file id, path)`` of the notes of ``wing`` whose mentions changed since the wing
    was last resolved (marked by the triggers of migration 0014), or of ``every`` note."""
    if every:
        return [tuple(r) for r in conn.execute("SELECT id, path FROM files WHERE wing = ? ORDER BY id", (wing,))]
    return [tuple(r) for r in conn.execute(
        "SELECT f.id, f.path FROM notes_changed n JOIN files f ON f.id = n.file_id WHERE f.wing = ? ORDER BY f.id",
        (wing,))]


def clear_changed_notes(conn: sqlite3.Connection, wing: str) -> None:
    """The notes of ``wing`` are resolved (and notes gone are forgotten)."""
    conn.execute("DELETE FROM notes_changed WHERE file_id IN (SELECT id FROM files WHERE wing = ?)"
                 " OR file_id NOT IN (SELECT id FROM files)", (wing,))


def note_readings(conn: sqlite3.Connection, file_id: int) -> dict[int, tuple[str, str, dict[str, int]]]:
    """``{raw entity id: (name, key, {label: times})}`` of the names NER read in one note
    (not lower-case links), in the order of their ids."""
    out: dict[int, tuple[str, str, dict[str, int]]] = {}
    for eid, name, key, label, n in conn.execute(
            "SELECT m.raw_entity_id, e.name, e.key, coalesce(m.label, ''), count(*) FROM drawers d"
            " JOIN mentions m ON m.drawer_id = d.id JOIN entities e ON e.id = m.raw_entity_id"
            " WHERE d.file_id = ? AND m.extractor != ? GROUP BY 1, 4 ORDER BY 1, 4",
            (file_id, LOWERCASE_EXTRACTOR)):
        out.setdefault(eid, (name, key, {}))[2][label] = n
    return out


def record_note_resolutions(conn: sqlite3.Connection, file_id: int,
                            plan: dict[int, tuple[int | None, str, str]]) -> set[int]:
    """Replace the resolutions made inside one note by ``plan`` (``{raw entity: (target
    or None, rule, evidence)}``). Returns the raw entities whose resolution in the note
    changed (their mentions and facts must be repointed) and the entities they resolved
    into before or after (their strength as candidates changed)."""
    before = {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT raw_entity_id, entity_id, rule FROM note_resolutions WHERE file_id = ?", (file_id,))}
    conn.execute("DELETE FROM note_resolutions WHERE file_id = ?", (file_id,))
    conn.executemany("INSERT INTO note_resolutions VALUES (?, ?, ?, ?, ?)",
                     [(raw, file_id, target, rule, evidence) for raw, (target, rule, evidence) in plan.items()])
    after = {raw: (target, rule) for raw, (target, rule, _) in plan.items()}
    moved = {raw for raw in set(before) | set(after) if before.get(raw) != after.get(raw)}
    return moved | {side[raw][0] for raw in moved for side in (before, after) if raw in side and side[raw][0]}


def read_in_resolving_notes(conn: sqlite3.Connection, wing: str, ids) -> dict[int, int]:
    """``{raw entity id: mentions}``: how often each name of ``ids`` is read (by NER) in
    notes of ``wing`` that resolve it themselves (into a name of the note, or ambiguous
    there)."""
    return _note_mentions(conn, wing, ids, "raw_entity_id")


def resolved_in_notes(conn: sqlite3.Connection, wing: str, ids) -> dict[int, int]:
    """``{entity id: mentions}``: how often notes of ``wing`` resolve a short name read
    in them into each of ``ids`` ("Taylor" on Ann Taylor's page)."""
    return _note_mentions(conn, wing, ids, "entity_id")


def _note_mentions(conn: sqlite3.Connection, wing: str, ids, column: str) -> dict[int, int]:
    """The NER mentions in notes of ``wing`` of the names their notes resolve, counted
    by ``note_resolutions.{column}`` (``raw_entity_id`` or ``entity_id``) for ``ids``."""
    assert column in ("raw_entity_id", "entity_id")
    return {r[0]: r[1] for r in conn.execute(
        f"SELECT n.{column}, count(*) FROM note_resolutions n JOIN files f ON f.id = n.file_id"
        " JOIN drawers d ON d.file_id = n.file_id JOIN mentions m ON m.drawer_id = d.id"
        " AND m.raw_entity_id = n.raw_entity_id WHERE f.wing = ? AND m.extractor != ?"
        f" AND n.{column} IN (SELECT value FROM json_each(?)) GROUP BY 1",
        (wing, LOWERCASE_EXTRACTOR, json.dumps(sorted(ids))))}


def note_raws_into(conn: sqlite3.Connection, targets) -> set[int]:
    """The names as read that some note resolves into one of ``targets``."""
    return {r[0] for r in conn.execute(
        "SELECT DISTINCT raw_entity_id FROM note_resolutions WHERE entity_id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(t for t in targets if t is not None)),))}


#: The entity a name as read ``{0}`` stands for in the wing (its recorded resolution, or itself).
_IN_WING = "coalesce((SELECT r.entity_id FROM entity_resolutions r WHERE r.raw_entity_id = {0} AND r.wing = :wing), {0})"
#: … and in its note ``{1}`` first: a resolution made inside the note wins (ambiguous
#: there: the name stands for itself), and what it resolves into then resolves in the wing.
_TARGET = ("CASE WHEN EXISTS (SELECT 1 FROM note_resolutions n WHERE n.raw_entity_id = {0} AND n.file_id = {1})"
           " THEN coalesce((SELECT " + _IN_WING.format("n.entity_id") + " FROM note_resolutions n"
           " WHERE n.raw_entity_id = {0} AND n.file_id = {1}), {0}) ELSE " + _IN_WING.format("{0}") + " END")


def repoint(conn: sqlite3.Connection, wing: str, raws=None) -> list[tuple[int, int, str, int, int]]:
    """Point ``wing``'s mentions and facts at the entity their name as read resolves to:
    in their own note first (``note_resolutions``), else in ``wing``'s recorded
    resolutions (a name without one, or ambiguous, stands for itself): all of them, or
    only those read as one of ``raws`` (found by index, not by a scan of the wing).
    Returns the facts that moved: ``(fact id, old subject, predicate, new subject, new
    object)``."""
    note_of_mention = "(SELECT d.file_id FROM drawers d WHERE d.id = mentions.drawer_id)"
    note_of_fact = "(SELECT fl.id FROM files fl WHERE fl.wing = facts.wing AND fl.path = facts.path)"
    args: dict = {"wing": wing}
    if raws is None:
        mentions = "drawer_id IN (SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = :wing)"
        facts = "wing = :wing AND raw_subject_id IS NOT NULL"
    else:
        args["raws"] = json.dumps(sorted(raws))
        mentions = ("raw_entity_id IN (SELECT value FROM json_each(:raws)) AND EXISTS (SELECT 1 FROM drawers d"
                    " JOIN files f ON f.id = d.file_id WHERE d.id = mentions.drawer_id AND f.wing = :wing)")
        facts = ("id IN (SELECT id FROM facts WHERE raw_subject_id IN (SELECT value FROM json_each(:raws))"
                 " UNION SELECT id FROM facts WHERE raw_object_id IN (SELECT value FROM json_each(:raws)))"
                 " AND wing = :wing AND raw_subject_id IS NOT NULL")
    mention_target = _TARGET.format("mentions.raw_entity_id", note_of_mention)
    conn.execute(f"UPDATE mentions SET entity_id = {mention_target} WHERE {mentions}"
                 f" AND entity_id IS NOT {mention_target}", args)
    moved = conn.execute(
        f"SELECT id, subject_id, predicate, {_TARGET.format('facts.raw_subject_id', note_of_fact)} AS new_subject,"
        f" CASE WHEN raw_object_id IS NULL THEN object_id"
        f" ELSE {_TARGET.format('facts.raw_object_id', note_of_fact)} END AS new_object"
        f" FROM facts WHERE {facts} AND (subject_id IS NOT new_subject OR object_id IS NOT new_object)", args,
    ).fetchall()
    for fact_id, _old_subject, _predicate, new_subject, new_object in moved:
        conn.execute("UPDATE facts SET subject_id = ?, object_id = ? WHERE id = ?", (new_subject, new_object, fact_id))
    return [tuple(r) for r in moved]


def refresh_aliases(conn: sqlite3.Connection, mapping: dict[int, int], rules: dict[int, str],
                    joining_rules: tuple[str, ...], old_targets=None) -> None:
    """Aliases implied by resolutions: a short form or merged name is an alias of its
    target (``rules``: raw entity → the rule that joined it, the alias's source); those
    of ``joining_rules`` no resolution implies any more are removed (among the aliases
    of ``old_targets`` only, when given: the targets of the resolutions replaced)."""
    only = ""
    args: list = list(joining_rules)
    if old_targets is not None:
        only = " AND entity_id IN (SELECT value FROM json_each(?))"
        args.append(json.dumps(sorted(t for t in old_targets if t is not None)))
    conn.execute(f"DELETE FROM aliases WHERE source IN ({', '.join('?' * len(joining_rules))}){only} AND NOT EXISTS"
                 " (SELECT 1 FROM entity_resolutions r JOIN entities e ON e.id = r.raw_entity_id"
                 " WHERE r.entity_id = aliases.entity_id AND e.key = aliases.key)",
                 args)
    for raw, target in mapping.items():
        name, key = conn.execute("SELECT name, key FROM entities WHERE id = ?", (raw,)).fetchone()
        conn.execute("INSERT OR IGNORE INTO aliases (entity_id, alias, key, source) VALUES (?, ?, ?, ?)",
                     (target, name, key, rules[raw]))


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
    matches (``lowercase_hits``), the drawers not searched yet (``lowercase_unscanned``,
    filled by a trigger as drawers are written), and the names the search covered.
    :func:`palace.graph.lowercase.link_lowercase_mentions` decides; this reads and writes,
    inside the caller's transaction."""

    def __init__(self, conn: sqlite3.Connection, wing: str) -> None:
        self.conn, self.wing = conn, wing

    def names(self) -> set[str]:
        """The name keys the stored matches are for."""
        return {r[0] for r in self.conn.execute("SELECT key FROM lowercase_names WHERE wing = ?", (self.wing,))}

    def change_names(self, added, dropped) -> None:
        """The search now covers ``added`` and no longer ``dropped``."""
        self.conn.executemany("DELETE FROM lowercase_names WHERE wing = ? AND key = ?",
                              [(self.wing, k) for k in sorted(dropped)])
        self.conn.executemany("INSERT OR IGNORE INTO lowercase_names VALUES (?, ?)",
                              [(self.wing, k) for k in sorted(added)])

    def unscanned(self) -> list[tuple[str, str]]:
        """``(drawer id, text)`` of the wing's drawers never searched (new since the last run)."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT d.id, d.text FROM lowercase_unscanned u CROSS JOIN drawers d ON d.id = u.drawer_id"
            " CROSS JOIN files f ON f.id = d.file_id WHERE f.wing = ?", (self.wing,))]

    def texts_naming(self, added, dropped) -> list[tuple[str, str]]:
        """``(drawer id, text)`` of the wing's drawers that may write one of the names
        ``added`` (a full-text phrase search: a superset, the caller's search decides)
        or hold a match of one of ``dropped``."""
        found: dict[str, str] = {}
        added = sorted(added)
        for at in range(0, len(added), 50):
            query = "text : (" + " OR ".join('"' + " ".join(k.split()) + '"' for k in added[at:at + 50]) + ")"
            for did, text in self.conn.execute(
                    "SELECT d.id, d.text FROM drawers_fts JOIN drawers d ON d.rowid = drawers_fts.rowid"
                    " JOIN files f ON f.id = d.file_id WHERE drawers_fts MATCH ? AND f.wing = ?", (query, self.wing)):
                found[did] = text
        if dropped:
            for did, text in self.conn.execute(
                    "SELECT DISTINCT d.id, d.text FROM lowercase_hits h JOIN drawers d ON d.id = h.drawer_id"
                    " JOIN files f ON f.id = d.file_id WHERE h.key IN (SELECT value FROM json_each(?)) AND f.wing = ?",
                    (json.dumps(sorted(dropped)), self.wing)):
                found[did] = text
        return list(found.items())

    def texts(self):
        """``(drawer id, text)`` of every drawer of the wing."""
        return self.conn.execute(
            "SELECT d.id, d.text FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?", (self.wing,))

    def taken(self, drawer_id: str) -> list[tuple[int, int]]:
        """The spans of the drawer's mentions read by NER (not lower-case links)."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT char_start, char_end FROM mentions WHERE drawer_id = ? AND extractor != ?",
            (drawer_id, LOWERCASE_EXTRACTOR))]

    def hit_keys(self, drawer_id: str) -> set[str]:
        """The names the drawer's stored matches are of."""
        return {r[0] for r in self.conn.execute("SELECT key FROM lowercase_hits WHERE drawer_id = ?", (drawer_id,))}

    def replace_hits(self, drawer_id: str, hits) -> None:
        """The drawer's matches (``(key, start, end, surface)``), now searched."""
        self.conn.execute("DELETE FROM lowercase_hits WHERE drawer_id = ?", (drawer_id,))
        self.conn.executemany("INSERT INTO lowercase_hits VALUES (?, ?, ?, ?, ?)",
                              [(drawer_id, *hit) for hit in hits])
        self.conn.execute("DELETE FROM lowercase_unscanned WHERE drawer_id = ?", (drawer_id,))

    def hits(self, keys=None) -> list[tuple[str, str, int, int, str]]:
        """The stored matches in the wing (of every name, or of ``keys``): ``(drawer id,
        key, start, end, surface)``."""
        where, args = "f.wing = ?", [self.wing]
        if keys is not None:
            where += " AND h.key IN (SELECT value FROM json_each(?))"
            args.append(json.dumps(sorted(keys)))
        return [tuple(r) for r in self.conn.execute(
            "SELECT h.drawer_id, h.key, h.char_start, h.char_end, h.surface FROM lowercase_hits h"
            f" JOIN drawers d ON d.id = h.drawer_id JOIN files f ON f.id = d.file_id WHERE {where}"
            " ORDER BY h.drawer_id, h.char_start", args)]

    def replace_mentions(self, rows, confidence: float, entities=None) -> None:
        """The wing's lower-case mentions (all, or those of ``entities``) become ``rows``:
        ``(entity, drawer, start, end, surface, label)``."""
        if entities is None:
            self.conn.execute(
                "DELETE FROM mentions WHERE extractor = ? AND drawer_id IN"
                " (SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?)",
                (LOWERCASE_EXTRACTOR, self.wing))
        else:
            self.conn.execute(
                "DELETE FROM mentions WHERE raw_entity_id IN (SELECT value FROM json_each(?)) AND extractor = ?"
                " AND EXISTS (SELECT 1 FROM drawers d JOIN files f ON f.id = d.file_id"
                " WHERE d.id = mentions.drawer_id AND f.wing = ?)",
                (json.dumps(sorted(entities)), LOWERCASE_EXTRACTOR, self.wing))
        self.conn.executemany(
            "INSERT INTO mentions (entity_id, raw_entity_id, drawer_id, char_start, char_end, surface, label,"
            " extractor, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(eid, eid, did, start, end, surface, label, LOWERCASE_EXTRACTOR, confidence)
             for eid, did, start, end, surface, label in rows])


#: the extractor name of mentions linked from a known name written in lower case: a
#: versioned name stored in every palace and written into migration 0010's triggers, so it
#: never follows the module's path (it was named when the module was ``palace.lowercase``)
LOWERCASE_EXTRACTOR = "palace.lowercase.v1"


def unresolved(conn: sqlite3.Connection, raw_ids) -> list[str]:
    """The evidence of every ambiguous resolution (no target) of the names as read of
    ``raw_ids`` ("'Alice' could be any of 2 people in wing W: …")."""
    ids = tuple(raw_ids)
    return [r[0] for r in conn.execute(
        f"SELECT evidence FROM entity_resolutions WHERE raw_entity_id IN ({','.join('?' * len(ids))})"
        f" AND entity_id IS NULL", ids)]


def resolved_targets(conn: sqlite3.Connection, raw_id: int) -> list[sqlite3.Row]:
    """The entities (``id``, ``name``, ``key``) the name as read ``raw_id`` resolves into,
    in any wing."""
    return conn.execute(
        "SELECT DISTINCT e.id, e.name, e.key FROM entity_resolutions r JOIN entities e ON e.id = r.entity_id"
        " WHERE r.raw_entity_id = ? UNION SELECT e.id, e.name, e.key FROM note_resolutions n"
        " JOIN entities e ON e.id = n.entity_id WHERE n.raw_entity_id = ?", (raw_id, raw_id)).fetchall()


def resolutions_of(conn: sqlite3.Connection, entity_id: int, *, into: bool) -> list[tuple]:
    """The resolutions into the entity (``into``) or of it as read, in its wings and
    inside its notes (a note's resolution says which note in its evidence), by wing and name:
    ``(name as read, wing, target name or None, rule, evidence, since)``."""
    side = "entity_id" if into else "raw_entity_id"
    return [tuple(r) for r in conn.execute(
        "SELECT raw.name, r.wing, t.name, r.rule, r.evidence, r.created_at FROM entity_resolutions r"
        " JOIN entities raw ON raw.id = r.raw_entity_id LEFT JOIN entities t ON t.id = r.entity_id"
        f" WHERE r.{side} = ? UNION ALL"
        " SELECT raw.name, f.wing, t.name, n.rule, n.evidence, f.mined_at FROM note_resolutions n"
        " JOIN files f ON f.id = n.file_id JOIN entities raw ON raw.id = n.raw_entity_id"
        f" LEFT JOIN entities t ON t.id = n.entity_id WHERE n.{side} = ? ORDER BY 2, 1, 5", (entity_id, entity_id))]
