"""The prepare stage of a mining run: a note read, cut into drawers, each with its
stable id, its date and whether an earlier run already stored it.

A drawer whose id already exists (same file, same text, same date) and whose indexed
text (title and heading path, then the text) is unchanged keeps its row, mentions,
facts and vector: only the other drawers (``new``) go through spaCy.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from palace.mine.indexing import PREFIX_TOKENS, embed_input
from palace.mine.reading import Note, content_hash
from palace.nlp.chats import chat_days
from palace.nlp.chunking import Chunk, chunk_markdown
from palace.nlp.dates import DateInterval, first_dated_heading
from palace.nlp.lines import opens_with_item
from palace.nlp.extraction import Extraction
from palace.nlp.topic import Topic, note_topic

__all__ = ["PendingNote", "bytes_hash", "drawer_date", "drawer_id", "fact_date", "prepare_note", "room_of",
           "text_hash"]


@dataclass
class PendingNote:
    """A note read and chunked, waiting for its NLP and its transaction.

    ``rel``: its path in the wing (POSIX); ``room``; ``note``; ``chunks`` and their
    ``drawer_ids``; ``keep``: the ids of drawers stored by an earlier run and unchanged;
    ``new``: the indexes into ``chunks`` of the drawers that need NLP; ``words``: the
    words of its body. Filled as the run goes: ``extractions`` (by chunk index, dropped
    once written), ``file_id`` once a first step of a long note is stored, ``stored``:
    the indexes of new drawers stored by steps. ``topic``: what the note is about (its
    title and opening drawer, :func:`palace.nlp.topic.note_topic`)."""

    rel: str
    room: str
    note: Note
    chunks: list[Chunk]
    drawer_ids: list[str]
    keep: set[str]
    new: list[int]
    words: int
    extractions: dict[int, Extraction] = field(default_factory=dict)
    file_id: int | None = None
    stored: set[int] = field(default_factory=set)
    topic: Topic | None = None


def room_of(rel: str) -> str:
    """The room of a path relative to its wing: its first folder, or ``.`` at the root."""
    parts = PurePosixPath(rel).parts
    return parts[0] if len(parts) > 1 else "."


def drawer_id(wing: str, rel: str, doc_date: dt.date | None, text_sha: str, occurrence: int) -> str:
    """Deterministic drawer id (20 hex chars of SHA-256).

    Built from the wing, the path, the document date, the text's hash and which occurrence
    of that text in the file it is: stable while the text is unchanged (an edit elsewhere
    in the file keeps it), distinct when the same text stands twice in one file or in two
    files. A note dated only by its mtime or its first dated heading passes ``None`` (an
    edit moves the mtime; a new entry on top of a journal changes its first heading), so
    editing it keeps the drawers whose text it kept, with the dates they had.
    """
    day = doc_date.isoformat() if doc_date else "-"
    key = f"{wing}\x1f{rel}\x1f{day}\x1f{text_sha}\x1f{occurrence}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def text_hash(text: str) -> str:
    """The SHA-256 of a text (hex): a drawer's ``text_hash`` and ``embed_hash``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bytes_hash(path: Path) -> str | None:
    """The content hash of a file's bytes (as :func:`palace.mine.reading.content_hash`), or
    None when it cannot be read (the normal read then records why)."""
    try:
        return content_hash(path.read_bytes())
    except OSError:
        return None


def prepare_note(wing: str, rel: str, note: Note, stored: dict[str, str], embedder,
                 opening: tuple[str, str] | None = None) -> PendingNote:
    """Cut ``note`` (at ``rel`` in ``wing``) into drawers that fit ``embedder``'s window
    (less :data:`palace.mine.indexing.PREFIX_TOKENS` for the title and heading path);
    ``stored``: ``{drawer id: embed_hash}`` of the note's drawers an earlier run stored;
    ``opening``: the earlier run's ``(title, first drawer's text)``: when the topic read
    from it differs from the new one, every drawer is read anew (its pronouns and short
    forms may stand for another name now).
    Raises whatever the chunker raises (the run records the note as failed)."""
    chunks = chunk_markdown(note.text, body_start=note.body_start, count_tokens=embedder.count_tokens,
                            max_tokens=embedder.max_tokens - PREFIX_TOKENS, rst=rel.casefold().endswith(".rst"),
                            days=[(at, day.isoformat()) for at, day in chat_days(note.text, note.body_start,
                                                                                 note.date_order)])
    occurrences: dict[str, int] = {}
    ids = []
    guessed = note.doc_date_source in ("mtime", "heading", "git")  # may move without the text changing
    for chunk in chunks:
        sha = text_hash(chunk.text)
        n = occurrences.get(sha, 0)
        occurrences[sha] = n + 1
        ids.append(drawer_id(wing, rel, None if guessed else note.doc_date, sha, n))
    # a drawer is kept only if what it indexes is unchanged: its text and also the title
    # and heading path that prefix it in FTS and in the embedder's input
    keep = {
        did for did, chunk in zip(ids, chunks)
        if stored.get(did) == text_hash(embed_input(note.title, chunk.heading_path, chunk.text))
    }
    topic = note_topic(note.title, chunks[0].text if chunks else "")
    if keep and opening is not None and note_topic(*opening) != topic:
        keep = set()
    # a drawer that continues a list is read anew after any earlier drawer changed (its label);
    # a drawer gone from the note may have been anywhere before it
    changed = bool(set(stored) - set(ids))
    for did, chunk in zip(ids, chunks):
        if did not in keep:
            changed = True
        elif changed and opens_with_item(chunk.text):
            keep.discard(did)
    new = [i for i, did in enumerate(ids) if did not in keep]
    return PendingNote(rel, room_of(rel), note, chunks, ids, keep, new, len(note.body.split()), topic=topic)


def drawer_date(note: Note, chunk: Chunk) -> DateInterval:
    """The drawer's date: the date of the nearest dated heading above it (a running
    log's ``## 2025-03-12``: its facts happened then, whatever the note's own date),
    else the note's date."""
    day = _heading_day(chunk)
    if day is not None:
        return DateInterval(day, day + dt.timedelta(days=1), "day")
    return DateInterval(note.doc_date, note.doc_date + dt.timedelta(days=1), "day")


def _heading_day(chunk: Chunk) -> dt.date | None:
    for heading in reversed(chunk.heading_path):
        day = first_dated_heading(f"# {heading}")
        if day is not None:
            return day
    return None


def fact_date(note: Note, chunk: Chunk) -> DateInterval | None:
    """The date a drawer's facts take when their sentence states none: the drawer's
    date, or None for a note dated only by its file's mtime (a copy or a clone sets it
    to the day of the copy): such facts carry no valid time of their own, so they never
    supersede a dated fact nor enter a valid-time change list."""
    if note.doc_date_source == "mtime" and _heading_day(chunk) is None:
        return None
    return drawer_date(note, chunk)
