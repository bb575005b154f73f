"""Design records as entities: which document a note is, and what it says of its state.

A design record — an ADR, an RFC, a KEP, a PEP, a numbered decision — is an entity of
type ``DOCUMENT`` named by its kind and number ("ADR 21", "RFC 2094", "PEP 572",
"KEP-2377": the Kubernetes form keeps its hyphen), with its title as an alias.
:func:`identify` finds the kind and number, in order, in a header field (``PEP: 572``,
front matter ``adr: 21``, ``kep-number``), the title ("ADR 21: Use Postgres",
"KEP-2377: …", "21. Use Postgres" in an ``adr`` folder), the file name
(``pep-0572.rst``, ``0021-use-postgres.md`` in a ``decisions`` folder) and the text
("RFC PR: rust-lang/rfcs#2094").

:func:`document_relations` reads what the record says of itself — the ``status`` and
``supersedes`` facts — from its header fields (``Status: Superseded``,
``Superseded-By: 101``, ``Replaces: 102``, ``* Status: accepted``, front matter
``status:``), its ``## Status`` section (the adr-tools form: "Superseded by [3. Use
Y](0003-use-y.md)"), status lines with or without emoji ("✅ Accepted", "⌛️ Superseded
by ADR 36") and sentences about itself ("This PEP is superseded by PEP 3333", "This
ADR supersedes ADR 21"). Such a fact starts on the day the record gives for that state
(a date on the status line, a ``Resolution:`` field that is a date, a dated history
line naming the state); when it gives none its start is *unknown* — never the record's
creation date: it holds now, and says nothing of a past day.

Pure functions on strings; nothing here knows about files or storage.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from palace.nlp.sentence import Relation

#: The kinds of design record, as written in a name, and the name each is shown with.
KINDS = {
    "adr": "ADR", "rfc": "RFC", "kep": "KEP", "pep": "PEP", "jep": "JEP", "nep": "NEP", "eip": "EIP",
    "bip": "BIP", "kip": "KIP", "flip": "FLIP", "dep": "DEP", "tep": "TEP", "sep": "SEP", "zep": "ZEP",
    "decision": "Decision",
}
#: Folder names that make a numbered note a record of that kind ("decisions/0021-x.md").
FOLDER_KINDS = {
    "adr": "adr", "adrs": "adr", "decisions": "adr", "decision-records": "adr", "architecture-decisions": "adr",
    "architecture-decision-records": "adr", "rfcs": "rfc", "rfc": "rfc", "keps": "kep", "kep": "kep",
    "peps": "pep", "pep": "pep",
}
#: The kinds whose names keep a hyphen ("KEP-2377").
HYPHENATED = frozenset({"kep"})
DOCUMENT_LABEL = "DOCUMENT"
DOCUMENT_CONFIDENCE = 0.9
DOCUMENT_EXTRACTOR_RULE = "document"

_KIND_ALT = "|".join(sorted(KINDS, key=len, reverse=True))
#: A record named in text: "PEP 572", "ADR-0021", "RFC #2094", "KEP-2377", ":pep:`3333`".
_REF_ALT = "|".join(k for k in sorted(KINDS, key=len, reverse=True) if k != "decision")
REFERENCE = re.compile(
    rf"(?<![\w-])(?:(?P<kind>{_REF_ALT.upper()})[ \t]*[-_#]?[ \t]*0*(?P<num>\d{{1,5}})(?![\w-])"
    rf"|:(?P<role>{_REF_ALT}):`(?:[^`<\n]*<)?0*(?P<rnum>\d{{1,5}})(?:#[^`>\n]*)?>?`)")
_NAME = re.compile(rf"^\s*(?P<kind>{_KIND_ALT})[ \t]*[-_#]?[ \t]*0*(?P<num>\d{{1,5}})\s*$", re.I)
_TITLE = re.compile(
    rf"^\s*(?:(?P<kind>{_KIND_ALT})[ \t]*[-_#]?[ \t]*0*(?P<num>\d{{1,5}})|(?P<bare>0*\d{{1,5}}))"
    rf"\s*(?:[:.)–—-]|\s-\s)\s*(?P<title>\S.*?)\s*$", re.I)
_FILE = re.compile(rf"^(?:(?P<kind>{_KIND_ALT})[-_ ]?)?0*(?P<num>\d{{1,5}})(?:[-_ .]|$)", re.I)
_PR_FIELD = re.compile(r"^\W*(?P<kind>rfc|kep|pep|adr)\s*(?:pr|number|no\.?|#)\W*:.*?(?:#|/pull/)0*(?P<num>\d{1,5})",
                       re.I | re.M)

#: Header fields: "Key: value" (RFC 822, continued on indented lines), ":Key: value"
#: (reST field list), "- Key: value" / "* **Key:** value" (markdown bullets).
_FIELD = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+][ \t]+)?(?:\*\*|__)?:?(?P<key>[A-Za-z][\w -]{0,30}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?"
    r"(?:[ \t]+(?P<value>\S.*?))?[ \t]*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")

#: Field keys, case-folded with "-"/"_" as spaces.
STATUS_KEYS = frozenset({"status", "state", "decision status", "adr status", "rfc status", "kep status"})
SUPERSEDED_BY_KEYS = frozenset({"superseded by", "replaced by", "obsoleted by", "superseded"})
REPLACES_KEYS = frozenset({"replaces", "supersedes", "obsoletes"})
NUMBER_KEYS = frozenset({"number", "id", "kep number", "adr number", "rfc number", "pep number", "no", "kep"})
TITLE_KEYS = frozenset({"title", "name"})
RESOLUTION_KEYS = frozenset({"resolution", "decision date", "accepted", "accepted on", "status date",
                             "last status change", "date accepted"})

#: The states a record is in, as written; each read as the status value on the right.
STATES = {
    "draft": "draft", "proposed": "proposed", "proposal": "proposed", "accepted": "accepted", "approved": "approved",
    "final": "final", "active": "active", "rejected": "rejected", "declined": "rejected", "withdrawn": "withdrawn",
    "deferred": "deferred", "postponed": "postponed", "superseded": "superseded", "replaced": "superseded",
    "obsolete": "obsolete", "obsoleted": "obsolete", "deprecated": "deprecated", "provisional": "provisional",
    "implementable": "implementable", "implemented": "implemented", "implementing": "implementing",
    "in progress": "in progress", "in review": "in review", "under review": "under review",
    "open": "open", "closed": "closed", "merged": "merged", "postponed.": "postponed", "abandoned": "abandoned",
    "experimental": "experimental", "stable": "stable", "living": "living", "retired": "retired",
    "amended": "amended", "pending": "pending", "completed": "completed", "complete": "completed",
}
_STATE_RX = re.compile(r"(?<![\w-])(" + "|".join(sorted((re.escape(s) for s in STATES), key=len, reverse=True))
                       + r")(?![\w-])", re.I)
_SUPERSEDED_BY = re.compile(r"\b(?:superseded|replaced|obsoleted)\s+(?:by|with)\b", re.I)
_SUPERSEDES = re.compile(r"\b(?:supersedes|replaces|obsoletes)\b", re.I)
_SELF_SENTENCE = re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=\n))\s*(?:[*_]+)?(?P<self>(?:this|the present)\s+(?:pep|adr|rfc|kep|document|proposal|"
    r"decision|record))\b[^.\n]{0,40}?\b(?P<verb>(?:is|was|has\s+been|had\s+been|now)\s+(?:(?:now|formally|"
    r"officially)\s+)?(?:superseded|replaced|obsoleted)\s+(?:by|with)|supersedes|replaces|obsoletes)\b"
    r"(?P<rest>[^\n]{0,200})", re.I)
_LINK = re.compile(r"\[(?P<label>[^\]\n]*)\]\((?P<target>[^)\s]*)[^)]*\)")
_BARE_NUMBER = re.compile(r"(?<![\w.#/-])0*(?P<num>\d{1,5})(?![\w/-]|\.\d)")
_EMOJI = re.compile("[\u2300-\u23ff\u2600-\u27bf\U0001f000-\U0001faff\ufe0f\u200d\u2b00-\u2bff]")
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})[- ]([A-Za-z]{3,9})[- ](\d{4})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTHS = {m: i for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}


@dataclass(frozen=True)
class Document:
    """A design record: ``kind`` (``"pep"``, ``"adr"``…), ``number`` (an int, leading
    zeros dropped), ``title`` (without its number; "" when the record gives none) and
    ``source``, where the number was found (``field``, ``title``, ``file name``,
    ``text``)."""

    kind: str
    number: int
    title: str = ""
    source: str = ""

    @property
    def name(self) -> str:
        """The entity's name: "PEP 572", "ADR 21", "KEP-2377"."""
        return document_name(self.kind, self.number)

    @property
    def aliases(self) -> tuple[str, ...]:
        """Other names of the record: the title, "PEP 572: Assignment Expressions",
        "PEP-572" (or "KEP 2377") and the zero-padded form "PEP 0572"."""
        label = KINDS[self.kind]
        forms = [f"{label}-{self.number}", f"{label} {self.number}", f"{label}-{self.number:04d}",
                 f"{label} {self.number:04d}"]
        if self.title:
            forms += [self.title, f"{self.name}: {self.title}"]
        return tuple(dict.fromkeys(f for f in forms if f != self.name))


