"""Faults end in a recorded reason, never a hang or a traceback (issue 12): special
files, undecodable file names, links to notes, over-long runs without spaces — through
real mining (spaCy, SQLite, Chroma, the packaged model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.errors import PalaceNotFound

runner = CliRunner()


def _mined_note(tmp_path, text: str):
    """A folder ``notes`` of one dated note holding ``text``, mined into ``tmp_path/palace``."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text(text)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
    return notes


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """A folder of one good note and one of each fault, mined once in a child process
    with a time limit (a FIFO used to block ``open`` for ever)."""
    root = tmp_path_factory.mktemp("faults")
    notes = root / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Good\n\nAlice Chen met Bob Okafor in Lisbon.\n")
    os.mkfifo(notes / "b.md")
    with open(os.path.join(os.fsencode(notes), b"caf\xe9.md"), "wb") as handle:  # latin-1 bytes in a name
        handle.write(b"# Cafe\n\nThe cafe note.\n")
    (notes / "alias.md").symlink_to(notes / "a.md")
    (notes / "long.md").write_text("# Long\n\nThe heron count was fine. " + "x" * 1_200_000 + " The end.\n")
    code = ("import sys; from palace.core import Palace; p = Palace.open(sys.argv[2]); p.mine(sys.argv[1]); "
            "p.close()")
    done = subprocess.run([sys.executable, "-c", code, str(notes), str(root / "palace")],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    return root / "palace"


def files(palace_dir) -> dict[str, tuple[str, str]]:
    with Palace.open(palace_dir, create=False) as palace:
        return {r["path"]: (r["status"], r["reason"] or "") for r in palace.conn.execute(
            "SELECT path, status, reason FROM files")}


@pytest.mark.slow  # mines the fault folder in a child process
def test_special_files_and_bad_names_are_skipped_with_a_reason(faulty):
    found = files(faulty)
    assert found["b.md"] == ("skipped", "not a regular file (a FIFO, socket or device)")
    assert found["caf\ufffd.md"] == ("skipped", "file name is not valid UTF-8")
    assert found["alias.md"] == ("skipped", "link to a.md, mined there")
    assert found["a.md"][0] == "indexed"


@pytest.mark.slow  # mines the fault folder in a child process
def test_a_run_without_spaces_is_cut_into_drawers_and_the_rest_is_read(faulty):
    assert files(faulty)["long.md"][0] == "indexed"
    with Palace.open(faulty, create=False) as palace:
        longest = palace.conn.execute("SELECT max(length(text)) FROM drawers").fetchone()[0]
        assert longest <= 256 * 16
        hit = palace.ask("heron count").results[0]
        assert hit.path == "long.md"
        assert palace.ask("Alice Chen Lisbon").results[0].path == "a.md"  # once: the link is not a second copy
        assert sum(1 for h in palace.ask("Alice Chen Lisbon").results if h.path in ("a.md", "alias.md")) == 1


def test_a_yaml_bomb_in_front_matter_is_a_recorded_failure(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        levels.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    (notes / "bomb.md").write_text("---\n" + "\n".join(levels) + "\n---\n# Bomb\n\nAlice met Bob.\n")
    (notes / "ok.md").write_text("# OK\n\nCarol met Dan.\n")
    with Palace.open(tmp_path / "palace") as palace:
        report = palace.mine(notes)
        outcome = {o.path: (o.status, o.reason) for o in report.outcomes}
    assert outcome["bomb.md"] == ("failed", "front matter uses more than 16 YAML aliases")
    assert outcome["ok.md"][0] == "indexed"


def test_bad_options_questions_and_stores_are_errors_not_tracebacks(tmp_path, faulty):


    out = runner.invoke(app, ["ask", "Alice", "--since", "9999-12-31", "--palace", str(faulty)])
    assert out.exit_code == 1 and "--since 9999-12-31 leaves no day to search" in out.output
    with Palace.open(faulty, create=False) as palace:  # a stray byte the shell passed through
        assert palace.ask("Alice Chen \udcff").results[0].path == "a.md"
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "palace.db").write_bytes(b"this is not a database, it was truncated" * 10)
    out = runner.invoke(app, ["status", "--palace", str(broken)])
    assert out.exit_code == 1 and "cannot be opened: file is not a database" in out.output
    assert "Traceback" not in out.output


def test_the_palace_folder_and_its_files_are_owner_only_whatever_the_umask(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics.\n")
    old = os.umask(0o022)
    try:
        with Palace.open(tmp_path / "palace") as palace:
            palace.mine(notes)
    finally:
        os.umask(old)
    found = {p.relative_to(tmp_path / "palace").as_posix(): p.stat().st_mode & 0o777
             for p in [tmp_path / "palace", *(tmp_path / "palace").rglob("*")]}
    assert "palace.db" in found and "chroma/chroma.sqlite3" in found
    assert found["."] == 0o700
    open_to_others = {path: oct(mode) for path, mode in found.items() if mode & 0o077}
    assert open_to_others == {}


def test_one_writer_at_a_time(tmp_path):

    from palace.ops.locks import MineLock

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAlice met Bob.\n")
    palace_dir = tmp_path / "palace"
    with MineLock(palace_dir):  # a mine is writing
        out = CliRunner().invoke(app, ["mine", str(notes), "--palace", str(palace_dir)])
        assert out.exit_code == 1 and "is busy: another process is writing it" in out.output
        assert f"(pid {os.getpid()})" in out.output
        from palace.errors import PalaceBusy

        with pytest.raises(PalaceBusy):  # nor may a watcher start beside it
            Palace.watcher(palace_dir, [notes]).start()
    out = CliRunner().invoke(app, ["mine", str(notes), "--palace", str(palace_dir)])
    assert out.exit_code == 0, out.output


def test_a_lost_vector_store_is_noticed_and_rebuilt(tmp_path):
    import shutil

    notes = _mined_note(tmp_path, "# Sync\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    shutil.rmtree(tmp_path / "palace" / "chroma")
    from chromadb.api.client import SharedSystemClient

    SharedSystemClient.clear_system_cache()  # as a new process would find it
    with Palace.open(tmp_path / "palace", create=False) as palace:
        assert palace.status().warnings and "(chroma/) is missing" in palace.status().warnings[0]
        result = palace.ask("where did Alice Chen go")
        assert any("the vector store is empty" in n for n in result.plan.notes)
        report = palace.mine(notes)
        assert report.embedded == 1 and palace.status().warnings == ()
        retrievers = {c.retriever for c in palace.ask("where did Alice Chen go").results[0].why.retrievers}
        assert "vector" in retrievers


@pytest.mark.slow
def test_a_warm_reader_sees_what_another_process_mined(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen moved to Lisbon.\n")
    more = tmp_path / "more"
    more.mkdir()
    for i in range(1, 13):
        (more / f"2024-05-{i:02d}-zebra.md").write_text(f"# Zebra {i}\n\nThe zebra herd {i} grazed near Lisbon.\n")
    with Palace.open(tmp_path / "palace") as reader:
        reader.mine(notes)
        assert reader.ask("zebra herd Lisbon").results[0].path == "2024-04-12.md"  # nothing better yet
        code = "import sys; from palace.core import Palace; p = Palace.open(sys.argv[2]); p.mine(sys.argv[1]); p.close()"
        done = subprocess.run([sys.executable, "-c", code, str(more), str(tmp_path / "palace")],
                              capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        top = reader.ask("zebra herd Lisbon").results[0]  # the same warm process, no reopening by hand
        assert top.path.endswith("-zebra.md") and "vector" in {c.retriever for c in top.why.retrievers}
        scoped = reader.ask("zebra herd in May 2024", wing="more")  # used to die: "Error finding id"
        assert scoped.results and all(h.wing == "more" for h in scoped.results)


def test_a_storage_error_is_an_error_with_a_hint(tmp_path, monkeypatch):
    import sqlite3

    import palace.ops.status

    with Palace.open(tmp_path / "palace"):
        pass

    def read_only(*args):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(palace.ops.status, "status", read_only)
    out = CliRunner().invoke(app, ["status", "--palace", str(tmp_path / "palace")])
    assert out.exit_code == 1 and "the palace's database failed: attempt to write a readonly database" in out.output
    assert "hint: check that palace.db is writable" in out.output and "Traceback" not in out.output


def test_one_handle_serves_readers_in_threads_while_it_mines(tmp_path):
    """A warm process (a server) answers from several threads while the same handle
    mines: every read succeeds, sees only committed notes, and the last sees them all."""
    import threading

    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(1, 21):
        (notes / f"2024-05-{i:02d}.md").write_text(f"# Standup {i}\n\nPriya Raman joined Team{i} in Lisbon.\n")
    errors: list[BaseException] = []
    seen: list[int] = []
    done = threading.Event()
    with Palace.open(tmp_path / "palace") as palace:
        def read() -> None:
            while not done.is_set():
                try:
                    try:
                        palace.ask("where did Priya Raman go")
                    except PalaceNotFound:  # the first note is not committed yet: the user error it is
                        pass
                    palace.status()
                    files = palace.conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchone()[0]
                    seen.append(files)
                except BaseException as exc:  # noqa: BLE001 — the test reports whatever a reader met
                    errors.append(exc)
                    return

        readers = [threading.Thread(target=read) for _ in range(2)]
        for t in readers:
            t.start()
        palace.mine(notes)
        done.set()
        for t in readers:
            t.join(timeout=60)
        assert errors == []
        assert seen and palace.facts(about="Priya Raman").facts
        assert palace.conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchone()[0] == 20


def _long_note(sections: int) -> str:
    body = " ".join(f"The harbor crew logged crate {n} at dock seven before noon." for n in range(30))
    return "\n\n".join(f"## Part {i}\n\n{body}" for i in range(sections))


@pytest.mark.slow
def test_a_long_note_is_read_last_with_its_progress_and_a_stop_does_not_wait_for_it(tmp_path, monkeypatch):
    from palace.mine.options import MineOptions

    budget = MineOptions(large_note_drawers=5, progress_every=4)  # the budget, scaled down to a test's size
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a-long.md").write_text(_long_note(24))
    (notes / "b.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics.\n")
    (notes / "c.md").write_text("# Budget\n\nWe cut the Harbor travel budget.\n")
    import threading

    progress: list[tuple[str, int, int]] = []
    cancel = threading.Event()

    def on_progress(path: str, read: int, total: int) -> None:
        progress.append((path, read, total))
        if read >= 8:
            cancel.set()  # a stop arrives while the long note is read

    with Palace.open(tmp_path / "palace") as palace:
        report = palace.mine(notes, cancel=cancel, on_progress=on_progress, options=budget)
        total = progress[0][2]
        assert total > 8 and progress[:2] == [("a-long.md", 4, total), ("a-long.md", 8, total)]
        assert [o.path for o in report.outcomes if o.status == "indexed"] == ["b.md", "c.md"]  # small notes first
        # its first step of 5 drawers was committed before the stop; the 3 read after it were not
        assert palace.conn.execute("SELECT count(*) FROM drawers d JOIN files f ON f.id = d.file_id"
                                   " WHERE f.path = 'a-long.md'").fetchone()[0] == 5
        assert palace.conn.execute("SELECT reason FROM files WHERE path = 'a-long.md'").fetchone()[0] == (
            f"stored in part: 5 of {total} new drawers; the next run reads the rest")
        progress.clear()
        again = palace.mine(notes, on_progress=lambda *a: progress.append(a), options=budget)
        assert [o.path for o in again.outcomes if o.status == "indexed"] == ["a-long.md"]
        assert progress[-1] == ("a-long.md", total - 5, total - 5)  # only what the stop left unread
        assert palace.conn.execute("SELECT count(*) FROM drawers d JOIN files f ON f.id = d.file_id"
                                   " WHERE f.path = 'a-long.md'").fetchone()[0] == total
        assert palace.conn.execute("SELECT reason FROM files WHERE path = 'a-long.md'").fetchone()[0] == ""


def _graph(palace) -> list[tuple]:
    """Every fact with both times and its citation, and every drawer: what a user sees."""
    facts = palace.conn.execute(
        "SELECT s.name, f.predicate, coalesce(o.name, f.object_value), f.valid_from, f.valid_to,"
        " f.invalidated_at IS NULL, f.superseded_by IS NULL, d.line_start"
        " FROM facts f JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
        " JOIN drawers d ON d.id = f.drawer_id ORDER BY 1, 2, 3, 4, 8").fetchall()
    drawers = palace.conn.execute("SELECT id, line_start, line_end, text FROM drawers ORDER BY line_start").fetchall()
    return [tuple(r) for r in facts] + [tuple(r) for r in drawers]


def test_a_long_note_stored_in_steps_and_killed_holds_what_one_pass_holds(tmp_path):
    from palace.mine.options import MineOptions

    steps = MineOptions(large_note_drawers=4, progress_every=4)  # steps of 4 drawers, each reported
    notes = tmp_path / "notes"
    notes.mkdir()
    people = ["Alice Chen", "Bob Okafor", "Priya Raman", "Helen Marsh", "Omar Haddad", "Lena Fischer"]
    filler = " ".join(f"The harbor crew logged crate {n} at dock seven before noon." for n in range(30))
    (notes / "2024-03-01-log.md").write_text("\n\n".join(
        f"## Week {i}\n\n{people[i % 6]} joined Acme Robotics on {i + 1} March 2024."
        f" {people[(i + 1) % 6]} reports to {people[(i + 2) % 6]}. {filler}" for i in range(14)))
    with Palace.open(tmp_path / "one-pass") as palace:
        palace.mine(notes, options=MineOptions(large_note_drawers=1000))
        expected = _graph(palace)
        total = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
        assert total > 12  # more than three steps
    import threading

    cancel = threading.Event()
    with Palace.open(tmp_path / "steps") as palace:

        def killed_in_the_third_step(path, read, drawers):  # its drawers are read; it never commits
            if read == 12:
                cancel.set()
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            palace.mine(notes, cancel=cancel, on_progress=killed_in_the_third_step, options=steps)
        assert palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0] == 8  # two steps of 4
        report = palace.mine(notes, options=steps)
        assert report.new_drawers == total - 8  # the two stored steps are not read again
        assert _graph(palace) == expected


def test_a_thread_never_sees_another_threads_open_transaction(tmp_path):
    import threading

    from palace.store import sqlite as store

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        seen: list[int] = []
        reader = lambda: seen.append(palace.conn.execute("SELECT count(*) FROM files").fetchone()[0])  # noqa: E731
        with store.transaction(palace.conn):  # a write in progress on this thread
            palace.conn.execute("INSERT INTO files (wing, root, path, room, status, mined_at)"
                                " VALUES ('notes', '/x', 'planted.md', '.', 'indexed', '2024-01-01')")
            assert palace.conn.execute("SELECT count(*) FROM files").fetchone()[0] == 2
            thread = threading.Thread(target=reader)
            thread.start()
            thread.join(timeout=30)
            assert seen == [1]  # the other thread reads the committed state only
        thread = threading.Thread(target=reader)
        thread.start()
        thread.join(timeout=30)
        assert seen == [1, 2]


def test_a_palace_reached_through_a_symlink_is_made_private(tmp_path):
    real = tmp_path / "real-palace"
    real.mkdir(mode=0o755)
    real.chmod(0o755)
    (tmp_path / "link").symlink_to(real)
    with Palace.open(tmp_path / "link"):
        pass
    assert real.stat().st_mode & 0o777 == 0o700
    assert (real / "palace.db").stat().st_mode & 0o077 == 0


def test_a_warm_handle_holds_no_connection_for_threads_that_ended(tmp_path):
    import os
    import threading

    with Palace.open(tmp_path / "palace") as palace:
        def use() -> None:
            palace.conn.execute("SELECT count(*) FROM files").fetchone()

        first = threading.Thread(target=use)
        first.start()
        first.join()  # its connection is open (or already reclaimed) before the count: no race with it
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(30):
            thread = threading.Thread(target=use)
            thread.start()
            thread.join()
        assert len(os.listdir("/proc/self/fd")) <= before + 3  # one live thread's connection at most


def test_an_ask_after_the_vector_store_was_lost_keeps_it_reported_lost(tmp_path):
    import shutil

    _mined_note(tmp_path, "# Sync\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    shutil.rmtree(tmp_path / "palace" / "chroma")
    from chromadb.api.client import SharedSystemClient

    SharedSystemClient.clear_system_cache()
    with Palace.open(tmp_path / "palace", create=False) as palace:
        palace.ask("where did Alice Chen go")
        palace.ask("where did Alice Chen go", wing="notes")
        assert not (tmp_path / "palace" / "chroma").exists()
        assert "(chroma/) is missing" in palace.status().warnings[0]


def test_a_palace_on_a_read_only_folder_is_an_error_not_a_traceback(tmp_path, monkeypatch):
    import errno

    from palace.ops import locks

    def refuse(path, flags, mode=0o777):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAlice Chen joined Acme Robotics.\n")
    monkeypatch.setattr(locks.os, "open", refuse)  # as a read-only mount refuses the lock file (root ignores modes)
    out = runner.invoke(app, ["mine", str(notes), "--palace", str(tmp_path / "palace")])
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "cannot write the palace" in out.output and "Read-only file system" in out.output


@pytest.mark.slow
def test_ask_batch_answers_each_line_while_stdin_stays_open(tmp_path):
    _mined_note(tmp_path, "# Sync\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    proc = subprocess.Popen([sys.executable, "-m", "palace", "ask", "--batch", "-", "--palace", str(tmp_path / "palace")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("where did Alice Chen go\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())  # answered before stdin is closed
        assert first["results"][0]["path"] == "2024-04-12.md"
        proc.stdin.write('{"question": "?!"}\n')
        proc.stdin.flush()
        assert "error" in json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def test_json_stays_valid_utf8_when_a_question_held_a_stray_byte():
    from palace.results import to_json

    text = to_json({"question": "caf\udcff planning", "name": "Zoë"})
    assert json.loads(text.encode("utf-8").decode("utf-8"))["question"] == "caf\udcff planning"
    assert "Zoë" in to_json({"name": "Zoë"})  # UTF-8 text is kept as is otherwise
