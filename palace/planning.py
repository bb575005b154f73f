"""The first query planner: a date window and known entities read from the question.

No spaCy here (the query path must not load it): dates come from
:func:`palace.nlp.dates.find_date_window`, entities from n-grams of the question looked up
among the names and aliases already in the graph.

How the plan is used (``Plan.window_mode``):

- ``filter``: ``--since``/``--until`` given; drawers outside the window are dropped.
- ``filter`` also for a window read from the question, when at least one drawer falls in
  it (a drawer is in the window when its own date overlaps it, or when it mentions a
  date that lies inside it); the ``date`` retriever then puts drawers dated in the
  window before those that only mention it. When no drawer falls in the window it is
  ``ignored`` (and the plan says so) rather than giving an empty answer.
- Matched entities always ``boost``: the graph retriever ranks the drawers that mention
  them, and its list is fused with BM25 and vectors.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import dataclass, field

from palace.errors import UsageError
from palace.nlp.dates import DateInterval, find_date_window
from palace.nlp.extraction import entity_key

_WORD = re.compile(r"[\w][\w.&'’-]*", re.UNICODE)
STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have how i in into is it its
    me my of on or our so that the their them then there these they this to was we were what
    when where which who whom why will with you your about after before during between since
    until last next ago all any can could should would may might must not no yes please tell
    show find give list decide decided decision say said happen happened happening going get got
    know think talk talked discuss discussed mention mentioned anything everything something""".split()
)


@dataclass(frozen=True)
class EntityMatch:
    """A name in the question that the graph knows: the matched text, the canonical name,
    and every entity carrying that name or alias (spaCy may have typed one name several
    ways, e.g. ``Harbor`` as ORG and as GPE; all of them count)."""

    text: str
    name: str
    entity_ids: tuple[int, ...]
    types: tuple[str, ...]
    via: str  # "name" or "alias"


@dataclass(frozen=True)
class Plan:
    """What the planner read from a question and how retrieval will use it."""

    question: str
    terms: tuple[str, ...]
    window: DateInterval | None = None
    window_text: str = ""
    window_source: str = ""  # "question", "options" or ""
    window_mode: str = "none"  # "filter", "boost" or "none"
    entities: tuple[EntityMatch, ...] = ()
    identifiers: tuple[str, ...] = ()
    weights: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def query_terms(question: str) -> tuple[str, ...]:
    """Content words of the question (lower-cased, stopwords and 1-letter words dropped)."""
    terms = []
    for match in _WORD.finditer(question):
        word = match.group(0).strip(".'’-").lower()
        if len(word) > 1 and word not in STOPWORDS and word not in terms:
            terms.append(word)
    return tuple(terms)


_IDENTIFIER = re.compile(r"[#@][\w-]+|\b\w*\d\w*\b|\b\w+(?:[_/.]\w+)+\b")


def identifier_terms(text: str) -> tuple[str, ...]:
    """Identifier-shaped tokens: ``#2033``, ``@alice``, ``3533``, ``v1.2``, ``foo_bar``,
    ``src/main.rs`` — returned as the words FTS5 indexes (``#2033`` → ``2033``)."""
    out: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        for word in re.findall(r"\w+", match.group(0)):
            if word.lower() not in out and (any(ch.isdigit() for ch in word) or match.group(0)[0] in "#@"
                                             or any(ch in match.group(0) for ch in "_/.")):
                out.append(word.lower())
    return tuple(out)


