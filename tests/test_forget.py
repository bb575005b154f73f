"""`palace forget`: a forgotten note leaves no trace in any command's output nor in any
file of the palace, and is not mined again unless the user allows it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palace.cli.main import app

SECRET = ("---\ndate: 2024-05-02\n---\n# Offsite notes\n\n"
          "Quixotrex Zephyrine joined Acme Robotics as staff engineer. Quixotrex Zephyrine reports to Bob Okafor.\n\n"
          "The zorblattine budget was approved by Helen Marsh.\n")
UNIQUE = ("quixotrex", "zephyrine", "zorblattine", "2024-05-02-offsite")  # its words and its file name


@pytest.fixture()
def palace_with_secret(sample_copy, tmp_path):
    notes = tmp_path / "notes"
    shutil.copytree(sample_copy, notes, symlinks=True)
    (notes / "journal" / "2024-05-02-offsite.md").write_text(SECRET)
    palace_dir = tmp_path / "palace"
    assert run("mine", str(notes), "--palace", str(palace_dir)).exit_code == 0
    return notes, palace_dir


def run(*args):
    return CliRunner().invoke(app, list(args))


def traces(palace_dir: Path) -> list[str]:
    """The files of the palace that hold any of the unique words, in any case."""
    found = []
    for path in palace_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes().lower()
            if any(word.encode() in data for word in UNIQUE):
                found.append(str(path.relative_to(palace_dir)))
    return found


def outputs(palace_dir: Path) -> str:
    """What every read command prints about the palace (JSON and text)."""
    p = ("--palace", str(palace_dir))
    commands = [
        ("status", "--all", "--json"), ("facts", "--all", "--limit", "5000", "--json"), ("facts", "--all"),
        ("history", "Bob Okafor", "--all", "--json"), ("history", "Acme Robotics", "--all"),
        ("entity", "Bob Okafor", "--json"), ("entity", "Acme Robotics"), ("changes", "--json"),
        ("changes", "--since", "2024-01-01", "--json"), ("card", "--entities", "50", "--json"),
        ("review", "--json"), ("fact", "decisions", "--json"), ("doctor", "--json"),
        ("ask", "who joined Acme Robotics as staff engineer", "--json"), ("ask", "which budget was approved in May 2024"),
    ]
    return "\n".join(run(*c, *p).output for c in commands)


def test_a_forgotten_note_is_in_no_output_and_no_file(palace_with_secret):
    notes, palace_dir = palace_with_secret
    assert traces(palace_dir) and "quixotrex" in outputs(palace_dir).lower()  # it was there
    dry = run("forget", str(notes / "journal" / "2024-05-02-offsite.md"), "--dry-run", "--json", "--palace",
              str(palace_dir))
    assert dry.exit_code == 0, dry.output
    planned = json.loads(dry.output)
    assert traces(palace_dir)  # a dry run changes nothing
    done = run("forget", str(notes / "journal" / "2024-05-02-offsite.md"), "--json", "--palace", str(palace_dir))
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert {k: report[k] for k in ("files", "drawers", "facts", "entities")} == {
        k: planned[k] for k in ("files", "drawers", "facts", "entities")}
    assert report["files"] == 1 and report["facts"] >= 3 and report["entities"] >= 1
    text = outputs(palace_dir).lower()
    assert not [w for w in UNIQUE if w in text]
    assert traces(palace_dir) == []  # compacted: no file keeps the text, the audit neither
    assert "Bob Okafor" in run("entity", "Bob Okafor", "--palace", str(palace_dir)).output  # the rest stays

    again = run("mine", str(notes), "--json", "--palace", str(palace_dir))
    assert again.exit_code == 0 and json.loads(again.output)["indexed"] == 0  # not mined again
    assert traces(palace_dir) == []
    allowed = run("forget", str(notes / "journal"), "--allow", "--palace", str(palace_dir))  # its folder
    assert allowed.exit_code == 0 and "1 forgotten note" in allowed.output
    assert json.loads(run("mine", str(notes), "--json", "--palace", str(palace_dir)).output)["indexed"] == 1


def test_forgetting_an_entity_or_a_wing(palace_with_secret):
    notes, palace_dir = palace_with_secret
    gone = run("forget", "--entity", "Quixotrex Zephyrine", "--palace", str(palace_dir))
    assert gone.exit_code == 0, gone.output
    missing = run("entity", "Quixotrex Zephyrine", "--palace", str(palace_dir))
    assert missing.exit_code == 1 and "no entity named" in missing.output
    assert "Quixotrex" not in run("facts", "--all", "--palace", str(palace_dir)).output
    wing = run("forget", "--wing", "notes", "--json", "--palace", str(palace_dir))
    assert wing.exit_code == 0, wing.output
    status = json.loads(run("status", "--json", "--palace", str(palace_dir)).output)
    assert (status["wings"], status["drawers"], status["facts"]) == ([], 0, 0)
    assert traces(palace_dir) == []
    assert json.loads(run("mine", str(notes), "--json", "--palace", str(palace_dir)).output)["indexed"] == 0
    lifted = run("forget", "--wing", "notes", "--allow", "--palace", str(palace_dir))
    forgotten = json.loads(wing.output)["files"]  # every file the wing recorded, skipped ones too
    assert lifted.exit_code == 0 and f"{forgotten} forgotten notes" in lifted.output
    assert json.loads(run("mine", str(notes), "--json", "--palace", str(palace_dir)).output)["indexed"] == 51


def test_a_forget_from_python_holds_the_write_lock(tmp_path):
    """The handle takes the write lock itself: a forget from Python (a script, an agent)
    is refused beside another writer as the command is, and changes nothing; a dry run
    writes nothing and takes no lock."""
    from palace.core import Palace
    from palace.errors import PalaceBusy
    from palace.ops.locks import MineLock

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-05-02-offsite.md").write_text(SECRET)
    palace_dir = tmp_path / "palace"
    with Palace.open(palace_dir) as palace:
        palace.mine(notes)
        note = str(notes / "2024-05-02-offsite.md")
        with MineLock(palace_dir, doing="mine"):  # another process is writing
            with pytest.raises(PalaceBusy, match=r"is busy: another process is writing it \(pid \d+\); it cannot forget"):
                palace.forget(note)
            planned = palace.forget(note, dry_run=True)
        assert (planned.dry_run, planned.files, planned.audit_id) == (True, 1, None)
        assert palace.status().drawers > 0 and traces(palace_dir)  # neither changed anything
        done = palace.forget(note)
        assert (done.files, done.drawers) == (1, planned.drawers) and done.audit_id
        assert palace.status().drawers == 0 and traces(palace_dir) == []
        assert palace.allow(note) == 1


def test_forgetting_a_note_keeps_what_other_notes_front_matter_makes(tmp_path):
    """A note's front-matter ``aliases`` make the concept of its title, with no mention
    and no fact: forgetting *another* note keeps it, and ``doctor`` checks (and
    ``--repair`` makes again) every such concept."""
    from palace.core import Palace

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "atlas.md").write_text("---\ntitle: Atlas Platform\naliases: [Project Atlas, Atlas]\n---\n"
                                    "The platform team ships it every quarter.\n")
    (notes / "2024-03-01-sync.md").write_text("# Sync\n\nDana Lee works at Initech.\n")
    (notes / "2024-03-02-lunch.md").write_text("---\naliases: [Lunch]\n---\n# Lunch with Omar\n\nOmar Haddad joined Globex.\n")
    p = ("--palace", str(tmp_path / "palace"))
    assert run("mine", str(notes), *p).exit_code == 0
    with Palace.open(tmp_path / "palace", create=False) as palace:
        assert palace.entity("Project Atlas").name == "Atlas Platform"
    assert run("forget", str(notes / "2024-03-02-lunch.md"), *p).exit_code == 0
    with Palace.open(tmp_path / "palace", create=False) as palace:
        card = palace.entity("Project Atlas")  # main: "no entity named 'Project Atlas'"
        assert card.name == "Atlas Platform" and card.types == ("CONCEPT",) and card.mentions == 0
        assert palace.conn.execute("SELECT count(*) FROM entities WHERE key = 'lunch with omar'").fetchone()[0] == 0
        assert palace.doctor().ok
        palace.conn.execute("DELETE FROM entities WHERE key = 'atlas platform'")  # as main's forget left it
        palace.conn.commit()
        report = palace.doctor()
        (check,) = [c for c in report.checks if c.name == "front_matter"]
        assert not check.ok and "Atlas Platform (atlas.md)" in check.detail
        repaired = palace.doctor(repair=True)
        assert repaired.ok and palace.entity("Atlas").name == "Atlas Platform"
