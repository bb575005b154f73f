"""Whole names: person spans that keep what spaCy cuts off, and the shared name behind an
organisation's legal forms or a project's names.

spaCy's small pipeline reads most names whole, but palace used to cut some of them on
the way in: "Cho Yoon-ho" became "Cho Yoon-" (a lower-case word after a hyphen looked
like a verb after the name), and spaCy itself stops some spans short ("Philip A." before
"Smith", "Ursula von der" before "Leyen", read as a place). :func:`whole_names` fixes the
entity spans of a ``Doc``; everything else here works on plain name strings.

Person spans (:func:`person_span`):

- a word joined to the one before it without a space is part of the name ("Yoon-ho",
  "Jean-Luc", "al-Baghdadi"), whatever its case;
- a span that ends at an initial ("A.") or at name particles ("van", "de la",
  :data:`PARTICLES`) goes on to the next capitalised word ("Philip A. Smith",
  "Ursula von der Leyen"), taking in the entity spaCy made of that word;
- a generational suffix right after the name is kept ("Martin Luther King Jr.",
  "Henry Ford III", and "King, Jr.", written "King Jr.");
- otherwise the name ends at its last capitalised word or number ("Alice Chen rang" is
  "Alice Chen", "Eric Huss +" is "Eric Huss"), so particles stay only inside a name.

A span that is nothing but a legal suffix ("LLC" after "Initech", which spaCy reads as a
nationality) is joined to the name before it as one organisation.

Names as strings: :func:`legal_form` splits "Acme Corp." into ``("Acme", "Corp.")``;
:func:`project_base` gives "Falcon" for "Project Falcon" and "the Falcon project";
:func:`key_without_final_dot` makes "Acme Corp." and "Acme Corp" one key. Nothing here
knows about storage; :mod:`palace.graph.resolution` decides which names are joined.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = [
    "GENERATIONAL", "LEGAL_SUFFIXES", "PARTICLES", "key_without_final_dot", "legal_form", "match_key", "name_ends",
    "person_name",
    "person_span", "project_base", "whole_names",
]

#: Lower-case words that occur inside a person's name ("Ludwig van Beethoven",
#: "Ana de la Cruz", "Osama bin Laden"); "al" is written joined ("al-Baghdadi").
PARTICLES = frozenset({
    "van", "von", "de", "del", "della", "der", "den", "da", "das", "di", "dos", "du", "la", "le", "ter", "ten",
    "bin", "ibn", "al", "el", "y",
})
#: Suffixes that follow a person's name and belong to it.
#: Verbs a note opens with before a name ("Met Henrik Dahl", "Ask Bob about…"): never
#: the first word of a person's name.
NOTE_VERBS = frozenset("""
met meet saw see called call talked talk spoke speak emailed email pinged ping asked ask told tell
visited visit thanked thank interviewed interview hired introduced introduce welcomed welcome invited
invite messaged message texted text took take drove drive remind reminded follow followed congratulate
congratulated paired pair joined lunch dinner coffee drinks sync synced chat chatted with per cc via
""".split())
GENERATIONAL = frozenset({"Jr.", "Jr", "Sr.", "Sr", "II", "III", "IV"})
#: Legal suffixes of organisation names, case-folded, without a final period.
LEGAL_SUFFIXES = frozenset({
    "inc", "corp", "corporation", "ltd", "limited", "llc", "gmbh", "plc", "s.a", "sa", "ag", "co",
})
#: Abbreviations whose final period is not part of a name's key ("Acme Corp." at the end
#: of a sentence is "Acme Corp" elsewhere).
_DOTTED = LEGAL_SUFFIXES | {"jr", "sr"}

_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_INITIAL = re.compile(r"[^\W\d_]\.?")
_HYPHENS = frozenset({"-", "‐"})
_NAMED = frozenset({"ORG", "NORP", "PERSON", "GPE", "PRODUCT", "FAC", "LOC"})


def _is_name_word(token: "Token") -> bool:
    """A capitalised word that can go on a name: "Smith", "O'Neill", "Leyen"; not a
    capitalised function word ("Then", "The") nor a generational suffix."""
    text = token.text
    return (text[:1].isupper() and _NAME_WORD.fullmatch(text) is not None and not token.is_stop
            and text not in GENERATIONAL)


def _is_initial(token: "Token") -> bool:
    """"A." or "A" (one capital letter, with or without its period)."""
    return _INITIAL.fullmatch(token.text) is not None and token.text[0].isupper()


def _joined(doc, i: int) -> bool:
    """True when token ``i`` follows a word with no space between ("Yoon" "-" "ho"); a
    run of blanked markup before it ("`AsRef`  impls") is a space."""
    return i > 0 and doc[i - 1].whitespace_ == "" and not doc[i - 1].is_space and not doc[i].is_space


def _next_in_block(doc, end: int) -> "Token | None":
    """The token right after ``[..., end)`` when it is in the same block: not a line
    break, not a run of blanked markup, at most one space away."""
    if end >= len(doc) or doc[end].is_space or "\n" in doc[end - 1].whitespace_:
        return None
    return doc[end]


def _abbreviation_dot(doc, i: int) -> bool:
    """True when token ``i`` is a period joined to an initial or a "Jr"/"Sr" before it."""
    return (0 < i < len(doc) and doc[i].text == "." and _joined(doc, i)
            and (doc[i - 1].text in GENERATIONAL or _is_initial(doc[i - 1])))


def person_span(span: "Span", taken: dict[int, "Span"] | None = None) -> "Span":
    """The whole name of a PERSON ``span`` (rules in the module docstring).

    ``taken`` maps a token index to the entity span that starts there; the name
    may run over such a span only when it is all capitalised name words ("Leyen", read
    as a GPE), and never over anything longer. Returns a span of the same ``Doc`` with
    the same label (the original span when nothing changes).
    """
    from spacy.tokens import Span

    doc, start, end = span.doc, span.start, span.end
    taken = taken or {}

    def take(i: int) -> int | None:
        """The end of the name if it goes on to token ``i`` (None: it cannot)."""
        other = taken.get(i)
        if other is None:
            return i + 1
        if all(_is_name_word(t) for t in other):
            return other.end
        return None

    for _ in range(8):  # a few steps: "Philip A. Smith Jr." is two
        nxt = _next_in_block(doc, end)
        if nxt is None:
            break
        last = doc[end - 1]
        after_initial = _is_initial(last) or (last.text == "." and end - 2 > start and _is_initial(doc[end - 2]))
        if _is_name_word(nxt) and (after_initial or last.lower_ in PARTICLES):
            grown = take(nxt.i)  # "Philip A." + "Smith", "Ursula von der" + "Leyen"
        elif last.text in GENERATIONAL and _abbreviation_dot(doc, end):
            grown = end + 1  # "Jr" + "."
        elif nxt.text in GENERATIONAL and nxt.i not in taken:
            grown = end + 2 if _abbreviation_dot(doc, end + 1) else end + 1
        elif nxt.text == "," and end + 1 < len(doc) and doc[end + 1].text in ("Jr.", "Sr.") and end + 1 not in taken:
            grown = end + 2  # "King" + ", Jr."
        elif (last.text in _HYPHENS and _joined(doc, end - 1) and _joined(doc, nxt.i) and nxt.is_alpha
              and nxt.i not in taken):
            grown = end + 1  # spaCy stopped at "Cho Yoon-": the word joined after the hyphen is the name's
        else:
            grown = None
        if grown is None:
            break
        end = grown
    # the name ends at its last capitalised word, number, generational suffix or word
    # joined to the one before it ("Yoon-ho"); lower-case words and stray punctuation
    # after it ("Alice Chen rang", "Eric Huss +") are not the name
    while end - start > 1:
        token = doc[end - 1]
        if token.text[:1].isupper() or token.text[:1].isdigit() or token.text in GENERATIONAL:
            break
        if (_joined(doc, end - 1) and token.is_alpha) or _abbreviation_dot(doc, end - 1):  # "Sr" "."
            break
        end -= 1
    # notes open with a verb the recogniser reads into the name: "Met Henrik Dahl",
    # "Called Aunt Mei", "Ask Bob Chen about…"
    if end - start > 1 and doc[start].lower_ in NOTE_VERBS and (start == 0 or doc[start - 1].is_sent_start
                                                                 or doc[start - 1].is_punct or doc[start].is_sent_start):
        start += 1
    if (start, end) == (span.start, span.end):
        return span
    return Span(doc, start, end, label=span.label_)


def whole_names(spans: Iterable["Span"]) -> list["Span"]:
    """Entity spans of one ``Doc`` (in document order) with whole names: every PERSON
    span through :func:`person_span`; a span a name grew over is dropped; a span that is
    only a legal suffix ("LLC") joins the span right before it as one ORG."""
    from spacy.tokens import Span

    spans = list(spans)
    starts = {s.start: s for s in spans}
    out: list[Span] = []
    covered = -1  # tokens before this index belong to a name already emitted
    for span in spans:
        if span.start < covered:
            continue  # a person's name grew over it
        if span.label_ == "PERSON":
            span = person_span(span, starts)
        elif (out and len(span) == 1 and _suffix_key(span[0].text) in LEGAL_SUFFIXES and out[-1].end == span.start
              and out[-1].label_ in _NAMED):
            span = Span(span.doc, out.pop().start, span.end, label="ORG")
        out.append(span)
        covered = span.end
    return out


def person_name(name: str) -> str:
    """A person's normalised name with the comma before "Jr."/"Sr." dropped:
    "Martin Luther King, Jr." → "Martin Luther King Jr."; other names unchanged."""
    return re.sub(r",\s+(?=[JS]r\.?$)", " ", name)


def _suffix_key(word: str) -> str:
    return word.casefold().rstrip(".")


def legal_form(name: str) -> tuple[str, str] | None:
    """``(short name, legal suffix)`` of an organisation name ending in a legal suffix
    (:data:`LEGAL_SUFFIXES`, any case, with or without its period, after a comma or not):
    "Acme Corp." → ``("Acme", "Corp.")``, "Acme, Inc." → ``("Acme", "Inc.")``,
    "The Acme Corporation" → ``("Acme", "Corporation")``. None when there is no such
    suffix or nothing name-like before it ("Smith & Co." keeps its "&": None)."""
    words = name.split()
    if words and words[0].casefold() == "the":
        words = words[1:]
    if len(words) < 2 or _suffix_key(words[-1]) not in LEGAL_SUFFIXES:
        return None
    base = " ".join(words[:-1]).rstrip(",").strip()
    if not base or not base[-1].isalnum() or base.casefold().endswith((" and", " of")):
        return None
    if not any(ch.isupper() for ch in base):
        return None
    return base, words[-1]


def project_base(name: str) -> str | None:
    """The name of a project written as "Project Falcon", "Falcon Project" or "the
    Falcon project": "Falcon". Every word of it must start with a capital letter or a
    digit ("Project Blue Sky" → "Blue Sky"; "Project manager", "Update on Project" →
    None)."""
    words = name.split()
    if words and words[0].casefold() == "the":
        words = words[1:]
    if len(words) < 2:
        return None
    if words[0].casefold() == "project":
        rest = words[1:]
    elif words[-1].casefold() == "project":
        rest = words[:-1]
    else:
        return None
    if not all(w[:1].isupper() or w[:1].isdigit() for w in rest) or any(w.casefold() == "project" for w in rest):
        return None
    if not any(ch.isalpha() for ch in "".join(rest)):
        return None
    return " ".join(rest)


def key_without_final_dot(key: str) -> str:
    """A case-folded name key without the final period of a legal or generational
    abbreviation ("acme corp." → "acme corp", "martin luther king jr." → "martin luther
    king jr"); other keys ("u.s.") unchanged."""
    if key.endswith(".") and " " in key and key.rsplit(" ", 1)[-1][:-1] in _DOTTED:
        return key[:-1]
    return key


def entity_key(name: str) -> str:
    """The lookup key of an entity name: whitespace collapsed, case-folded, in Unicode's
    composed form (NFC: "José" typed on Linux and "José" saved by macOS, e + U+0301, are
    one entity), a leading "the" dropped ("The Leadership Council" and "Leadership
    Council" are one entity), and the final period of a legal or generational
    abbreviation dropped ("Acme Corp." at the end of a sentence and "Acme Corp" are one
    entity; see :func:`key_without_final_dot`). This is the one place a name's identity
    is made; folding diacritics or case further for *matching* belongs on top of it."""
    key = unicodedata.normalize("NFC", " ".join(name.split()).casefold())
    key = key[4:] if key.startswith("the ") and len(key) > 4 else key
    return key_without_final_dot(key)


def match_key(name: str) -> str:
    """The key names are *matched* by, on top of :func:`entity_key`: compatibility
    decomposition (NFKD), combining marks stripped, case-folded again ("Jakub Beránek",
    "Jakub Beranek" and "JAKUB BERANEK" → "jakub beranek"). Two names with one match key
    are one person written two ways; the key of each written form stays its own
    (:func:`entity_key`), so the written forms are never lost."""
    text = unicodedata.normalize("NFKD", entity_key(name))
    return unicodedata.normalize("NFC", "".join(ch for ch in text if not unicodedata.combining(ch)).casefold())


_FIRST_LAST_SKIP = PARTICLES | {g.casefold().rstrip(".") for g in GENERATIONAL}


def name_ends(name: str) -> tuple[str, str] | None:
    """``(first word, last word)`` of a name of several words, as match keys
    (:func:`match_key`), name particles and generational suffixes left out ("Martin
    Luther King Jr." → ``("martin", "king")``, "Ursula von der Leyen" → ``("ursula",
    "leyen")``): the words a first name or a surname alone stands for. None for a name
    of one word."""
    words = [w.strip(",.") for w in match_key(name).split()]
    words = [w for w in words if w and w.rstrip(".") not in _FIRST_LAST_SKIP]
    if len(words) < 2:
        return None
    return words[0], words[-1]


@dataclass(frozen=True)
class EntityMention:
    """A named entity seen at ``[start, end)`` (chars of the drawer text).

    ``name`` is the normalised name; ``key`` its case-folded form used to find the entity.
    """

    start: int
    end: int
    surface: str
    name: str
    label: str
    sentence: int

    @property
    def key(self) -> str:
        return entity_key(self.name)