def document_name(kind: str, number: int) -> str:
    """The name of record ``number`` of ``kind`` ("pep", 572 → "PEP 572")."""
    label = KINDS[kind.casefold()]
    return f"{label}-{number}" if kind.casefold() in HYPHENATED else f"{label} {number}"


def canonical_name(name: str) -> str | None:
    """The record a name stands for, as its entity name ("pep-0572" → "PEP 572",
    "ADR 021" → "ADR 21", "kep 2377" → "KEP-2377"); None when ``name`` names no record."""
    m = _NAME.match(name)
    if m is None or (m.group("kind").casefold() == "decision" and not name.strip()[:1].isupper()):
        return None
    return document_name(m.group("kind"), int(m.group("num")))


def references(text: str, default_kind: str | None = None) -> list[tuple[int, int, str]]:
    """The records ``text`` names, as ``(start, end, name)`` in text order: "PEP 3333",
    ":pep:`3333`", "ADR-0036", a markdown link to a record's file ("[3. Use
    Y](0003-use-y.md)"), and — when ``default_kind`` is given (a field or status line of
    a record of that kind) — bare numbers ("Superseded by 036", "Replaces: 101, 102")."""
    out: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in REFERENCE.finditer(text):
        kind, num = (m.group("kind"), m.group("num")) if m.group("kind") else (m.group("role"), m.group("rnum"))
        out.append((m.start(), m.end(), document_name(kind, int(num))))
        taken.append((m.start(), m.end()))
    if default_kind is None:
        return out
    for m in _LINK.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        target = m.group("target").rsplit("/", 1)[-1]
        found = _FILE.match(target) or _TITLE.match(m.group("label"))
        if found is not None and (found.group("num") or found.groupdict().get("bare")):
            kind = found.group("kind") or default_kind
            number = int(found.group("num") or found.group("bare"))
            out.append((m.start(), m.end(), document_name(kind, number)))
            taken.append((m.start(), m.end()))
    for m in _BARE_NUMBER.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        out.append((m.start(), m.end(), document_name(default_kind, int(m.group("num")))))
    return sorted(out)


