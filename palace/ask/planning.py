"""The query planner: a question becomes a :class:`Plan` — date window, entities, intent.

No spaCy here (the query path must not load it): dates come from
:func:`palace.nlp.dates.find_date_window`, entities from n-grams of the question looked up
among the names and aliases already in the graph, the intent from cue phrases.

Intents (the first whose cue is in the question wins, in this order):

- ``change`` — "what changed", "what's new", "changes", "difference between", "since …":
  a diff of the graph over the window (:mod:`palace.graph.changes`) is listed first;
- ``current`` — "now", "current(ly)", "still", "latest", "these days": current facts only,
  newer drawers first among equals;
- ``history`` — "when did", "history of", "timeline", "used to", "before she…": every
  fact, superseded ones included, in valid-time order;
- ``entity`` — "everything about X", "tell me about X", "who is X", or a question that is
  only a name: the graph's facts and mentions of X lead;
- ``lookup`` — anything else.

Besides its intent, a question may ask for **one predicate of one name**, with no cue
word: "what plan is Initrode on", "who does Bob report to", "who leads Harbor", "is
Harbor blocked" (:mod:`palace.ask.questions`, ``Plan.asks``); the answer is read from the
graph by :mod:`palace.ask.answers`.

How the date window is used (``Plan.window_mode``). A window read from the question
**ranks**, it does not exclude (``boost``): drawers in it (their own date overlaps it, or
they mention a date that overlaps it, at any granularity) are raised by the ``date``
retriever; drawers whose own dates all lie outside it are pushed down, unless their
title or path matches the question strongly; drawers with no date of their own (a note
dated only by its file's mtime) are neither. A hard filter lost the right page whenever
its date sat just outside the window ("1983" asked as "from July 1983 to June 1984").
``--since``/``--until`` always filter (``filter``).

A period named without a year ("in June", "last spring", "during Q3") is the latest
such period with dated notes on or before ``now`` (notes from 2023 asked "in June" in
2026 mean June 2023), and the plan says so.

A point in time ("as of June 2024", "by March 2023", "on 2024-06-30") is read as the
day the question is about (``Plan.now``, its last day, ``now_source`` ``question``):
facts are those valid then, and notes written after it are pushed down, as with
``--now`` (``now_source`` ``option``).
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import dataclass, field

from palace.ask.questions import FactQuestion, QuestionTable, read_fact_questions
from palace.config import Config
from palace.errors import UsageError
from palace.nlp.dates import DateInterval, ambiguous_numeric_dates, find_date_window
from palace.nlp.names import entity_key
from palace.store import search

INTENTS = ("lookup", "entity", "current", "history", "change")

_CUES: tuple[tuple[str, re.Pattern], ...] = tuple(
    (intent, re.compile(rx)) for intent, rx in (
        ("change", r"\bwhat(?:'s|\s+has|\s+have|\s+had)?\s+changed\b|\bwhat(?:'s|s|\s+is|\s+was)\s+new\b"
                   r"|\bchang(?:e|es|ed|ing)\b|\bdifferences?\s+between\b|\bwhat(?:'s|\s+is|\s+was)\s+different\b"
                   r"|\bcompared\s+(?:with|to)\b|\bsince\b|\bwhat\s+(?:got|was|were)\s+"
                   r"(?:added|removed|dropped|updated)\b"),
        ("current", r"\bnow\b|\bcurrent(?:ly)?\b|\bstill\b|\blatest\b|\bthese\s+days\b|\bat\s+present\b"
                    r"|\bpresently\b|\bas\s+of\s+today\b"),
        ("history", r"^\s*when\b|\bwhen\s+(?:did|was|were|had|has|have)\b|\bhistory\b|\btimeline\b|\bover\s+time\b"
                    r"|\bused\s+to\b|\bbefore\s+(?:he|she|they|we|i|it)\b|\bprevious(?:ly)?\b|\bformer(?:ly)?\b"),
        ("entity", r"\b(?:everything|anything|all)\s+(?:about|on|regarding|concerning)\b|\btell\s+me\s+about\b"
                   r"|\b(?:everything|anything|all)\s+(?:(?:that's|that\s+is)\s+)?(?:related|relating|connected)\s+to\b"
                   r"|\bwhat\s+do\s+(?:we|i|you)\s+know\s+about\b|\bprofile\b"),
    )
)

_WORD = re.compile(r"[\w][\w.&'’-]*", re.UNICODE)
#: "who is Mara Bos": who is/was/are and a name alone (capitalised words), an entity question.
_WHO_IS_NAME = re.compile(r"^\s*(who(?:\s+(?:is|was|are)|'s))\s+(?:[A-Z][\w.'-]*\s*){1,5}[?!.]*\s*$")
STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have how i in into is it its
    me my of on or our so that the their them then there these they this to was we were what
    when where which who whom why will with you your about after before during between since
    until last next ago all any can could should would may might must not no yes please tell
    show find give list say said happen happened happening going get got
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
    intent: str = "lookup"  # one of INTENTS
    intent_cue: str = ""  # the words that set it ("what changed", "now"…), "" for lookup
    now: dt.date | None = None
    asks: tuple[FactQuestion, ...] = ()  # readings as a one-predicate question, best first
    now_source: str = "today"  # "today", "option" (--now) or "question" (a point: "as of June 2024")
    today: dt.date | None = None  # the day the question is asked on (--now or today), which anchors its dates
    point_text: str = ""  # the words that named the point ("as of June 2024")
    documents: tuple[tuple[str, str], ...] = ()  # ("kep", "576") of "KEP-576": notes whose path or title carry it
    asked: str = ""  # the question as asked, before "I"/"my" became the owner's name ("" when the same)

    @property
    def bounded(self) -> bool:
        """True when the question is about a day other than today (``--now`` or a point
        it names): notes written after that day are pushed down."""
        return self.now_source != "today"


#: Drawers sampled to see how the notes write a phrase (capitalised or not).
CASE_SAMPLE = 200
#: A name written in lower case in a question must have been read this often in the notes.
MIN_MENTIONS_LOWERCASE = 5
_VAGUE_PART = re.compile(r"\b(?:early|mid|late|end\s+of|beginning\s+of|start\s+of)\b", re.IGNORECASE)
#: Words that make a window a point in time: the state as it stood then.
_POINT = re.compile(r"^\s*(?:as\s+(?:of|at)|by(?:\s+the\s+end\s+of)?|at\s+the\s+end\s+of|on)\b", re.IGNORECASE)
#: A window's text that names its year, or is relative to today ("last month", "this
#: week", "since Monday"): it is not moved to the latest year with notes.
_ANCHORED = re.compile(r"\d{4}|'\d\d\b|\bFY|\b(?:year|month|week|day|today|yesterday|tomorrow|ago|since|until|this|next"
                       r"|quarter|weekend|tonight)s?\b", re.IGNORECASE)
_NAME_FILLERS = frozenset({"the", "a", "an", "and", "or", "s"})


def read_intent(question: str, entities: tuple["EntityMatch", ...] = ()) -> tuple[str, str]:
    """The question's intent and the cue that set it: ``(intent, cue)``, one of
    :data:`INTENTS`. A question that is only names of ``entities`` ("Alice?", "Mara Bos
    and Josh") is ``entity``; one without a cue is ``("lookup", "")``."""
    text = question.lower().replace("’", "'")
    for intent, rx in _CUES:
        found = rx.search(text)
        if found:
            return intent, found.group(0).strip()
    who = _WHO_IS_NAME.match(question.replace("’", "'"))
    if who:  # "who is Mara Bos", not "who was the head coach of X from 1990 to 1995"
        return "entity", who.group(1).lower()
    if entities:
        rest = text
        for entity in sorted(entities, key=lambda e: -len(e.text)):
            rest = rest.replace(entity.text.lower().replace("’", "'"), " ")
        leftover = {re.sub(r"'s$", "", w) for w in _WORD.findall(rest)} - _NAME_FILLERS
        if not leftover:
            return "entity", "a name alone"
    return "lookup", ""


def stem(term: str) -> str:
    """A crude prefix stem for matching terms in text (FTS5 matches with the Porter
    stemmer: "take" finds "taking", "grants" finds "grant")."""
    if term.isalpha():
        for suffix in ("ing", "ed", "es", "s", "e"):
            if term.endswith(suffix) and len(term) - len(suffix) >= 3:
                return term[: -len(suffix)]
    return term


def query_terms(question: str) -> tuple[str, ...]:
    """Content words of the question (lower-cased, "'s" cut, stopwords and 1-letter
    words dropped): "What's Alice's plan" → ``("alice", "plan")``."""
    terms = []
    for match in _WORD.finditer(question):
        word = re.sub(r"['’]s$", "", match.group(0).strip(".'’-").lower())
        if len(word) > 1 and word not in STOPWORDS and word not in terms:
            terms.append(word)
    return tuple(terms)


_IDENTIFIER = re.compile(r"[#@][\w-]+|\b\w*\d\w*\b|\b\w+(?:[_/.]\w+)+\b")


def identifier_terms(text: str) -> tuple[str, ...]:
    """Identifier-shaped tokens: ``#2033``, ``@alice``, ``3533``, ``v1.2``, ``foo_bar``,
    ``src/main.rs`` — returned as the words FTS5 indexes (``#2033`` → ``2033``). A year
    outside the date window (``the 2027 All Hands``) is one too: the ``exact`` list it
    feeds only boosts."""
    out: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        for word in re.findall(r"\w+", match.group(0)):
            if word.lower() not in out and (any(ch.isdigit() for ch in word) or match.group(0)[0] in "#@"
                                             or any(ch in match.group(0) for ch in "_/.")):
                out.append(word.lower())
    return tuple(out)


def match_entities(
    conn: sqlite3.Connection, question: str, exclude: tuple[int, int] | None = None, *, wing: str | None = None
) -> tuple[EntityMatch, ...]:
    """Entities whose name or alias equals an n-gram (1–5 words) of the question.

    Case-insensitive, possessives stripped ("alice's" → "Alice"). A one-word name in
    lower case ("everything about alice") counts only where this palace reads that word
    mostly as the name — in at least half of the drawers that contain it, NER found the
    entity — so that "council" does not pull in every "Council". Longer matches win over
    the shorter matches they contain. The same holds for a phrase written all in lower
    case ("the current" is not the entity "Current"). Words inside ``exclude`` (the span of the date
    window, as chars of the question) are never entity names.
    """
    candidates, lowercase = _name_candidates(question, exclude)
    if not candidates:
        return ()
    grouped: dict[str, list[sqlite3.Row]] = {}
    for row in search.names_matching(conn, list(candidates), wing=wing):
        grouped.setdefault(row["key"], []).append(row)
    for key in lowercase & set(grouped):
        attested = sum(r["n"] for r in grouped[key]) >= MIN_MENTIONS_LOWERCASE
        if not attested or not _mostly_a_name(conn, key, [r["id"] for r in grouped[key]]):
            del grouped[key]
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


def _name_candidates(question: str, exclude: tuple[int, int] | None
                     ) -> tuple[dict[str, tuple[int, int, str]], set[str]]:
    """The question's n-grams (5 words down to 1) that could be names: ``{key: (start,
    end, text)}`` (the first, longest occurrence of each key) and the keys written all in
    lower case. Possessives are cut; stopwords, digits, one-letter keys and n-grams that
    cross ``exclude`` (the date window's span) are not candidates."""
    tokens = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(question)]
    cleaned = [re.sub(r"['’][sS]$", "", t).strip(".,;:!?'’") for t, _, _ in tokens]
    candidates: dict[str, tuple[int, int, str]] = {}
    lowercase: set[str] = set()
    for size in range(5, 0, -1):
        for i in range(len(tokens) - size + 1):
            words = cleaned[i:i + size]
            if not all(words):
                continue
            if exclude and tokens[i][1] < exclude[1] and tokens[i + size - 1][2] > exclude[0]:
                continue
            key = entity_key(" ".join(words))
            if not key or key in STOPWORDS or len(key) < 2 or key.isdigit():
                continue
            if key not in candidates and not any(w[:1].isupper() for w in words):
                lowercase.add(key)
            candidates.setdefault(key, (tokens[i][1], tokens[i + size - 1][2], " ".join(words)))
    return candidates, lowercase


