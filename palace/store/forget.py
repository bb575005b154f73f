"""Reads and deletes of ``palace forget`` (:mod:`palace.ops.forgetting`): the rows that
came from some notes, a wing or an entity, their removal, the forgotten paths a re-mine
skips, the audit, and the compaction that leaves no deleted byte in the files.

Writes run inside the caller's transaction (:class:`palace.store.sqlite.transaction`),
except :func:`compact`, which needs none open. Lists of ids travel as one JSON array
parameter (``json_each``): no limit on their number.
"""

from __future__ import annotations

import json
import sqlite3
import time

__all__ = ["files_of_wing", "roots", "files_under", "drawers_of_files", "count_mentions_of_files",
           "facts_of_drawers", "facts_at", "delete_files", "remember_forgotten", "forget_list", "files_with_hashes",
           "allow_scopes", "delete_facts",
           "existing_entities", "delete_unsupported_entities", "entity_keys", "facts_naming",
           "count_mentions_of_entities", "delete_entities", "wings_any_order", "wing_has_files",
           "drop_wing_resolution", "log_forget", "compact"]

#: SQL of a JSON array parameter as rows (``value``)
IDS = "SELECT value FROM json_each(?)"


def _marks(values) -> str:
    return ",".join("?" * len(values))


def files_of_wing(conn: sqlite3.Connection, wing: str) -> list[sqlite3.Row]:
    """The files rows of ``wing``: ``id``, ``wing``, ``path``, ``root``, ``content_hash``."""
    return conn.execute("SELECT id, wing, path, root, content_hash FROM files WHERE wing = ?", (wing,)).fetchall()


