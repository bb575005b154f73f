"""Discovery: ignore files, hidden folders, editor files, links that leave the root."""

from __future__ import annotations

import os

import pytest

from palace.mine.discovery import PathFilter, is_editor_artifact, walk

pytestmark = pytest.mark.unit


def _tree(root, files: dict[str, bytes | str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        path.write_bytes(content)


def test_walk_decides_every_path_with_its_rule(tmp_path):
    root = tmp_path / "notes"
    _tree(root, {
        "a.md": "# A", "b.txt": "b", "c.markdown": "c", "image.png": b"\x89PNG",
        ".gitignore": "drafts/\n*.log\n", ".palaceignore": "*.private.md\n",
        "drafts/x.md": "x", "diary.private.md": "secret", "debug.log": "log",
        ".obsidian/workspace.md": "ws", "node_modules/pkg/readme.md": "r",
        "sub/.gitignore": "!keep.log\nlocal.md\n", "sub/local.md": "l", "sub/keep.md": "k",
        "meetings/.2024-04-12.md.swp": b"\x00swap", "meetings/note.md~": "old", "meetings/4913": "",
        "meetings/.#lock.md": "", "meetings/ok.md": "ok",
    })
    got = {d.path: (d.action, d.reason) for d in walk(root)}
    assert got["a.md"] == ("mine", "")
    assert got["b.txt"] == ("mine", "")
    assert got["c.markdown"] == ("mine", "")
    assert got["meetings/ok.md"] == ("mine", "")
    assert got["sub/keep.md"] == ("mine", "")
    assert got["image.png"] == ("skip", "not a note (.png)")
    assert got["drafts"] == ("skip", "ignored by .gitignore")
    assert got["diary.private.md"] == ("skip", "ignored by .palaceignore")
    assert got["sub/local.md"] == ("skip", "ignored by sub/.gitignore")
    assert got[".obsidian"] == ("skip", "hidden folder")
    assert got["node_modules"] == ("skip", "node_modules folder")
    assert got["meetings/note.md~"] == ("skip", "editor backup/swap file")
    assert got["meetings/4913"] == ("skip", "editor backup/swap file")
    assert got["meetings/.2024-04-12.md.swp"][0] == "skip"
    assert got["meetings/.#lock.md"][0] == "skip"
    assert "drafts/x.md" not in got and ".obsidian/workspace.md" not in got


def test_links_stay_inside_the_root_and_never_loop(tmp_path):
    outside = tmp_path / "outside"
    _tree(outside, {"leak.md": "outside"})
    root = tmp_path / "notes"
    _tree(root, {"inner/n.md": "inner"})
    os.symlink(outside, root / "escape")
    os.symlink(root, root / "inner" / "loop")
    os.symlink(root / "inner" / "n.md", root / "alias.md")
    decisions = {d.path: d for d in walk(root)}
    assert decisions["escape"].action == "skip" and "outside" in decisions["escape"].reason
    assert decisions["inner/loop"].action == "skip" and "loop" in decisions["inner/loop"].reason
    # a link to a note inside the root: the note is mined once, at its own path
    assert decisions["alias.md"].action == "skip" and decisions["alias.md"].reason == "link to inner/n.md, mined there"
    assert decisions["inner/n.md"].action == "mine"
    assert not any("leak" in p for p in decisions)


def test_editor_artifacts():
    for name in ["note.md~", ".note.md.swp", ".note.md.swo", "4913", ".#note.md", "#note.md#"]:
        assert is_editor_artifact(name), name
    for name in ["note.md", "2024-04-12.md", "swap.md"]:
        assert not is_editor_artifact(name), name


def test_filter_forgets_changed_ignore_rules(tmp_path):
    _tree(tmp_path, {"a.md": "a"})
    path_filter = PathFilter(tmp_path)
    assert path_filter.decide("a.md", False).action == "mine"
    (tmp_path / ".palaceignore").write_text("a.md\n")
    assert path_filter.decide("a.md", False).action == "mine"  # cached
    path_filter.forget()
    assert path_filter.decide("a.md", False).reason == "ignored by .palaceignore"


def test_deciding_named_paths_equals_walking_the_root(tmp_path):
    """A watcher's step decides its notes without a walk, and decides them as the walk
    would: ignore rules, hidden and skipped folders, editor files, other suffixes, special
    files; a gone path or one under a skipped folder gets no decision; links and folders
    need the walk (None)."""
    import os

    from palace.mine.discovery import PathFilter, decide_paths, walk

    root = tmp_path / "notes"
    files = ["a.md", "b.txt", "img.png", ".hidden.md", "notes.md~", "deep/c.md", "deep/.git/d.md",
             "node_modules/e.md", "build/f.md", "keep/g.md", "keep/skip-me.md", "keep/sub/h.md"]
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n\ntext\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "keep" / ".palaceignore").write_text("skip-me.md\n")
    os.mkfifo(root / "pipe.md")
    (root / "link.md").symlink_to(root / "a.md")
    walked = {d.path: d for d in walk(root, PathFilter(root)) if not d.is_dir}
    named = files + ["pipe.md", "gone.md", "deep/gone.md"]
    decided = decide_paths(root, named, PathFilter(root))
    assert {d.path: d for d in decided} == {p: walked[p] for p in named if p in walked}
    assert {d.path for d in decided if d.action == "mine"} == {"a.md", "b.txt", "deep/c.md", "keep/g.md",
                                                              "keep/sub/h.md"}
    assert {d.path: d.reason for d in decided if d.action == "skip"} == {
        "img.png": "not a note (.png)", ".hidden.md": "hidden file", "notes.md~": "editor backup/swap file",
        "keep/skip-me.md": "ignored by keep/.palaceignore", "pipe.md": "not a regular file (a FIFO, socket or device)"}
    assert decide_paths(root, ["link.md"]) is None and decide_paths(root, ["deep"]) is None