# ------------------------------------------------------------------------ identity

def header_fields(body: str, lines: int = 40) -> list[tuple[str, str, int]]:
    """The header fields of a record: ``(key, value, char offset of the line)`` for each
    ``Key: value`` line of the block of fields at the top of ``body`` (below a title; a
    blank line ends the block unless a field follows it), a value continued on indented
    lines joined to it. Keys are case-folded with ``-`` and ``_`` read as spaces."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    blank = False
    for line in body.split("\n")[:lines]:
        at, pos = pos, pos + len(line) + 1
        if not line.strip():
            blank = True
            continue
        if out and not blank and line[:1] in " \t" and not _BULLET.match(line):
            key, value, first = out[-1]
            out[-1] = (key, f"{value} {line.strip()}".strip(), first)
            continue
        m = _FIELD.match(line)
        if m:
            key = " ".join(m.group("key").replace("-", " ").replace("_", " ").casefold().split())
            out.append((key, (m.group("value") or "").strip(), at))
            blank = False
            continue
        if out or not _title_line(line):
            break
    return out


_BULLET = re.compile(r"[ \t]*[-*+][ \t]")


def _title_line(line: str) -> bool:
    """A line that may stand above a record's fields: its title (reST or markdown)."""
    return bool(_HEADING.match(line)) or (len(line.split()) <= 14 and not line.rstrip().endswith((".", ":")))


def _folder_kind(folders: Iterable[str]) -> str | None:
    for folder in folders:
        kind = FOLDER_KINDS.get(folder.casefold())
        if kind is not None:
            return kind
    return None


