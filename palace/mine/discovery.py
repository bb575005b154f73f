"""Discovery: which files under a root are notes to mine, and why the others are not.

One ignore filter serves everything that walks files (``palace mine`` and, later, the
watcher): :class:`PathFilter`. It honours ``.gitignore`` files at every level and a
``.palaceignore`` at any level (gitignore syntax, matched with the well-kept ``pathspec``
library), and always skips hidden files and folders (``.git``, ``.obsidian``, ``.trash``…),
``node_modules`` and editor backup, swap and lock files. Links are followed only when
their target stays inside the root, and a folder reached twice (a link loop) is walked once.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator

import pathspec

from palace.config import NOTE_SUFFIXES

IGNORE_FILES = (".gitignore", ".palaceignore")
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})
#: Editor temp, swap, backup and lock files (vim, emacs, JetBrains, Office, macOS).
EDITOR_PATTERNS = ("*~", ".*.sw?", "*.swp", "*.swo", "*.swx", "4913", ".#*", "#*#", "*.bak",
                   "*.tmp", "~$*", ".DS_Store", "*.orig")


@dataclass(frozen=True)
class Decision:
    """What discovery decided for one path.

    ``path`` is relative to the root, POSIX style; ``action`` is ``"mine"`` or ``"skip"``;
    ``reason`` says which rule decided (empty for ``mine``); ``is_dir`` marks a skipped folder.
    """

    path: str
    action: str
    reason: str = ""
    is_dir: bool = False


def is_editor_artifact(name: str) -> bool:
    """True when a file name is an editor's temp, swap, backup or lock file."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in EDITOR_PATTERNS)


