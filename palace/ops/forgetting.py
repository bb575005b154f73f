"""``palace forget``: remove what came from a note, a wing or about an entity, everywhere.

A note (or every note under a folder) or a whole wing loses its files row, drawers,
full-text rows, vectors, mentions, date mentions, lower-case name hits, and every fact
read in it — current, superseded and invalidated alike, so no sentence of it stays in
history — with the decisions about those facts. Entities and aliases that nothing else
supports go too; the wing is resolved again and the timelines of the subjects that lost
facts are recomputed (a value the note had superseded comes back). An entity is
forgotten with its mentions, facts, aliases, resolutions and the decisions naming it; the
notes that name it stay (forget them by path).

Then the store is compacted — the full-text index merged (FTS5 ``optimize``: a deleted
row's terms otherwise stay in its segments), the database vacuumed and its write-ahead
log truncated — so the forgotten text is in no file of the palace. The audit
(``forget_log``) keeps the kind, a SHA-256 of the target and the counts, no content. A
forgotten path is not mined again: :func:`palace.store.drawers.forgotten_paths` is read by
:func:`palace.mine.run.mine`, until :func:`allow` lifts it.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from palace.store import readings
from palace.store import sqlite as store
from palace.store.drawers import path_hash, remove_drawer
from palace.store.resolution import refresh_aliases
from palace.store.entities import find_entities
from palace.graph.resolution import JOINING_RULES
from palace.errors import PalaceError, UsageError
from palace.graph.temporal import apply_timelines, recorded_now

if TYPE_CHECKING:
    from palace.core import Palace


@dataclass(frozen=True)
class ForgetReport:
    """What :func:`forget` removed (or, with ``dry_run``, would remove): ``kind``
    (``path``, ``wing`` or ``entity``), the ``target`` as given, and counts of
    ``files``, ``drawers``, ``facts``, ``mentions``, ``entities`` and ``decisions``;
    ``audit_id`` is the ``forget_log`` row (None for a dry run)."""

    kind: str
    target: str
    dry_run: bool
    files: int = 0
    drawers: int = 0
    facts: int = 0
    mentions: int = 0
    entities: int = 0
    decisions: int = 0
    audit_id: int | None = None
    paths: tuple[str, ...] = field(default=(), repr=False)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _scopes(root: str, wing: str, rel: str) -> str:
    """The hashes a forgotten note is found by for ``--allow``: its root with each folder
    prefix of ``rel`` and ``rel`` itself, and its wing."""
    parts = rel.split("/")
    prefixes = [""] + ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return " ".join([_digest(f"{root}\0{prefix}") for prefix in prefixes] + [_digest(f"wing\0{wing}")])


def allow(palace: "Palace", path: str | None = None, *, wing: str | None = None) -> int:
    """Let the forgotten notes at ``path`` (a note or a folder, as given to
    :func:`forget`), or of ``wing``, be mined again. Returns how many were blocked."""
    if wing is not None:
        wanted = [_digest(f"wing\0{wing}")]
    elif path is not None:
        resolved = Path(path).expanduser().resolve()
        wanted = []
        for root in [resolved, *resolved.parents]:  # whichever folder was the root, the hash says
            rel = resolved.relative_to(root).as_posix()
            wanted.append(_digest(f"{root}\0{'' if rel == '.' else rel}"))
    else:
        raise UsageError("--allow needs the PATH or the --wing that was forgotten")
    with store.transaction(palace.conn):
        return sum(palace.conn.execute("DELETE FROM forgotten_paths WHERE instr(scopes, ?) > 0", (digest,)).rowcount
                   for digest in wanted)


def forget(palace: "Palace", *, path: str | None = None, wing: str | None = None, entity: str | None = None,
           dry_run: bool = False) -> ForgetReport:
    """Forget one note or folder (``path``, a file system path under a mined root), a
    whole ``wing``, or an ``entity`` (a name or alias); see the module. Hold the
    one-writer lock (:func:`palace.ops.locks.sole_writer`). Raises :class:`UsageError`
    when the target is unknown or not exactly one is given."""
    if sum(x is not None for x in (path, wing, entity)) != 1:
        raise UsageError("forget one thing: a PATH, --wing W or --entity NAME",
                         hint="palace forget notes/2024-03-01.md | --wing diary | --entity 'Dana Lee'")
    conn = palace.conn
    if entity is not None:
        return _forget_entity(palace, entity, dry_run)
    if wing is not None:
        rows = conn.execute("SELECT id, wing, path, root FROM files WHERE wing = ?", (wing,)).fetchall()
        if not rows:
            raise UsageError(f"no wing {wing!r} in this palace", hint="palace status lists the wings")
        kind, target = "wing", wing
    else:
        rows = _files_at(conn, path)
        kind, target = "path", path
    file_ids = [r["id"] for r in rows]
    marks = ",".join("?" * len(file_ids))
    drawers = conn.execute(f"SELECT rowid, id FROM drawers WHERE file_id IN ({marks})", file_ids).fetchall()
    places = [(r["wing"], r["path"]) for r in rows]
    facts = _facts_of(conn, [d["id"] for d in drawers], places)
    mentions = conn.execute(
        f"SELECT count(*) FROM mentions WHERE drawer_id IN (SELECT id FROM drawers WHERE file_id IN ({marks}))",
        file_ids).fetchone()[0]
    report = dict(kind=kind, target=target, files=len(rows), drawers=len(drawers), facts=len(facts),
                  mentions=mentions, paths=tuple(f"{w}/{p}" for w, p in places))
    now = recorded_now()
    wings = sorted({w for w, _ in places})
    try:
        with store.transaction(conn):  # a dry run does it all, counts, and rolls back
            decisions = _delete_facts(conn, facts, palace.registry)
            for drawer in drawers:
                remove_drawer(conn, drawer["rowid"], drawer["id"])  # mentions, date mentions, hits go with it
            conn.execute(f"DELETE FROM files WHERE id IN ({marks})", file_ids)
            gone = _delete_unsupported(conn)
            if dry_run:
                raise _DryRun(ForgetReport(dry_run=True, entities=gone, decisions=decisions, **report))
            conn.executemany("INSERT OR REPLACE INTO forgotten_paths (hash, scopes, created_at) VALUES (?, ?, ?)",
                             [(path_hash(r["wing"], r["path"]), _scopes(r["root"], r["wing"], r["path"]), now)
                              for r in rows])
            for name in wings:
                store.set_meta(conn, f"resolution_pending:{name}", now)
            audit = _audit(conn, kind, target, now, files=len(rows), drawers=len(drawers), facts=len(facts),
                           mentions=mentions, entities=gone, decisions=decisions)
    except _DryRun as dry:
        return dry.report
    _finish(palace, wings)
    return ForgetReport(dry_run=False, entities=gone, decisions=decisions, audit_id=audit, **report)


class _DryRun(Exception):
    """Raised inside the transaction of a dry run, so that it rolls back."""

    def __init__(self, report: ForgetReport) -> None:
        super().__init__("dry run")
        self.report = report


def _forget_entity(palace: "Palace", name: str, dry_run: bool) -> ForgetReport:
    conn = palace.conn
    rows = find_entities(conn, name)
    ids = [r["id"] for r in rows]
    keys = sorted({r["key"] for r in conn.execute(
        f"SELECT key FROM entities WHERE id IN ({','.join('?' * len(ids))})", ids)})
    marks = ",".join("?" * len(ids))
    facts = conn.execute(
        f"SELECT id, subject_id, predicate FROM facts WHERE subject_id IN ({marks}) OR object_id IN ({marks})"
        f" OR raw_subject_id IN ({marks}) OR raw_object_id IN ({marks})", ids * 4).fetchall()
    mentions = conn.execute(f"SELECT count(*) FROM mentions WHERE entity_id IN ({marks}) OR raw_entity_id IN ({marks})",
                            ids * 2).fetchone()[0]
    report = dict(kind="entity", target=name, facts=len(facts), mentions=mentions, entities=len(ids))
    now = recorded_now()
    wings = [r[0] for r in conn.execute("SELECT DISTINCT wing FROM files")]
    try:
        return _forget_entity_now(palace, conn, name, ids, keys, facts, mentions, report, now, wings, dry_run)
    except _DryRun as dry:
        return dry.report


def _forget_entity_now(palace, conn, name, ids, keys, facts, mentions, report, now, wings, dry_run):
    marks = ",".join("?" * len(ids))
    with store.transaction(conn):
        decisions = _delete_facts(conn, facts, palace.registry)
        conn.execute(f"DELETE FROM mentions WHERE entity_id IN ({marks}) OR raw_entity_id IN ({marks})", ids * 2)
        kmarks = ",".join("?" * len(keys))
        decisions += conn.execute(f"DELETE FROM entity_decisions WHERE name_key IN ({kmarks}) OR into_key IN ({kmarks})",
                                  keys * 2).rowcount
        decisions += conn.execute(f"DELETE FROM fact_decisions WHERE subject_key IN ({kmarks})"
                                  f" OR object_key IN ({kmarks})", keys * 2).rowcount
        conn.execute(f"DELETE FROM entities WHERE id IN ({marks})", ids)  # aliases and resolutions cascade
        gone = len(ids) + _delete_unsupported(conn)
        if dry_run:
            raise _DryRun(ForgetReport(dry_run=True, decisions=decisions, **{**report, "entities": gone}))
        for wing in wings:
            store.set_meta(conn, f"resolution_pending:{wing}", now)
        audit = _audit(conn, "entity", name, now, facts=len(facts), mentions=mentions, entities=gone,
                       decisions=decisions)
    _finish(palace, wings)
    return ForgetReport(dry_run=False, decisions=decisions, audit_id=audit, **{**report, "entities": gone})


def _files_at(conn, path: str):
    """The files rows at ``path`` (a note, or every note under a folder), under any root."""
    resolved = Path(path).expanduser().resolve()
    found = []
    for wing, root in conn.execute("SELECT DISTINCT wing, root FROM files").fetchall():
        try:
            rel = resolved.relative_to(Path(root)).as_posix()
        except ValueError:
            continue
        rel = "" if rel == "." else rel
        found += conn.execute(
            "SELECT id, wing, path, root FROM files WHERE wing = ? AND (path = ? OR ? = '' OR path LIKE ? ESCAPE '\\')",
            (wing, rel, rel, rel.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%")).fetchall()
    if not found:
        raise UsageError(f"no mined note at {path}", hint="give the path of a note or folder under a mined root"
                                                           " (palace status lists them)")
    return found


#: SQL of a JSON array parameter as rows (``value``): no limit on the number of ids
IDS = "SELECT value FROM json_each(?)"


def _facts_of(conn, drawer_ids: list[str], places: list[tuple[str, str]]):
    """Every fact read in those drawers or, in any version, at those paths."""
    rows = {r["id"]: r for r in conn.execute(
        f"SELECT id, subject_id, predicate FROM facts WHERE drawer_id IN ({IDS})", (json.dumps(drawer_ids),))}
    for wing, rel in places:
        for r in conn.execute("SELECT id, subject_id, predicate FROM facts WHERE wing = ? AND path = ?", (wing, rel)):
            rows[r["id"]] = r
    return list(rows.values())


def _delete_facts(conn, facts, registry: dict) -> int:
    """Delete ``facts`` and the decisions about them; reopen what they had superseded.
    Returns how many decisions went."""
    if not facts:
        return 0
    ids = json.dumps([f["id"] for f in facts])
    conn.execute(f"UPDATE facts SET superseded_by = NULL WHERE superseded_by IN ({IDS})", (ids,))
    decisions = conn.execute(f"DELETE FROM fact_decisions WHERE fact_id IN ({IDS})", (ids,)).rowcount
    conn.execute(f"DELETE FROM facts WHERE id IN ({IDS})", (ids,))
    groups = {(f["subject_id"], f["predicate"]) for f in facts}
    apply_timelines(conn, [g for g in groups if conn.execute("SELECT 1 FROM entities WHERE id = ?", (g[0],)).fetchone()],
                    registry)
    return decisions


def _delete_unsupported(conn) -> int:
    """Delete the entities no mention and no fact stands on (after the deletions), and
    the merges and splits naming a key that only they held. Returns how many."""
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


def _audit(conn, kind: str, target: str, now: str, **counts) -> int:
    return conn.execute("INSERT INTO forget_log (kind, target_hash, counts, created_at) VALUES (?, ?, ?, ?)",
                        (kind, _digest(target), json.dumps(counts, sort_keys=True), now)).lastrowid


def _finish(palace: "Palace", wings: list[str]) -> None:
    """Resolve the wings again, drop the vectors, and compact the store so that no file
    keeps the forgotten text."""
    from palace.mine.indexing import flush_tombstones
    from palace.mine.run import finish_resolution

    conn = palace.conn
    for wing in wings:
        if conn.execute("SELECT 1 FROM files WHERE wing = ? LIMIT 1", (wing,)).fetchone():
            finish_resolution(conn, wing, palace.registry, palace.config)
        else:  # the wing is gone: what its names implied elsewhere goes with it
            with store.transaction(conn):
                conn.execute("DELETE FROM meta WHERE key = ?", (f"resolution_pending:{wing}",))
                conn.execute("DELETE FROM entity_resolutions WHERE wing = ?", (wing,))
                conn.execute("DELETE FROM lowercase_names WHERE wing = ?", (wing,))
                refresh_aliases(conn, {}, {}, JOINING_RULES)  # the aliases its resolutions implied
                readings.retype(conn, readings.changed_names(conn, wing))  # names read in other wings too
                readings.clear_changed(conn, wing)
    flush_tombstones(palace)
    compact(palace)


def compact(palace: "Palace") -> None:
    """Merge the full-text index, vacuum the database and truncate its write-ahead log:
    deleted rows leave no bytes behind in ``palace.db`` or ``palace.db-wal``."""
    conn = palace.conn
    with store.transaction(conn):
        conn.execute("INSERT INTO drawers_fts(drawers_fts) VALUES ('optimize')")
    conn.execute("VACUUM")
    for _ in range(50):  # a reader in flight (a served command) keeps the log: wait for it
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            return
        time.sleep(0.1)
    raise PalaceError("the store was compacted, but a reader kept the write-ahead log from being emptied",
                      hint="run `palace forget` again when no command reads the palace (stop `palace serve`)")
