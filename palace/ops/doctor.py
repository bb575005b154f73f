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
(whose parent is gone, so nothing can show them) deleted, first. It then checks again and says what it did. A damaged SQLite file cannot be
repaired from inside: the hint says to move it aside and mine again (the notes are the
source).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from palace.store import sqlite as store
from palace.store.vectors import usable

if TYPE_CHECKING:
    from palace.core import Palace

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


def doctor(palace: "Palace", *, repair: bool = False) -> DoctorReport:
    """Check the palace; with ``repair``, rebuild what is derived and check again.

    The caller holds the one-writer lock for a repair (:func:`palace.ops.locks.sole_writer`).
    Raises nothing for a damaged palace: the ``integrity`` check says so (SQLite errors
    while reading are reported as a failed check)."""
    checks = _checks(palace)
    if not repair or all(c.ok for c in checks):
        return DoctorReport(checks)
    failed = {c.name for c in checks if not c.ok}
    if "integrity" in failed:
        return DoctorReport(checks, ("nothing: palace.db itself is damaged; SQLite cannot rebuild it in place",),
                            tuple(c for c in checks if not c.ok))
    done: list[str] = []
    if "orphans" in failed:  # first: removing an orphan drawer can change what the others find
        done.append(_delete_orphans(palace.conn))
        failed = {c.name for c in _checks(palace) if not c.ok}
    if "fts" in failed:
        done.append(_rebuild_fts(palace.conn))
    if "vectors" in failed:
        done += _repair_vectors(palace)
    if "resolution" in failed:
        from palace.mine.run import finish_resolution, pending_resolutions

        wings = pending_resolutions(palace.conn)
        for wing in wings:
            finish_resolution(palace.conn, wing, palace.registry, palace.config)
        done.append(f"finished the entity resolution of {', '.join(wings)}")
    return DoctorReport(_checks(palace), tuple(done), tuple(c for c in checks if not c.ok))


def _checks(palace: "Palace") -> tuple[Check, ...]:
    conn = palace.conn
    out = [_integrity(conn)]
    if not out[0].ok:
        return tuple(out)
    for check in (_schema, _fts, _resolution, _orphans):
        try:
            out.append(check(conn))
        except sqlite3.DatabaseError as exc:
            out.append(Check(check.__name__.strip("_"), False, f"could not be read: {exc}"))
    out.append(_vectors(palace))
    return tuple(out)


def _integrity(conn: sqlite3.Connection) -> Check:
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
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
    known = [name for name, _ in store.MIGRATIONS]
    return Check("schema", True, f"{len(known)} migrations applied, latest {known[-1]}")


