"""Issue 5: the watcher, with a real watchdog observer (inotify) on temporary folders, the
real spaCy pipeline, SQLite and Chroma: create, modify, vim-style save, editor files,
move, delete, new folders and ignore rules, a burst, catch-up after downtime, ``ask``
while it writes, one watcher per palace, a root that goes away, and a watched palace
that holds what a fresh mine of the same folder holds."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

from palace.core import Palace
from palace.errors import AlreadyWatching
from palace.ops.daemon import read_state

pytestmark = pytest.mark.slow  # processes, kills and watchers: the full suite, not the fast tier


def drawers(palace_dir):
    """``{path: [text, ...]}`` of a palace, read through its own connection."""
    if not (palace_dir / "palace.db").exists():
        return {}
    with Palace.open(palace_dir, create=False) as palace:
        out: dict[str, list[str]] = {}
        for row in palace.conn.execute(
            "SELECT f.path, d.text FROM drawers d JOIN files f ON f.id = d.file_id ORDER BY f.path, d.line_start"
        ):
            out.setdefault(row["path"], []).append(row["text"])
        return out


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "start.md").write_text("# Start\n\nThe Harbor project began in March.\n")
    return root


@pytest.fixture
def watcher(tmp_path, notes):
    w = Palace.watcher(tmp_path / "palace", [notes], debounce=0.2)
    w.start()
    assert w.wait_ready(120)
    yield w
    w.stop()


@pytest.fixture
def outcomes(caplog):
    """The watcher's log lines ("indexed a.md", "moved b.md (from a.md)"…)."""
    caplog.set_level(logging.INFO, logger="palace.watch")
    return lambda: [r.getMessage() for r in caplog.records if r.name == "palace.watch"]


def test_create_modify_delete(watcher, notes, tmp_path):
    palace_dir = tmp_path / "palace"
    assert drawers(palace_dir) == {"start.md": ["# Start\n\nThe Harbor project began in March."]}
    (notes / "a.md").write_text("# A\n\nAlpha note about otters.\n")
    assert watcher.wait_idle() and wait_for(lambda: "a.md" in drawers(palace_dir))
    (notes / "a.md").write_text("# A\n\nAlpha note about beavers.\n")
    assert wait_for(lambda: "beavers" in " ".join(drawers(palace_dir).get("a.md", [])))
    with Palace.open(palace_dir, create=False) as palace:
        assert palace.ask("beavers").results[0].path == "a.md"
    (notes / "a.md").unlink()
    assert wait_for(lambda: "a.md" not in drawers(palace_dir))
    with Palace.open(palace_dir, create=False) as palace:
        assert all(hit.path != "a.md" for hit in palace.ask("beavers").results)


def test_a_vim_save_is_one_modification_and_editor_files_are_never_indexed(watcher, notes, tmp_path, outcomes):
    note = notes / "plan.md"
    note.write_text("# Plan\n\nFirst draft of the plan.\n")
    assert watcher.wait_idle() and wait_for(lambda: any("indexed plan.md" in m for m in outcomes()))
    before = len([m for m in outcomes() if "plan.md" in m])
    watcher.debounce = 1.0  # a loaded machine may pause between vim's steps; the default is 0.5 s
    # vim with `backupcopy=no`: probe file 4913, swap file, rename to backup, write anew, drop backup
    (notes / "4913").write_text("")
    (notes / "4913").unlink()
    (notes / ".plan.md.swp").write_bytes(b"\x00swap")
    os.rename(note, notes / "plan.md~")
    note.write_text("# Plan\n\nSecond draft of the plan.\n")
    (notes / "plan.md~").unlink()
    (notes / ".#plan.md").write_text("lock")
    (notes / "notes.tmp").write_text("temp")
    time.sleep(1.2)
    assert watcher.wait_idle()
    after = [m for m in outcomes() if "plan.md" in m][before:]
    assert after == ["indexed plan.md"], after
    assert drawers(tmp_path / "palace")["plan.md"] == ["# Plan\n\nSecond draft of the plan."]
    with Palace.open(tmp_path / "palace", create=False) as palace:
        paths = {r[0] for r in palace.conn.execute("SELECT path FROM files")}
    assert paths == {"start.md", "plan.md"}  # no swap, backup, lock or temp file was recorded


