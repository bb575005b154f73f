"""Date understanding for palace: pure functions on strings.

Every date is a :class:`DateInterval`, half-open ``[start, end)`` with a granularity.
Conventions (all documented here once, referred to below):

* Weeks start on Monday (ISO). ``last week`` is the ISO week before the base's week.
* Quarters are calendar quarters unless written with ``FY`` (``Q3 FY24``). Halves likewise.
* A fiscal year is named by the calendar year in which it **ends**: with
  ``fiscal_year_start=4`` (April), ``FY2024`` is ``[2023-04-01, 2024-04-01)``; with the
  default 1 it is the calendar year 2024. Fiscal intervals have granularity ``year``
  (``quarter``/``half`` for fiscal quarters and halves).
* Seasons are northern-hemisphere meteorological seasons: spring Mar-May, summer Jun-Aug,
  autumn/fall Sep-Nov, winter Dec-Feb named by the year of its January (``winter 2024`` is
  ``[2023-12-01, 2024-03-01)``; ``winter 2023/24`` is the same).
* Numeric dates: ``a/b/yyyy`` and ``a-b-yyyy`` are month first (US, as dateparser) unless
  ``a > 12``; dotted ``a.b.yyyy`` is day first (European) unless ``b > 12``.
* Two-digit years mean 20yy unless that is more than 20 years after the base, then 19yy.
* Bare years count only within 1900..2100; years written with a month, quarter… 1000..2999.
* ``early``/``mid``/``late``/``end of``/``beginning of`` X give X itself (the coarser, safe
  interval). Decades (``the 1990s``, ``the '90s``) are ``range`` intervals.
* Periods named without a year (``March``, ``Q2``, ``summer``, ``April 12``) are resolved
  differently for documents and for questions:

  - in a document (``interpret_date``, relative to the document's date): the occurrence
    that contains the base; else one that starts within the next 92 days (``January`` in a
    note of Nov 15 is the coming January); else the one of the base's year, unless it
    starts more than 183 days after the base, then the previous year's. So on 2024-01-10
    ``March`` is March 2024 and ``Q4`` is Q4 2023; on 2024-11-20 ``March`` is March 2024.
  - in a question (``find_date_window``, relative to now): the most recent occurrence that
    has begun (``Q3`` asked on 2024-06-30 is Q3 2023, on 2024-08-15 Q3 2024).
  - the anchor of ``since``/``after`` is always resolved as in a question (it has begun).
* ``last X`` (X a month, season, weekday, quarter…) is the most recent X that has ended by
  the base (``last Tuesday`` = the most recent Tuesday strictly before the base); ``next X``
  the first X starting after the base; ``this X`` as a document's bare X, but ``this
  Tuesday`` is the Tuesday of the base's ISO week. A bare weekday is the most recent one on
  or before the base (notes mostly speak of the recent past).
* ``last week/month/quarter/year`` are calendar units; ``past week``, ``the last week``,
  ``the last 30 days``, ``the past two weeks`` are rolling ``range`` intervals ending with
  the base day included: ``[base - n units, base + 1 day)``. ``N units ago`` is the
  unit-granular interval around ``base - N units`` (``2 weeks ago`` is a ``week``).
* Open ranges (granularity ``range``): ``since X`` = ``[X.start, base + 1 day)``;
  ``after X`` = ``[X.end, date.max)``; ``before X`` = ``[date.min, X.start)``;
  ``until/till/through X`` = ``[date.min, X.end)``. ``by X``, ``as of X``, ``from X`` = X.
* Closed ranges (``between March and June 2024``, ``March-June 2024``, ``2019-2021``,
  ``from 2019 to 2021``, ``March 3-5``) are ``[left.start, right.end)``, granularity
  ``range``; a side without a year takes the other side's year (``November-February 2024``
  starts in November 2023). ``2011-12`` is the ISO month December 2011, not a range.
* Not dates (None): durations (``two weeks``, ``30 days``), ages, frequencies (``weekly``),
  times alone, anchors the note does not give (``the next day``), numbers that are ids or
  quantities (``ticket #2033``, ``room 3533``, ``100M``, ``$2024``, ``2,024``, ``v2024``),
  the modal ``may``, and month names used as names (``April Jones``).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import PurePath

from palace.nlp.date_grammar import (
    GRANULARITIES,
    DateInterval,
    _CHARS,
    _MONTHS,
    _SEASONS,
    _WEEKDAYS,
    _Result,
    _alt,
    _day,
    _parse,
    _resolve,
    _safe,
    is_holiday,
)

__all__ = [
    "GRANULARITIES",
    "DateInterval",
    "interpret_date",
    "numeric_date_order",
    "numeric_spans",
    "ambiguous_numeric_dates",
    "date_from_date_line",
    "find_date_window",
    "date_from_filename",
    "date_from_front_matter",
    "first_dated_heading",
    "is_holiday",
]


# ------------------------------------------------------------------------ context

_ID_NOUNS = set("""room rm ticket tickets issue issues pr prs pull request bug bugs no nr num
number numbers version ver v page pages p pp line lines step steps item items table figure
fig chapter ch section sec ext extension port build id ref order invoice account acct flight
route apt apartment suite unit floor phone cve rfc commit patch episode ep vol volume exhibit
appendix task story epic case claim po sku model code pin zip batch run job node rule test
tests level lvl row col column option slide gate seat bus train house box lot serial msg
message comment thread post answer""".split())
_UNITS_HARD = set("""m k b bn mm mn million billion thousand trillion percent pct ms s sec secs
seconds second min mins minutes minute h hr hrs hours hour km kg g mg mi miles meters metres ft
feet lb lbs gb mb kb tb px pt pts usd eur gbp dollars euros pounds yen x loc kw kwh mhz ghz hz
rpm mph kph bytes calories kcal degrees years days weeks months""".split())
_UNITS_SOFT = set("""users people persons items rows records words lines files times points
votes downloads requests hits views employees customers members units tickets issues commits
stars comments calls errors tests steps pages copies sales visitors students participants
attendees cases deaths cars devices instances servers nodes tokens messages emails crates
packages dependencies prs bugs tasks out more of""".split())
_PREPS = set("""in on at since during until till til before after from by of between and to
through thru around about for last next this early mid late circa as starting beginning over
throughout within across into the""".split())
_STRICT_PREPS = set("""in since during until till before after from by of between through
early mid late last next this""".split())
_TITLES = {"mr", "mrs", "ms", "dr", "miss", "prof", "dear", "hi", "hey", "hello", "thanks",
           "thank", "cc", "sir", "madam", "aunt", "uncle"}
_SPEECH = set("""said says asked asks told tells wrote writes mentioned suggested replied
thinks thought agreed emailed called presented proposed noted explained""".split())
_NAMED_BY_YEAR = {"edition", "editions"}
# In a question, a bare year with no time word before it, in a phrase that names a
# document or an edition ("the 2023 elections retrospective", "roadmap 2024"), is not the
# period the question is about; these words before it still make it a time.
_QUESTION_TIME_WORDS = {"for", "on", "at", "to", "as", "around", "circa", "throughout", "within", "over", "across"}
# Plans and reviews named by the year they are about, and written before or after it: the
# "2026 budget" is agreed in 2025 and the "2023 retrospective" held in 2024, so the year names
# the thing, not when the sentence happened. Only without a time preposition: "in 2024 budgets
# shrank" is still a year.
_PLANNED_BY_YEAR = set("""budget budgets roadmap roadmaps retrospective retrospectives retro
retros plan plans forecast forecasts""".split())
# ... when the words around it name a document or an edition, written at another time
# than the year it names; "the 2026 election" or "the 2024 all-hands" happened in it.
_DOCUMENT_WORDS = _PLANNED_BY_YEAR | _NAMED_BY_YEAR | set("""report reports review reviews strategy
strategies survey surveys summary summaries goals priorities charter rfc proposal proposals
agenda guide guidelines policy policies handbook post posts results recap recaps""".split())
_NAME_PHRASE_WORDS = 5
_AMBIGUOUS_WORDS = {"may", "march", "fall", "spring"}
_DATE_WORDS = set(_MONTHS) | set(_WEEKDAYS) | set(_SEASONS) | _PREPS | {
    "q1", "q2", "q3", "q4", "h1", "h2", "fy", "i"}
_PREV_WORD_RX = re.compile(r"([A-Za-z]+)\.?[\s#]*$")
_NEXT_WORD_RX = re.compile(r"^[ \t]+([A-Za-z][A-Za-z'’-]*)")
_WORD_RX = re.compile(r"[A-Za-z]+")


#: Words before a holiday's name that make it a title or a thing, not a day: "watched
#: Independence Day", "played Halloween", "my Christmas".
_TITLE_CONTEXT = frozenset("""watch watched watching saw see seen play played playing read reading stream streamed
rent rented review reviewed love loved my our his her their your its""".split())
#: Words that may follow a day without making it a modifier ("at Christmas we …", "on
#: Boxing Day in 2019", "Christmas was …"), unlike a noun ("the Christmas concert").
_AFTER_A_DAY = frozenset("""in on at of and or with when while we i you he she they it was is were are will
would did do had has have the a an this that last next to for from after before but so because then
until till since""".split())


def _context_ok(text: str, start: int, end: int, res: _Result, mode: str) -> bool:
    """Reject spans whose surroundings show they are not dates (ids, units, names…)."""
    span = text[start:end].strip()
    before, after = text[max(0, start - 40):start], text[end:end + 40]
    pw = _PREV_WORD_RX.search(before)
    prev_word = pw.group(1).lower() if pw else ""
    nw = _NEXT_WORD_RX.match(after)
    next_word = nw.group(1) if nw else ""
    if span[:1].isdigit():
        c = before[-1:]
        if c and (c in "#$€£¥@/\\_+=&" or c.isalnum()):
            return False
        if c == "." and before[-2:-1].isalnum():
            return False  # "1.2024"
        if c == "-" and before[-2:-1].isalnum():
            hm = re.search(r"([A-Za-z]*)-$", before)
            if not hm or hm.group(1).lower() not in ("mid", "early", "late", "pre", "post",
                                                     "end"):
                return False  # "ABC-2024", "1-2024"
        if prev_word in _ID_NOUNS:
            return False
    if span[-1:].isdigit():
        c = after[:1]
        if c and (c.isalnum() or c in "%$€£") or re.match(r"[.,:/]\d", after):
            return False
        if res.kind == "bare_year" or re.fullmatch(r"[\d\s.,/-]+", span):
            unit = next_word.lower()
            if unit in _UNITS_HARD or (unit in _UNITS_SOFT and prev_word not in _STRICT_PREPS):
                return False
            if unit in _NAMED_BY_YEAR:
                return False  # "the 2024 edition", "the Rust 2021 edition": a name, not a time
            if unit in _PLANNED_BY_YEAR and prev_word not in _STRICT_PREPS:
                return False  # "the 2026 budget", "our 2023 retro"
            if mode == "question" and prev_word not in _STRICT_PREPS | _QUESTION_TIME_WORDS:
                phrase = {w.lower() for w in _WORD_RX.findall(text[end:end + 120])[:_NAME_PHRASE_WORDS]}
                if next_word and next_word.lower() not in _DATE_WORDS and phrase & _DOCUMENT_WORDS:
                    return False  # "the 2023 project director elections retrospective": names a document
                if prev_word in _DOCUMENT_WORDS:
                    return False  # "the lang team roadmap 2024"
    if res.lead:
        return True
    if is_holiday(span) and next_word[:1].isalpha() and next_word.lower() not in _AFTER_A_DAY:
        return False  # "the Christmas concert", "our Halloween party": an event named for the day
    if is_holiday(span) and _prev_word(text, start) in _TITLE_CONTEXT:
        return False  # "we watched Independence Day", "my Halloween": a title or a thing, not a day
    if res.kind == "alone":
        word = _WORD_RX.findall(span)[-1]
        low = word.lower()
        pos = start + span.rfind(word)
        prev = _prev_word(text, pos)
        if low in _AMBIGUOUS_WORDS and word.islower() and prev not in _STRICT_PREPS:
            return False  # "we march on", "the spring broke"
        if low == "may" and prev not in _STRICT_PREPS and re.match(r"\s*[A-Za-z]", after):
            return False  # "May make sense", "May I…": the modal, not the month
        if next_word[:1].isupper() and next_word.lower() not in _DATE_WORDS:
            return False  # "April Jones", "Spring Boot"
        if next_word.lower() in _SPEECH or prev in _TITLES or text[:pos].endswith("@"):
            return False
        if re.match(r"\s+of\s+(?!\d{4}|'\d\d)", after):
            return False  # "the fall of Rome", "March of the Penguins"
    else:
        prev = _prev_word(text, start)
    return not (mode == "question" and res.weak and prev not in _PREPS)


def _prev_word(text: str, pos: int) -> str:
    """The word before ``pos`` (lowercase), skipping one "the"."""
    words = _WORD_RX.findall(text[max(0, pos - 40):pos])
    if words and words[-1].lower() == "the":
        words.pop()
    return words[-1].lower() if words else ""


# ------------------------------------------------------------------------- public


def _as_date(d) -> date:
    return d.date() if isinstance(d, datetime) else d


def interpret_date(text: str, start: int, end: int, base: date, *,
                   fiscal_year_start: int = 1, date_order: str | None = None) -> DateInterval | None:
    """Interpret the date expression ``text[start:end]`` relative to ``base``.

    ``text`` is the sentence or drawer holding the span (a spaCy DATE/TIME entity); the
    characters around the span are used to reject false dates (``ticket #2033``,
    ``100M``, ``April Jones``, modal ``may``) and to complete spans spaCy cut short
    (``2021-03`` of ``2021-03-16``, ``22`` of ``Sep 22``, ``March 14`` of ``March 14,
    2019``). ``base`` is the document's date; ``date_order`` how an all-numeric date
    whose parts could both be a month reads (``"dmy"``, ``"mdy"``; None: it is not read,
    :data:`palace.nlp.date_grammar.NUMERIC_ORDERS`). Returns a
    :class:`DateInterval` or None when the span is not a point or period in time
    (durations, frequencies, ids) or is too ambiguous. Never raises for bad input.
    Own grammar first (see the module docstring for every convention); dateparser
    (``languages=["en"]``, ``PREFER_DATES_FROM="past"``) only as a checked fallback for
    month-and-day forms the grammar does not know.
    """
    if not 0 <= start < end <= len(text):
        return None
    base = _as_date(base)
    start, end = _extend(text, start, end)
    raw = text[start:end]
    res = _parse(raw, base, fiscal_year_start, "doc", date_order)
    if res is None:
        iv = _fallback(raw, base)
        return iv if iv is not None and _context_ok(text, start, end, _Result(iv), "doc") \
            else None
    return res.iv if _context_ok(text, start, end, res, "doc") else None


_MORE_DIGITS_RX = re.compile(r"(?:[-/.]\d{1,4})+(?![\w/])")
_DIGITS_BEFORE_RX = re.compile(r"(?<![\w.-])(?:\d{1,4}[-/.])+$")
_MONTH_BEFORE_RX = re.compile(rf"(?<![\w])(?:{_alt(_MONTHS)})\.?\s+$")  # on .lower()
_YEAR_AFTER_RX = re.compile(r",?\s+\d{4}(?![\w/.-]|\.\d)")
_HOLIDAY_YEAR_RX = re.compile(r",?\s+(?:(?:in|of)\s+)?\d{4}(?![\w/-]|\.\d)")
_MONTH_DAY_END_RX = re.compile(rf"(?:{_alt(_MONTHS)})\.?\s+[0-3]?\d(?:st|nd|rd|th)?$")


def _extend(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a span that spaCy cut short: ``2021-03`` of ``2021-03-16``, ``22`` of
    ``Sep 22``, ``March 14`` of ``March 14, 2019``, ``Christmas Day`` of ``Christmas Day
    in 1914``."""
    span = text[start:end]
    if is_holiday(span) and not re.search(r"\d{4}", span):
        m = _HOLIDAY_YEAR_RX.match(text, end)
        if m:
            return start, m.end()
    if span[-1:].isdigit():
        m = _MORE_DIGITS_RX.match(text, end)
        if m:
            end = m.end()
        elif _MONTH_DAY_END_RX.search(span.lower()):
            m = _YEAR_AFTER_RX.match(text, end)
            if m:
                end = m.end()
    if span[:1].isdigit():
        before = text[max(0, start - 16):start]
        m = _DIGITS_BEFORE_RX.search(before)
        if m:
            start -= len(m.group())
        elif re.match(r"\d{1,2}(?:st|nd|rd|th)?\b", span):
            m = _MONTH_BEFORE_RX.search(before.lower())
            if m and text[start - len(m.group()):start].lower() == m.group():
                start -= len(m.group())
    return start, end


