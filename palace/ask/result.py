"""The result of ``ask``: :class:`AskResult` with its :class:`PlanSummary`, the hits
and the direct answer shown above them (:class:`palace.ask.answers.Direct`)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from palace.ask.answers import Answer, Direct, direct_answer
from palace.ask.graph_answer import FACT_INTENTS, GraphAnswer, named_predicates
from palace.ask.hits import Hit
from palace.ask.planning import Plan
from palace.graph.changes import ChangeSet
from palace.nlp.names import entity_key
from palace.store.facts import FactView


@dataclass(frozen=True)
class PlanSummary:
    """The plan as shown to users: intent and the cue that set it, the day the question
    is about (``now``) and where it came from (``now_source``: ``today``, ``option`` for
    ``--now``, ``question`` for a point it names), the window (ISO, half-open) and how it
    was used, entities, identifiers, retriever weights, notes."""

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


def direct(plan: Plan, graph: GraphAnswer, registry: dict, *, found: bool) -> Direct:
    """The direct answer shown above the evidence (:func:`palace.ask.answers.direct_answer`)."""
    asked = _facts_asked(plan, shown_facts(plan, graph), registry)
    return direct_answer(graph.answer, graph.changes, asked, found=found, question=plan.question,
                         when=bool(_WHEN.match(plan.question)))


_WHEN = re.compile(r"\s*(?:when|since when|what (?:day|date|year|month))\b", re.IGNORECASE)


def _facts_asked(plan: Plan, facts: tuple[FactView, ...], registry: dict) -> tuple[FactView, ...]:
    """Of the facts about the question's names, those a "when" question asks about: the
    ones between two of its names ("when did Alice Chen join Acme Robotics"), else those
    whose predicate it names, else all of them; other questions keep all of them."""
    if not facts or not _WHEN.match(plan.question):
        return facts
    names = {entity_key(e.name) for e in plan.entities} | {entity_key(e.text) for e in plan.entities}
    between = tuple(f for f in facts if entity_key(f.subject) in names and entity_key(f.object) in names)
    named = named_predicates(plan.terms, registry)
    return between or tuple(f for f in facts if f.predicate in named) or facts
