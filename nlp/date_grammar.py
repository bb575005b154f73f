"""The date grammar behind :mod:`palace.nlp.dates`: internal machinery, no public API.

Here live :class:`DateInterval` and the small interval constructors (``_day``, ``_month``,
``_shift``, ``_rolling``…), the vocabulary (month, weekday, season and number words), the
regex pattern table with its handler functions (``_h_*``), the atoms and the
yearless-period rules (``_resolve``, ``_relative``), and the parsing of whole expressions,
ranges and open ranges (``_parse``). The conventions they follow are documented once, in
the docstring of :mod:`palace.nlp.dates`, which imports from this module (never the
reverse) and re-exports :class:`DateInterval`.
"""

from __future__ import annotations


import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Callable

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
#: Holidays on a fixed day of the year, as ``(month, day)`` ("New Year's Eve" is 31
#: December); Thanksgiving (the fourth Thursday of November) is computed, Easter is not read.
_HOLIDAYS = {"new year's eve": (12, 31), "new years eve": (12, 31), "new year's day": (1, 1),
             "new years day": (1, 1), "christmas eve": (12, 24), "christmas day": (12, 25),
             "christmas": (12, 25), "xmas": (12, 25), "boxing day": (12, 26), "halloween": (10, 31),
             "hallowe'en": (10, 31), "valentine's day": (2, 14), "valentines day": (2, 14),
             "st patrick's day": (3, 17), "st. patrick's day": (3, 17), "saint patrick's day": (3, 17),
             "bonfire night": (11, 5), "guy fawkes night": (11, 5), "the fourth of july": (7, 4),
             "fourth of july": (7, 4), "independence day": (7, 4), "thanksgiving": (11, 0),
             "thanksgiving day": (11, 0)}
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


_OF_REL_YEAR_RX = re.compile(r"^(?P<p>.+?),?\s+(?:of\s+)?(?P<rel>last|this|next)\s+year$")
_REL_YEARS_RX = re.compile(r"^(?P<rel>last|this|next)\s+year'?s\s+(?P<p>.+)$")


def _atom(s: str, base: date, fys: int, mode: str, the: bool = False, order: str | None = None) -> _Atom | None:
    """Parse one normalised expression (no ranges) into an atom. A period named with a
    relative year ("q3 last year", "march of this year", "last year's q3") is that
    period of the year it names."""
    rel = _OF_REL_YEAR_RX.match(s) or _REL_YEARS_RX.match(s)
    if rel and not rel["p"].startswith(("last", "this", "next")):
        inner = rel["p"][4:] if rel["p"].startswith("the ") else rel["p"]
        atom = _atom(f"{inner} {base.year + _STEP[rel['rel']]}", base, fys, mode, order=order)
        if atom is not None and atom.iv is not None:
            return atom
    fixed = _FIXED.get(s)
    if fixed is not None:
        return _Atom(fixed(base))
    for rx, handler in _compiled():
        m = rx.fullmatch(s)
        if m is not None:
            try:
                atom = handler(m, base, fys, mode, the, order)
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


#: How an all-numeric date ``a/b/yyyy`` whose parts could both be a month is read (the
#: ``order`` every parse takes): ``"dmy"`` (day first), ``"mdy"`` (month first) or None
#: (ambiguous: not read as a date). The miner passes the note's own evidence
#: (:func:`palace.nlp.dates.numeric_date_order`) or the palace's ``date_order``.
NUMERIC_ORDERS = ("dmy", "mdy")


def _h_numeric_day(m, base, fys, mode, the, order=None):
    """``a/b/yyyy``: day first when a > 12, month first when b > 12, else as ``order``
    says (unread when it is None); dotted ``a.b.yyyy`` is day first."""
    a, b = int(m["a"]), int(m["b"])
    if m["s"] == ".":
        mo, d = b, a
    elif a > 12 or b > 12:
        mo, d = (b, a) if a > 12 else (a, b)
    else:
        if order is None:
            return None  # "03/04/2018": 3 April or March 4, never guessed
        mo, d = (b, a) if order == "dmy" else (a, b)
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


def is_holiday(text: str) -> bool:
    """Whether ``text`` names a holiday of :data:`_HOLIDAYS` ("New Year's Eve", "on
    Christmas Day 2019"): a date even where the recogniser made it an event."""
    if not text or text.strip()[:1].isdigit():
        return False  # most spans: checked for every name and date mining reads
    plain = re.sub(r"^(?:on|at|over|for|by|before|after|since)\s+", "", " ".join(text.lower().translate(_CHARS).split()))
    return _holiday_rx().fullmatch(plain) is not None


@lru_cache(maxsize=1)
def _holiday_rx() -> "re.Pattern":
    """A holiday's name, with "the" before it and its year after it, compiled once."""
    return re.compile(rf"(?:the\s+)?(?:{_alt(_HOLIDAYS)})(?:(?:,\s*|\s+)(?:(?:in|of)\s+)?\d{{4}})?")