def identify(file_name: str, folders: Iterable[str], title: str, metadata: dict[str, Any] | None,
             body: str) -> Document | None:
    """The record a note is, or None. ``file_name`` the note's base name; ``folders``
    the folders it sits in, innermost first (at most a few: "decisions", "adr");
    ``title`` its title as read (front matter, first heading, file stem); ``metadata``
    its front matter; ``body`` its text after the front matter. See the module
    docstring for the order of the evidence."""
    metadata = metadata if isinstance(metadata, dict) else {}
    folder_kind = _folder_kind(folders)
    stem = file_name.rsplit(".", 1)[0]
    file_match = _FILE.match(stem)
    file_kind = (file_match.group("kind") or folder_kind) if file_match else None
    fields = header_fields(body)
    field_title = next((v for k, v, _ in fields if k in TITLE_KEYS and v), "")
    fm_title = str(metadata.get("title") or "").strip()
    # 1. a header field or front-matter field naming the number
    for key, value in [*((str(k), str(v)) for k, v in metadata.items() if isinstance(v, (str, int))),
                       *((k, v) for k, v, _ in fields)]:
        norm = " ".join(key.replace("-", " ").replace("_", " ").casefold().split())
        kind = norm if norm in KINDS and norm != "decision" else norm.split()[0] if norm.split()[0] in KINDS and norm.endswith("number") else None
        if kind is None and norm in NUMBER_KEYS:
            kind = folder_kind or file_kind
        number = re.fullmatch(r"\s*(?:[A-Za-z]+[ -]?)?0*(\d{1,5})\s*", value)
        if kind is not None and number:
            return Document(kind, int(number.group(1)), _clean_title(field_title or fm_title or title, kind), "field")
    # 2. the title
    for candidate in (fm_title, title, field_title):
        m = _TITLE.match(candidate or "") if candidate else None
        if m is None and candidate:
            named = _NAME.match(candidate)
            if named is not None and named.group("kind").casefold() != "decision":
                return Document(named.group("kind").casefold(), int(named.group("num")), _clean_title(field_title, named.group("kind").casefold()), "title")
            continue
        if m is None:
            continue
        kind = (m.group("kind") or "").casefold() or folder_kind or (file_kind if file_match and file_match.group("num") and int(file_match.group("num")) == int(m.group("bare")) else None)
        if kind is None or (kind == "decision" and not candidate.strip()[:1].isupper()):
            continue
        return Document(kind, int(m.group("num") or m.group("bare")), _clean_title(m.group("title"), kind), "title")
    # 3. the file name
    if file_match is not None and file_kind is not None and (file_match.group("kind") or folder_kind):
        return Document(file_kind.casefold(), int(file_match.group("num")),
                        _clean_title(field_title or fm_title or (title if title != stem else ""), file_kind), "file name")
    # 4. the text: "RFC PR: rust-lang/rfcs#2094"
    m = _PR_FIELD.search("\n".join(body.split("\n")[:20]))
    if m is not None and int(m.group("num")):
        feature = next((v for k, v, _ in fields if k == "feature name" and re.fullmatch(r"`?[\w-]+`?", v)), "")
        return Document(m.group("kind").casefold(), int(m.group("num")),
                        _clean_title(fm_title or feature.strip("`") or title, m.group("kind")), "text")
    return None


def _clean_title(title: str, kind: str) -> str:
    """A record's title without its number ("ADR 21: Use X" → "Use X")."""
    title = " ".join((title or "").split()).strip("# ")
    m = _TITLE.match(title)
    if m is not None and (m.group("kind") or m.group("bare")):
        title = m.group("title")
    if _NAME.match(title):
        return ""
    return title[:200]


# ------------------------------------------------------------------------ state

def parse_day(text: str) -> dt.date | None:
    """A full calendar day written in ``text`` (``2021-03-04``, ``04-Mar-2021``,
    ``4 March 2021``, ``March 4, 2021``), else None."""
    from palace.nlp.dates import _full_date

    m = _ISO.search(text)
    if m:
        try:
            return dt.date(*map(int, m.groups()))
        except ValueError:
            pass
    m = _DAY_MONTH_YEAR.search(text)
    if m and m.group(2)[:3].casefold() in _MONTHS:
        try:
            return dt.date(int(m.group(3)), _MONTHS[m.group(2)[:3].casefold()], int(m.group(1)))
        except ValueError:
            pass
    return _full_date(text)


@dataclass(frozen=True)
class StatusLine:
    """What one status line says: ``status`` (a value of :data:`STATES`, or None),
    ``superseded_by`` and ``supersedes`` (record names) and the ``day`` it gives."""

    status: str | None
    superseded_by: tuple[str, ...]
    supersedes: tuple[str, ...]
    day: dt.date | None