_TOKEN_RX = re.compile(r"\d{1,3}(?:,\d{3})+|[#$€£¥]|[\w'’]+(?:[-–/.:][\w'’]+)*|[-–—]")
_SCAN_FILLERS = {"in", "on", "at", "during", "for", "of", "by", "around", "about", "from"}
_MAX_TOKENS = 9


def find_date_window(text: str, now: date, fiscal_year_start: int = 1, date_order: str | None = None
                     ) -> tuple[DateInterval, str] | None:
    """The first date expression of a free-text question, as (interval, matched text).

    Scans left to right, longest expression first at each word; a period named without a
    year is the most recent one that has begun by ``now``. The matched text includes a
    leading ``in``/``on``/``during``/``from``… so that the caller can cut it from the
    question. Weak words (a month, season or weekday alone, ``4/12``) count only after a
    preposition (``in March``, ``on Tuesday``): ``may I``, ``march on``, ``ticket 2033``
    and ``what did April say`` give no window. ``date_order`` reads ``03/04/2018`` (as in
    :func:`interpret_date`). Never uses dateparser.
    """
    now = _as_date(now)
    anchored = _anchored_window(text, now, fiscal_year_start, date_order)
    if anchored is not None:
        return anchored
    toks = list(_TOKEN_RX.finditer(text))
    for i, first in enumerate(toks):
        if first.group().lower() in _SCAN_FILLERS:
            continue
        for j in range(min(len(toks), i + _MAX_TOKENS) - 1, i - 1, -1):
            s, e = first.start(), toks[j].end()
            res = _parse(text[s:e], now, fiscal_year_start, "question", date_order)
            if res is None or not _context_ok(text, s, e, res, "question"):
                continue
            k = i
            if first.group().lower() == "the" and i < j:  # "the FY2024": keep "the" only
                rest = _parse(text[toks[i + 1].start():e], now, fiscal_year_start, "question", date_order)
                if rest is not None and rest.iv == res.iv:  # if it means something
                    k, s = i + 1, toks[i + 1].start()
            return res.iv, text[_take_lead(text, toks, k, s):e]
    return None


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_COUNTS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10}
_ANCHORED_RX = re.compile(
    r"(?:\b(?:in|on|during|for)\s+)?\bthe\s+(?P<part>last|first)\s+(?P<unit>week|day)\s+of\s+"
    r"|(?:\b(?:on|in)\s+)?\bthe\s+(?P<wd>" + "|".join(_WEEKDAYS) + r")\s+(?P<dir1>before|after)\s+"
    r"|\b(?P<n>\d{1,3}|" + "|".join(_COUNTS) + r")\s+(?P<shift>days?|weeks?|months?)\s+(?P<dir2>before|after)\s+",
    re.IGNORECASE)


