"""The sentences of the top drawers, each with what mining read in it, and the answer
type a question asks for — the material of the direct answer's second step
(:mod:`palace.ask.ladder`).

No spaCy: sentences come from a regex splitter over the drawer's plain text
(:func:`palace.nlp.markup.plain_text_for_ner`, which keeps every offset); the names in a
sentence are the ``mentions`` mining stored for its drawer (with their labels: PERSON,
ORG, GPE, LOC, FAC, NORP, EVENT, PRODUCT, WORK_OF_ART, LAW), its dates the
``date_mentions`` (each with its interval), numbers and amounts a regex (:data:`NUMBER`),
and design records' numbers ("ADR 36") another (:data:`DOCUMENT`).

Answer types (:func:`answer_type`), from the question's first words: ``who``/``whom``/
``whose`` → a person or an organisation; ``when``/``what year`` → a date; ``where`` → a
place (GPE, LOC, FAC); ``how many``/``how much`` → a number or an amount; ``which``/
``what`` NOUN → the kinds of names that noun takes (:data:`NOUN_TYPES`: a team, party or
league is an ORG, a city a GPE, a person a PERSON), else any name the question does not
itself hold; anything else (why, how, what did …) none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from palace.nlp.chats import line_day
from palace.nlp.lines import speakers
from palace.nlp.markup import plain_text_for_ner
from palace.store import search

#: A sentence ends at ., ! or ? before a capital, a digit or a quote, or at a line break.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“(\[]?[A-Z0-9])|\n+")
#: Words whose full stop ends no sentence ("Maj. George Peter", "St. Louis", "U.S. Army").
ABBREVIATIONS = frozenset("""mr mrs ms dr st jr sr mt ft gen col lt maj capt cpt sgt adm cmdr gov sen rep rev
prof no vol inc ltd co corp bros dept est approx vs etc jan feb mar apr jun jul aug sep sept oct nov dec""".split())
#: A number or an amount: "$100k", "4,500 USD", "240,000", "12 days", "3rd", "1.5 million".
NUMBER = re.compile(r"(?:[$€£]\s?)?\b\d[\d,.]*(?:\s?(?:k|m|bn|million|billion|thousand|hundred|%|percent))?\b"
                    r"(?:\s?(?:USD|EUR|GBP|dollars|euros))?", re.IGNORECASE)
#: A year on its own, 1000–2099, read as that year (``in 1811``; ``1811–1827`` as two years).
YEAR = re.compile(r"(?<![\d,.$€£/-])(?:1[0-9]{3}|20[0-9]{2})(?![\d,]|\.\d|%)")
#: Two years as one span: "1983–1988", "1990-95", "from 1811 to 1827", "between 1701 and 1714".
YEAR_RANGE = re.compile(r"(?:\bfrom\s+|\bbetween\s+)?(?<![\d,.$€£/-])(1[0-9]{3}|20[0-9]{2})\s*(?:[–—-]|\s(?:to|until|and)\s)"
                        r"\s*(1[0-9]{3}|20[0-9]{2}|[0-9]{2})(?![\d,]|\.\d|%)")
#: A design record's number in a sentence: "ADR 36", "PEP 3333", "KEP-1022" (label ``DOCUMENT``).
DOCUMENT = re.compile(r"\b(?:KEP|ADR|RFC|PEP|RFD|JEP|MIP|BIP|EIP|KIP|FLIP|TEP|DEP)[\s#-]*\d{1,5}\b")
#: The labels of each answer type.
TYPE_LABELS = {
    "person": ("PERSON", "ORG", "NORP"),
    "date": ("DATE",),
    "place": ("GPE", "LOC", "FAC"),
    "number": ("NUMBER",),
    "name": ("PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW"),
}
#: What a "which/what NOUN" question asks for, by the noun's last word.
NOUN_TYPES = {
    "team": "org", "club": "org", "party": "org", "league": "org", "company": "org", "organization": "org",
    "organisation": "org", "university": "org", "school": "org", "college": "org", "employer": "org",
    "label": "org", "band": "org", "municipality": "org", "council": "org", "department": "org",
    "government": "org", "ministry": "org", "brigade": "org", "division": "org", "regiment": "org",
    "unit": "org", "station": "org", "channel": "org", "publisher": "org", "bank": "org", "group": "org", "firm": "org", "agency": "org", "network": "org", "newspaper": "org",
    "city": "place", "country": "place", "town": "place", "state": "place", "place": "place",
    "location": "place", "venue": "place", "stadium": "place", "arena": "place", "park": "place", "capital": "place", "region": "place",
    "person": "person", "player": "person", "coach": "person", "manager": "person", "leader": "person",
    "chairman": "person", "chair": "person", "president": "person", "owner": "person", "spouse": "person",
    "wife": "person", "husband": "person", "ceo": "person", "director": "person", "head": "person",
    "year": "date", "date": "date", "day": "date", "month": "date",
    "amount": "number", "number": "number", "sum": "number", "budget": "number", "price": "number",
}
_ORG = ("ORG", "FAC", "GPE")
#: Nouns of :data:`NOUN_TYPES` that say nothing of the answer's kind in "what is the X of
#: …" with nothing before them ("the state of the project", "the group of …"; "the home
#: state of X" asks for a place).
_VAGUE_NOUNS = frozenset("state unit group division station channel network department government".split())
_AUX_WORDS = frozenset("is was are were did does do has had have will would can could should may might".split())
_TYPE_OF_KIND = {"org": _ORG, "place": TYPE_LABELS["place"], "person": ("PERSON",), "date": ("DATE",),
                 "number": ("NUMBER",)}


def answer_type(question: str) -> tuple[str, tuple[str, ...]]:
    """``(type, labels)`` of what ``question`` asks for (see the module docstring):
    ``("person", ("PERSON", "ORG", "NORP"))`` for "who coached …", ``("", ())`` when its
    words name no type."""
    text = " " + re.sub(r"[^\w\s'$]", " ", question.lower()) + " "
    if re.search(r"^\s*(?:and |so |then )?(?:who|whom|whose)\b|\b(?:had|was|is) (?:what|which) person\b"
                 r"|\bby whom\b", text):
        return "person", TYPE_LABELS["person"]
    if re.search(r"^\s*(?:since )?when\b|\bwhat (?:year|date|day|month|time)\b|\bin which year\b", text):
        return "date", TYPE_LABELS["date"]
    if re.search(r"^\s*where\b|\bin (?:what|which) (?:city|country|town|place|state)\b"
                 r"|\bhome (?:field|ground|arena|park|venue|stadium)\b", text):
        return "place", TYPE_LABELS["place"]
    if re.search(r"\bhow (?:many|much)\b|\bwhat (?:amount|number|sum|percentage)\b", text):
        return "number", TYPE_LABELS["number"]
    found = re.search(r"\b(?:which|what)\s+((?:[a-z]+\s+){0,3})", text)
    if found:
        words = found.group(1).split()
        rest = text[found.end(0) - len(found.group(1)):]
        named = re.match(r"(?:is|was|were|are) (?:the )?(?:(?:name|title) of (?:the )?)?(?:[a-z]+ ){0,2}?([a-z]+) (?:of|who|that)\b",
                         rest)
        bare = named is not None and rest[:named.start(1)].split()[-1:] in (["the"], ["is"], ["was"], ["were"], ["are"])
        if named and not (bare and named.group(1) in _VAGUE_NOUNS) and (
                NOUN_TYPES.get(named.group(1)) or NOUN_TYPES.get(named.group(1).rstrip("s"))):
            kind = NOUN_TYPES.get(named.group(1)) or NOUN_TYPES[named.group(1).rstrip("s")]  # "what was the President of X"
            return kind, _TYPE_OF_KIND[kind]
        if words and words[0] in _AUX_WORDS:  # "what was X called": no noun to read
            return "", ()
        for word in words:
            kind = NOUN_TYPES.get(word) or NOUN_TYPES.get(word.rstrip("s"))
            if kind:
                return kind, _TYPE_OF_KIND[kind]
            if word in _AUX_WORDS:
                break
        if words and words[0] not in ("thing", "things", "happened", "about", "else"):
            return "name", TYPE_LABELS["name"]
    return "", ()


@dataclass(frozen=True)
class Mark:
    """A span mining read in a sentence: ``[start, end)`` offsets into the drawer's text,
    the words, the ``label`` (a recogniser's, ``DATE`` for a date, ``NUMBER`` for a
    number), the entity (0 when none) and, for a date, its interval ``[day, until)``."""

    start: int
    end: int
    surface: str
    label: str
    entity_id: int = 0
    day: str = ""
    until: str = ""


@dataclass(frozen=True)
class Sentence:
    """One sentence of a ranked drawer: the drawer, its fused ``rank`` (1 = best), where
    it is (``path`` in ``wing``, 1-based ``line``), its ``[start, end)`` offsets into the
    drawer's text and its plain ``text`` (markup as spaces: ``text[i]`` is the drawer's
    character ``start + i``); the drawer's ``title``, own ``date`` (ISO or
    None), the ``marks`` (names, dates, numbers) inside the sentence and the ``speaker``
    of its line ('' when none: :func:`palace.nlp.lines.speakers`)."""

    drawer_id: str
    rank: int
    path: str
    wing: str
    line: int
    start: int
    end: int
    text: str
    title: str
    date: str | None
    marks: tuple[Mark, ...]
    #: who speaks the line the sentence is on, in a chat or minutes ("Daniel" of "Daniel:
    #: I do. Picked him up last Saturday."): the one its "I" and its verbs are about
    speaker: str = ""


def split(plain: str) -> list[tuple[int, int]]:
    """``[(start, end)]`` of the sentences of ``plain`` (stripped of surrounding space;
    empty ones dropped). A full stop after an abbreviation (:data:`ABBREVIATIONS`) or a
    single capital ("George W. Bush") ends no sentence."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for boundary in [*_BOUNDARY.finditer(plain), None]:
        end = boundary.start() if boundary else len(plain)
        if boundary is not None and boundary.group(0).strip(" \t") == boundary.group(0).strip():
            before = re.search(r"(\w+)[.!?][\"”’)]*$", plain[cursor:end + 1].rstrip())
            if before and (before.group(1).lower() in ABBREVIATIONS or re.fullmatch(r"[A-Z]", before.group(1))):
                continue
        while cursor < end and plain[cursor].isspace():
            cursor += 1
        stop = end
        while stop > cursor and plain[stop - 1].isspace():
            stop -= 1
        if stop > cursor:
            spans.append((cursor, stop))
        cursor = boundary.end() if boundary else len(plain)
    return spans