def _mostly_a_name(conn: sqlite3.Connection, phrase: str, entity_ids: list[int]) -> bool:
    """True when ``phrase`` (a question's words in lower case) is one of the entity's
    names as the notes write it: an alias stored in lower case ("lakehouse migration" in
    front matter), or a phrase the notes mostly capitalise — written in lower case in at
    most a quarter of the drawers that hold it (FTS5 finds them in any case; GLOB, which
    is case-sensitive, counts the lower-case ones). "mara" and "tc" are names in minutes
    full of "Mara:" and "TC:"; "current" and "council" are words."""
    if search.has_lowercase_alias(conn, entity_ids, phrase):
        return True
    words = re.findall(r"\w+", phrase)
    if not words or any(ch in phrase for ch in "*?[]"):
        return False
    holding = search.drawers_with_phrase(conn, words, CASE_SAMPLE)  # a sample tells a name from a word
    if not holding:
        return False
    return 4 * search.lowercase_count(conn, holding, phrase) <= len(holding)


def _joined(question: str, found: tuple[DateInterval, str], now: dt.date, config: Config) -> tuple[DateInterval, str]:
    """Widen a window to a second period joined to it ("in 2025 and 2026", "Q1 or Q2"):
    the span from the first's start to the second's end."""
    window, text = found
    fys, order = config.fiscal_year_start, config.date_order
    at = question.find(text)
    rest = question[at + len(text):] if at >= 0 else ""
    joint = re.match(r"\s*(?:and|or|&)\s+", rest)
    if not joint:
        return found
    second = find_date_window(rest[joint.end():], now, fys, order)
    if second is None or not rest[joint.end():].lstrip().startswith(second[1].strip()):
        return found
    joined_text = text + rest[:joint.end()] + second[1].strip()
    first = re.sub(r"^\s*(?:in|on|at|during|for|of|by|from)\s+", "", text)
    as_range = find_date_window(f"between {first} and {second[1].strip()}", now, fys, order)  # "Q1 or Q2 2025"
    if as_range is not None and as_range[1].startswith("between"):
        return as_range[0], joined_text
    start, end = min(window.start, second[0].start), max(window.end, second[0].end)
    return DateInterval(start, end, "range"), joined_text


