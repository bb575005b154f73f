"""palace mine on the sample corpus, with the real spaCy pipeline and the real ONNX model."""

from __future__ import annotations

import datetime as dt
import shutil
import json

import pytest

from palace.core import Palace

CANARIES = ("DRAFTCANARY", "PRIVATECANARY", "OBSIDIANCANARY", "SWAPCANARY", "BACKUPCANARY")


def test_summary_counts_every_file(mined_sample):
    _, report = mined_sample
    assert report.failed == 0, [o for o in report.outcomes if o.status == "failed"]
    assert report.indexed == 50  # 49 notes with text + journal/empty.md (0 drawers)
    assert report.drawers > 49 and report.entities > 20 and report.facts > 0
    assert report.words > 11_000 and report.words_per_s > 0


def test_skipped_files_are_recorded_with_their_reason(sample_palace):
    states = {s.path: s for s in sample_palace.status().file_states}
    assert states["drafts/"].reason == "ignored by .gitignore"
    assert states["journal/diary.private.md"].reason == "ignored by .palaceignore"
    assert states[".obsidian/"].reason == "hidden folder"
    assert states["journal/note.md~"].reason == "editor backup/swap file"
    assert states["meetings/.2024-04-12.md.swp"].status == "skipped"
    assert states["projects/diagram.md"].status == "skipped"
    assert "binary" in states["projects/diagram.md"].reason
    assert states["journal/empty.md"].status == "indexed" and states["journal/empty.md"].drawers == 0
    assert states["projects/kestrel-enclosure-stub.md"].drawers == 0


def test_nothing_from_skipped_files_leaks(sample_palace):
    conn = sample_palace.conn
    for canary in CANARIES:
        assert conn.execute("SELECT count(*) FROM drawers WHERE text LIKE ?", (f"%{canary}%",)).fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM drawers WHERE trim(text) = ''").fetchone()[0] == 0


@pytest.mark.parametrize(
    "path, encoding, phrase",
    [
        ("journal/2023-09-02-cafe-latin1.md", None, "Café Müller"),
        ("journal/2024-01-06-bom.md", "utf-8 (BOM)", "New year, new notebook"),
        ("journal/2024-02-11-utf16.md", "utf-16 (BOM)", "Still on the Lisinopril 10mg every morning"),
        ("meetings/2024-05-07-vendor-call-crlf.md", "utf-8", "Larkspur"),
    ],
)
def test_awkward_encodings_decode(sample_palace, path, encoding, phrase):
    row = sample_palace.conn.execute(
        "SELECT f.encoding, f.title, group_concat(d.text, ' ') AS text FROM files f JOIN drawers d ON d.file_id = f.id"
        " WHERE f.path = ? GROUP BY f.id",
        (path,),
    ).fetchone()
    assert phrase in (row["text"] + row["title"])
    if encoding:
        assert row["encoding"] == encoding
    assert "\ufeff" not in row["text"] and "\r" not in row["text"]


@pytest.mark.parametrize(
    "path, day, source",
    [
        ("meetings/2024-05-07-vendor-call-crlf.md", "2024-05-07", "front matter"),
        ("journal/2024-04-20.md", "2024-04-21", "front matter"),
        ("journal/2023.03.12.md", "2023-03-12", "file name"),
        ("meetings/2024-10-16-standup.md", "2024-10-16", "file name"),
        ("meetings/standup-march.md", "2024-03-05", "heading"),
        ("meetings/one-on-one-bob.md", "2024-09-03", "heading"),
        ("journal/lisbon-trip.md", "2025-02-22", "heading"),
    ],
)
def test_document_dates(sample_palace, path, day, source):
    row = sample_palace.conn.execute("SELECT doc_date, doc_date_source FROM files WHERE path = ?", (path,)).fetchone()
    assert (row["doc_date"], row["doc_date_source"]) == (day, source)