def speaker_of(talk: tuple[tuple[int, int, str], ...], start: int) -> str:
    """Who speaks the line holding offset ``start``, of the chat lines ``talk``
    (:func:`palace.nlp.lines.speakers`: "Daniel: …", "[10:02] Mara Lind: …"; a line's
    label such as "Status:" or "Decision:" is no speaker); '' for none."""
    return next((name for first, last, name in talk if first <= start < last), "")


def _label_line(text: str, plain: str, start: int, end: int) -> bool:
    """Whether the sentence ``plain[start:end]`` is a heading or a chat's day line, which
    title what follows and state nothing ("## Session 3 — 9:05 pm on 21 March, 2023",
    "--- Monday, 8 May 2023 ---"): never an answer."""
    line = text.rfind("\n", 0, start) + 1
    if not text[line:start].strip(" \t#>*-") and text[line:end].lstrip(" \t>").startswith("#"):
        return True
    sentence = plain[start:end]
    words = {w.strip(".,:;!?").lower() for w in sentence.split()}
    return len(words) <= 10 and not words & _STATEMENT_WORDS and _DAY_LABEL.search(sentence) is not None \
        and line_day(sentence) is not None


#: Words that make a dated line a statement, not a day's label ("We met at 9:30 on 8 May").
_STATEMENT_WORDS = frozenset("""i we you he she they it is was are were be been has have had will do did does
met moved started joined left signed said called""".split())