def test_a_move_keeps_drawers_and_vectors(watcher, notes, tmp_path, outcomes):
    (notes / "draft.md").write_text("# Draft\n\nBob Okafor reports to Alice Chen.\n")
    assert watcher.wait_idle() and wait_for(lambda: any("indexed draft.md" in m for m in outcomes()))
    with Palace.open(tmp_path / "palace", create=False) as palace:
        ids = [r[0] for r in palace.conn.execute("SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id"
                                                  " WHERE f.path = 'draft.md'")]
    (notes / "done").mkdir()
    time.sleep(0.3)
    os.rename(notes / "draft.md", notes / "done" / "draft.md")
    assert wait_for(lambda: "done/draft.md" in drawers(tmp_path / "palace"))
    assert watcher.wait_idle()
    assert any(m == "moved done/draft.md (from draft.md)" for m in outcomes()), outcomes()
    with Palace.open(tmp_path / "palace", create=False) as palace:
        assert [r[0] for r in palace.conn.execute("SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id"
                                                   " WHERE f.path = 'done/draft.md'")] == ids
        assert palace.conn.execute("SELECT count(*) FROM facts WHERE invalidated_at IS NOT NULL").fetchone()[0] == 0
        meta = palace.vectors.collection.get(ids=ids, include=["metadatas"])["metadatas"]
        assert {m["room"] for m in meta} == {"done"}  # the vectors follow the move (no path is kept in them)


def test_new_folders_and_ignore_rules(watcher, notes, tmp_path):
    (notes / "projects" / "deep").mkdir(parents=True)
    (notes / "projects" / "deep" / "p.md").write_text("# P\n\nA deep project note.\n")
    assert wait_for(lambda: "projects/deep/p.md" in drawers(tmp_path / "palace"))
    (notes / ".palaceignore").write_text("projects/\n")
    assert wait_for(lambda: "projects/deep/p.md" not in drawers(tmp_path / "palace"))
    (notes / ".palaceignore").unlink()
    assert wait_for(lambda: "projects/deep/p.md" in drawers(tmp_path / "palace"))


def test_a_burst_of_500_files_while_ask_runs_beside_it(watcher, notes, tmp_path):
    errors: list[BaseException] = []
    answers = [0]
    stop = threading.Event()

    def ask_loop():
        try:
            with Palace.open(tmp_path / "palace", create=False) as palace:
                while not stop.is_set():
                    palace.ask("note number")
                    palace.status()
                    answers[0] += 1
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    asker = threading.Thread(target=ask_loop)
    asker.start()
    try:
        for i in range(500):
            (notes / f"burst-{i:03}.md").write_text(f"# Burst {i}\n\nNote number {i} of the burst, token b{i}x.\n")
        assert wait_for(lambda: len(drawers(tmp_path / "palace")) == 501, timeout=300)
    finally:
        stop.set()
        asker.join()
    assert not errors, errors  # never "database is locked"
    assert answers[0] > 0
    with Palace.open(tmp_path / "palace", create=False) as palace:
        assert palace.ask("b377x").results[0].path == "burst-377.md"


def test_catch_up_after_downtime_finds_changes_by_hash(tmp_path, notes):
    palace_dir = tmp_path / "palace"
    first = Palace.watcher(palace_dir, [notes], debounce=0.2)
    first.start()
    assert first.wait_ready(120)
    (notes / "kept.md").write_text("# Kept\n\nThe zebra plan.\n")
    (notes / "gone.md").write_text("# Gone\n\nA note that will be deleted.\n")
    assert first.wait_idle() and wait_for(lambda: "gone.md" in drawers(palace_dir))
    first.stop()
    # while nobody watches: an edit that keeps size and mtime, a new note, a deletion
    st = (notes / "kept.md").stat()
    (notes / "kept.md").write_text("# Kept\n\nThe otter plan.\n")
    os.utime(notes / "kept.md", ns=(st.st_atime_ns, st.st_mtime_ns))
    (notes / "new.md").write_text("# New\n\nWritten while the watcher was down.\n")
    (notes / "gone.md").unlink()
    second = Palace.watcher(palace_dir, [notes], debounce=0.2)
    second.start()
    try:
        assert second.wait_ready(120)
        found = drawers(palace_dir)  # caught up before it said it was ready
        assert found["kept.md"] == ["# Kept\n\nThe otter plan."]
        assert "new.md" in found and "gone.md" not in found
    finally:
        second.stop()