def _anchored_window(text: str, now: date, fys: int, order: str | None) -> tuple[DateInterval, str] | None:
    """A period anchored on the date it names: ``the last week of August 2023`` (its
    last seven days), ``the Monday before July 24, 2023`` (that day), ``two weeks
    before August 11, 2023`` (the day 14 days earlier); None when ``text`` holds none."""
    for m in _ANCHORED_RX.finditer(text):
        rest = text[m.end():]
        anchor = find_date_window(rest, now, fys, order)
        if anchor is None or not rest.lower().startswith(anchor[1].strip().lower()):
            continue
        iv, said = anchor[0], text[m.start():m.end()] + anchor[1].strip()
        if m["part"]:
            if m["unit"].lower() == "week":
                start, end = (iv.end - _WEEK, iv.end) if m["part"].lower() == "last" else (iv.start, iv.start + _WEEK)
                return DateInterval(max(start, iv.start), min(end, iv.end), "range"), said
            day = iv.end - _ONE_DAY if m["part"].lower() == "last" else iv.start
            return DateInterval(day, day + _ONE_DAY, "day"), said
        if m["wd"]:
            target = _WEEKDAYS.index(m["wd"].lower())
            day = iv.start - _ONE_DAY if m["dir1"].lower() == "before" else iv.end
            step = -_ONE_DAY if m["dir1"].lower() == "before" else _ONE_DAY
            while day.weekday() != target:
                day += step
            return DateInterval(day, day + _ONE_DAY, "day"), said
        n = int(m["n"]) if m["n"].isdigit() else _COUNTS[m["n"].lower()]
        unit = m["shift"].lower().rstrip("s")
        sign = -1 if m["dir2"].lower() == "before" else 1
        if unit == "month":
            month = iv.start.month - 1 + sign * n
            year, month = iv.start.year + month // 12, month % 12 + 1
            day = date(year, month, min(iv.start.day, 28))
        else:
            day = iv.start + sign * n * (_WEEK if unit == "week" else _ONE_DAY)
        return DateInterval(day, day + _ONE_DAY, "day"), said
    return None


