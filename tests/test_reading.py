"""Reading notes: encodings, byte-order marks, CRLF front matter, binary content, dates."""

from __future__ import annotations

import codecs
import datetime as dt
import os

import pytest

from palace.mine.reading import Unreadable, decode, read_note, split_front_matter

pytestmark = pytest.mark.unit

CAFE = "Café Müller: a naïve résumé, déjà vu.\n"


@pytest.mark.parametrize(
    "data, encoding",
    [
        (CAFE.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + CAFE.encode("utf-8"), "utf-8 (BOM)"),
        (CAFE.encode("utf-16"), "utf-16 (BOM)"),
        (codecs.BOM_UTF16_BE + CAFE.encode("utf-16-be"), "utf-16 (BOM)"),
    ],
)
def test_decode_unicode_forms(data, encoding):
    assert decode(data) == (CAFE, encoding)


def test_decode_legacy_code_page():
    text = ("Notes from Café Müller. The naïve plan: send my résumé, then déjà vu at the "
            "crème brûlée stand.\n") * 3
    decoded, encoding = decode(text.encode("cp1252"))
    assert decoded == text
    assert encoding.replace("_", "").lower() in {"cp1252", "latin1", "iso88591", "windows1252"}


def test_binary_content_is_skipped_whatever_its_name():
    with pytest.raises(Unreadable) as info:
        decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert info.value.status == "skipped" and "binary" in info.value.reason


def test_crlf_front_matter_is_parsed(tmp_path):
    path = tmp_path / "vendor-call.md"
    path.write_bytes(b"---\r\ndate: 2024-05-07\r\ntitle: Vendor call\r\ntags: [vendors, larkspur]\r\n"
                     b"aliases:\r\n  - Larkspur call\r\n---\r\n# Vendor call\r\n\r\nWe spoke to Larkspur.\r\n")
    note = read_note(path)
    assert note.doc_date == dt.date(2024, 5, 7) and note.doc_date_source == "front matter"
    assert note.title == "Vendor call"
    assert note.tags == ("vendors", "larkspur")
    assert note.aliases == ("Larkspur call",)
    assert note.body.startswith("# Vendor call\n")
    assert "\r" not in note.text


def test_front_matter_only_and_invalid_yaml():
    metadata, start = split_front_matter("---\ntitle: Stub\n---\n")
    assert metadata == {"title": "Stub"} and start == len("---\ntitle: Stub\n---\n")
    assert split_front_matter("---\n: : [unbalanced\n---\nbody") == ({}, 0)
    assert split_front_matter("no front matter") == ({}, 0)


@pytest.mark.parametrize(
    "name, body, expected, source",
    [
        ("2024-04-12.md", "text", dt.date(2024, 4, 12), "file name"),
        ("2019.04.18.md", "text", dt.date(2019, 4, 18), "file name"),
        ("2024-10-16-standup.md", "text", dt.date(2024, 10, 16), "file name"),
        ("standup.md", "# Standup — 2024-03-05\n\nnotes", dt.date(2024, 3, 5), "heading"),
    ],
)
def test_document_date_precedence(tmp_path, name, body, expected, source):
    path = tmp_path / name
    path.write_text(body)
    note = read_note(path)
    assert (note.doc_date, note.doc_date_source) == (expected, source)


def test_front_matter_date_beats_file_name_and_mtime_is_last(tmp_path):
    dated = tmp_path / "2024-04-12.md"
    dated.write_text("---\ndate: 2023-01-02\n---\nbody")
    assert read_note(dated).doc_date == dt.date(2023, 1, 2)
    plain = tmp_path / "plain.md"
    plain.write_text("no date anywhere")
    stamp = dt.datetime(2022, 6, 1, 12, 0).timestamp()
    os.utime(plain, (stamp, stamp))
    note = read_note(plain)
    assert (note.doc_date, note.doc_date_source) == (dt.date(2022, 6, 1), "mtime")


def test_vanished_file_is_a_failure_with_reason(tmp_path):
    with pytest.raises(Unreadable) as info:
        read_note(tmp_path / "gone.md")
    assert info.value.status == "failed" and "vanished" in info.value.reason