def test_identical_sections_mine_as_distinct_drawers(sample_palace):
    rows = sample_palace.conn.execute(
        "SELECT d.id, f.path FROM drawers d JOIN files f ON f.id = d.file_id"
        " WHERE f.path IN ('meetings/2024-07-01-weekly-sync.md', 'meetings/2024-07-08-weekly-sync.md')"
    ).fetchall()
    assert {r["path"] for r in rows} == {"meetings/2024-07-01-weekly-sync.md", "meetings/2024-07-08-weekly-sync.md"}
    assert len({r["id"] for r in rows}) == len(rows)
    tbd = sample_palace.conn.execute(
        "SELECT f.path FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.text LIKE '%## Action items%TBD'"
    ).fetchall()
    assert {r["path"] for r in tbd} >= {"meetings/2024-06-04-beacon-redesign.md", "meetings/2024-09-24-security-review.md"}


def test_entities_mentions_and_dates(sample_palace):
    conn = sample_palace.conn
    people = {r[0] for r in conn.execute("SELECT name FROM entities WHERE type = 'PERSON'")}
    assert {"Alice Chen", "Alice Moreau", "Bob Okafor", "Marcus Webb"} <= people
    # en_core_web_sm types her PERSON or PRODUCT depending on the sentence; never a date
    assert conn.execute("SELECT count(*) FROM entities WHERE name = 'March Lindqvist'").fetchone()[0] >= 1
    assert not any("\n" in name or name.endswith((".", ",")) for name in people)
    orgs = {r[0] for r in conn.execute("SELECT name FROM entities WHERE type = 'ORG'")}
    assert "Northwind Labs" in orgs
    # a mention points back at its drawer's own text
    for row in conn.execute(
        "SELECT m.surface, m.char_start, m.char_end, d.text FROM mentions m JOIN drawers d ON d.id = m.drawer_id LIMIT 200"
    ):
        assert row["text"][row["char_start"]:row["char_end"]] == row["surface"]


def test_date_mentions_are_intervals_and_traps_are_not_dates(sample_palace):
    conn = sample_palace.conn
    q3 = conn.execute(
        "SELECT m.start, m.end, m.granularity FROM date_mentions m JOIN drawers d ON d.id = m.drawer_id"
        " JOIN files f ON f.id = d.file_id WHERE f.path = 'meetings/2024-07-15-offsite.md' AND m.surface LIKE '%Q3 2024%'"
    ).fetchone()
    assert tuple(q3) == ("2024-07-01", "2024-10-01", "quarter")
    for trap in ("2033", "3533", "100M", "may ship", "Lindqvist"):
        hits = conn.execute("SELECT surface FROM date_mentions WHERE surface LIKE ?", (f"%{trap}%",)).fetchall()
        assert hits == [], (trap, [h[0] for h in hits])


def test_mentioned_with_facts_carry_provenance(sample_palace):
    row = sample_palace.conn.execute(
        "SELECT f.*, s.name AS subject, o.name AS object, d.text FROM facts f"
        " JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id"
        " JOIN drawers d ON d.id = f.drawer_id WHERE f.predicate = 'mentioned_with' AND s.name = 'Alice Chen'"
        " AND o.name = 'Acme Robotics' ORDER BY f.valid_from LIMIT 1"
    ).fetchone()
    assert row is not None
    assert row["extractor"] == "palace.mentioned_with.v1" and 0 < row["confidence"] <= 1
    assert row["valid_from"] and row["recorded_at"] and row["invalidated_at"] is None
    assert "Acme Robotics" in row["text"][row["char_start"]:row["char_end"]]


def test_remine_unchanged_is_idempotent_and_does_no_work(mined_sample, sample_copy, monkeypatch):
    palace_dir, first = mined_sample
    from palace.nlp.extraction import Extractor

    def no_nlp(*args, **kwargs):
        raise AssertionError("NLP ran on an unchanged folder")

    with Palace.open(palace_dir) as palace:
        before = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
        monkeypatch.setattr(Extractor, "extract_many", no_nlp)  # the NLP seam
        report = palace.mine(sample_copy, wing="sample")
        assert report.indexed == 0 and report.unchanged == first.indexed
        assert report.embedded == 0 and report.new_drawers == 0
        assert palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0] == before
        assert palace.vectors.count() == before


