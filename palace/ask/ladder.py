"""The direct answer as a ladder: a fact, else the best sentence, else "the notes do not
say" — each step cited, and the step that answered named with why.

1. **fact** (:func:`palace.ask.answers.answer_question`): only the predicate the question
   asks for (``Plan.asks``) about the name it asks about, live, valid at the question's
   time, read from a note written on or before ``--now``, never a value with an open start
   for a question about the past. A change question answers from the change list
   (``changes``), an entity question ("everything about X") with X's current facts and
   the names X appears with (``facts``), each cited; a "when" question naming two names
   with the facts between them (``facts``).
2. **sentence** (:func:`best_sentence`): the sentences of the top drawers
   (:mod:`palace.ask.sentences`), each scored by :func:`support` — the question's terms
   and names found in it, its dates against the question's window, the answer type found
   in it, the question's terms and names together in its passage, the drawer's fused
   rank — with the weights of :data:`WEIGHTS`. The best is quoted, the shortest clause
   that holds the answer span (the name, date, place or number the question's type asks
   for), as ``span — path:line «clause»``.
3. **not said**: when the best sentence's support is under :data:`ABSTAIN_BAR` (tuned on
   half of ``timeqa-train``, split by page, and reported on both halves: see the README),
   "the notes do not say …", naming the closest passage; the evidence follows.

Deterministic and extractive: the text quotes the notes inside fixed frames.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from palace.ask.planning import Plan, stem
from palace.ask.sentences import Mark, Sentence, answer_type, sentences_of
from palace.nlp.markup import tidy

#: The weights of the signals of a sentence's support (each in [0, 1]); a signal the
#: question gives no ground for (no window, no answer type, no name) is left out and the
#: rest are renormalised.
#: ``benchmarks/eval_answers.py --tune`` chose them as those that make the best sentence
#: right most often on the tune half of ``timeqa-train`` (the names are a gate, see
#: :func:`combine`, hence weight 0; the window carries most: its questions are about a
#: period).
WEIGHTS = {"terms": 0.05, "names": 0.0, "window": 0.8, "type": 0.2, "together": 0.2, "rank": 0.05}
#: Under this support the direct answer abstains ("the notes do not say"): the lowest bar
#: that leaves at most 10 % of the tune half's answerable questions wrong.
ABSTAIN_BAR = 0.77
#: Drawers whose sentences are read, best first.
TOP_DRAWERS = 5
#: At most this many characters of a quoted clause.
QUOTE_CHARS = 220

_CLAUSE = re.compile(r";\s|:\s|,\s|\s[–—-]\s|\s(?=(?:and|but|while|whereas|when|until|before|after|then)\s)")


@dataclass(frozen=True)
class Support:
    """How well one sentence answers: each signal in [0, 1] (None when the question
    gives no ground for it), their weighted ``score``, and the answer ``span`` it holds
    (a :class:`palace.ask.sentences.Mark`, or None)."""

    terms: float | None
    names: float | None
    window: float | None
    type: float | None
    together: float | None
    rank: float
    score: float
    span: Mark | None

    def why(self) -> str:
        """The signals in words: ``terms 0.67, names 1.00, window 1.00, type 1.00 …``."""
        parts = [f"{k} {v:.2f}" for k, v in (("terms", self.terms), ("names", self.names), ("window", self.window),
                                             ("type", self.type), ("together", self.together),
                                             ("rank", self.rank)) if v is not None]
        return ", ".join(parts) + f" → support {self.score:.2f}"


@dataclass(frozen=True)
class Question:
    """What the sentence step reads of a plan: the key ``terms`` (stems: not names, not
    the window's words), the ``names`` (each a tuple of its entity ids and its lower-case
    words), the ``window`` ``(start, end)`` ISO or None, the answer ``type`` and its
    ``labels``, the day notes must not be written after (``until``, ISO or None) and the
    design records it names (``documents``: ``("adr", "21")``; each counts as a name,
    found in a sentence that carries its number or in its own note)."""

    terms: tuple[str, ...]
    names: tuple[tuple[frozenset[int], tuple[str, ...]], ...]
    window: tuple[str, str] | None
    type: str
    labels: tuple[str, ...]
    until: str | None
    documents: tuple[tuple[str, str], ...] = ()


def read_question(plan: Plan) -> Question:
    """The :class:`Question` of ``plan``."""
    name_words = {w.lower() for e in plan.entities for w in re.findall(r"\w+", f"{e.text} {e.name}")}
    terms = tuple(dict.fromkeys(stem(t) for t in plan.terms if t not in name_words and not t.isdigit()))
    names = tuple((frozenset(e.entity_ids), tuple(dict.fromkeys(w.lower() for w in (e.text, e.name))))
                  for e in plan.entities)
    series = {s for s, _ in plan.documents}  # "ADR" of "ADR 21" is no name of its own
    names += tuple((frozenset(), (name.lower(),)) for name in unknown_names(plan, name_words | series))
    window = None
    if plan.window is not None and plan.window_source == "question":
        window = (plan.window.start.isoformat(), plan.window.end.isoformat())
    kind, labels = answer_type(plan.question)
    if plan.documents and kind in ("", "name"):  # "what replaced ADR 21": another record's number
        kind, labels = "document", ("DOCUMENT", *labels)
    until = plan.now.isoformat() if plan.bounded and plan.now else None
    return Question(terms, names, window, kind, labels, until, plan.documents)


#: Words that say the same (stems of :func:`palace.ask.planning.stem`): a sentence saying
#: "superseded by" answers "what replaced X", "Decision: …" answers "what did we decide".
SAME_TERMS = (frozenset({"replac", "supersed", "successor", "succeed"}), frozenset({"decid", "decis"}),
              frozenset({"conclud", "conclus"}), frozenset({"agre", "agreement"}))


def _has_term(text: str, term: str) -> bool:
    """Whether ``text`` holds ``term`` or a word :data:`SAME_TERMS` makes the same."""
    for same in SAME_TERMS:
        if term in same:
            return any(_has(text, t) for t in same)
    return _has(text, term)


def _carries(text: str, document: tuple[str, str]) -> bool:
    """Whether ``text`` names the design record ``document`` (``("adr", "21")``:
    "ADR 21", "ADR-021", "adr/0021-…")."""
    series, number = document
    return re.search(rf"(?<![a-z]){series}[\s#/_-]*0*{number}(?!\d)", text, re.IGNORECASE) is not None


#: A capitalised name in a question: "Initrode", "Lake Tahoe", "Bank of Montreal".
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][\w'’.&-]*(?:\s+(?:of|the|de|del|van|von|da|du|la|le|and)?\s*[A-Z][\w'’.&-]*)*")
#: Capitalised words that name nothing the notes must hold.
_NOT_NAMES = frozenset("""i what who whom whose when where which why how is was are were did does do has have had
can could would will should the a an in on at of for from to and or but if it its this that these those there
january february march april may june july august september october november december monday tuesday wednesday
thursday friday saturday sunday q1 q2 q3 q4 tell list show give everything""".split())


def unknown_names(plan: Plan, known: set[str]) -> list[str]:
    """The capitalised names of the question the graph does not know (no entity
    matched them, ``known`` holding the words of those it matched), outside the window's
    words: "Initrode" of "what plan is Initrode on" when no note names it. A sentence
    that names none of them does not answer about them."""
    window = {w.lower() for w in re.findall(r"\w+", f"{plan.window_text} {plan.point_text}")}
    out: list[str] = []
    for found in _CAPITALISED.finditer(plan.question):
        words = [w for w in re.findall(r"[\w'’.&-]+", found.group(0))]
        while words and (words[0].lower() in _NOT_NAMES or words[0].lower() in window):
            words = words[1:]  # "What", "In 1990": not part of a name
        words = [w.rstrip("'’s") if w.endswith(("'s", "’s")) else w for w in words]
        lowered = [w.lower().strip(".") for w in words]
        if not words or any(w in known for w in lowered) or all(w in _NOT_NAMES or w in window or w.isdigit()
                                                                  for w in lowered):
            continue
        out.append(" ".join(words).strip("."))
    return list(dict.fromkeys(out))


def _has(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}", text) is not None


def _in_window(mark: Mark, window: tuple[str, str]) -> bool:
    return bool(mark.day) and mark.day < window[1] and mark.until > window[0]


def support(sentence: Sentence, passage: str, question: Question) -> Support:
    """The :class:`Support` of ``sentence`` (``passage``: its drawer's plain text,
    lower-cased) for ``question``."""
    lowered = sentence.text.lower()
    terms = sum(_has_term(lowered, t) for t in question.terms) / len(question.terms) if question.terms else None
    names = None
    if question.names or question.documents:
        title = sentence.title.lower()
        found = 0.0
        for ids, words in question.names:
            if any(m.entity_id in ids for m in sentence.marks) or any(_has(lowered, w) for w in words):
                found += 1
            elif any(_has(title, w) for w in words):
                found += 0.5  # the page's subject: "He was appointed …"
        for document in question.documents:
            if _carries(lowered, document) or _carries(f"{sentence.path} {title}", document):
                found += 1  # its own note speaks of it: "Status: superseded by ADR 36."
        names = found / (len(question.names) + len(question.documents))
    window = _window_signal(sentence, question.window)
    span = _span(sentence, question)
    kind = (1.0 if span is not None else 0.0) if question.labels else None
    together = None
    wanted = [t for t in question.terms] + [w for _, words in question.names for w in words[:1]]
    if wanted:
        together = sum(_has_term(passage, w) for w in wanted) / len(wanted)
    rank = 1.0 / sentence.rank
    signals = {"terms": terms, "names": names, "window": window, "type": kind, "together": together, "rank": rank}
    return Support(terms, names, window, kind, together, rank, round(combine(signals, WEIGHTS), 4), span)


def combine(signals: dict[str, float | None], weights: dict[str, float]) -> float:
    """The support of one sentence from its ``signals`` (each in [0, 1], None when the
    question gives no ground for it): their mean weighted by ``weights`` over the signals
    present, and 0 when the question names a name and the sentence names none of them
    (nor does its note's title): a sentence about someone else answers nothing."""
    if signals.get("names") == 0:
        return 0.0
    present = {k: v for k, v in signals.items() if v is not None}
    total = sum(weights[k] for k in present)
    return sum(weights[k] * v for k, v in present.items()) / total if total else 0.0


def _window_signal(sentence: Sentence, window: tuple[str, str] | None) -> float | None:
    """How well the sentence's dates fit the window (:func:`date_fit`): of one date, its
    fit; of several, the fit of the span from the first to the last (a sentence that
    reaches far outside the window fits it less), or half the best single one; with no date of its own, 0.6 when its drawer's date lies in the
    window, 0.3 with no date at all, 0.1 when the drawer's date lies outside."""
    if window is None:
        return None
    dates = [m for m in sentence.marks if m.label == "DATE" and m.day]
    if len(dates) >= 2:  # "from 25 October, 2004 to 24 October, 2016": the span they make
        extent = Mark(0, 0, "", "DATE", 0, min(m.day for m in dates), max(m.until for m in dates))
        return max(date_fit(extent, window), max(date_fit(m, window) for m in dates) * 0.5)
    if dates:
        return date_fit(dates[0], window)
    if sentence.date is None:
        return 0.3
    return 0.6 if window[0] <= sentence.date < window[1] else 0.1


def date_fit(mark: Mark, window: tuple[str, str]) -> float:
    """How well one date fits the window ``[start, end)``, in [0, 1]: the days they have
    in common over the days either covers, floored at 0.5 for a date of at most a
    year that starts the window (the year an interval question's answer began), and at
    0.25 for one inside it; 0 for a date outside it."""
    start, end = max(mark.day, window[0]), min(mark.until, window[1])
    if start >= end:
        return 0.0
    common = _days(start, end)
    share = common / max(_days(min(mark.day, window[0]), max(mark.until, window[1])), 1)  # overlap / union
    if _days(mark.day, mark.until) <= 366:
        if mark.day[:4] == window[0][:4]:
            return max(share, 0.5 if _days(*window) > 366 else 1.0)
        return max(share, 0.25)
    return share


def _days(start: str, end: str) -> int:
    return (dt.date.fromisoformat(end[:10]) - dt.date.fromisoformat(start[:10])).days


def _best_date(sentence: Sentence, window: tuple[str, str] | None) -> Mark | None:
    """The date of the sentence that fits the window best (None: none fits)."""
    if window is None:
        return None
    dates = [(date_fit(m, window), m) for m in sentence.marks if m.label == "DATE" and m.day]
    fitting = [d for d in dates if d[0] > 0]
    return max(fitting, key=lambda d: d[0])[1] if fitting else None


def _span(sentence: Sentence, question: Question) -> Mark | None:
    """The mark of the sentence that answers the question's type: of its labels, not
    one of the question's own names; nearest a date in the window, else the first."""
    if not question.labels:
        return None
    name_words = {w for _, words in question.names for w in words}
    asked = {i for ids, _ in question.names for i in ids}
    found = [m for m in sentence.marks if m.label in question.labels and m.entity_id not in asked
             and m.surface.lower() not in name_words and not any(_has(m.surface.lower(), w) for w in name_words)
             and not any(_carries(m.surface, d) for d in question.documents)]
    if question.type == "date" and question.window is not None:
        found = [m for m in found if not _in_window(m, question.window)] or found
    if not found:
        return None
    anchor = _best_date(sentence, question.window)
    if anchor is not None and question.type != "date":
        return min(found, key=lambda m: (abs(m.start - anchor.start), m.start))
    return found[0]


@dataclass(frozen=True)
class Pick:
    """The sentence step's choice: the best :class:`Sentence` and its :class:`Support`
    (None for both when no sentence was read)."""

    sentence: Sentence | None
    support: Support | None


def best_sentence(conn, plan: Plan, ranked: list[str]) -> Pick:
    """The best sentence of the first :data:`TOP_DRAWERS` of ``ranked`` (drawer ids, best
    first) for ``plan``; drawers written after the day a bounded question is about are
    not read. Among sentences within :data:`CLOSE` of the best support, one holding the
    answer type is preferred, then one holding two of the question's words side by side
    ("the Harbor budget"), then the best support (the first in rank order)."""
    scored = scored_sentences(conn, plan, ranked)
    if not scored:
        return Pick(None, None)
    top = max(s.score for _, s in scored)
    pairs = phrases(plan.question)
    close = [(sentence, support) for sentence, support in scored if support.score >= top - CLOSE]

    def preferred(pair: tuple[Sentence, Support]) -> tuple:
        sentence, support = pair
        words = " ".join(re.findall(r"\w+", sentence.text.lower()))
        return (support.type != 0, support.score > 0 and any(p in words for p in pairs), support.score)

    return Pick(*max(close, key=preferred))


#: Sentences within this much of the best support count as close (:func:`best_sentence`).
CLOSE = 0.05


def phrases(question: str) -> list[str]:
    """The pairs of words side by side in ``question`` that are neither stopwords nor
    question words: ``["harbor budget"]`` of "what did we decide about the Harbor budget"."""
    from palace.ask.planning import STOPWORDS

    words = [w.lower() for w in re.findall(r"\w+", question)]
    return [f"{a} {b}" for a, b in zip(words, words[1:])
            if a not in STOPWORDS and b not in STOPWORDS and a not in _NOT_NAMES and b not in _NOT_NAMES]


def scored_sentences(conn, plan: Plan, ranked: list[str]) -> list[tuple[Sentence, Support]]:
    """Every sentence of the first :data:`TOP_DRAWERS` of ``ranked`` with its
    :class:`Support`, in rank order (sentences of fewer than 12 characters, questions
    (a sentence ending in "?" states nothing), and sentences of notes written after the
    day a bounded question is about, left out)."""
    question = read_question(plan)
    sentences = sentences_of(conn, ranked[:TOP_DRAWERS])
    if question.until:
        sentences = [s for s in sentences if s.date is None or s.date <= question.until]
    passages: dict[str, str] = {}
    for s in sentences:
        passages[s.drawer_id] = passages.get(s.drawer_id, "") + " " + s.text.lower()
    return [(s, support(s, passages[s.drawer_id], question)) for s in sentences
            if len(s.text.strip()) >= 12 and not s.text.rstrip(" \"'”’)*_").endswith("?")]


def quote(sentence: Sentence, span: Mark | None, question: Question) -> str:
    """The shortest piece of ``sentence`` that holds the answer, tidied, at most
    :data:`QUOTE_CHARS` characters: with a ``span``, the clause (or clauses) from it to the
    date that fits the question's window best, never reaching another name of the
    answer's kind (so the quote names one candidate); without one, the clauses from the
    first to the last that hold the question's terms (the whole sentence when that is
    short)."""
    text, base = sentence.text, sentence.start
    bounds = [0] + [m.end() for m in _CLAUSE.finditer(text)] + [len(text)]
    if span is None:
        lowered = text.lower()
        pieces = list(zip(bounds, bounds[1:]))
        holding = [(a, b) for a, b in pieces if any(_has_term(lowered[a:b], t) for t in question.terms)]
        a, b = (holding[0][0], holding[-1][1]) if holding else (0, len(text))  # the clauses holding its terms
        if b - a < 40:
            a, b = 0, len(text)
        return _clip(tidy(text[a:b]))
    lo, hi = span.start - base, span.end - base
    others = [m for m in sentence.marks if m.label in question.labels and not (span.start <= m.start < span.end)
              and m.label != "DATE"]
    anchor = _best_date(sentence, question.window)
    if anchor is not None and not any(min(anchor.start, span.start) < m.start < max(anchor.end, span.end)
                                      for m in others):
        lo, hi = min(lo, anchor.start - base), max(hi, anchor.end - base)
    left = max([m.end - base for m in others if m.end - base <= lo] + [0])
    right = min([m.start - base for m in others if m.start - base >= hi] + [len(text)])
    a = max([b for b in bounds if left <= b <= lo] + [left])
    b = min([b for b in bounds if hi <= b <= right] + [right])
    return _clip(tidy(text[a:b]))


def _clip(piece: str) -> str:
    piece = piece.strip(" ,;:—–-(")
    if len(piece) > QUOTE_CHARS:
        piece = piece[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
    return piece


def sentence_or_abstain(conn, plan: Plan, ranked: list[str], no_fact: str, graph_said: str = "") -> "Direct":
    """Steps 2 and 3: the best sentence of ``ranked`` (drawer ids, best first) when its
    support reaches :data:`ABSTAIN_BAR`, else "the notes do not say"; ``no_fact`` says
    why the graph did not answer (for ``why``), ``graph_said`` what the graph said of
    the one fact asked for ("no fact about Initrode's plan in the graph"; "" when the
    question asks for none), shown in the abstention."""
    from palace.ask.answers import Direct

    pick = best_sentence(conn, plan, ranked)
    question = read_question(plan)
    said_too = f" ({graph_said})" if graph_said else ""
    if pick.sentence is None:
        return Direct("not said", f"the notes do not say: {asked_words(plan)}{said_too}", "abstain",
                      f"{no_fact}; no sentence to read")
    said = quote(pick.sentence, pick.support.span, question)
    why = f"{no_fact}; best sentence {cite(pick.sentence)}: {pick.support.why()}, bar {ABSTAIN_BAR:.2f}"
    if pick.support.score < ABSTAIN_BAR:
        return Direct("not said", f"the notes do not say: {asked_words(plan)}{said_too} — the closest passage is"
                      f" {cite(pick.sentence)}", "abstain", why)
    span = pick.support.span
    head = f"{tidy(span.surface)} — " if span is not None else ""
    return Direct("sentence", f"{head}{cite(pick.sentence)} «{said}»", "sentence", why)


def cite(sentence: Sentence) -> str:
    """``path:line`` of a sentence."""
    return f"{sentence.path}:{sentence.line}"


def asked_words(plan: Plan) -> str:
    """The question as the abstention names it: "who owned X from 1811 to 1827"."""
    return tidy(plan.question).rstrip(" ?!.")


def today(plan: Plan) -> dt.date:
    return plan.now or dt.date.today()