def test_one_watcher_per_palace(watcher, notes, tmp_path):
    with pytest.raises(AlreadyWatching, match=f"pid {os.getpid()}"):
        Palace.watcher(tmp_path / "palace", [notes]).start()
    state = read_state(tmp_path / "palace")
    assert state["ready"] and state["health"] == "healthy" and state["roots"][0]["observer"] == "native"


def test_a_root_that_goes_away_and_comes_back(watcher, notes, tmp_path):
    moved = tmp_path / "elsewhere"
    shutil.move(str(notes), moved)
    assert wait_for(lambda: (read_state(tmp_path / "palace") or {}).get("health") == "degraded", timeout=20)
    assert watcher.alive
    shutil.move(str(moved), notes)
    (notes / "back.md").write_text("# Back\n\nThe folder came back.\n")
    assert wait_for(lambda: "back.md" in drawers(tmp_path / "palace"), timeout=30)
    assert wait_for(lambda: read_state(tmp_path / "palace")["roots"][0]["state"] == "watching", timeout=20)


def test_a_watched_palace_holds_what_a_fresh_mine_holds(tmp_path, notes):
    watched = tmp_path / "watched"
    w = Palace.watcher(watched, [notes], debounce=0.2)
    w.start()
    try:
        assert w.wait_ready(120)
        (notes / "2024-01-10.md").write_text("# Mum\n\nRuth Whitfield takes Lisinopril 10mg every morning.\n")
        (notes / "team.md").write_text("# Team\n\nBob Okafor reports to Alice Chen.\n")
        time.sleep(0.4)
        (notes / "2024-04-02.md").write_text("# Cardiology\n\nThe cardiologist switched Ruth Whitfield to Metoprolol.\n")
        (notes / "team.md").write_text("# Team\n\nBob Okafor reports to Dana Ruiz.\n")
        os.rename(notes / "start.md", notes / "begin.md")
        time.sleep(0.4)
        (notes / "sub").mkdir()
        (notes / "sub" / "x.md").write_text("# X\n\nMara Bos joined the council in 2023.\n")
        assert w.wait_idle(120)
        time.sleep(0.5)
        assert w.wait_idle(120)
    finally:
        w.stop()
    fresh = tmp_path / "fresh"
    with Palace.open(fresh) as palace:
        palace.mine(notes)

    def current_facts(palace_dir):
        with Palace.open(palace_dir, create=False) as palace:
            return sorted(tuple(r) for r in palace.conn.execute(
                "SELECT s.name, f.predicate, coalesce(o.name, f.object_value), f.valid_from, f.valid_to, f.path"
                " FROM facts f JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
                " WHERE f.invalidated_at IS NULL"))

    assert drawers(watched) == drawers(fresh)
    assert current_facts(watched) == current_facts(fresh)
    assert ("Ruth Whitfield", "takes", "Lisinopril", "2024-01-10", "2024-04-02", "2024-01-10.md") in current_facts(watched)


