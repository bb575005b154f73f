"""``ask``: a question answered in named stages, each a short function of its own module.

``ask`` is a function of (store, config, registry, question, options) with no process
state, so a warm process can answer many questions (``palace ask --batch``). It never
loads spaCy.

1. **plan** (:func:`palace.ask.planning.plan_question`): the date window, entities,
   intent, the one fact asked for, the retrievers' weights;
2. **scope** (:func:`palace.ask.scope.build_scope`): wing, room and window as one
   :class:`palace.ask.scope.Scope`, read by every later stage;
3. **graph answer** (:func:`palace.ask.graph_answer.read_graph`): the one-fact answer,
   the facts about the question's names, the changes;
4. **candidate lists** (:func:`palace.ask.candidates.candidate_lists`): the table of
   retrievers, each naming the lists it reads;
5. **ranking** (:func:`palace.ask.ranking.rank`): weighted reciprocal rank fusion, the
   window's and the question's day's demotions, the floor, copies folded;
6. **result** (:mod:`palace.ask.result`): :class:`palace.ask.result.AskResult` with
   the plan as used, the direct answer and the hits (:mod:`palace.ask.hits`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from palace.ask.candidates import candidate_lists
from palace.ask.graph_answer import read_graph
from palace.ask.hits import build_hits
from palace.ask.options import AskOptions
from palace.ask.planning import Plan, plan_question, query_terms
from palace.ask.questions import load_questions
from palace.ask.ranking import Demoting, rank
from palace.ask.result import AskResult, direct, shown_facts, summarize
from palace.ask.scope import build_scope
from palace.errors import PalaceNotFound, UsageError
from palace.store import search

if TYPE_CHECKING:
    from palace.config import Config
    from palace.store.store import Store

__all__ = ["AskOptions", "AskResult", "ask"]


def ask(store: "Store", config: "Config", registry: dict, question: str,
        options: AskOptions = AskOptions()) -> AskResult:
    """Answer ``question`` from the palace of ``store``: the ``options.top_k`` best
    drawers with explanations, and for a question that asks for one predicate of one
    name ("what plan is Initrode on") the graph's direct answer
    (:func:`palace.ask.answers.answer_question`). ``config`` gives the fiscal year, the
    date order and the question words; ``registry`` is the predicate registry.

    Raises :class:`PalaceNotFound` when the palace holds no drawers, :class:`UsageError`
    for an empty question, one that names nothing, an unknown wing or room or
    ``--since`` after ``--until``, and :class:`palace.errors.ModelMismatch` when it was
    built with another embedding model.
    """
    started = time.perf_counter()
    # bytes no encoding explains (a shell's stray \xff) become U+FFFD, not a crash
    question = question.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    _check_asked(store, question)
    conn = store.conn
    plan = plan_question(conn, question, now=options.now, since=options.since, until=options.until,
                         config=config, questions=load_questions(config, registry))
    scope, scope_notes = build_scope(conn, plan, wing=options.wing, room=options.room, baseline=options.baseline)
    _check_content(plan)
    weights = options.weights(plan.weights)
    graph = read_graph(conn, registry, plan, scope, weights, options)
    candidates = candidate_lists(store, plan, graph.scope, weights, graph, options.baseline)
    ranking = rank(conn, list(candidates.lists), Demoting(plan, graph.scope, frozenset(graph.cited())),
                   top_k=options.top_k, baseline=options.baseline)
    notes = (*plan.notes, *scope_notes, *graph.notes, *candidates.notes, *ranking.notes)
    return AskResult(
        question=question,
        palace=str(store.path),
        plan=summarize(plan, graph.scope.mode, candidates.weights(weights), notes),
        direct=direct(plan, graph, registry, found=ranking.found),
        answer=graph.answer,
        changes=graph.changes,
        facts=shown_facts(plan, graph),
        hidden_superseded=graph.hidden,
        results=tuple(build_hits(conn, ranking.ranked, plan.terms, graph.scope.label(), candidates.names,
                                 untrusted=frozenset(n for n, spec in config.wings.items() if spec.untrusted))),
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
    )


def _check_asked(store: "Store", question: str) -> None:
    """Raise for an empty question, a palace with no drawers, or one built with another
    embedding model."""
    if not question.strip():
        raise UsageError("the question is empty", hint='ask in words, e.g. palace ask "what did we decide"')
    if not search.has_drawers(store.conn):
        raise PalaceNotFound(f"the palace at {store.path} holds no drawers", hint="run `palace mine DIR` first")
    store.check_model()


def _check_content(plan: Plan) -> None:
    """Raise :class:`UsageError` for a question that names nothing: no content word ("what
    is the", "?!", "who was it then"), no name the graph knows, no identifier and no date."""
    if not (query_terms(plan.question) or plan.entities or plan.identifiers or plan.window or plan.point_text):
        raise UsageError(
            f"the question {plan.question.strip()!r} names nothing to look for (no name, term, date or identifier)",
            hint='ask about something: palace ask "what did we decide about the budget"',
        )
