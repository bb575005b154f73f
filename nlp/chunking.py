"""Heading-aware markdown chunking: one file's text → drawers within a token budget.

``chunk_markdown`` cuts the body of a markdown file into :class:`Chunk` s (the text of
future drawers). Units: ``start``/``end``/``body_start`` are character offsets into the
full file text (Python ``str`` indices); ``line_start``/``line_end`` are 1-based line
numbers counted from the start of the full text (``"\\n"`` ends a line, so CRLF counts
once); budgets are in tokens as reported by ``count_tokens``.

How a file is cut:

1. **Sections.** Every ATX heading (``#`` … ``######``) and setext heading (a one-line
   paragraph underlined by ``===`` or ``---``) starts a section that runs to the next
   heading. ``#`` lines inside fenced code blocks are not headings. The heading line is
   the first line of its section's first chunk. Text before the first heading is a
   section whose heading path is ``()``.
2. **Blocks.** A section is made of blocks: its heading line, paragraphs (runs of
   non-blank lines) and fenced code blocks (atomic, blank lines included).
3. **Whole sections first.** A section that fits ``max_tokens`` is never split.
4. **Merging.** Consecutive small pieces are packed greedily up to ``target_tokens``
   (drawers of a few hundred words retrieve best). A chunk may run into following
   sections only while they stay inside the parent of the section it starts in: sibling
   sections and their sub-sections merge, but a chunk that starts under ``## A`` never
   takes in the next ``## B``'s parent-level sibling ``# C``. A merged chunk's
   ``heading_path`` is the common prefix of its sections' paths. A chunk holding only a
   heading may grow up to ``max_tokens`` so headings stay with their text.
5. **Splitting.** A section over ``max_tokens`` is cut between blocks; a block over
   ``max_tokens`` (a code block too) is cut at line ends, then sentence ends
   (``. ``, ``? ``, ``! ``), then whitespace, and only as a last resort inside a word.
   When packing overflows, the cut goes at the best boundary (section > paragraph >
   line > sentence > word > character) that leaves the chunk at least half of
   ``target_tokens``, the fullest such cut winning ties.
6. **Trimming.** A chunk's span drops leading blank lines and trailing whitespace (the
   first line keeps its indentation); whitespace-only text makes no chunk.

Guarantees: chunks are in file order with ``ordinal`` 0…n-1, never overlap, and every
non-whitespace character of ``source[body_start:]`` is in exactly one chunk;
``chunk.text == source[chunk.start:chunk.end]``; ``count_tokens([chunk.text])[0] <=
max_tokens`` for every chunk (checked with the real counter, not an estimate). The
result is a pure function of the arguments.

A text counts at least one token per :data:`MAX_CHARS_PER_TOKEN` characters, whatever
the tokenizer says: WordPiece reads a word over 100 characters as one ``[UNK]``, and a
1.2-million-character run without spaces would otherwise be one "short" drawer that no
NER pipeline accepts. A chunk is therefore at most ``max_tokens × 16`` characters.

Token counting: ``count_tokens(texts)`` returns one count per text, special tokens
included. Piece counts are estimated as additive (``count(a + b) ≈ count(a) + count(b) -
count("")``), which holds for WordPiece when pieces meet at whitespace; every chunk is
then checked with one more batched call and re-split where the estimate was wrong. A file
costs two calls in the usual case (all blocks, then all chunks), plus one per
refinement round for blocks over budget. The counter must not truncate.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from palace.nlp.markup import strip_inline_markup

__all__ = ["ADORNMENT", "Chunk", "CountTokens", "chunk_markdown"]

CountTokens = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True)
class Chunk:
    """One chunk of one file: the text of a drawer and where it sits.

    ``text == source[start:end]``; ``start``/``end`` are character offsets into the full
    file text (end exclusive); ``line_start`` is the 1-based line of ``start`` and
    ``line_end`` the line of the last character (``end - 1``). ``heading_path`` holds the
    titles (markup stripped) of the headings enclosing the whole chunk, outermost first.
    """

    ordinal: int
    start: int
    end: int
    line_start: int
    line_end: int
    heading_path: tuple[str, ...]
    text: str


# Piece levels: what a piece is, and (as a boundary rank) how good a cut before it is.
_SECTION, _BLOCK, _LINE, _SENTENCE, _WORD, _CHAR = range(6)

_ATX_RE = re.compile(r"[ ]{0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*\r?$")
_FENCE_RE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})(.*)")
_SETEXT_RE = re.compile(r"[ ]{0,3}(=+|-+)[ \t]*\r?$")
#: A reStructuredText section adornment: one punctuation character repeated, from the
#: line's first column ("=====", "-----", "~~~~~", "^^^^^").
ADORNMENT = re.compile(r"([=\-`:'\"~^_*+#<>.])\1{2,}[ \t]*\r?$")
_NOT_PARA_RE = re.compile(r"[ \t]*(?:[-*+](?:[ \t]|\r?$)|\d{1,9}[.)](?:[ \t]|\r?$)|>|\|)|[ ]{4}|\t")
_NONSPACE_RE = re.compile(r"\S")
_SENTENCE_END_RE = re.compile(r"[.!?。！？][\"'”’)\]]*\s+")
_SPACE_RE = re.compile(r"\s+")


class _Piece:
    """A span of the body to be packed: ``tok`` is its token estimate without overhead."""

    __slots__ = ("start", "end", "rank", "level", "tok", "sec", "heading", "children")

    def __init__(self, start: int, end: int, rank: int, level: int, sec: int, heading: bool = False):
        self.start = start
        self.end = end
        self.rank = rank  # boundary quality of a cut just before this piece (lower = better)
        self.level = level  # what the piece is (_SECTION … _CHAR)
        self.tok = 0
        self.sec = sec
        self.heading = heading  # the piece is only a heading line (or a heading-only section)
        self.children: list[_Piece] | None = None


class _Section:
    __slots__ = ("level", "parent_level", "ancestors")

    def __init__(self, level: int, parent_level: int, ancestors: tuple[int, ...]):
        self.level = level  # heading level, 0 for the text before the first heading
        self.parent_level = parent_level  # a chunk starting here stops at headings <= this
        self.ancestors = ancestors  # ids (into titles) of the enclosing headings, itself last



#: A chunk counts at least one token per this many characters (see the module docstring).
MAX_CHARS_PER_TOKEN = 16

def chunk_markdown(
    source: str,
    *,
    body_start: int = 0,
    count_tokens: CountTokens,
    max_tokens: int,
    target_tokens: int | None = None,
    rst: bool = False,
    days: Sequence[tuple[int, str]] = (),
) -> list[Chunk]:
    """Cut ``source[body_start:]`` into heading-aware chunks of at most ``max_tokens``.

    ``source``: the full file text. ``body_start``: character offset where the body starts;
    the characters before it (front matter) go into no chunk, but line numbers still count
    from the start of ``source``. ``count_tokens``: batched counter, a list of texts in,
    a list of token counts (special tokens included) out. ``max_tokens``: hard limit per
    chunk. ``target_tokens``: the size small pieces are packed up to (default
    ``max(1, 3 * max_tokens // 4)``). ``rst``: the text is reStructuredText, whose
    section titles are underlined (and maybe overlined) by any :data:`ADORNMENT`, each
    style a level in the order the styles first appear; ``#`` lines and backtick
    fences are then text. ``days``: ``(offset of a line, title)`` where a chat's new day
    begins (:func:`palace.nlp.chats.chat_days`): each starts a section above every
    heading, titled by its day (``2024-03-12``), which no chunk runs across.

    Returns the chunks in file order (empty for an empty or whitespace-only body); see the
    module docstring for how cuts are chosen and what is guaranteed.

    Raises ``ValueError`` if ``body_start`` is outside ``0..len(source)``, if
    ``max_tokens`` is below ``count_tokens([""])[0] + 1``, if ``target_tokens`` is not in
    ``1..max_tokens``, if ``count_tokens`` returns the wrong number of counts, or if a
    single character counts more than ``max_tokens``.
    """
    if not 0 <= body_start <= len(source):
        raise ValueError(f"body_start {body_start} is outside 0..{len(source)}")
    if target_tokens is None:
        target_tokens = max(1, (3 * max_tokens) // 4)
    if not 1 <= target_tokens <= max_tokens:
        raise ValueError(f"target_tokens {target_tokens} must be in 1..max_tokens ({max_tokens})")
    if not _NONSPACE_RE.search(source, body_start):
        return []
    def bounded(texts: list[str]) -> list[int]:  # a run without spaces is one [UNK] to WordPiece
        counts = count_tokens(texts)
        if len(counts) != len(texts):
            return counts  # the chunker reports the wrong number of counts
        return [max(count, -(-len(text) // MAX_CHARS_PER_TOKEN)) for count, text in zip(counts, texts)]

    return _Chunker(source, body_start, bounded, max_tokens, target_tokens, rst, days).run()


class _Chunker:
    def __init__(self, source: str, body_start: int, count_tokens: CountTokens, max_tokens: int, target: int,
                 rst: bool = False, days: Sequence[tuple[int, str]] = ()):
        self.rst = rst
        self.days = dict(days)
        self.styles: list[tuple[str, bool]] = []  # reST adornment styles (char, overlined), in order seen
        self.src = source
        self.body_start = body_start
        self.count_fn = count_tokens
        self.max = max_tokens
        self.target = target
        self.overhead = 0
        self.sections: list[_Section] = []
        self.titles: list[str] = []

    # ------------------------------------------------------------------ counting
    def count(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        counts = list(self.count_fn(texts))
        if len(counts) != len(texts):
            raise ValueError(f"count_tokens returned {len(counts)} counts for {len(texts)} texts")
        return counts

    def count_pieces(self, pieces: list[_Piece], *, with_overhead: bool = False) -> None:
        src = self.src
        texts = [src[p.start : p.end] for p in pieces]
        if with_overhead:
            texts.append("")
        counts = self.count(texts)
        if with_overhead:
            self.overhead = counts.pop()
            if self.max < self.overhead + 1:
                raise ValueError(
                    f"max_tokens {self.max} leaves no room for text: an empty text counts {self.overhead} tokens"
                )
        overhead = self.overhead
        for p, c in zip(pieces, counts):
            p.tok = max(0, c - overhead)

    # ------------------------------------------------------------------ run
    def run(self) -> list[Chunk]:
        blocks = self.parse()
        self.count_pieces(blocks, with_overhead=True)
        pieces = self.section_pieces(blocks)
        pieces = self.refine_oversize(pieces)
        groups = self.pack(pieces)
        groups = self.verify(groups)
        return self.build(groups)

    # ------------------------------------------------------------------ parsing
    def parse(self) -> list[_Piece]:
        """Scan the body's lines: headings → sections, and the blocks of each section."""
        src = self.src
        n = len(src)
        pos = self.body_start
        # (start, kind) for each block start; kind: 0 text, 1 heading line, 2 fence.
        starts: list[tuple[int, int]] = [(pos, 0)]
        heads: list[tuple[int, int, str]] = []  # (line start, level, raw title)
        fence_char = ""
        fence_len = 0
        prev_blank = True
        prev_start = -1  # start of the previous line
        prev_para_single = False  # previous line is a one-line plain paragraph
        prev_text = ""
        while pos < n:
            nl = src.find("\n", pos)
            end = n if nl < 0 else nl + 1
            line = src[pos : end if nl < 0 else nl]
            if fence_char:
                m = _FENCE_RE.match(line)
                if m and m.group(1)[0] == fence_char and len(m.group(1)) >= fence_len and not m.group(2).strip():
                    fence_char = ""
                    if end < n:
                        starts.append((end, 0))
                prev_blank, prev_para_single = True, False
                pos = end
                continue
            if not line.strip():
                prev_blank, prev_para_single = True, False
                pos = end
                continue
            if pos in self.days:  # a chat's new day: a section of its own, above every heading
                heads.append((pos, 0, self.days[pos]))
                starts.append((pos, 0))
            if self.rst:
                taken = self.rst_heading(line, pos, end, prev_blank, prev_para_single, prev_start, prev_text,
                                         heads, starts)
                if taken is not None:
                    prev_blank, prev_para_single = True, False
                    pos = taken
                    continue
                if prev_blank:
                    starts.append((pos, 0))
                    prev_para_single = not _NOT_PARA_RE.match(line)
                    prev_text = line
                else:
                    prev_para_single = False
                prev_blank = False
                prev_start = pos
                pos = end
                continue
            m = _FENCE_RE.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence_char = m.group(1)[0]
                fence_len = len(m.group(1))
                starts.append((pos, 2))
                prev_blank, prev_para_single = False, False
                pos = end
                continue
            m = _ATX_RE.match(line)
            if m:
                heads.append((pos, len(m.group(1)), m.group(2) or ""))
                starts.append((pos, 1))
                if end < n:
                    starts.append((end, 0))
                prev_blank, prev_para_single = True, False  # the next line starts a block
                pos = end
                continue
            m = _SETEXT_RE.match(line) if prev_para_single else None
            if m:
                # The previous line (a block start already) is the title.
                heads.append((prev_start, 1 if m.group(1)[0] == "=" else 2, prev_text))
                starts[-1] = (prev_start, 1)
                if end < n:
                    starts.append((end, 0))
                prev_blank, prev_para_single = True, False
                pos = end
                continue
            if prev_blank:
                starts.append((pos, 0))
                prev_para_single = not _NOT_PARA_RE.match(line)
                prev_text = line
            else:
                prev_para_single = False
            prev_blank = False
            prev_start = pos
            pos = end

        self.make_sections(heads)
        head_starts = [h[0] for h in heads]
        # Blocks: consecutive starts (duplicates merged, the strongest kind kept) tile the body.
        merged: list[tuple[int, int]] = []
        for s, kind in starts:
            if merged and merged[-1][0] == s:
                merged[-1] = (s, max(kind, merged[-1][1]))
            else:
                merged.append((s, kind))
        blocks: list[_Piece] = []
        offset = 0 if self.has_preamble else 1
        for i, (s, kind) in enumerate(merged):
            e = merged[i + 1][0] if i + 1 < len(merged) else n
            if not _NONSPACE_RE.search(src, s, e):
                continue
            sec = bisect_right(head_starts, s) - offset
            rank = _SECTION if not blocks or blocks[-1].sec != sec else _BLOCK
            blocks.append(_Piece(s, e, rank, _BLOCK, sec, heading=kind == 1))
        return blocks

    def rst_heading(self, line: str, pos: int, end: int, prev_blank: bool, prev_single: bool, prev_start: int,
                    prev_text: str, heads: list, starts: list) -> int | None:
        """Read a reStructuredText section title at ``line``: an underline below a
        one-line paragraph, or an overline with its title and underline below. Records
        the heading and returns where scanning goes on; None when ``line`` is no
        adornment of a title."""
        if not ADORNMENT.match(line):
            return None
        src, n = self.src, len(self.src)
        char = line[0]
        if prev_single and len(line.rstrip()) >= min(len(prev_text.strip()), 3):
            heads.append((prev_start, self.rst_level(char, False), prev_text.strip()))
            starts[-1] = (prev_start, 1)
            if end < n:
                starts.append((end, 0))
            return end
        if not prev_blank:
            return None
        title_end = src.find("\n", end)
        title_end = n if title_end < 0 else title_end
        under_end = src.find("\n", title_end + 1) if title_end < n else -1
        under_end = n if under_end < 0 else under_end
        title, under = src[end:title_end], src[title_end + 1:under_end]
        if not title.strip() or ADORNMENT.match(title.strip()) or not under.startswith(char * 3) \
                or not ADORNMENT.match(under):
            return None
        heads.append((pos, self.rst_level(char, True), title.strip()))
        starts.append((pos, 1))
        after = min(n, under_end + 1)
        if after < n:
            starts.append((after, 0))
        return after

    def rst_level(self, char: str, overlined: bool) -> int:
        """The level of a reST adornment style: its rank among the styles seen (≤ 6)."""
        style = (char, overlined)
        if style not in self.styles:
            self.styles.append(style)
        return min(6, self.styles.index(style) + 1)

    def make_sections(self, heads: list[tuple[int, int, str]]) -> None:
        src = self.src
        first = heads[0][0] if heads else len(src)
        self.has_preamble = bool(_NONSPACE_RE.search(src, self.body_start, first))
        if self.has_preamble:
            self.sections.append(_Section(0, 0, ()))
        stack: list[tuple[int, int]] = []  # (level, heading id)
        self.day_heads = {hid for hid, (_, level, _) in enumerate(heads) if level == 0}  # a chat's days
        for hid, (_, level, raw) in enumerate(heads):
            while stack and stack[-1][0] >= level:
                stack.pop()
            parent_level = stack[-1][0] if stack else 0
            stack.append((level, hid))
            self.titles.append(" ".join(strip_inline_markup(raw).split()))
            self.sections.append(_Section(level, parent_level, tuple(h for _, h in stack)))

    # ------------------------------------------------------------------ pieces
    def section_pieces(self, blocks: list[_Piece]) -> list[_Piece]:
        """Whole sections that fit ``max_tokens`` become one piece; others stay blocks."""
        out: list[_Piece] = []
        budget = self.max - self.overhead
        i = 0
        while i < len(blocks):
            j = i
            sec = blocks[i].sec
            total = 0
            while j < len(blocks) and blocks[j].sec == sec:
                total += blocks[j].tok
                j += 1
            run = blocks[i:j]
            if total <= budget and len(run) > 1:
                p = _Piece(run[0].start, run[-1].end, run[0].rank, _SECTION, sec, all(b.heading for b in run))
                p.tok = total
                p.children = run
                out.append(p)
            else:
                out.extend(run)
            i = j
        return out

    def split_piece(self, p: _Piece) -> list[_Piece]:
        """Children of ``p`` at the next level that cuts it in two or more (not yet counted,
        except a whole section's blocks)."""
        if p.children is not None:
            return p.children
        src = self.src
        start, end = p.start, p.end
        level = min(p.level + 1, _CHAR)
        while level <= _CHAR:
            bounds = [start, *self.cuts(start, end, p.tok, level), end]
            spans = [(a, b) for a, b in zip(bounds, bounds[1:]) if _NONSPACE_RE.search(src, a, b)]
            if len(spans) > 1:
                return [
                    _Piece(a, b, p.rank if i == 0 else level, level, p.sec, p.heading)
                    for i, (a, b) in enumerate(spans)
                ]
            if spans and spans[0] != (start, end):
                start, end = spans[0]  # only whitespace was cut off: retry this level
                continue
            level += 1
        raise ValueError(
            f"max_tokens {self.max} is too small: {src[start:end]!r} counts more tokens than that "
            "and cannot be cut further"
        )

    def cuts(self, s: int, e: int, tok: int, level: int) -> list[int]:
        """Cut positions strictly inside ``[s, e)`` for ``level``; whitespace stays on the left."""
        src = self.src
        if level == _LINE:
            out = []
            k = src.find("\n", s, e - 1)
            while k >= 0:
                out.append(k + 1)
                k = src.find("\n", k + 1, e - 1)
            return out
        if level in (_SENTENCE, _WORD):
            rx = _SENTENCE_END_RE if level == _SENTENCE else _SPACE_RE
            return [m.end() for m in rx.finditer(src, s, e) if s < m.end() < e]
        if level == _CHAR:
            length = e - s
            if length < 2:
                return []
            budget = self.max - self.overhead
            size = max(1, min(length - 1, int(length * budget * 0.9 / max(tok, 1))))
            return list(range(s + size, e, size))
        return []  # blocks are made by the parser only

    def refine_oversize(self, pieces: list[_Piece]) -> list[_Piece]:
        """Replace every piece over budget by smaller ones, one counting call per round."""
        budget = self.max - self.overhead
        while True:
            over = [k for k, p in enumerate(pieces) if p.tok > budget]
            if not over:
                return pieces
            replaced: dict[int, list[_Piece]] = {}
            fresh: list[_Piece] = []
            for k in over:
                kids = self.split_piece(pieces[k])
                replaced[k] = kids
                fresh.extend(kid for kid in kids if kid.level != _BLOCK)
            self.count_pieces(fresh)
            out: list[_Piece] = []
            for k, p in enumerate(pieces):
                out.extend(replaced.get(k, (p,)))
            pieces = out

    # ------------------------------------------------------------------ packing
    def pack(self, pieces: list[_Piece]) -> list[list[_Piece]]:
        groups: list[list[_Piece]] = []
        cur: list[_Piece] = []
        cur_tok = 0
        heading_only = True  # cur holds only heading lines: it may grow up to max_tokens
        sections = self.sections
        for p in pieces:
            if cur:
                if p.rank == _SECTION and (sections[p.sec].level <= sections[cur[0].sec].parent_level
                                           or self.new_day(sections[cur[0].sec], sections[p.sec])):
                    groups.append(cur)
                    cur, cur_tok, heading_only = [], 0, True
                elif self.overhead + cur_tok + p.tok > (self.max if heading_only else self.target):
                    k = self.best_cut(cur, p)
                    groups.append(cur[:k])
                    cur = cur[k:]
                    cur_tok = sum(q.tok for q in cur)
                    heading_only = all(q.heading for q in cur)
            cur.append(p)
            cur_tok += p.tok
            heading_only = heading_only and p.heading
        if cur:
            groups.append(cur)
        return groups

    def new_day(self, first: "_Section", section: "_Section") -> bool:
        """Whether ``section`` lies in another day of a chat than ``first``: a day begins
        at its dated heading ("## Session 3 — … 14 August, 2022"), so the day's own section
        is empty and the heading's section is the first to hold text; no chunk runs from
        one day into the next."""
        day = next((h for h in section.ancestors if h in self.day_heads), None)
        return day is not None and day != next((h for h in first.ancestors if h in self.day_heads), None)

    def best_cut(self, cur: list[_Piece], p: _Piece) -> int:
        """Where to end the chunk ``cur`` now that ``p`` does not fit: an index into ``cur``.

        Candidates leave at least half the target before the cut, and a tail that fits the
        target with ``p`` and stays inside one parent section. The best boundary rank wins,
        then the fullest chunk. Without a candidate the cut goes just before ``p`` (or before
        the heading lines that ``cur`` ends with, so they stay with their text).
        """
        sections = self.sections
        half = (self.target - self.overhead) / 2
        room = self.target - self.overhead - p.tok
        best_k, best_rank = len(cur), p.rank
        if best_rank == _SECTION:
            return best_k
        tail = 0
        # min heading level among section starts after position k, p included
        min_level = sections[p.sec].level if p.rank == _SECTION else 99
        before = sum(q.tok for q in cur)
        for k in range(len(cur) - 1, 0, -1):
            q = cur[k]
            tail += q.tok
            before -= q.tok
            if tail > room or before < half:
                break
            if q.rank < best_rank and min_level > sections[q.sec].parent_level:
                best_k, best_rank = k, q.rank
                if best_rank == _SECTION:
                    break
            if q.rank == _SECTION:
                min_level = min(min_level, sections[q.sec].level)
        if best_k == len(cur):
            # Never end a chunk with the heading whose text starts the next one.
            tail = p.tok + self.overhead
            while best_k > 1 and cur[best_k - 1].heading and tail + cur[best_k - 1].tok <= self.max:
                best_k -= 1
                tail += cur[best_k].tok
        return best_k

    # ------------------------------------------------------------------ checking
    def span(self, group: list[_Piece]) -> tuple[int, int]:
        src = self.src
        a, b = group[0].start, group[-1].end
        text = src[a:b]
        lead = len(text) - len(text.lstrip())
        if lead:
            nl = text.rfind("\n", 0, lead)
            if nl >= 0:
                lead = nl + 1
            elif a == 0 or src[a - 1] == "\n":
                lead = 0
        return a + lead, a + len(text.rstrip())

    def verify(self, groups: list[list[_Piece]]) -> list[list[_Piece]]:
        """Count every chunk for real (one call per round); split those over ``max_tokens``."""
        src = self.src
        checked = [False] * len(groups)
        while True:
            todo = [g for g, done in enumerate(checked) if not done]
            if not todo:
                return groups
            texts = []
            for g in todo:
                s, e = self.span(groups[g])
                texts.append(src[s:e])
            over = {g for g, c in zip(todo, self.count(texts)) if c > self.max}
            new_groups: list[list[_Piece]] = []
            new_checked: list[bool] = []
            for g, group in enumerate(groups):
                if g in over:
                    for part in self.halve(group):
                        new_groups.append(part)
                        new_checked.append(False)
                else:
                    new_groups.append(group)
                    new_checked.append(True)
            groups, checked = new_groups, new_checked

    def halve(self, group: list[_Piece]) -> list[list[_Piece]]:
        """Cut an over-budget group in two at its best boundary nearest the middle."""
        while len(group) == 1:
            kids = self.split_piece(group[0])
            self.count_pieces([k for k in kids if k.level != _BLOCK])
            group = kids
        total = sum(p.tok for p in group)
        best_k, best_key = 1, (99, 0)
        acc = 0
        for k in range(1, len(group)):
            acc += group[k - 1].tok
            key = (group[k].rank, abs(2 * acc - total))
            if key < best_key:
                best_k, best_key = k, key
        return [group[:best_k], group[best_k:]]

    # ------------------------------------------------------------------ output
    def build(self, groups: list[list[_Piece]]) -> list[Chunk]:
        src = self.src
        chunks: list[Chunk] = []
        line = 1
        line_pos = 0
        for group in groups:
            s, e = self.span(group)
            line += src.count("\n", line_pos, s)
            line_pos = s
            line_end = line + src.count("\n", s, e - 1)
            chunks.append(
                Chunk(
                    ordinal=len(chunks),
                    start=s,
                    end=e,
                    line_start=line,
                    line_end=line_end,
                    heading_path=self.heading_path(group),
                    text=src[s:e],
                )
            )
        return chunks

    def heading_path(self, group: list[_Piece]) -> tuple[str, ...]:
        sections = self.sections
        common = sections[group[0].sec].ancestors
        last = -1
        for p in group:
            if p.sec == last:
                continue
            last = p.sec
            anc = sections[p.sec].ancestors
            k = 0
            while k < len(common) and k < len(anc) and common[k] == anc[k]:
                k += 1
            common = common[:k]
        return tuple(t for t in (self.titles[h] for h in common) if t)
