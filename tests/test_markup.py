"""Tests for palace.nlp.markup: NER text keeps every offset; entity names are cleaned."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.nlp.markup import normalise_entity_name, plain_text_for_ner, strip_inline_markup

MARKDOWN_ALPHABET = st.sampled_from(
    list("abcAB xyz.,;:!?'\"()[]{}<>|*_~`#>-+=\\/&@:|\n\n\r\t ")
    + ["http://", "https://x.org/a", "www.", "[[", "]]", "](", "```", "~~~", "- ", "1. ", "# ", "> ",
       "**", "<!--", "-->", "&amp;", "é", "東京", "🙂", "\u00a0", "\r\n"]
)
markdownish = st.lists(MARKDOWN_ALPHABET, max_size=80).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(markdownish, st.text(max_size=200)))
def test_same_length_and_only_blanking(text):
    out = plain_text_for_ner(text)
    assert len(out) == len(text)
    for original, kept in zip(text, out):
        assert kept == original or kept == " ", (original, kept)
    # newlines only where the text had them
    assert all(text[i] == "\n" for i, ch in enumerate(out) if ch == "\n")


@settings(max_examples=200, deadline=None)
@given(text=markdownish)
def test_strip_inline_markup_same_length(text):
    out = strip_inline_markup(text)
    assert len(out) == len(text)
    assert all(k == o or k == " " for o, k in zip(text, out))


@pytest.mark.unit
@pytest.mark.parametrize(
    "text, expected",
    [
        # links keep their label; images their alt text; wiki links the visible text
        ("See [Acme Robotics](https://acme.example/about \"home\") now.",
         "See  Acme Robotics                                     now."),
        ("![Alice at the board](img/a.png)", "  Alice at the board            "),
        ("[[Bob Chen]] and [[people/carol|Carol Diaz]]", "  Bob Chen   and                Carol Diaz  "),
        ("ref [Acme][1] and note[^2]", "ref  Acme     and note    "),
        # emphasis, strike-through, inline code
        ("**Decision**: ship _now_ or ~~later~~", "  Decision  : ship  now  or   later  "),
        ("use `Vec<T>` and `a_b`", "use  Vec<T>  and  a_b "),
        ("snake_case 2 * 3 stays", "snake_case 2 * 3 stays"),
        # headings, lists, quotes, rules, tables
        ("## Q3 planning ##", "   Q3 planning   "),
        ("- Alice\n* Bob\n+ Carol\n12. Dan\n- [x] Eve", "  Alice\n  Bob\n  Carol\n    Dan\n      Eve"),
        ("> Quoted text", "  Quoted text"),
        ("Above\n\n---\n\nBelow", "Above\n\n   \n\nBelow"),
        ("| Name | Org |\n|---|---|\n| Alice | Acme |",
         "  Name   Org  \n         \n  Alice   Acme  "),
        # bare URLs go, the sentence's full stop stays; HTML goes; entities keep their character
        ("Read https://example.com/x_(y). Then www.rust-lang.org, ok",
         "Read                          . Then                  , ok"),
        ("<b>Bold</b> &amp; <!-- hidden --> <https://x.org>", "   Bold     &                                    "),
        # fences blank, code kept verbatim
        ("```python\n# not a heading\n```", "         \n# not a heading\n   "),
        # hard-wrapped names are joined; block ends keep their newline
        ("Alice\nChen met Bob\nLee.", "Alice Chen met Bob Lee."),
        ("# Title\nAlice\nChen", "  Title\nAlice Chen"),
        ("- Alice\n  Chen joined\n- Bob", "  Alice   Chen joined\n  Bob"),
        ("Para one\n\nPara two", "Para one\n\nPara two"),
        ("Alice\r\nChen", "Alice  Chen"),
        ("Title\n=====\nText", "Title\n     \nText"),
    ],
)
def test_exact_outputs(text, expected):
    assert plain_text_for_ner(text) == expected


@pytest.mark.unit
def test_offsets_map_back_one_to_one():
    text = "## Team\n\n**Alice\nChen** joined [Acme Robotics](https://acme.example) in Q3."
    out = plain_text_for_ner(text)
    for name in ("Alice Chen", "Acme Robotics", "Q3"):
        start = out.index(name)
        assert " ".join(text[start : start + len(name)].split()) == name


@pytest.mark.unit
def test_strip_inline_markup_keeps_line_start():
    assert strip_inline_markup("- **Budget** `v2`") == "-   Budget    v2 "


@pytest.mark.unit
@pytest.mark.parametrize(
    "name, expected",
    [
        ("Alice\nChen", "Alice Chen"),
        ("Acme Robotics.", "Acme Robotics"),
        ("Alice's", "Alice"),
        ("Alice’s", "Alice"),
        ("  (Bob)  ", "Bob"),
        ('"Project Falcon",', "Project Falcon"),
        ("‘Carol’", "Carol"),
        ("James'", "James"),
        ("the Rust Foundation", "the Rust Foundation"),
        ("U.S.", "U.S."),
        ("Acme Inc.", "Acme Inc."),
        ("Bob's).", "Bob"),
        ("  \n ", ""),
        ("...", ""),
        ("'s", ""),
        ("", ""),
    ],
)
def test_normalise_entity_name(name, expected):
    assert normalise_entity_name(name) == expected