def read_status(text: str, kind: str) -> StatusLine:
    """Read a status line or field value of a record of ``kind``: "Accepted",
    "✅ Accepted (2021-03-04)", "⌛️ Superseded by [ADR-0036](0036-x.md)", "Accepted;
    supersedes 21", "Superseded by 036". Markup and emoji are dropped first."""
    if "|" in text or re.search(r"\[\s*(?:proposed|draft)\s*[|,/]", text, re.I):  # a template's choices
        return StatusLine(None, (), (), None)
    plain = _EMOJI.sub(" ", text)
    plain = re.sub(r"\*\*|__|`(?!:)", " ", plain)
    by, sup = [], []
    status = None
    m = _SUPERSEDED_BY.search(plain)
    if m is not None:
        status = "superseded"
        rest = plain[m.end():]
        stop = _SUPERSEDES.search(rest)
        by = [name for _, _, name in references(rest[:stop.start()] if stop else rest, kind)]
    m2 = _SUPERSEDES.search(plain)
    if m2 is not None:
        rest = plain[m2.end():]
        stop = _SUPERSEDED_BY.search(rest)
        sup = [name for _, _, name in references(rest[:stop.start()] if stop else rest, kind)]
    if status is None:
        head = plain
        for rx in (_SUPERSEDED_BY, _SUPERSEDES):
            found = rx.search(head)
            if found is not None:
                head = head[:found.start()]
        state = _STATE_RX.search(head)
        if state is not None and len(head[:state.start()].split()) <= 3:
            status = STATES[state.group(1).casefold()]
    return StatusLine(status, tuple(dict.fromkeys(by)), tuple(dict.fromkeys(sup)), parse_day(plain))


def status_section(body: str) -> tuple[str, int] | None:
    """The text of a ``## Status`` section (adr-tools, MADR) and its offset in ``body``:
    its lines up to the next heading."""
    lines = body.split("\n")
    pos = 0
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        heading = m.group("title") if m else (line if i + 1 < len(lines) and _ADORNMENT.match(lines[i + 1]) and line.strip() else None)
        if heading is not None and heading.strip().strip("*_:").casefold() in ("status", "decision status"):
            start = pos + len(line) + 1
            end = start
            for later in lines[i + 1:]:
                if _HEADING.match(later) or (end > start and _ADORNMENT.match(later) and not later.startswith(line.strip()[:1] * 3)):
                    break
                end += len(later) + 1
            text = body[start:end]
            if _ADORNMENT.match(text.split("\n", 1)[0] or ""):
                cut = text.find("\n") + 1
                return text[cut:], start + cut
            return text, start
        pos += len(line) + 1
    return None


_HISTORY_LINE = re.compile(r"^\W{0,4}(?P<day>\d{4}-\d{2}-\d{2}|\d{1,2}[- ][A-Za-z]{3,9}[- ]\d{4})\W{1,4}(?P<text>.+)$",
                           re.M)


def history_days(body: str) -> dict[str, dt.date]:
    """The day a record's dated history lines give each state ("- 2021-01-05: KEP
    marked implementable", "2019-03-04 — Accepted"): state → the latest such day."""
    out: dict[str, dt.date] = {}
    for m in _HISTORY_LINE.finditer(body):
        day = parse_day(m.group("day"))
        state = _STATE_RX.search(m.group("text"))
        if day is not None and state is not None:
            value = STATES[state.group(1).casefold()]
            if value not in out or out[value] < day:
                out[value] = day
    return out


def document_relations(document: Document, body: str, metadata: dict[str, Any] | None) -> list[Relation]:
    """The ``status`` and ``supersedes`` facts a record states of itself (see the
    module docstring). Each cites its line (``quote``) and carries its own valid time
    (``stated``): the day the record gives for the state, or ``(None, None)`` — start
    unknown. One status: the header's or front matter's first, else the status
    section's, else a status line's."""
    name = document.name
    resolution = next((parse_day(v) for k, v, _ in header_fields(body) if k in RESOLUTION_KEYS and parse_day(v)),
                      None)
    status: tuple[str, str, dt.date | None] | None = None  # (value, quote, day)
    by: dict[str, str] = {}
    sup: dict[str, str] = {}
    for line, quote in _statements(document, body, metadata if isinstance(metadata, dict) else {}):
        if line.status is not None and status is None:
            status = (line.status, quote, line.day)
        for other in line.superseded_by:
            by.setdefault(other, quote)
        for other in line.supersedes:
            sup.setdefault(other, quote)
    out: list[Relation] = []
    if status is not None:
        value, quote, day = status
        day = day or history_days(body).get(value) or (resolution if value not in ("draft", "proposed") else None)
        out.append(_relation("status", name, None, value, quote, day, "document-status"))
    for other, quote in by.items():
        if other != name:
            out.append(_relation("supersedes", other, name, None, quote, None, "document-superseded-by"))
    for other, quote in sup.items():
        if other != name:
            out.append(_relation("supersedes", name, other, None, quote, None, "document-supersedes"))
    return out


