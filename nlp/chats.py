"""Chat exports: the day each line was written, so a chat is cut and dated by day.

A chat — a WhatsApp, Signal, Slack, Discord or Telegram text export, a transcript of
``Name: …`` lines — dates its lines itself: ``12/03/2024, 19:22 - Amaka: …`` (WhatsApp
on Android), ``[15/03/2024, 09:10:11] Amaka: …`` (on iOS), ``[2023-05-08 13:56] Bo: …``
(Signal, Discord, most tools), ``[08-May-23 01:56 PM] Bo`` (a Discord exporter),
``Amaka, [08.05.2023 13:56]:`` (Telegram), or a line of its own that opens a session or
a day ("Session 4", "1:56 pm on 8 May, 2023", "--- Monday, 8 May 2023 ---").
:func:`chat_days` finds where each new day begins; the mine flow cuts the note there
(:func:`palace.nlp.chunking.chunk_markdown`'s ``days``), so every drawer holds one day
and its facts take that day. Clock times and session headings are never facts.

Pure functions on strings.
"""

from __future__ import annotations

import datetime as dt
import re

from palace.nlp.lines import speakers

#: A chat is a note with at least this many speaker lines.
MIN_CHAT_LINES = 3
_CLOCK = r"\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:\s*[AaPp]\.?[Mm]\.?)?"
_NUMERIC = r"\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}"
_WRITTEN = r"(?:\d{1,2}(?:st|nd|rd|th)?[ -](?:of\s+)?[A-Za-z]{3,9}\.?,?[ -]'?\d{2,4}|[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})"
_DATE = rf"(?:(?:[A-Za-z]+day,?\s+)?(?:{_NUMERIC}|{_WRITTEN}))"
#: A line that begins with its date (and time): "[15/03/2024, 09:10:11] Amaka: …",
#: "12/03/2024, 19:22 - Amaka: …", "2023-05-08 13:56 Bo: …", "Amaka, [08.05.2023 13:56]:".
_DATED_LINE = re.compile(
    rf"^[ \t]*(?:[\w .'’-]{{1,40}},[ \t]*)?\[?(?P<date>{_DATE})(?:,?[ \t]*(?:at[ \t]+)?{_CLOCK})?\]?[ \t]*[-–—:]?", re.M)
#: A line of its own naming a day, maybe with a session label and a clock time:
#: "1:56 pm on 8 May, 2023", "Session 4 — 8 May 2023", "--- 2024-03-12 ---",
#: "# Session 2 (10:37 am on 27 June, 2023)".
_DAY_LINE = re.compile(
    rf"^[ \t#>*_=-]*(?:(?:session|day|chat|conversation)\s*#?\d*\s*[-–—:,(]*\s*)?(?:{_CLOCK}\s*(?:on\s+)?)?"
    rf"(?P<date>{_DATE})(?:,?\s*(?:at\s+)?{_CLOCK})?[ \t)*_=#-]*$", re.M | re.I)
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}


def line_day(text: str, date_order: str | None = None) -> dt.date | None:
    """The day a chat line's date names: ISO ``2023-05-08``; numeric ``12/03/2024``
    (day first or month first as ``date_order`` says, or as a part over 12 shows;
    ambiguous ones are not read), dotted ``08.05.2023`` (day first); written
    ``8 May, 2023``, ``May 8, 2023``, ``08-May-23``."""
    text = text.strip()
    m = re.search(r"(\d{1,4})([/.-])(\d{1,2})\2(\d{2,4})", text)
    try:
        if m:
            a, sep, b, c = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
            if len(m.group(1)) == 4:
                return dt.date(a, b, int(c))
            year = int(c) + (2000 if len(c) == 2 else 0)
            if sep == "." or a > 12 or date_order == "dmy":
                return dt.date(year, b, a) if not (b > 12 and a <= 12) else dt.date(year, a, b)
            if b > 12 or date_order == "mdy":
                return dt.date(year, a, b)
            return None
        m = re.search(r"(\d{1,2})(?:st|nd|rd|th)?[ -](?:of\s+)?([A-Za-z]{3,9})\.?,?[ -]'?(\d{2,4})", text)
        if m and m.group(2)[:3].casefold() in _MONTHS:
            year = int(m.group(3)) + (2000 if len(m.group(3)) == 2 else 0)
            return dt.date(year, _MONTHS[m.group(2)[:3].casefold()], int(m.group(1)))
        m = re.search(r"([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text)
        if m and m.group(1)[:3].casefold() in _MONTHS:
            return dt.date(int(m.group(3)), _MONTHS[m.group(1)[:3].casefold()], int(m.group(2)))
    except ValueError:
        return None
    return None


def is_chat(text: str) -> bool:
    """``text`` holds at least :data:`MIN_CHAT_LINES` speaker lines ("Mara: …")."""
    return len(speakers(text)) >= MIN_CHAT_LINES


def chat_days(text: str, start: int = 0, date_order: str | None = None) -> list[tuple[int, dt.date]]:
    """Where each day of a chat begins in ``text[start:]``: ``(offset of the line, day)``
    for the first line of every day after a change of day, in text order; ``[]`` for a
    note that is no chat (:func:`is_chat`). A markdown heading that holds a date ("##
    Session 3 — 8:05 am on 14 August, 2022") begins its day too: a drawer must not run
    from one session into the next, or its relative dates ("Thursday") would be read
    against the day before."""
    body = text[start:]
    if not is_chat(body):
        return []
    out: list[tuple[int, dt.date]] = []
    current = None
    pos = start
    label = None  # the offset of a "Session 4" line just above
    for line in body.split("\n"):
        at, pos = pos, pos + len(line) + 1
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            day = line_day(line.lstrip().lstrip("#").strip(), date_order) if len(line) <= 200 else None
            if day is not None and day != current:
                current = day
                out.append((at, day))
            label = None
            continue
        if len(line) > 400 or _NOT_A_CHAT_LINE.match(line):
            label = None
            continue
        m = _DATED_LINE.match(line) or _DAY_LINE.match(line)
        day = line_day(m.group("date"), date_order) if m is not None else None
        if day is None:
            label = at if _SESSION.match(line) else None
            continue
        if day != current:
            current = day
            out.append((label if label is not None else at, day))
        label = None
    return out


#: A line that is no chat line whatever date it opens with: a list item ("- 2020-04-23",
#: a dated history inside minutes) or a link's definition ("[2026-01-30 meeting]: https://…").
_NOT_A_CHAT_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]|\[[^\]\n]+\]:[ \t])")
_SESSION = re.compile(r"^\W*(?:session|day|part|conversation)\s*#?\d+\W*$", re.I)
