"""Resolution after an edit plans only the names the edit can touch (palace.resolution
:func:`resolve_wing`, palace.graph.lowercase :func:`link_lowercase_mentions`). After every step of a series of
edits mined with the real pipeline, the graph equals what resolving the whole wing again
gives on the same stored drawers; and the counts the triggers keep (``wing_readings``)
equal the counts of the mentions."""

from __future__ import annotations

import shutil

import pytest

from palace.core import Palace
from palace.store import sqlite as store
from palace.graph.lowercase import link_lowercase_mentions
from palace.graph.resolution import resolve_wing

ACME = ("# Vendors\n\nBob Okafor signed the contract with Acme Corp. on Monday. Acme Corp sent the invoice."
        " Acme Corporation called. Acme Inc. raised its prices. The contract with Acme runs until May.\n")
FALCON = ("# Falcon\n\nAlice Chen leads Project Falcon. The Falcon Project ships in June. Falcon is late."
          " Alice reviewed the plan with Dana Ruiz.\n")
COUNCIL = ("# Council\n\nMara Bos chaired the Leadership Council today. The Leadership Council approved the"
           " budget. The Leadership Council meets again in April. Alice joined.\n")
STEPS = [
    {"acme.md": ACME, "falcon.md": FALCON, "council.md": COUNCIL,
     "chat.md": "# Chat\n\nthe leadership council wants the budget by friday. Dana said so.\n"},
    # a second Alice: "Alice" becomes ambiguous; Dana's full name appears twice more
    {"team.md": "# Team\n\nAlice Martin joined the team. Alice Martin reports to Dana Ruiz. Dana agreed.\n"},
    # wider names: once three other names hold "Falcon", it names more than the project
    {"more.md": "# More\n\nBob Okafor founded Grey Falcon Partners in 2020. Dana Ruiz called Red Falcon Systems on Friday."
                " Acme Corp signed again.\n"},
    # the second Alice goes away; the lower-case council is written more often than the name
    {"team.md": None, "heavy.md": "# Launch\n\nBob Okafor watched Falcon Heavy from Florida.\n",
     "chat2.md": "# Chat 2\n\nthe leadership council met. the leadership council agreed. the leadership"
                 " council left. the leadership council ate.\n"},
    # a note edited around its names, and a note moved
    {"acme.md": ACME.replace("Acme Inc. raised its prices.", "Acme Ltd raised its prices. Bob Okafor left."),
     "falcon.md": None, "falcon-moved.md": FALCON,
     # the name read capitalised twice more: its lower-case matches, unchanged, are links again
     "council2.md": "# Council 2\n\nThe Leadership Council voted. Mara Bos thanked the Leadership Council. The Leadership Council adjourned on Friday.\n"},
    # "Project" read alone as a name decides every project family: the whole wing is planned
    {"project.md": "# The Project\n\nThe Project hired staff. Project said yes. The Project Directors met."
                   " Project agreed.\n"},
]


def graph_state(conn) -> dict:
    """What a user can observe of resolution: each mention's entity and label, each
    fact's subject, object and timeline, resolutions, aliases and entity types."""
    return {
        "mentions": sorted(tuple(r) for r in conn.execute(
            "SELECT drawer_id, char_start, char_end, raw_entity_id, entity_id, label, extractor FROM mentions")),
        "facts": sorted(tuple(r) for r in conn.execute(
            "SELECT id, subject_id, object_id, valid_from, valid_to, superseded_by, invalidated_at FROM facts")),
        "resolutions": sorted(tuple(r) for r in conn.execute(
            "SELECT raw_entity_id, wing, entity_id, rule, evidence FROM entity_resolutions")),
        "aliases": sorted(tuple(r) for r in conn.execute("SELECT entity_id, key, source FROM aliases")),
        "types": sorted(tuple(r) for r in conn.execute("SELECT id, type FROM entities")),
        "hits": sorted(tuple(r) for r in conn.execute("SELECT * FROM lowercase_hits")),
    }


def counted(conn) -> list[tuple]:
    return sorted(tuple(r) for r in conn.execute(
        "SELECT f.wing, m.raw_entity_id, m.label, m.extractor != ?, count(*) FROM mentions m"
        " JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id GROUP BY 1, 2, 3, 4",
        ("palace.lowercase.v1",)))


def kept(conn) -> list[tuple]:
    return sorted(tuple(r) for r in conn.execute("SELECT wing, entity_id, label, ner, n FROM wing_readings"))


