"""Markdown markup → plain text for NER, with a 1:1 offset mapping.

``plain_text_for_ner(text)`` returns a string of exactly ``len(text)`` characters in which
markdown markup is replaced by spaces and everything a reader sees is kept in place.
Offset mapping: character ``i`` of the result comes from character ``i`` of ``text``, so a
span ``[s, e)`` found by spaCy in the result is the span ``[s, e)`` of the drawer text —
no translation table is needed and no character ever moves.

What is blanked (turned into spaces):

- heading hashes (``##``, closing ``##``), setext underlines, horizontal rules;
- block-quote ``>`` markers, list bullets (``-``, ``*``, ``+``), ordered-list markers
  (``1.``, ``12)``: the whole marker, number included) and task boxes (``[ ]``, ``[x]``);
- emphasis markers (``*``, ``**``, ``_``, ``__``, ``~~``) — but never ``_`` inside a word
  (``snake_case`` stays) nor a lone ``*`` between spaces (``2 * 3`` stays);
- inline-code backticks (the code itself is kept, unprocessed);
- link syntax: ``[label](url "title")`` keeps ``label``; images ``![alt](src)`` keep
  ``alt``; wiki links ``[[Page]]`` keep ``Page`` and ``[[Page|label]]`` keep ``label``;
  reference links ``[label][ref]`` keep ``label``; footnote marks ``[^1]``;
  reference definitions ``[ref]: url`` (the whole line);
- bare URLs (``https://…``, ``www.…``; trailing sentence punctuation is kept), autolinks
  ``<https://…>``, e-mail autolinks, HTML tags and comments;
- table pipes and table separator rows; backslashes of escapes (``\\*`` keeps ``*``);
- fence lines of fenced code blocks (the code inside is kept verbatim);
- every ``\\r`` (so CRLF text becomes `` \\n``).

HTML entities are blanked, except that ``&amp;`` keeps its ``&``. So every character of
the result is either the character of ``text`` at the same offset or a space.

Line breaks: a newline inside a paragraph (a hard wrap) becomes a space, so that
``"Alice\\nChen"`` reaches NER as one name. A newline is kept wherever a block ends:
after headings, table rows, rules, fence lines and code lines, around blank lines, and
before a line that starts a new block (list item, heading, quote, table row, fence).
A list item or quote line that wraps onto a continuation line is joined like a paragraph.

``normalise_entity_name(name)`` cleans an entity's surface form (whitespace, surrounding
punctuation and quotes, a possessive ``'s``).
"""

from __future__ import annotations

import re

__all__ = ["normalise_entity_name", "plain_text_for_ner", "strip_inline_markup"]

# --------------------------------------------------------------------------- inline
#
# Every top-level branch starts with a literal character, so the regex engine skips
# straight to the characters that can start markup (about 15× faster than branches
# that start with groups or lookbehinds). Flanking rules are checked in the callback.

_LABEL = r"[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*"  # one level of nested brackets
_DEST = (  # (url "title") with one level of balanced parentheses in the url
    r"\((?:[ \t]*<[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"
)
_URL_REST = r"[^\s<>\[\]{}|`\"]+"

_INLINE_RE = re.compile(
    # `code`, ``code`` — the code is kept verbatim (consuming it protects it)
    r"`(?P<code_ticks>`*)(?P<code_body>[^\n]*?[^`\n])`(?P=code_ticks)(?!`)"
    r"|\\[!-/:-@\[-`{-~]"  # backslash escape
    r"|<(?:!--[\s\S]*?-->"  # HTML comment
    r"|(?:https?|ftp|mailto):[^<>\s]*>|[^<>\s@]+@[^<>\s@]+\.[^<>\s@]+>"  # autolinks
    r"|/?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>)"  # HTML tag
    r"|&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});"  # entity
    r"|\[(?:\[(?P<wiki_page>[^\[\]|\n]+)(?:\|(?P<wiki_label>[^\[\]\n]+))?\]\]"  # [[wiki]]
    r"|\^[^\]\s]+\]"  # [^footnote]
    r"|(?P<link_label>" + _LABEL + r")\](?:" + _DEST + r"|\[[^\[\]\n]*\]))"  # [label](url) [label][ref]
    r"|!\[(?P<image_label>" + _LABEL + r")\](?:" + _DEST + r"|\[[^\[\]\n]*\])"  # ![alt](src)
    r"|h(?=ttps?://)" + _URL_REST + r"|f(?=tp://)" + _URL_REST + r"|w(?=ww\.)" + _URL_REST  # bare URLs
    + r"|\*\**|_+|~~+"  # emphasis runs (flanking checked in the callback)
    r"|\|"  # table pipes
)