def roots(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every ``(wing, root folder)`` mined."""
    return [(r[0], r[1]) for r in conn.execute("SELECT DISTINCT wing, root FROM files").fetchall()]


def files_under(conn: sqlite3.Connection, wing: str, rel: str) -> list[sqlite3.Row]:
    """The files rows (``id``, ``wing``, ``path``, ``root``, ``content_hash``) of ``wing``
    at ``rel``, a note or a folder of its root (``""``: the whole root)."""
    like = rel.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"
    return conn.execute(
        "SELECT id, wing, path, root, content_hash FROM files WHERE wing = ? AND (path = ? OR ? = '' OR path LIKE ? ESCAPE '\\')",
        (wing, rel, rel, like)).fetchall()


def drawers_of_files(conn: sqlite3.Connection, file_ids: list[int]) -> list[sqlite3.Row]:
    """The drawers (``rowid``, ``id``) of the files ``file_ids``."""
    return conn.execute(f"SELECT rowid, id FROM drawers WHERE file_id IN ({_marks(file_ids)})", file_ids).fetchall()


def count_mentions_of_files(conn: sqlite3.Connection, file_ids: list[int]) -> int:
    """How many mentions the drawers of the files ``file_ids`` hold."""
    return conn.execute(
        f"SELECT count(*) FROM mentions WHERE drawer_id IN (SELECT id FROM drawers WHERE file_id IN"
        f" ({_marks(file_ids)}))", file_ids).fetchone()[0]


def facts_of_drawers(conn: sqlite3.Connection, drawer_ids: list[str]) -> list[sqlite3.Row]:
    """Every fact (``id``, ``subject_id``, ``predicate``) read in the drawers ``drawer_ids``."""
    return conn.execute(f"SELECT id, subject_id, predicate FROM facts WHERE drawer_id IN ({IDS})",
                        (json.dumps(drawer_ids),)).fetchall()


def facts_at(conn: sqlite3.Connection, wing: str, rel: str) -> list[sqlite3.Row]:
    """Every fact (``id``, ``subject_id``, ``predicate``) cited at the note ``wing/rel``,
    in any version of it."""
    return conn.execute("SELECT id, subject_id, predicate FROM facts WHERE wing = ? AND path = ?",
                        (wing, rel)).fetchall()


def delete_files(conn: sqlite3.Connection, file_ids: list[int]) -> None:
    """Delete the files rows ``file_ids`` (their drawers must be gone first:
    :func:`palace.store.drawers.remove_drawer`)."""
    conn.execute(f"DELETE FROM files WHERE id IN ({_marks(file_ids)})", file_ids)


def remember_forgotten(conn: sqlite3.Connection, notes: list[tuple[str, str, str | None]], now: str) -> None:
    """Keep the notes ``(path hash, scopes, content hash)`` from being mined again
    (:func:`palace.store.drawers.forgotten_paths` reads them); ``scopes``: the hashes of
    the folders and the wing that hold the note, space-separated, for :func:`allow_scopes`;
    the content hash lets an import find the note at another path."""
    conn.executemany("INSERT OR REPLACE INTO forgotten_paths (hash, scopes, content_hash, created_at)"
                     " VALUES (?, ?, ?, ?)", [(digest, scopes, content, now) for digest, scopes, content in notes])


def forget_list(conn: sqlite3.Connection) -> list[dict]:
    """Every forgotten note as the export carries it: ``path_hash`` (of its ``wing/path``),
    ``content_hash`` (None when forgotten before this was kept), ``scopes`` and
    ``forgotten_at``; hashes only, no path and no content."""
    return [{"path_hash": r[0], "content_hash": r[1], "scopes": r[2], "forgotten_at": r[3]} for r in conn.execute(
        "SELECT hash, content_hash, scopes, created_at FROM forgotten_paths ORDER BY created_at, hash")]


def files_with_hashes(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Every files row (``id``, ``wing``, ``path``, ``root``, ``content_hash``), to find the
    notes a forget list names."""
    return conn.execute("SELECT id, wing, path, root, content_hash FROM files").fetchall()


def allow_scopes(conn: sqlite3.Connection, digests: list[str]) -> int:
    """Let the forgotten notes held by any of the scope hashes ``digests`` be mined
    again. Returns how many were blocked."""
    return sum(conn.execute("DELETE FROM forgotten_paths WHERE instr(scopes, ?) > 0", (digest,)).rowcount
               for digest in digests)


def delete_facts(conn: sqlite3.Connection, fact_ids: list[int]) -> int:
    """Delete the facts ``fact_ids`` and the decisions about them; the facts they had
    superseded are open again (their timelines are the caller's to apply). Returns how
    many decisions went."""
    ids = json.dumps(fact_ids)
    conn.execute(f"UPDATE facts SET superseded_by = NULL WHERE superseded_by IN ({IDS})", (ids,))
    decisions = conn.execute(f"DELETE FROM fact_decisions WHERE fact_id IN ({IDS})", (ids,)).rowcount
    conn.execute(f"DELETE FROM facts WHERE id IN ({IDS})", (ids,))
    return decisions


def existing_entities(conn: sqlite3.Connection, ids) -> set[int]:
    """Those of the entity ids ``ids`` that still exist."""
    return {i for i in ids if conn.execute("SELECT 1 FROM entities WHERE id = ?", (i,)).fetchone()}


def delete_unsupported_entities(conn: sqlite3.Connection) -> int:
    """Delete the entities no mention and no fact stands on, and the merges and splits
    naming a key that only they held. Returns how many entities went."""
    gone = json.dumps([r[0] for r in conn.execute(
        "SELECT e.id FROM entities e WHERE NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id"
        " OR m.raw_entity_id = e.id) AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.subject_id = e.id"
        " OR f.object_id = e.id OR f.raw_subject_id = e.id OR f.raw_object_id = e.id)")])
    keys = json.dumps([r[0] for r in conn.execute(f"SELECT DISTINCT key FROM entities WHERE id IN ({IDS})", (gone,))])
    count = conn.execute(f"DELETE FROM entities WHERE id IN ({IDS})", (gone,)).rowcount
    dropped = "SELECT value FROM json_each(?) WHERE value NOT IN (SELECT key FROM entities)"
    conn.execute(f"DELETE FROM entity_decisions WHERE name_key IN ({dropped}) OR into_key IN ({dropped})",
                 (keys, keys))
    return count


def entity_keys(conn: sqlite3.Connection, ids: list[int]) -> list[str]:
    """The name keys of the entities ``ids``, sorted, each once."""
    return sorted({r["key"] for r in conn.execute(f"SELECT key FROM entities WHERE id IN ({_marks(ids)})", ids)})


def facts_naming(conn: sqlite3.Connection, ids: list[int]) -> list[sqlite3.Row]:
    """Every fact (``id``, ``subject_id``, ``predicate``) whose subject or object, as
    resolved or as read, is one of the entities ``ids``."""
    marks = _marks(ids)
    return conn.execute(
        f"SELECT id, subject_id, predicate FROM facts WHERE subject_id IN ({marks}) OR object_id IN ({marks})"
        f" OR raw_subject_id IN ({marks}) OR raw_object_id IN ({marks})", ids * 4).fetchall()


def count_mentions_of_entities(conn: sqlite3.Connection, ids: list[int]) -> int:
    """How many mentions name one of the entities ``ids``, as resolved or as read."""
    marks = _marks(ids)
    return conn.execute(f"SELECT count(*) FROM mentions WHERE entity_id IN ({marks}) OR raw_entity_id IN ({marks})",
                        ids * 2).fetchone()[0]


def delete_entities(conn: sqlite3.Connection, ids: list[int], keys: list[str]) -> int:
    """Delete the entities ``ids`` (their aliases and resolutions cascade) with their
    mentions, and the merges, splits and fact decisions naming one of their ``keys``
    (:func:`entity_keys`). Returns how many decisions went."""
    marks, kmarks = _marks(ids), _marks(keys)
    conn.execute(f"DELETE FROM mentions WHERE entity_id IN ({marks}) OR raw_entity_id IN ({marks})", ids * 2)
    decisions = conn.execute(f"DELETE FROM entity_decisions WHERE name_key IN ({kmarks}) OR into_key IN ({kmarks})",
                             keys * 2).rowcount
    decisions += conn.execute(f"DELETE FROM fact_decisions WHERE subject_key IN ({kmarks})"
                              f" OR object_key IN ({kmarks})", keys * 2).rowcount
    conn.execute(f"DELETE FROM entities WHERE id IN ({marks})", ids)
    return decisions


def wings_any_order(conn: sqlite3.Connection) -> list[str]:
    """The wings of the palace, in the order SQLite finds them."""
    return [r[0] for r in conn.execute("SELECT DISTINCT wing FROM files")]


def wing_has_files(conn: sqlite3.Connection, wing: str) -> bool:
    """Whether any file is left in ``wing``."""
    return conn.execute("SELECT 1 FROM files WHERE wing = ? LIMIT 1", (wing,)).fetchone() is not None


def drop_wing_resolution(conn: sqlite3.Connection, wing: str) -> None:
    """Delete what resolving the gone ``wing`` recorded: its pending mark, its entity
    resolutions and its lower-case names."""
    conn.execute("DELETE FROM meta WHERE key = ?", (f"resolution_pending:{wing}",))
    conn.execute("DELETE FROM entity_resolutions WHERE wing = ?", (wing,))
    conn.execute("DELETE FROM lowercase_names WHERE wing = ?", (wing,))


def log_forget(conn: sqlite3.Connection, kind: str, target_hash: str, counts: dict, now: str) -> int:
    """Write the audit of one forget (``kind``, the SHA-256 of its target, its counts):
    no forgotten content. Returns its ``forget_log`` id."""
    return conn.execute("INSERT INTO forget_log (kind, target_hash, counts, created_at) VALUES (?, ?, ?, ?)",
                        (kind, target_hash, json.dumps(counts, sort_keys=True), now)).lastrowid


#: how many times, 0.1 s apart, :func:`compact` tries to empty the write-ahead log
CHECKPOINT_TRIES = 50


def compact(conn: sqlite3.Connection) -> bool:
    """Merge the full-text index (FTS5 ``optimize``: a deleted row's terms otherwise stay
    in its segments), vacuum the database and truncate its write-ahead log, so that
    deleted rows leave no bytes behind in ``palace.db`` or ``palace.db-wal``. Outside any
    transaction. Returns False when a reader in flight kept the log from being emptied
    (after :data:`CHECKPOINT_TRIES` tries)."""
    from palace.store.sqlite import transaction

    with transaction(conn):
        conn.execute("INSERT INTO drawers_fts(drawers_fts) VALUES ('optimize')")
    conn.execute("VACUUM")
    for _ in range(CHECKPOINT_TRIES):  # a reader in flight (a served command) keeps the log: wait for it
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            return True
        time.sleep(0.1)
    return False
