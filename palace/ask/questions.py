"""Questions that ask for one predicate of one name: "what plan is Initrode on", "who does
Bob report to", "who leads Harbor", "is Harbor blocked" — read with no cue word, no spaCy.

The words live beside the predicate registry: each predicate's relational ``nouns`` in
``palace/data/predicates.json`` (with their possessor — "manager" is the object of its
possessor's ``reports_to``, "lead" the subject of ``leads`` towards its possessor — and
the kinds of names they take), and ``palace/data/questions.json`` for what only questions
use: verbs (with the side of the fact their grammatical subject is on, and the words that
may follow them), whole forms ("what does X do"), the answer's sentence and label. A
palace's ``config.json`` extends both (:func:`load_questions`).

A question is lower-cased, its date window and time words ("now", "currently") dropped,
and each name replaced by a slot: the entities the planner matched, then runs of
capitalised words the graph does not know ("Initrode", "Metoprolol"). Forms are regular
expressions over that text; a reading whose name is of a kind the registry does not
expect on that side comes after the others.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Iterator, NamedTuple

from palace.ask.question_text import normalised

if TYPE_CHECKING:
    from palace.ask.planning import EntityMatch
    from palace.config import Config

_WH = "who|whom|what|which|where|whose"
_AUX = "do|does|did|is|was|are|were|has|have|had|will|would|can|could|should|may|might"
_COP = "is|was|are|were|will be|has been|had been|have been"
_DET = r"(?:(?:the|a|an|its|their|his|her|our|my|your) )?"
_SLOT = r"§(?P<x>\d+)"
_LEAD = (r"^(?:(?:please|so|and|ok|okay|hey|then|but|also) )*"
         r"(?:(?:do you know|can you tell me|could you tell me|tell me|remind me|i wonder|any idea) )?")
_END = r"(?= (?:on|in|at|for|to|by|from|with|and|or|as|is|was|are|were)\b|$)"
_IRREGULAR = {
    "lead": ("led",), "run": ("ran", "running"), "take": ("took", "taken"), "do": ("does", "did", "done"),
    "teach": ("taught",), "hold": ("held",), "buy": ("bought",), "go": ("goes", "went", "gone"),
    "have": ("has", "had"), "make": ("made",), "pay": ("paid",), "leave": ("left",), "sell": ("sold",),
    "write": ("wrote", "written"), "begin": ("began", "begun"), "oversee": ("oversaw", "overseen"),
}


def verb_forms(lemma: str) -> tuple[str, ...]:
    """The inflected forms of a verb lemma: ``report`` → report, reports, reported,
    reporting; irregular ones from a small table (``lead`` → led)."""
    forms = [lemma]
    if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
        forms.append(lemma + "es")
    elif lemma.endswith("y") and lemma[-2:-1] not in "aeiou":
        forms.append(lemma[:-1] + "ies")
    else:
        forms.append(lemma + "s")
    if lemma.endswith("e"):
        forms += [lemma + "d", (lemma[:-1] if not lemma.endswith("ee") else lemma) + "ing"]
    elif lemma.endswith("y") and lemma[-2:-1] not in "aeiou":
        forms += [lemma[:-1] + "ied", lemma + "ing"]
    else:
        forms += [lemma + "ed", lemma + "ing"]
    forms += _IRREGULAR.get(lemma, ())
    return tuple(dict.fromkeys(forms))


def noun_forms(noun: str) -> tuple[str, ...]:
    """A noun (one or more words) and its plural: ``direct report`` → ``direct reports``."""
    head, _, last = noun.rpartition(" ")
    if last.endswith(("s", "sh", "ch", "x", "z")):
        plural = last + "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        plural = last[:-1] + "ies"
    else:
        plural = last + "s"
    return (noun, (head + " " if head else "") + plural)


@dataclass(frozen=True)
class FactQuestion:
    """A question read as asking for one predicate of one name.

    ``side`` says where the name sits in the fact: ``subject`` ("what plan is Initrode
    on": Initrode plan ?) or ``object`` ("who leads Harbor": ? leads Harbor); the answer
    is the other end. ``name`` is the graph's name for it (or the words as written when
    the graph does not know them), ``text`` the words of the question, ``entity`` the
    match (None for a name the graph does not know). ``cue`` says which words named the
    predicate ("noun 'plan'", "verb 'report'", "form 'what does X do'", "value
    'blocked'"); ``label`` names the answer ("plan": "no fact about Initrode's plan")
    and ``say`` holds the answer's sentence templates (present, past) over the fact's
    ``{subject}`` and ``{object}``."""

    predicate: str
    side: str
    name: str
    text: str
    entity: EntityMatch | None
    cue: str
    label: str
    say: tuple[str, str]


class _Reading(NamedTuple):
    """One reading of a question: ``predicate`` with the name of slot ``slot`` on
    ``side``, the ``cue`` that said so, the ``rank`` of its pattern (0 a whole form, 1 a
    noun or verb, 2 a weaker one), where it begins (``at``) and the kinds of names the
    noun takes (``only``) and never takes (``never``)."""

    predicate: str
    side: str
    slot: int
    cue: str
    rank: int
    at: int
    only: tuple[str, ...] = ()
    never: tuple[str, ...] = ()


def _patterns(nouns_rx: str | None, verbs_rx: str | None) -> list[tuple[str, int, re.Pattern]]:
    """The noun and verb patterns over a normalised question, ``(kind, rank, regex)``,
    for the alternations of the table's nouns and verbs (None: it has none)."""
    slot = r"(?:the )?" + _SLOT
    patterns: list[tuple[str, int, re.Pattern]] = []
    if nouns_rx is not None:
        patterns += [
            ("noun", 1, re.compile(_LEAD + rf"(?:what|which|whose) (?:\w+ )?(?P<noun>{nouns_rx}) (?:{_AUX}) {_DET}{_SLOT}"
                                   r"(?: \S+){0,3}$")),  # "what plan is X on", not "what role did X play in …"
            ("noun", 1, re.compile(_LEAD + rf"(?:(?:{_WH}) (?:{_COP}) )?{_DET}(?P<noun>{nouns_rx}) (?:of|for|at|behind|in) {slot}{_END}")),
            ("noun", 1, re.compile(rf"{_SLOT} 's (?P<noun>{nouns_rx})(?: \S+){{0,2}}$")),
            ("noun", 1, re.compile(_LEAD + rf"(?:(?:{_WH}) (?:{_COP}) )?{_DET}{_SLOT} (?P<noun>{nouns_rx})$")),
            ("noun", 2, re.compile(_LEAD + rf"(?:{_COP}) {_DET}§\d+ {_DET}(?P<noun>{nouns_rx}) (?:of|for) {slot}{_END}")),
            ("noun", 2, re.compile(_LEAD + rf"(?:{_COP}|{_AUX}) {slot}(?: \S+){{0,3}}? {_DET}(?P<noun>{nouns_rx})\b(?! (?:of|for) )")),
        ]
    if verbs_rx is not None:
        patterns += [
            ("verb-after", 1, re.compile(_LEAD + rf"(?:(?:{_WH})(?: (?!(?:{_AUX})\b)\w+){{0,2}} )?(?P<aux>{_AUX}) {slot}"
                                         rf" (?:\w+ly )?(?:(?:been|being) )?"
                                         rf"(?P<verb>{verbs_rx})(?: (?P<after>\S+))?(?= |$)")),
            ("verb-before", 1, re.compile(_LEAD + rf"(?:{_WH})(?: (?!(?:{_AUX})\b)\w+)?(?: (?:{_AUX}))?(?: (?:been|being))?"
                                          rf" (?P<verb>{verbs_rx})(?: (?P<prep>(?!(?:the|a|an)\b)[a-z]+))? {slot}(?= |$)")),
        ]
    return patterns


class QuestionTable:
    """Question words → predicates, compiled into the forms the planner matches.

    Built by :func:`load_questions` from the registry's relational nouns and the entries
    of ``palace/data/questions.json`` (see its ``_doc``); ``read`` finds the predicate
    questions in a question."""

    def __init__(self, entries: dict[str, dict], nouns: tuple[tuple, ...], lexicons: dict[str, tuple[str, ...]],
                 kinds: dict[str, tuple]) -> None:
        self.entries = entries
        self.kinds = kinds  # predicate -> (subject labels, object labels), from the registry
        self.nouns: dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]] = {}
        for word, predicate, side, only, never in nouns:
            for form in noun_forms(word.casefold()):
                self.nouns.setdefault(form, []).append((predicate, side, tuple(only), tuple(never)))
        self.verbs: dict[str, list[tuple[str, str, tuple[bool, frozenset[str]] | None, str]]] = {}
        self.forms: list[tuple[re.Pattern, str, str, str]] = []
        self.values: dict[str, list[str]] = {}
        self.suffixes: list[tuple[str, str]] = []
        for predicate, entry in entries.items():
            self._add_verbs(predicate, entry)
            for key, side in (("forms", "subject"), ("inverse_forms", "object")):
                for text in entry.get(key, ()):
                    words = [r"(?:the )?§(?P<x>\d+)" if w == "X" else re.escape(w.casefold()) for w in text.split()]
                    self.forms.append((re.compile(_LEAD + " ".join(words) + "$"), predicate, side, text))
            for name in entry.get("values", ()):
                if name.endswith("_suffixes"):
                    self.suffixes += [(s.casefold(), predicate) for s in lexicons.get(name, ())]
                else:
                    for word in lexicons.get(name, ()):
                        self.values.setdefault(word.casefold(), []).append(predicate)
        self.words = frozenset(self.nouns) | frozenset(self.verbs)
        self.patterns = _patterns(_alternation(self.nouns) if self.nouns else None,
                                  _alternation(self.verbs) if self.verbs else None)
        self.yes_no = re.compile(_LEAD + rf"(?:{_COP}|{_AUX}) (?:the )?{_SLOT}(?P<rest>(?: \S+)*)$")

    def _add_verbs(self, predicate: str, entry: dict) -> None:
        """Index the entry's verbs (``work [at|for|]``: the words that may follow) by
        each inflected form, with the direction of the fact their subject is on."""
        for key, direction in (("verbs", "same"), ("inverse_verbs", "inverse")):
            for spec in entry.get(key, ()):
                found = re.fullmatch(r"\s*([\w-]+)\s*(?:\[([^\]]*)\])?\s*", spec)  # checked on loading
                preps = None
                if found.group(2) is not None:
                    words = found.group(2).strip()
                    negative = words.startswith("!")
                    preps = (negative, frozenset(p.strip() for p in words.lstrip("!").split("|")))
                for form in verb_forms(found.group(1).casefold()):
                    self.verbs.setdefault(form, []).append((predicate, direction, preps, found.group(1)))

    def label(self, predicate: str, side: str) -> str:
        """The noun naming the answer: ``plan`` for "no fact about Initrode's plan"."""
        entry = self.entries.get(predicate, {})
        key, nouns = ("label", "nouns") if side == "subject" else ("inverse_label", "inverse_nouns")
        if entry.get(key):
            return entry[key]
        words = list(entry.get(nouns, ())) + [w for w, senses in self.nouns.items()
                                              if any(p == predicate and s == side for p, s, _, _ in senses)]
        return words[0] if words else predicate.replace("_", " ")

    def say(self, predicate: str) -> tuple[str, str]:
        """The answer's sentence templates ``(present, past)`` over ``{subject}``/``{object}``."""
        say = self.entries.get(predicate, {}).get("say") or ()
        if len(say) >= 2:
            return say[0], say[1]
        words = predicate.replace("_", " ")
        return (say[0], say[0]) if say else (f"{{subject}} {words} {{object}}", f"{{subject}} {words} {{object}}")

    def read(self, question: str, entities: tuple[EntityMatch, ...] = (),
             exclude: tuple[int, int] | None = None) -> tuple[FactQuestion, ...]:
        """The predicate questions in ``question``, best reading first (see
        :func:`read_fact_questions`)."""
        text, slots = normalised(question, entities, exclude, self.words)
        found: list[tuple[tuple, _Reading]] = []  # (sort key, reading)
        for reading in (*self._by_forms(text), *self._by_patterns(text), *self._by_values(text, slots)):
            if reading.slot >= len(slots):
                continue
            types = slots[reading.slot][1].types if slots[reading.slot][1] else ()
            if types and ((reading.only and not set(types) & set(reading.only)) or set(types) & set(reading.never)):
                continue  # the registry's noun says it is not about such a name ("lead" of a person)
            found.append(((self._misfit(reading.predicate, reading.side, types), reading.rank,
                           self._unnamed(reading.predicate, reading.cue), reading.at), reading))
        found.sort(key=lambda item: item[0])
        out: list[FactQuestion] = []
        seen: set[tuple[str, str, str]] = set()
        for _, reading in found:
            written, entity = slots[reading.slot]
            name = entity.name if entity else written
            if (reading.predicate, reading.side, name.casefold()) in seen:
                continue
            seen.add((reading.predicate, reading.side, name.casefold()))
            out.append(FactQuestion(reading.predicate, reading.side, name, written, entity, reading.cue,
                                    self.label(reading.predicate, reading.side), self.say(reading.predicate)))
        return tuple(out)

    def _by_forms(self, text: str) -> Iterator[_Reading]:
        """Readings by whole forms ("what does X do")."""
        for rx, predicate, side, form in self.forms:
            hit = rx.search(text)
            if hit:
                yield _Reading(predicate, side, int(hit.group("x")), f"form {form!r}", 0, hit.start())

    def _by_patterns(self, text: str) -> Iterator[_Reading]:
        """Readings by a relational noun ("what plan is X on") or a verb ("who does X
        report to", "who leads X", "who is X managed by")."""
        for kind, rank, rx in self.patterns:
            for hit in rx.finditer(text):
                slot = int(hit.group("x"))
                if kind == "noun":
                    noun = hit.group("noun")
                    for predicate, side, only, never in self.nouns[noun]:
                        yield _Reading(predicate, side, slot, f"noun {noun!r}", rank, hit.start(), only, never)
                    continue
                verb = hit.group("verb")
                follows = hit.group("after") if kind == "verb-after" else hit.group("prep")
                passive = kind == "verb-after" and follows == "by" and hit.group("aux") in ("is", "was", "are", "were")
                for predicate, direction, preps, lemma in self.verbs[verb]:
                    if not passive and not _verb_fits(preps, follows, kind):
                        continue
                    grammatical_subject = (kind == "verb-after") != passive  # X does the verb
                    side = "subject" if grammatical_subject == (direction == "same") else "object"
                    yield _Reading(predicate, side, slot, f"verb {lemma!r}", rank, hit.start())

    def _by_values(self, text: str, slots: list[tuple[str, EntityMatch | None]]) -> Iterator[_Reading]:
        """Readings of a yes/no question by a value of a predicate's lexicon ("is X
        blocked", "is Ruth on Metoprolol"; a word ending as a lexicon's suffixes)."""
        hit = self.yes_no.search(text)
        if not hit or not (self.values or self.suffixes):
            return
        words = [slots[int(w[1:])][0].casefold() if w.startswith("§") and int(w[1:]) < len(slots) else w
                 for w in hit.group("rest").split()]
        for i in range(len(words)):
            for size in (3, 2, 1):
                phrase = " ".join(words[i:i + size])
                predicates = list(self.values.get(phrase, ()))
                if size == 1 and len(phrase) >= 6 and phrase.isalpha():
                    predicates += [p for s, p in self.suffixes if phrase.endswith(s)]
                for predicate in dict.fromkeys(predicates):
                    yield _Reading(predicate, "subject", int(hit.group("x")), f"value {phrase!r}", 2, hit.start())

    def _misfit(self, predicate: str, side: str, types: tuple[str, ...]) -> int:
        """1 when the registry says this end of ``predicate`` takes other kinds of names
        (``reports_to`` is about a PERSON, not the ORG Harbor), else 0. A literal end
        (VALUE) takes any name but a person's: a value may also have been read as a name."""
        ends = self.kinds.get(predicate)
        if ends is None or not types:
            return 0
        allowed = set(ends[0] if side == "subject" else ends[1])
        if "*" in allowed or allowed & set(types) or ("VALUE" in allowed and "PERSON" not in types):
            return 0
        return 1

    @staticmethod
    def _unnamed(predicate: str, cue: str) -> int:
        """0 when the cue word shares its stem with the predicate's name ("owner" →
        ``owns`` before ``leads``), else 1."""
        word = re.sub(r"^\w+ '(.*)'$", r"\1", cue).split(" ")[-1]
        for part in predicate.split("_"):
            common = len(os.path.commonprefix([part, word]))
            if common >= 3 and common >= min(len(part), len(word)) - 2:
                return 0
        return 1


