"""Reading mentions: how often, where and as what the palace read a name (the profile
card's counts, its latest citations, the labels its mentions were read with)."""

from __future__ import annotations

import sqlite3

__all__ = ["mention_stats", "latest_mentions", "mention_labels", "named_in_front_matter"]


def _marks(values) -> str:
    return ",".join("?" * len(values))


def mention_stats(conn: sqlite3.Connection, ids, *,
                  wing: str | None = None) -> tuple[int, int, int, str | None, str | None]:
    """``(mentions, drawers, files, first seen, last seen)`` of the entities of ``ids``
    (in the notes of ``wing`` when given): first and last seen are the earliest and
    latest start days of the drawers that mention them, from dated notes (a note dated
    only by its file time would make "last seen" the day it was copied) unless no other
    note mentions them."""
    ids = tuple(ids)
    return tuple(conn.execute(
        f"SELECT count(*), count(DISTINCT m.drawer_id), count(DISTINCT d.file_id),"
        f" coalesce(min(CASE WHEN f.doc_date_source != 'mtime' THEN d.date_start END), min(d.date_start)),"
        f" coalesce(max(CASE WHEN f.doc_date_source != 'mtime' THEN d.date_start END), max(d.date_start))"
        f" FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id"
        f" WHERE m.entity_id IN ({_marks(ids)})" + (" AND f.wing = ?" if wing is not None else ""),
        ids + ((wing,) if wing is not None else ()),
    ).fetchone())


def latest_mentions(conn: sqlite3.Connection, ids, limit: int) -> list[sqlite3.Row]:
    """The latest drawers mentioning the entities of ``ids``, at most ``limit``: rows of
    ``path``, ``wing``, ``line_start``, ``line_end``, ``date_start`` (None for a note
    dated only by its file time) and ``surface`` (the first as written), the latest
    dated first, then undated ones, by path."""
    ids = tuple(ids)
    return conn.execute(
        f"SELECT f.path, f.wing, d.line_start, d.line_end,"
        f" CASE WHEN f.doc_date_source = 'mtime' AND d.date_start = f.doc_date THEN NULL ELSE d.date_start END"
        f" AS date_start, min(m.surface) AS surface"
        f" FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id"
        f" WHERE m.entity_id IN ({_marks(ids)}) GROUP BY d.id"
        f" ORDER BY date_start IS NULL, date_start DESC, f.path LIMIT ?",
        (*ids, limit),
    ).fetchall()


def mention_labels(conn: sqlite3.Connection, ids, *, wing: str | None = None) -> list[str]:
    """The NER labels the mentions of ``ids`` (in the notes of ``wing`` when given) were
    read with, most frequent first."""
    ids = tuple(ids)
    in_wing = (" AND m.drawer_id IN (SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id WHERE f.wing = ?)"
               if wing is not None else "")
    return [r[0] for r in conn.execute(
        f"SELECT label FROM mentions m WHERE entity_id IN ({_marks(ids)}) AND label IS NOT NULL{in_wing}"
        f" GROUP BY label ORDER BY count(*) DESC, label", ids + ((wing,) if wing is not None else ()))]


def named_in_front_matter(conn: sqlite3.Connection, ids) -> bool:
    """Whether a note's front matter names one of the entities of ``ids`` (an alias of
    source ``front matter``)."""
    ids = tuple(ids)
    return conn.execute(f"SELECT 1 FROM aliases WHERE entity_id IN ({_marks(ids)}) AND source = 'front matter'",
                        ids).fetchone() is not None
