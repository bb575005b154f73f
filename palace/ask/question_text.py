"""A question as the question forms read it (:mod:`palace.ask.questions`): lower case,
the date window and the words that say when ("now", "currently") dropped, each name
replaced by a slot ``§N`` — the planner's entities first, then runs of capitalised words
the graph does not know ("Initrode"). No spaCy."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from palace.ask.planning import EntityMatch

#: Words that say when, not what: dropped before the forms are matched.
_DROPPED = re.compile(
    r"\b(?:right now|as of today|as of now|at the moment|at present|these days|nowadays|presently|currently"
    r"|current|now|today|still|anymore|any more|ever|actually|exactly|really|used to)\b")
#: Capitalised words that are never a name anywhere in a question ("I"), and those that
#: are not one at its start ("Where", "The").
_NOT_A_NAME = frozenset({"i", "is", "was", "are", "were", "do", "does", "did", "who", "whom", "what", "which",
                         "where", "whose", "how", "when", "why", "has", "have", "had", "will", "can", "could",
                         "should", "please", "tell", "ok", "okay", "hey", "and", "so", "but", "also"})
_NOT_A_NAME_FIRST = _NOT_A_NAME | frozenset(
    """a an the in on at for from of to by with about my our your their his her its any all some show give list
    find since until after before during between last next this that these those hi hello yes no not is""".split())


def normalised(question: str, entities: tuple[EntityMatch, ...], exclude: tuple[int, int] | None,
               table_words: frozenset[str]) -> tuple[str, list[tuple[str, EntityMatch | None]]]:
    """The question as the forms read it: lower case, the date window and time words
    ("now", "currently") dropped, each name replaced by a slot ``§N``. Names are the
    question's entities, then runs of capitalised words the graph does not know
    ("Initrode"). Returns ``(text, slots)``, each slot ``(words as written, entity or None)``."""
    text = question.replace("§", " ")
    if exclude:
        text = text[:exclude[0]] + " " * (exclude[1] - exclude[0]) + text[exclude[1]:]
    text, slots = _entity_slots(text, entities)
    tokens = re.findall(r"§\d+|[^\W_][\w&.-]*|['’][A-Za-z]+", text)
    joined = " ".join(_name_slots(_words(tokens, table_words), slots))
    joined = re.sub(r"(§\d+) use to\b", r"\1", joined)
    joined = " ".join(_DROPPED.sub(" ", joined).split())
    return _plain_order(_without_descriptors(joined, slots, table_words)), slots


#: Words that end a descriptor read backwards from a name: question words, auxiliaries,
#: prepositions, pronouns, conjunctions ("did *movie producer* Pat Sullivan" stops at "did").
_NOT_DESCRIPTOR = _NOT_A_NAME_FIRST - {"a", "an", "the"} | frozenset(
    """be been being am 's of into onto as than like per via me you he she it we they him them us
    whose whom or nor yet if then""".split())
_ARTICLES = frozenset({"the", "a", "an"})


def _without_descriptors(text: str, slots: list[tuple[str, "EntityMatch | None"]], table_words: frozenset[str]) -> str:
    """``text`` without the descriptor that sits before a known name: "what city did
    *movie producer* §0 reside in", "who owned *the fashion brand* §0", "which club did
    *§1 footballer* §0 play for" (§1 an unknown capitalised word such as "French"). A
    descriptor is a run of nouns and adjectives (and unknown names) with an optional
    article, after a question word, an auxiliary or a verb of the question forms; an
    article alone stays ("who leads the §0 project")."""
    words = text.split()
    out: list[str] = []
    for word in words:
        known = re.fullmatch(r"§(\d+)", word)
        if known and int(known.group(1)) < len(slots) and slots[int(known.group(1))][1] is not None:
            run = 0
            while run < min(len(out), 4):
                token = out[-1 - run]
                unknown_name = re.fullmatch(r"§(\d+)", token) and int(token[1:]) < len(slots) \
                    and slots[int(token[1:])][1] is None
                if not (unknown_name or (token.isalpha() and token not in _NOT_DESCRIPTOR
                                         and (token not in table_words or token in _ARTICLES))):
                    break
                run += 1
            content = [t for t in out[len(out) - run:] if t not in _ARTICLES]
            if content and len(out) > run:  # the descriptor follows something: it is not the question's head
                del out[len(out) - run:]
        out.append(word)
    return " ".join(out)


def _plain_order(text: str) -> str:
    """A question in the order the forms read: the question word first. "§0 led what
    football team" → "what football team did §0 led"; "for what club did §0 play" →
    "what club did §0 play for"; "who served as the chief of §0" → "who was the chief of
    §0"; "which team was coached by §0" → "which team did §0 coached"; "§0 was commanded
    by which chief" keeps its passive for the forms."""
    text = re.sub(r"\b(?:served|serve|serves|acted|act|acts) as\b", "was", text)
    text = re.sub(r"\bheld the (?:position|post|office|role|title) of\b", "was the", text)
    moved = re.match(r"^(for|with|in|at|to|on|from|by) ((?:what|which|whom|who)\b.*)$", text)
    if moved:
        text = f"{moved.group(2)} {moved.group(1)}"
    declarative = re.match(r"^(§\d+) (\w+)((?: (?:on|in|for|with|at|to|under|into))?) "
                           r"((?:what|which|whom|who|where)\b.*)$", text)
    if declarative and declarative.group(2) not in _NOT_DESCRIPTOR:
        text = f"{declarative.group(4)} did {declarative.group(1)} {declarative.group(2)}{declarative.group(3)}"
    passive = re.match(r"^((?:what|which|who|whom)(?: \w+){0,3}) (?:was|were|is|are) (\w+) by (§\d+)$", text)
    if passive:  # "which team was coached by §0" → "which team did §0 coached"
        text = f"{passive.group(1)} did {passive.group(3)} {passive.group(2)}"
    return text