#: The RRF weight of the ``answer`` list (the drawers cited by a fact question's answer).
ANSWER_WEIGHT = 1.0
#: Each retriever's RRF weight by intent (``graph`` only when the question names an
#: entity, ``date`` only with a window, ``changes`` only for change questions).
INTENT_WEIGHTS: dict[str, dict[str, float]] = {
    "lookup": {"bm25": 1.0, "vector": 1.0, "graph": 0.5, "date": 1.0},
    "entity": {"bm25": 0.75, "vector": 0.75, "graph": 1.5, "date": 1.0},
    "current": {"bm25": 1.0, "vector": 1.0, "graph": 1.0, "date": 1.0, "recent": 0.5},
    "history": {"bm25": 1.0, "vector": 1.0, "graph": 1.0, "date": 1.0},
    "change": {"bm25": 1.0, "vector": 1.0, "graph": 0.5, "date": 2.0, "changes": 1.5},
}


def _back_a_year(day: dt.date) -> dt.date:
    return day.replace(year=day.year - 1) if not (day.month == 2 and day.day == 29) else dt.date(day.year - 1, 2, 28)


def _latest_with_notes(conn: sqlite3.Connection, window: DateInterval, now: dt.date) -> DateInterval | None:
    """``window`` moved back a year at a time until it ends on or before ``now`` + 1 day
    and dated notes fall in it; None when no year down to the oldest dated note has any."""
    oldest = search.oldest_dated_day(conn)
    if oldest is None:
        return None
    start, end = window.start, window.end
    while start > now:
        start, end = _back_a_year(start), _back_a_year(end)
    while end.isoformat() > oldest:
        if search.any_dated_between(conn, start.isoformat(), end.isoformat()):
            return DateInterval(start, end, window.granularity)
        start, end = _back_a_year(start), _back_a_year(end)
    return None