#: What a chat's day line holds besides its date: a session's number or a clock time.
_DAY_LABEL = re.compile(r"\b(?:session|conversation|part|day)\s*#?\d+\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE)


def sentences_of(conn, ranked: list[str], *, limit: int = 80) -> list[Sentence]:
    """The sentences of the drawers ``ranked`` (ids, best first), in rank order, at most
    ``limit``, each with the names, dates and numbers inside it."""
    if not ranked:
        return []
    rows = search.hit_rows(conn, ranked)
    names: dict[str, list] = {}
    for row in search.name_marks(conn, ranked):
        names.setdefault(row["drawer_id"], []).append(Mark(row["char_start"], row["char_end"], row["surface"],
                                                           row["label"], row["entity_id"]))
    for row in search.date_marks(conn, ranked):
        names.setdefault(row["drawer_id"], []).append(Mark(row["char_start"], row["char_end"], row["surface"],
                                                           "DATE", 0, row["start"], row["end"]))
    out: list[Sentence] = []
    for rank, drawer in enumerate(ranked, start=1):
        row = rows.get(drawer)
        if row is None:
            continue
        text = row["text"]
        plain = plain_text_for_ner(text)
        marks = sorted(names.get(drawer, ()), key=lambda m: m.start)
        talk = speakers(plain)
        date = None if (row["doc_date_source"] or "") == "mtime" and row["date_start"] == row["doc_date"] \
            else row["date_start"]
        for start, end in split(plain):
            if _label_line(text, plain, start, end):
                continue
            inside = [m for m in marks if start <= m.start and m.end <= end]
            taken = [(m.start, m.end) for m in inside if m.label == "DATE"]
            for record in DOCUMENT.finditer(plain, start, end):  # "superseded by ADR 36"; before the years: "RFC 2094"
                inside = [m for m in inside if not (record.start() <= m.start and m.end <= record.end())]
                inside.append(Mark(record.start(), record.end(), record.group(0), "DOCUMENT"))
                taken.append((record.start(), record.end()))
            for years in YEAR_RANGE.finditer(plain, start, end):  # "(1983–1988)", "from 1811 to 1827"
                if not any(s <= years.start() < e for s, e in taken):
                    first, last = int(years.group(1)), int(years.group(2))
                    last = last if last >= 100 else first - first % 100 + last
                    if first <= last:
                        inside.append(Mark(years.start(), years.end(), years.group(0), "DATE", 0,
                                           f"{first:04d}-01-01", f"{last + 1:04d}-01-01"))
                        taken.append((years.start(), years.end()))
            for year in YEAR.finditer(plain, start, end):  # "in 1811": mining reads bare years from 1900 only
                if not any(s <= year.start() < e for s, e in taken):
                    y = int(year.group(0))
                    inside.append(Mark(year.start(), year.end(), year.group(0), "DATE", 0, f"{y:04d}-01-01",
                                       f"{y + 1:04d}-01-01"))
                    taken.append((year.start(), year.end()))
            for number in NUMBER.finditer(plain, start, end):
                if not any(s <= number.start() < e for s, e in taken) and re.search(r"\d", number.group(0)):
                    inside.append(Mark(number.start(), number.end(), number.group(0), "NUMBER"))
            out.append(Sentence(drawer, rank, row["path"], row["wing"], row["line_start"] + text.count("\n", 0, start),
                                start, end, plain[start:end], row["title"] or "", date,
                                tuple(sorted(inside, key=lambda m: m.start)), speaker_of(talk, start)))
            if len(out) >= limit:
                return out
    return out
