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
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import PurePath
from typing import Callable

__all__ = [
    "GRANULARITIES",
    "DateInterval",
    "interpret_date",
    "find_date_window",
    "date_from_filename",
    "date_from_front_matter",
    "first_dated_heading",
]

GRANULARITIES = ("day", "week", "month", "quarter", "half", "season", "year", "range")
_ONE = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class DateInterval:
    """A half-open interval of days ``[start, end)`` with a granularity."""

    start: date
    end: date
    granularity: str

    def __post_init__(self) -> None:
        if self.granularity not in GRANULARITIES:
            raise ValueError(f"unknown granularity {self.granularity!r}")
        if not self.end > self.start:
            raise ValueError(f"empty interval {self.start}..{self.end}")

    def contains(self, d: date) -> bool:
        if isinstance(d, datetime):
            d = d.date()
        return self.start <= d < self.end

    def overlaps(self, other: DateInterval) -> bool:
        return self.start < other.end and other.start < self.end

    def to_json(self) -> dict[str, str]:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "granularity": self.granularity}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> DateInterval:
        return cls(date.fromisoformat(data["start"]), date.fromisoformat(data["end"]),
                   data["granularity"])

    def __str__(self) -> str:
        return f"{self.start.isoformat()} → {self.end.isoformat()} ({self.granularity})"


# --------------------------------------------------------------------------- intervals

