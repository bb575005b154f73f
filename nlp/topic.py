"""A note's own subject (its **topic**): the person, club, ship or office a page is about.

An encyclopedic page, or a note about one person, names its subject in its title ("#
Stefano Pioli", "# Fergie (singer)") and then mostly by short forms and pronouns: "Pioli
was named head coach…", "He left Piacenza…", "The club was founded…", "She was
launched…". :func:`note_topic` reads, from the title and the body alone:

- the topic's **name**: the title without its bracketed qualifiers ("Fergie" of "Fergie
  (singer)", "11th Army" of "11th Army (Wehrmacht)"), with "Jr.", initials and "S.K."
  kept;
- whether it is a **person** (a birth date in the opening sentence, "(singer)", "is an
  Italian football manager") or a thing, and the **pronoun** the page uses for it (the
  most frequent of he, she and it: a ship is "she");
- the **kinds** that name it in a definite phrase ("the club", "the company", "the
  band"): the kind nouns of the opening sentence's complement, the qualifier and the
  title's own last word;
- its **short forms**: the surname and first name of a person, the longer form of the
  opening sentence ("Leeza Kim Gibbons" of "Leeza Gibbons"), less any that another full
  name of the note shares ("Hitler" on a page that also names Adolf Hitler is not Paula
  Hitler).

A title that names no one in particular ("Weekly sync", "2024-03-02", a sentence) gives
no topic. Pure string work: the relation readers (:mod:`palace.nlp.sentence`) resolve a
pronoun to the topic when nothing nearer fits, and the extractor renames the topic's
short forms to its name (:mod:`palace.nlp.extraction`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from palace.nlp.types import CLUB_MARKS

__all__ = ["Topic", "note_topic", "topic_name", "KIND_WORDS"]

#: Nouns that name a kind of thing a page can be about, as "the club" names the club of
#: a club's page.
KIND_WORDS = frozenset({
    "club", "team", "side", "squad", "band", "group", "duo", "trio", "orchestra", "choir", "company", "firm",
    "corporation", "business", "agency", "brand", "label", "publisher", "studio", "network", "channel", "station",
    "newspaper", "magazine", "journal", "paper", "show", "series", "programme", "program", "film", "album",
    "party", "movement", "union", "association", "society", "organisation", "organization", "foundation",
    "institute", "institution", "university", "college", "school", "academy", "hospital", "museum", "library",
    "church", "cathedral", "abbey", "monastery", "house", "building", "tower", "castle", "palace", "mansion",
    "estate", "stadium", "arena", "ground", "venue", "theatre", "theater", "bridge", "line", "railway", "train",
    "airline", "airport", "port", "ship", "vessel", "carrier", "submarine", "boat", "cruiser", "destroyer",
    "frigate", "battleship", "liner", "unit", "division", "regiment", "battalion", "brigade", "squadron", "wing",
    "army", "corps", "fleet", "command", "navy", "force", "council", "committee", "board", "court", "ministry",
    "department", "office", "post", "position", "professorship", "chair", "league", "competition", "tournament",
    "city", "town", "village", "municipality", "county", "district", "province", "region", "state", "country",
    "kingdom", "empire", "republic", "settlement", "square", "street", "statue", "monument", "park", "consortium",
    "council", "parliament", "assembly", "government", "cabinet", "dynasty", "family", "restaurant", "hotel",
    "store", "chain", "bank", "fund", "exchange", "festival", "race", "award", "prize", "villa", "hall", "class",
    "locomotive", "game", "icebreaker", "painting", "sculpture", "novel", "book", "song", "poem", "opera",
    "artwork", "mural", "fresco", "cutter", "reserve", "governorate", "oblast", "emirate", "sultanate",
})
#: Nouns of the opening sentence that make the topic a person ("is an Italian football
#: manager", "was a Polish composer").
PERSON_WORDS = frozenset({
    "politician", "player", "footballer", "manager", "coach", "actor", "actress", "singer", "songwriter",
    "musician", "rapper", "composer", "conductor", "writer", "author", "novelist", "poet", "journalist", "editor",
    "painter", "sculptor", "architect", "artist", "photographer", "designer", "director", "producer", "presenter",
    "host", "businessman", "businesswoman", "entrepreneur", "executive", "engineer", "scientist", "physicist",
    "chemist", "biologist", "mathematician", "economist", "historian", "philosopher", "geographer", "geologist",
    "astronomer", "physician", "surgeon", "lawyer", "barrister", "judge", "diplomat", "officer", "general",
    "admiral", "soldier", "commander", "pilot", "aviator", "astronaut", "athlete", "cyclist", "swimmer",
    "runner", "boxer", "wrestler", "driver", "grandmaster", "priest", "bishop", "cardinal", "missionary",
    "monk", "nun", "king", "queen", "prince", "princess", "emperor", "nobleman", "noblewoman", "philanthropist",
    "activist", "educator", "teacher", "professor", "academic", "scholar", "researcher", "translator",
    "comedian", "dancer", "chef", "inventor", "explorer", "statesman", "stateswoman", "lieutenant",
    "colonel", "captain", "major", "sergeant", "marshal", "sailor", "jockey", "skier", "skater",
    "cricketer", "golfer", "batsman", "bowler", "goalkeeper", "defender", "midfielder", "striker",
    "winger", "pitcher", "outfielder", "infielder", "quarterback", "wife", "husband",
    "daughter", "son", "sister", "brother", "mother", "father", "socialite", "heiress", "spy", "criminal",
    "official", "servant", "administrator", "governor", "mayor", "senator", "minister", "president", "dj",
    "vocalist", "guitarist", "drummer", "bassist", "pianist", "violinist", "cellist", "trumpeter", "saxophonist",
    "broadcaster", "commentator", "critic", "illustrator", "cartoonist", "animator", "screenwriter", "playwright",
    "lyricist", "performer", "entertainer", "personality", "youtuber", "blogger", "influencer",
})
#: Kinds of thing English calls "she": ships.
_SHIP_KINDS = frozenset({"ship", "vessel", "carrier", "submarine", "boat", "cruiser", "destroyer", "frigate",
                         "battleship", "liner", "yacht", "steamer", "schooner", "tanker", "ferry"})
#: Capitalised words that open a sentence or a title before a surname ("Then Baró",
#: "President Puigdemont", "Sir Andrzej Panufnik"): no other given name.
_NOT_GIVEN = frozenset("""
the a an in on at after before then when while during since until from to by with for of and or but as if
however although though subsequently later earlier meanwhile thus also both under over into upon despite
this that these those his her their its our my he she they it we i there here following according
sir dame lord lady dr mr mrs ms miss prof professor president vice general colonel major captain lieutenant
admiral commander sergeant marshal king queen prince princess emperor empress duke duchess count countess
baron baroness saint st pope bishop archbishop cardinal father brother sister rev reverend senator governor
mayor minister chancellor coach manager chairman chairwoman director judge justice deputy representative
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday
""".split())
#: Kinds of thing English calls "they" ("the band … they released").
_PLURAL_KINDS = frozenset({"band", "group", "duo", "trio", "club", "team", "side", "squad", "orchestra", "choir"})
_PERSON_QUALIFIERS = PERSON_WORDS | {"born", "footballer", "politician", "singer", "rapper", "musician"}
_GENERATIONAL = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_PARTICLES = frozenset({"de", "del", "della", "der", "den", "da", "das", "di", "dos", "du", "la", "le", "van",
                        "von", "ter", "ten", "bin", "ibn", "al", "el", "y", "of", "the", "and", "&"})
_BRACKETS = re.compile(r"\s*\([^()]*\)")
_SENTENCE_END = re.compile(r"(?<![A-Z])(?<!\b[A-Z][a-z])(?<!\bSt)(?<!\bJr)(?<!\bSr)(?<!\bDr)(?<!\bMr)(?<!\bMs)[.!?](?=\s|$)")
_NAME_RUN = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:(?:de|da|van|von|der|la|le|di|del|dos|bin|al)\s+)*[A-Z][\w'’.-]*)*")
_BORN = re.compile(r"\((?:[^()]*;\s*)?(?:born|b\.)\s|\((?:c\.\s*)?\d{3,4}\s*[–-]\s*(?:c\.\s*)?\d{3,4}\)"
                   r"|\(\d{1,2} \w+ \d{3,4}\s*[–-]|\(\w+ \d{1,2}, \d{3,4}\s*[–-]")
_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)
_IT = re.compile(r"\b(?:it|its|itself)\b", re.I)


@dataclass(frozen=True)
class Topic:
    """What a note is about: ``name`` (the title without qualifiers), ``title`` (as
    written), ``person`` (a person, else a thing), ``pronoun`` (``he``, ``she``, ``it``
    or None: the page's own pronoun for it), ``kinds`` (nouns that name it after "the")
    and ``short_forms`` (lower-case names that stand for it in this note: a surname, a
    first name, a longer form)."""

    name: str
    title: str
    person: bool
    pronoun: str | None
    kinds: frozenset[str] = frozenset()
    short_forms: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        """The entity label of the topic: PERSON, else ORG (a thing a page is about)."""
        return "PERSON" if self.person else "ORG"

    def takes(self, pronoun: str) -> bool:
        """Whether ``pronoun`` (lower case) can stand for the topic: he/she by the page's
        own pronoun (either, for a person whose opening drawer uses none: "Walter
        Mazzarri (born 1 October 1961) is an Italian former footballer." alone), it and
        they for a thing."""
        if pronoun in ("he", "him", "his", "himself"):
            return self.pronoun == "he" or (self.person and self.pronoun is None)
        if pronoun in ("she", "her", "hers", "herself"):
            return self.pronoun == "she" or (self.person and self.pronoun is None)
        if pronoun in ("it", "its", "itself"):
            return not self.person
        if pronoun in ("they", "them", "their", "theirs"):
            return not self.person and bool(self.kinds & _PLURAL_KINDS)
        return False

    def names(self, name: str) -> bool:
        """Whether ``name`` (as read in the note) stands for the topic."""
        key = fold(name)
        return key == fold(self.name) or key == fold(self.title) or key in self.short_forms


def fold(text: str) -> str:
    """Case-folded, accents removed, a leading "the" and a final "'s" dropped, spaces
    collapsed: how names are compared here."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"['’]s$", "", " ".join(text.split()).casefold())
    return re.sub(r"^the\s+", "", text)


def topic_name(title: str) -> str:
    """The name a title gives: without its bracketed qualifiers ("Fergie (singer)" →
    "Fergie"), spaces collapsed; "" when nothing is left."""
    return " ".join(_BRACKETS.sub(" ", title).split()).strip(" ,")


def _first_sentence(body: str) -> str:
    """The opening sentence of the note's first paragraph (headings, lists and one-line
    labels such as "History." skipped)."""
    for block in re.split(r"\n\s*\n", body):
        text = " ".join(block.split())
        if not text or text.startswith(("#", "-", "*", "|", ">", "```")) or len(text.split()) < 4:
            continue
        found = _SENTENCE_END.search(text)
        return text[:found.end()] if found else text
    return ""


#: Title words of a record of an occasion (minutes, a journal), which is about no one thing.
_RECORD_WORDS = frozenset({"meeting", "meetings", "minutes", "notes", "sync", "agenda", "standup", "stand-up",
                           "retro", "retrospective", "journal", "diary", "log", "call", "1:1", "weekly", "daily",
                           "triage", "recap", "summary", "update", "updates", "planning"})


def _plausible(name: str) -> bool:
    words = name.split()
    if not words or len(words) > 9 or not any(ch.isalpha() for ch in name):
        return False
    if name.endswith(("?", "!", ":")) or re.fullmatch(r"[\d\s/.:-]+", name):
        return False
    if re.search(r"\d{4}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}", name) or {w.casefold().strip(":,") for w in words} & _RECORD_WORDS:
        return False  # "Council meeting 2025-01-17", "T-Lang Meeting: Current meeting": a record, not a subject
    if any(re.search(r"['’]s$", w) for w in words):
        return False  # "Alice's news", "Bob's birthday": something of a name, not a subject
    capitalised = sum(1 for w in words if w[:1].isupper() or w[:1].isdigit())
    return capitalised >= max(1, (len(words) + 1) // 2)


def note_topic(title: str, body: str) -> Topic | None:
    """The topic of a note titled ``title`` whose text is ``body`` (front matter left
    out), or None when the title names nothing in particular or the note does not open
    about it (see the module docstring)."""
    name = topic_name(title or "")
    if not _plausible(name):
        return None
    words = name.split()
    lead = _first_sentence(body)
    lead_fold = fold(lead)
    name_words = [fold(w.strip(",;:")) for w in words]
    name_words = [w for w in name_words if w not in _PARTICLES and w not in _GENERATIONAL and len(w) > 1]
    about = _opens_about(name, name_words, lead)
    qualifiers = [q.strip("() ").casefold() for q in re.findall(r"\([^()]*\)", title or "")]
    qualifier_words = {w.strip(",.") for q in qualifiers for w in q.split()}
    if not about and not (qualifiers and any(w in fold(lead).split() for w in name_words)):
        return None  # "Fergie (singer)": "…, known as Fergie, is"; not "Harbor re-forecast (Q3 2024)"
    complement = _complement(lead)
    title_words = [fold(w) for w in words]
    kinds = frozenset(w for w in [*complement, *qualifier_words, *title_words] if w in KIND_WORDS)
    if _is_office(name):  # "President of Uruguay", "Regius Professor of Civil Law": a post and its holders
        kinds |= {"office", "post", "position"} | {w for w in title_words[:2] if w in _OFFICE_WORDS}
    head = complement[-1] if complement else ""
    he, she, it = (len(rx.findall(body)) for rx in (_HE, _SHE, _IT))
    person = bool(qualifier_words & _PERSON_QUALIFIERS) or bool(_BORN.search(lead)) or head in PERSON_WORDS
    if _is_office(name) or (re.fullmatch(r"[A-Z]{2,}", words[0]) and len(words) > 1):
        person = False  # an office; "USS Slater", "HMS Warrior", "MS Costa Allegra": a ship
        kinds |= {"ship", "vessel"} if re.fullmatch(r"[A-Z]{2,}", words[0]) and she > it else frozenset()
    elif not person and not kinds and head not in KIND_WORDS:
        person = he + she >= 2 and he + she > it  # "Amalric … was King of Jerusalem", he throughout
    if person:
        kinds = frozenset()
        chosen = "he" if he >= she and he else "she" if she else None
    else:
        chosen = "she" if kinds & _SHIP_KINDS and she > it else "it"
    return Topic(name, title, person, chosen, kinds, _short_forms(name, lead, body, person))


#: First words of a title that names an office ("President of Uruguay", "Master-General
#: of the Ordnance", "Permanent Secretary to the Treasury").
_OFFICE_WORDS = frozenset({
    "president", "vice", "prime", "minister", "secretary", "professor", "regius", "chancellor", "governor", "mayor",
    "master-general", "master", "general", "director", "chairman", "speaker", "lord", "chief", "permanent",
    "attorney", "solicitor", "treasurer", "archbishop", "bishop", "dean", "head", "commissioner", "ambassador",
    "consul", "deputy", "first", "leader", "commander", "commander-in-chief", "surveyor", "postmaster", "provost",
    "rector", "principal", "grand", "high", "lieutenant", "judge", "chief-justice", "inspector", "auditor",
})


#: Lower-case words inside proper names ("Permanent Secretary to the Treasury", "Max
#: Planck Institute for Astronomy"), beside the particles of personal names.
_NAME_LINKS = frozenset({"for", "to", "and", "on", "at", "upon", "under", "over"})


def _opens_about(name: str, name_words: list[str], lead: str) -> bool:
    """Whether the opening sentence ``lead`` is about ``name``, as a page about it opens
    ("Stefano Pioli (born …) is", "Harbor is the migration …", "The Han dynasty was"): the
    name after "known as" or ", or", or one of its ``name_words`` among the first six words; a title with a lower-case word ("Han
    dynasty", not "Marcus in Lisbon" nor "Budget review") only when the sentence opens with
    the whole title. A note that opens otherwise ("Saturday. Met Alice at Café Müller")
    is a record of something, about no one thing, and its pronouns keep their nearest
    referent."""
    if re.search(rf"(?:known|called|nicknamed|styled)\b[^.;]*?(?<!\w){re.escape(name)}(?!\w)|, or (?:the )?{re.escape(name)}(?!\w)",
                 lead):
        return True  # "Bobby Ray Simmons Jr. (…), known professionally as B.o.B, is"; "…, or PandaX, is"
    first = [fold(w.strip(",;:()\"'*")) for w in lead.split()[:6]]
    if not any(w in first for w in name_words):
        return False
    lower = [w for w in name.split() if w[:1].islower() and fold(w) not in _PARTICLES and fold(w) not in _NAME_LINKS]
    return not lower or fold(lead).startswith(fold(name))


def _is_office(name: str) -> bool:
    words = [fold(w) for w in name.split()]
    return len(words) >= 3 and bool(set(words[:2]) & _OFFICE_WORDS) and words[0] not in ("the",) \
        and bool(re.search(r"\s(?:of|to|for)\s", name)) and "," not in name


def _complement(lead: str) -> list[str]:
    """The lower-case words of the opening sentence's complement: "is an Italian
    professional football manager" → [..., "football", "manager"]."""
    found = re.search(r"\b(?:is|was|are|were|has been|had been)\s+(?:an?\s+|the\s+|one of the\s+|one of\s+)?([^.;:]*)",
                      lead)
    if not found:
        return []
    out = []
    for word in found.group(1).split():
        word = word.strip(",()").casefold()
        if word in ("who", "which", "that", "in", "of", "for", "from", "based", "founded", "located", "and", "at",
                    "with", "by", "on"):
            if out:
                break
            continue
        out.append(word)
    return out


def _name_runs(text: str) -> list[list[str]]:
    """Runs of capitalised words of ``text``, folded, cut after a word that ends a
    sentence ("Britain. Scheer" is two runs; "Gordon W. McKay" one)."""
    out = []
    for run in _NAME_RUN.finditer(text):
        parts: list[str] = []
        for word in run.group(0).split():
            parts.append(fold(word.rstrip(".")))
            if word.endswith(".") and len(word.rstrip(".")) > 1 and fold(word) not in _GENERATIONAL | {"st."}:
                out.append(parts)
                parts = []
        if parts:
            out.append(parts)
    return out


#: An opening sentence that says the topic is a team ("… are a professional American
#: football team based in …"): its name's last word stands for it.
_TEAM_LEAD = re.compile(r"\b(?:team|franchise|club)\b", re.I)


def _short_forms(name: str, lead: str, body: str, person: bool) -> frozenset[str]:
    """The lower-case names that stand for the topic in this note (see the module
    docstring): for a person, the longer forms of the opening sentence, and the surname
    and first name unless another full name of the note shares them; for a thing, the
    name without a leading "The", and a team's last word ("Yankees", "Dream") when the
    opening sentence calls it a team and its name holds no club letters ("KF … Korçë")."""
    forms = {fold(name)}
    words = [w for w in name.split() if fold(w) not in _GENERATIONAL]
    if not person:
        forms.add(fold(re.sub(r"^The\s+", "", name)))
        if len(words) >= 2 and _TEAM_LEAD.search(lead[:300]) and words[-1][:1].isupper() \
                and fold(words[0]).replace(".", "") not in CLUB_MARKS and fold(words[-1]).replace(".", "") not in CLUB_MARKS:
            forms.add(fold(words[-1]))  # "the Yankees" on the New York Yankees' page, "the Dream"
        return frozenset(forms)
    if "," in name:  # "George Cambridge, 2nd Marquess of Cambridge", "Fulk, King of Jerusalem"
        head = name.split(",")[0].strip()
        forms.add(fold(head))
        words = head.split()
    if " of " in " ".join(words):  # "Arnulf of Carinthia": no surname; the name before "of"
        words = " ".join(words).split(" of ")[0].split()
        if len(words) == 1:
            return frozenset(forms | {fold(words[0])})
    if len(words) < 2:
        return frozenset(forms)
    first, last = fold(words[0]), fold(words[-1])
    given = {fold(w) for w in words}
    for run in _NAME_RUN.finditer(lead[:200]):  # "Leeza Kim Gibbons (born…) is…"
        parts = run.group(0).split()
        if len(parts) > len(words) and fold(parts[0]) == first and fold(parts[-1]) == last:
            forms.add(fold(run.group(0)))
            given |= {fold(w) for w in parts}
    others_last, others_first = set(), set()
    for parts in _name_runs(body):
        for i in range(1, len(parts)):
            if parts[i] == last and parts[i - 1] not in given and parts[i - 1] not in _NOT_GIVEN:
                others_last.add(parts[i - 1])  # "Adolf Hitler" on Paula Hitler's page
            if parts[i - 1] == first and parts[i] not in given and parts[i] not in _NOT_GIVEN:
                others_first.add(parts[i])
    if len(last) > 1 and not others_last:
        forms.add(last)
    if len(first) > 2 and not others_first:
        forms.add(first)
    return frozenset(forms)
