"""The result of ``ask``: :class:`AskResult` with its :class:`PlanSummary`, the hits
and the direct answer shown above them (:class:`palace.ask.answers.Direct`)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace

from palace.ask import ladder
from palace.ask.answers import LIVE_STATES, Answer, Direct, direct_answer
from palace.ask.graph_answer import FACT_INTENTS, GraphAnswer
from palace.ask.hits import Hit
from palace.ask.planning import Plan, stem
from palace.graph.changes import ChangeSet
from palace.nlp.names import entity_key
from palace.store.facts import FactView


@dataclass(frozen=True)
class PlanSummary:
    """The plan as shown to users: intent and the cue that set it, the day the question
    is about (``now``) and where it came from (``now_source``: ``today``, ``option`` for
    ``--now``, ``question`` for a point it names), the window (ISO, half-open) and how it
    was used, entities, identifiers, retriever weights, notes; the step of the direct
    answer's ladder that answered (``direct_step``) and why (``direct_why``)."""

    intent: str
    intent_cue: str
    now: str
    now_source: str
    terms: tuple[str, ...]
    date_window: dict | None
    date_window_text: str
    date_window_source: str
    date_window_mode: str
    entities: tuple[dict, ...]
    identifiers: tuple[str, ...]
    weights: dict[str, float]
    notes: tuple[str, ...]
    direct_step: str = ""
    direct_why: str = ""

    def line(self, weights: bool = True) -> str:
        """The plan in one line (the rich output; ``weights`` for ``--explain``)."""
        parts = [f"intent {self.intent}" + (f" ({self.intent_cue!r})" if self.intent_cue else "")]
        if self.date_window:
            w = self.date_window
            parts.append(f"window {w['start']} → {w['end']} ({w['granularity']}, from {self.date_window_source}"
                         f"{' ' + repr(self.date_window_text) if self.date_window_text else ''}) [{self.date_window_mode}]")
        if self.entities:
            parts.append("entities " + ", ".join(f"{e['name']} ({'/'.join(e['types'])}, via {e['via']})"
                                                 for e in self.entities))
        if self.identifiers:
            parts.append("identifiers " + " ".join(self.identifiers) + " [exact]")
        parts.append("terms " + " ".join(self.terms) if self.terms else "no terms")
        if weights:
            parts.append("weights " + " ".join(f"{k} {v:g}" for k, v in self.weights.items() if v))
        return "; ".join(parts)


@dataclass(frozen=True)
class AskResult:
    """The answer to one question: the plan; the ``direct`` answer shown above the
    evidence (:class:`palace.ask.answers.Direct`); for a question that asks for one predicate
    of one name the graph's direct ``answer`` (:class:`palace.ask.answers.Answer`, else
    None); for a change question the change list (``changes``); for entity,
    current-state and history questions the typed ``facts`` about the question's
    entities (``hidden_superseded`` counts the superseded facts a current-state answer
    left out; ``history=True`` shows them); the hits best first; the time it took."""

    question: str
    palace: str
    plan: PlanSummary
    direct: Direct
    answer: Answer | None
    changes: ChangeSet | None
    facts: tuple[FactView, ...]
    hidden_superseded: int
    results: tuple[Hit, ...]
    elapsed_ms: float

    def to_json(self, indent: int | None = 2) -> str:
        """One JSON object with the field names documented in the README."""
        from palace.results import to_json

        return to_json(self, indent)


def summarize(plan: Plan, window_mode: str, weights: dict[str, float], notes: tuple[str, ...]) -> PlanSummary:
    """The :class:`PlanSummary` of ``plan`` as it was used: the window's mode, the
    retrievers' weights as run (those above zero), every note."""
    return PlanSummary(
        intent=plan.intent,
        intent_cue=plan.intent_cue,
        now=(plan.now or dt.date.today()).isoformat(),
        now_source=plan.now_source,
        terms=plan.terms,
        date_window=plan.window.to_json() if plan.window else None,
        date_window_text=plan.window_text,
        date_window_source=plan.window_source,
        date_window_mode=window_mode,
        entities=tuple(
            {"text": e.text, "name": e.name, "types": list(e.types), "entity_ids": list(e.entity_ids), "via": e.via}
            for e in plan.entities
        ),
        identifiers=plan.identifiers,
        weights={k: v for k, v in weights.items() if v},
        notes=notes,
    )


def shown_facts(plan: Plan, graph: GraphAnswer) -> tuple[FactView, ...]:
    """The facts listed with the answer: those about the question's names, for an
    entity, current-state or history question."""
    return graph.facts if plan.intent in FACT_INTENTS else ()