def _blank(s: str) -> str:
    """Spaces for every character of ``s`` except newlines, which are kept."""
    if "\n" not in s:
        return " " * len(s)
    return "\n".join(" " * len(part) for part in s.split("\n"))


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _replace_inline(m: re.Match[str]) -> str:
    text = m.group(0)
    c = text[0]
    if c == "`":
        ticks = 1 + len(m.group("code_ticks"))
        return " " * ticks + m.group("code_body") + " " * ticks
    if c == "\\":
        return " " + text[1]
    if c == "&":  # "&amp;" keeps its "&"; other entities are blanked
        return ("&" if text == "&amp;" else " ") + " " * (len(text) - 1)
    if c == "[" or c == "!":
        if c == "[" and m.group("wiki_page") is not None:
            label = m.group("wiki_label")
            if label is None:
                return "  " + _inline(m.group("wiki_page")) + "  "
            return " " * (m.start("wiki_label") - m.start()) + _inline(label) + "  "
        group = "image_label" if c == "!" else "link_label"
        if m.group(group) is None:  # footnote mark
            return " " * len(text)
        start = m.start(group) - m.start()
        end = m.end(group) - m.start()
        return " " * start + _inline(m.group(group)) + _blank(text[end:])
    if c in "hfw":  # bare URL; not inside a word or a path, keeps trailing sentence punctuation
        s, a = m.string, m.start()
        if a and (_is_word(s[a - 1]) or s[a - 1] in "/@."):
            return text
        end = len(text)
        while end and (
            text[end - 1] in ".,;:!?'\""
            or (text[end - 1] == ")" and text.count("(", 0, end) < text.count(")", 0, end))
        ):
            end -= 1
        return " " * end + text[end:]
    if c in "*_~":
        # An opener is not preceded by a word character and is followed by a non-space;
        # a closer is preceded by a non-space and not followed by a word character.
        s, a, b = m.string, m.start(), m.end()
        prev = s[a - 1] if a else " "
        nxt = s[b] if b < len(s) else " "
        if (not _is_word(prev) and not nxt.isspace()) or (not prev.isspace() and not _is_word(nxt)):
            return " " * len(text)
        return text
    return _blank(text)  # HTML, autolinks, pipes


def _inline(text: str) -> str:
    return _INLINE_RE.sub(_replace_inline, text) if text else text


def strip_inline_markup(text: str) -> str:
    """Blank inline markdown markup in ``text`` (one line or a title), keeping its length.

    Same rules as :func:`plain_text_for_ner` for emphasis, code, links, URLs, HTML and
    pipes, but no line-start rules (bullets, hashes) and no newline joining. The result
    has ``len(text)`` characters; offsets map 1:1.
    """
    return _inline(text.replace("\r", " "))


# ------------------------------------------------------------------- line classes

_FENCE_RE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})(.*)")
_BLANK, _PARA, _LIST, _QUOTE, _BREAK, _CODE = range(6)
# _BREAK: a line after which (and before which) the newline is always kept:
# heading, table row, rule, fence line.
_HEADING_LINE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_LIST_LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE_LINE = re.compile(r"[ \t]{0,3}>")
_RULE_LINE = re.compile(r"[ \t]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$")
_TABLE_LINE = re.compile(r"[ \t]*\||.*\|[ \t]*$")
_TABLE_SEP_LINE = re.compile(
    r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$|[ \t]*\|[ \t]*:?-+:?[ \t]*\|?[ \t]*$"
)
_REFDEF_LINE = re.compile(r"[ \t]{0,3}\[[^\]]+\]:[ \t]*\S")
# Line-start markup: quote markers, then heading hashes or a list marker (+ task box).
_LINE_START = re.compile(
    r"[ \t]*(?:>[ \t]?)*[ \t]*"
    r"(?:(?P<hashes>#{1,6})(?=[ \t]|$)"
    r"|(?:[-*+]|\d{1,3}[.)])(?=[ \t]|$)(?:[ \t]+\[[ xX]\](?=[ \t]|$))?)?"
)
_HEADING_CLOSE = re.compile(r"[ \t]+#+[ \t]*$")
_LINE_START_CHARS = frozenset(" \t>#-*+0123456789=_|[")