def resolved_whole(conn, wing: str, registry) -> dict:
    """The graph after resolving ``wing`` whole, rolled back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        link_lowercase_mentions(conn, wing, full=True)
        resolve_wing(conn, wing, registry, full=True)
        return graph_state(conn)
    finally:
        conn.execute("ROLLBACK")


def test_each_step_resolves_as_the_whole_wing_would(tmp_path, monkeypatch):
    from palace.graph import resolution

    planned: list[int] = []
    original = resolution.plan_wing
    monkeypatch.setattr(resolution, "plan_wing",
                        lambda conn, wing, ids=None: (planned.append(-1 if ids is None else len(ids)),
                                                      original(conn, wing, ids))[1])
    notes = tmp_path / "notes"
    notes.mkdir()
    with Palace.open(tmp_path / "palace") as palace:
        for number, step in enumerate(STEPS):
            for name, text in step.items():
                (notes / name).unlink() if text is None else (notes / name).write_text(text)
            planned.clear()
            palace.mine(notes, wing="w")
            conn = palace.conn
            assert kept(conn) == counted(conn), number
            assert conn.execute("SELECT count(*) FROM readings_changed").fetchone()[0] == 0
            if number == len(STEPS) - 1:
                assert planned == [-1]  # "Project" changed: the whole wing
            elif number > 0:
                assert len(planned) == 1 and planned[0] > 0  # only a neighbourhood
            incremental = graph_state(conn)
            assert incremental == resolved_whole(conn, "w", palace.registry), number
        # what the steps built, as a user sees it
        names = dict(conn.execute("SELECT e.name, t.name FROM entity_resolutions r JOIN entities e"
                                  " ON e.id = r.raw_entity_id LEFT JOIN entities t ON t.id = r.entity_id"))
        assert names["Acme Corporation"] == names["Acme"] == "Acme Corp."
        assert names["Alice"] == "Alice Chen"  # Alice Martin went away
        assert names["Dana"] == "Dana Ruiz"
        council = conn.execute("SELECT count(*) FROM mentions m JOIN entities e ON e.id = m.entity_id"
                               " WHERE e.key = 'leadership council' AND m.extractor = 'palace.lowercase.v1'")
        assert council.fetchone()[0] == 5
        assert "Falcon" not in names  # three wider names: no longer the project's short name


def test_a_short_edit_plans_a_neighbourhood_not_the_wing(tmp_path, monkeypatch):
    """An edit naming one new person plans a handful of names, not the wing's."""
    from palace.graph import resolution

    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(30):
        (notes / f"n{i}.md").write_text(f"# Note {i}\n\nPerson{chr(65 + i % 26)}x Smith{i} met Org{i} Inc."
                                        f" on Monday. Person{chr(65 + i % 26)}x Smith{i} agreed.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        total = palace.conn.execute("SELECT count(DISTINCT entity_id) FROM wing_readings").fetchone()[0]
        sizes: list[int] = []
        original = resolution.plan_wing
        monkeypatch.setattr(resolution, "plan_wing",
                            lambda conn, wing, ids=None: (sizes.append(-1 if ids is None else len(ids)),
                                                          original(conn, wing, ids))[1])
        (notes / "n3.md").write_text((notes / "n3.md").read_text() + "\nMarisol Ferreira joined.\n")
        palace.mine(notes, wing="w", paths=["n3.md"])
        assert sizes and 0 < sizes[0] <= 8 < total
        assert graph_state(palace.conn) == resolved_whole(palace.conn, "w", palace.registry)


def test_the_migration_counts_an_older_palace_and_resolves_it_whole_once(tmp_path):
    """A palace mined before the counts existed gets them from its mentions, and its
    first resolution covers every name."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in STEPS[0].items():
        (notes / name).write_text(text)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        conn = palace.conn
        expected = graph_state(conn)
        # as an older palace: no counts, no pending names, the migration not applied
        conn.executescript("DROP TRIGGER mentions_read; DROP TRIGGER mentions_unread;"
                           " DROP TRIGGER drawers_unread; DROP TRIGGER files_unread;"
                           " DROP TRIGGER facts_read; DROP TRIGGER drawers_unscanned; DROP TABLE wing_readings;"
                           " DROP TABLE readings_changed; DROP TABLE entity_bases; DROP TABLE lowercase_unscanned;"
                           " DROP INDEX facts_raw_subject; DROP INDEX facts_raw_object; DROP INDEX lowercase_hits_key;"
                           " CREATE TABLE lowercase_scanned (drawer_id TEXT PRIMARY KEY REFERENCES drawers(id)"
                           " ON DELETE CASCADE); INSERT INTO lowercase_scanned SELECT id FROM drawers;"
                           " DELETE FROM schema_migrations WHERE name = '0010_incremental_resolution';"
                           # and before the names' match keys (0014 adds columns to entity_bases)
                           " DROP TRIGGER mentions_note_read; DROP TRIGGER drawers_note_unread;"
                           " DROP TABLE note_resolutions; DROP TABLE notes_changed;"
                           " DELETE FROM schema_migrations WHERE name = '0014_name_matching';")
    with Palace.open(tmp_path / "palace") as palace:
        conn = palace.conn
        assert kept(conn) == counted(conn)
        assert conn.execute("SELECT count(*) FROM lowercase_unscanned").fetchone()[0] == 0
        pending = conn.execute("SELECT count(DISTINCT entity_id) FROM readings_changed").fetchone()[0]
        assert pending == conn.execute("SELECT count(DISTINCT raw_entity_id) FROM mentions").fetchone()[0]
        with store.transaction(conn):
            link_lowercase_mentions(conn, "w")
            resolve_wing(conn, "w", palace.registry)
        assert graph_state(conn) == expected


@pytest.mark.parametrize("how", ["forget", "wing"])
def test_the_counts_follow_a_note_or_a_wing_deleted(tmp_path, how):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in STEPS[0].items():
        (notes / name).write_text(text)
    other = tmp_path / "other"
    shutil.copytree(notes, other)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        palace.mine(other, wing="v")
        conn = palace.conn
        with store.transaction(conn):
            if how == "forget":
                conn.execute("DELETE FROM files WHERE wing = 'w' AND path = 'acme.md'")
            else:
                conn.execute("DELETE FROM files WHERE wing = 'v'")
        assert kept(conn) == counted(conn)
        changed = {r[0] for r in conn.execute("SELECT wing FROM readings_changed")}
        assert changed == ({"w"} if how == "forget" else {"v"})


# The same check on names written straight into the store (real SQLite, the real rules;
# no NER): random notes come and go, and after each step the incremental resolution
# equals the whole wing's. The names cover every rule: short forms (and their variants),
# first names and surnames inside their note and across notes, one name spelt with and
# without its diacritics, legal suffixes, project names, wider names (also across
# punctuation), "Project".
NAMES = ["Alice", "Alice Chen", "Alice Martin", "Alice Chen Design", "Acme", "Acme Corp", "Acme Inc.", "Falcon",
         "Project Falcon", "Falcon Inc.", "Grey Falcon Partners", "Red Falcon Systems", "Falcon-9 Launch Group",
         "Blue Falcon, Inc.", "Jakub Beránek", "Jakub Beranek", "Beranek", "Beránek", "Jakub", "Chen", "Martin"]
LABELS = ["PERSON", "ORG", "ORG", "PRODUCT"]


def _note(conn, wing: str, path: str, names) -> int:
    from palace.store.graph import add_mention, entity_id

    file_id = conn.execute("INSERT INTO files (wing, root, path, room, status, mined_at)"
                           " VALUES (?, '/r', ?, 'r', 'indexed', 'now')", (wing, path)).lastrowid
    drawer = f"d-{path}"
    conn.execute("INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end, heading_path,"
                 " text, text_hash, embed_hash) VALUES (?, ?, 0, 0, 1, 0, 1, '[]', 'x', 'h', 'h')", (drawer, file_id))
    cache: dict = {}
    for position, (name, label) in enumerate(names):
        add_mention(conn, entity_id(conn, cache, name, label), drawer, position, position + 1, name, label, "spacy", 0.9)
    return file_id


def _step(conn, wing: str = "w") -> tuple[dict, dict]:
    with store.transaction(conn):
        link_lowercase_mentions(conn, wing)
        resolve_wing(conn, wing)
    return graph_state(conn), resolved_whole(conn, wing, None)


from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_edits = st.lists(st.lists(st.one_of(
    st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(LABELS)), min_size=1, max_size=4),  # a note
    st.integers(min_value=0, max_value=20), st.integers(min_value=0, max_value=20)),  # delete the note at (modulo)
    min_size=1, max_size=3), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_edits)
# a surname read alone, then its person named in full (another spelling) in another note,
# then in its own note, then that note gone
@example(steps=[[[("Beranek", "PERSON")]], [[("Jakub Beránek", "PERSON")]],
                [[("Beránek", "PERSON"), ("Jakub Beranek", "PERSON"), ("Jakub Beranek", "PERSON")]], [2]])
def test_random_notes_coming_and_going_resolve_as_the_whole_wing(tmp_path_factory, migrated_palace, steps):
    conn = store.connect(migrated_palace(tmp_path_factory.mktemp("palace")))
    files: list[int] = []
    try:
        for number, edits in enumerate(steps):
            with store.transaction(conn):
                for k, edit in enumerate(edits):
                    if isinstance(edit, int):
                        if files:
                            conn.execute("DELETE FROM files WHERE id = ?", (files.pop(edit % len(files)),))
                    else:
                        files.append(_note(conn, "w", f"n{number}-{k}.md", edit))
            incremental, whole = _step(conn)
            assert incremental == whole, number
            assert kept(conn) == counted(conn)
    finally:
        conn.close()


@pytest.mark.unit
def test_the_last_long_form_gone_the_short_name_stands_for_itself(empty_palace):
    conn = store.connect(empty_palace)
    with store.transaction(conn):
        long_form = _note(conn, "w", "a.md", [("Project Falcon", "ORG")] * 2)
        _note(conn, "w", "b.md", [("Falcon", "ORG")] * 2)
    incremental, whole = _step(conn)
    assert incremental == whole and len(incremental["resolutions"]) == 1
    with store.transaction(conn):
        conn.execute("DELETE FROM files WHERE id = ?", (long_form,))
    incremental, whole = _step(conn)
    assert incremental == whole and incremental["resolutions"] == []


def test_a_forgotten_name_leaves_no_evidence_behind(tmp_path):
    """``palace forget`` deletes names: the resolution is then planned whole, and no
    evidence names the forgotten person."""
    from palace.core import Palace

    notes = tmp_path / "notes"
    notes.mkdir()
    texts = {**STEPS[0], **STEPS[1], "x.md": "# X\n\nAlice Chen met Bob Okafor on Monday. Alice Chen agreed.\n"}
    for name, text in texts.items():
        (notes / name).write_text(text)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        conn = palace.conn
        evidence = ("SELECT r.rule, r.evidence FROM entity_resolutions r JOIN entities e ON e.id = r.raw_entity_id"
                    " WHERE e.key = 'alice'")
        assert conn.execute(evidence).fetchone()[0] == "ambiguous short form"  # Alice Chen or Alice Martin
        palace.forget(str(notes / "team.md"))
        assert conn.execute("SELECT count(*) FROM entities WHERE key = 'alice martin'").fetchone()[0] == 0
        rule, said = conn.execute(evidence).fetchone()
        assert rule == "short form" and "Martin" not in said
        assert graph_state(conn) == resolved_whole(conn, "w", palace.registry)


def test_a_forgotten_wing_leaves_no_type_and_no_pending_name_behind(tmp_path):
    """A name read as an organisation in a forgotten wing and as a person in another
    becomes a person; the forgotten wing leaves nothing to resolve."""
    from palace.core import Palace

    with Palace.open(tmp_path / "palace") as palace:
        conn = palace.conn
        with store.transaction(conn):
            _note(conn, "v", "a.md", [("Jordan", "ORG")] * 3)
            _note(conn, "w", "b.md", [("Jordan", "PERSON")] * 2)
        _step(conn, "v"), _step(conn, "w")
        assert conn.execute("SELECT type FROM entities WHERE key = 'jordan'").fetchone()[0] == "ORG"
        palace.forget(wing="v")
        assert conn.execute("SELECT type FROM entities WHERE key = 'jordan'").fetchone()[0] == "PERSON"
        assert conn.execute("SELECT count(*) FROM readings_changed").fetchone()[0] == 0


def test_the_lower_case_extractor_name_is_the_one_the_migrations_count():
    from palace.store.resolution import LOWERCASE_EXTRACTOR
    from palace.store.sqlite import MIGRATIONS

    triggers = dict(MIGRATIONS)["0010_incremental_resolution"]
    # a palace mined before a rename would hold its links under the old name: never rename it
    assert LOWERCASE_EXTRACTOR == "palace.lowercase.v1"
    assert triggers.count(f"'{LOWERCASE_EXTRACTOR}'") == 5 and "lowercase.v1'" not in triggers.replace(
        f"'{LOWERCASE_EXTRACTOR}'", "")
