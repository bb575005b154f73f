"""Direct answers: a question that asks for one predicate of one name, answered from the
temporal graph before the drawers.

"what plan is Initrode on" → ``Initrode is on Basic (since 2024-03-04; before: Pro,
2023-01-10 → 2024-03-04) — notes/2024-03-04.md:3 "Initrode downgraded to the Basic plan."``

The planner reads the question (:attr:`palace.ask.planning.Plan.asks`: predicate, the side
of the fact the name is on, the words that said so); this module reads the facts, only
through :func:`palace.graph.facts.facts`, in valid time:

- a question without a time is about ``now`` (``--now`` or today): the facts valid on
  that day (``facts(as_of=now)``), so a state that ended ("Ines stepped down") is not an
  answer any more, and one dated after ``now`` is not one yet;
- a question with a one-day window is about that day; with a longer window ("in March
  2024", "in 2019", "between 2019 and 2021") about every fact valid at some time in it,
  each shown with its own interval (a window reaching past ``now`` stops at ``now``);
- for a one-value predicate asked from its subject the answer also says what the value
  replaced: the latest earlier value and when it ended. When nothing is valid then, the
  answer says so, and shows the last value that ended before (if any).

The readings of the question are tried in order (``who manages Bob``: ``reports_to`` of
Bob, then ``leads`` of Bob); the first the graph has any fact for answers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from palace.errors import UsageError
from palace.graph.facts import FactView, facts
from palace.graph.facts import cite as _cite
from palace.nlp.names import entity_key
from palace.store import search
from palace.store.entities import find_entities

if TYPE_CHECKING:
    import sqlite3

    from palace.ask.planning import Plan
    from palace.ask.questions import FactQuestion

#: At most this many values are listed (events, or a many-value predicate over a span).
VALUES_SHOWN = 10
#: Lines of a direct answer built from facts or changes (the rest are in ``facts``/``changes``).
DIRECT_LINES = 8
#: The kinds of :class:`Direct` answer.
DIRECT_KINDS = ("fact", "changes", "facts", "sentence", "not said", "nothing found")
#: The steps of the ladder that may answer (:mod:`palace.ask.ladder`).
DIRECT_STEPS = ("fact", "changes", "entity", "sentence", "abstain")


@dataclass(frozen=True)
class Direct:
    """The answer shown above the evidence, quoting the notes (no language model).

    ``kind`` is one of :data:`DIRECT_KINDS`: ``fact`` (a one-predicate question: the
    :class:`Answer`'s text), ``changes`` (a change question: what began, ended or was
    superseded, grouped by entity), ``facts`` (an entity question: the typed facts about
    its names and the names it appears with; a "when" question: the facts between two of
    its names), ``sentence`` (the best sentence of the top drawers: ``span — path:line
    «clause»``), ``not said`` (nothing supports an answer: "the notes do not say …"),
    ``nothing found`` (no drawer passed the relevance floor). ``text`` is one line per
    statement, each cited ``path:line``. ``step`` names the step of the ladder that
    answered (:data:`DIRECT_STEPS`) and ``why`` says why, in words (the fact asked for,
    or the sentence's support and the bar)."""

    kind: str
    text: str
    step: str = ""
    why: str = ""


def direct_answer(answer: "Answer | None", changes, facts: tuple[FactView, ...], *, found: bool,
                  question: str = "", when: bool = False) -> Direct | None:
    """The graph's steps of the :class:`Direct` answer from what ``ask`` read: the
    one-fact ``answer`` with values, the change set (:class:`palace.graph.changes.ChangeSet`)
    with changes, the typed ``facts`` given (those of an entity question, or those a
    "when" question names), else ``nothing found`` when no drawer passed the floor
    (``found``); None when none of these answers (the sentence step follows). For a
    "when" question (``when``) each fact leads with its date: ``2024-09-02: Alice Chen
    works at Acme Robotics (since …)``."""
    if answer is not None and answer.values:
        return Direct("fact", answer.text)
    if changes is not None and changes.groups:
        lines = _change_lines(changes)
        more = len(lines) - DIRECT_LINES
        return Direct("changes", "\n".join(lines[:DIRECT_LINES] + ([f"… and {more} more below"] if more > 0 else [])))
    if facts:
        ordered = sorted(facts, key=lambda f: f.valid_from or "9999") if when else facts
        lines = [(f"{f.valid_from or 'date unknown'}: " if when else "") + f"{_fact_words(f)} ({_interval(f)})"
                 f" — {_cite(f)}" for f in ordered[:DIRECT_LINES]]
        more = len(facts) - DIRECT_LINES
        return Direct("facts", "\n".join(lines + ([f"… and {more} more below"] if more > 0 else [])))
    if not found:
        return Direct("nothing found", f"nothing found for {question.strip()!r}: no note matches it closely enough")
    return None


def _change_lines(changes) -> list[str]:
    """One line per change, grouped by entity: a value replaced by another reads
    ``Bob Okafor: reports to Priya Raman → Helen Marsh (2024-07-01)``; the same change
    read from several notes is one line, cited by the first, with the count."""
    lines: list[str] = []
    for group in changes.groups:
        new_sides = {(c.fact.predicate, c.replaced_by, c.day[:10]) for c in group.changes if c.replaced_by}
        old_sides = {(c.fact.predicate, c.fact.object, c.day[:10]) for c in group.changes if c.replaced_by}
        said_at: dict[tuple[str, str], list] = {}
        for change in group.changes:
            fact, day = change.fact, change.day[:10]
            if change.kind == "began" and (fact.predicate, fact.object, day) in new_sides:
                continue  # shown as the new side of "old → new"
            if change.kind == "ended" and (fact.predicate, fact.object, day) in old_sides:
                continue
            words = fact.predicate.replace("_", " ")
            said = f"{words} {fact.object} → {change.replaced_by}" if change.replaced_by else \
                f"{change.kind}: {words} {fact.object}"
            if fact.subject != group.entity:
                said = f"{fact.subject} {said}"
            cited = change.replaced_at or _cite(fact)  # a replacement is cited where it was said
            said_at.setdefault((said, day), [cited, 0])[1] += 1
        for (said, day), (cited, count) in said_at.items():
            also = f" (and {count - 1} more note{'' if count == 2 else 's'})" if count > 1 else ""
            lines.append(f"{group.entity}: {said} ({day}) — {cited}{also}")
    return lines


def _fact_words(fact: FactView) -> str:
    return f"{fact.subject} {fact.predicate.replace('_', ' ')} {fact.object}"


def _interval(fact: FactView) -> str:
    if fact.valid_from and fact.valid_to:
        return f"{fact.valid_from} → {fact.valid_to}"
    if fact.valid_from:
        return f"since {fact.valid_from}"
    return f"until {fact.valid_to}" if fact.valid_to else "undated"


@dataclass(frozen=True)
class AnswerValue:
    """One value of the answer and where it was read: ``value`` is the other end of the
    fact (its object when the question is about the subject, else its subject);
    ``valid_from``/``valid_to`` its valid time (ISO days, half-open; None when open or
    unknown), merged over the notes that restate it; ``path`` (relative to its ``wing``),
    ``line`` (1-based) and ``sentence`` cite the statement that began it (``fact_id``,
    ``drawer_id``); ``evidence`` is ``stated`` or ``inferred``; ``conflicts_with`` lists
    the ids of same-day facts that say otherwise."""

    value: str
    valid_from: str | None
    valid_to: str | None
    path: str
    line: int | None
    sentence: str
    fact_id: int
    evidence: str
    wing: str
    drawer_id: str
    conflicts_with: tuple[int, ...] = ()

    def cite(self) -> str:
        """``path:line "sentence"`` (``path`` alone once its drawer is gone)."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f'{where} "{self.sentence}"' if self.sentence else where


@dataclass(frozen=True)
class Answer:
    """The graph's answer to a one-predicate question.

    ``subject`` is the name asked about and ``side`` where it sits in the facts
    (``subject``: "what plan is Initrode on"; ``object``: "who leads Harbor");
    ``predicate``, its ``cardinality`` (``one``/``many``) and ``kind`` (``state``/
    ``event``) come from the registry; ``as_of`` is the day asked about (``now``, or the
    window's first day) and ``during`` the window ``{start, end}`` (ISO, end exclusive)
    when the question named a period longer than a day, else None. ``values`` are the
    facts valid then (empty when none), ``previous`` the value a one-value state
    replaced (or, with no values, the last one that ended before), ``text`` the answer
    as shown, one line per value. ``cue`` says which question words named the predicate."""

    subject: str
    predicate: str
    side: str
    cardinality: str
    kind: str
    as_of: str
    during: dict | None
    values: tuple[AnswerValue, ...]
    previous: AnswerValue | None
    text: str
    cue: str

    def drawer_ids(self) -> list[str]:
        """The drawers cited by the values, then by the previous value (the graph
        retriever ranks them first)."""
        cited = [v.drawer_id for v in self.values] + ([self.previous.drawer_id] if self.previous else [])
        return list(dict.fromkeys(d for d in cited if d))


@dataclass(frozen=True)
class _Period:
    """The time a one-fact question is about: ``day`` (the plan's ``now``, or the first
    day of the window it names) and ``[start, end)``; ``during`` the window ``{start,
    end}`` (ISO) when it is longer than a day (never past ``now``), else None; whether
    it lies in the ``past`` of ``today``, the day the question is asked on; whether the
    question ``named`` it ("in 2013", "from 1811 to 1827", "on 3 May 2024")."""

    day: dt.date
    start: dt.date
    end: dt.date
    during: dict | None
    past: bool
    today: dt.date
    named: bool = False


def _period(plan: "Plan") -> _Period:
    """The :class:`_Period` of ``plan``: the window the question names (``--since``/
    ``--until`` filter drawers, not the answer), else its ``now``."""
    now = plan.now or dt.date.today()
    today = plan.today or now
    window = plan.window if plan.window is not None and plan.window_source == "question" else None
    if window is None or window.end - window.start <= dt.timedelta(days=1):
        day = window.start if window is not None else now
        end = day + dt.timedelta(days=1)
        return _Period(day, day, end, None, end <= today if window is not None else day < today, today,
                       named=window is not None)
    end = min(window.end, now + dt.timedelta(days=1)) if window.start <= now else window.end
    during = {"start": window.start.isoformat(), "end": end.isoformat()}
    return _Period(window.start, window.start, end, during, end <= today, today, named=True)


def answer_question(conn: "sqlite3.Connection", registry: dict, plan: "Plan", *,
                    wing: str | None = None) -> Answer | None:
    """The graph's answer to ``plan``'s one-predicate question, or None when the plan
    holds none or is a change question (those list the graph's diff instead).

    ``registry`` is the predicate registry; ``wing`` keeps the facts read in that wing.
    The day is the plan's ``now`` unless the question named a window (``--since``/
    ``--until`` filter drawers, not the answer)."""
    if not plan.asks or plan.intent == "change":
        return None
    chosen, timeline = plan.asks[0], ()
    for asked in plan.asks:
        found = _timeline(conn, registry, asked, wing)
        if found:
            chosen, timeline = asked, found
            break
    spec = registry.get(chosen.predicate)
    cardinality = spec.cardinality if spec else "many"
    kind = spec.kind if spec else "state"
    period = _period(plan)
    if period.during is not None:
        valid = [f for f in timeline if _overlaps(f, period.start, period.end)]
    elif kind == "event":  # the events of record up to that day
        valid = [f for f in timeline if f.valid_from and f.valid_from <= period.day.isoformat()]
    else:
        valid = _current(conn, registry, chosen, wing, period.day) if timeline else []
    valid = _trusted(conn, valid, period, plan, kind)
    values = _merged(valid, chosen.side)
    values = values[-VALUES_SHOWN:] if kind == "event" else values[:VALUES_SHOWN]
    one = kind == "state" and cardinality == "one" and chosen.side == "subject"  # one value replaces another
    previous = None
    if kind == "state" and (not values or one):
        previous = _previous(timeline, values, period.start, chosen.side)
    following = _following(timeline, values[-1], chosen.side, period.today) if one and len(values) == 1 else None
    text = _text(chosen, values, (previous, following), period, has_facts=bool(timeline))
    if values and not period.named:
        text += "".join(f"\n{line}" for line in _plan_lines(conn, registry, chosen, wing, period.today))
    return Answer(
        subject=chosen.name, predicate=chosen.predicate, side=chosen.side, cardinality=cardinality, kind=kind,
        as_of=period.day.isoformat(), during=period.during, values=tuple(values), previous=previous, text=text,
        cue=chosen.cue,
    )


#: The fact states of a live fact (:class:`palace.store.facts.FactView` ``state``).
LIVE_STATES = ("current", "superseded", "ended")


def _trusted(conn: "sqlite3.Connection", found: list[FactView], period: _Period, plan: "Plan",
             kind: str = "state") -> list[FactView]:
    """The facts of ``found`` an answer may give: live (never a candidate, a planned,
    retracted or invalidated fact), read in a note written on or before the day the
    question is asked on (``--now``; a note with no date of its own counts), and, for a
    question about the past, with a known start (a value with an open start says
    nothing of when it began); for a past period the question names, a state only when
    it :func:`holds_through` the period."""
    live = [f for f in found if f.state in LIVE_STATES and f.invalidated_at is None]
    asked_on = (plan.today or plan.now or dt.date.today()).isoformat()
    written = {r["id"]: r["date_start"] for r in search.own_dates(conn, [f.drawer_id for f in live if f.drawer_id])}
    live = [f for f in live if (written.get(f.drawer_id) or "")[:10] <= asked_on]
    if period.past:
        live = [f for f in live if f.valid_from]
    if period.past and period.named:
        live = [f for f in live if kind != "state" or holds_through(f.valid_from, f.valid_to, period.start, period.end)]
    return live


#: The least share of a past period a state must cover to answer about it
#: (:func:`holds_through`): a value that only touches the period at its edge (a year-wide
#: end "to 2012" against "from 2012 to 2014") does not answer about it.
PERIOD_SHARE = 0.4


def holds_through(valid_from: str, valid_to: str | None, start: dt.date, end: dt.date) -> bool:
    """Whether a state valid ``[valid_from, valid_to)`` (ISO; ``valid_to`` None when no
    end is stated) answers a question about the past period ``[start, end)`` the question
    names: it covers at least :data:`PERIOD_SHARE` of the period — a stated interval by
    its overlap, a value with no stated end only when it began inside the period (then
    counted to the period's end). A state begun before with no stated end says nothing of
    the period ("In 2013, Sainz signed with Arden" is no answer about 2016), nor does one
    that only touches it (a post held 2010 → March 2012 is no answer about 2012–2013): on
    timeqa-train such values were all of the fact step's wrong answers (23 of 23,
    ``benchmarks/eval_answers.py --timeqa``)."""
    began = dt.date.fromisoformat(valid_from[:10])
    if valid_to is None and not start <= began < end:
        return False
    stop = end if valid_to is None else dt.date.fromisoformat(valid_to[:10])
    covered = (min(stop, end) - max(began, start)).days
    return covered > 0 and covered >= PERIOD_SHARE * (end - start).days


def _plan_lines(conn: "sqlite3.Connection", registry: dict, asked: "FactQuestion", wing: str | None,
                today: dt.date) -> list[str]:
    """One line per plan of the asked predicate about the name asked about that no note
    has confirmed (issue 22's planned facts): ``planned: Alice Chen works at Acme
    Robotics (planned for 2024-09-02, not confirmed) — path:line``. A current answer says
    what was announced and never stated, beside what the notes state; "not confirmed"
    once ``today`` (the question's ``--now``) is past the planned day."""
    try:
        found = facts(conn, registry, about=asked.name, predicate=asked.predicate, now=today).planned
    except UsageError:
        return []
    keys, end = _keys(conn, asked), _own_end(asked)
    lines = []
    for plan in found[:VALUES_SHOWN]:
        if entity_key(end(plan)) not in keys or (wing is not None and plan.wing != wing):
            continue
        subject, obj = (asked.name, plan.object) if asked.side == "subject" else (plan.subject, asked.name)
        try:
            said = asked.say[0].format(subject=subject, object=obj)
        except (KeyError, IndexError, ValueError):
            said = f"{subject} {asked.predicate} {obj}"
        lines.append(f"planned: {said} ({plan.plan}) — {_cite(plan)}")
    return lines


def _keys(conn: "sqlite3.Connection", asked: "FactQuestion") -> set[str]:
    """The name keys that count as the name asked about: its own, and every name of the
    entities it resolves to."""
    keys = {entity_key(asked.name), entity_key(asked.text)}
    try:
        keys |= {entity_key(row["name"]) for row in find_entities(conn, asked.name)}
    except UsageError:  # not a name the graph knows: a literal value, or nothing
        pass
    return keys


def _own_end(asked: "FactQuestion"):
    return (lambda f: f.subject) if asked.side == "subject" else (lambda f: f.object)


def _timeline(conn: "sqlite3.Connection", registry: dict, asked: "FactQuestion",
              wing: str | None) -> tuple[FactView, ...]:
    """Every live fact (superseded and ended ones included, retracted ones not) of the
    asked predicate with the name on the asked side and a value on the other, in
    valid-time order. (An ending that names no value, "Ines retired", closes the facts it
    ends and is no value itself.)"""
    try:
        found = facts(conn, registry, about=asked.name, predicate=asked.predicate, history=True).facts
    except UsageError:  # the name is neither an entity nor a value of any fact
        return ()
    keys, end = _keys(conn, asked), _own_end(asked)
    return tuple(f for f in found if f.invalidated_at is None and f.state in LIVE_STATES and entity_key(end(f)) in keys
                 and _value_of(f, asked.side).strip() and (wing is None or f.wing == wing))


def _current(conn: "sqlite3.Connection", registry: dict, asked: "FactQuestion", wing: str | None,
             day: dt.date) -> list[FactView]:
    """The facts valid on ``day`` (:func:`palace.graph.facts.facts` with ``as_of``)."""
    try:
        found = facts(conn, registry, about=asked.name, predicate=asked.predicate, as_of=day).facts
    except UsageError:
        return []
    keys, end = _keys(conn, asked), _own_end(asked)
    return [f for f in found if entity_key(end(f)) in keys and _value_of(f, asked.side).strip()
            and (wing is None or f.wing == wing)]


def _overlaps(fact: FactView, start: dt.date, end: dt.date) -> bool:
    """Whether the fact's valid time meets ``[start, end)``."""
    begins_before = fact.valid_from is None or fact.valid_from < end.isoformat()
    ends_after = fact.valid_to is None or fact.valid_to > start.isoformat()
    return begins_before and ends_after


def _value_of(fact: FactView, side: str) -> str:
    return fact.object if side == "subject" else fact.subject


def _merged(found: list[FactView], side: str) -> list[AnswerValue]:
    """One :class:`AnswerValue` per run of one value: a note that restates a value does
    not start it again, and a note that ends it without saying when it began ("stepped
    down as lead") joins it; the run is cited by its first dated statement."""
    runs: list[tuple[str, list[FactView]]] = []
    for fact in sorted(found, key=lambda f: (f.valid_from or "", f.id)):
        key = entity_key(_value_of(fact, side))
        run = next((r for r in runs if r[0] == key and _touches(r[1], fact)), None)
        if run is None:
            runs.append((key, [fact]))
        else:
            run[1].append(fact)
    out = []
    for _, group in runs:
        # an ending with no start of its own ("stepped down as lead") joins the statement that began it
        first = min((f for f in group if f.valid_from), key=lambda f: (f.valid_from, f.id), default=group[0])
        ends = [f.valid_to for f in group]
        out.append(AnswerValue(
            value=_value_of(first, side), valid_from=first.valid_from,
            valid_to=None if None in ends else max(ends), path=first.path, line=first.line,
            sentence=first.sentence, fact_id=first.id, evidence=first.evidence, wing=first.wing,
            drawer_id=first.drawer_id, conflicts_with=tuple(sorted({c for f in group for c in f.conflicts_with})),
        ))
    return out


def _touches(run: list[FactView], fact: FactView) -> bool:
    """Whether ``fact`` starts before the run of its value has ended."""
    ends = [f.valid_to for f in run]
    return None in ends or fact.valid_from is None or fact.valid_from <= max(ends)


def _previous(timeline: tuple[FactView, ...], values: list[AnswerValue], start: dt.date,
              side: str) -> AnswerValue | None:
    """The value before: the latest fact that ended by the first value's start (or by
    ``start`` when there is no value), with another value than it."""
    if values and values[0].valid_from is None:
        return None
    limit = values[0].valid_from if values else start.isoformat()
    taken = {entity_key(v.value) for v in values}
    ended = [f for f in timeline if f.valid_to and f.valid_to <= limit and entity_key(_value_of(f, side)) not in taken]
    if not ended:
        return None
    last = max(ended, key=lambda f: (f.valid_to, f.valid_from or "", f.id))
    key = entity_key(_value_of(last, side))
    run = [f for f in ended if entity_key(_value_of(f, side)) == key and f.valid_to == last.valid_to]
    return _merged(run, side)[0]


def _following(timeline: tuple[FactView, ...], value: AnswerValue, side: str, now: dt.date) -> FactView | None:
    """The value that replaced ``value`` once it ended, by ``now``: the earliest fact
    with another value that began on or after its end."""
    if not value.valid_to:
        return None
    key = entity_key(value.value)
    later = [f for f in timeline if f.valid_from and value.valid_to <= f.valid_from <= now.isoformat()
             and entity_key(_value_of(f, side)) != key]
    return min(later, key=lambda f: (f.valid_from, f.id), default=None)


def _span(value: AnswerValue, today: dt.date | None = None) -> str:
    """``from → to``, ``since from``, ``until to``; an end after ``today`` (the day the
    question is asked on, ``--now``) is not known yet and is left out."""
    if today is not None and value.valid_to and value.valid_to > today.isoformat():
        value = replace(value, valid_to=None)
    if value.valid_from and value.valid_to:
        return f"{value.valid_from} → {value.valid_to}"
    if value.valid_from:
        return f"since {value.valid_from}"
    return f"until {value.valid_to}" if value.valid_to else "date unknown"


def _text(asked: "FactQuestion", values: list[AnswerValue],
          around: tuple[AnswerValue | None, FactView | None], period: _Period, *, has_facts: bool) -> str:
    """The answer in words, one line per value; ``around`` is the value before the first
    (or None) and the fact that replaced the last (or None)."""
    previous, following = around
    past, today = period.past, period.today
    if past and period.named:  # the value then, on its own: its neighbours are in the facts below
        previous = following = None
    when = (f"during {period.during['start']} → {period.during['end']}" if period.during
            else f"on {period.day.isoformat()}")
    if not values:
        if not has_facts:
            return f"no fact about {asked.name}'s {asked.label} in the graph"
        line = f"no fact about {asked.name}'s {asked.label} valid {when}"
        if previous is not None:
            line += f" (last: {previous.value}, {_span(previous)} — {previous.cite()})"
        return line
    template = asked.say[1 if past else 0]
    lines = []
    for index, value in enumerate(values):
        subject, obj = (asked.name, value.value) if asked.side == "subject" else (value.value, asked.name)
        try:
            said = template.format(subject=subject, object=obj)
        except (KeyError, IndexError, ValueError):  # a config template with other fields
            said = f"{subject} {asked.predicate} {obj}"
        extra = f"; before: {previous.value}, {_span(previous)}" if previous is not None and index == 0 else ""
        conflict = "; notes of the same day say otherwise" if value.conflicts_with else ""
        if following is not None and index == len(values) - 1:
            extra += f"; since replaced by {_value_of(following, asked.side)} (from {following.valid_from})"
        lines.append(f"{said} ({_span(value, today)}{extra}{conflict}) — {value.cite()}")
    return "\n".join(lines)