@dataclass(frozen=True)
class _Window:
    """The date window read from the options or the question: ``window`` (None: none),
    the words that named it (``text``) and where (``span``, chars of the question), its
    ``source`` (``options``, ``question`` or ""); for a point in time ("as of June
    2024") the day the question is about (``point``), the words (``point_text``) and
    whether the window was only that point (``point_only``: not a day of notes); notes."""

    window: DateInterval | None = None
    text: str = ""
    source: str = ""
    span: tuple[int, int] | None = None
    point: dt.date | None = None
    point_text: str = ""
    point_only: bool = False
    notes: tuple[str, ...] = ()


def _option_window(question: str, since: dt.date | None, until: dt.date | None, today: dt.date,
                   config: Config) -> _Window:
    """The window of ``--since``/``--until`` (inclusive days): it replaces any window of
    the question. Raises :class:`UsageError` when it holds no day."""
    if since and until and since > until:
        raise UsageError(f"--since {since} is after --until {until}", hint="give the earlier day to --since")
    start = since or dt.date.min
    end = until + dt.timedelta(days=1) if until and until < dt.date.max else dt.date.max
    if start >= end:
        raise UsageError(f"--since {since} leaves no day to search", hint="give an earlier day to --since")
    found = find_date_window(question, today, config.fiscal_year_start, config.date_order)
    notes = (f"--since/--until replace the question's window {found[1].strip()!r}",) if found is not None else ()
    return _Window(DateInterval(start, end, "range"), source="options", notes=notes)


