"""Schema migrations carry an existing palace forward without losing anything."""

from __future__ import annotations

import pytest

import sqlite3

from palace.store import sqlite as store


@pytest.mark.unit
def test_0002_makes_one_entity_per_name_and_keeps_every_mention_fact_and_alias(tmp_path):
    conn = sqlite3.connect(tmp_path / "palace.db", isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    name, sql = store.MIGRATIONS[0]
    for statement in store._statements(sql):
        conn.execute(statement)
    conn.execute("INSERT INTO schema_migrations VALUES (?, datetime('now'))", (name,))
    conn.execute("INSERT INTO files (id, wing, root, path, room, status, mined_at) VALUES (1, 'w', '/w', 'a.md', '', 'indexed', 't')")
    conn.execute("INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end, heading_path,"
                 " text, text_hash, embed_hash) VALUES ('d1', 1, 0, 0, 60, 1, 1, '[]', 'x', 'h', 'h')")
    # spaCy read one council three ways: ORG, PERSON, and with an article
    entities = [(1, "Leadership Council", "ORG", "leadership council"),
                (2, "Leadership Council", "PERSON", "leadership council"),
                (3, "The Leadership Council", "ORG", "the leadership council"),
                (4, "Mara Bos", "PERSON", "mara bos")]
    conn.executemany("INSERT INTO entities VALUES (?, ?, ?, ?)", entities)
    conn.executemany("INSERT INTO aliases VALUES (?, ?, ?, 'name')", [(i, n, k) for i, n, _, k in entities])
    conn.executemany("INSERT INTO mentions (entity_id, drawer_id, char_start, char_end, surface, extractor, confidence)"
                     " VALUES (?, 'd1', 0, 5, 's', 'ner', 0.7)", [(1,), (1,), (2,), (3,), (4,)])
    conn.execute("INSERT INTO facts (subject_id, predicate, object_id, recorded_at, drawer_id, wing, path, char_start,"
                 " char_end, sentence, extractor, confidence) VALUES (4, 'member_of', 3, 't', 'd1', 'w', 'a.md', 0, 5,"
                 " 's', 'x', 0.8)")
    conn.close()

    conn = store.connect(tmp_path)
    assert [tuple(r) for r in conn.execute("SELECT id, name, type, key FROM entities ORDER BY id")] == [
        (1, "Leadership Council", "ORG", "leadership council"), (4, "Mara Bos", "PERSON", "mara bos")]
    assert [tuple(r) for r in conn.execute("SELECT entity_id, raw_entity_id, label FROM mentions ORDER BY id")] == [
        (1, 1, "ORG"), (1, 1, "ORG"), (1, 1, "PERSON"), (1, 1, "ORG"), (4, 4, "PERSON")]
    assert tuple(conn.execute("SELECT subject_id, object_id, raw_subject_id, raw_object_id FROM facts").fetchone()) == (
        4, 1, 4, 1)
    assert {tuple(r) for r in conn.execute("SELECT entity_id, key FROM aliases")} == {
        (1, "leadership council"), (4, "mara bos")}
    assert [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")] == [
        "0001_initial", "0002_entity_resolution", "0003_mine_runs", *[n for n, _ in store.MIGRATIONS[3:]]]


@pytest.mark.unit
def test_0004_makes_acme_corp_with_and_without_its_period_one_entity(tmp_path):
    conn = sqlite3.connect(tmp_path / "palace.db", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, sql in store.MIGRATIONS[:3]:
        for statement in store._statements(sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, datetime('now'))", (name,))
    conn.execute("INSERT INTO files (id, wing, root, path, room, status, mined_at)"
                 " VALUES (1, 'w', '/w', 'a.md', '', 'indexed', 't')")
    conn.execute("INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end, heading_path,"
                 " text, text_hash, embed_hash) VALUES ('d1', 1, 0, 0, 60, 1, 1, '[]', 'x', 'h', 'h')")
    entities = [(1, "Acme Corp", "ORG", "acme corp"), (2, "Acme Corp.", "ORG", "acme corp."),
                (3, "Globex Inc.", "ORG", "globex inc."), (4, "Bob Okafor", "PERSON", "bob okafor"),
                (5, "U.S.", "GPE", "u.s.")]
    conn.executemany("INSERT INTO entities VALUES (?, ?, ?, ?)", entities)
    conn.executemany("INSERT INTO aliases VALUES (?, ?, ?, 'name')", [(i, n, k) for i, n, _, k in entities])
    conn.executemany("INSERT INTO mentions (entity_id, raw_entity_id, drawer_id, char_start, char_end, surface, label,"
                     " extractor, confidence) VALUES (?, ?, 'd1', 0, 5, 's', 'ORG', 'ner', 0.7)",
                     [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)])
    conn.execute("INSERT INTO facts (subject_id, raw_subject_id, predicate, object_id, raw_object_id, recorded_at,"
                 " drawer_id, wing, path, char_start, char_end, sentence, extractor, confidence)"
                 " VALUES (4, 4, 'works_at', 2, 2, 't', 'd1', 'w', 'a.md', 0, 5, 's', 'x', 0.8)")
    conn.execute("INSERT INTO entity_decisions (action, name, name_key, into_name, into_key, created_at)"
                 " VALUES ('split', 'Globex Inc.', 'globex inc.', 'Acme Corp.', 'acme corp.', 't')")
    conn.close()

    conn = store.connect(tmp_path)
    assert [tuple(r) for r in conn.execute("SELECT id, name, key FROM entities ORDER BY id")] == [
        (1, "Acme Corp", "acme corp"), (3, "Globex Inc.", "globex inc"), (4, "Bob Okafor", "bob okafor"),
        (5, "U.S.", "u.s.")]
    assert [tuple(r) for r in conn.execute("SELECT entity_id, raw_entity_id FROM mentions ORDER BY id")] == [
        (1, 1), (1, 1), (3, 3), (4, 4), (5, 5)]
    assert tuple(conn.execute("SELECT subject_id, object_id, raw_object_id FROM facts").fetchone()) == (4, 1, 1)
    assert {tuple(r) for r in conn.execute("SELECT entity_id, alias, key FROM aliases")} == {
        (1, "Acme Corp", "acme corp"), (3, "Globex Inc.", "globex inc"),
        (4, "Bob Okafor", "bob okafor"), (5, "U.S.", "u.s.")}
    decision = conn.execute("SELECT name_key, into_key FROM entity_decisions").fetchone()
    assert tuple(decision) == ("globex inc", "acme corp")


@pytest.mark.slow
def test_a_locked_write_is_retried_until_the_lock_is_free(tmp_path):
    import sqlite3
    import threading

    from palace.store import sqlite as store

    conn = store.connect(tmp_path)
    other = store.connect(tmp_path)
    other.execute("PRAGMA busy_timeout = 50")  # give up at once, as a loaded machine's 30 s would
    conn.execute("BEGIN IMMEDIATE")  # a long transaction holds the write lock
    timer = threading.Timer(0.5, lambda: conn.execute("COMMIT"))
    timer.start()

    def write():
        with store.transaction(other):
            store.set_meta(other, "k", "v")
        return "written"

    try:
        assert store.retry_locked(write, patience_s=10) == "written"
    finally:
        timer.join()
    assert store.get_meta(conn, "k") == "v"
    conn.execute("BEGIN IMMEDIATE")
    with __import__("pytest").raises(sqlite3.OperationalError):
        store.retry_locked(write, patience_s=0.3)
    conn.execute("ROLLBACK")


@pytest.mark.unit
def test_the_drawer_count_and_longest_date_span_follow_every_write_and_a_window_finds_long_spans(tmp_path):
    """``meta`` keeps the number of drawers and the longest span of a drawer's own date
    (migration 0011), through inserts and deletes; a date window reaches a drawer whose
    date began before it by that span (palace.retrievers.in_window)."""
    import datetime as dt
    from types import SimpleNamespace

    from palace.ask.retrievers import in_window

    conn = store.connect(tmp_path)

    def meta(key):
        return float(conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0])

    conn.execute("INSERT INTO files (id, wing, root, path, room, status, doc_date, doc_date_source, mined_at)"
                 " VALUES (1, 'w', '/r', 'a.md', 'r', 'indexed', '2024-03-01', 'front matter', 'now')")

    def drawer(rowid, start, end):
        conn.execute("INSERT INTO drawers (rowid, id, file_id, ordinal, char_start, char_end, line_start, line_end,"
                     " heading_path, text, text_hash, embed_hash, date_start, date_end) VALUES"
                     " (?, ?, 1, ?, 0, 1, 1, 1, '[]', 'x', 'h', 'e', ?, ?)", (rowid, f"d{rowid}", rowid, start, end))

    drawer(1, "2024-03-01", "2024-03-02")
    drawer(2, "2024-03-01", "2024-03-31")  # a drawer dated "March 2024"
    drawer(3, "2024-05-01", "2024-05-02")
    assert meta("drawers") == 3 and meta("drawer_span_days") == 30
    conn.execute("DELETE FROM drawers WHERE rowid = 3")
    assert meta("drawers") == 2 and meta("drawer_span_days") == 30  # never lowered: a safe bound
    window = SimpleNamespace(start=dt.date(2024, 3, 20), end=dt.date(2024, 3, 25))
    assert in_window(conn, window) == {2: 4}  # began 19 days before the window, still in it
    assert in_window(conn, SimpleNamespace(start=dt.date.min, end=dt.date(2024, 3, 2))) == {1: 4, 2: 4}