def test_changed_and_deleted_files(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "2024-03-01.md").write_text("# Budget\n\nAlice Chen approved the Harbor budget.\n\n## Risks\n\nNone yet.\n")
    (root / "2024-03-02.md").write_text("# Gone soon\n\nBob Okafor met Priya Raman in London about zeppelins.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        assert palace.ask("zeppelins").results[0].path == "2024-03-02.md"
        (root / "2024-03-01.md").write_text("# Budget\n\nAlice Chen approved the Harbor budget.\n\n## Risks\n\nThe quokka risk.\n")
        (root / "2024-03-02.md").unlink()
        report = palace.mine(root)
        assert (report.indexed, report.deleted) == (1, 1)
        assert report.new_drawers == 1  # only the edited section is new
        texts = [r[0] for r in palace.conn.execute("SELECT text FROM drawers")]
        assert not any("zeppelins" in t for t in texts) and any("quokka" in t for t in texts)
        assert all(hit.path != "2024-03-02.md" for hit in palace.ask("zeppelins").results)
        assert palace.ask("quokka risk").results[0].path == "2024-03-01.md"
        gone = palace.conn.execute(
            "SELECT invalidated_at, invalidation_reason FROM facts WHERE path = '2024-03-02.md'"
        ).fetchall()
        assert gone and all(r["invalidated_at"] and r["invalidation_reason"] == "file deleted" for r in gone)
        assert palace.vectors.count() == palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]


def test_file_that_vanishes_or_cannot_be_read_is_recorded(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "ok.md").write_text("fine")
    locked = root / "locked.md"
    locked.write_text("secret")
    locked.chmod(0)
    try:
        with Palace.open(tmp_path / "palace") as palace:
            report = palace.mine(root)
    finally:
        locked.chmod(0o644)
    outcomes = {o.path: o for o in report.outcomes}
    assert outcomes["ok.md"].status == "indexed"
    import os

    if os.geteuid() != 0:  # root reads anything
        assert outcomes["locked.md"].status == "failed" and "permission" in outcomes["locked.md"].reason


def test_model_recorded_and_mismatch_is_a_clear_error(tmp_path):
    from palace.store.embedding import FakeEmbedder
    from palace.errors import ModelMismatch

    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("Alice Chen works at Acme Robotics.")
    with Palace.open(tmp_path / "palace", embedder=FakeEmbedder(dimension=16)) as palace:
        palace.mine(root)
        assert palace.model_info() == ("fake", 16)
    with Palace.open(tmp_path / "palace", create=False) as palace:
        with pytest.raises(ModelMismatch) as info:
            palace.ask("Alice")
    assert "fake" in info.value.message and info.value.hint


def test_a_file_longer_than_spacys_max_length_is_split_not_failed(tmp_path, monkeypatch):
    from palace.nlp.pipeline import load_pipeline

    nlp = load_pipeline()
    monkeypatch.setattr(nlp, "max_length", 5_000)
    root = tmp_path / "notes"
    root.mkdir()
    paragraph = "Alice Chen met Bob Okafor in London to talk about the Harbor budget. " * 4
    (root / "2024-05-01.md").write_text("# Long log\n\n" + "\n\n".join(paragraph for _ in range(60)))
    assert len((root / "2024-05-01.md").read_text()) > 3 * nlp.max_length
    with Palace.open(tmp_path / "palace") as palace:
        report = palace.mine(root)
        assert (report.indexed, report.failed) == (1, 0)
        assert report.drawers > 3
        assert palace.conn.execute("SELECT count(*) FROM mentions").fetchone()[0] > 100


def test_a_note_ignored_after_mining_leaves_search(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "secret.md").write_text("My bank PIN hint is flamingo.")
    (root / "open.md").write_text("Nothing to hide here.")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        assert palace.ask("flamingo PIN").results[0].path == "secret.md"
        (root / ".palaceignore").write_text("secret.md\n")
        palace.mine(root)
        assert all(hit.path != "secret.md" for hit in palace.ask("flamingo PIN").results)
        assert palace.conn.execute("SELECT count(*) FROM drawers WHERE text LIKE '%flamingo%'").fetchone()[0] == 0
        assert palace.vectors.count() == palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]