def direct(conn, plan: Plan, graph: GraphAnswer, registry: dict, *, ranked: list[str], found: bool) -> Direct:
    """The direct answer shown above the evidence, by the ladder of
    :mod:`palace.ask.ladder`: the fact asked for (or the change list, an entity's facts,
    the facts a "when" question names), else the best sentence of the ``ranked`` drawers
    (ids, best first), else "the notes do not say"."""
    when = bool(_WHEN.match(plan.question))
    listed = _facts_listed(plan, graph, registry, when)
    graph_said = direct_answer(graph.answer, _topical(plan, graph.changes), listed, found=found,
                               question=plan.question, when=when)
    related = entity_lines(conn, plan, registry) if plan.intent == "entity" and found else []
    if graph_said is not None and graph_said.kind == "facts" and related:
        graph_said = replace(graph_said, text=graph_said.text + "\n" + "\n".join(related))
    if graph_said is not None:
        return _with_step(graph_said, plan, graph, listed)
    if related:
        return Direct("facts", "\n".join(related), "entity", "an entity question: the names it appears with"
                      " (the graph holds no typed fact about it)")
    return ladder.sentence_or_abstain(conn, plan, ranked, _no_fact(plan, graph),
                                      graph.answer.text if graph.answer is not None else "")


#: How many of a change question's topic words a change must speak of to be its direct
#: answer (all of them when the question has fewer): "what's new with the moderation
#: team" is not answered by a change about the "Content Team".
TOPIC_WORDS = 2


def _topical(plan: Plan, changes):
    """The changes that may answer a change question directly: with no name in the
    question, those speaking of :data:`TOPIC_WORDS` of its words (the list below the
    answer keeps every change speaking of one); with names, all of theirs. A question
    with words of its own and no period, asked of a palace mined once, has no changes to
    answer with: "since the first mining" everything is new, and a list of everything
    answers nothing ("what should change for future elections")."""
    if changes is None:
        return changes
    topic = tuple(t for t in plan.terms if not t.isdigit())
    if changes.basis == "recorded time" and changes.start is None and topic:
        return None
    if plan.entities:
        return changes
    return changes.mentioning(tuple(stem(t) for t in topic), at_least=TOPIC_WORDS)


def _with_step(said: Direct, plan: Plan, graph: GraphAnswer, listed: tuple[FactView, ...]) -> Direct:
    """``said`` with the step that answered and why."""
    if said.kind == "fact":
        answer = graph.answer
        return replace(said, step="fact", why=f"the graph holds {answer.predicate} of {answer.subject} valid"
                       f" {'during the window' if answer.during else 'on ' + answer.as_of} ({answer.cue})")
    if said.kind == "changes":
        return replace(said, step="changes", why=f"a change question: {graph.changes.description}")
    if said.kind == "facts" and plan.intent == "entity":
        return replace(said, step="entity", why="an entity question: the typed facts about its names and the names"
                       " they appear with")
    if said.kind == "facts":
        return replace(said, step="fact", why="a when question: the facts between the names it holds")
    return replace(said, step="abstain", why="no drawer passed the relevance floor")


def _facts_listed(plan: Plan, graph: GraphAnswer, registry: dict, when: bool) -> tuple[FactView, ...]:
    """The facts the direct answer lists: an entity question's (with X's related names
    added by :func:`entity_lines`), or those between two names of a "when" question;
    never the facts of another predicate or topic."""
    facts = shown_facts(plan, graph)
    if plan.intent == "entity":
        return facts
    if when and facts:
        names = {entity_key(e.name) for e in plan.entities} | {entity_key(e.text) for e in plan.entities}
        return tuple(f for f in facts if entity_key(f.subject) in names and entity_key(f.object) in names)
    return ()


def _no_fact(plan: Plan, graph: GraphAnswer) -> str:
    """Why the graph did not answer, in words, for the ``why`` of a later step."""
    if graph.answer is not None:
        return graph.answer.text
    if graph.changes is not None:
        return f"no change in the graph: {graph.changes.description}"
    return "the question asks for no one fact the graph holds"


def entity_lines(conn, plan: Plan, registry: dict, limit: int = 6) -> list[str]:
    """For an entity question: the names each of its entities appears with, most
    often first, each cited where they are named together (``Alice Chen appears with
    Project Atlas (4 sentences) — path:line``)."""
    from palace.graph.facts import facts as read_facts
    from palace.errors import UsageError

    lines: list[str] = []
    for entity in plan.entities:
        try:
            found = read_facts(conn, registry, about=entity.name, predicate="mentioned_with", history=True).facts
        except UsageError:
            continue
        key = entity_key(entity.name)
        counts: dict[str, list] = {}
        for fact in found:
            other = fact.object if entity_key(fact.subject) == key else fact.subject
            if entity_key(other) != key and fact.state in LIVE_STATES:
                counts.setdefault(other, []).append(fact)
        for other, said in sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]:
            first = said[0]
            where = f"{first.path}:{first.line}" if first.line else first.path
            lines.append(f"{entity.name} appears with {other} ({len(said)} sentence{'' if len(said) == 1 else 's'})"
                         f" — {where}")
    return lines


_WHEN = re.compile(r"\s*(?:when|since when|what (?:day|date|year|month))\b", re.IGNORECASE)