def _add_months(d: date, n: int) -> date:
    """The first day of the month ``n`` months after ``d``'s month."""
    m = d.month - 1 + n
    return date(d.year + m // 12, m % 12 + 1, 1)


def _span(start: date, months: int, gran: str) -> DateInterval:
    return DateInterval(start, _add_months(start, months), gran)


def _day(d: date) -> DateInterval:
    return DateInterval(d, d + _ONE, "day")


def _week(d: date) -> DateInterval:
    s = d - timedelta(days=d.weekday())
    return DateInterval(s, s + timedelta(days=7), "week")


def _month(y: int, m: int) -> DateInterval:
    return _span(date(y, m, 1), 1, "month")


def _quarter(y: int, q: int) -> DateInterval:
    return _span(date(y, 3 * q - 2, 1), 3, "quarter")


def _half(y: int, h: int) -> DateInterval:
    return _span(date(y, 6 * h - 5, 1), 6, "half")


def _year(y: int) -> DateInterval:
    return DateInterval(date(y, 1, 1), date(y + 1, 1, 1), "year")


def _season(y: int, first_month: int) -> DateInterval:
    start = date(y - 1, 12, 1) if first_month == 12 else date(y, first_month, 1)
    return _span(start, 3, "season")


def _fiscal(y: int, fys: int, months: int = 12, offset: int = 0, gran: str = "year"):
    start = date(y, 1, 1) if fys == 1 else date(y - 1, fys, 1)
    return _span(_add_months(start, offset), months, gran)


def _range(a: date, b: date) -> DateInterval | None:
    return DateInterval(a, b, "range") if b > a else None


def _shift(base: date, n: int, unit: str) -> DateInterval:
    """The ``unit``-granular interval ``n`` units from ``base`` (negative = past)."""
    if unit == "day":
        return _day(base + timedelta(days=n))
    if unit == "week":
        return _week(base + timedelta(weeks=n))
    if unit == "month":
        return _span(_add_months(base, n), 1, "month")
    if unit == "quarter":
        return _span(_add_months(date(base.year, 3 * ((base.month - 1) // 3) + 1, 1), 3 * n),
                     3, "quarter")
    if unit == "half":
        return _span(_add_months(date(base.year, 1 if base.month < 7 else 7, 1), 6 * n),
                     6, "half")
    return _year(base.year + n)


_MONTHS_IN = {"month": 1, "quarter": 3, "half": 6, "year": 12}


def _rolling(base: date, n: int, unit: str, back: bool) -> DateInterval | None:
    days = {"day": 1, "week": 7}.get(unit)
    if days:
        delta = timedelta(days=days * n)
        return _range(base - delta, base + _ONE) if back else _range(base, base + delta)
    first = _add_months(base, -n * _MONTHS_IN[unit] if back else n * _MONTHS_IN[unit])
    other = first.replace(day=min(base.day, (_add_months(first, 1) - _ONE).day))
    return _range(other, base + _ONE) if back else _range(base, other)


# ----------------------------------------------------------------------- vocabulary

_MONTHS = {"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
           "april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
           "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9, "october": 10,
           "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12}
_FULL_MONTHS = [k for k in _MONTHS if len(k) > 4 or k in ("may", "june", "july")]
_WEEKDAYS = {"monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2,
             "wed": 2, "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4,
             "fri": 4, "saturday": 5, "sat": 5, "sunday": 6, "sun": 6}
_FULL_WEEKDAYS = [k for k in _WEEKDAYS if k not in ("mon", "sat", "sun")]  # not words
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
             "fourth": 4, "4th": 4, "final": 4, "last": 4, "latter": 2, "back": 2,
             "front": 1}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
            "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
            "twelve": 12, "fifteen": 15, "eighteen": 18, "twenty": 20, "thirty": 30,
            "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "a couple of": 2,
            "couple of": 2, "a couple": 2}


def _alt(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_MON = rf"(?P<mon>{_alt(_MONTHS)})\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YR = r"(?P<y>\d{4}|'\d{2})"
_WDP = rf"(?:(?:{_alt(_WEEKDAYS)})\.?,?\s+)?"
_NUM = rf"(?P<n>\d{{1,3}}|{_alt(_NUMBERS)})"
_UNIT = r"(?P<unit>day|week|month|quarter|half|year)s?"
_FY = r"(?:fy|fiscal(?:\s+year)?)\s*'?(?P<fy>\d{4}|\d{2})"
_YSEP = r"(?:\s*,\s*|\s+of\s+|\s*[-/]\s*|\s+)"


def _year_of(tok: str | None, base: date, lo: int = 1000, hi: int = 2999) -> int | None:
    """A year from ``2024``, ``24`` or ``'24``; None if absent or implausible."""
    if not tok:
        return None
    tok = tok.lstrip("'")
    y = int(tok)
    if len(tok) == 2:
        y += 2000 if 2000 + y <= base.year + 20 else 1900
    return y if lo <= y <= hi else None


# -------------------------------------------------------------------------- atoms

Make = Callable[[int], "DateInterval | None"]


@dataclass(slots=True)
class _Atom:
    """One date expression: a fixed interval, or a maker ``year -> interval``."""

    iv: DateInterval | None = None
    make: Make | None = None
    kind: str = ""  # "bare_year", "alone" (a month/season… word alone), "weekday", ""
    weak: bool = False  # needs a preposition before it in a question


def _safe(fn: Make) -> Make:
    def make(y: int) -> DateInterval | None:
        try:
            return fn(y)
        except ValueError:
            return None
    return make


def _named(y: int | None, make: Make, kind: str = "", weak: bool = False) -> _Atom | None:
    """Fixed when a year was written (``y``), yearless when not (0), None if implausible."""
    if y is None:
        return None
    return _Atom(make(y)) if y else _Atom(None, _safe(make), kind, weak)


def _resolve(make: Make, base: date, mode: str) -> DateInterval | None:
    """Pick the occurrence of a period named without a year (see module docstring)."""
    y = base.year
    if mode in ("question", "begun"):
        return next((iv for iv in map(make, range(y + 1, y - 6, -1))
                     if iv is not None and iv.start <= base), None)
    cands = [iv for iv in (make(y - 1), make(y), make(y + 1)) if iv is not None]
    for iv in cands:
        if iv.contains(base):
            return iv
    for iv in cands:
        if base < iv.start <= base + timedelta(days=92):
            return iv
    this = make(y)
    return this if this is not None and this.start <= base + timedelta(days=183) \
        else make(y - 1)


def _relative(make: Make, base: date, rel: str) -> DateInterval | None:
    """``last X``: the latest X ended by base; ``next X``: the first starting after it."""
    y = base.year
    if rel == "last":
        return next((iv for iv in map(make, range(y + 1, y - 6, -1))
                     if iv is not None and iv.end <= base), None)
    if rel == "next":
        return next((iv for iv in map(make, range(y - 1, y + 6))
                     if iv is not None and iv.start > base), None)
    return _resolve(make, base, "doc")


def _atom(s: str, base: date, fys: int, mode: str, the: bool = False) -> _Atom | None:
    """Parse one normalised expression (no ranges) into an atom."""
    fixed = _FIXED.get(s)
    if fixed is not None:
        return _Atom(fixed(base))
    for rx, handler in _compiled():
        m = rx.fullmatch(s)
        if m is not None:
            try:
                atom = handler(m, base, fys, mode, the)
            except ValueError:
                atom = None
            if atom is not None:
                return atom
    return None


def _yq(m, base: date) -> int | None:
    """The year written in a match (groups ``y``, ``yy``, ``y2``): 0 if none."""
    g = m.groupdict()
    tok = g.get("y") or g.get("yy") or g.get("y2")
    return _year_of(tok, base) if tok else 0


def _h_iso_day(m, base, *_):
    y = _year_of(m["y"], base)
    return _Atom(_day(date(y, int(m["m"]), int(m["d"])))) if y else None


def _h_numeric_day(m, base, *_):
    """``a/b/yyyy`` month first unless a > 12; dotted ``a.b.yyyy`` day first."""
    a, b = int(m["a"]), int(m["b"])
    mo, d = (b, a) if m["s"] == "." else (a, b)
    if mo > 12:
        mo, d = d, mo
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    y = _yq(m, base)
    return _named(y, lambda yy: _day(date(yy, mo, d)), weak=y == 0)


def _h_iso_month(m, base, *_):
    y, mo = _year_of(m["y"], base), int(m["m"])
    return _Atom(_month(y, mo)) if y and 1 <= mo <= 12 else None


def _h_iso_week(m, base, *_):
    y = _year_of(m["y"], base)
    return _Atom(_week(date.fromisocalendar(y, int(m["w"]), 1))) if y else None


def _h_day(m, base, *_):
    mo, d = _MONTHS[m["mon"]], int(m["day"])
    return _named(_yq(m, base), lambda y: _day(date(y, mo, d))) if d <= 31 else None


def _h_day_range(m, base, *_):
    mo, d1, d2 = _MONTHS[m["mon"]], int(m["d1"]), int(m["d2"])
    return _named(_yq(m, base), lambda y: _range(date(y, mo, d1), date(y, mo, d2) + _ONE)) \
        if d1 < d2 <= 31 else None


def _h_month(m, base, *_):
    mo = _MONTHS[m["mon"]]
    return _named(_yq(m, base), lambda y: _month(y, mo), "alone", True)


def _h_weekday(m, base, *_):
    back = (base.weekday() - _WEEKDAYS[m["wd"]]) % 7
    return _Atom(_day(base - timedelta(days=back)), kind="weekday", weak=True)


def _h_part(m, base, fys, *_):
    """Quarters and halves: ``Q3 2024``, ``3Q24``, ``2024-H1``, ``third quarter``, ``Q1 FY24``."""
    g = m.groupdict()
    quarter = "q" in g
    n = int(g["q"] if quarter else g["h"]) if not g.get("ord") else _ORDINALS[g["ord"]]
    months = 3 if quarter else 6
    if g.get("fy"):
        y = _year_of(g["fy"], base)
        return _Atom(_fiscal(y, fys, months, months * (n - 1), "quarter" if quarter
                             else "half")) if y else None
    build = (lambda y: _quarter(y, n)) if quarter else (lambda y: _half(y, n))
    ordinal = bool(g.get("ord"))
    return _named(_yq(m, base), build, "alone" if ordinal else "", ordinal)


def _h_fiscal_year(m, base, fys, *_):
    y = _year_of(m["fy"], base)
    if y and m["fy2"]:  # "FY2023/24": named by the year it ends in
        y2 = int(m["fy2"])
        y2 = y2 if y2 >= 100 else y - y % 100 + y2 + (100 if y2 < y % 100 else 0)
        y = y2 if y2 == y + 1 else None
    return _Atom(_fiscal(y, fys)) if y else None


def _h_season(m, base, *_):
    first, y = _SEASONS[m["s"]], _yq(m, base)
    if y and m["y2"]:  # "winter 2023/24", "winter 2023-2024"
        y2 = int(m["y2"])
        y2 = y2 if y2 >= 100 else y - y % 100 + y2
        y = y2 if first == 12 and y2 == y + 1 else None
    return _named(y, lambda yy: _season(yy, first), "alone", True)


def _h_year(m, base, *_):
    if m["yy"]:  # "'19"
        y = _year_of(m["yy"], base)
        return _Atom(_year(y), weak=True) if y else None
    if m["word"]:  # "the year 1850"
        y = _year_of(m["y"], base)
        return _Atom(_year(y)) if y else None
    y = _year_of(m["y"], base, 1900, 2100)
    return _Atom(_year(y), kind="bare_year") if y else None


def _h_decade(m, base, fys, mode, the):
    if m["y"]:
        y = int(m["y"])
    elif the or m["ap"]:  # "the 90s", "'90s", not "his 90s"
        y = _year_of(m["yy"], base)
    else:
        return None
    return _Atom(_range(date(y, 1, 1), date(y + 10, 1, 1))) if y and y >= 1000 else None


def _h_offset(m, base, *_):
    """``3 days ago``, ``2 weeks from now``, ``the last 30 days``, ``next 2 weeks``."""
    g, n = m.groupdict(), _count(m["n"])
    if not n:
        return None
    if g.get("rel"):
        return _Atom(_rolling(base, n, g["unit"], g["rel"] != "next"))
    return _Atom(_shift(base, -n if g.get("dir") else n, g["unit"]))


def _h_week_of(m, base, fys, mode, the):
    inner = _atom(m["rest"], base, fys, mode)
    if inner is None:
        return None
    iv = inner.iv if inner.iv is not None else _resolve(inner.make, base, mode)
    return _Atom(_week(iv.start)) if iv and iv.granularity == "day" else None


def _h_modifier(m, base, fys, mode, the):
    """``early``/``mid``/``late``/``end of`` X is X; ``end of the year`` is this year."""
    rest = m["rest"].removeprefix("the ")
    if rest in ("year", "month", "week", "quarter", "half"):
        return _Atom(_shift(base, 0, rest))
    if rest in ("day", "days", "decade", "century", "period", "meeting", "sprint"):
        return None
    inner = _atom(rest, base, fys, mode, bool(re.fullmatch(r"\d0'?s", rest)))
    return _Atom(inner.iv, inner.make) if inner else None  # "mid-May": no longer weak


_STEP = {"last": -1, "this": 0, "next": 1}


def _h_rel(m, base, fys, mode, the):
    rel = {"previous": "last", "prev": "last", "coming": "next", "current": "this",
           "upcoming": "next"}.get(m["rel"], m["rel"])
    rest = m["rest"]
    if rel in ("next", "following") and the:
        return None  # "the next day": relative to an event we do not know
    if rest in ("week", "month", "year", "quarter", "half"):
        if rel == "past" or (the and rel == "last"):
            return _Atom(_rolling(base, 1, rest, True))
        return _Atom(_shift(base, _STEP[rel], rest)) if rel in _STEP else None
    if rel not in _STEP:
        return None
    if rest in ("fiscal year", "fy"):
        current = base.year + (1 if fys != 1 and base.month >= fys else 0)
        return _Atom(_fiscal(current + _STEP[rel], fys))
    if rest == "weekend":
        sat = base + timedelta(days=5 - base.weekday() + 7 * _STEP[rel])
        return _Atom(_range(sat, sat + timedelta(days=2)))
    if rest in _WEEKDAYS:
        delta = _WEEKDAYS[rest] - base.weekday()
        if rel == "last":
            delta = -((-delta - 1) % 7 + 1)
        elif rel == "next":
            delta = (delta - 1) % 7 + 1
        return _Atom(_day(base + timedelta(days=delta)))
    inner = _atom(rest, base, fys, mode)
    if inner is None or inner.make is None:
        return None
    iv = _relative(inner.make, base, rel)
    return _Atom(iv) if iv else None


def _count(tok: str) -> int:
    return int(tok) if tok.isdigit() else _NUMBERS.get(tok, 0)


_QY = r"(?:{sep}(?P<y>\d{{4}})|\s*'(?P<yy>\d{{2}})|[-/](?P<y2>\d{{2}}))?".format(sep=_YSEP)
_ORD_TAIL = r"(?:\s+of(?:\s+the)?\s+year|(?:,\s*|\s+of\s+|\s+)(?P<y>\d{4}))?"
_PATTERNS = [  # (regex matched in full on the normalised span, handler), in order
    (r"(?P<y>\d{4})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})"
     r"(?:t\d[\d:.]*(?:z|[+-]\d\d:?\d\d)?)?", _h_iso_day),
    (r"(?P<a>\d{1,2})(?P<s>[-/.])(?P<b>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})", _h_numeric_day),
    (r"(?P<y>\d{4})[-/](?P<m>\d{2})", _h_iso_month),
    (r"(?P<m>\d{1,2})/(?P<y>\d{4})", _h_iso_month),
    (r"(?P<a>\d{1,2})(?P<s>/)(?P<b>\d{1,2})", _h_numeric_day),
    (r"(?P<y>\d{4})-?w(?P<w>\d{1,2})", _h_iso_week),
    (r"(?:week|wk|cw|w)\s*(?P<w>\d{1,2})(?:\s*,\s*|\s+of\s+|\s+)(?P<y>\d{4})", _h_iso_week),
    (r"(?P<rel>last|this|next|previous|prev|coming|upcoming|current|past|following)"
     r"\s+(?P<rest>.+)", _h_rel),
    (rf"{_WDP}{_MON}(?:\s+|-)(?:the\s+)?{_DAY}(?:(?:,\s*|\s+|-)(?:of\s+)?{_YR})?", _h_day),
    (rf"{_WDP}(?:the\s+)?{_DAY}(?:\s+of)?(?:\s+|-){_MON}(?:(?:,\s*|\s+|-){_YR})?", _h_day),
    (rf"{_MON}\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:-|to|through|until|till|and)\s*"
     rf"(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?(?:,?\s+{_YR})?", _h_day_range),
    (rf"(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:-|to|and)\s*(?P<d2>[0-3]?\d)"
     rf"(?:st|nd|rd|th)?\s+{_MON}(?:,?\s+{_YR})?", _h_day_range),
    (rf"{_MON}(?:,\s*|\s+|-)(?:of\s+)?{_YR}", _h_month),
    (rf"(?P<mon>{_alt(_FULL_MONTHS)})", _h_month),
    (rf"(?P<wd>{_alt(_FULL_WEEKDAYS)})", _h_weekday),
    (rf"q(?P<q>[1-4])\s*(?:of\s+)?{_FY}", _h_part),
    (rf"{_FY}\s*[-/]?\s*q(?P<q>[1-4])", _h_part),
    (rf"h(?P<h>[12])\s*(?:of\s+)?{_FY}", _h_part),
    (rf"{_FY}\s*[-/]?\s*h(?P<h>[12])", _h_part),
    (rf"q(?P<q>[1-4]){_QY}", _h_part),
    (r"(?P<q>[1-4])q\s*'?(?P<y>\d{4}|\d{2})", _h_part),
    (r"(?P<y>\d{4})\s*[-/]?\s*q(?P<q>[1-4])", _h_part),
    (rf"(?P<ord>first|second|third|fourth|final|last|1st|2nd|3rd|4th)[\s-]+quarter(?P<q>)"
     rf"{_ORD_TAIL}", _h_part),
    (rf"h(?P<h>[12]){_QY}", _h_part),
    (r"(?P<h>[12])h\s*'?(?P<y>\d{4}|\d{2})", _h_part),
    (r"(?P<y>\d{4})\s*[-/]?\s*h(?P<h>[12])", _h_part),
    (rf"(?P<ord>first|second|1st|2nd|latter|back|front)\s+half(?P<h>){_ORD_TAIL}", _h_part),
    (rf"{_FY}(?:\s*[-/]\s*(?P<fy2>\d{{4}}|\d{{2}}))?", _h_fiscal_year),
    (r"(?P<s>spring|summer|autumn|fall|winter)(?:(?:\s+of)?\s+(?P<y>\d{4}|'\d{2})"
     r"(?:\s*[-/]\s*(?P<y2>\d{4}|\d{2}))?|\s*'(?P<yy>\d{2}))?", _h_season),
    (r"(?:(?P<word>(?:the\s+)?(?:year|yr|calendar\s+year|cy))\s+)?(?P<y>\d{4})|'(?P<yy>\d\d)",
     _h_year),
    (r"(?:(?P<y>\d{3}0)|(?P<ap>')?(?P<yy>\d0))'?s", _h_decade),
    (rf"{_NUM}\s+{_UNIT}\s+(?:(?P<dir>ago|back|before\s+now)|from\s+(?:now|today)|hence)",
     _h_offset),
    (rf"(?P<rel>last|past|previous|next|coming)\s+{_NUM}\s+{_UNIT}", _h_offset),
    (r"week\s+(?:of|beginning|starting|commencing)\s+(?P<rest>.+)", _h_week_of),
    (r"(?:early|mid|late|(?:the\s+)?(?:very\s+)?(?:end|beginning|start|middle)\s+of)"
     r"(?:\s*-\s*|\s+)(?P<rest>.+)", _h_modifier),
]


@lru_cache(maxsize=1)
def _compiled() -> list:
    """The patterns, compiled on first use (keeps ``import`` cheap)."""
    return [(re.compile(rx), handler) for rx, handler in _PATTERNS]


_FIXED: dict[str, Callable[[date], DateInterval]] = {
    **dict.fromkeys(("today", "tonight", "this morning", "this afternoon", "this evening",
                     "eod"), _day),
    **dict.fromkeys(("yesterday", "last night"), lambda b: _day(b - _ONE)),
    "tomorrow": lambda b: _day(b + _ONE),
    "day before yesterday": lambda b: _day(b - 2 * _ONE),
    "day after tomorrow": lambda b: _day(b + 2 * _ONE),
    "eow": _week, "eom": lambda b: _shift(b, 0, "month"),
    "eoq": lambda b: _shift(b, 0, "quarter"), "eoy": lambda b: _year(b.year),
    **dict.fromkeys(("ytd", "year to date", "year-to-date"),
                    lambda b: DateInterval(date(b.year, 1, 1), b + _ONE, "range")),
    **dict.fromkeys(("mtd", "month to date", "month-to-date"),
                    lambda b: DateInterval(b.replace(day=1), b + _ONE, "range")),
}


# -------------------------------------------------------------------- expressions

_VAGUE = {"now", "the day", "day", "the week", "week", "the month", "month", "the year",
          "year", "recently", "daily", "weekly", "monthly", "annual", "annually", "yearly",
          "quarterly", "nightly", "these days", "nowadays", "one day", "some day", "someday"}
_CHARS = str.maketrans({"’": "'", "‘": "'", "–": "-", "—": "-", "‒": "-", "−": "-",
                        "\u00a0": " "})
_MARKUP_RX = re.compile(r"\]\(|\]\[|\]|\(http|\s\(")
_FILLER_RX = re.compile(
    r"^(?:in|on|at|during|for|by|of|around|about|circa|ca\.|approx\.?|approximately|"
    r"only|just|nearly|almost|over|"
    r"roughly|sometime\s+in|some\s+time\s+in|as\s+of|from|back\s+in|earlier|later|"
    r"as\s+early\s+as|as\s+late\s+as|no\s+later\s+than)\s+")
_TIME_RX = re.compile(
    r"(?:,?\s*(?:at|@|around|by|from)?\s*\d{1,2}(?::\d{2}){1,2}(?:\.\d+)?\s*"
    r"(?:am|pm|a\.m\.|p\.m\.)?(?:\s*(?:utc|gmt|z|[a-z]{1,3}t|[+-]\d{2}:?\d{2}))?"
    r"|,?\s*(?:at|@|around|by)?\s*\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\s+(?:morning|afternoon|evening|night|noon|midday|midnight|lunchtime|eod))$")
_LEAD_TIME_RX = re.compile(r"^\d{1,2}(?::\d{2})?\s*(?:am|pm)\s+(?:on\s+)?(?=\S)")
_OPEN_RX = re.compile(
    r"^(?P<op>since|starting(?:\s+(?:in|from|on))?|beginning(?:\s+(?:in|on))?|after|post|"
    r"before|prior\s+to|pre|until|till|til|up\s+(?:to|until)|through|thru)"
    r"(?:\s*-\s*|\s+)(?P<rest>.+)$")
_OPS = {"since": "since", "starting": "since", "beginning": "since", "after": "after",
        "post": "after", "before": "before", "prior": "before", "pre": "before",
        "until": "until", "till": "until", "til": "until", "up": "until",
        "through": "until", "thru": "until"}
_RANGE_LEAD_RX = re.compile(r"^(?P<lead>between|from)\s+(?P<rest>.+)$")
_SEP_RX = re.compile(r"\s+(?:to|through|thru|until|till|and)\s+|\s*-\s*")
_IN_N_RX = re.compile(rf"^(?:in|within)\s+{_NUM}\s+{_UNIT}$")


def _normalise(s: str) -> tuple[str, bool]:
    """Lowercase, plain punctuation, fillers and times removed; also whether "the" led."""
    s = " ".join(s.translate(_CHARS).lower().split())
    s = _MARKUP_RX.split(s, 1)[0]  # spaCy spans run into markdown: "May 2020](https://…"
    s = s.strip(" .,;:!?()[]{}\"*_")
    for suffix in ("'s", "'", "-ish", " or so", "ish"):
        if s.endswith(suffix) and len(s) > len(suffix) + 2:
            s = s[: -len(suffix)]
    s = _LEAD_TIME_RX.sub("", s)
    if s not in _FIXED:
        s = _TIME_RX.sub("", s).strip(" ,")
    for _ in range(2):
        s = _FILLER_RX.sub("", s)
    the = s.startswith("the ")
    if the:
        s = s[4:]
    return s, the


class _Result:
    __slots__ = ("iv", "kind", "weak", "lead")

    def __init__(self, iv: DateInterval, kind: str = "", weak: bool = False,
                 lead: bool = False) -> None:
        self.iv, self.kind, self.weak, self.lead = iv, kind, weak, lead


@lru_cache(maxsize=8192)
def _parse(raw: str, base: date, fys: int, mode: str) -> _Result | None:
    """Parse a whole span (atom, range or open range); None if it is not a date."""
    m = _IN_N_RX.match(" ".join(raw.lower().split()))
    if m:
        n = _count(m["n"])
        return _Result(_shift(base, n, m["unit"])) if n else None
    s, the = _normalise(raw)
    if not s or s in _VAGUE:
        return None
    try:
        return _parse_expr(s, base, fys, mode, the)
    except (ValueError, OverflowError):
        return None


def _parse_expr(s: str, base: date, fys: int, mode: str, the: bool) -> _Result | None:
    om = _OPEN_RX.match(s)
    if om:
        op = _OPS[om["op"].split()[0]]
        rest, rthe = om["rest"], False
        if rest.startswith("the "):
            rest, rthe = rest[4:], True
        anchor_mode = "begun" if op in ("since", "after") else mode
        iv = _interval(rest, base, fys, anchor_mode, rthe)
        if iv is None:
            return None
        if op == "since":
            out = _range(iv.start, base + _ONE) if iv.start <= base else None
        elif op == "after":
            out = _range(iv.end, date.max)
        elif op == "before":
            out = _range(date.min, iv.start)
        else:
            out = _range(date.min, iv.end)
        return _Result(out, lead=True) if out else None
    atom = _atom(s, base, fys, mode, the)
    if atom is not None:
        iv = atom.iv if atom.iv is not None else _resolve(atom.make, base, mode)
        return _Result(iv, atom.kind, atom.weak) if iv else None
    iv = _parse_range(s, base, fys, mode)
    return _Result(iv, lead=True) if iv else None


def _interval(s: str, base: date, fys: int, mode: str, the: bool) -> DateInterval | None:
    atom = _atom(s, base, fys, mode, the)
    if atom is not None:
        return atom.iv if atom.iv is not None else _resolve(atom.make, base, mode)
    return _parse_range(s, base, fys, mode)


def _parse_range(s: str, base: date, fys: int, mode: str) -> DateInterval | None:
    lead = _RANGE_LEAD_RX.match(s)
    between = bool(lead and lead["lead"] == "between")
    if lead:
        s = lead["rest"]
    for sep in _SEP_RX.finditer(s):
        if sep.group().strip() == "and" and not between:
            continue
        left, right = s[: sep.start()].strip(), s[sep.end():].strip()
        if left.startswith("the "):
            left = left[4:]
        if right.startswith("the "):
            right = right[4:]
        a = _atom(left, base, fys, mode)
        if a is None or a.kind == "weekday":
            continue
        b = _atom(right, base, fys, mode)
        if b is None and a.kind == "bare_year" and re.fullmatch(r"\d{2}", right):
            y1 = a.iv.start.year
            y2 = y1 - y1 % 100 + int(right)
            b = _Atom(_year(y2)) if y2 > y1 else None
        if b is None or b.kind == "weekday":
            continue
        iv = _join(a, b, base, mode)
        if iv is not None:
            return iv
    return None


def _join(a: _Atom, b: _Atom, base: date, mode: str) -> DateInterval | None:
    if a.iv is not None and b.iv is not None:
        left, right = a.iv, b.iv
    elif a.iv is None and b.iv is not None:  # "March - June 2024"
        right = b.iv
        y = right.end.year if right.end.month > 1 or right.end.day > 1 else right.end.year - 1
        left = a.make(y)
        if left is not None and left.start >= right.start:
            left = a.make(y - 1)
    elif a.iv is not None:  # "March 2024 - June"
        left = a.iv
        right = b.make(left.start.year)
        if right is not None and right.end <= left.end:
            right = b.make(left.start.year + 1)
    else:
        left = _resolve(a.make, base, mode)
        if left is None:
            return None
        right = b.make(left.start.year)
        if right is not None and right.end <= left.end:
            right = b.make(left.start.year + 1)
    if left is None or right is None or right.start < left.start or right.end <= left.end:
        return None
    return _range(left.start, right.end)


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
_AMBIGUOUS_WORDS = {"may", "march", "fall", "spring"}
_DATE_WORDS = set(_MONTHS) | set(_WEEKDAYS) | set(_SEASONS) | _PREPS | {
    "q1", "q2", "q3", "q4", "h1", "h2", "fy", "i"}
_PREV_WORD_RX = re.compile(r"([A-Za-z]+)\.?[\s#]*$")
_NEXT_WORD_RX = re.compile(r"^[ \t]+([A-Za-z][A-Za-z'’-]*)")
_WORD_RX = re.compile(r"[A-Za-z]+")


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
    if res.lead:
        return True
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
                   fiscal_year_start: int = 1) -> DateInterval | None:
    """Interpret the date expression ``text[start:end]`` relative to ``base``.

    ``text`` is the sentence or drawer holding the span (a spaCy DATE/TIME entity); the
    characters around the span are used to reject false dates (``ticket #2033``,
    ``100M``, ``April Jones``, modal ``may``) and to complete spans spaCy cut short
    (``2021-03`` of ``2021-03-16``, ``22`` of ``Sep 22``, ``March 14`` of ``March 14,
    2019``). ``base`` is the document's date. Returns a
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
    res = _parse(raw, base, fiscal_year_start, "doc")
    if res is None:
        iv = _fallback(raw, base)
        return iv if iv is not None and _context_ok(text, start, end, _Result(iv), "doc") \
            else None
    return res.iv if _context_ok(text, start, end, res, "doc") else None


_MORE_DIGITS_RX = re.compile(r"(?:[-/.]\d{1,4})+(?![\w/])")
_DIGITS_BEFORE_RX = re.compile(r"(?<![\w.-])(?:\d{1,4}[-/.])+$")
_MONTH_BEFORE_RX = re.compile(rf"(?<![\w])(?:{_alt(_MONTHS)})\.?\s+$")  # on .lower()
_YEAR_AFTER_RX = re.compile(r",?\s+\d{4}(?![\w/.-]|\.\d)")
_MONTH_DAY_END_RX = re.compile(rf"(?:{_alt(_MONTHS)})\.?\s+[0-3]?\d(?:st|nd|rd|th)?$")


def _extend(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a span that spaCy cut short: ``2021-03`` of ``2021-03-16``, ``22`` of
    ``Sep 22``, ``March 14`` of ``March 14, 2019``."""
    span = text[start:end]
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


def find_date_window(text: str, now: date, fiscal_year_start: int = 1
                     ) -> tuple[DateInterval, str] | None:
    """The first date expression of a free-text question, as (interval, matched text).

    Scans left to right, longest expression first at each word; a period named without a
    year is the most recent one that has begun by ``now``. The matched text includes a
    leading ``in``/``on``/``during``/``from``… so that the caller can cut it from the
    question. Weak words (a month, season or weekday alone, ``4/12``) count only after a
    preposition (``in March``, ``on Tuesday``): ``may I``, ``march on``, ``ticket 2033``
    and ``what did April say`` give no window. Never uses dateparser.
    """
    now = _as_date(now)
    toks = list(_TOKEN_RX.finditer(text))
    for i, first in enumerate(toks):
        if first.group().lower() in _SCAN_FILLERS:
            continue
        for j in range(min(len(toks), i + _MAX_TOKENS) - 1, i - 1, -1):
            s, e = first.start(), toks[j].end()
            res = _parse(text[s:e], now, fiscal_year_start, "question")
            if res is None or not _context_ok(text, s, e, res, "question"):
                continue
            k = i
            if first.group().lower() == "the" and i < j:  # "the FY2024": keep "the" only
                rest = _parse(text[toks[i + 1].start():e], now, fiscal_year_start, "question")
                if rest is not None and rest.iv == res.iv:  # if it means something
                    k, s = i + 1, toks[i + 1].start()
            return res.iv, text[_take_lead(text, toks, k, s):e]
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