def _take_lead(text: str, toks: list, k: int, s: int) -> int:
    """Move a match's start back over a preceding "in", "for", "on the"…"""
    def word(i: int) -> str:
        joined = i >= 0 and not text[toks[i].end():toks[i + 1].start() if i + 1 < k
                                     else s].strip()
        return toks[i].group().lower() if joined else ""

    if word(k - 1) in _SCAN_FILLERS:
        return toks[k - 1].start()
    if word(k - 1) == "the" and word(k - 2) in _SCAN_FILLERS:
        return toks[k - 2].start()
    return s


_ONE_DAY = timedelta(days=1)
_WEEK = timedelta(days=7)
_FILE_SEP_RX = re.compile(r"(?<!\d)(\d{4})([-_.])(\d{1,2})\2(\d{1,2})(?!\d)")
_FILE_COMPACT_RX = re.compile(r"(?<!\d)((?:19|20)\d\d)(\d\d)(\d\d)(?!\d)")


def date_from_filename(name: str) -> date | None:
    """A full calendar date in a file's base name: ``2024-04-12.md``, ``2019.04.18.md``,
    ``2024_04_12.md``, ``20240412.md``, ``standup-2024-10-16.md``,
    ``meeting 2024-10-16 notes.txt``. Partial (``2024-04.md``) or invalid
    (``2024-13-45``) dates give None; the first valid date wins."""
    stem = PurePath(str(name)).name
    for rx in (_FILE_SEP_RX, _FILE_COMPACT_RX):
        for m in rx.finditer(stem):
            y, mo, d = (int(m.group(1)), int(m.group(3)), int(m.group(4))) \
                if rx is _FILE_SEP_RX else map(int, m.groups())
            try:
                found = date(y, mo, d)
            except ValueError:
                continue
            if y >= 1000:
                return found
    return None


