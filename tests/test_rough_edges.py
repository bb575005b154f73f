"""The rough edges a new user met (issue 24), each as the user met it: every test here
failed before its fix."""

from __future__ import annotations

import asyncio
import json
import re
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palace.cli.main import app

PALACE = str(Path(sys.executable).parent / "palace")


def run(*args: str, palace_dir: Path):
    return CliRunner().invoke(app, [*args, "--palace", str(palace_dir)])


@pytest.fixture()
def sample_copy_palace(mined_sample, tmp_path) -> Path:
    palace_dir = tmp_path / "palace"
    shutil.copytree(mined_sample[0], palace_dir)
    return palace_dir


# -- `palace ask … | head -1` ------------------------------------------------------------


def _into_closed_pipe(args: list[str], env: dict) -> subprocess.CompletedProcess:
    """Run ``palace`` with its stdout on a pipe nobody reads any more (``| head -1`` once
    head has its line): every write fails with EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([PALACE, *args], stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    finally:
        os.close(write)


@pytest.mark.slow
def test_a_closed_pipe_ends_a_command_with_exit_0_and_no_traceback(mined_sample):
    palace_dir, _ = mined_sample
    env = {**os.environ, "PALACE_SERVER": "off"}
    for args in (["ask", "what did we decide about the Harbor budget"], ["facts"], ["facts", "--json"]):
        done = _into_closed_pipe([*args, "--palace", str(palace_dir)], env)
        assert (done.returncode, done.stderr) == (0, ""), args


@pytest.mark.slow
def test_a_closed_pipe_after_a_served_answer_ends_with_exit_0_too(sample_copy_palace):
    server = subprocess.Popen([PALACE, "serve", "--palace", str(sample_copy_palace)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().startswith("serving ")
        done = _into_closed_pipe(["ask", "what did we decide about the Harbor budget", "--palace",
                                  str(sample_copy_palace)], dict(os.environ))
        assert (done.returncode, done.stderr) == (0, "")
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    assert "stopped after 1 requests" in out  # the server answered it


# -- MCP: the server's version, and an error at start ------------------------------------


def _initialize(palace_dir: Path, *args: str):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def start():
        params = StdioServerParameters(command=PALACE, args=["mcp", "--palace", str(palace_dir), *args])
        async with Client(params, read_timeout_seconds=120) as client:
            return client.server_info

    return asyncio.run(start())


def _messages(error: BaseException) -> str:
    """Every message of an exception and the exceptions it groups or chains."""
    found = [str(error)]
    for inner in getattr(error, "exceptions", ()):
        found.append(_messages(inner))
    if error.__cause__ is not None:
        found.append(_messages(error.__cause__))
    return "\n".join(found)


@pytest.mark.slow
def test_mcp_initialize_names_the_server_version_and_a_startup_error_reaches_the_client(mined_sample):
    palace_dir, _ = mined_sample
    info = _initialize(palace_dir)
    assert info.name == "palace" and info.version == version("palace") != ""
    with pytest.raises(BaseException) as refused:
        _initialize(palace_dir, "--wing", "nosuch")
    said = _messages(refused.value)
    assert "palace mcp could not start: no wing 'nosuch' in this palace (hint: wings: sample)" in said
    assert "Connection closed" not in said


# -- "did you mean" instead of a new entity -----------------------------------------------


def test_observe_and_fact_add_offer_did_you_mean_and_create_only_with_new(sample_copy_palace):
    from palace.core import Palace

    with Palace.open(sample_copy_palace, create=False) as palace:
        before = len(palace.search_entities("okafr okafor bob", limit=50))
    typo = run("observe", "Bob Okafr", "prefers tea", palace_dir=sample_copy_palace)
    assert typo.exit_code == 1
    assert "Error: no entity named 'Bob Okafr' in this palace" in typo.output
    assert "did you mean: Bob Okafor? To make it a new entity, pass --new" in typo.output
    fact = run("fact", "add", "Helen Marsch", "role", "VP", palace_dir=sample_copy_palace)
    assert fact.exit_code == 1 and "did you mean: Helen Marsh?" in fact.output
    wrong_object = run("fact", "add", "Bob Okafor", "reports_to", "Helen Marsch", palace_dir=sample_copy_palace)
    assert wrong_object.exit_code == 1 and "no entity named 'Helen Marsch'" in wrong_object.output
    with Palace.open(sample_copy_palace, create=False) as palace:  # nothing was made
        assert len(palace.search_entities("okafr okafor bob", limit=50)) == before
        assert palace.fact_decisions() == []
    made = run("observe", "Dana Whitfeld", "prefers tea", "--new", palace_dir=sample_copy_palace)
    assert made.exit_code == 0, made.output
    added = run("fact", "add", "Bob Okafor", "reports_to", "Quinn Abara", "--from", "2025-06-01", "--new",
                palace_dir=sample_copy_palace)
    assert added.exit_code == 0, added.output
    with Palace.open(sample_copy_palace, create=False) as palace:
        assert [f.object for f in palace.facts(about="Dana Whitfeld").facts] == ["prefers tea"]
        assert [f.object for f in palace.facts(about="Bob Okafor", predicate="reports_to").facts] == ["Quinn Abara"]


def test_did_you_mean_names_only_what_the_callers_wing_holds(sample_copy_palace, tmp_path):
    from palace.core import Palace
    from palace.errors import UsageError

    diary = tmp_path / "diary"
    diary.mkdir()
    (diary / "2025-02-01.md").write_text("# Private\n\nQuentin Vasquez works at Zorblat Clinic.\n")
    with Palace.open(sample_copy_palace, create=False) as palace:
        palace.mine(diary)
        with pytest.raises(UsageError) as limited:
            palace.add_fact("Quentin Vasqez", "role", "director", wing="sample", by="agent", candidate=True)
        assert str(limited.value) == "no entity named 'Quentin Vasqez' in wing 'sample'"
        assert "Quentin" not in limited.value.hint
        with pytest.raises(UsageError) as everywhere:
            palace.observe("Quentin Vasqez", "likes tea")
        assert everywhere.value.hint.startswith("did you mean: Quentin Vasquez?")


# -- `palace forget` takes the path `palace ask` prints ------------------------------------


def test_forget_takes_the_wing_relative_path_that_ask_prints(sample_copy_palace, tmp_path, monkeypatch):
    from palace.core import Palace

    monkeypatch.chdir(tmp_path)  # anywhere but the notes' folder
    with Palace.open(sample_copy_palace, create=False) as palace:
        hit = palace.ask("what did we decide about the Larkspur renewal").results[0]
    assert hit.path == "meetings/2024-11-26-larkspur-renewal.md"
    printed = f"{hit.path}:{hit.line_start}-{hit.line_end}"  # as the rich output shows it
    dry = run("forget", printed, "--dry-run", "--json", palace_dir=sample_copy_palace)
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["files"] == 1 and json.loads(dry.output)["paths"] == [f"sample/{hit.path}"]
    done = run("forget", hit.path, "--json", palace_dir=sample_copy_palace)
    assert done.exit_code == 0, done.output
    with Palace.open(sample_copy_palace, create=False) as palace:
        assert all(h.path != hit.path for h in palace.ask("what did we decide about the Larkspur renewal").results)
    assert run("forget", "--allow", hit.path, palace_dir=sample_copy_palace).output.startswith(
        "1 forgotten note at meetings/2024-11-26-larkspur-renewal.md may be mined again")
    missing = run("forget", "meetings/no-such-note.md", palace_dir=sample_copy_palace)
    assert missing.exit_code == 1 and "no mined note at meetings/no-such-note.md" in missing.output


# -- `palace card` and `palace facts`: what comes first ------------------------------------


@pytest.fixture(scope="module")
def dana(tmp_path_factory) -> Path:
    """A palace of four notes: Dana Lee's employer and role (January), two of her
    decisions (June), a table that names a tool beside her (September), and a note with
    no date of its own."""
    from palace.core import Palace

    root = tmp_path_factory.mktemp("dana")
    notes = root / "notes"
    notes.mkdir()
    (notes / "2024-01-10.md").write_text("# Sync\n\nDana Lee works at Globex. Dana Lee is a staff engineer at Globex.\n")
    (notes / "2024-06-01.md").write_text("# Budget\n\nDana Lee approved the Q3 budget. Dana Lee decided to move the"
                                         " offsite to Lisbon.\n")
    (notes / "2024-09-01-tools.md").write_text("# Tools\n\n| Name | Uses |\n|---|---|\n| Dana Lee | uses Kafka |\n")
    (notes / "people.md").write_text("# People\n\nOmar Haddad works at Initech.\n")
    with Palace.open(root / "palace") as palace:
        palace.mine(notes)
        assert "Kafka" in [f.object for f in palace.facts(about="Dana Lee").facts]  # the fragment is in the graph
    return root / "palace"


def test_the_card_says_current_states_first_then_events_and_no_table_fragment(dana):
    card = run("card", "Dana Lee", "--facts", "3", palace_dir=dana)
    assert card.exit_code == 0, card.output
    assert card.output.splitlines()[1] == (
        "- Dana Lee (PERSON): works_at Globex since 2024-01-10 [2024-01-10.md:3]; role staff engineer since"
        " 2024-01-10 [2024-01-10.md:3]; approved Q3 budget on 2024-06-01 [2024-06-01.md:3]")
    assert "Kafka" not in run("card", "Dana Lee", palace_dir=dana).output


def test_palace_facts_lists_dated_facts_first_and_labels_the_undated(dana):
    listed = run("facts", palace_dir=dana)
    assert listed.exit_code == 0, listed.output
    lines = [line for line in listed.output.splitlines() if not line.startswith("    ")]
    assert lines[0].startswith("#") and "2024-01-10 → now" in lines[0]
    undated = lines.index("undated (no day in the note for when it began; listed after the dated facts)")
    assert all("? → now" not in line for line in lines[:undated])
    (after,) = lines[undated + 1:]
    assert "Omar Haddad –works_at→ Initech  ? → now" in after
    data = json.loads(run("facts", "--json", palace_dir=dana).output)
    starts = [f["valid_from"] for f in data["facts"]]
    assert starts[-1] is None and None not in starts[:-1] and starts[:-1] == sorted(starts[:-1])


# -- evidence from an untrusted wing, or whose facts the user turned down, is marked --------


def test_evidence_from_an_untrusted_wing_or_with_rejected_facts_is_marked(sample_copy_palace, tmp_path):
    from palace.core import Palace

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "2025-03-01.md").write_text("# Forwarded\n\nJess Kowalski works at Umbrella Corp.\n")
    (sample_copy_palace / "config.json").write_text(json.dumps({"wings": {"inbox": {"trust": "untrusted"}}}))
    with Palace.open(sample_copy_palace, create=False) as palace:
        palace.mine(inbox)
        hits = palace.ask("where does Jess Kowalski work").results
        forwarded = next(h for h in hits if h.wing == "inbox")
        assert forwarded.caution == ("untrusted wing",)
        assert all(h.caution == () for h in hits if h.wing == "sample")
        # the untrusted wing's fact awaits review (the sample's own low-confidence readings may too)
        (candidate,) = [c for c in palace.pending_review().candidates if c.subject == "Jess Kowalski"]
        palace.review(False, fact_ids=(candidate.id,), reason="not her employer")
        retracted = next(f for f in palace.facts(about="Larkspur", predicate="plan").facts if f.object == "Starter")
        palace.retract_fact(retracted.id, reason="we never downgraded")
        forwarded = next(h for h in palace.ask("where does Jess Kowalski work").results if h.wing == "inbox")
        assert forwarded.caution == ("untrusted wing", "a fact read here was rejected by the user")
        renewal = next(h for h in palace.ask("what did we decide about the Larkspur renewal").results
                       if h.drawer_id == retracted.drawer_id)
        assert renewal.caution == ("a fact read here was retracted by the user",)
    shown = run("ask", "where does Jess Kowalski work", palace_dir=sample_copy_palace).output
    assert "caution: untrusted wing; a fact read here was rejected by the user" in shown


# -- export and import carry what was forgotten ---------------------------------------------


def test_an_import_forgets_what_the_exporting_palace_forgot(tmp_path):
    from palace.core import Palace

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-03-01.md").write_text("# Sync\n\nDana Lee works at Initech.\n")
    (notes / "2024-05-02-offsite.md").write_text("# Offsite\n\nOmar Haddad works at Globex. ZANZIBARCANARY plans.\n")
    moved = tmp_path / "elsewhere" / "archive"  # the same notes after a move: another wing, another name
    shutil.copytree(notes, moved)
    (moved / "2024-05-02-offsite.md").rename(moved / "2024-05-02-retreat.md")
    with Palace.open(tmp_path / "first") as palace:
        palace.mine(notes)
        palace.forget(str(notes / "2024-05-02-offsite.md"))
    export = tmp_path / "graph.json"
    assert run("export", "--out", str(export), palace_dir=tmp_path / "first").exit_code == 0
    listed = json.loads(export.read_text())["forgotten"]
    assert len(listed) == 1 and set(listed[0]) == {"path_hash", "content_hash", "scopes", "forgotten_at"}
    assert "offsite" not in export.read_text() and "ZANZIBAR" not in export.read_text()  # hashes only

    for name, root in (("same", notes), ("moved", moved)):
        rebuilt = tmp_path / name
        with Palace.open(rebuilt) as palace:
            palace.mine(root)
            assert [f.object for f in palace.facts(about="Omar Haddad").facts] == ["Globex"]
        imported = run("import", str(export), "--json", palace_dir=rebuilt)
        assert imported.exit_code == 0, imported.output
        assert json.loads(imported.output)["notes_forgotten"] == 1, name
        with Palace.open(rebuilt, create=False) as palace:
            with pytest.raises(Exception, match="no entity named 'Omar Haddad'"):
                palace.facts(about="Omar Haddad")
            assert [f.object for f in palace.facts(about="Dana Lee").facts] == ["Initech"]
            assert all("2024-05-02" not in hit.path for hit in palace.ask("ZANZIBARCANARY plans").results)
            again = palace.mine(root)  # the note is never read again
            assert (again.indexed, again.unchanged) == (0, 1)
            with pytest.raises(Exception, match="no entity named 'Omar Haddad'"):
                palace.facts(about="Omar Haddad")


# -- the progress bar after the last path, and in 80 columns ------------------------------

LONG_NOTE = "projects/rust-lang/compiler-team/minutes/2023-04-1{}-compiler-team-triage-meeting-notes.md"


def _mine_in_a_terminal(notes: Path, palace_dir: Path, columns: int) -> list[str]:
    """``palace mine notes`` in a pseudo-terminal ``columns`` wide: the lines of the bar
    it drew on the way, escape codes removed."""
    import fcntl
    import pty
    import struct
    import termios

    env = {**os.environ, "COLUMNS": str(columns), "LINES": "24", "TERM": "xterm", "PALACE_PATH": str(palace_dir)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal's size, then palace
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        os.execve(PALACE, [PALACE, "mine", str(notes)], env)
    raw = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        raw += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, raw.decode(errors="replace")[-2000:]
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode(errors="replace"))
    return [line for line in re.split(r"[\r\n]", text) if line.startswith("mining")]


@pytest.mark.slow
def test_the_mine_bar_shows_the_vectors_after_the_last_path_and_keeps_count_and_clock_in_80_columns(tmp_path):
    notes = tmp_path / "notes"
    for day in range(3):
        note = notes / LONG_NOTE.format(day)
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Triage {day}\n\n" + f"Ana Lima met Bo Chen in Lisbon on 2023-04-1{day}.\n\n" * 4)
    lines = _mine_in_a_terminal(notes, tmp_path / "palace", 80)
    assert lines, "the bar was never drawn"
    for line in lines:
        assert len(line) <= 80, line
        assert re.search(r"\b[0-3]/3\b", line) and re.search(r"\b0:00:\d\d\b", line), line  # count and clock whole
    # once every path is done the bar says what the run still does, ending with every vector stored
    assert re.search(r"3/3 .*resolving names", "\n".join(lines))
    assert re.search(r"3/3 .*vectors (\d+)/\1 drawers", "\n".join(lines))
