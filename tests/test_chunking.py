"""Tests for palace.nlp.chunking: properties on random markdown, then exact examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palace.nlp.chunking import Chunk, chunk_markdown


def count_words(texts):
    """Fake counter: whitespace-separated words + 2 special tokens (additive)."""
    return [len(t.split()) + 2 for t in texts]


def count_chars(texts):
    """Fake counter that is not additive over pieces: ceil(non-space chars / 3) + 2."""
    return [math.ceil(sum(not c.isspace() for c in t) / 3) + 2 for t in texts]


# ----------------------------------------------------------------- strategies

WORDS = ["alpha", "Bob", "Chen", "budget", "Q3", "café", "naïve", "東京", "🙂", "x", "a.b", "end.", "why?", "ok!"]
word = st.one_of(st.sampled_from(WORDS), st.text(alphabet="abcé#*_`>|-", min_size=1, max_size=12))
words = st.lists(word, min_size=1, max_size=14).map(" ".join)


@st.composite
def block(draw):
    kind = draw(st.sampled_from(["heading", "para", "list", "code", "blank", "setext", "long"]))
    if kind == "heading":
        return [draw(st.sampled_from(["#", "##", "###", "####", "  ##"])) + " " + draw(words)]
    if kind == "para":
        return draw(st.lists(words, min_size=1, max_size=6))
    if kind == "list":
        items = draw(st.lists(words, min_size=1, max_size=6))
        return [draw(st.sampled_from(["- ", "* ", "1. ", "    - "])) + item for item in items]
    if kind == "code":
        body = draw(st.lists(st.one_of(words, st.just(""), st.just("# not a heading")), max_size=8))
        fence = draw(st.sampled_from(["```", "~~~", "```python"]))
        closed = draw(st.booleans())
        return [fence, *body] + ([fence[:3]] if closed else [])
    if kind == "setext":
        return ["", draw(words), draw(st.sampled_from(["===", "---"]))]
    if kind == "long":
        return ["".join(draw(st.lists(st.sampled_from("abcdefgh"), min_size=20, max_size=80)))]
    return [""] * draw(st.integers(1, 3))


@st.composite
def document(draw):
    lines = [line for b in draw(st.lists(block(), max_size=25)) for line in b]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    body = newline.join(lines) + draw(st.sampled_from(["", newline, newline * 2, "  "]))
    front = draw(st.sampled_from(["", "---\ntitle: front matter words here\n---\n", "---\r\n# x\r\n---\r\n"]))
    return front + body, len(front)


def check_invariants(source: str, body_start: int, chunks: list[Chunk], max_tokens: int, counter) -> None:
    covered = [False] * len(source)
    previous_end = body_start
    for i, c in enumerate(chunks):
        assert c.ordinal == i
        assert body_start <= previous_end <= c.start < c.end <= len(source)
        previous_end = c.end
        assert c.text == source[c.start : c.end]
        assert c.text.strip(), "whitespace-only chunk"
        assert not c.text[-1].isspace()
        assert c.text.split("\n", 1)[0].strip(), "leading blank line kept"
        assert c.line_start == source.count("\n", 0, c.start) + 1
        assert c.line_end == source.count("\n", 0, c.end - 1) + 1
        assert counter([c.text])[0] <= max_tokens
        assert all(isinstance(t, str) and t for t in c.heading_path)
        for k in range(c.start, c.end):
            covered[k] = True
    for k, ch in enumerate(source):
        if k >= body_start and not ch.isspace():
            assert covered[k], f"char {k} {ch!r} not in any chunk"


# ----------------------------------------------------------------- properties


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=document(), max_tokens=st.integers(20, 60), target_frac=st.sampled_from([None, 0.5, 1.0]))
def test_properties_with_word_counter(doc, max_tokens, target_frac):
    source, body_start = doc
    target = None if target_frac is None else max(1, int(max_tokens * target_frac))
    chunks = chunk_markdown(
        source, body_start=body_start, count_tokens=count_words, max_tokens=max_tokens, target_tokens=target
    )
    check_invariants(source, body_start, chunks, max_tokens, count_words)
    again = chunk_markdown(
        source, body_start=body_start, count_tokens=count_words, max_tokens=max_tokens, target_tokens=target
    )
    assert again == chunks


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=document(), max_tokens=st.integers(3, 12))
def test_properties_with_non_additive_counter(doc, max_tokens):
    """Estimates are wrong for this counter; the real check must still hold (mid-word cuts too)."""
    source, body_start = doc
    chunks = chunk_markdown(source, body_start=body_start, count_tokens=count_chars, max_tokens=max_tokens)
    check_invariants(source, body_start, chunks, max_tokens, count_chars)


@pytest.mark.unit
@settings(max_examples=60, deadline=None)
@given(source=st.text(max_size=300), max_tokens=st.integers(3, 30))
def test_properties_on_arbitrary_text(source, max_tokens):
    chunks = chunk_markdown(source, count_tokens=count_words, max_tokens=max_tokens)
    check_invariants(source, 0, chunks, max_tokens, count_words)


# ----------------------------------------------------------------- examples


def chunk(source, max_tokens=60, **kw):
    return chunk_markdown(source, count_tokens=count_words, max_tokens=max_tokens, **kw)


FILLER = " ".join(["word"] * 12)


@pytest.mark.unit
def test_identical_sections_give_identical_text_at_different_spans():
    source = (
        f"# Meeting one\n\n{FILLER}\n\n## Action items\nTBD\n\n"
        f"# Meeting two\n\n{FILLER}\n\n## Action items\nTBD\n"
    )
    chunks = chunk(source, max_tokens=20)
    items = [c for c in chunks if c.text == "## Action items\nTBD"]
    assert len(items) == 2
    first, second = items
    assert first.start != second.start
    assert (first.line_start, first.line_end) == (5, 6)
    assert (second.line_start, second.line_end) == (12, 13)
    assert first.heading_path == ("Meeting one", "Action items")
    assert second.heading_path == ("Meeting two", "Action items")


@pytest.mark.unit
def test_heading_paths_of_a_nested_document():
    source = (
        "# Q3 *planning*\n\n"
        + FILLER
        + "\n\n## Budget\n\n"
        + FILLER
        + "\n\n### Travel `costs`\n\n"
        + FILLER
        + "\n\n## [Hiring](https://example.com) ##\n\n"
        + FILLER
        + "\n"
    )
    chunks = chunk(source, max_tokens=20)
    assert [c.heading_path for c in chunks] == [
        ("Q3 planning",),
        ("Q3 planning", "Budget"),
        ("Q3 planning", "Budget", "Travel costs"),
        ("Q3 planning", "Hiring"),
    ]
    assert [c.text.split("\n", 1)[0] for c in chunks] == [
        "# Q3 *planning*",
        "## Budget",
        "### Travel `costs`",
        "## [Hiring](https://example.com) ##",
    ]


@pytest.mark.unit
def test_small_sibling_sections_merge_under_their_parent():
    source = "# Notes\n\n## Attendance\nAlice, Bob\n\n## Decisions\nShip it.\n\n# Other\nText here.\n"
    chunks = chunk(source, max_tokens=24)
    assert [c.text for c in chunks] == [
        "# Notes\n\n## Attendance\nAlice, Bob\n\n## Decisions\nShip it.\n\n# Other\nText here.",
    ]
    assert chunks[0].heading_path == ()
    # A chunk that starts under "## Decisions" never takes in "# Other" (a parent-level heading),
    # and the heading-only "# Notes" joins the section after it.
    source = f"# Notes\n\n## Attendance\n{FILLER}\n\n## Decisions\nShip it.\n\n# Other\nText here.\n"
    chunks = chunk(source, max_tokens=24)
    assert [c.text.split("\n", 1)[0] for c in chunks] == ["# Notes", "## Decisions", "# Other"]
    assert [c.heading_path for c in chunks] == [("Notes",), ("Notes", "Decisions"), ("Other",)]


@pytest.mark.unit
def test_section_that_fits_max_stays_whole_even_above_target():
    source = "# A\n\n" + "\n\n".join([" ".join(["w"] * 5)] * 6) + "\n"
    chunks = chunk(source, max_tokens=40, target_tokens=10)
    assert len(chunks) == 1


@pytest.mark.unit
def test_heading_stays_with_its_text_when_a_section_is_split():
    paragraphs = [" ".join([f"p{i}"] * 10) for i in range(5)]
    source = "## Long section\n\n" + "\n\n".join(paragraphs) + "\n"
    chunks = chunk(source, max_tokens=30)
    assert chunks[0].text.startswith("## Long section\n\np0")
    assert all(c.heading_path == ("Long section",) for c in chunks)
    # cuts fall between paragraphs
    assert all(c.text.endswith(tuple(p[-2:] for p in paragraphs)) for c in chunks)


@pytest.mark.unit
def test_a_heading_never_ends_a_chunk_before_its_own_text():
    source = "# Doc\n\n" + " ".join(["intro"] * 5) + "\n\n## Part\n\n" + FILLER + "\n\n" + FILLER + "\n"
    chunks = chunk(source, max_tokens=20)  # target 15: "## Part" fits after the intro, its text does not
    assert [c.text.split("\n", 1)[0] for c in chunks] == ["# Doc", "## Part", FILLER]
    assert chunks[1].text == "## Part\n\n" + FILLER


@pytest.mark.unit
def test_split_order_paragraph_line_sentence_word():
    line = " ".join(["w"] * 8)
    source = "\n".join([line] * 6)  # one paragraph of 48 words, six lines
    chunks = chunk(source, max_tokens=20)
    assert all(c.text.count("\n") + 1 == len(c.text.split()) // 8 for c in chunks)
    sentences = " ".join(["One two three four five."] * 8)  # one line, 40 words
    chunks = chunk(sentences, max_tokens=14)
    assert all(c.text.endswith("five.") for c in chunks)
    assert "".join(c.text + " " for c in chunks).strip() == sentences
    words_only = " ".join(f"w{i}" for i in range(30))
    chunks = chunk(words_only, max_tokens=12)
    assert " ".join(c.text for c in chunks) == words_only


@pytest.mark.unit
def test_code_fences_are_not_split_and_hide_headings():
    code = "```python\n# comment, not a heading\n\nx = 1\n\ny = 2\n```"
    source = f"# Code\n\n{FILLER}\n\n{code}\n\nAfter.\n"
    chunks = chunk(source, max_tokens=20)
    assert any(code in c.text for c in chunks)
    assert all(c.heading_path == ("Code",) for c in chunks)


@pytest.mark.unit
def test_a_code_block_over_max_is_split_at_lines():
    code = "```\n" + "\n".join(f"line {i} of code" for i in range(30)) + "\n```\n"
    chunks = chunk(code, max_tokens=20)
    assert len(chunks) > 1
    assert all(c.text.startswith(("```", "line")) for c in chunks)


@pytest.mark.unit
def test_mid_word_split_is_the_last_resort():
    word = "x" * 100
    chunks = chunk_markdown(f"Start {word} end", count_tokens=count_chars, max_tokens=10)
    assert "".join(c.text.replace(" ", "") for c in chunks) == f"Start{word}end"
    assert all(count_chars([c.text])[0] <= 10 for c in chunks)


@pytest.mark.unit
def test_front_matter_is_excluded_but_counts_for_lines():
    front = "---\ntitle: Secret front matter\n---\n"
    source = front + "\n# Title\nBody text.\n"
    chunks = chunk(source, body_start=len(front))
    assert len(chunks) == 1
    assert chunks[0].text == "# Title\nBody text."
    assert chunks[0].start == len(front) + 1
    assert (chunks[0].line_start, chunks[0].line_end) == (5, 6)


@pytest.mark.unit
def test_crlf_source():
    source = "# One\r\n\r\nFirst para.\r\n\r\n# Two\r\nSecond para.\r\n"
    chunks = chunk(source, max_tokens=6)
    assert [c.text for c in chunks] == ["# One\r\n\r\nFirst para.", "# Two\r\nSecond para."]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 3), (5, 6)]
    assert [c.heading_path for c in chunks] == [("One",), ("Two",)]


@pytest.mark.unit
def test_setext_headings():
    source = f"Title\n=====\n\n{FILLER}\n\nPart two\n--------\n{FILLER}\n"
    chunks = chunk(source, max_tokens=20)
    assert [c.heading_path for c in chunks] == [("Title",), ("Title", "Part two")]


@pytest.mark.unit
def test_leading_blank_lines_trimmed_indentation_kept():
    source = "\n\n   indented start\n  more\n\n\n"
    (only,) = chunk(source)
    assert only.text == "   indented start\n  more"
    assert (only.line_start, only.line_end) == (3, 4)


@pytest.mark.unit
def test_empty_and_whitespace_bodies():
    assert chunk("") == []
    assert chunk(" \n\t\r\n") == []
    assert chunk("---\na: b\n---\n\n", body_start=14) == []


@pytest.mark.unit
def test_counts_are_batched():
    calls = []

    def counter(texts):
        calls.append(len(texts))
        return count_words(texts)

    source = "\n\n".join(f"## S{i}\n\n{FILLER}" for i in range(50))
    chunk_markdown(source, count_tokens=counter, max_tokens=40)
    assert len(calls) == 2  # every block once, then every chunk once


@pytest.mark.unit
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"body_start": -1}, "body_start"),
        ({"body_start": 99}, "body_start"),
        ({"max_tokens": 2}, "max_tokens"),
        ({"target_tokens": 100}, "target_tokens"),
        ({"target_tokens": 0}, "target_tokens"),
    ],
)
def test_errors(kwargs, message):
    args = {"count_tokens": count_words, "max_tokens": 20, **kwargs}
    with pytest.raises(ValueError, match=message):
        chunk_markdown("# Title\ntext", **args)


@pytest.mark.unit
def test_a_character_that_never_fits_raises():
    with pytest.raises(ValueError, match="too small"):
        chunk_markdown("abc", count_tokens=lambda ts: [len(t) * 5 + 1 for t in ts], max_tokens=3)


@pytest.mark.unit
def test_wrong_number_of_counts_raises():
    with pytest.raises(ValueError, match="counts"):
        chunk_markdown("text", count_tokens=lambda ts: [1], max_tokens=5)