def _statements(document: Document, body: str, metadata: dict[str, Any]) -> Iterator[tuple[StatusLine, str]]:
    """What the record says of its state, each with the line that says it, in order of
    authority: front matter, header fields, the status section, status lines, sentences
    about itself."""
    kind = document.kind

    def field(norm: str, text: str) -> StatusLine | None:
        if norm in STATUS_KEYS:
            return read_status(text, kind)
        if norm in SUPERSEDED_BY_KEYS:
            return StatusLine(None, tuple(n for _, _, n in references(text, kind)), (), None)
        if norm in REPLACES_KEYS:
            return StatusLine(None, (), tuple(n for _, _, n in references(text, kind)), None)
        return None

    for key, value in metadata.items():
        if not isinstance(value, (str, int, list)) or isinstance(value, bool):
            continue
        text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        line = field(" ".join(str(key).replace("-", " ").replace("_", " ").casefold().split()), text)
        if line is not None:
            yield line, f"{key}: {text}"
    for key, value, at in header_fields(body):
        line = field(key, value)
        if line is not None:
            yield line, " ".join(body[at:body.find("\n", at) if "\n" in body[at:] else len(body)].split())
    section = status_section(body)
    if section is not None:
        for text in section[0].split("\n"):
            if text.strip():
                yield read_status(text.strip(" -*>"), kind), " ".join(text.split())
    for m in _STATUS_LINE.finditer(body[:3000]):
        yield read_status(m.group("text"), kind), " ".join(m.group(0).split())
    for m in _SELF_SENTENCE.finditer(body):
        rest = m.group("rest")
        names = [n for _, _, n in references(rest.split(".")[0] if "." in rest else rest) if n != document.name]
        if not names:
            continue
        quote = " ".join(m.group(0).split())
        if re.search(r"supersedes|replaces|obsoletes", m.group("verb"), re.I):
            yield StatusLine(None, (), (names[0],), None), quote
        else:
            yield StatusLine("superseded", (names[0],), (), None), quote


#: A status line of its own near the top: "Status: ✅ Accepted", "✅ Accepted",
#: "⌛️ Superseded by ADR 36" (an emoji, then a state).
_STATUS_LINE = re.compile(
    r"^[ \t>*-]*(?:[\u2300-\u23ff\u2600-\u27bf\U0001f000-\U0001faff\u2b00-\u2bff]\ufe0f?[ \t]*)+(?P<text>"
    r"(?:" + "|".join(sorted((re.escape(s) for s in STATES if " " not in s), key=len, reverse=True))
    + r")\b[^\n]{0,160})$", re.M | re.I)


def _relation(predicate: str, subject: str, obj: str | None, value: str | None, quote: str,
              day: dt.date | None, rule: str) -> Relation:
    return Relation(predicate, None, None, value, 0, 0, 0, 0, -1, rule, "stated", DOCUMENT_CONFIDENCE,
                    subject_name=subject, subject_label=DOCUMENT_LABEL,
                    object_name=obj, object_label=DOCUMENT_LABEL if obj else None, quote=quote,
                    stated_start=(day, "day" if day else None))


def note_relations(reader, metadata: dict[str, Any] | None, title: str, document: Document | None,
                   body: str) -> list[Relation]:
    """The facts a note states of itself, cited by their field or line: its front
    matter's fields read by ``reader`` (a :class:`palace.nlp.lines.LineReader`), about
    its title — or, for a design record, about the record ("PEP 572"), whose status and
    supersession :func:`document_relations` reads (the front matter's ``status:`` among
    them, so it is read once)."""
    if document is None:
        return reader.front_matter(metadata or {}, title)
    own = {k: v for k, v in (metadata or {}).items()
           if " ".join(str(k).replace("-", " ").replace("_", " ").casefold().split())
           not in STATUS_KEYS | SUPERSEDED_BY_KEYS | REPLACES_KEYS}
    return [*reader.front_matter(own, document.name), *document_relations(document, body, metadata)]
