"""Hits: what ``ask`` shows of each ranked drawer — where it is, its date, a snippet
around the sentence that holds most of the question's terms, and why it was returned."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from palace.ask.fusion import Contribution
from palace.ask.planning import stem
from palace.nlp.markup import tidy
from palace.store import search
from palace.store.facts import decided_against

SNIPPET_CHARS = 240


@dataclass(frozen=True)
class Why:
    """Why a drawer was returned: each retriever's contribution (they sum to the score),
    the question terms found in it, the entities it mentions, the date window applied."""

    retrievers: tuple[Contribution, ...]
    matched_terms: tuple[str, ...] = ()
    matched_entities: tuple[str, ...] = ()
    date_window: str | None = None


@dataclass(frozen=True)
class Hit:
    """One result: where the drawer is (path and 1-based inclusive line span), its date
    and where that date came from (``date_source``: ``front matter``, ``file name``,
    ``heading``, ``git``; ``mtime`` for a note with no date of its own, whose ``date`` is
    then None), a snippet and :class:`Why`; ``same_text_in`` lists ``path:line`` of
    lower-ranked drawers with the same text, folded into this one. ``room`` is the
    wing's name for a note at the wing's root. ``caution`` says why to weigh it with care:
    ``untrusted wing`` (its wing is marked untrusted in ``config.json``), ``a fact read
    here was rejected by the user`` or ``… retracted by the user``; empty for plain evidence."""

    rank: int
    drawer_id: str
    score: float
    path: str
    wing: str
    room: str
    line_start: int
    line_end: int
    date: str | None
    title: str
    heading_path: tuple[str, ...]
    snippet: str
    why: Why
    same_text_in: tuple[str, ...] = ()
    date_source: str = ""
    caution: tuple[str, ...] = ()


def build_hits(conn, ranked: list, terms: tuple[str, ...], window: str | None,
               names: dict[str, tuple[str, ...]], untrusted: frozenset[str] = frozenset()) -> list[Hit]:
    """One :class:`Hit` per entry of ``ranked`` (``[(drawer_id, score, contributions,
    same_text_in)]``, best first; a drawer gone since is skipped, its rank kept), with the
    question's ``terms`` found in it, the date ``window`` label, the entity ``names``
    it holds (``{drawer_id: names}``) and its ``caution`` (a wing of ``untrusted``, a fact
    read there the user rejected or retracted)."""
    if not ranked:
        return []
    rows = search.hit_rows(conn, [d for d, _, _, _ in ranked])
    against = decided_against(conn, [d for d, _, _, _ in ranked])
    hits = []
    for rank, (drawer, score, parts, same_text_in) in enumerate(ranked, start=1):
        row = rows.get(drawer)
        if row is None:
            continue
        snippet, matched = snippet_of(row["text"], terms)
        source = row["doc_date_source"] or ""
        if row["date_start"] != row["doc_date"]:
            source = "heading"  # a running note's dated section
        hits.append(Hit(
            rank=rank, drawer_id=drawer, score=score, path=row["path"], wing=row["wing"],
            room=row["wing"] if row["room"] == "." else row["room"],
            line_start=row["line_start"], line_end=row["line_end"],
            date=None if source == "mtime" else row["date_start"], title=row["title"] or "",
            heading_path=tuple(json.loads(row["heading_path"])), snippet=snippet,
            why=Why(parts, matched, names.get(drawer, ()), window), same_text_in=same_text_in, date_source=source,
            caution=(("untrusted wing",) if row["wing"] in untrusted else ())
            + tuple(f"a fact read here was {state} by the user" for state in against.get(drawer, ())),
        ))
    return hits


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def snippet_of(text: str, terms: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The drawer's text around the sentence that holds most of ``terms`` (ties: the
    first), about :data:`SNIPPET_CHARS` long, markup removed; and the terms found."""
    from palace.nlp.markup import plain_text_for_ner

    plain = plain_text_for_ner(text)  # same length as text: offsets agree
    lowered = plain.lower()
    stems = {t: stem(t) for t in terms}
    found = tuple(t for t, s in stems.items() if re.search(rf"\b{re.escape(s)}", lowered))
    best_start, best_end = _best_sentence(plain, lowered, found, stems)
    middle = (best_start + best_end) // 2
    start = max(0, min(best_start, middle - SNIPPET_CHARS // 2))
    if best_end - best_start <= SNIPPET_CHARS:
        start = max(0, min(best_start, best_end - SNIPPET_CHARS))  # the whole sentence, with what leads to it
        start = max(start, best_start - (SNIPPET_CHARS - (best_end - best_start)) // 2)
    piece = tidy(plain[start:start + SNIPPET_CHARS])
    prefix = "…" if plain[:start].strip() else ""
    suffix = "…" if plain[start + SNIPPET_CHARS:].strip() else ""
    return prefix + piece + suffix, found


def _best_sentence(plain: str, lowered: str, found: tuple[str, ...], stems: dict[str, str]) -> tuple[int, int]:
    """``(start, end)`` of the sentence of ``plain`` that holds most of the ``found``
    terms (the first on a tie; the text's start when none holds any)."""
    best_start, best_end, best_score = 0, min(len(plain), SNIPPET_CHARS), 0
    cursor = 0
    for boundary in [*_SENTENCE_END.finditer(plain), None]:
        end = boundary.start() if boundary else len(plain)
        piece = lowered[cursor:end]
        score = sum(1 for t in found if re.search(rf"\b{re.escape(stems[t])}", piece))
        if score > best_score:
            best_start, best_end, best_score = cursor, end, score
        cursor = boundary.end() if boundary else len(plain)
    return best_start, best_end