def date_from_front_matter(value) -> date | None:
    """A front-matter ``date:`` value as a date: a date, a datetime (its own calendar date,
    no time-zone conversion) or a string (``2024-04-12``, ``2024-04-12T10:00:00Z``,
    ``April 12, 2024``, ``12 April 2024``, ``2024/04/12``). Anything else gives None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    s = value.strip().strip("'\"")
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})(?:$|[T\s])", s)
    if m:
        try:
            return date(*map(int, m.groups()))
        except ValueError:
            return None
    return _full_date(s, exact=True)


_FULL_DATE_RX = re.compile(
    rf"(?<![\w-])(?:(?P<iy>\d{{4}})(?P<s>[-/.])(?P<im>\d{{1,2}})(?P=s)(?P<id>\d{{1,2}})"
    rf"|(?P<mon>{_alt(_MONTHS)})\.?\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})"
    rf"|(?P<day2>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_alt(_MONTHS)})\.?,?\s+"
    rf"(?P<y2>\d{{4}}))(?![\w-])")  # matched on lowercase text


def _full_date(s: str, exact: bool = False) -> date | None:
    """The first full calendar date (ISO or written month with day and year) in ``s``."""
    s = s.lower()
    for m in _FULL_DATE_RX.finditer(s):
        if exact and (m.start() > 0 and s[:m.start()].strip(" ,")
                      and s[:m.start()].strip(" ,").lower().rstrip(".") not in _WEEKDAYS
                      or s[m.end():].strip(" .")):
            return None
        try:
            if m["iy"]:
                return date(int(m["iy"]), int(m["im"]), int(m["id"]))
            if m["mon"]:
                return date(int(m["y"]), _MONTHS[m["mon"]], int(m["day"]))
            return date(int(m["y2"]), _MONTHS[m["mon2"]], int(m["day2"]))
        except ValueError:
            continue
    return None


_HEADING_RX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_FENCE_RX = re.compile(r"^ {0,3}(```|~~~)")


_NUMERIC_DATE_RX = re.compile(r"(?<![\d/.-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-])")


def numeric_date_order(text: str) -> str | None:
    """How ``text`` writes all-numeric dates, by its own evidence: ``"dmy"`` when one has
    a first part over 12 (``28/03/2018``), ``"mdy"`` when one has a second part over 12
    (``03/28/2018``), None when none tells (or both occur)."""
    day_first = month_first = False
    for m in _NUMERIC_DATE_RX.finditer(text):
        a, b = int(m.group(1)), int(m.group(3))
        day_first |= 12 < a <= 31 and 1 <= b <= 12
        month_first |= 12 < b <= 31 and 1 <= a <= 12
    if day_first != month_first:
        return "dmy" if day_first else "mdy"
    return None


def ambiguous_numeric_dates(text: str) -> list[str]:
    """The all-numeric dates of ``text`` that read two ways (``03/04/2018``)."""
    return [m.group(0) for m in _NUMERIC_DATE_RX.finditer(text)
            if 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(3)) <= 12 and m.group(1) != m.group(3)]


_DATE_LINE_RX = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*|__)?date(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.+?)\s*$",
                           re.IGNORECASE | re.MULTILINE)


def date_from_date_line(text: str, lines: int = 15, date_order: str | None = None) -> date | None:
    """The day of a ``Date: 28/03/2018`` line (also ``**Date:**``, ``- date:``) among the
    first ``lines`` lines of a note's body, an all-numeric date read in ``date_order``
    (as in :func:`interpret_date`); None when there is none."""
    head = "\n".join(text.splitlines()[:lines])
    for m in _DATE_LINE_RX.finditer(head):
        value = m.group(1)
        full = _full_date(value)
        if full is not None:
            return full
        res = _parse(value.strip(" *_"), date(2000, 1, 1), 1, "doc", date_order)
        if res is not None and res.iv.granularity == "day":
            return res.iv.start
    return None


def first_dated_heading(text: str) -> date | None:
    """The date in the first markdown ATX heading (``#``..``######``, outside fenced code)
    that holds a full calendar date (``2024-04-12``, ``April 12, 2024``,
    ``12 April 2024``); None if no heading does."""
    fence = None
    for line in text.splitlines():
        fm = _FENCE_RX.match(line)
        if fm:
            fence = None if fence == fm.group(1) else (fence or fm.group(1))
            continue
        if fence:
            continue
        hm = _HEADING_RX.match(line)
        if hm:
            found = _full_date(hm.group(1))
            if found is not None:
                return found
    return None


# ----------------------------------------------------------------------- fallback

_FALLBACK_GATE = re.compile(rf"\b(?P<mon>{_alt(_MONTHS)})\b")
_NOT_POINT = re.compile(r"\b(?:ago|old|long|every|each|per|later|earlier|before|after|"
                        r"since|until|between|and|or|to|next|last|this)\b")


@lru_cache(maxsize=256)
def _dateparser(base: date):
    from dateparser.date import DateDataParser  # lazy: importing dateparser costs ~0.1 s

    return DateDataParser(languages=["en"], settings={
        "RELATIVE_BASE": datetime(base.year, base.month, base.day),
        "PREFER_DATES_FROM": "past", "RETURN_TIME_AS_PERIOD": True,
        "PREFER_DAY_OF_MONTH": "first", "DATE_ORDER": "MDY"})


@lru_cache(maxsize=4096)
def _fallback(raw: str, base: date) -> DateInterval | None:
    """dateparser for written month-and-day forms the grammar missed, checked: the result
    must be a day in the named month, on a day number written in the span."""
    s = " ".join(raw.translate(_CHARS).lower().split())
    gate = _FALLBACK_GATE.search(s)
    days = {int(n) for n in re.findall(r"(?<![\d])(\d{1,2})(?:st|nd|rd|th)?(?![\d])", s)}
    if gate is None or not days or _NOT_POINT.search(s) or len(s) > 60:
        return None
    try:
        data = _dateparser(base).get_date_data(s)
    except Exception:  # dateparser raises assorted errors on odd input
        return None
    d = data.date_obj
    if d is None or data.period not in ("day", "time"):
        return None
    if d.month != _MONTHS[gate["mon"]] or d.day not in days:
        return None
    years = re.findall(r"(?<!\d)(\d{4})(?!\d)", s)
    if years:
        return _day(d.date()) if [str(d.year)] == years and 1900 <= d.year <= 2100 else None
    month, day = d.month, d.day  # no year written: our rule, not dateparser's
    return _resolve(_safe(lambda y: _day(date(y, month, day))), base, "doc")


_YEAR_RANGE = re.compile(r"(?<![\d/.-])(1[0-9]{3}|2[0-9]{3})\s*[–—-]\s*(1[0-9]{3}|2[0-9]{3}|[0-9]{2})(?![\d/-]|\.\d)")
_PREP_YEAR = re.compile(
    r"\b(?:in|since|from|until|till|to|by|between|and|during|before|after|of|through)\s+(1[0-9]{3}|2[0-9]{3})\b(?![\d/-]|\.\d)",
    re.I)


def numeric_spans(text: str) -> list[tuple[int, int]]:
    """The all-numeric dates of ``text`` (``03/04/2024``, ``28-02-24``) as ``(start,
    end)`` spans: the recogniser tags some of them as names (a PERSON) or not at all."""
    return [(m.start(), m.end()) for m in _NUMERIC_DATE_RX.finditer(text)]


def year_spans(text: str) -> list[tuple[int, int, DateInterval]]:
    """Years the named-entity recogniser does not mark as dates: a year range written
    with a dash ("2018–2021", "(2015-19)") as one ``range`` interval up to the end of its
    last year, and a year after a preposition ("in 1792", "to 2008") as that ``year``
    (years 1000–2999, wider than bare years elsewhere: encyclopedic prose dates events
    centuries back). Returns ``(start, end, interval)`` spans of ``text``."""
    out = []
    for m in _YEAR_RANGE.finditer(text):
        first = int(m.group(1))
        last = m.group(2)
        end = int(last) if len(last) == 4 else first // 100 * 100 + int(last)
        if end < first or end - first > 200:
            continue
        out.append((m.start(), m.end(), DateInterval(date(first, 1, 1), date(end + 1, 1, 1), "range")))
    taken = [(s, e) for s, e, _ in out]
    for m in _PREP_YEAR.finditer(text):
        s, e = m.start(1), m.end(1)
        if any(a <= s < b for a, b in taken):
            continue
        year = int(m.group(1))
        out.append((s, e, DateInterval(date(year, 1, 1), date(year + 1, 1, 1), "year")))
    return sorted(out, key=lambda x: x[0])
