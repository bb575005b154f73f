"""``palace doctor``: check that the palace is whole, and rebuild what is derived.

SQLite is the truth; the FTS index, the vectors and entity resolution are derived from
it, so each can be rebuilt from the stored drawers without the notes. The checks:

- ``integrity``: SQLite's ``PRAGMA integrity_check``;
- ``schema``: which migrations are applied (opening the palace applies those it lacks,
  and refuses one newer than this version, so this one reports);
- ``fts``: one full-text row per drawer, same rowids (and FTS5's own integrity check);
- ``vectors``: one vector per embedded drawer, none for a drawer that is gone, none zero
  or NaN, and how many drawers still wait to be embedded;
- ``resolution``: no wing left with its entity resolution pending by a killed run;
- ``orphans``: no row pointing at a parent that is gone (``PRAGMA foreign_key_check``).

With ``repair=True`` (under the one-writer lock) doctor rebuilds what failed: the FTS
index from the drawers; the vectors of missing or damaged drawers from their stored
texts, in batches that each commit (a kill loses one batch, and the next repair goes
on); the vectors of deleted drawers removed; pending resolutions finished; orphan rows
(whose parent is gone, so nothing can show them) deleted, first. It then checks again
and says what it did. A damaged SQLite file cannot be repaired from inside: the hint
says to move it aside and mine again (the notes are the source). Every read and write
of the tables is a function of :mod:`palace.store.upkeep`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from palace.store import sqlite as db
from palace.store import upkeep
from palace.store.vectors import usable

if TYPE_CHECKING:
    from palace.config import Config
    from palace.store.store import Store

__all__ = ["Check", "DoctorReport", "doctor"]

#: vectors read per batch when looking for zero or NaN ones
SCAN_BATCH = 2000


@dataclass(frozen=True)
class Check:
    """One check: ``name`` (``integrity``, ``schema``, ``fts``, ``vectors``,
    ``resolution``, ``orphans``), ``ok``, what was found (``detail``, in words) and, when
    it can be fixed, the ``hint``."""

    name: str
    ok: bool
    detail: str
    hint: str | None = None


@dataclass(frozen=True)
class DoctorReport:
    """The checks in order; ``repaired``: what ``--repair`` did, in words (empty without
    it); ``before``: the failed checks that led to the repair (empty without it)."""

    checks: tuple[Check, ...]
    repaired: tuple[str, ...] = ()
    before: tuple[Check, ...] = ()
    ok: bool = field(init=False, default=False)  # every check passed

    def __post_init__(self) -> None:
        object.__setattr__(self, "ok", all(c.ok for c in self.checks))

    def to_json(self) -> str:
        """One JSON object: ``checks`` (each ``{name, ok, detail, hint}``), ``repaired``,
        ``before`` and ``ok`` (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def doctor(store: "Store", config: "Config", registry: dict, *, repair: bool = False) -> DoctorReport:
    """Check the palace in ``store``; with ``repair``, rebuild what is derived and check
    again (``config`` and ``registry``, the predicate registry, resolve the wings a run
    left pending).

    The caller holds the one-writer lock for a repair (:meth:`palace.core.Palace.doctor`
    does). Raises nothing for a damaged palace: the ``integrity`` check says so (SQLite
    errors while reading are reported as a failed check)."""
    checks = _checks(store)
    if not repair or all(c.ok for c in checks):
        return DoctorReport(checks)
    failed = {c.name for c in checks if not c.ok}
    if "integrity" in failed:
        return DoctorReport(checks, ("nothing: palace.db itself is damaged; SQLite cannot rebuild it in place",),
                            tuple(c for c in checks if not c.ok))
    done: list[str] = []
    if "orphans" in failed:  # first: removing an orphan drawer can change what the others find
        done.append(_delete_orphans(store.conn))
        failed = {c.name for c in _checks(store) if not c.ok}
    if "fts" in failed:
        done.append(_rebuild_fts(store.conn))
    if "front_matter" in failed:
        done.append(_remake_front_matter(store.conn))
    if "vectors" in failed:
        done += _repair_vectors(store)
    if "resolution" in failed:
        from palace.mine.run import finish_resolution, pending_resolutions

        wings = pending_resolutions(store.conn)
        for wing in wings:
            finish_resolution(store.conn, wing, registry, config)
        done.append(f"finished the entity resolution of {', '.join(wings)}")
    return DoctorReport(_checks(store), tuple(done), tuple(c for c in checks if not c.ok))


def _checks(store: "Store") -> tuple[Check, ...]:
    conn = store.conn
    out = [_integrity(conn)]
    if not out[0].ok:
        return tuple(out)
    for check in (_schema, _fts, _resolution, _orphans, _front_matter):
        try:
            out.append(check(conn))
        except sqlite3.DatabaseError as exc:
            out.append(Check(check.__name__.strip("_"), False, f"could not be read: {exc}"))
    out.append(_vectors(store))
    return tuple(out)


def _integrity(conn: sqlite3.Connection) -> Check:
    try:
        rows = upkeep.integrity_check(conn)
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    if rows == ["ok"]:
        return Check("integrity", True, "palace.db is sound")
    return Check("integrity", False, "palace.db is damaged: " + "; ".join(rows[:5]),
                 "move palace.db aside and run `palace mine` again on your notes (they are the source)")


def _schema(conn: sqlite3.Connection) -> Check:
    """What the schema is. Opening the palace already applied every migration this
    version knows and refused a database with one it does not (:class:`SchemaError`),
    so this check reports and cannot fail."""
    known = [name for name, _ in db.MIGRATIONS]
    return Check("schema", True, f"{len(known)} migrations applied, latest {known[-1]}")


def _fts(conn: sqlite3.Connection) -> Check:
    counts = upkeep.fts_counts(conn)
    problems = []
    if counts.unindexed:
        problems.append(f"{counts.unindexed} drawers missing from the full-text index")
    if counts.stray:
        problems.append(f"{counts.stray} full-text rows of drawers that are gone")
    if not problems:
        try:  # FTS5's check is written as an INSERT: a read-only palace cannot run it
            upkeep.check_fts_index(conn)
        except sqlite3.DatabaseError as exc:
            if "readonly" not in str(exc).replace("-", ""):
                problems.append(f"the full-text index is damaged ({exc})")
    if problems:
        return Check("fts", False, "; ".join(problems), "`palace doctor --repair` rebuilds it from the drawers")
    return Check("fts", True, f"{counts.indexed} full-text rows = {counts.drawers} drawers")


def _resolution(conn: sqlite3.Connection) -> Check:
    from palace.mine.run import pending_resolutions

    wings = pending_resolutions(conn)
    if wings:
        return Check("resolution", False, f"entity resolution pending in {', '.join(wings)} (a run was interrupted)",
                     "`palace doctor --repair` (or the next `palace mine`) finishes it")
    return Check("resolution", True, "nothing pending")


def _orphans(conn: sqlite3.Connection) -> Check:
    rows = upkeep.orphan_rows(conn)
    if not rows:
        return Check("orphans", True, "every row's parent exists")
    by_table: dict[str, int] = {}
    for row in rows:
        by_table[row[0]] = by_table.get(row[0], 0) + 1
    return Check("orphans", False, "rows whose parent is gone: " + ", ".join(f"{n} in {t}" for t, n in
                                                                           sorted(by_table.items())),
                 "`palace doctor --repair` deletes them")


def _missing_front_matter(conn: sqlite3.Connection) -> dict[str, tuple[str, list[str], list[str]]]:
    from palace.store.entities import entity_by_key
    from palace.store.files import front_matter_concepts

    return {key: made for key, made in front_matter_concepts(conn).items() if entity_by_key(conn, key) is None}


def _front_matter(conn: sqlite3.Connection) -> Check:
    """Every concept a note's front matter makes (its title, named by its ``aliases``) exists."""
    missing = _missing_front_matter(conn)
    if not missing:
        return Check("front_matter", True, "every note's front-matter concept exists")
    shown = "; ".join(f"{title} ({', '.join(paths)})" for title, _, paths in list(missing.values())[:5])
    return Check("front_matter", False, f"{len(missing)} concept{'s' if len(missing) > 1 else ''} named by a note's"
                 f" front matter missing: {shown}", "`palace doctor --repair` makes them again from the notes' rows")


def _remake_front_matter(conn: sqlite3.Connection) -> str:
    from palace.store.graph import add_alias, entity_id

    missing = _missing_front_matter(conn)
    with db.transaction(conn):
        for title, aliases, _ in missing.values():
            concept = entity_id(conn, {}, title, "CONCEPT")
            for alias in aliases:
                add_alias(conn, concept, alias, "front matter")
    return f"made {len(missing)} front-matter concept{'s' if len(missing) != 1 else ''} again"


def _vectors(store: "Store") -> Check:
    conn = store.conn
    embedded = upkeep.drawer_ids(conn, embedded=True)
    waiting = upkeep.count_drawers(conn, embedded=False)
    hint = "`palace doctor --repair` embeds them again from the stored texts"
    if store.vectors.lost():
        if not embedded:
            return Check("vectors", not waiting, f"no vector store yet; {waiting} drawers wait to be embedded",
                         None if not waiting else hint)
        return Check("vectors", False, f"the vector store is missing: {len(embedded)} drawers lost their vectors",
                     hint)
    try:
        stored = store.vectors.ids()
    except Exception as exc:  # noqa: BLE001 — whatever the store raises, the answer is "rebuild it"
        return Check("vectors", False, f"the vector store cannot be read: {exc}",
                     "move chroma/ aside, then `palace doctor --repair`")
    missing = len(embedded - stored)
    stray = len(stored - embedded - upkeep.drawer_ids(conn, embedded=False))
    bad = len(_bad_vectors(store, sorted(stored & embedded)))
    problems = []
    if missing:
        problems.append(f"{missing} drawers marked embedded have no vector")
    if bad:
        problems.append(f"{bad} vectors are zero or not numbers")
    if stray:
        problems.append(f"{stray} vectors of drawers that are gone")
    if waiting:
        problems.append(f"{waiting} drawers wait to be embedded")
    if problems:
        return Check("vectors", False, "; ".join(problems), hint)
    return Check("vectors", True, f"{len(stored)} vectors = {len(embedded)} embedded drawers, none zero or NaN")


def _bad_vectors(store: "Store", ids: list[str]) -> list[str]:
    """The ids among ``ids`` whose stored vector is zero or holds a NaN or infinity."""
    bad = []
    for i in range(0, len(ids), SCAN_BATCH):
        got, matrix = store.vectors.embeddings(ids[i:i + SCAN_BATCH])
        if not got:
            continue
        bad += [d for d, ok in zip(got, usable(matrix)) if not ok]
    return bad


def _delete_orphans(conn: sqlite3.Connection) -> str:
    """Delete the rows whose parent is gone (a crash of older code, a hand edit): they
    cannot be shown or searched (:func:`palace.store.upkeep.delete_orphans`). A fact no
    other fact may point at any more has its timeline closed again by the next mine.
    Re-mining derives them again from the notes."""
    rows = upkeep.orphan_rows(conn)
    with db.transaction(conn):
        upkeep.delete_orphans(conn, rows)
    return f"deleted {len(rows)} rows whose parent was gone"


def _rebuild_fts(conn: sqlite3.Connection) -> str:
    with db.transaction(conn):
        count = upkeep.rebuild_fts(conn)
    return f"rebuilt the full-text index ({count} drawers)"


def _repair_vectors(store: "Store") -> list[str]:
    from palace.mine.indexing import embed_pending

    conn = store.conn
    done = []
    embedded = upkeep.drawer_ids(conn, embedded=True)
    stored = set() if store.vectors.lost() else store.vectors.ids()
    live = upkeep.drawer_ids(conn)
    stray = sorted(stored - live)
    if stray:
        store.vectors.delete(stray)
        done.append(f"removed {len(stray)} vectors of drawers that are gone")
    again = sorted((embedded - stored) | set(_bad_vectors(store, sorted(stored & embedded))))
    if again:
        with db.transaction(conn):
            upkeep.mark_for_embedding(conn, again)
    count = embed_pending(store)
    if count:
        done.append(f"embedded {count} drawers from their stored texts")
    return done
