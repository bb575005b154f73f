"""Reading a note: bytes → text (any common encoding) → front matter → document date.

Decoding order: a byte-order mark decides (UTF-8/16/32); else strict UTF-8; else the
encoding ``charset-normalizer`` detects (legacy code pages such as cp1252, latin-1).
Content with NUL bytes or that no encoding explains is binary, whatever its extension.
Line endings are normalised to ``\\n`` (CRLF and CR files keep their front matter).
Front matter is YAML between ``---`` fences, parsed by ``python-frontmatter``.

A note's own date comes from its front matter, its file name, its first dated heading,
or — in a git work tree — the author date of the last commit that touched it (read for a
whole folder with one ``git log``, :class:`GitDates`); only then from the file's mtime,
which a copy or a clone resets (``doc_date_source`` ``mtime``: the note is *undated*).
"""

from __future__ import annotations

import codecs
import datetime as dt
import hashlib
import os
import re
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from palace.config import MAX_FILE_BYTES
from palace.nlp.chunking import ADORNMENT
from palace.nlp.documents import Document, identify
from palace.nlp.dates import (
    date_from_date_line,
    date_from_filename,
    date_from_front_matter,
    first_dated_heading,
    numeric_date_order,
)

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


#: Legacy code pages preferred when the detector finds them as clean as its own pick.
WESTERN = ("cp1252", "latin_1", "iso8859_15")


class Unreadable(Exception):
    """A file that cannot become a note; ``status`` is ``skipped`` or ``failed``."""

    def __init__(self, reason: str, status: str = "failed") -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class Note:
    """One decoded note.

    ``text`` is the whole file with ``\\n`` line endings; ``body_start`` is the char offset
    where the body begins (after front matter). ``doc_date`` comes from, in order: front
    matter ``date`` > a date in the file name > the first dated heading > a ``Date:``
    line near the top > the last git commit > the file's mtime; ``doc_date_source`` names
    which (``front matter``, ``file name``, ``heading``, ``date line``, ``git``,
    ``mtime``).
    """

    text: str
    body_start: int
    encoding: str
    content_hash: str
    size: int
    mtime: float
    title: str
    doc_date: dt.date
    doc_date_source: str
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    date_order: str | None = None  # how its numeric dates read: "dmy", "mdy" or None (ambiguous)
    #: the design record the note is ("PEP 572", "ADR 21"; :mod:`palace.nlp.documents`), or None
    document: Document | None = None

    @property
    def body(self) -> str:
        return self.text[self.body_start:]


def content_hash(data: bytes) -> str:
    """SHA-256 hex digest of raw file bytes (change detection independent of mtime)."""
    return hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> tuple[bytes, float]:
    """Read a file's bytes and mtime; raise :class:`Unreadable` if it is too large, gone,
    or not a regular file (opened without blocking: a FIFO put in its place never hangs
    the read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise Unreadable("is a directory", "skipped")
            if not stat.S_ISREG(st.st_mode):
                raise Unreadable("not a regular file (a FIFO, socket or device)", "skipped")
            if st.st_size > MAX_FILE_BYTES:
                raise Unreadable(f"too large ({st.st_size:,} bytes > {MAX_FILE_BYTES:,})", "skipped")
            data = handle.read()
    except FileNotFoundError:
        raise Unreadable("vanished before it could be read") from None
    except PermissionError:
        raise Unreadable("permission denied") from None
    except IsADirectoryError:
        raise Unreadable("is a directory", "skipped") from None
    except OSError as exc:
        raise Unreadable(f"unreadable: {exc.strerror or exc}") from None
    return data, st.st_mtime


def decode(data: bytes) -> tuple[str, str]:
    """Decode bytes to text; return ``(text, encoding)`` with ``\\n`` line endings.

    Raises :class:`Unreadable` (status ``skipped``) for binary content.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                raise Unreadable(f"undecodable: bad {encoding} after its byte-order mark") from None
            return _normalise_newlines(text.lstrip("\ufeff")), encoding.replace("-sig", "") + " (BOM)"
    if b"\x00" in data[:8192]:
        raise Unreadable("binary content", "skipped")
    try:
        return _normalise_newlines(data.decode("utf-8")), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    results = list(from_bytes(data))
    if not results:
        raise Unreadable("binary content (no text encoding explains it)", "skipped")
    best = results[0]
    # charset-normalizer often cannot tell the Latin code pages apart on short notes (it
    # picks cp1257 for French cp1252 text, chaos 0.0 vs 0.05); when cp1252 or latin-1 is
    # about as clean as its pick, the Western page is by far the likelier one for notes.
    for candidate in results:
        if candidate.encoding in WESTERN and candidate.chaos <= best.chaos + 0.1:
            best = candidate
            break
    text = str(best)
    if _control_ratio(text) > 0.05:
        raise Unreadable("binary content", "skipped")
    return _normalise_newlines(text), best.encoding