def _classify(line: str) -> int:
    if not line or line.isspace():
        return _BLANK
    if _HEADING_LINE.match(line) or _RULE_LINE.match(line) or _TABLE_LINE.match(line):
        return _BREAK
    if _QUOTE_LINE.match(line):
        inner = line.lstrip(" \t")
        while inner.startswith(">"):
            inner = inner[1:].lstrip(" \t")
        kind = _classify(inner)
        return _QUOTE if kind in (_PARA, _LIST) else kind
    if _LIST_LINE.match(line):
        return _LIST
    return _PARA


def _strip_line_start(line: str) -> str:
    """Blank a prose line's block markup: rules, table separators, reference definitions,
    quote markers, heading hashes (opening and closing), list markers and task boxes."""
    if _RULE_LINE.match(line) or _TABLE_SEP_LINE.match(line) or _REFDEF_LINE.match(line):
        return " " * len(line)
    m = _LINE_START.match(line)
    k = m.end()
    if not k:
        return line
    if m.group("hashes"):
        close = _HEADING_CLOSE.search(line, k)
        if close:
            return " " * k + line[k : close.start()] + " " * (len(line) - close.start())
    return " " * k + line[k:]


def _mark_tables(lines: list[str], kinds: list[int]) -> None:
    """Rows of a table without outer pipes ("a | b") end their line too."""
    for i, line in enumerate(lines):
        if kinds[i] == _CODE or "|" not in line or not _TABLE_SEP_LINE.match(line):
            continue
        kinds[i] = _BREAK
        if i and "|" in lines[i - 1] and kinds[i - 1] != _CODE:
            kinds[i - 1] = _BREAK
        j = i + 1
        while j < len(lines) and kinds[j] in (_PARA, _LIST, _QUOTE) and "|" in lines[j]:
            kinds[j] = _BREAK
            j += 1


#: A line that starts a field or a chat message ("Status: blocked", "Mara: I…",
#: "[10:02] Ana Lima: …", "12/03/2024, 19:22 - Amaka: …", "<Rin> …"): never a hard wrap
#: of the line above, so a name or a date cannot run across two fields.
_FIELD_LINE = re.compile(
    r"^[ \t]*(?:(?:\[[^\]\n]{1,40}\]|\(?\d{1,2}[:.]\d{2}(?:[:.]\d{2})?\)?|\d{1,2}/\d{1,2}/\d{2,4},?[ \t]*\d{1,2}:\d{2})"
    r"[ \t]*[-–—]?[ \t]*)?(?:<[^>\s]{1,30}>[ \t]|(?:\*\*|__)?[A-Za-z][\w '’./&-]{0,30}?(?:\*\*|__)?[ \t]*:(?:\*\*|__)?(?:[ \t]|$))")


