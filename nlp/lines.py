"""The lines people write: key–value fields ("Status: blocked", "- Owner: Ana Lima",
"| Plan | Pro |"), the speakers of chat lines ("[10:02] Mara Lind: …") and the fields of a
note's front matter. Regular expressions over the raw text, read through the
registry's relational nouns: no parse needed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from palace.nlp.rules import RelationRules, RelationalNoun
from palace.nlp.sentence import Context, Relation, VALUE_CONFIDENCE

if TYPE_CHECKING:
    from palace.nlp.names import EntityMention


# lines people write: key–value fields, chat lines, front matter ------------------------

_TABLE_ROW = re.compile(r"^[ \t]*\|[ \t]*(?P<key>[A-Za-z][A-Za-z /&'’-]{0,30}?)[ \t]*\|[ \t]*(?P<value>[^|\n]{1,150}?)[ \t]*\|[ \t]*$", re.M)
_KEY_VALUE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?P<key>[A-Za-z][A-Za-z /&'’-]{0,30}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?"
    r"[ \t]*(?P<value>\S[^\n]{0,150}?)[ \t]*$", re.M)
_SPEAKER = re.compile(
    r"^[ \t]*(?:[-*+>][ \t]+)?"
    r"(?:(?:\[[^\]\n]{1,40}\]|\(?\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[ \t]*[AaPp]\.?[Mm]\.?)?\)?"
    r"|\d{1,2}/\d{1,2}/\d{2,4},?[ \t]*\d{1,2}:\d{2}(?:[ \t]*[AaPp][Mm])?)[ \t]*[-–—,]?[ \t]*)?"
    r"(?:<(?P<nick>[^>\s]{1,30})>[ \t]+\S|(?:\*\*|__)?(?P<name>[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*){0,2})"
    r"(?:\*\*|__)?[ \t]*:[ \t]+\S)", re.M)
#: Words before a colon that label a line rather than name a speaker.
LINE_LABELS = frozenset("""
note notes decision decisions action actions action item todo to-do q a agenda summary update updates re subject
from to cc date time when where who what why how attendees present absent apologies minutes next next steps
outcome outcomes result results context background problem proposal question questions answer answers tl;dr
tldr important warning fyi edit ps p.s. source link links ref reference see example examples step steps
goal goals risk risks blocker blockers issue issues topic topics item items discussion follow-up follow up
""".split()) | {"action item", "next steps", "follow up", "to do"}
#: What :mod:`palace.nlp.documents` reads of a design record (with its own valid time).
DOCUMENT_PREDICATES = frozenset({"status", "supersedes"})
MARKUP = re.compile(r"\*\*|__|`|\[\[|\]\]")
_HEADING_LINE = re.compile(r"^[ \t]*#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
#: A list item: "- …", "* …", "1. …".
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?P<item>[^\n]{3,200}?)[ \t]*$", re.M)
#: A year, a year range or a dated range in a list item ("1983–1988", "26 November 1940 –
#: 19 May 1941", "2012–present").
_YEARS = re.compile(r"(?:\b\d{1,2}\s+[A-Z][a-z]+\s+|\b[A-Z][a-z]+\s+(?:\d{1,2},\s+)?)?\b[12]?\d{3}\b"
                    r"(?:\s*[-–—]\s*(?:(?:\d{1,2}\s+)?[A-Z][a-z]+\s+(?:\d{1,2},\s+)?)?(?:[12]?\d{3}\b|\d{2}\b|present\b|now\b))?")
#: The predicates a list of holders under a heading may carry, most specific first.
_HOLDER_PREDICATES = ("coaches", "chairs", "ceo_of", "commands", "leads", "owns", "home_venue")
#: Words that may stand in lower case inside a name ("Pabellón de la Ciudad Deportiva").
_NAME_PARTICLES = frozenset({"de", "del", "della", "di", "da", "dos", "du", "la", "le", "van", "von", "der", "den",
                             "zur", "zu", "y", "of", "the", "and", "&", "bin", "al"})


_TEAM_KINDS = frozenset({"club", "team", "side", "squad", "franchise"})


def _singulars(phrase: str) -> list[str]:
    """``phrase`` and its singular forms ("head coaches" → "head coach", "chairmen" →
    "chairman", "masters-general" → "master-general", "ceos" → "ceo")."""
    words = phrase.split()
    out = [phrase]
    last = words[-1]
    for form in (last[:-3] + "man" if last.endswith("men") else None, last[:-2] if last.endswith(("ches", "shes", "sses")) else None,
                 last[:-3] + "y" if last.endswith("ies") else None, last[:-1] if last.endswith("s") else None,
                 "stadium" if last == "stadia" else None):
        if form:
            out.append(" ".join([*words[:-1], form]))
    if "-" in words[0] and words[0].split("-")[0].endswith("s"):  # "masters-general"
        first, rest = words[0].split("-", 1)
        out.append(" ".join([f"{first[:-1]}-{rest}", *words[1:]]))
    return out


def _names_office(label: str, office: str) -> bool:
    """Whether a list's label names the office ``office`` (the page's topic) in the
    plural: every word of the office's head (before "of"/"to"/"for") begins a word of the
    label ("Permanent Secretaries to the Treasury", "Masters-General of the Ordnance",
    "List of Regius Professors of Civil Law", "commissioners")."""
    head = re.split(r"\s(?:of|to|for)\s", office.casefold(), maxsplit=1)[0].split()
    words = label.split()
    return bool(head) and all(any(w[:max(4, len(h) - 3)] == h[:max(4, len(h) - 3)] for w in words) for h in head[-2:])


def _label_above(text: str, at: int) -> str | None:
    """The label of the list an item at char ``at`` belongs to: the nearest line above
    it that is neither blank nor a list item, when it is a heading ("## Managers"), a
    short label ("Managers.", "List of CEOs", "Commanding officers of the regiment from
    1975 to 2000.") or a line ending in a colon ("The mayors of Stord (incomplete list):")."""
    for line in reversed(text[:at].split("\n")):
        stripped = line.strip()
        if not stripped or _LIST_ITEM.match(line):
            continue
        heading = _HEADING_LINE.match(line)
        if heading:
            return heading.group(1)
        if len(stripped.split()) <= 10 and not re.search(r"[.!?]\s+\S", stripped):
            return stripped
        if stripped.endswith(":"):
            return re.split(r"(?<=[.!?])\s+", stripped)[-1]
        return None
    return None


def opens_with_item(text: str) -> bool:
    """Whether a drawer's ``text`` opens with a list item (it may continue a list an
    earlier drawer labelled: :func:`continued_label`)."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return bool(_LIST_ITEM.match(first))


def continued_label(previous: list[str], text: str) -> str:
    """The label of the list a drawer ``text`` continues when it opens with a list item
    whose label ("Managers.", "## Chief executives") sits in an earlier drawer of the
    same note (``previous``: their texts, in order); "" when it opens with anything else
    or no label is found within the last four drawers."""
    if not previous or not opens_with_item(text):
        return ""
    joined = "\n".join(previous[-4:]) + "\n"
    return _label_above(joined, len(joined)) or ""


#: List entries that name no holder ("1724–1728: Vacant").
_NO_HOLDER = frozenset({"vacant", "none", "unknown", "tbd", "tba", "various", "n/a", "abolished", "position abolished",
                        "office abolished", "post abolished", "interregnum", "acting", "see above"})


def _holder_name(item: str) -> str | None:
    """The name of a holders' list item, when the item gives a year: "Themistoklis
    Kourousopoulos (1983–1988)", "1989–1997: Björn Lundquist", "Andrzej Klesyk,
    2007-2015", "26 November 1940 – 19 May 1941: Kptlt. Wolfgang Heyda"."""
    item = MARKUP.sub("", item).strip()
    years = list(_YEARS.finditer(item))
    if not years:
        return None
    first = years[0]
    label, colon, after = item.partition(":")
    if colon and _YEARS.search(label) and not _YEARS.search(after):  # "20 April 1940 – 25 November: Name"
        name = re.split(r"\s*[(\[,;]|\s[–—-]\s", after.strip(), maxsplit=1)[0]
    elif first.start() <= 1:  # "1989–1997: Name", "1993 – Name"
        rest = item[first.end():].lstrip(" :–—-,)")
        name = re.split(r"\s*[(\[,;]|\s[–—-]\s", rest, maxsplit=1)[0]
    else:
        name = re.split(r"\s*[(\[,;:]|\s[–—-]\s", item, maxsplit=1)[0]
        if _YEARS.search(name):
            return None
    name = name.strip(" .:–—-")
    if name.casefold() in _NO_HOLDER:
        return None
    words = name.split()
    if not 1 <= len(words) <= 8 or not words[0][:1].isupper():
        return None
    if not all(w[:1].isupper() or w[:1].isdigit() or w.casefold() in _NAME_PARTICLES for w in words):
        return None
    return name


def speakers(text: str, labels: Iterable[str] = ()) -> tuple[tuple[int, int, str], ...]:
    """The chat lines of ``text`` and who speaks them: ``(line start, line end, name)``
    for lines such as ``Mara: I started…``, ``[10:02] Mara Lind: my manager…``,
    ``**Bo**: we moved…``, ``- 14:05 Ana: …``, ``12/03/2024, 19:22 - Amaka: …`` (a
    phone's export), ``<Rin> i work…`` (IRC). A word that labels a line ("Decision:",
    "Status:", or any of ``labels``) is no speaker."""
    skip = LINE_LABELS | {w.casefold() for w in labels}
    out = []
    for m in _SPEAKER.finditer(text):
        name = (m.group("name") or m.group("nick")).strip().rstrip(".")
        if name.casefold() in skip or name.split()[0].casefold() in skip:
            continue
        start = m.start()
        end = text.find("\n", start)
        out.append((start, len(text) if end < 0 else end, name))
    return tuple(out)


def name_like(text: str) -> bool:
    """A title or heading that can be the subject of key–value lines: a short name
    ("Initrode", "Project Falcon", "Ruth Adler"), not a date, a sentence or a generic
    label ("Notes", "Weekly sync")."""
    text = text.strip()
    words = text.split()
    if not words or len(words) > 6 or not text[:1].isupper() or any(ch.isdigit() for ch in text[:4]):
        return False
    if text.endswith((".", "?", "!", ":")):
        return False
    generic = LINE_LABELS | {"meeting", "sync", "standup", "stand-up", "weekly", "daily", "monthly", "retro",
                             "retrospective", "journal", "diary", "log", "overview", "index", "readme", "untitled",
                             "inbox", "misc", "ideas", "thoughts", "plan", "plans", "status", "report", "review",
                             "account", "profile", "details", "info", "contact", "contacts", "vendor", "people",
                             "team", "background", "history", "timeline", "open", "questions", "decisions"}
    return not all(w.casefold().strip(":,") in generic for w in words)


class LineReader:
    """Reads the key–value lines of a drawer ("Status: blocked", "- Owner: Ana Lima",
    "**Plan:** Pro") and the fields of a note's front matter, through the relational
    nouns of the registry: the possessor is the drawer's heading or the note's title,
    when it is a name (:func:`name_like`)."""

    def __init__(self, rules: RelationRules, label_of=None) -> None:
        self.rules = rules
        self.label_of = label_of or (lambda name: None)

    def _readings(self, key: str) -> list[RelationalNoun]:
        key = " ".join(key.casefold().split())
        return self.rules.nouns.get(key) or self.rules.nouns.get(key.rstrip("s")) or []

    def _clean(self, value: str) -> str:
        value = MARKUP.sub("", value).strip()
        value = re.split(r"\s+[(\[—–]|\s-\s|;|,\s|\s+(?:since|from|as of|until)\s", value, maxsplit=1)[0]
        return value.strip().rstrip(".!").strip()

    def value_ok(self, kind: str | None, value: str, entity: bool) -> str | None:
        """``value`` as the fact's literal when it fits ``kind`` (a value lexicon) or, for
        an entity predicate, when it looks like a name; else None."""
        if not value or len(value) > 80:
            return None
        low = value.casefold()
        words = low.split()
        if kind == "status":
            low = low.replace("-", " ").replace("_", " ")
            return low if low in self.rules.values.get("status", ()) else None
        if kind == "tier":
            first = value.split()[0]
            if words[-1] in self.rules.values.get("tier_nouns", ()) and len(words) > 1:
                value = " ".join(value.split()[:-1])
            return value if (first.casefold() in self.rules.values.get("tier", ()) or first[:1].isupper()) and len(words) <= 3 else None
        if kind == "medication":
            first = value.split()[0]
            return first if self.rules.is_medication_word(first) or first[:1].isupper() else None
        if kind == "title":
            return value if (low in self.rules.values.get("title", ()) or words[-1] in self.rules.values.get("title", ())
                             or value[:1].isupper()) and len(words) <= 6 else None
        if entity:
            return value if all(w[:1].isupper() or w[:1].isdigit() or w in _NAME_PARTICLES
                                for w in value.split()) and len(words) <= 8 else None
        return value

    def _fitting(self, readings: list[RelationalNoun], possessor: str, mentions=()) -> list[RelationalNoun]:
        """The readings whose possessor types fit ``possessor`` (a project's "Manager:"
        leads it, a person's "Manager:" is whom she reports to)."""
        if not any(r.possessor_types or r.exclude_types for r in readings):
            return readings
        label = next((x.label for x in mentions if x.key == possessor.casefold()), None) or self.label_of(possessor)
        return [r for r in readings if not (r.possessor_types and label not in r.possessor_types)
                and not (r.exclude_types and label in r.exclude_types)]

    def read(self, text: str, mentions: list["EntityMention"], sentence_of, context: Context) -> list[Relation]:
        """The relations of ``text``'s key–value lines. ``sentence_of(char)`` gives the
        sentence number of a char; a name in a value that the recogniser missed is
        appended to ``mentions``; ``label_of(name)`` the entity label of the possessor (a
        project's "Manager:" leads it, a person's "Manager:" is whom she reports to)."""
        possessor = next((p for p in (context.heading, context.title) if p and name_like(p)), None)
        record = bool(context.document) and possessor in (None, context.title)
        if record:  # a design record's own fields: about the record, its status read as the record's
            possessor = context.document
        out: list[Relation] = []
        found = sorted([*_KEY_VALUE.finditer(text), *_TABLE_ROW.finditer(text)], key=lambda m: m.start())
        for m in found:
            readings = self._readings(m.group("key"))
            if record:
                readings = [r for r in readings if r.predicate not in DOCUMENT_PREDICATES]
            if not readings or possessor is None:
                continue
            raw = m.group("value")
            for value, start in self._values(raw, m.start("value")):
                out.extend(self._line_facts(m, readings, value, start, possessor, mentions, sentence_of, text))
        if record:
            from dataclasses import replace

            out = [replace(r, subject_label="DOCUMENT") if r.subject_name == possessor else
                   replace(r, object_label="DOCUMENT") if r.object_name == possessor else r for r in out]
        return out

    def holders(self, text: str, mentions: list["EntityMention"], sentence_of, context: Context) -> list[Relation]:
        """The relations of a list of holders under a heading that names a post or a
        thing held ("## Chief executives", "### Commanding officers", "## Home grounds"):
        each item that gives a name and its years ("- Andrzej Klesyk, 2007–2015",
        "- 1989–1997: Björn Lundquist", "1. Ralph Lauren (1967–2015)") is a fact between
        the note's subject and that name, dated by the item's own years. Only items with
        a year: a bare list of names says nothing of when."""
        topic = context.topic
        possessor = topic.name if topic is not None else (context.title if context.title and name_like(context.title) else None)
        if possessor is None:
            return []
        out: list[Relation] = []
        for m in _LIST_ITEM.finditer(text):
            above = _label_above(text, m.start())
            readings = []
            # the label in this drawer, else that of the list an earlier drawer opened, else the heading
            for heading in ([above] if above else [context.list_label, context.heading]):
                heading = " ".join(MARKUP.sub("", heading or "").split()).strip(" :.")
                readings = self._holder_readings(heading, topic) if heading else []
                if readings:
                    break
            if not readings:
                continue
            item = m.group("item")
            name = _holder_name(item)
            if name is None:
                continue
            start = m.start("item") + item.find(name)
            if readings[0].predicate == "role":  # a holder of the office the page is about
                out.extend(self._office_holder(m, name, start, possessor, mentions, sentence_of))
                continue
            out.extend(self._line_facts(m, readings, name, start, possessor, mentions, sentence_of, text,
                                        rule="list", possessor_label=topic.label if topic is not None else None))
        return out

    def _office_holder(self, m, name: str, start: int, office: str, mentions, sentence_of) -> list[Relation]:
        """``role`` = ``office`` for the person ``name`` of a holders' list item."""
        from palace.nlp.names import EntityMention
        from palace.nlp.markup import normalise_entity_name

        end = start + len(name)
        index = next((i for i, x in enumerate(mentions) if x.start <= start + 1 and end - 1 <= x.end <= end + 1), None)
        if index is None:
            mentions.append(EntityMention(start, end, name, normalise_entity_name(name), "PERSON", -1))
            index = len(mentions) - 1
        elif mentions[index].label != "PERSON":
            return []
        return [Relation("role", index, None, office, start=m.start("item"), end=m.end(), clause_start=m.start(),
                         clause_end=m.end(), sentence=sentence_of(m.start()), rule="list-office-holder",
                         evidence="stated", confidence=VALUE_CONFIDENCE, kind="state")]

    def _holder_readings(self, heading: str, topic) -> list[RelationalNoun]:
        """The relational nouns a holders' label names ("Chairmen", "List of head
        coaches", "Home arenas", "Commanding officers of the regiment from 1975 to
        2000"), most specific first; a club's "Managers" coach it, anything else's lead
        it. On an office's page a label naming the office ("Permanent Secretaries to the
        Treasury", "List of commissioners") makes each holder's ``role`` the office."""
        key = re.sub(r"\([^()]*\)", " ", heading.casefold())
        key = re.sub(r"^(?:(?:historical |complete |incomplete |chronological )?list of |former |past |notable |the |"
                     r"historical )+", "", " ".join(key.split()))
        if topic is not None and "office" in topic.kinds and _names_office(key, topic.name):
            return [RelationalNoun("office", "role", "subject")]
        head = re.split(r"\s(?:of|from|to|for|at|in|since|until)\s|[:;,]", key, maxsplit=1)[0].strip()
        if not head or len(head.split()) > 3:
            return []
        readings = next((r for r in (self.rules.nouns.get(f) for f in _singulars(head)) if r), [])
        readings = [r for r in readings if r.predicate in _HOLDER_PREDICATES]
        if topic is not None and not (topic.kinds & _TEAM_KINDS):
            readings = [r for r in readings if r.predicate != "coaches"]
        return sorted(readings, key=lambda r: _HOLDER_PREDICATES.index(r.predicate))

    def _values(self, raw: str, at: int) -> list[tuple[str, int]]:
        """The values of a field, each with its char position: "Warfarin 3 mg, Digoxin
        125 mcg", "Nia Brooks (frontend) and Omar Sheikh (API)" are two each."""
        out = []
        bare = re.sub(r"\([^()]*\)", lambda m: " " * len(m.group(0)), raw)
        for piece in re.finditer(r"[^,;]+", bare):
            for part in re.split(r"\s+(?:and|&)\s+", piece.group(0)):
                value = self._clean(part)
                if value:
                    out.append((value, at + raw.find(value, piece.start())))
        return out[:8]

    def _line_facts(self, m, readings, value: str, start: int, possessor: str, mentions, sentence_of, text: str,
                    *, rule: str = "key", possessor_label: str | None = None) -> list[Relation]:
        """The fact of one value of a key–value line, through the first reading of its
        key that fits the possessor and the value."""
        from palace.nlp.names import EntityMention
        from palace.nlp.markup import normalise_entity_name

        fitting = self._fitting(readings, possessor, mentions) if possessor_label is None else [
            r for r in readings if not (r.possessor_types and possessor_label not in r.possessor_types)
            and not (r.exclude_types and possessor_label in r.exclude_types)]
        for reading in fitting:
            kind = self.rules.value_kinds.get(reading.predicate)
            entity = kind is None or reading.possessor == "object"
            literal = self.value_ok(None if entity else kind, value, entity)
            if literal is None:
                continue
            index = None
            if entity:  # the recogniser's mention when it lies inside the value, else a new one
                end = start + len(literal)
                index = next((i for i, x in enumerate(mentions) if x.start <= start + 1 and end - 1 <= x.end <= end + 1), None)
                if index is None:
                    label = "PERSON" if reading.possessor == "object" else next(
                        (t for t in self.rules.object_types.get(reading.predicate, ()) if t not in ("*", "VALUE")), "ORG")
                    mentions.append(EntityMention(start, end, literal, normalise_entity_name(literal), label, -1))
                    index = len(mentions) - 1
            line = text[m.start():m.end()]
            common = dict(start=m.start() + len(line) - len(line.lstrip()), end=m.end(), clause_start=m.start(),
                          clause_end=m.end(), sentence=sentence_of(m.start()),
                          rule=f"{rule}-{reading.word.replace(' ', '-')}", evidence="stated", confidence=VALUE_CONFIDENCE,
                          kind=self.rules.kinds.get(reading.predicate, "state"))
            if reading.possessor == "subject":
                subject_label = next((t for t in self.rules.subject_types.get(reading.predicate, ())
                                      if t not in ("*", "VALUE")), "CONCEPT")
                return [Relation(reading.predicate, None, index, None if entity else literal,
                                 subject_name=possessor, subject_label=possessor_label or subject_label, **common)]
            return [Relation(reading.predicate, index, None, None, object_name=possessor,
                             object_label=possessor_label or "ORG", **common)]
        return []

    def front_matter(self, metadata: dict, title: str) -> list[Relation]:
        """Facts of a note's front-matter fields (``status:``, ``owner:``, ``lead:``,
        ``plan:``…) about the note's title; they cite the field (``quote``)."""
        out: list[Relation] = []
        if not title or not isinstance(metadata, dict):
            return out
        for key, raw in metadata.items():
            if not isinstance(key, str) or key.casefold() in ("title", "date", "tags", "aliases"):
                continue
            readings = self._readings(key.replace("_", " "))
            if not readings:
                continue
            readings = self._fitting(readings, title)
            values = raw if isinstance(raw, list) else [raw]
            for item in values[:10]:
                if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                    continue
                value = self._clean(str(item))
                for reading in readings:
                    kind = self.rules.value_kinds.get(reading.predicate)
                    entity = kind is None or reading.possessor == "object"
                    literal = self.value_ok(None if entity else kind, value, entity)
                    if literal is None:
                        continue
                    common = dict(start=0, end=0, clause_start=0, clause_end=0, sentence=-1,
                                  rule=f"front-matter-{key.casefold()}", evidence="stated", confidence=VALUE_CONFIDENCE,
                                  kind=self.rules.kinds.get(reading.predicate, "state"), quote=f"{key}: {item}")
                    if reading.possessor == "subject":
                        label = next((t for t in self.rules.subject_types.get(reading.predicate, ())
                                      if t not in ("*", "VALUE")), "CONCEPT")
                        other = next((t for t in self.rules.object_types.get(reading.predicate, ())
                                      if t not in ("*", "VALUE")), "ORG")
                        out.append(Relation(reading.predicate, None, None, None if entity else literal,
                                            subject_name=title, subject_label=label,
                                            object_name=literal if entity else None,
                                            object_label=other if entity else None, **common))
                    else:
                        out.append(Relation(reading.predicate, None, None, None, subject_name=literal,
                                            subject_label="PERSON", object_name=title, object_label="CONCEPT", **common))
                    break
        return out