def _question_window(conn: sqlite3.Connection, question: str, today: dt.date, config: Config) -> _Window:
    """The window the question names, joined to a second period ("Q1 or Q2"), a period
    with no year moved to the latest year with notes, and read as a point when it is one."""
    found = find_date_window(question, today, config.fiscal_year_start, config.date_order)
    if found is None:
        return _Window()
    window, text = _joined(question, found, today, config)
    at = question.find(text)
    notes = []
    relative = _relative_on_latest(conn, question, window, text, today, config)
    if relative is not None:
        window, note = relative
        notes.append(note)
    vague = _VAGUE_PART.search(text)
    if vague and not _POINT.match(text):
        notes.append(f"{vague.group(0)!r} is not narrowed: the window is all of {window}")
    if window.granularity != "day" and not _ANCHORED.search(text):
        latest = _latest_with_notes(conn, window, today)
        if latest is not None and latest != window:
            notes.append(f"{text.strip()!r} names no year: read as {latest}, the latest with notes on or before {today}")
            window = latest
    read = _Window(window, text, "question", (at, at + len(text)) if at >= 0 else None, notes=tuple(notes))
    return _pointed(question, read, question[:at] if at >= 0 else "", today)


_RELATIVE = re.compile(r"\b(?:ago|last|this|next|past|yesterday|today|tomorrow)\b", re.IGNORECASE)


def _relative_on_latest(conn: sqlite3.Connection, question: str, window: DateInterval, text: str, today: dt.date,
                        config: Config) -> tuple[DateInterval, str] | None:
    """For a relative date ("4 years ago", "last week") whose window, anchored on
    ``today`` (``--now``), holds no dated note: the window anchored on the latest note's
    date instead, and a note naming both; None when it holds notes, names a year, or no
    note is dated."""
    if not _RELATIVE.search(text) or re.search(r"\d{4}", text) or search.any_dated_between(
            conn, window.start.isoformat(), window.end.isoformat()):
        return None
    latest = search.latest_dated_day(conn)
    if latest is None or latest[:10] >= today.isoformat():
        return None
    anchor = dt.date.fromisoformat(latest[:10])
    again = find_date_window(question, anchor, config.fiscal_year_start, config.date_order)
    if again is None or again[0] == window:
        return None
    return again[0], (f"{text.strip()!r} from {today} ({window}) holds no note; read from the latest note's date,"
                      f" {anchor}: {again[0]}")