def _fts(conn: sqlite3.Connection) -> Check:
    drawers = conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
    indexed = conn.execute("SELECT count(*) FROM drawers_fts").fetchone()[0]
    unindexed = conn.execute(
        "SELECT count(*) FROM drawers d WHERE NOT EXISTS (SELECT 1 FROM drawers_fts x WHERE x.rowid = d.rowid)"
    ).fetchone()[0]
    stray = conn.execute(
        "SELECT count(*) FROM drawers_fts x WHERE NOT EXISTS (SELECT 1 FROM drawers d WHERE d.rowid = x.rowid)"
    ).fetchone()[0]
    problems = []
    if unindexed:
        problems.append(f"{unindexed} drawers missing from the full-text index")
    if stray:
        problems.append(f"{stray} full-text rows of drawers that are gone")
    if not problems:
        try:  # FTS5's check is written as an INSERT: a read-only palace cannot run it
            conn.execute("INSERT INTO drawers_fts (drawers_fts) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as exc:
            if "readonly" not in str(exc).replace("-", ""):
                problems.append(f"the full-text index is damaged ({exc})")
    if problems:
        return Check("fts", False, "; ".join(problems), "`palace doctor --repair` rebuilds it from the drawers")
    return Check("fts", True, f"{indexed} full-text rows = {drawers} drawers")


def _resolution(conn: sqlite3.Connection) -> Check:
    from palace.mine.run import pending_resolutions

    wings = pending_resolutions(conn)
    if wings:
        return Check("resolution", False, f"entity resolution pending in {', '.join(wings)} (a run was interrupted)",
                     "`palace doctor --repair` (or the next `palace mine`) finishes it")
    return Check("resolution", True, "nothing pending")


def _orphans(conn: sqlite3.Connection) -> Check:
    rows = conn.execute("PRAGMA foreign_key_check").fetchall()
    if not rows:
        return Check("orphans", True, "every row's parent exists")
    by_table: dict[str, int] = {}
    for row in rows:
        by_table[row[0]] = by_table.get(row[0], 0) + 1
    return Check("orphans", False, "rows whose parent is gone: " + ", ".join(f"{n} in {t}" for t, n in
                                                                           sorted(by_table.items())),
                 "`palace doctor --repair` deletes them")


def _vectors(palace: "Palace") -> Check:
    conn = palace.conn
    embedded = {r[0] for r in conn.execute("SELECT id FROM drawers WHERE embedded = 1")}
    waiting = conn.execute("SELECT count(*) FROM drawers WHERE embedded = 0").fetchone()[0]
    hint = "`palace doctor --repair` embeds them again from the stored texts"
    if palace.vectors.lost():
        if not embedded:
            return Check("vectors", not waiting, f"no vector store yet; {waiting} drawers wait to be embedded",
                         None if not waiting else hint)
        return Check("vectors", False, f"the vector store is missing: {len(embedded)} drawers lost their vectors",
                     hint)
    try:
        stored = palace.vectors.ids()
    except Exception as exc:  # noqa: BLE001 — whatever the store raises, the answer is "rebuild it"
        return Check("vectors", False, f"the vector store cannot be read: {exc}",
                     "move chroma/ aside, then `palace doctor --repair`")
    missing = len(embedded - stored)
    stray = len(stored - embedded - {r[0] for r in conn.execute("SELECT id FROM drawers WHERE embedded = 0")})
    bad = len(_bad_vectors(palace, sorted(stored & embedded)))
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


def _bad_vectors(palace: "Palace", ids: list[str]) -> list[str]:
    """The ids among ``ids`` whose stored vector is zero or holds a NaN or infinity."""
    bad = []
    for i in range(0, len(ids), SCAN_BATCH):
        got, matrix = palace.vectors.embeddings(ids[i:i + SCAN_BATCH])
        if not got:
            continue
        bad += [d for d, ok in zip(got, usable(matrix)) if not ok]
    return bad


def _delete_orphans(conn: sqlite3.Connection) -> str:
    """Delete the rows whose parent is gone (a crash of older code, a hand edit): they
    cannot be shown or searched. A drawer goes with its full-text row and leaves a vector
    tombstone; a fact no other fact may point at any more (``superseded_by`` cleared, and
    its timeline is closed again by the next mine). Re-mining derives them again from
    the notes."""
    from palace.store.drawers import remove_drawer

    rows = conn.execute("PRAGMA foreign_key_check").fetchall()
    with store.transaction(conn):
        for table, rowid, _parent, _fk in rows:
            if table == "drawers":
                found = conn.execute("SELECT id FROM drawers WHERE rowid = ?", (rowid,)).fetchone()
                if found is not None:
                    remove_drawer(conn, rowid, found[0])
                continue
            if table == "facts":
                conn.execute("UPDATE facts SET superseded_by = NULL WHERE superseded_by = (SELECT id FROM facts"
                             " WHERE rowid = ?)", (rowid,))
            conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
    return f"deleted {len(rows)} rows whose parent was gone"


def _rebuild_fts(conn: sqlite3.Connection) -> str:
    with store.transaction(conn):
        conn.execute("DELETE FROM drawers_fts")
        conn.execute(f"INSERT INTO drawers_fts (rowid, title, heading, text, path) {store.FTS_ROWS}")
    count = conn.execute("SELECT count(*) FROM drawers_fts").fetchone()[0]
    return f"rebuilt the full-text index ({count} drawers)"


def _repair_vectors(palace: "Palace") -> list[str]:
    from palace.mine.indexing import embed_pending

    conn = palace.conn
    done = []
    embedded = {r[0] for r in conn.execute("SELECT id FROM drawers WHERE embedded = 1")}
    stored = set() if palace.vectors.lost() else palace.vectors.ids()
    live = {r[0] for r in conn.execute("SELECT id FROM drawers")}
    stray = sorted(stored - live)
    if stray:
        palace.vectors.delete(stray)
        done.append(f"removed {len(stray)} vectors of drawers that are gone")
    again = sorted((embedded - stored) | set(_bad_vectors(palace, sorted(stored & embedded))))
    if again:
        with store.transaction(conn):
            conn.executemany("UPDATE drawers SET embedded = 0 WHERE id = ?", [(d,) for d in again])
    count = embed_pending(palace)
    if count:
        done.append(f"embedded {count} drawers from their stored texts")
    return done