def _entity_slots(text: str, entities: tuple[EntityMatch, ...]) -> tuple[str, list[tuple[str, EntityMatch | None]]]:
    """``text`` with each occurrence of an entity's words (longest names first, never
    overlapping) replaced by `` §N ``, and the slots ``(words as written, entity)``."""
    spans: list[tuple[int, int, EntityMatch]] = []
    for entity in sorted(entities, key=lambda e: -len(e.text)):
        rx = re.compile(r"(?<![\w§])" + r"\s+".join(re.escape(w) for w in entity.text.split()) + r"(?!\w)", re.IGNORECASE)
        for hit in rx.finditer(text):
            if not any(s < hit.end() and hit.start() < e for s, e, _ in spans):
                spans.append((hit.start(), hit.end(), entity))
    slots: list[tuple[str, EntityMatch | None]] = []
    pieces, at = [], 0
    for start, end, entity in sorted(spans, key=lambda s: s[0]):
        pieces.append(text[at:start])
        pieces.append(f" §{len(slots)} ")
        slots.append((text[start:end], entity))
        at = end
    pieces.append(text[at:])
    return "".join(pieces), slots


def _words(tokens: list[str], table_words: frozenset[str]) -> list[tuple[str, str]]:
    """``tokens`` as ``(kind, token)``: ``slot`` (``§N``), ``name`` (a capitalised word
    that is no question word and no word of the table), ``pos`` (``'s`` after a name) or
    ``word``; contractions read as their words ("what's" → "what is", "'re" → "are")."""
    words: list[tuple[str, str]] = []
    for token in tokens:
        token = token.rstrip(".")
        if token.startswith("§"):
            words.append(("slot", token))
        elif token[0] in "'’":
            suffix = token[1:].lower()
            if suffix == "s":
                if words and words[-1][0] == "word" and words[-1][1].lower() in (
                        "what", "who", "where", "which", "that", "it", "there", "how", "when", "here"):
                    words.append(("word", "is"))
                elif words and words[-1][0] in ("slot", "name"):
                    words.append(("pos", "'s"))
            elif suffix in ("re", "ve", "ll"):
                words.append(("word", {"re": "are", "ve": "have", "ll": "will"}[suffix]))
        elif token:
            lowered = token.lower()
            first = not words
            is_name = (token[0].isupper() and lowered not in (_NOT_A_NAME_FIRST if first else _NOT_A_NAME)
                       and lowered not in table_words)
            words.append(("name" if is_name else "word", token))
    return words


def _name_slots(words: list[tuple[str, str]], slots: list[tuple[str, EntityMatch | None]]) -> list[str]:
    """The words in lower case, each run of ``name`` words replaced by a new slot
    (appended to ``slots``, with no entity): "is Initrode on Basic" → "is §0 on §1"."""
    out: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            out.append(f"§{len(slots)}")
            slots.append((" ".join(run), None))
            run.clear()

    for kind, token in words:
        if kind == "name":
            run.append(token)
            continue
        close_run()
        if kind == "word" and token.lower() in ("whats", "whos", "wheres"):
            out += [token.lower()[:-1], "is"]
        else:
            out.append(token if kind in ("slot", "pos") else token.lower())
    close_run()
    return out
