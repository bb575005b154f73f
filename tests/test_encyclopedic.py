"""Issue 22, item 4: encyclopedic careers and club relations as Wikipedia-style pages write
them — a club told by its descriptor or its letters ("fellow second-tier side Brezno
United", "FK Lomna"), career verbs and gerunds ("returned to", "before joining"), a
coach's post, a team's home ground and league, an organisation's headquarters, a list of
holders cut into two drawers. Sentences written for these tests (not copied from the
pages), read through the same path as mining (``palace.mine.extract.extract_text``, the
real spaCy pipeline)."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.graph.temporal import default_registry, load_values
from palace.mine.extract import extract_text
from palace.nlp.extraction import Extractor
from palace.nlp.rules import RelationRules

DAY = dt.date(2024, 6, 10)


@pytest.fixture(scope="module")
def extractor():
    return Extractor(rules=RelationRules.from_registry(default_registry(), load_values()), trace=True)


def read(extractor, text, *, title=""):
    """``{(subject, predicate, object, valid_from, valid_to)}`` of the live facts read from ``text``."""
    result = extract_text(text, date=DAY, title=title, extractor=extractor)
    return {(f.subject, f.predicate, f.object, f.valid_from, f.valid_to if f.kind == "state" else None)
            for f in result.facts if f.status == "live"}


VEK = ("# Tomas Vek\n\nTomas Vek (born 3 March 1990) is a Czech footballer who plays as a defender.\n\n"
       "Vek began his career with FK Lomna in 2008. On 2 July 2011, he moved to fellow second-tier side"
       " Brezno United, playing forty games before joining the Slovak top-flight club Dolina Calcio in 2013."
       " In January 2016 he signed a three-year contract with Premier League side Castleford Athletic.\n")


def test_a_players_clubs_are_read_from_descriptors_letters_and_gerunds(extractor):
    facts = read(extractor, VEK, title="Tomas Vek")
    clubs = {(o, start) for s, p, o, start, _ in facts if s == "Tomas Vek" and p == "plays_for"}
    assert clubs == {("FK Lomna", "2008-01-01"), ("Brezno United", "2011-07-02"), ("Dolina Calcio", "2013-01-01"),
                     ("Castleford Athletic", "2016-01-01")}
    # a club's player is not its employee nor a member of it, and a descriptor is no name
    assert not any(p in ("works_at", "member_of") for s, p, o, *_ in facts if s == "Tomas Vek")


def test_a_participle_carries_the_narratives_date_and_subject(extractor):
    text = ("# Ida Holm\n\nIda Holm (born 1992) is a Norwegian footballer.\n\n"
            "After three seasons in Sweden, on 5 May 2019, Holm returned to Norway, signing a two-year deal at"
            " Strandvik FK.\n")
    facts = read(extractor, text, title="Ida Holm")
    assert ("Ida Holm", "plays_for", "Strandvik FK", "2019-05-05", None) in facts
    assert not any(p == "approved" for _, p, *_ in facts)  # signing a deal approves nothing


def test_a_season_dates_its_clause(extractor):
    text = ("# Ida Holm\n\nIda Holm (born 1992) is a Norwegian footballer.\n\n"
            "Holm spent the 2014–15 season on loan at Vestby FK, scoring nine goals.\n")
    facts = read(extractor, text, title="Ida Holm")
    assert ("Ida Holm", "plays_for", "Vestby FK", "2014-01-01", "2016-01-01") in facts


def test_a_place_is_no_club(extractor):
    text = ("# Ida Holm\n\nIda Holm (born 1992) is a Norwegian footballer.\n\n"
            "In 2015 Holm moved to Bergen, and in 2017 she returned to Oslo after two seasons on loan.\n")
    facts = read(extractor, text, title="Ida Holm")
    assert not any(p == "plays_for" for _, p, *_ in facts)
    # nor a company with club letters in a drawer about work: "CD Projekt"
    facts = read(extractor, "Marta Lis changed jobs: in March she went from Allegro to CD Projekt.\n")
    assert not any(p == "plays_for" for _, p, *_ in facts)


def test_a_coachs_post_is_coaching_one_club_at_a_time(extractor):
    text = ("# Ruben Salas\n\nRuben Salas (born 1 May 1961) is a Spanish football manager.\n\n"
            "Salas was coach of Deportivo Marenza from 2004 to 2007. On 12 March 2010 he was appointed manager"
            " of Atlético Verano in the Segunda División, replacing Hugo Ferrer. In 2013 Salas took charge of"
            " Racing Olmedo for the new season. On 2 June 2015 Salas was named head coach of Segunda club Real"
            " Oviedo Norte.\n")
    facts = read(extractor, text, title="Ruben Salas")
    coached = {(o, start, end) for s, p, o, start, end in facts if s == "Ruben Salas" and p == "coaches"}
    assert coached == {("Deportivo Marenza", "2004-01-01", "2008-01-01"), ("Atlético Verano", "2010-03-12", None),
                       ("Racing Olmedo", "2013-01-01", None), ("Real Oviedo Norte", "2015-06-02", None)}
    assert not any(p == "leads" for s, p, *_ in facts if s == "Ruben Salas")
    assert default_registry()["coaches"].cardinality == "one"


def test_a_teams_home_ground_and_league(extractor):
    text = ("# Harbor City Hawks\n\nThe Harbor City Hawks are a professional ice hockey team based in Harbor"
            " City.\n\nFrom 1998 to 2006 the Hawks played their home games at Lindqvist Arena. In 2007 the team"
            " moved to the new Quayside Stadium. The Hawks compete in the Northern Hockey League.\n")
    facts = read(extractor, text, title="Harbor City Hawks")
    assert ("Harbor City Hawks", "home_venue", "Lindqvist Arena", "1998-01-01", "2007-01-01") in facts
    assert ("Harbor City Hawks", "home_venue", "Quayside Stadium", "2007-01-01", None) in facts
    assert any(s == "Harbor City Hawks" and p == "in_league" and o.endswith("Northern Hockey League")
               for s, p, o, *_ in facts)


def test_an_organisation_moves_its_headquarters(extractor):
    text = ("# Meridian Shipping\n\nMeridian Shipping is a Dutch shipping company founded in 1920.\n\n"
            "The company moved its headquarters to Rotterdam in 2005.\n")
    facts = read(extractor, text, title="Meridian Shipping")
    assert ("Meridian Shipping", "headquartered_in", "Rotterdam", "2005-01-01", None) in facts


def test_a_list_of_holders_cut_into_two_drawers_keeps_its_label(extractor):
    names = ["Aaro Lind", "Bertil Hult", "Carl Moen", "Dag Ruud", "Egil Sand", "Finn Tangen", "Geir Vik",
             "Harald Aas", "Ivar Berg", "Jon Dahl", "Knut Eide", "Leif Foss", "Magne Gran", "Nils Haug",
             "Odd Isaksen", "Per Jensen", "Rolf Karlsen", "Svein Lunde", "Tor Moe", "Ulf Nilsen", "Vidar Olsen",
             "Arne Pettersen", "Bjorn Quist", "Erik Rasmussen", "Frode Solberg", "Gunnar Thorsen",
             "Hans Ulvestad", "Inge Vold", "Jarle Wik", "Kjell Yttre"]
    items = "\n\n".join(f"- {name} (Jan 1, {1950 + 2 * n} – Dec 31, {1951 + 2 * n})" for n, name in enumerate(names))
    text = ("# Vestby IF\n\nVestby IF is a Norwegian football club based in Vestby.\n\nManagers.\n\n" + items +
            "\n\n- Lars Ek (2012)\n")
    facts = read(extractor, text, title="Vestby IF")
    coaches = {(s, start, end) for s, p, o, start, end in facts if p == "coaches" and o == "Vestby IF"}
    assert ("Kjell Yttre", "2008-01-01", "2010-01-01") in coaches  # an item of the second drawer
    assert ("Lars Ek", "2012-01-01", "2013-01-01") in coaches  # a bracketed year alone: that year
    assert len(coaches) == len(names) + 1


def test_a_persons_page_without_a_pronoun_in_its_opening_takes_either():
    from palace.nlp.topic import note_topic

    bare = note_topic("Ruben Salas", "Ruben Salas (born 1 May 1961) is a Spanish football manager.")
    assert (bare.person, bare.takes("he"), bare.takes("she"), bare.takes("it")) == (True, True, True, False)
    his = note_topic("Ruben Salas", "Ruben Salas (born 1 May 1961) is a Spanish football manager. He coached Olmedo.")
    assert (his.takes("he"), his.takes("she")) == (True, False)


def test_a_teams_last_word_stands_for_it():
    from palace.nlp.topic import note_topic

    team = note_topic("Harbor City Hawks", "The Harbor City Hawks are a professional ice hockey team.")
    assert team.names("Hawks")
    club = note_topic("KF Vestby Lindås", "KF Vestby Lindås is a football club based in Lindås.")
    assert not club.names("Lindås")  # the town of a club with letters is no short form of it


def test_a_date_fronted_before_the_first_clause_dates_the_clause_joined_to_it(extractor):
    text = ("# Otto Lund\n\nOtto Lund (1865–1943) was a Danish painter.\n\n"
            "In 1897 the artists' colony was founded and Lund married Karen Aas (1870–1901), a merchant's"
            " daughter. In 1902 Lund moved to Aarhus and in 1905 he married Ella Berg.\n")
    facts = read(extractor, text, title="Otto Lund")
    spouses = {(o, start) for s, p, o, start, _ in facts if s == "Otto Lund" and p == "married_to"}
    assert spouses == {("Karen Aas", "1897-01-01"), ("Ella Berg", "1905-01-01")}


def test_a_list_of_chiefs_leads_its_pages_subject(extractor):
    text = ("# Coastal Survey (Norway)\n\nThe Coastal Survey is a Norwegian government agency.\n\n"
            "List of Chiefs of the Coastal Survey:\n\n- 1931–1940: Arne Dahl\n\n- 1940–1952: Per Holm\n")
    facts = read(extractor, text, title="Coastal Survey (Norway)")
    assert ("Per Holm", "leads", "Coastal Survey", "1940-01-01", "1953-01-01") in facts


def _list_note(label: str) -> str:
    names = [f"{first} {last}" for first in ("Aaro", "Bertil", "Carl", "Dag", "Egil", "Finn")
             for last in ("Lind", "Hult", "Moen", "Ruud", "Sand", "Tangen", "Vik", "Aas")]
    items = "\n\n".join(f"- {name} (Jan 1, {1900 + 2 * n} – Dec 31, {1901 + 2 * n})" for n, name in enumerate(names))
    return f"# Vestby IF\n\nVestby IF is a Norwegian football club based in Vestby.\n\n{label}\n\n{items}\n"


def test_an_edited_list_label_rereads_the_drawers_that_continue_the_list(tmp_path):
    """A one-note edit gives the graph a fresh mine gives (issue 22, item 9): the label
    "Managers." changed to "Chairmen." re-reads the later drawers of its list."""
    from palace.core import Palace
    from palace.graph.facts import facts

    notes = tmp_path / "notes"
    notes.mkdir()

    def holders(palace):
        return sorted((f.subject, f.predicate, f.valid_from) for f in
                      facts(palace.conn, palace.registry, about="Vestby IF").facts if f.predicate in ("coaches", "chairs"))

    (notes / "vestby.md").write_text(_list_note("Managers."), encoding="utf-8")
    with Palace.open(tmp_path / "edited") as palace:
        palace.mine(notes)
        assert len(palace.conn.execute("SELECT id FROM drawers").fetchall()) >= 3  # the list spans drawers
        before = holders(palace)
        (notes / "vestby.md").write_text(_list_note("Chairmen."), encoding="utf-8")
        palace.mine(notes)
        edited = holders(palace)
    with Palace.open(tmp_path / "fresh") as palace:
        palace.mine(notes)
        fresh = holders(palace)
    assert {p for _, p, _ in before} == {"coaches"} and {p for _, p, _ in fresh} == {"chairs"}
    assert edited == fresh


def test_a_teams_signings_and_a_drivers_retirement_are_no_facts(extractor):
    """Readings a team's or a driver's page would otherwise give once "the Hawks" and a
    narrative gerund are read: a player signed is neither approved nor owned, and
    "before retiring" (from a race) ends no job."""
    text = ("# Harbor City Hawks\n\nThe Harbor City Hawks are a professional ice hockey team.\n\n"
            "On 3 July 2019 the Hawks signed Jonas Ek to a four-year contract. In 2021 the Hawks acquired"
            " Mats Ulf from the Wolves.\n\n"
            "Ana Lima works at Acme Motorsport. In 2022 she qualified fifth at Monza, before retiring after a"
            " collision.\n")
    facts = read(extractor, text, title="Harbor City Hawks")
    assert not any(p in ("approved", "owns") for _, p, *_ in facts)
    assert ("Ana Lima", "works_at", "Acme Motorsport", "2024-06-10", None) in facts
    assert not any(p == "works_at" and start is None for _, p, _, start, _ in facts)


def test_work_notes_are_no_sport_pages(extractor):
    """The club and coach readings stay out of ordinary notes (a fresh reader's findings)."""
    told = read(extractor, "I told the team Marcus Webb joined Initech. Marcus Webb lives in London.")
    assert {("Marcus Webb", "works_at", "Initech"), ("Marcus Webb", "lives_in", "London")} <= {f[:3] for f in told}
    goals = read(extractor, "Our goals for Q3 are clear. Three goals: ship, hire, save. "
                            "Dana Lee is the engineering manager of the Platform team at Initech.")
    assert ("Dana Lee", "works_at", "Initech") in {f[:3] for f in goals}
    assert not [f for f in goals if f[1] == "coaches"]
    vice = read(extractor, "Sam Ortiz, the vice-chair of the audit committee, spoke first.")
    assert not [f for f in vice if f[1] == "chairs"]


def test_a_ministers_portfolio_is_part_of_the_post_and_no_employer(extractor):
    facts = read(extractor, "Lena Varga was Minister of National Defence from December 2004 to October 2006.")
    assert ("Lena Varga", "role", "Minister of National Defence", "2004-12-01", "2006-11-01") in facts
    assert not any(f[1] == "works_at" for f in facts)  # "National Defence" employs nobody
    # a company's officer still works there
    facts = read(extractor, "Bo Lind is the CFO of Globex.")
    assert ("Bo Lind", "works_at", "Globex", "2024-06-10", None) in facts
    # a minister of a church, written small, serves it
    facts = read(extractor, "Ana Costa is a minister of the Church of Scotland.")
    assert any(f[1] == "works_at" and "Church of Scotland" in f[2] for f in facts)
    facts = read(extractor, "In 2019 Ada Vance served as minister of Health and Care Services.")
    assert any(f[1] == "role" and f[2] == "minister of Health and Care Services" for f in facts)
    assert not any(f[1] == "works_at" for f in facts)