def _pointed(question: str, read: _Window, before: str, today: dt.date) -> _Window:
    """``read`` as a point in time when it is one — a day, or a window named "as of",
    "by"… (``before``: the question's words before it) — in a question that asks for no
    change: the question is about its last day (never after ``today``)."""
    window, text = read.window, read.text
    changes = _CUES[0][1].search(question.lower().replace("’", "'"))
    if changes or not (window.granularity == "day" or _POINT.match(text) or re.search(r"\bas\s*$", before, re.I)):
        return read
    point = min(window.end - dt.timedelta(days=1), today)
    point_text = text.strip()
    if point < window.end - dt.timedelta(days=1) and point < window.start:
        note = f"{point_text!r} lies after --now {today}: facts valid on {today}, what was known then"
    else:
        note = f"{point_text!r} is a point in time: facts valid on {point}; notes written after it are pushed down"
    return _Window(window, text, read.source, read.span, point, point_text, window.granularity != "day",
                   (*read.notes, note))


def _weights(intent: str, entities: tuple[EntityMatch, ...], asks: tuple[FactQuestion, ...],
             window: DateInterval | None, identifiers: tuple[str, ...]) -> tuple[dict[str, float], list[str]]:
    """The retrievers' RRF weights for the question (:data:`INTENT_WEIGHTS`, then its
    shape) and a note on the one fact it asks for."""
    weights = dict(INTENT_WEIGHTS[intent])
    notes = []
    if asks:  # a change question lists the graph's diff instead
        first = asks[0]
        shape = f"{first.name} {first.predicate} ?" if first.side == "subject" else f"? {first.predicate} {first.name}"
        others = len({(a.predicate, a.side) for a in asks[1:]} - {(first.predicate, first.side)})
        notes.append(f"asks for one fact: {shape} ({first.cue})"
                     + (f"; {others} other reading{'' if others == 1 else 's'} if it has none" if others else ""))
        weights["graph"] = max(weights["graph"], INTENT_WEIGHTS["entity"]["graph"])  # its facts' drawers lead
        weights["answer"] = ANSWER_WEIGHT
        if window is None and intent == "lookup":  # "where does Dana work": the latest word first, no cue needed
            weights["recent"] = INTENT_WEIGHTS["current"]["recent"]
    if not entities:
        weights["graph"] = 0.0
    if not window:
        weights["date"] = 0.0
    if identifiers:
        # identifier-shaped (ticket numbers, @handles, paths): MiniLM is poor at them
        # (DESIGN.md), so trust exact terms and add the "exact" list
        weights["bm25"], weights["vector"], weights["exact"] = 1.5, 0.5, 1.0
    return weights, notes


#: A design record named by its series and number: "KEP-576", "ADR 21", "RFC 2094", "PEP 8".
#: Written in capitals only: "Sep 1937" is a month, not a record.
_DOCUMENT = re.compile(r"\b(KEP|ADR|RFC|PEP|RFD|JEP|MIP|BIP|EIP|KIP|FLIP|TEP|DEP)[\s#-]*0*(\d{1,5})\b")
#: "what happened in Q3", "what happened last month": a change question when it names a window and nothing else.
_HAPPENED = re.compile(r"^\s*what(?:'s|\s+has|\s+had)?\s+happen(?:ed|ing)\b", re.IGNORECASE)


def document_numbers(question: str) -> tuple[tuple[str, str], ...]:
    """The design records the question names: ``(("kep", "576"),)`` for "what is the
    status of KEP-576"; ``("adr", "21")`` for "ADR 21" or "ADR-021"."""
    return tuple(dict.fromkeys((m.group(1).lower(), m.group(2).lstrip("0") or "0")
                               for m in _DOCUMENT.finditer(question)))


def as_owner(question: str, owner: str | None) -> str:
    """``question`` with "I", "me" and "my" read as the palace's owner (``config.json``
    ``owner``): "where do I work" → "where does Sam Rivera work"; unchanged without one."""
    if not owner:
        return question
    text = re.sub(r"\b(?:do|does)\s+[Ii]\b(?!['’])", f"does {owner}", question)
    text = re.sub(r"\bdid\s+[Ii]\b(?!['’])", f"did {owner}", text)
    text = re.sub(r"\b(?:am|was)\s+[Ii]\b(?!['’])", lambda m: ("is " if m.group(0)[0] in "aA" else "was ") + owner,
                  text)
    text = re.sub(r"\b[Ii]['’]m\b|\b[Ii]\s+am\b", f"{owner} is", text)
    text = re.sub(r"\b[Mm]y\b", f"{owner}'s", text)
    text = re.sub(r"\b[Mm]e\b", owner, text)
    return re.sub(r"(?<![\w'’])[I](?![\w'’])", owner, text)