def _h_holiday(m, base, *_):
    """A holiday of :data:`_HOLIDAYS`: its day in the year written, else the occurrence
    a day written without a year would be."""
    mo, d = _HOLIDAYS[m["hol"]]

    def make(y: int) -> DateInterval:
        if d:
            return _day(date(y, mo, d))
        first = date(y, 11, 1)  # Thanksgiving: the fourth Thursday of November
        return _day(first + timedelta(days=(3 - first.weekday()) % 7 + 21))
    return _named(_yq(m, base), make)


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


def _h_year(m, base, fys=1, mode="", *_):
    if m["yy"]:  # "'19"
        y = _year_of(m["yy"], base)
        return _Atom(_year(y), weak=True) if y else None
    if m["word"]:  # "the year 1850"
        y = _year_of(m["y"], base)
        return _Atom(_year(y)) if y else None
    # a bare year in a question may be older than 1900 ("from 1870 to 1872"), but then
    # only after a preposition (weak); in a note it counts only within 1900..2100
    y = _year_of(m["y"], base, 1000 if mode == "question" else 1900, 2100)
    return _Atom(_year(y), kind="bare_year", weak=y < 1900) if y else None


def _h_decade(m, base, fys, mode, the, order=None):
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


def _h_week_of(m, base, fys, mode, the, order=None):
    inner = _atom(m["rest"], base, fys, mode, order=order)
    if inner is None:
        return None
    iv = inner.iv if inner.iv is not None else _resolve(inner.make, base, mode)
    return _Atom(_week(iv.start)) if iv and iv.granularity == "day" else None


def _h_modifier(m, base, fys, mode, the, order=None):
    """``early``/``mid``/``late``/``end of`` X is X; ``end of the year`` is this year."""
    rest = m["rest"].removeprefix("the ")
    if rest in ("year", "month", "week", "quarter", "half"):
        return _Atom(_shift(base, 0, rest))
    if rest in ("day", "days", "decade", "century", "period", "meeting", "sprint"):
        return None
    inner = _atom(rest, base, fys, mode, bool(re.fullmatch(r"\d0'?s", rest)), order)
    return _Atom(inner.iv, inner.make) if inner else None  # "mid-May": no longer weak


_STEP = {"last": -1, "this": 0, "next": 1}


def _h_rel(m, base, fys, mode, the, order=None):
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
    inner = _atom(rest, base, fys, mode, order=order)
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
    (rf"(?P<hol>{_alt(_HOLIDAYS)})(?:(?:,\s*|\s+)(?:(?:in|of)\s+)?(?P<y>\d{{4}}))?", _h_holiday),
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


def _parse(raw: str, base: date, fys: int, mode: str, order: str | None = None) -> _Result | None:
    """Parse a whole span (atom, range or open range); None if it is not a date.
    ``order`` reads an all-numeric date whose parts could both be a month
    (:data:`NUMERIC_ORDERS`; None: not read)."""
    return _parse_cached(raw, base, fys, mode, order)


@lru_cache(maxsize=8192)
def _parse_cached(raw: str, base: date, fys: int, mode: str, order: str | None) -> _Result | None:
    m = _IN_N_RX.match(" ".join(raw.lower().split()))
    if m:
        n = _count(m["n"])
        return _Result(_shift(base, n, m["unit"])) if n else None
    s, the = _normalise(raw)
    if not s or s in _VAGUE:
        return None
    try:
        return _parse_expr(s, base, fys, mode, the, order)
    except (ValueError, OverflowError):
        return None


def _parse_expr(s: str, base: date, fys: int, mode: str, the: bool, order: str | None) -> _Result | None:
    om = _OPEN_RX.match(s)
    if om:
        op = _OPS[om["op"].split()[0]]
        rest, rthe = om["rest"], False
        if rest.startswith("the "):
            rest, rthe = rest[4:], True
        anchor_mode = "begun" if op in ("since", "after") else mode
        iv = _interval(rest, base, fys, anchor_mode, rthe, order)
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
    atom = _atom(s, base, fys, mode, the, order)
    if atom is not None:
        iv = atom.iv if atom.iv is not None else _resolve(atom.make, base, mode)
        return _Result(iv, atom.kind, atom.weak) if iv else None
    iv = _parse_range(s, base, fys, mode, order)
    return _Result(iv, lead=True) if iv else None


def _interval(s: str, base: date, fys: int, mode: str, the: bool, order: str | None) -> DateInterval | None:
    atom = _atom(s, base, fys, mode, the, order)
    if atom is not None:
        return atom.iv if atom.iv is not None else _resolve(atom.make, base, mode)
    return _parse_range(s, base, fys, mode, order)


def _parse_range(s: str, base: date, fys: int, mode: str, order: str | None = None) -> DateInterval | None:
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
        a = _atom(left, base, fys, mode, order=order)
        if a is None or a.kind == "weekday":
            continue
        b = _atom(right, base, fys, mode, order=order)
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
        if left is not None and left.start > right.start:  # "November - February 2024"
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
    if left is None or right is None or right.start < left.start or right.end < left.end:
        return None
    return _range(left.start, right.end)
