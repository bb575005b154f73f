"""Design records as entities (issue 22, item 5): which record a note is, its status and
what it supersedes, read from header fields, status sections, status lines and
sentences about itself; a state's start is the day the record gives, else unknown."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.nlp.documents import (
    Document,
    canonical_name,
    document_relations,
    identify,
    read_status,
    references,
)

PEP_HEADER = """PEP: 102
Title: Doing Python Micro Releases
Author: Anthony Baxter <anthony@interlink.com.au>,
        Barry Warsaw <barry@python.org>
Status: Superseded
Type: Informational
Created: 09-Jan-2002
Post-History:
Superseded-By: 101


Replacement Note
================

Micro releases are fully covered by :pep:`101`.
"""

ADR_TOOLS_OLD = """# 2. Use Postgres for the ledger

Date: 2018-03-01

## Status

Superseded by [3. Use MySQL for the ledger](0003-use-mysql-for-the-ledger.md)

## Context

We need a database.
"""

ADR_TOOLS_NEW = """# 3. Use MySQL for the ledger

Date: 2019-06-10

## Status

Accepted

Supersedes [2. Use Postgres for the ledger](0002-use-postgres-for-the-ledger.md)
"""


def facts_of(document: Document, body: str, metadata=None) -> set[tuple]:
    return {(r.predicate, r.subject_name, r.object_name or r.value, r.stated_start)
            for r in document_relations(document, body, metadata or {})}


@pytest.mark.parametrize("name, expected", [
    ("PEP 572", "PEP 572"), ("pep-0572", "PEP 572"), ("ADR 021", "ADR 21"), ("ADR-21", "ADR 21"),
    ("KEP 2377", "KEP-2377"), ("kep-2377", "KEP-2377"), ("RFC #2094", "RFC 2094"),
    ("Rust 2024", None), ("PEP", None), ("the decision 3", None),
])
def test_a_record_is_named_by_its_kind_and_number(name, expected):
    assert canonical_name(name) == expected


def test_a_pep_header_gives_number_title_status_and_supersession_with_no_start():
    document = identify("pep-0102.rst", ["peps"], "pep-0102", {}, PEP_HEADER)
    assert (document.name, document.title) == ("PEP 102", "Doing Python Micro Releases")
    assert "Doing Python Micro Releases" in document.aliases
    assert facts_of(document, PEP_HEADER) == {
        ("status", "PEP 102", "superseded", (None, None)),  # never the Created: day
        ("supersedes", "PEP 101", "PEP 102", (None, None)),
    }


def test_adr_tools_records_read_their_status_section_and_links_by_file_name():
    old = identify("0002-use-postgres-for-the-ledger.md", ["adr", "doc"], "2. Use Postgres for the ledger", {},
                   ADR_TOOLS_OLD)
    new = identify("0003-use-mysql-for-the-ledger.md", ["adr", "doc"], "3. Use MySQL for the ledger", {},
                   ADR_TOOLS_NEW)
    assert (old.name, old.title, new.name) == ("ADR 2", "Use Postgres for the ledger", "ADR 3")
    assert facts_of(old, ADR_TOOLS_OLD) == {("status", "ADR 2", "superseded", (None, None)),
                                            ("supersedes", "ADR 3", "ADR 2", (None, None))}
    assert facts_of(new, ADR_TOOLS_NEW) == {("status", "ADR 3", "accepted", (None, None)),
                                            ("supersedes", "ADR 3", "ADR 2", (None, None))}


def test_a_numbered_title_without_a_records_folder_is_no_record():
    assert identify("0002-groceries.md", ["notes"], "2. Groceries", {}, "# 2. Groceries\n\nMilk.") is None
    assert identify("meeting.md", ["notes"], "Weekly sync", {}, "Status: blocked\n") is None


def test_emoji_status_lines_and_bare_numbers_name_records_of_the_same_kind():
    body = "# ADR 21: Kafka for the event bus\n\n⌛️ Superseded by 036\n\nWe used Kafka.\n"
    document = identify("kafka.md", [], "ADR 21: Kafka for the event bus", {}, body)
    assert (document.name, document.title) == ("ADR 21", "Kafka for the event bus")
    assert facts_of(document, body) == {("status", "ADR 21", "superseded", (None, None)),
                                        ("supersedes", "ADR 36", "ADR 21", (None, None))}
    accepted = "# ADR 36: NATS for the event bus\n\nStatus: ✅ Accepted (2023-05-02)\n\nSupersedes ADR-21.\n"
    document = identify("nats.md", [], "ADR 36: NATS for the event bus", {}, accepted)
    assert ("status", "ADR 36", "accepted", (dt.date(2023, 5, 2), "day")) in facts_of(document, accepted)


def test_a_state_starts_on_the_dated_history_line_that_names_it():
    body = ("# KEP-2377: Swap support\n\n## Summary\n\nSwap.\n\n## Implementation History\n\n"
            "- 2021-01-05: KEP created\n- 2021-04-20: KEP marked implementable\n")
    document = identify("README.md", ["2377-swap", "keps"], "KEP-2377: Swap support", {"status": "implementable"},
                        body)
    assert document.name == "KEP-2377"
    assert facts_of(document, body, {"status": "implementable"}) == {
        ("status", "KEP-2377", "implementable", (dt.date(2021, 4, 20), "day"))}


def test_a_rust_rfc_is_named_by_its_pull_request():
    body = ("- Feature Name: `nll`\n- Start Date: 2017-08-02\n"
            "- RFC PR: [rust-lang/rfcs#2094](https://github.com/rust-lang/rfcs/pull/2094)\n\n# Summary\n\nBorrows.\n")
    document = identify("2094-nll.md", ["text"], "Summary", {}, body)
    assert (document.name, document.title) == ("RFC 2094", "nll")


def test_sentences_about_the_record_itself_give_its_supersession():
    body = "PEP: 333\nTitle: WSGI\nStatus: Final\n\nPreface\n=======\n\nThis PEP has been superseded by PEP 3333.\n"
    document = identify("pep-0333.txt", [], "PEP 333", {}, body)
    assert facts_of(document, body) == {("status", "PEP 333", "final", (None, None)),
                                        ("supersedes", "PEP 3333", "PEP 333", (None, None))}


def test_a_template_status_line_is_no_status():
    assert read_status("[proposed | rejected | accepted | deprecated | superseded by [ADR-0005](0005-example.md)]",
                       "adr").status is None
    assert read_status("Accepted; supersedes 21 and 22", "adr").supersedes == ("ADR 21", "ADR 22")


def test_references_in_text_and_roles():
    text = "See PEP 8, :pep:`3333` and RFC-2616; not PEPs in general."
    assert [name for _, _, name in references(text)] == ["PEP 8", "PEP 3333", "RFC 2616"]


def test_mined_records_are_documents_whose_state_holds_now_but_not_on_a_past_day(tmp_path):
    from palace.core import Palace

    notes = tmp_path / "notes"
    (notes / "decisions").mkdir(parents=True)
    (notes / "decisions" / "0002-use-postgres-for-the-ledger.md").write_text(ADR_TOOLS_OLD)
    (notes / "decisions" / "0003-use-mysql-for-the-ledger.md").write_text(ADR_TOOLS_NEW)
    (notes / "peps").mkdir()
    (notes / "peps" / "pep-0102.rst").write_text(PEP_HEADER)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        now = {(f.subject, f.predicate, f.object) for name in ("ADR 2", "ADR 3", "PEP 102")
               for f in palace.facts(about=name).facts}
        assert {("ADR 2", "status", "superseded"), ("ADR 3", "status", "accepted"),
                ("ADR 3", "supersedes", "ADR 2"), ("PEP 102", "status", "superseded"),
                ("PEP 101", "supersedes", "PEP 102")} <= now
        types = dict(palace.conn.execute("SELECT name, type FROM entities WHERE name IN ('ADR 3', 'PEP 102')"))
        assert types == {"ADR 3": "DOCUMENT", "PEP 102": "DOCUMENT"}
        # no day given for these states: their start is unknown, not the record's date
        past = {(f.subject, f.predicate) for f in palace.facts(about="ADR 3", as_of=dt.date(2020, 1, 1)).facts}
        assert ("ADR 3", "status") not in past


def test_records_named_in_blanked_markup_are_no_mentions():
    from palace.mine.extract import extract_text

    result = extract_text("# Notes\n\n<!-- RFC 2094 and RFC 1234 -->\n", date=dt.date(2024, 1, 1))
    assert result.entities == ()
    result = extract_text("# Notes\n\nWe read RFC 2094 and :pep:`3333` today.\n", date=dt.date(2024, 1, 1))
    assert {name for name, label in result.entities if label == "DOCUMENT"} == {"RFC 2094", "PEP 3333"}
