"""palace entity: a profile card built from the graph of the sample corpus."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.errors import UsageError
from palace.graph.profile import connection, profile


def test_profile_of_a_person(sample_palace):
    card = profile(sample_palace.conn, sample_palace.registry, "alice chen's")
    assert card.name == "Alice Chen" and "PERSON" in card.types
    assert card.first_seen == "2023-02-04"  # journal/2023-02-04.md, her first note
    assert card.files >= 5 and card.mentions >= card.drawers >= card.files
    assert "Acme Robotics" in {n.name for n in card.related}
    assert all(c.path for c in card.recent)
    moreau = profile(sample_palace.conn, sample_palace.registry, "Alice Moreau")
    assert set(moreau.entity_ids).isdisjoint(card.entity_ids)  # two Alices, two profiles
    assert card.degree >= len(card.related) > 0


def test_bob_reports_to_helen_now_and_the_card_cites_it(sample_palace):
    card = profile(sample_palace.conn, sample_palace.registry, "Bob Okafor")
    reports = [f for f in card.current if f.predicate == "reports_to"]
    # four notes say so; the card shows the value once, from its earliest valid time
    assert [(f.object, f.valid_from, f.valid_to) for f in reports] == [("Helen Marsh", "2024-07-01", None)]
    assert reports[0].path and reports[0].line and "Helen" in reports[0].sentence


def test_a_connection_is_a_cited_shortest_path(sample_palace):
    found = connection(sample_palace.conn, sample_palace.registry, "Bob Okafor", "Priya Raman")
    # the current graph: Bob's reporting line to Priya is superseded, yet they still
    # share sentences, so one hop, cited by a sentence naming both
    assert len(found.hops) == 1
    (hop,) = found.hops
    assert {hop.subject, hop.object} == {"Bob Okafor", "Priya Raman"} and hop.path and hop.sentence
    assert "Priya" in hop.sentence and "Bob" in hop.sentence
    with pytest.raises(UsageError):
        connection(sample_palace.conn, sample_palace.registry, "Bob Okafor", "bob okafor's")


def test_unknown_name_suggests_close_ones(sample_palace):
    with pytest.raises(UsageError) as info:
        profile(sample_palace.conn, sample_palace.registry, "Alise Chen")
    assert info.value.message == "no entity named 'Alise Chen' in this palace"
    assert "Alice Chen" in info.value.hint


def test_front_matter_aliases_name_the_note_concept(sample_palace):
    card = profile(sample_palace.conn, sample_palace.registry, "Project Harbor")
    assert "CONCEPT" in card.types and {"HBR", "Harbour"} <= set(card.aliases)


def test_cli_entity_json(mined_sample):
    palace_dir, _ = mined_sample
    result = CliRunner().invoke(app, ["entity", "Bob Okafor", "--palace", str(palace_dir), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["name"] == "Bob Okafor" and data["mentions"] > 0
    assert set(data) == {"name", "types", "entity_ids", "aliases", "mentions", "drawers", "files", "first_seen",
                         "last_seen", "facts", "related", "recent", "current", "ambiguous_with", "degree", "planned"}


def test_cli_entity_path_cites_each_hop(mined_sample):
    # `entity path` once failed: the handle's `path` attribute (its folder) hid the method
    palace_dir, _ = mined_sample
    result = CliRunner().invoke(app, ["entity", "path", "Alice Chen", "Acme Robotics", "--palace", str(palace_dir),
                                      "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # "She starts at Acme Robotics on Monday 2 September", written on 9 August, is a plan
    # (issue 22, item 10: never current): the hop is the sentence naming both
    assert [(h["subject"], h["predicate"], h["object"], h["path"], h["line"]) for h in data["hops"]] == [
        ("Alice Chen", "mentioned_with", "Acme Robotics", "journal/2024-08-09.md", 9)]


def test_an_alias_or_a_shouted_possessive_reaches_the_same_profile(sample_palace):
    by_name = profile(sample_palace.conn, sample_palace.registry, "Harbor")
    by_alias = profile(sample_palace.conn, sample_palace.registry, "Project Harbor")
    assert set(by_alias.entity_ids) == set(by_name.entity_ids) and by_alias.mentions == by_name.mentions > 0
    assert profile(sample_palace.conn, sample_palace.registry, "ALICE CHEN'S").name == "Alice Chen"


def test_entity_search_lists_each_entity_once_with_distinct_relations(sample_palace):
    from palace.graph.cards import search_entities

    hits = search_entities(sample_palace.conn, sample_palace.registry, "bob")
    names = [h.name for h in hits]
    assert names[0] == "Bob Okafor" and len(names) == len(set(names))
    relations = [(r.subject, r.predicate, r.object) for r in hits[0].relations]
    assert len(relations) == len(set(relations)) and ("Bob Okafor", "reports_to", "Helen Marsh") in relations


@pytest.mark.unit
def test_a_names_key_is_its_composed_form():
    import unicodedata

    from palace.nlp.names import entity_key

    composed, decomposed = "José Núñez", unicodedata.normalize("NFD", "José Núñez")
    assert composed != decomposed and len(decomposed) == len(composed) + 3
    assert entity_key(decomposed) == entity_key(composed) == "josé núñez"


def test_a_name_written_in_nfc_and_in_nfd_is_one_entity(tmp_path):
    """macOS saves "é" as e + U+0301 (NFD); a note typed elsewhere holds U+00E9 (NFC): one
    person, found by either spelling, named in the composed form; the notes' text and
    paths stay as they are on disk."""
    import unicodedata

    from palace.core import Palace

    nfc = "José Núñez"
    nfd = unicodedata.normalize("NFD", nfc)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2025-01-10-sync.md").write_text(f"# Sync\n\n{nfc} works at Initech. {nfc} met Dana Lee.\n")
    (notes / unicodedata.normalize("NFD", "2025-02-03-café.md")).write_text(
        f"# Café\n\n{nfd} joined Globex in February 2025. {nfd} met Dana Lee again.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        named = [r[0] for r in palace.conn.execute("SELECT name FROM entities WHERE key = ?", (nfc.casefold(),))]
        assert named == [nfc]
        card = palace.entity(nfd)
        assert card.name == nfc and card.files == 2 and card.entity_ids == palace.entity(nfc).entity_ids
        assert {f.object for f in palace.facts(about=nfd, predicate="works_at").facts} >= {"Globex"}
        paths = {r[0] for r in palace.conn.execute("SELECT path FROM files")}
    assert unicodedata.normalize("NFD", "2025-02-03-café.md") in paths  # the path as on disk
