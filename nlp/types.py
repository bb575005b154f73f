"""A name's type from a vote of the evidence its drawer holds, the NER label one vote.

The small recogniser tags "Project Osprey" a PERSON and "Actions" of "GitHub Actions" a
place; a predicate's type check on that one label loses "Marco Bell leads Project
Osprey." So a name's type is decided by a vote (issue 22, item 2):

- the recogniser's label: one vote (:data:`NER_VOTE`);
- a construction that fixes the type, in the name or around it in the text: "Project
  Osprey", "the Heron project", "the Kestrel team", "Acme Robotics" (an organisation's
  last word): :data:`CONSTRUCTION_VOTE`, which outweighs the label;
- the shape of a name the recogniser missed: a word with a capital inside it ("GitHub",
  "CircleCI", "PostgreSQL") names a product or a company, not a place or a person:
  :data:`SHAPE_VOTE`.

A recognised name is voted by its own words (``palace.nlp.extraction``); the drawer's
text around a name ("the Atlas team") votes for a name the recogniser missed and for the
readings' doubts (:mod:`palace.nlp.confidence`), not for the mention's label, so that
"They" after "The Atlas team" still stands for the team.

What other notes say of a name (its own note's front matter, how the palace uses it) is
not voted here: a drawer's reading must depend on its drawer only, so that a one-note
edit leaves the graph a fresh mine gives.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["NER_VOTE", "CONSTRUCTION_VOTE", "SHAPE_VOTE", "GROUP_WORDS", "CLUB_MARKS", "SPORT_ONLY_MARKS", "CLUB_SUFFIXES",
           "CLUB_DESCRIPTORS", "COACH_TITLES", "vote", "construction_type", "shape_type", "is_club", "about_sport", "is_venue", "is_league",
           "OBJECT_KINDS"]

#: The weight of the recogniser's label.
NER_VOTE = 1
#: The weight of a construction that fixes the type ("Project X", "the X team").
CONSTRUCTION_VOTE = 3
#: The weight of a missed name's shape ("GitHub"): it outweighs a place label.
SHAPE_VOTE = 2
#: Words that, first or last in a name, or after it ("the Heron project"), make it an
#: organisation or a group of people (the registry's ``ORG``).
GROUP_WORDS = frozenset({"project", "programme", "program", "initiative", "team", "squad", "taskforce",
                         "working group", "workstream", "committee", "council"})
_LEADING = frozenset({"project", "operation", "programme", "program", "team"})
#: Abbreviations that, first or last in a name of two words or more, make it a sports
#: club ("Alicante CF", "CF Peralada", "C.D. Montijo", "U.S. Triestina Calcio"), dots
#: and case folded.
CLUB_MARKS = frozenset({"fc", "cf", "sc", "afc", "cfc", "cd", "sd", "ud", "vfb", "vfl", "bk", "fk", "nk", "hnk", "ssc",
                        "asd", "rcd", "fbc", "calcio", "sv", "sk", "kf", "ks"})
#: Club abbreviations that are also other words or names ("US Army", "AC Hotel", "Ad
#: Hoc", "Athletic Brewing"): club evidence only in a drawer about sport (:func:`about_sport`).
SPORT_ONLY_MARKS = frozenset({"ac", "acs", "us", "ss", "if", "ad", "sl", "rfc", "athletic"})
#: Words that, last in a name of two words or more, make it a club ("Leeds United",
#: "Bristol Rovers"). "City", "Town" and "County" are not among them: places too.
CLUB_SUFFIXES = frozenset({"united", "rovers", "wanderers", "athletic", "albion", "hotspur", "balompié", "calcio",
                           "argyle", "athletics", "fc", "cf", "sc", "afc", "cfc"})
#: Nouns that, written right before a name, say it is a club or team: "fellow league side
#: Alicante CF", "the Italian Serie B club U.S. Triestina Calcio", "non-league outfit X".
CLUB_DESCRIPTORS = ("side", "club", "outfit", "franchise")
#: Person-name prefixes with an inner capital ("McDonald", "DeShawn"): no product shape.
_NAME_PREFIX = re.compile(r"^(?:Mc|Mac|O'|O’|De|Di|Da|Du|La|Le|Van|Von|St)[A-Z]")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


#: Titles of a club's coach: "coach of Reggina", "the Inter manager" (a manager in a drawer
#: about sport; :func:`about_sport`).
COACH_TITLES = frozenset({"coach", "head coach", "manager", "trainer", "head trainer", "caretaker manager",
                          "interim manager", "interim coach", "caretaker", "boss"})
_SPORT = re.compile(r"\b(?:football(?:er)?|soccer|basketball|baseball|hockey|rugby|cricket|league|serie [a-d]|"
                    r"la liga|bundesliga|ligue 1|eredivisie|coach(?:ing|ed|es)?|seasons?|relegat\w+|promot(?:ion|ed) to|club|loan|"
                    r"appearances|goals|caps|squad|striker|midfielder|defender|goalkeeper|scored|debut|cup)\b",
                    re.IGNORECASE)
#: The words of :data:`_SPORT` that work notes use too ("our goals", "the holiday season",
#: "a book club", "a loan"): they count only beside a word of a game.
_SPORT_WEAK = frozenset({"seasons", "season", "goals", "caps", "club", "loan", "cup", "debut", "squad", "scored",
                         "appearances", "coach", "coaching", "coached", "coaches"})


def about_sport(text: str) -> bool:
    """Whether a drawer's ``text`` is about a sport: two different words of a game, a
    league, a season, a coach, a club, a loan, goals or a relegation, one of them not
    also common in work notes (:data:`_SPORT_WEAK`: "Our goals … three goals" is no
    game)."""
    words = {w.casefold() for w in _SPORT.findall(text)}
    return len(words) >= 2 and bool(words - _SPORT_WEAK)


def is_club(name: str, text: str = "") -> bool:
    """Whether ``name`` is a sports club by its own words (a club abbreviation first or
    last, :data:`CLUB_MARKS`; a club word last, :data:`CLUB_SUFFIXES`) or, in a ``text``
    about sport (:func:`about_sport`), by an abbreviation that is also a word
    (:data:`SPORT_ONLY_MARKS`: "AC Milan") or a descriptor noun written right before it ("League One side Crewe Alexandra", "his
    hometown club C.D. Montijo"; :data:`CLUB_DESCRIPTORS`)."""
    words = [w.replace(".", "").casefold() for w in name.split()]
    if len(words) >= 2 and (words[0] in CLUB_MARKS or words[-1] in CLUB_MARKS or words[-1] in CLUB_SUFFIXES):
        return True
    if not text or not name[:1].isupper() or not about_sport(text):
        return False  # "US Army", "I told the team Marcus Webb …": no club outside a drawer about sport
    if len(words) >= 2 and (words[0] in SPORT_ONLY_MARKS or words[-1] in SPORT_ONLY_MARKS):
        return True
    return re.search(rf"\b(?:{'|'.join(CLUB_DESCRIPTORS)})[ \t]+{re.escape(name)}(?![\w-])", text) is not None


def construction_type(name: str, text: str = "") -> str | None:
    """``ORG`` when the name's words or ``text`` around it fix it as a project, a team
    or a club: "Project Osprey", "Osprey project", "Kestrel Team", "the Heron project" /
    "the Kestrel team" written in ``text``, a club (:func:`is_club`: "Alicante CF",
    "fellow league side Crewe Alexandra"); else None."""
    words = name.split()
    if len(words) >= 2 and (words[0].casefold() in _LEADING or words[-1].casefold() in GROUP_WORDS):
        return "ORG"
    if is_club(name, text):
        return "ORG"
    if text and re.search(rf"\b(?:the|our|their|its|his|her) {re.escape(name)}\s+(?:{'|'.join(sorted(GROUP_WORDS))})\b",
                          text, re.IGNORECASE):
        return "ORG"
    return None


def shape_type(name: str) -> str | None:
    """``PRODUCT`` for a name with a word whose capital is inside it ("GitHub Actions",
    "CircleCI"), not a person's prefix ("McDonald"); else None."""
    for word in name.split():
        if _INNER_CAPITAL.search(word) and not _NAME_PREFIX.match(word):
            return "PRODUCT"
    return None


def vote(name: str, ner_label: str | None, text: str = "") -> str | None:
    """The type of ``name`` by the vote of its evidence: ``ner_label`` (may be None: a
    name the recogniser missed), the construction (:func:`construction_type` over
    ``text``, the drawer) and the shape (:func:`shape_type`, only for a missed name or
    a place: the recogniser's places and people are often products). Ties keep the
    recogniser's label. None when nothing votes."""
    votes: Counter[str] = Counter()
    if ner_label:
        votes[ner_label] += NER_VOTE
    fixed = construction_type(name, text)
    if fixed:
        votes[fixed] += CONSTRUCTION_VOTE
    shaped = shape_type(name) if ner_label in (None, "GPE", "LOC") else None
    if shaped:
        votes[shaped] += SHAPE_VOTE
    if not votes:
        return None
    best = max(votes.values())
    if ner_label and votes[ner_label] == best:
        return ner_label
    return next(label for label, count in votes.items() if count == best)


#: Words that, last in a name, make it a sports venue ("SoFi Stadium", "Hilltop Park",
#: "Gateway Center Arena"); first in a name, its Romance forms ("Estadio El Toralín").
VENUE_LAST = frozenset({"stadium", "arena", "park", "field", "ground", "grounds", "coliseum", "colosseum", "center",
                        "centre", "garden", "gardens", "bowl", "dome", "pavilion", "stadion", "oval", "velodrome",
                        "ballpark", "fieldhouse", "forum", "speedway", "sportpark"})
VENUE_FIRST = frozenset({"estadio", "estádio", "stadio", "stade", "stadion", "campo", "parc", "arena"})
#: Words of a league's name ("Liga II", "the Premier League", "Regionalliga West") and the
#: leagues known by their letters.
LEAGUE_WORDS = frozenset({"league", "liga", "division", "serie", "conference", "bundesliga", "premiership",
                          "championship", "ligue", "eredivisie", "primera", "segunda", "regionalliga", "oberliga",
                          "veikkausliiga", "allsvenskan", "superettan", "eliteserien", "ekstraklasa", "superliga",
                          "divisione", "lega", "süper", "prva", "druga", "nationalliga"})
LEAGUE_ACRONYMS = frozenset({"nba", "nfl", "nhl", "mlb", "wnba", "mls", "usl", "afl", "cfl", "aba", "khl", "nwsl",
                             "efl", "spl", "npsl", "nasl", "whl", "ohl", "ahl", "echl", "ncaa"})


def is_venue(name: str, text: str = "") -> bool:
    """Whether ``name`` names a sports venue by its words (:data:`VENUE_LAST`,
    :data:`VENUE_FIRST`): "SoFi Stadium", "Polo Grounds", "Estadio Carlos Belmonte"."""
    words = [w.casefold().strip(".,") for w in name.split()]
    return len(words) >= 2 and (words[-1] in VENUE_LAST or words[0] in VENUE_FIRST)


def is_league(name: str, text: str = "") -> bool:
    """Whether ``name`` names a sports league or division by its words
    (:data:`LEAGUE_WORDS`: "Liga II", "the Premier League", "Regionalliga West",
    "2. Bundesliga") or its letters (:data:`LEAGUE_ACRONYMS`: "NFL")."""
    words = [w.casefold().strip(".,()") for w in name.split()]
    if len(words) == 1:
        return words[0] in LEAGUE_ACRONYMS or words[0] in ("bundesliga", "eredivisie", "veikkausliiga", "allsvenskan",
                                                           "superettan", "eliteserien", "ekstraklasa", "regionalliga")
    return any(w in LEAGUE_WORDS or w.endswith("liga") for w in words) or words[0] in LEAGUE_ACRONYMS


#: The kinds of object a pattern may require (``object_kind`` in the registry), each
#: told by the name's own words whatever the recogniser's label.
OBJECT_KINDS = {"club": is_club, "venue": is_venue, "league": is_league}