class PathFilter:
    """The one ignore filter: decides mine/skip for a path relative to ``root``.

    Ignore files are read lazily per folder and cached; call :meth:`forget` when one changes.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[str, list[tuple[str, str, pathspec.PathSpec]]] = {}

    def forget(self) -> None:
        """Drop cached ignore rules (after a ``.gitignore`` or ``.palaceignore`` changed)."""
        self._specs.clear()

    def _folder_specs(self, rel_dir: str) -> list[tuple[str, str, pathspec.PathSpec]]:
        if rel_dir in self._specs:
            return self._specs[rel_dir]
        specs = []
        folder = self.root / rel_dir if rel_dir else self.root
        for name in IGNORE_FILES:
            try:
                lines = (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            specs.append((rel_dir, name, pathspec.GitIgnoreSpec.from_lines(lines)))
        self._specs[rel_dir] = specs
        return specs

    def ignored_by(self, rel: str, is_dir: bool) -> str | None:
        """Return the ignore file (e.g. ``.gitignore`` or ``notes/.palaceignore``) that
        excludes ``rel``, or None. Deeper ignore files win, as in git."""
        parts = PurePosixPath(rel).parts
        verdict: str | None = None
        for depth in range(len(parts)):
            rel_dir = "/".join(parts[:depth])
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            for folder, name, spec in self._folder_specs(rel_dir):
                result = spec.check_file(sub)
                if result.include is True:
                    verdict = f"{folder + '/' if folder else ''}{name}"
                elif result.include is False:
                    verdict = None
        return verdict

    def decide(self, rel: str, is_dir: bool) -> Decision:
        """Decide one path (relative, POSIX) whose parent folders were already admitted."""
        name = PurePosixPath(rel).name
        if name.startswith("."):
            if name in IGNORE_FILES:
                return Decision(rel, "skip", "ignore rules", is_dir)
            return Decision(rel, "skip", "hidden folder" if is_dir else "hidden file", is_dir)
        if is_dir and name in SKIPPED_FOLDERS:
            return Decision(rel, "skip", f"{name} folder", True)
        if not is_dir and is_editor_artifact(name):
            return Decision(rel, "skip", "editor backup/swap file")
        source = self.ignored_by(rel, is_dir)
        if source:
            return Decision(rel, "skip", f"ignored by {source}", is_dir)
        if is_dir:
            return Decision(rel, "mine", "", True)
        suffix = PurePosixPath(name).suffix.lower()
        if suffix not in NOTE_SUFFIXES:
            return Decision(rel, "skip", f"not a note ({suffix or 'no suffix'})")
        return Decision(rel, "mine")


def _entry_kind(entry: os.DirEntry, rel: str, root: Path) -> "Decision | str | None":
    """What the walk does with ``entry`` (at ``rel`` under the resolved ``root``): ``"dir"``
    or ``"file"`` to go on, a skip :class:`Decision` (a FIFO, socket or device; a broken
    link; a link out of the root; a link to a note, mined at its own path), or ``None``
    for an entry that vanished or cannot be stat-ed."""
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir(follow_symlinks=True)
        is_file = is_dir or entry.is_file(follow_symlinks=True)
    except OSError:
        return None
    if not is_file and not is_link:  # a FIFO would block the read for ever
        return Decision(rel, "skip", "not a regular file (a FIFO, socket or device)", False)
    if is_link:
        try:
            target = Path(entry.path).resolve(strict=True)
        except (OSError, RuntimeError):
            return Decision(rel, "skip", "broken link", is_dir)
        if target != root and root not in target.parents:
            return Decision(rel, "skip", "link leads outside the root", is_dir)
        if not is_dir:  # the note is mined at its own path
            return Decision(rel, "skip", f"link to {target.relative_to(root).as_posix()}, mined there", False)
    return "dir" if is_dir else "file"


def walk(root: Path, path_filter: PathFilter | None = None) -> Iterator[Decision]:
    """Yield a :class:`Decision` for every file and skipped folder under ``root``.

    Sorted by path within each folder (deterministic). Folders that are skipped are
    yielded once and not entered. Links to folders are followed only inside ``root`` and
    each real folder is entered once, so links never lead out of the root or round in
    circles; a link to a note is skipped (the note is mined at its own path, once).
    Special files (FIFOs, sockets, devices) and names that are not valid UTF-8 are skipped
    with their reason.
    """
    root = root.resolve()
    path_filter = path_filter or PathFilter(root)
    seen_dirs: set[tuple[int, int]] = set()

    def visit(folder: Path, rel_dir: str) -> Iterator[Decision]:
        try:
            st = folder.stat()
        except OSError as exc:
            yield Decision(rel_dir or ".", "skip", f"unreadable folder: {exc.strerror}", True)
            return
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            yield Decision(rel_dir, "skip", "link loop (folder already walked)", True)
            return
        seen_dirs.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield Decision(rel_dir or ".", "skip", f"unreadable folder: {exc.strerror}", True)
            return
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:  # bytes no encoding explains: recorded under a readable name
                shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                yield Decision(shown, "skip", "file name is not valid UTF-8", False)
                continue
            kind = _entry_kind(entry, rel, root)
            if kind is None:
                continue
            if isinstance(kind, Decision):
                yield kind
                continue
            is_dir = kind == "dir"
            decision = path_filter.decide(rel, is_dir)
            if is_dir:
                if decision.action == "skip":
                    yield decision
                else:
                    yield from visit(Path(entry.path), rel)
            else:
                yield decision

    yield from visit(root, "")


def decide_paths(root: Path, paths, path_filter: PathFilter | None = None) -> list[Decision] | None:
    """The decisions :func:`walk` would make for these files (relative POSIX paths),
    found without walking the root: a watcher's step costs the notes it names, not the
    folder. A path that is gone, or lies under a folder the rules skip, gets no decision
    (as in a walk, where it does not appear). Returns None when the answer needs the
    walk: a path that is a folder, goes through a link, or cannot be read."""
    root = root.resolve()
    path_filter = path_filter or PathFilter(root)
    out: list[Decision] = []
    for rel in sorted(set(paths)):
        parts = PurePosixPath(rel).parts
        if not parts or ".." in parts:
            return None
        admitted = True
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            try:
                st = os.lstat(root / folder)
            except FileNotFoundError:
                admitted = False  # gone with its folder
                break
            except OSError:
                return None
            if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
                return None
            if path_filter.decide(folder, True).action == "skip":
                admitted = False
                break
        if not admitted:
            continue
        try:
            st = os.lstat(root / rel)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode):
            return None
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            return None
        if not stat.S_ISREG(st.st_mode):
            out.append(Decision(rel, "skip", "not a regular file (a FIFO, socket or device)", False))
            continue
        out.append(path_filter.decide(rel, False))
    return out
