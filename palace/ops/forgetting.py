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
the mine run (:meth:`palace.mine.run.MineRun.decide`), until :func:`allow` lifts it. The
list (hashes of each note's ``wing/path`` and of its content) travels with an export, and
:func:`forget_listed` applies it on import. Every read and delete of the tables is a
function of :mod:`palace.store.forget`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from palace.errors import PalaceError, UsageError
from palace.graph.resolution import JOINING_RULES
from palace.graph.temporal import apply_timelines, recorded_now
from palace.store import forget as forget_rows
from palace.store import readings
from palace.store import sqlite as db
from palace.store.drawers import forgotten_paths, path_hash, remove_drawer
from palace.store.entities import find_entities
from palace.store.resolution import refresh_aliases

if TYPE_CHECKING:
    import sqlite3

    from palace.config import Config
    from palace.store.store import Store

__all__ = ["ForgetReport", "forget", "forget_listed", "allow", "compact"]


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


def allow(conn: "sqlite3.Connection", path: str | None = None, *, wing: str | None = None) -> int:
    """Let the forgotten notes at ``path`` (a note or a folder, on disk or relative to
    its wing's root, as given to :func:`forget`), or of ``wing``, be mined again. Returns how many were blocked.
    Raises :class:`UsageError` when neither is given."""
    if wing is not None:
        wanted = [_digest(f"wing\0{wing}")]
    elif path is not None:
        resolved = Path(path).expanduser().resolve()
        wanted = []
        for root in [resolved, *resolved.parents]:  # whichever folder was the root, the hash says
            rel = resolved.relative_to(root).as_posix()
            wanted.append(_digest(f"{root}\0{'' if rel == '.' else rel}"))
        rel = path.strip().replace("\\", "/").strip("/")
        if rel and not Path(rel).is_absolute():  # relative to a wing's root, as `palace ask` prints it
            for wing, root in forget_rows.roots(conn):
                wanted.append(_digest(f"{root}\0{rel.removeprefix(wing + '/')}"))
                wanted.append(_digest(f"{root}\0{rel}"))
    else:
        raise UsageError("--allow needs the PATH or the --wing that was forgotten")
    with db.transaction(conn):
        return forget_rows.allow_scopes(conn, wanted)


def forget(store: "Store", config: "Config", registry: dict, *, path: str | None = None, wing: str | None = None,
           entity: str | None = None, dry_run: bool = False) -> ForgetReport:
    """Forget one note or folder (``path``, a file system path under a mined root), a
    whole ``wing``, or an ``entity`` (a name or alias) from the palace in ``store``; see
    the module. ``config`` and ``registry`` (the predicate registry) resolve the wings
    again. The caller holds the one-writer lock (:meth:`palace.core.Palace.forget`
    does; a dry run needs none). Raises :class:`UsageError` when the target is unknown
    or not exactly one is given, :class:`PalaceError` when a reader kept the compacted
    store's write-ahead log."""
    if sum(x is not None for x in (path, wing, entity)) != 1:
        raise UsageError("forget one thing: a PATH, --wing W or --entity NAME",
                         hint="palace forget notes/2024-03-01.md | --wing diary | --entity 'Dana Lee'")
    conn = store.conn
    if entity is not None:
        return _forget_entity(store, config, registry, entity, dry_run)
    if wing is not None:
        rows = forget_rows.files_of_wing(conn, wing)
        if not rows:
            raise UsageError(f"no wing {wing!r} in this palace", hint="palace status lists the wings")
        kind, target = "wing", wing
    else:
        rows = _files_at(conn, path)
        kind, target = "path", path
    return _forget_files(store, config, registry, rows, kind, target, dry_run)


def forget_listed(store: "Store", config: "Config", registry: dict, entries: list[dict]) -> int:
    """Apply the forget list of an export (:func:`palace.store.forget.forget_list`:
    ``path_hash`` of a note's ``wing/path``, ``content_hash`` of its bytes, ``scopes``) to
    the palace in ``store``: forget every note found by either hash, as ``palace forget``
    does, and keep every entry so that no later mine reads those notes again. Returns how
    many notes were forgotten now. The caller holds the one-writer lock."""
    conn = store.conn
    paths = {e["path_hash"] for e in entries if isinstance(e, dict) and e.get("path_hash")}
    contents = {e["content_hash"] for e in entries if isinstance(e, dict) and e.get("content_hash")}
    rows = [r for r in forget_rows.files_with_hashes(conn)
            if path_hash(r["wing"], r["path"]) in paths or (r["content_hash"] and r["content_hash"] in contents)]
    forgotten = _forget_files(store, config, registry, rows, "path", "(import)", False).files if rows else 0
    with db.transaction(conn):
        known = forgotten_paths(conn)
        forget_rows.remember_forgotten(conn, [
            (e["path_hash"], e.get("scopes") or "", e.get("content_hash"))
            for e in entries if isinstance(e, dict) and e.get("path_hash") and e["path_hash"] not in known],
            recorded_now())
    return forgotten


def _forget_files(store: "Store", config: "Config", registry: dict, rows: list, kind: str, target: str,
                  dry_run: bool) -> ForgetReport:
    """Forget the notes of the files ``rows`` (see :func:`forget`); ``kind`` and
    ``target`` name what was asked for, in the report and the audit."""
    conn = store.conn
    file_ids = [r["id"] for r in rows]
    drawers = forget_rows.drawers_of_files(conn, file_ids)
    places = [(r["wing"], r["path"]) for r in rows]
    facts = _facts_of(conn, [d["id"] for d in drawers], places)
    mentions = forget_rows.count_mentions_of_files(conn, file_ids)
    report = dict(kind=kind, target=target, files=len(rows), drawers=len(drawers), facts=len(facts),
                  mentions=mentions, paths=tuple(f"{w}/{p}" for w, p in places))
    now = recorded_now()
    wings = sorted({w for w, _ in places})
    try:
        with db.transaction(conn):  # a dry run does it all, counts, and rolls back
            decisions = _delete_facts(conn, facts, registry)
            for drawer in drawers:
                remove_drawer(conn, drawer["rowid"], drawer["id"])  # mentions, date mentions, hits go with it
            forget_rows.delete_files(conn, file_ids)
            gone = forget_rows.delete_unsupported_entities(conn)
            if dry_run:
                raise _DryRun(ForgetReport(dry_run=True, entities=gone, decisions=decisions, **report))
            forget_rows.remember_forgotten(conn, [(path_hash(r["wing"], r["path"]), _scopes(r["root"], r["wing"], r["path"]),
                                                   r["content_hash"]) for r in rows], now)
            for name in wings:
                db.set_meta(conn, f"resolution_pending:{name}", now)
            audit = _audit(conn, kind, target, now, files=len(rows), drawers=len(drawers), facts=len(facts),
                           mentions=mentions, entities=gone, decisions=decisions)
    except _DryRun as dry:
        return dry.report
    _finish(store, config, registry, wings)
    return ForgetReport(dry_run=False, entities=gone, decisions=decisions, audit_id=audit, **report)


class _DryRun(Exception):
    """Raised inside the transaction of a dry run, so that it rolls back."""

    def __init__(self, report: ForgetReport) -> None:
        super().__init__("dry run")
        self.report = report


def _forget_entity(store: "Store", config: "Config", registry: dict, name: str, dry_run: bool) -> ForgetReport:
    conn = store.conn
    ids = [r["id"] for r in find_entities(conn, name)]
    keys = forget_rows.entity_keys(conn, ids)
    facts = forget_rows.facts_naming(conn, ids)
    mentions = forget_rows.count_mentions_of_entities(conn, ids)
    report = dict(kind="entity", target=name, facts=len(facts), mentions=mentions, entities=len(ids))
    now = recorded_now()
    wings = forget_rows.wings_any_order(conn)
    try:
        with db.transaction(conn):
            decisions = _delete_facts(conn, facts, registry)
            decisions += forget_rows.delete_entities(conn, ids, keys)  # aliases and resolutions cascade
            gone = len(ids) + forget_rows.delete_unsupported_entities(conn)
            if dry_run:
                raise _DryRun(ForgetReport(dry_run=True, decisions=decisions, **{**report, "entities": gone}))
            for wing in wings:
                db.set_meta(conn, f"resolution_pending:{wing}", now)
            audit = _audit(conn, "entity", name, now, facts=len(facts), mentions=mentions, entities=gone,
                           decisions=decisions)
    except _DryRun as dry:
        return dry.report
    _finish(store, config, registry, wings)
    return ForgetReport(dry_run=False, decisions=decisions, audit_id=audit, **{**report, "entities": gone})


def _files_at(conn: "sqlite3.Connection", path: str) -> list:
    """The files rows at ``path`` (a note, or every note under a folder): a path on disk
    under any root; else a path relative to a wing's root, as ``palace ask`` prints it
    (``meetings/2024-04-12.md``, a trailing ``:line`` or ``:first-last`` allowed, or led
    by the wing's name: ``sample/meetings/2024-04-12.md``). Raises :class:`UsageError`
    when nothing is there, or when a relative path names notes in several wings."""
    resolved = Path(path).expanduser().resolve()
    found = []
    for wing, root in forget_rows.roots(conn):
        try:
            rel = resolved.relative_to(Path(root)).as_posix()
        except ValueError:
            continue
        found += forget_rows.files_under(conn, wing, "" if rel == "." else rel)
    if not found:
        found = _files_in_wings(conn, path)
    if not found:
        raise UsageError(f"no mined note at {path}", hint="give the path of a note or folder under a mined root,"
                                                           " or relative to its wing as `palace ask` prints it"
                                                           " (palace status lists them)")
    return found


def _files_in_wings(conn: "sqlite3.Connection", path: str) -> list:
    """The files rows at ``path`` read relative to a wing's root (see :func:`_files_at`)."""
    rel = re.sub(r":\d+(?:-\d+)?$", "", path.strip()).replace("\\", "/").strip("/")
    if not rel or Path(rel).is_absolute() or ".." in rel.split("/"):
        return []
    by_wing: dict[str, list] = {}
    for wing in forget_rows.wings_any_order(conn):
        rows = forget_rows.files_under(conn, wing, rel)
        if not rows and rel.startswith(wing + "/"):  # sample/meetings/… : the wing, then its path
            rows = forget_rows.files_under(conn, wing, rel[len(wing) + 1:])
        if rows:
            by_wing[wing] = rows
    if len(by_wing) > 1:
        raise UsageError(f"{rel} names notes in several wings: {', '.join(sorted(by_wing))}",
                         hint=f"lead it with the wing's name: {sorted(by_wing)[0]}/{rel}")
    return next(iter(by_wing.values()), [])


def _facts_of(conn: "sqlite3.Connection", drawer_ids: list[str], places: list[tuple[str, str]]) -> list:
    """Every fact read in those drawers or, in any version, at those paths."""
    rows = {r["id"]: r for r in forget_rows.facts_of_drawers(conn, drawer_ids)}
    for wing, rel in places:
        for r in forget_rows.facts_at(conn, wing, rel):
            rows[r["id"]] = r
    return list(rows.values())


def _delete_facts(conn: "sqlite3.Connection", facts: list, registry: dict) -> int:
    """Delete ``facts`` and the decisions about them; reopen what they had superseded
    (the timelines of their subjects that remain, again). Returns how many decisions went."""
    if not facts:
        return 0
    decisions = forget_rows.delete_facts(conn, [f["id"] for f in facts])
    groups = {(f["subject_id"], f["predicate"]) for f in facts}
    present = forget_rows.existing_entities(conn, {g[0] for g in groups})
    apply_timelines(conn, [g for g in groups if g[0] in present], registry)
    return decisions


def _audit(conn: "sqlite3.Connection", kind: str, target: str, now: str, **counts) -> int:
    return forget_rows.log_forget(conn, kind, _digest(target), counts, now)


def _finish(store: "Store", config: "Config", registry: dict, wings: list[str]) -> None:
    """Resolve the wings again, drop the vectors, and compact the store so that no file
    keeps the forgotten text."""
    from palace.mine.indexing import flush_tombstones
    from palace.mine.run import finish_resolution

    conn = store.conn
    for wing in wings:
        if forget_rows.wing_has_files(conn, wing):
            finish_resolution(conn, wing, registry, config)
        else:  # the wing is gone: what its names implied elsewhere goes with it
            with db.transaction(conn):
                forget_rows.drop_wing_resolution(conn, wing)
                refresh_aliases(conn, {}, {}, JOINING_RULES)  # the aliases its resolutions implied
                readings.retype(conn, readings.changed_names(conn, wing))  # names read in other wings too
                readings.clear_changed(conn, wing)
    flush_tombstones(store)
    compact(conn)


def compact(conn: "sqlite3.Connection") -> None:
    """Merge the full-text index, vacuum the database and truncate its write-ahead log:
    deleted rows leave no bytes behind in ``palace.db`` or ``palace.db-wal``
    (:func:`palace.store.forget.compact`). Raises :class:`PalaceError` when a reader in
    flight kept the log."""
    if not forget_rows.compact(conn):
        raise PalaceError("the store was compacted, but a reader kept the write-ahead log from being emptied",
                          hint="run `palace forget` again when no command reads the palace (stop `palace serve`)")