def plan_question(
    conn: sqlite3.Connection,
    question: str,
    *,
    now: dt.date | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    config: Config | None = None,
    questions: QuestionTable | None = None,
    wing: str | None = None,
) -> Plan:
    """Read a :class:`Plan` from ``question`` (``now`` anchors relative dates and is the
    day a question without a time is about; default today).

    ``since``/``until`` (inclusive days) override any window in the question and filter;
    ``config`` (default: a palace with no ``config.json``) says what "FY2024" means (its
    ``fiscal_year_start``) and how ``03/04/2018`` reads (its ``date_order``; None: not
    read, and a note says so). ``questions`` (default: the shipped words,
    :func:`palace.ask.questions.load_questions`) reads whether it asks for one predicate
    of one name (``Plan.asks``, :func:`palace.ask.questions.read_fact_questions`; not for
    a change question); such a question leans on the graph. ``wing``: names are those
    that wing holds (:func:`match_entities`). Raises :class:`UsageError` when ``since``
    is after ``until``.
    """
    config = config or Config()
    today = now or dt.date.today()
    asked, question = question, as_owner(question, config.owner)
    notes = [f"{ambiguous!r} reads as day/month or month/day: not read as a date; set \"date_order\""
             " (\"dmy\" or \"mdy\") in config.json"
             for ambiguous in (ambiguous_numeric_dates(question) if config.date_order is None else ())]
    read = (_option_window(question, since, until, today, config) if since or until
            else _question_window(conn, question, today, config))
    notes += read.notes
    if question != asked:
        notes.append(f"'I', 'me' and 'my' read as {config.owner} (config.json owner)")
    window_words = {w.lower() for w in _WORD.findall(read.text)}
    terms = tuple(t for t in query_terms(question) if t not in window_words)
    entities = match_entities(conn, question, read.span, wing=wing)
    documents = document_numbers(question)
    if documents:  # "ADR" of "ADR 21" is the series, not the name asked about
        series = {s for s, _ in documents}
        entities = tuple(e for e in entities if e.text.lower() not in series)
    intent, cue = read_intent(question, entities)
    if intent == "lookup" and read.window is not None and _HAPPENED.match(question) and not (
            set(terms) - {"happened", "happen", "happening"} - window_words) and not entities:
        intent, cue = "change", _HAPPENED.match(question).group(0).strip().lower()  # "what happened in Q3"
    cue_words = {w.lower() for w in _WORD.findall(cue)} - {"about", "on"}
    if cue_words and intent in ("change", "current", "history"):  # "changed", "now": not what it is about
        terms = tuple(t for t in terms if t not in cue_words)
    asks = () if intent == "change" else read_fact_questions(question, entities, table=questions, exclude=read.span)
    window, source = read.window, read.source
    if read.point_text and (read.point_only or asks):  # a day stays a window of notes unless it asks for a state
        window, source = None, ""  # ("the standup on 2024-03-05" vs "where did Alice work on 2024-06-30")
    span = read.span
    identifiers = identifier_terms(question if span is None else question[:span[0]] + " " + question[span[1]:])
    weights, asked = _weights(intent, entities, asks, window, identifiers)
    return Plan(
        question=question, terms=terms, window=window, window_text=read.text, window_source=source,
        window_mode=("filter" if source == "options" else "boost") if window else "none",
        entities=entities, identifiers=identifiers, weights=weights, notes=tuple(notes + asked),
        intent=intent, intent_cue=cue, now=read.point or today, asks=asks,
        now_source="question" if read.point else ("option" if now else "today"),
        point_text=read.point_text, today=today, documents=documents,
        asked=asked if asked != question else "",
    )