def test_two_folders_of_one_name_never_share_a_wing(tmp_path):
    from palace.errors import UsageError

    first, second = tmp_path / "a" / "notes", tmp_path / "b" / "notes"
    for folder, word in ((first, "aardvark"), (second, "bison")):
        folder.mkdir(parents=True)
        (folder / "n.md").write_text(f"A note about the {word}.")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(first)
        with pytest.raises(UsageError) as info:
            palace.mine(second)
        assert "already holds" in info.value.message and "--wing" in info.value.hint
        palace.mine(second, wing="notes-b")
        assert palace.ask("aardvark").results[0].wing == "notes"
        assert palace.ask("bison").results[0].wing == "notes-b"
        moved = tmp_path / "c" / "notes"
        moved.parent.mkdir()
        first.rename(moved)  # a moved folder keeps its wing
        report = palace.mine(moved)
        assert (report.unchanged, report.deleted) == (1, 0)


def test_a_new_title_or_heading_reindexes_the_drawers_under_it(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    body = "\n\n".join(f"Paragraph {i} about the harbour crane schedule and its tides." for i in range(40))
    (root / "plan.md").write_text(f"---\ntitle: Alpha Project\n---\n# Harbour Plan\n\n{body}\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        assert palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0] > 1
        (root / "plan.md").write_text(f"---\ntitle: Omega Initiative\n---\n# Seaport Strategy\n\n{body}\n")
        palace.mine(root)
        rows = palace.conn.execute("SELECT heading_path FROM drawers").fetchall()
        assert all(json.loads(r[0])[:1] == ["Seaport Strategy"] for r in rows)
        titles = {r[0] for r in palace.conn.execute("SELECT title FROM drawers_fts")}
        assert titles == {"Omega Initiative"}
        assert palace.ask("Omega Initiative").results[0].why.retrievers[0].retriever in {"bm25", "vector"}
        assert any(c.retriever == "bm25" for c in palace.ask("Omega Initiative").results[0].why.retrievers)
        assert palace.vectors.count() == len(rows)


def test_a_passing_failure_or_an_unreadable_folder_loses_nothing(tmp_path, monkeypatch):
    import palace.mine.discovery as discovery
    from palace.mine.reading import Unreadable
    from palace.mine.run import MineRun

    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("The aardvark note.")
    (root / "sub" / "b.md").write_text("The bison note.")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        (root / "a.md").write_text("The aardvark note, edited.")

        class Denied(MineRun):  # no note can be read this once (a.md changed: it is read)
            def read(self, path):
                raise Unreadable("permission denied")

        real_scandir = discovery.os.scandir

        def scandir(path):
            if str(path).endswith("sub"):
                raise PermissionError(13, "Permission denied")
            return real_scandir(path)

        monkeypatch.setattr(discovery.os, "scandir", scandir)
        report = Denied(palace.store, palace.config, palace.registry).mine(root)
        outcomes = {o.path: o.status for o in report.outcomes}
        assert outcomes["a.md"] == "failed" and report.deleted == 0
        assert palace.ask("aardvark").results[0].path == "a.md"
        assert palace.ask("bison").results[0].path == "sub/b.md"
        assert palace.conn.execute("SELECT count(*) FROM facts WHERE invalidated_at IS NOT NULL").fetchone()[0] == 0


def test_a_moved_note_keeps_its_drawers_facts_and_vectors(tmp_path):
    from palace.core import Palace

    root = tmp_path / "notes"
    (root / "inbox").mkdir(parents=True)
    (root / "inbox" / "2024-03-01.md").write_text(
        "# Team\n\nBob Okafor reports to Alice Chen.\n\n## Budget\n\nThe Harbor budget grew to 2.1M.\n"
    )
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        before = palace.conn.execute("SELECT id, text FROM drawers ORDER BY id").fetchall()
        (root / "archive").mkdir()
        (root / "inbox" / "2024-03-01.md").rename(root / "archive" / "2024-03-01.md")
        report = palace.mine(root)
        assert [(o.path, o.status, o.reason) for o in report.outcomes] == [
            ("archive/2024-03-01.md", "moved", "from inbox/2024-03-01.md")]
        assert (report.moved, report.deleted, report.embedded) == (1, 0, 0)  # nothing re-embedded
        assert palace.conn.execute("SELECT id, text FROM drawers ORDER BY id").fetchall() == before
        assert [tuple(r) for r in palace.conn.execute("SELECT path, room FROM files")] == [
            ("archive/2024-03-01.md", "archive")]
        fact = palace.conn.execute("SELECT path, invalidated_at FROM facts WHERE predicate = 'reports_to'").fetchone()
        assert tuple(fact) == ("archive/2024-03-01.md", None)  # the fact followed, not retracted
        stored = palace.vectors.collection.get(ids=[r["id"] for r in before], include=["metadatas"])
        assert {m["room"] for m in stored["metadatas"]} == {"archive"}
        assert not any("path" in m for m in stored["metadatas"])  # no path in Chroma: a forgotten note leaves none
        assert palace.ask("Harbor budget", now=dt.date(2024, 6, 1)).results[0].path == "archive/2024-03-01.md"


def test_verify_finds_an_edit_that_kept_size_and_mtime(tmp_path):
    import os

    from palace.core import Palace

    root = tmp_path / "notes"
    root.mkdir()
    note = root / "a.md"
    note.write_text("# A\n\nThe zebra plan.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        st = note.stat()
        note.write_text("# A\n\nThe otter plan.\n")  # same size
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert palace.mine(root).outcomes[0].status == "unchanged"  # size and mtime say so
        assert palace.mine(root, verify=True).outcomes[0].status == "indexed"
        assert palace.ask("otter", now=dt.date(2030, 1, 1)).results[0].path == "a.md"


def test_paths_limits_a_run_to_those_paths(tmp_path):
    from palace.core import Palace

    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nAlpha.\n")
    (root / "b.md").write_text("# B\n\nBeta.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root, paths=["a.md"])
        assert [r[0] for r in palace.conn.execute("SELECT path FROM files")] == ["a.md"]
        (root / "a.md").unlink()
        report = palace.mine(root, paths=["a.md", "b.md"])
        assert sorted((o.path, o.status) for o in report.outcomes) == [("a.md", "deleted"), ("b.md", "indexed")]


def test_a_step_over_named_notes_does_not_walk_the_root(tmp_path):
    from palace.core import Palace
    from palace.mine.options import MineOptions
    from palace.mine.run import MineRun

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAlice Chen joined Acme Robotics.\n")
    (notes / "b.md").write_text("# B\n\nBob Stone moved to Lisbon.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)

        class NoWalk(MineRun):
            def walk_root(self):
                raise AssertionError("the whole root was walked for a one-note step")

        (notes / "a.md").write_text("# A\n\nAlice Chen joined Beta Labs.\n")
        (notes / "b.md").unlink()
        run = NoWalk(palace.store, palace.config, palace.registry, MineOptions(verify=True))
        report = run.mine(notes, paths=["a.md", "b.md"])
        assert {(o.path, o.status) for o in report.outcomes} == {("a.md", "indexed"), ("b.md", "deleted")}


def test_a_relative_date_in_a_note_dated_only_by_its_mtime_dates_no_fact(tmp_path):
    """A copied page has its copy's mtime: "on Wednesday" read against it would start a
    fact on the day of the copy (an encyclopedic page's "Whilst at Wednesday he was
    loaned to Watford" began a Watford spell on the day of mining)."""
    import os

    root = tmp_path / "notes"
    root.mkdir()
    (root / "page.md").write_text("# Staff\n\nOn Wednesday, Dana Lee joined Initech.\n\n"
                                  "In March 2021, Bo Lind joined Globex.\n\nIn 1804, Ana Costa joined Umbrella.\n")
    in_2019 = dt.datetime(2019, 6, 5, 12).timestamp()
    os.utime(root / "page.md", (in_2019, in_2019))
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        rows = {r["name"]: r for r in palace.conn.execute(
            "SELECT e.name, f.valid_from FROM facts f JOIN entities e ON e.id = f.subject_id"
            " WHERE f.predicate = 'works_at'")}
        together = palace.conn.execute(
            "SELECT f.valid_from FROM facts f JOIN entities e ON e.id = f.subject_id"
            " WHERE f.predicate = 'mentioned_with' AND f.sentence LIKE 'On Wednesday%'").fetchall()
    assert together and all(r["valid_from"] is None for r in together)  # two names met on no known day
    assert rows["Dana Lee"]["valid_from"] is None  # not 2019-06-05, the Wednesday of the mtime
    assert rows["Bo Lind"]["valid_from"] == "2021-03-01"  # a date written whole stays
    assert rows["Ana Costa"]["valid_from"] == "1804-01-01"  # so does a year before 1900