def _control_ratio(text: str) -> float:
    sample = text[:4096]
    if not sample:
        return 0.0
    bad = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f")
    return bad / len(sample)


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


#: Front matter longer than this is refused (a note's fields, not a data file).
MAX_FRONT_MATTER_CHARS = 65_536
#: More YAML aliases (``*name``) than this in front matter is refused: nested aliases
#: expand exponentially (387 bytes took 31 s and 683 MB).
MAX_YAML_ALIASES = 16
_YAML_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*[^\s\[\]{},]+", re.MULTILINE)


def split_front_matter(text: str) -> tuple[dict[str, Any], int]:
    """Return ``(metadata, body_start)``; ``({}, 0)`` when there is no front matter.

    Front matter that is not valid YAML, or not a mapping, is treated as body text.
    Raises :class:`Unreadable` (``failed``) for front matter over
    :data:`MAX_FRONT_MATTER_CHARS` characters or with more than :data:`MAX_YAML_ALIASES`
    aliases.
    """
    from frontmatter.default_handlers import YAMLHandler

    if not text.startswith("---"):
        return {}, 0
    handler = YAMLHandler()
    if not handler.detect(text):
        return {}, 0
    try:
        fm, content = handler.split(text)
    except Exception:  # no closing fence: the note is still a note
        return {}, 0
    if len(fm) > MAX_FRONT_MATTER_CHARS:
        raise Unreadable(f"front matter over {MAX_FRONT_MATTER_CHARS:,} characters")
    if len(_YAML_ALIAS.findall(fm)) > MAX_YAML_ALIASES:  # a "billion laughs" grows with every level
        raise Unreadable(f"front matter uses more than {MAX_YAML_ALIASES} YAML aliases")
    try:
        metadata = handler.load(fm) or {}
    except Exception:  # malformed YAML: the note is still a note
        return {}, 0
    if not isinstance(metadata, dict):
        return {}, 0
    body_start = len(text) - len(content)
    if text.startswith("\n", body_start):  # the line break that ends the closing fence
        body_start += 1
    return metadata, body_start


def _as_strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
    elif isinstance(value, (list, tuple, set)):
        parts = [str(v).strip() for v in value if v is not None]
    else:
        parts = [str(value).strip()]
    return tuple(p for p in parts if p)


#: How long one ``git log`` over a work tree may take before its dates are given up.
GIT_TIMEOUT_S = 120