def _alternation(words) -> str:
    """A regex alternation of ``words``, longest first (multi-word nouns before their heads)."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w))) or r"(?!x)x"


def _verb_fits(spec: tuple[bool, frozenset[str]] | None, follows: str | None, kind: str) -> bool:
    """Whether the word after the verb suits its spec: ``work [at|for|]`` takes "at",
    "for" or nothing; ``take [!over|part]`` anything but "over" and "part"; a spec
    without brackets anything. Before the name ("who leads X", "who reports to X") only a
    listed word, or nothing, may stand between the verb and the name."""
    follows = follows or ""
    if spec is None or spec[0]:  # open: anything after it (but the words excluded), nothing before the name
        if kind == "verb-before":
            return not follows
        return spec is None or follows not in spec[1]
    return follows in spec[1]


def read_fact_questions(
    question: str,
    entities: tuple[EntityMatch, ...] = (),
    *,
    table: QuestionTable | None = None,
    exclude: tuple[int, int] | None = None,
) -> tuple[FactQuestion, ...]:
    """The readings of ``question`` as asking for one predicate of one name, best first.

    Forms read (X a name; the words come from ``table``, default the shipped one):
    "what plan is X on", "what is X's role", "who is the lead of X", "X's plan"
    (relational nouns), "who does X report to", "where is X based", "who manages X",
    "who is X managed by" (verbs, with the side of the fact X is on), "what does X do"
    (whole forms), "is X blocked", "is X on Enterprise" (a value of the predicate's
    lexicon). Time words ("now", "currently") and the date window (``exclude``, chars of
    the question) are not read. Readings whose name is of a kind the registry does not
    expect on that side (a project reporting to someone) come last; a relational noun's
    ``possessor_types``/``exclude_types`` rule readings out. No spaCy."""
    table = table or load_questions()
    return table.read(question, entities, exclude)


def load_questions(config: "Config | None" = None, registry: dict | None = None) -> QuestionTable:
    """The question words of a palace: the registry's relational nouns (``registry``,
    default the palace's), ``palace/data/questions.json``, any ``"questions"`` of the
    shipped predicates, then ``config.json``: a predicate in its ``"predicates"`` may
    carry ``"questions"``, and a top-level ``"questions"`` object extends any entry
    (lists are added to; ``label``, ``inverse_label`` and ``say`` replaced). Compiled
    once per distinct content. Raises :class:`palace.errors.UsageError` for an entry it
    cannot read."""
    from palace.config import Config
    from palace.graph.temporal import load_registry, load_values

    config = config if config is not None else Config()
    registry = registry if registry is not None else load_registry(config)
    entries: dict[str, dict] = {}
    sources = [_shipped_questions()]
    sources.append({e["name"]: e["questions"] for e in _shipped_predicates() if isinstance(e.get("questions"), dict)})
    sources.append({e["name"]: e["questions"] for e in config.predicates if isinstance(e.get("questions"), dict)})
    sources.append(dict(config.questions))
    for source in sources:
        for predicate, words in source.items():
            _check_entry(predicate, words)
            entry = entries.setdefault(predicate, {})
            for key, value in words.items():
                if isinstance(value, list) and key != "say":
                    entry[key] = list(entry.get(key, [])) + [v for v in value if v not in entry.get(key, [])]
                else:
                    entry[key] = value
    nouns, lexicon_names = [], []
    for name, spec in registry.items():
        for noun in getattr(spec, "nouns", ()) or ():
            side = "object" if noun.get("possessor") == "object" else "subject"
            for word in noun.get("words", ()):
                nouns.append((word, name, side, tuple(noun.get("possessor_types", ())),
                              tuple(noun.get("exclude_types", ()))))
            if noun.get("value") and (name, noun["value"]) not in lexicon_names:
                lexicon_names.append((name, noun["value"]))
    for name, entry in entries.items():
        for key, side in (("nouns", "subject"), ("inverse_nouns", "object")):
            nouns += [(word, name, side, (), ()) for word in entry.get(key, ())]
    values = load_values(config)
    for name, kind in lexicon_names:  # a noun's value lexicon: "is X blocked", "is Ruth on Metoprolol"
        extra = [n for n in (kind, kind + "s", kind + "_suffixes") if n in values]
        entries.setdefault(name, {})["values"] = list(dict.fromkeys(entries.get(name, {}).get("values", []) + extra))
    wanted = {n for e in entries.values() for n in e.get("values", ())}
    lexicons = {n: tuple(values.get(n, ())) for n in sorted(wanted)}
    kinds = {name: (tuple(spec.subject), tuple(spec.object)) for name, spec in registry.items()}
    return _compiled(json.dumps([entries, nouns, lexicons, kinds]))  # order kept: earlier entries win ties


_LIST_FIELDS = ("nouns", "inverse_nouns", "verbs", "inverse_verbs", "forms", "inverse_forms", "values")
_TEXT_FIELDS = ("label", "inverse_label")


def _check_entry(predicate: str, words: object) -> None:
    """Raise :class:`UsageError` unless ``words`` is a well-formed entry of question words."""
    from palace.errors import UsageError

    example = '{"questions": {"plan": {"nouns": ["contract"], "verbs": ["renew"]}}}'
    if not isinstance(words, dict):
        raise UsageError(f"questions: {predicate!r} must be an object of word lists", hint=example)
    for key, value in words.items():
        if key in _LIST_FIELDS:
            ok = isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
            if ok and key.endswith("verbs"):
                ok = all(re.fullmatch(r"\s*[\w-]+\s*(?:\[[^\]]*\])?\s*", v) for v in value)
            if ok and key.endswith("forms"):
                ok = all("X" in v.split() for v in value)
        elif key in _TEXT_FIELDS:
            ok = isinstance(value, str)
        elif key == "say":
            ok = isinstance(value, list) and 1 <= len(value) <= 2 and all(isinstance(v, str) for v in value)
        else:
            raise UsageError(f"questions: {predicate!r} has an unknown field {key!r}",
                             hint="fields: " + ", ".join(_LIST_FIELDS + _TEXT_FIELDS + ("say",)))
        if not ok:
            raise UsageError(f"questions: {predicate!r}: cannot read {key!r}: {value!r}",
                             hint='verbs look like "work [at|for|]", forms hold X ("what does X do"), say is'
                                  ' ["{subject} is on {object}", "{subject} was on {object}"]')


@lru_cache(maxsize=8)
def _compiled(key: str) -> QuestionTable:
    entries, nouns, lexicons, kinds = json.loads(key)
    return QuestionTable(entries, tuple(tuple(n) for n in nouns), lexicons, kinds)


@lru_cache(maxsize=1)
def _shipped_questions() -> dict:
    return json.loads(resources.files("palace").joinpath("data/questions.json").read_text(encoding="utf-8"))["questions"]


@lru_cache(maxsize=1)
def _shipped_predicates() -> tuple[dict, ...]:
    data = json.loads(resources.files("palace").joinpath("data/predicates.json").read_text(encoding="utf-8"))
    return tuple(e for e in data.get("predicates", ()) if isinstance(e, dict))