def match_entities(
    conn: sqlite3.Connection, question: str, exclude: tuple[int, int] | None = None
) -> tuple[EntityMatch, ...]:
    """Entities whose name or alias equals an n-gram (1–5 words) of the question.

    Case-insensitive, possessives stripped ("Alice's" → "Alice"). A one-word match must be
    capitalised in the question or name a multi-word-free proper noun that is not a
    stopword, so that "council" does not pull in every "Council". Longer matches win over
    the shorter matches they contain. Words inside ``exclude`` (the span of the date
    window, as chars of the question) are never entity names.
    """
    tokens = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(question)]
    cleaned = [re.sub(r"['’][sS]$", "", t).strip(".,;:!?'’") for t, _, _ in tokens]
    candidates: dict[str, tuple[int, int, str]] = {}
    for size in range(5, 0, -1):
        for i in range(len(tokens) - size + 1):
            words = cleaned[i:i + size]
            if not all(words):
                continue
            if exclude and tokens[i][1] < exclude[1] and tokens[i + size - 1][2] > exclude[0]:
                continue
            if size == 1:
                word = words[0]
                if word.lower() in STOPWORDS or not word[:1].isupper() or len(word) < 2:
                    continue
            key = entity_key(" ".join(words))
            candidates.setdefault(key, (tokens[i][1], tokens[i + size - 1][2], " ".join(words)))
    if not candidates:
        return ()
    placeholders = ",".join("?" * len(candidates))
    rows = conn.execute(
        f"SELECT a.key, a.source, e.id, e.name, e.type,"
        f" (SELECT count(*) FROM mentions m WHERE m.entity_id = e.id) AS n"
        f" FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.key IN ({placeholders})"
        f" AND (e.type = 'CONCEPT' OR EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id))"
        f" ORDER BY n DESC",
        list(candidates),
    ).fetchall()
    grouped: dict[str, list[sqlite3.Row]] = {}
    for row in rows:
        grouped.setdefault(row["key"], []).append(row)
    matches: list[EntityMatch] = []
    taken: list[tuple[int, int]] = []
    for key in sorted(grouped, key=lambda k: (-(candidates[k][1] - candidates[k][0]), candidates[k][0])):
        start, end, text = candidates[key]
        if any(s <= start and end <= e for s, e in taken):
            continue
        taken.append((start, end))
        group = grouped[key]  # most-mentioned entity first
        via = "name" if any(r["source"] == "name" for r in group) else "alias"
        matches.append(EntityMatch(
            text, group[0]["name"], tuple(r["id"] for r in group), tuple(dict.fromkeys(r["type"] for r in group)), via
        ))
    return tuple(matches)


def plan_question(
    conn: sqlite3.Connection,
    question: str,
    *,
    now: dt.date | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> Plan:
    """Read a :class:`Plan` from ``question`` (``now`` anchors relative dates; default today).

    ``since``/``until`` (inclusive days) override any window in the question and filter.
    """
    now = now or dt.date.today()
    terms = query_terms(question)
    window, window_text, source = None, "", ""
    window_span: tuple[int, int] | None = None
    if since or until:
        if since and until and since > until:
            raise UsageError(
                f"--since {since} is after --until {until}", hint="give the earlier day to --since"
            )
        start = since or dt.date.min
        end = until + dt.timedelta(days=1) if until and until < dt.date.max else dt.date.max
        window, source = DateInterval(start, end, "range"), "options"
    else:
        found = find_date_window(question, now)
        if found is not None:
            window, window_text = found
            source = "question"
            at = question.find(window_text)
            if at >= 0:
                window_span = (at, at + len(window_text))
            window_words = {w.lower() for w in _WORD.findall(window_text)}
            terms = tuple(t for t in terms if t not in window_words)
    entities = match_entities(conn, question, window_span)
    weights = {"bm25": 1.0, "vector": 1.0, "graph": 0.5 if entities else 0.0, "date": 0.5 if window else 0.0}
    outside = question if window_span is None else question[:window_span[0]] + " " + question[window_span[1]:]
    identifiers = identifier_terms(outside)
    if identifiers:
        # identifier-shaped (ticket numbers, @handles, paths): MiniLM is poor at them
        # (DESIGN.md), so trust exact terms and add the "exact" list
        weights["bm25"], weights["vector"], weights["exact"] = 1.5, 0.5, 1.0
    return Plan(
        question=question,
        terms=terms,
        window=window,
        window_text=window_text,
        window_source=source,
        window_mode="filter" if window else "none",
        entities=entities,
        identifiers=identifiers,
        weights=weights,
    )