def plain_text_for_ner(text: str) -> str:
    """Markdown drawer text → text for NER, with exactly ``len(text)`` characters.

    ``text``: a drawer's verbatim markdown (any newline style). Returns the same characters
    at the same offsets, with markup replaced by spaces and hard-wrap newlines by spaces
    (see the module docstring for the full list). Offsets map 1:1: an entity found at
    ``[s, e)`` of the result is at ``[s, e)`` of ``text``. Never raises on any ``str``.
    """
    if not text:
        return text
    lines = text.replace("\r", " ").split("\n")
    kinds: list[int] = []
    out: list[str] = []
    prose: list[str] = []  # pending prose lines, substituted together (cross-line links)

    def flush_prose() -> None:
        if prose:
            out.extend(_INLINE_RE.sub(_replace_inline, "\n".join(prose)).split("\n"))
            prose.clear()

    fence_char = ""
    fence_len = 0
    for line in lines:
        if fence_char:
            m = _FENCE_RE.match(line)
            if m and m.group(1)[0] == fence_char and len(m.group(1)) >= fence_len and not m.group(2).strip():
                fence_char = ""
                kinds.append(_BREAK)
                out.append(" " * len(line))
            else:
                kinds.append(_CODE)
                out.append(line)
            continue
        m = _FENCE_RE.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            flush_prose()
            fence_char = m.group(1)[0]
            fence_len = len(m.group(1))
            kinds.append(_BREAK)
            out.append(" " * len(line))
            continue
        kinds.append(_classify(line))
        prose.append(_strip_line_start(line) if line[:1] in _LINE_START_CHARS else line)
    flush_prose()
    _mark_tables(lines, kinds)

    # Join hard-wrapped lines of one paragraph (or one list item / quote) with a space.
    pieces: list[str] = [out[0]]
    for i in range(1, len(out)):
        prev, cur = kinds[i - 1], kinds[i]
        join = cur == _PARA and prev in (_PARA, _LIST, _QUOTE) and not _FIELD_LINE.match(lines[i])
        if not join and cur == _QUOTE and prev == _QUOTE:
            # "> a" / "> b": one quoted paragraph, unless the second line starts a list item
            inner = lines[i].lstrip(" \t")
            while inner.startswith(">"):
                inner = inner[1:].lstrip(" \t")
            join = not _LIST_LINE.match(inner)
        pieces.append(" " if join else "\n")
        pieces.append(out[i])
    return "".join(pieces)


# ----------------------------------------------------------------- entity names

_LEADING = "(\"'‘“«[{<*_"
_TRAILING = ".,;:!?)\"'’”»]}>*_"
_KEEP_DOT = re.compile(
    r"(?:^|\s)(?:(?:\w\.){2,}|Inc\.|Ltd\.|Corp\.|Co\.|Jr\.|Sr\.|Bros\.|Dr\.|Mr\.|Mrs\.|Ms\.|Prof\.|St\.)$"
)
_POSSESSIVE = re.compile(r"(?:(?<=[\w.])|^)['’][sS]$")  # "Jr.'s" too
_INITIAL = re.compile(r"[^\W\d_]\.")


def normalise_entity_name(name: str) -> str:
    """Clean an entity's surface form; returns ``""`` when nothing is left.

    Collapses runs of whitespace (newlines included) to one space, strips surrounding
    quotes, brackets and punctuation (leading ``("'‘“``…, trailing ``.,;:!?)"'’”``…) and a
    trailing possessive ``'s`` / ``’s``. A final ``.`` is kept when it belongs to an
    initialism or a common abbreviation (``U.S.``, ``Acme Inc.``, ``Jr.``). Case and
    articles are left alone. ``"Alice\\nChen"`` → ``"Alice Chen"``, ``"Alice's"`` →
    ``"Alice"``, ``"  (Bob)  "`` → ``"Bob"``, ``"Marcus Marcus"`` → ``"Marcus"``.
    """
    s = " ".join(name.split())
    while s:
        before = s
        while s and s[-1] in _TRAILING:
            if s[-1] == "." and _KEEP_DOT.search(s):
                break
            s = s[:-1].rstrip()
        s = _POSSESSIVE.sub("", s).rstrip()
        s = s.lstrip(_LEADING).lstrip()
        if s == before:
            break
    words = s.split(" ")
    # spaCy sometimes reads one name twice in a row ("Marcus Marcus"); initials repeat
    # ("J. R. R. Tolkien")
    deduped = [w for i, w in enumerate(words) if i == 0 or w != words[i - 1] or _INITIAL.fullmatch(w)]
    return " ".join(deduped)


def readable(sentence: str) -> str:
    """A cited sentence as people read it: markdown markup removed (``**bold**``,
    ``[[Page|alias]]`` → alias, ``[text](url)`` → text, HTML tags, code ticks) and
    whitespace collapsed. The stored sentence keeps the note's own characters."""
    return tidy(plain_text_for_ner(sentence))


def tidy(text: str) -> str:
    """Whitespace collapsed, and no space left before punctuation where markup was
    blanked ("**Priya Raman**," → "Priya Raman,")."""
    return re.sub(r"\s+([,.;:!?)\]])", r"\1", " ".join(text.split()))