class GitDates:
    """The author date of the last commit that touched each file under ``root``, when
    ``root`` lies in a git work tree: one ``git log --name-only`` for the whole tree, run
    at the first :meth:`get` (never one process per file), newest commit first so the
    first date seen for a path is its last change. No git, no work tree, a timeout or
    any error gives no dates (the notes fall back to their mtime). Uncommitted edits keep
    the last commit's date: a file changed since is still dated by its history."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._dates: dict[Path, dt.date] | None = None

    def get(self, path: Path) -> dt.date | None:
        """The last commit's author date (the author's local day) of ``path``, or None."""
        if self._dates is None:
            self._dates = self._read()
        try:
            return self._dates.get(path.resolve())
        except OSError:
            return None

    def _read(self) -> dict[Path, dt.date]:
        def git(*args: str) -> str:
            return subprocess.run(
                ["git", "-C", str(self.root), *args], capture_output=True, text=True, check=True,
                timeout=GIT_TIMEOUT_S, encoding="utf-8", errors="surrogateescape",
            ).stdout
        try:
            git("rev-parse", "--show-toplevel")
            log = git("-c", "core.quotePath=false", "log", "--format=%x00%aI", "--name-only", "--no-renames",
                      "--relative", "--", ".")
        except (OSError, subprocess.SubprocessError, ValueError):
            return {}
        base = self.root.resolve()
        dates: dict[Path, dt.date] = {}
        day = None
        for line in log.splitlines():
            if line.startswith("\x00"):
                try:
                    day = dt.date.fromisoformat(line[1:11])
                except ValueError:
                    day = None
            elif line and day is not None:
                dates.setdefault(base / line, day)
        return dates


def read_note(path: Path, git_dates: GitDates | None = None, date_order: str | None = None) -> Note:
    """Read, decode and parse one note file; ``git_dates`` dates a note that has no date
    of its own in its text or name by its last commit (``doc_date_source`` ``git``).
    Its numeric dates read day-first or month-first by its own evidence
    (:func:`palace.nlp.dates.numeric_date_order`), else by ``date_order`` (the palace's
    ``config.json``), else not at all (``Note.date_order`` says which).

    Raises :class:`Unreadable` with the reason (``skipped`` for binary or too large,
    ``failed`` for unreadable, vanished or undecodable).
    """
    data, mtime = read_bytes(path)
    text, encoding = decode(data)
    metadata, body_start = split_front_matter(text)
    title = str(metadata.get("title") or "").strip() or _title_from(text[body_start:], path)
    document = identify(path.name, [p.name for p in path.parents][:3], title, metadata, text[body_start:])
    if document is not None and (title == path.stem or not metadata.get("title") and path.suffix == ".rst"):
        title = f"{document.name}: {document.title}" if document.title else document.name
    doc_date, source = None, ""
    if "date" in metadata:
        doc_date, source = date_from_front_matter(metadata.get("date")), "front matter"
    if doc_date is None:
        doc_date, source = date_from_filename(path.name), "file name"
    order = numeric_date_order(text[body_start:]) or date_order
    if doc_date is None:
        doc_date, source = first_dated_heading(text[body_start:]), "heading"
    if doc_date is None:
        doc_date, source = date_from_date_line(text[body_start:], date_order=order), "date line"
    if doc_date is None and git_dates is not None:
        doc_date, source = git_dates.get(path), "git"
    if doc_date is None:
        doc_date, source = dt.datetime.fromtimestamp(mtime).date(), "mtime"
    return Note(
        text=text,
        body_start=body_start,
        encoding=encoding,
        content_hash=content_hash(data),
        size=len(data),
        mtime=mtime,
        title=title,
        doc_date=doc_date,
        doc_date_source=source,
        tags=_as_strings(metadata.get("tags")),
        aliases=_as_strings(metadata.get("aliases")),
        metadata=metadata,
        date_order=order,
        document=document,
    )


def _title_from(body: str, path: Path) -> str:
    """The note's first ``#`` heading (a reStructuredText note: its first heading, over-
    and underlined or underlined), else the file's stem."""
    lines = body.splitlines()[:40]
    if path.suffix.casefold() == ".rst":
        return rst_title(lines) or path.stem
    for line in lines[:20]:
        stripped = line.strip()
        if stripped.startswith("# "):
            return stripped[2:].strip()
    return path.stem


def rst_title(lines: list[str]) -> str | None:
    """The first section title of reStructuredText ``lines``: a line of text under an
    adornment of one punctuation character repeated ("=====", "-----", "~~~~"), with or
    without the same line above it."""
    for i in range(len(lines) - 1):
        text, under = lines[i].strip(), lines[i + 1].rstrip()
        if text and not ADORNMENT.match(text) and ADORNMENT.match(under) and len(under) >= min(len(text), 3):
            return text
    return None
