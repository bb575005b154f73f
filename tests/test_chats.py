"""Chat exports (issue 22, item 7): their lines date them, a note is cut by day so its
facts take the day they were said, and clock times or session headings are no facts."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.nlp.chats import chat_days, line_day
from palace.nlp.chunking import chunk_markdown

WHATSAPP = """12/03/2024, 19:22 - Amaka: I work at Feedzai as a data engineer.
12/03/2024, 19:25 - Bo: Congrats!
14/03/2024, 08:01 - Bo: I moved to Lisbon.
[15/03/2024, 09:10:11] Amaka: See you there.
"""

SESSIONS = """Session 4
1:56 pm on 8 May, 2023

Caroline: Hey Mel! How are you?
Melanie: Great. I work at Northwind Labs as a nurse now.
Caroline: Nice!

Session 5
10:37 am on 27 June, 2023

Caroline: I moved to Denver last week.
"""


def count(texts):
    return [len(t.split()) * 4 // 3 + 1 for t in texts]


@pytest.mark.parametrize("text, order, day", [
    ("12/03/2024", "dmy", dt.date(2024, 3, 12)), ("12/03/2024", "mdy", dt.date(2024, 12, 3)),
    ("12/03/2024", None, None), ("28/03/2024", None, dt.date(2024, 3, 28)), ("08.05.2023", None, dt.date(2023, 5, 8)),
    ("2023-05-08", None, dt.date(2023, 5, 8)), ("8 May, 2023", None, dt.date(2023, 5, 8)),
    ("08-May-23", None, dt.date(2023, 5, 8)), ("May 8, 2023", None, dt.date(2023, 5, 8)),
])
def test_the_day_of_a_chat_line(text, order, day):
    assert line_day(text, order) == day


def test_a_chat_export_begins_a_day_where_its_lines_change_day():
    days = chat_days(WHATSAPP, 0, "dmy")
    assert days == [(0, dt.date(2024, 3, 12)), (WHATSAPP.index("14/03"), dt.date(2024, 3, 14)),
                    (WHATSAPP.index("[15/03"), dt.date(2024, 3, 15))]
    chunks = chunk_markdown(WHATSAPP, count_tokens=count, max_tokens=256,
                            days=[(at, day.isoformat()) for at, day in days])
    assert [(c.heading_path, c.text.split(" - ")[0][:10]) for c in chunks] == [
        (("2024-03-12",), "12/03/2024"), (("2024-03-14",), "14/03/2024"), (("2024-03-15",), "[15/03/202")]


def test_session_headings_open_a_day_with_their_label():
    days = chat_days(SESSIONS)
    assert days == [(0, dt.date(2023, 5, 8)), (SESSIONS.index("Session 5"), dt.date(2023, 6, 27))]


def test_a_note_that_is_no_chat_has_no_days():
    note = "# Week\n\n2024-03-12: shipped the beta.\n\nNotes: fine.\n"
    assert chat_days(note) == []


def test_minutes_with_speakers_are_not_dated_by_their_lists_or_link_definitions():
    minutes = ("# Lang team meeting\n\nNiko: we start.\nJosh: agreed.\nFelix: yes.\n\n"
               "- Const checking\n    - 2020-04-23\n        - Wrote the report.\n    - 2020-04-30\n"
               "        - In FCP.\n\n[2026-01-30 meeting]: https://example.org/2026-01-30.md\n")
    assert chat_days(minutes) == []


@pytest.fixture(scope="module")
def extract():
    from palace.mine.extract import extract_text

    return lambda text, **kw: extract_text(text, date=dt.date(2026, 1, 1), **kw)


def test_chat_facts_take_the_day_of_their_line(extract):
    facts = {(f.subject, f.predicate, f.object, f.valid_from) for f in extract(WHATSAPP).facts}
    assert ("Amaka", "works_at", "Feedzai", "2024-03-12") in facts
    assert ("Bo", "lives_in", "Lisbon", "2024-03-14") in facts
    assert all(f[3] != "2026-01-01" for f in facts)


def test_clock_times_and_session_headings_are_no_facts(extract):
    result = extract("SESSION 1 (1:56 pm on 8 May, 2023)\n\nCaroline: Hey Mel!\n\n"
                     "Session 2 at 9 pm on 9 May, 2023\n\nMelanie: Hi.\n")
    assert [(f.subject, f.predicate, f.object) for f in result.facts] == []
    facts = {(f.subject, f.predicate, f.object, f.valid_from) for f in extract(SESSIONS).facts}
    assert ("Melanie", "works_at", "Northwind Labs", "2023-05-08") in facts
    assert not any(f[1] == "role" and f[2] in ("pm", "am") for f in facts)


def test_we_decided_is_the_meetings_decision_and_nobodys_in_a_journal(extract):
    chat = ("[13/09/2024, 10:02] Mara: We decided to move the event bus to NATS.\n"
            "[13/09/2024, 10:05] Ken Ortiz: Sounds good.\n"
            "[20/09/2024, 09:01] Ken Ortiz: I decided to drop Jenkins.\n")
    facts = {(f.subject, f.object, f.valid_from) for f in extract(chat, title="Team chat").facts
             if f.predicate == "decided"}
    assert facts == {("Team chat", "to move the event bus to NATS", "2024-09-13"),
                     ("Ken Ortiz", "to drop Jenkins", "2024-09-20")}
    minutes = "# Lang team triage meeting\n\nWe decided to postpone RFC 2094.\n"
    assert [(f.subject, f.predicate, f.object) for f in extract(minutes).facts] == [
        ("Lang team triage meeting", "decided", "to postpone RFC 2094")]
    recalled = ("# Council meeting\n\nTC: We had agreed to update our policies to allow observers.\n"
                "TC: I recall us agreeing to leave discretion to the teams.\n"
                "Josh: we did decide that we wanted Rust 2024 to ship, right?\nMara: We decided not to have a Council Room.\n")
    assert [(f.subject, f.object) for f in extract(recalled).facts if f.predicate == "decided"] == [
        ("Council meeting", "not to have a Council Room")]
    for journal in ("# 2024-03-12\n\nWe decided to postpone RFC 2094.\n",  # whose "we"? no group named
                    "# 2024 — year in review\n\nIn November we decided to postpone RFC 2094.\n"):
        assert [f for f in extract(journal).facts if f.predicate == "decided"] == []