def test_the_daemon_starts_reports_and_stops(tmp_path, notes):
    palace_dir = tmp_path / "palace"
    cli = [sys.executable, "-c", "from palace.cli.main import run; run()"]
    started = subprocess.run([*cli, "watch", "--daemon", str(notes), "--palace", str(palace_dir)],
                             capture_output=True, text=True, timeout=300)
    assert started.returncode == 0, started.stderr
    assert "in the background (pid " in started.stdout
    try:
        again = subprocess.run([*cli, "watch", "--daemon", str(notes), "--palace", str(palace_dir)],
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 1 and "already running" in again.stderr and "pid" in again.stderr
        status = json.loads(subprocess.run([*cli, "daemon", "status", "--json", "--palace", str(palace_dir)],
                                           capture_output=True, text=True, timeout=60).stdout)
        assert status["running"] and status["state"]["ready"] and status["state"]["health"] == "healthy"
        assert status["state"]["roots"][0]["path"] == str(notes.resolve())
        (notes / "d.md").write_text("# D\n\nWritten under the daemon.\n")
        assert wait_for(lambda: "d.md" in drawers(palace_dir), timeout=30)
        # a cold `palace ask` is answered by the watcher's warm server, from the same palace
        asked = subprocess.run([*cli, "ask", "written under the daemon", "--json", "--palace", str(palace_dir)],
                               capture_output=True, text=True, timeout=60)
        assert asked.returncode == 0 and "d.md" in [r["path"] for r in json.loads(asked.stdout)["results"]]
        shown = subprocess.run([*cli, "daemon", "status", "--palace", str(palace_dir)], capture_output=True,
                               text=True, timeout=60).stdout
        assert "serving cold commands on" in shown and "1 answered)" in shown
    finally:
        stopped = subprocess.run([*cli, "daemon", "stop", "--palace", str(palace_dir)],
                                 capture_output=True, text=True, timeout=180)
    assert stopped.returncode == 0 and "stopped the watcher" in stopped.stdout
    after = subprocess.run([*cli, "daemon", "status", "--palace", str(palace_dir)], capture_output=True, text=True)
    assert after.returncode == 3 and "no watcher runs" in after.stdout
    assert (palace_dir / "watch.log").read_text().count("ready: watching") == 1


def test_polling_takes_over_when_native_events_fail(tmp_path, notes, monkeypatch):
    import errno

    from watchdog.observers import Observer

    def no_more_watches(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(Observer, "schedule", no_more_watches)
    w = Palace.watcher(tmp_path / "palace", [notes], debounce=0.2, poll_interval=0.3)
    w.start()
    try:
        assert w.wait_ready(120)
        state = read_state(tmp_path / "palace")
        assert state["roots"][0]["observer"] == "polling" and "watch limit" in state["roots"][0]["reason"]
        assert state["health"] == "degraded"
        (notes / "polled.md").write_text("# Polled\n\nSeen by polling.\n")
        assert wait_for(lambda: "polled.md" in drawers(tmp_path / "palace"), timeout=30)
    finally:
        w.stop()


def test_a_palace_inside_the_watched_folder_does_not_wake_it(tmp_path, notes, outcomes):
    w = Palace.watcher(notes / "palace-data", [notes], debounce=0.2)
    w.start()
    try:
        assert w.wait_ready(120)
        updates = w.state.updates
        time.sleep(6)  # a heartbeat rewrites watch.json inside the watched folder
        assert w.state.updates == updates
        assert "palace-data/watch.json" not in " ".join(outcomes())
    finally:
        w.stop()


def test_a_folder_deleted_and_recreated_at_once_is_watched_again(watcher, notes, tmp_path):
    backup = tmp_path / "backup"
    shutil.copytree(notes, backup)
    shutil.rmtree(notes)
    time.sleep(0.3)  # back before any heartbeat could see it missing
    shutil.copytree(backup, notes)
    assert wait_for(lambda: read_state(tmp_path / "palace")["roots"][0]["state"] == "watching"
                    and read_state(tmp_path / "palace")["roots"][0]["reason"] == "", timeout=20)
    time.sleep(6)  # the heartbeat has seen the new folder and watches it
    (notes / "heron.md").write_text("# Heron\n\nWritten into the new folder.\n")
    assert wait_for(lambda: "heron.md" in drawers(tmp_path / "palace"), timeout=30)


def test_a_file_written_without_pause_does_not_hold_back_the_others(watcher, notes, tmp_path):
    stream = notes / "stream.txt"
    stop = threading.Event()

    def keep_writing():
        while not stop.is_set():
            with stream.open("a") as out:
                out.write("tick\n")
            time.sleep(0.1)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        time.sleep(0.5)
        (notes / "kestrel.md").write_text("# Kestrel\n\nThe kestrel note.\n")
        assert wait_for(lambda: "kestrel.md" in drawers(tmp_path / "palace"), timeout=10)
    finally:
        stop.set()
        writer.join()


def test_stop_during_a_long_catch_up_is_prompt_and_loses_nothing(tmp_path, notes):
    for i in range(400):
        (notes / f"n-{i:03}.md").write_text(f"# Note {i}\n\nMara Bos and Josh Stone met about item {i} in Lisbon.\n")
    palace_dir = tmp_path / "palace"
    w = Palace.watcher(palace_dir, [notes], debounce=0.2)
    w.start()
    assert wait_for(lambda: len(drawers(palace_dir)) > 5, timeout=120)
    started = time.monotonic()
    w.stop()
    assert time.monotonic() - started < 30  # it stops between notes, not after all 400
    assert read_state(palace_dir)["stopped_at"]
    again = Palace.watcher(palace_dir, [notes], debounce=0.2)
    again.start()
    try:
        assert again.wait_ready(300)
        assert len(drawers(palace_dir)) == 401
        with Palace.open(palace_dir, create=False) as palace:
            assert palace.conn.execute("SELECT count(*) FROM drawers WHERE embedded = 0").fetchone()[0] == 0
    finally:
        again.stop()


def test_two_folders_of_one_name_are_refused(tmp_path):
    from palace.errors import UsageError

    (tmp_path / "a" / "notes").mkdir(parents=True)
    (tmp_path / "b" / "notes").mkdir(parents=True)
    with pytest.raises(UsageError, match="two folders would be the wing 'notes'"):
        Palace.watcher(tmp_path / "palace", [tmp_path / "a" / "notes", tmp_path / "b" / "notes"])


def test_an_editor_file_that_a_scan_recorded_leaves_when_it_is_deleted(watcher, notes, tmp_path):
    (notes / "x.md~").write_text("backup")
    (notes / "sub").mkdir()  # a folder event: the whole folder is scanned and x.md~ recorded as skipped
    palace_dir = tmp_path / "palace"

    def paths():
        with Palace.open(palace_dir, create=False) as palace:
            return {r[0] for r in palace.conn.execute("SELECT path FROM files")}

    assert wait_for(lambda: "x.md~" in paths(), timeout=20)
    (notes / "x.md~").unlink()
    assert wait_for(lambda: "x.md~" not in paths(), timeout=20)


def test_palace_mine_refuses_while_a_watcher_runs_and_ask_never_crashes_beside_it(watcher, notes, tmp_path):
    cli = [sys.executable, "-c", "from palace.cli.main import run; run()"]
    refused = subprocess.run([*cli, "mine", str(notes), "--palace", str(tmp_path / "palace")],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "keeps this palace current" in refused.stderr
    for i in range(300):
        (notes / f"b-{i:03}.md").write_text(f"# B {i}\n\nNote {i} about the Harbor budget, token h{i}q.\n")
    codes = []
    deadline = time.monotonic() + 120
    while len(drawers(tmp_path / "palace")) < 301 and time.monotonic() < deadline:
        asked = subprocess.run([*cli, "ask", "Harbor budget", "--palace", str(tmp_path / "palace"), "--json"],
                               capture_output=True, text=True, timeout=120)
        codes.append((asked.returncode, asked.stderr[-300:]))
    assert codes and all(code == 0 for code, _ in codes), codes  # no crash while the watcher writes Chroma


def test_a_mine_step_holds_the_write_lock_so_a_short_write_never_races_it(watcher, notes, tmp_path):
    from palace.errors import PalaceBusy
    from palace.ops.locks import mine_running, write_lock

    palace_dir = tmp_path / "palace"
    with write_lock(palace_dir, "add a fact"):  # another process's short write, in progress
        (notes / "held.md").write_text("# Held\n\nThe Osprey project began in May.\n")
        assert wait_for(lambda: watcher.state.mining == ["held.md"])  # its step is due...
        time.sleep(0.5)
        assert "held.md" not in drawers(palace_dir)  # ... and waits for the write at hand
    assert wait_for(lambda: "held.md" in drawers(palace_dir)) and watcher.wait_idle()
    (notes / "slow.md").write_text("# Slow\n\n" + "\n\n".join(
        f"## Part {i}\n\nThe harbor crew logged crate {i} at dock seven before noon." for i in range(400)))
    assert wait_for(lambda: mine_running(palace_dir), timeout=60)  # a step holds the lock while it mines...
    with pytest.raises(PalaceBusy), write_lock(palace_dir, "add a fact", wait=0.0):
        pass  # ... so a short write waits for it (here not at all: it is refused)
    assert watcher.wait_idle(300) and "slow.md" in drawers(palace_dir)


def test_a_stale_heartbeat_is_reported_degraded(tmp_path):
    import datetime as dt
    import json

    from typer.testing import CliRunner

    from palace.cli.main import app
    from palace.ops.daemon import STATE_FILE
    from palace.mine.watch import PalaceLock

    palace_dir = tmp_path / "palace"
    lock = PalaceLock(palace_dir)
    lock.acquire()  # a watcher process that still holds its lock ...
    try:
        old = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=10)).isoformat(timespec="milliseconds")
        state = {"pid": os.getpid(), "health": "healthy", "ready": False, "roots": [], "queue": 1,
                 "mining": ["b.md"], "updates": 0, "last_event": None, "last_update": None, "problems": [],
                 "errors": [], "heartbeat": old}
        (palace_dir / STATE_FILE).write_text(json.dumps(state))  # ... but wrote nothing for ten minutes
        out = CliRunner().invoke(app, ["daemon", "status", "--palace", str(palace_dir)])
        assert "degraded" in out.output and "no heartbeat for 600 s (mining: b.md)" in out.output
        data = json.loads(CliRunner().invoke(app, ["daemon", "status", "--json", "--palace", str(palace_dir)]).stdout)
        assert data["state"]["health"] == "degraded" and data["state"]["heartbeat_age_s"] >= 600
    finally:
        lock.release()


def test_a_long_note_gives_way_to_notes_saved_while_it_is_read(tmp_path, notes, outcomes):
    from palace.mine.options import MineOptions

    budget = MineOptions(large_note_drawers=10, progress_every=5)  # steps of 10 drawers, scaled down to a test
    w = Palace.watcher(tmp_path / "palace", [notes], debounce=0.2, options=budget)
    w.start()
    try:
        assert w.wait_ready(120)
        reported = w._progress

        def save_beside(path, read, total):  # while the long note is read, a small note is saved
            reported(path, read, total)
            if read == 5 and not (notes / "small.md").exists():
                (notes / "small.md").write_text("# Sync\n\nPriya Raman joined the Harbor team.\n")

        w._progress = save_beside
        filler = " ".join(f"The harbor crew logged crate {n} at dock seven before noon." for n in range(30))
        (notes / "long.md").write_text("\n\n".join(f"## Part {i}\n\n{filler}" for i in range(60)))
        assert wait_for(lambda: any(line == "indexed long.md" for line in outcomes()), timeout=300)
        assert w.wait_idle(60)
        lines = [line for line in outcomes() if line.startswith("indexed ")]
        assert lines.index("indexed small.md") < lines.index("indexed long.md")  # it did not wait for the long one
        assert any("gave way" in line for line in outcomes())
        with Palace.open(tmp_path / "palace", create=False) as palace:
            row = palace.conn.execute("SELECT id, reason FROM files WHERE path = 'long.md'").fetchone()
            count = palace.conn.execute("SELECT count(*) FROM drawers WHERE file_id = ?", (row["id"],)).fetchone()[0]
        assert row["reason"] == "" and count > 60  # complete: every part, each drawer once
        assert len(set(drawers(tmp_path / "palace")["long.md"])) <= count
    finally:
        w.stop()


def test_a_watcher_killed_without_cleaning_up_is_reported_dead(tmp_path, notes):
    """SIGKILL leaves ``watch.json`` as the watcher last wrote it (healthy, a fresh
    heartbeat) and no stop recorded: the status says dead, with the time, never healthy."""
    import signal

    palace_dir = tmp_path / "palace"
    cli = [sys.executable, "-c", "from palace.cli.main import run; run()"]
    started = subprocess.run([*cli, "watch", "--daemon", str(notes), "--palace", str(palace_dir)],
                             capture_output=True, text=True, timeout=300)
    assert started.returncode == 0, started.stderr
    before = json.loads(subprocess.run([*cli, "daemon", "status", "--json", "--palace", str(palace_dir)],
                                       capture_output=True, text=True, timeout=60).stdout)
    assert before["running"] and before["health"] == "healthy"
    pid = before["pid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split(")")[-1]
                    .split()[0] == "Z", timeout=30)
    shown = subprocess.run([*cli, "daemon", "status", "--json", "--palace", str(palace_dir)], capture_output=True,
                           text=True, timeout=60)
    status = json.loads(shown.stdout)
    assert shown.returncode == 3
    assert (status["running"], status["pid"], status["health"], status["state"]["health"]) == (False, None, "dead", "dead")
    assert status["died_at"] == status["state"]["heartbeat"] and status["died_at"]
    assert status["state"]["problems"][-1] == (f"the watcher (pid {pid}) died without a clean stop; its last"
                                               f" heartbeat was at {status['died_at']}")
    text = subprocess.run([*cli, "daemon", "status", "--palace", str(palace_dir)], capture_output=True, text=True,
                          timeout=60).stdout
    assert f"the last one (pid {pid}) died (no clean stop) at {status['died_at']}" in text
