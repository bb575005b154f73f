"""``ask``: plan the question, run the retrievers, fuse them, explain every hit.

``ask`` is a function of (palace, question, options) with no process state, so a warm
process can answer many questions (``palace ask --batch``). It never loads spaCy.

1. :func:`palace.ask.planning.plan_question` reads the date window, entities and intent.
2. The scope (wing, room, ``--since``/``--until``) becomes a set of allowed drawers; a
   window read from the question ranks instead: drawers dated outside it, and drawers
   written after the day the question is about, are pushed down after fusion (see
   :mod:`palace.ask.planning` for why).
3. The graph answers first: a question that asks for one predicate of one name ("what
   plan is Initrode on") gets its value from the facts valid then, with its citation and
   the value it replaced (:mod:`palace.ask.answers`); the typed facts about the question's
   entities (current ones only for a current-state question; every one, superseded
   included, for a history question or ``history=True``); for a change question the
   diff of :mod:`palace.graph.changes`.
4. The retrievers of :mod:`palace.ask.retrievers` each give a ranked list; weighted reciprocal
   rank fusion (:mod:`palace.ask.fusion`) with the plan's weights orders the drawers, and every
   hit keeps each retriever's rank and score.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from palace.ask import retrievers
from palace.ask.answers import Answer, Direct, answer_question, direct_answer
from palace.graph.changes import ChangeSet, changes_in_window, changes_since_previous_mining
from palace.errors import PalaceNotFound, UsageError
from palace.store.facts import FactFilter, FactView, count_facts, fact_views
from palace.ask.fusion import Contribution, RankedList, demote, fuse
from palace.nlp.markup import tidy
from palace.nlp.names import entity_key
from palace.ask.planning import STOPWORDS, Plan, plan_question, query_terms
from palace.ask.questions import load_questions

if TYPE_CHECKING:
    from palace.core import Palace

SNIPPET_CHARS = 240
#: The share of its fused score a drawer keeps when its own dates all lie outside the
#: question's window (tuned on benchmarks/time_questions_*.jsonl and the Rust dev set).
OUTSIDE_WINDOW = 0.3
#: The share a drawer keeps when it was written after the day the question is about.
WRITTEN_LATER = 0.25
#: A title or path "matches the question strongly" when it holds this share of the
#: question's terms (and at least two): such a document is never pushed down by a window.
TITLE_MATCH = 0.6
#: A term in the titles or paths of more than this share of the notes is not distinctive.
TITLE_COMMON = 0.05
#: Below this cosine similarity, with no term, name or fact matched, nothing is found
#: (all-MiniLM-L6-v2: unrelated passages score about 0.0–0.2).
VECTOR_FLOOR = 0.3
#: The RRF weight of the ``place`` list (drawers of a room or wing the question names).
PLACE_WEIGHT = 0.5
#: How many fused candidates the window and the question's day may reorder.
DEMOTE_DEPTH = 200
#: Facts listed with an answer (the drawers of all of them still rank).
FACTS_SHOWN = 20
#: The intents whose answer lists the facts about the question's entities.
FACT_INTENTS = ("entity", "current", "history")


@dataclass(frozen=True)
class Why:
    """Why a drawer was returned: each retriever's contribution (they sum to the score),
    the question terms found in it, the entities it mentions, the date window applied."""

    retrievers: tuple[Contribution, ...]
    matched_terms: tuple[str, ...] = ()
    matched_entities: tuple[str, ...] = ()
    date_window: str | None = None


@dataclass(frozen=True)
class Hit:
    """One result: where the drawer is (path and 1-based inclusive line span), its date
    and where that date came from (``date_source``: ``front matter``, ``file name``,
    ``heading``, ``git``; ``mtime`` for a note with no date of its own, whose ``date`` is
    then None), a snippet and :class:`Why`; ``same_text_in`` lists ``path:line`` of
    lower-ranked drawers with the same text, folded into this one. ``room`` is the
    wing's name for a note at the wing's root."""

    rank: int
    drawer_id: str
    score: float
    path: str
    wing: str
    room: str
    line_start: int
    line_end: int
    date: str | None
    title: str
    heading_path: tuple[str, ...]
    snippet: str
    why: Why
    same_text_in: tuple[str, ...] = ()
    date_source: str = ""


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

    def to_dict(self) -> dict:
        """The result as plain JSON types, with the field names documented in the README."""
        from palace.results import to_data

        return to_data(self)

    def to_json(self, indent: int | None = 2) -> str:
        """One JSON object with the field names documented in the README."""
        from palace.results import to_json

        return to_json(self, indent)


def ask(
    palace: "Palace",
    question: str,
    *,
    top_k: int = 10,
    wing: str | None = None,
    room: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    now: dt.date | None = None,
    history: bool = False,
    retrievers_only: tuple[str, ...] | None = None,
) -> AskResult:
    """Answer ``question`` from ``palace``: the ``top_k`` best drawers with explanations,
    and for a question that asks for one predicate of one name ("what plan is Initrode
    on") the graph's direct answer (:func:`palace.ask.answers.answer_question`).

    ``wing``/``room`` restrict the search; ``since``/``until`` (inclusive) filter by date;
    ``now`` anchors relative dates in the question (default: today); ``history`` keeps
    superseded facts in the answer. ``retrievers_only`` (e.g. ``("bm25",)``) runs only
    those retrievers with weight 1 and no graph answer — the baselines of
    ``benchmarks/eval_retrieval.py``. Raises :class:`PalaceNotFound` when the palace
    holds no drawers, :class:`UsageError` for an empty question or an unknown wing or
    room, and :class:`palace.errors.ModelMismatch` when it was built with another
    embedding model.
    """
    started = time.perf_counter()
    conn = palace.conn
    # bytes no encoding explains (a shell's stray \xff) become U+FFFD, not a crash
    question = question.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if not question.strip():
        raise UsageError("the question is empty", hint='ask in words, e.g. palace ask "what did we decide"')
    if conn.execute("SELECT 1 FROM drawers LIMIT 1").fetchone() is None:
        raise PalaceNotFound(f"the palace at {palace.path} holds no drawers", hint="run `palace mine DIR` first")
    palace.check_model()
    config = palace.config
    plan = plan_question(conn, question, now=now, since=since, until=until,
                         fiscal_year_start=config.fiscal_year_start, date_order=config.date_order,
                         questions=load_questions(config, palace.registry))
    notes = list(plan.notes)
    weights = dict(plan.weights)
    if retrievers_only is not None:
        weights = {name: 1.0 for name in retrievers_only}

    _check_scope(conn, wing, room)
    if _contentless(plan):
        raise UsageError(
            f"the question {question.strip()!r} names nothing to look for (no name, term, date or identifier)",
            hint='ask about something: palace ask "what did we decide about the budget"',
        )
    scope_sql, scope_params = _scope(wing, room)
    allowed: set[int] | None = None
    if scope_sql:
        allowed = {r[0] for r in conn.execute(f"SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id WHERE {scope_sql}", scope_params)}
    window_mode = plan.window_mode
    tiers: dict[int, int] = {}
    if plan.window is not None and retrievers_only is None:
        tiers = retrievers.in_window(conn, plan.window)
        in_window = {r for r, t in tiers.items() if t >= 2}
        in_window = in_window if allowed is None else in_window & allowed
        dated = sum(1 for rowid in in_window if tiers[rowid] == 3)
        held = (f"{dated} drawer{'' if dated == 1 else 's'} dated in it, {len(in_window) - dated} more that mention"
                " a day in it")
        if window_mode == "filter":
            allowed = in_window
            notes.append(f"date window {plan.window} filters: {held}")
        elif in_window:
            notes.append(f"date window {plan.window} ranks: {held}; drawers dated outside it are pushed down,"
                         " notes with no date of their own are neither")
        else:
            window_mode = "ignored"
            notes.append(f"no drawer falls in {plan.window}; the window was ignored")

    answer: Answer | None = None
    answer_drawers: list[str] = []
    if retrievers_only is None:
        answer = answer_question(palace, plan, wing=wing)
        answer_drawers = answer.drawer_ids() if answer else []
        if answer_drawers and allowed is not None:  # the answer's evidence, even from before the window
            admitted = _in_scope(conn, answer_drawers, wing, room) - allowed
            if admitted and plan.window is not None:
                notes.append(f"{len(admitted)} drawer{'' if len(admitted) == 1 else 's'} cited by the answer"
                             f" admitted from outside --since/--until")
            allowed |= admitted

    entity_ids = tuple(i for e in plan.entities for i in e.entity_ids)
    changes: ChangeSet | None = None
    if weights.get("changes"):
        if plan.window is not None and window_mode in ("filter", "boost"):
            end = min(plan.window.end, (plan.now or dt.date.today()) + dt.timedelta(days=1))  # nothing after --now
            changes = changes_in_window(conn, plan.window.start, max(end, plan.window.start), entity_ids=entity_ids,
                                        wing=wing, room=room, registry=palace.registry)
        else:
            changes = changes_since_previous_mining(conn, entity_ids=entity_ids, wing=wing, room=room,
                                                    registry=palace.registry)
        if not plan.entities:  # a topic that is not a name: keep the changes that speak of it
            changes = changes.mentioning(tuple(_stem(t) for t in plan.terms if not t.isdigit()))
        notes.append(f"{changes.total} change{'' if changes.total == 1 else 's'}: {changes.description}")
    facts, hidden, fact_drawers = (), 0, {}
    if plan.entities and weights.get("graph"):
        facts, hidden, fact_drawers, fact_notes = entity_facts(
            palace, plan, history=history or plan.intent == "history", wing=wing)
        if plan.intent in FACT_INTENTS:
            notes += fact_notes
            if hidden:
                notes.append(f"{hidden} superseded fact{'' if hidden == 1 else 's'} hidden; --history shows them")

    embedding = palace.embedder.embed([question])[0] if weights.get("vector") else None
    lists = [
        RankedList("bm25", weights.get("bm25", 0.0), retrievers.bm25(conn, plan.terms, allowed)),
        RankedList("vector", weights.get("vector", 0.0), () if embedding is None else retrievers.vector(
            palace, question, allowed, _chroma_where(wing, room, plan.window if window_mode == "filter" else None),
            embedding)),
    ]
    if embedding is not None and not lists[1].items and palace.vectors.count() == 0:  # counted only then
        notes.append("the vector store is empty though drawers are stored: answering from BM25 and the graph;"
                     " `palace mine` embeds the drawers again")
    inside: list[RankedList] = []  # a window that ranks: BM25 and vectors again, inside it
    if tiers and window_mode == "boost" and weights.get("date"):
        scope = {r for r, t in tiers.items() if t >= 2} or set(tiers)
        scope = scope if allowed is None else scope & allowed
        inside = [RankedList("bm25", 1.0, retrievers.bm25(conn, plan.terms, scope))]
        if embedding is not None:
            inside.append(RankedList("vector", 1.0, retrievers.vector(
                palace, question, scope, _chroma_where(wing, room, plan.window), embedding)))
    entity_names: dict[str, tuple[str, ...]] = {}
    asked = next((i for i, e in enumerate(plan.entities) if answer and e.name == answer.subject), None)
    if answer_drawers and asked is not None:  # the drawers cited by the answer lead the graph's list
        fact_drawers = {**{d: (asked,) for d in answer_drawers}, **fact_drawers}
    if plan.entities and weights.get("graph"):
        graph_items, entity_names = retrievers.graph(conn, plan.entities, allowed, lists, fact_drawers)
        lists.append(RankedList("graph", weights["graph"], graph_items))
    if answer is not None and answer.values and weights.get("answer"):  # the statements that answer it
        lists.append(RankedList("answer", weights["answer"],
                                retrievers.listed(conn, [v.drawer_id for v in answer.values], allowed)))
    else:
        weights.pop("answer", None)
    if plan.identifiers and weights.get("exact"):
        lists.append(RankedList("exact", weights["exact"], retrievers.exact(conn, plan.identifiers, allowed)))
    if changes is not None:
        lists.append(RankedList("changes", weights["changes"], retrievers.listed(conn, changes.drawer_ids())))
    if tiers and window_mode in ("filter", "boost") and weights.get("date"):
        lists.append(RankedList("date", weights["date"], retrievers.date_list(conn, inside or lists, tiers)))
    if weights.get("recent"):
        lists.append(RankedList("recent", weights["recent"], retrievers.recent(conn, lists)))
    if retrievers_only is None and not room:
        named = _named_places(conn, question, wing)
        if named:
            notes.append("the question names " + ", ".join(f"{kind} {name!r}" for kind, name in named)
                         + ": its drawers are raised")
            weights["place"] = PLACE_WEIGHT
            lists.append(RankedList("place", PLACE_WEIGHT, retrievers.in_places(conn, lists, named)))
    fused = fuse(lists)
    if retrievers_only is None:
        fused = demote(fused, _demotions(conn, fused, plan, tiers if window_mode == "boost" else None,
                                         keep=set(answer_drawers)))
    found = True
    if retrievers_only is None and not any(r.items for r in lists if r.retriever != "vector" and r.weight):
        best = max((score for _, score in lists[1].items), default=0.0)
        if best < VECTOR_FLOOR:  # no term, name, identifier or fact matched, and no drawer is close
            found, fused = False, []
            notes.append(f"nothing passed the floor: no term or name matched and the closest drawer's cosine"
                         f" similarity is {best:.2f} (< {VECTOR_FLOOR})")
    fused = _fold_copies(conn, fused, top_k)

    hits = _hits(conn, fused, plan, window_mode, entity_names)
    summary = PlanSummary(
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
        notes=tuple(notes),
    )
    shown_facts = facts if plan.intent in FACT_INTENTS else ()
    direct = direct_answer(answer, changes, _facts_asked(plan, shown_facts, palace.registry), found=found,
                           question=question, when=bool(_WHEN.match(question)))
    return AskResult(
        question=question,
        palace=str(palace.path),
        plan=summary,
        direct=direct,
        answer=answer,
        changes=changes,
        facts=shown_facts,
        hidden_superseded=hidden,
        results=tuple(hits),
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
    )


def _named_places(conn, question: str, wing: str | None) -> list[tuple[str, str]]:
    """The rooms and wings whose names the question spells out, all their words
    ("sig-node", "sig node", "leadership council"): ``[("room" | "wing", name)]``. A
    one-word name counts only written as in the path (a hyphen or digit in it, or a
    word of four letters or more)."""
    words = set(re.findall(r"[^\W_]+", question.lower()))
    joined = " ".join(re.findall(r"[^\W_]+", question.lower()))
    named = []
    sql = "SELECT DISTINCT 'room', room FROM files WHERE status = 'indexed' AND room != '.'"
    params: list = []
    if wing:
        sql += " AND wing = ?"
        params.append(wing)
    else:
        sql += " UNION SELECT DISTINCT 'wing', wing FROM files WHERE status = 'indexed'"
    for kind, name in conn.execute(sql, params):
        parts = re.findall(r"[^\W_]+", name.lower())
        if not parts or not set(parts) <= words or " ".join(parts) not in joined:
            continue
        if len(parts) == 1 and (len(parts[0]) < 4 or parts[0] in STOPWORDS):
            continue
        named.append((kind, name))
    return named


_WHEN = re.compile(r"\s*(?:when|since when|what (?:day|date|year|month))\b", re.IGNORECASE)


def _facts_asked(plan: Plan, facts: tuple[FactView, ...], registry: dict) -> tuple[FactView, ...]:
    """Of the facts about the question's names, those a "when" question asks about: the
    ones between two of its names ("when did Alice Chen join Acme Robotics"), else those
    whose predicate it names, else all of them; other questions keep all of them."""
    if not facts or not _WHEN.match(plan.question):
        return facts
    names = {entity_key(e.name) for e in plan.entities} | {entity_key(e.text) for e in plan.entities}
    between = tuple(f for f in facts if entity_key(f.subject) in names and entity_key(f.object) in names)
    named = _named_predicates(plan.terms, registry)
    return between or tuple(f for f in facts if f.predicate in named) or facts


def _contentless(plan: Plan) -> bool:
    """A question that names nothing: no content word ("what is the", "?!", "who was it
    then"), no name the graph knows, no identifier and no date."""
    return not (query_terms(plan.question) or plan.entities or plan.identifiers or plan.window
                or plan.point_text)


def _demotions(conn, fused, plan: Plan, tiers: dict[int, int] | None, keep: set[str] = frozenset()
               ) -> dict[str, tuple[float, str]]:
    """The fused candidates to push down and by how much: those written after the day the
    question is about (``--now`` or a point it names: "later than …"), and, when the
    question's window ranks (``tiers`` from :func:`palace.ask.retrievers.in_window`), those
    whose own dates all lie outside it ("outside the window") unless their title or path
    holds most of the question's terms, or the graph's answer cites them (``keep``: a
    state asked "in Q4 2024" was often stated before it)."""
    ids = [d for d, _, _ in fused[:DEMOTE_DEPTH]]
    factors: dict[str, tuple[float, str]] = {}
    if tiers is not None:
        outside = retrievers.outside_window(conn, ids, tiers) - _title_matches(conn, ids, plan.terms) - keep
        factors.update({d: (OUTSIDE_WINDOW, "outside the window") for d in outside})
    if plan.bounded and plan.now is not None:
        for d in retrievers.dated_after(conn, ids, plan.now):
            factor = factors.get(d, (1.0, ""))[0] * WRITTEN_LATER
            factors[d] = (factor, f"written after {plan.now}")
    return factors


def _title_matches(conn, drawer_ids: list[str], terms: tuple[str, ...]) -> set[str]:
    """Of ``drawer_ids``, those whose note's title and path hold at least
    :data:`TITLE_MATCH` (and two or more) of the question's distinctive terms: terms
    found in the titles and paths of at most :data:`TITLE_COMMON` of the notes ("council"
    in every path of a council's minutes says nothing)."""
    if len(terms) < 2 or not drawer_ids:
        return set()
    total = conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchone()[0] or 1
    def titled(stem: str) -> int:
        return conn.execute(
            "SELECT count(*) FROM files WHERE status = 'indexed' AND (lower(title) LIKE ? OR lower(path) LIKE ?)",
            (f"%{stem}%", f"%{stem}%"),
        ).fetchone()[0]

    stems = [
        stem for stem in dict.fromkeys(_stem(t) for t in terms)
        if retrievers.counted(conn, "notes titled", stem, total, lambda: titled(stem)) <= max(3, total * TITLE_COMMON)
    ]
    if len(stems) < 2:
        return set()
    need = max(2, -(-len(stems) * TITLE_MATCH // 1))
    out = set()
    for row in conn.execute(
        "SELECT d.id, f.title, f.path FROM drawers d JOIN files f ON f.id = d.file_id"
        " WHERE d.id IN (SELECT value FROM json_each(?))", (json.dumps(drawer_ids),)
    ):
        words = " ".join(re.findall(r"[^\W_]+", f"{row['title'] or ''} {row['path']}".lower()))
        if sum(1 for stem in stems if re.search(rf"\b{re.escape(stem)}", words)) >= need:
            out.add(row["id"])
    return out


def entity_facts(
    palace: "Palace", plan: Plan, *, history: bool = False, wing: str | None = None
) -> tuple[tuple[FactView, ...], int, dict[str, tuple[int, ...]], list[str]]:
    """The typed facts (not ``mentioned_with``) about the plan's entities, not retracted,
    in the plan's window when it has one (valid time overlapping it).

    Without ``history``: for a question about a span ("in summer 2024"), every fact
    valid at some time in it (begun by ``now``); otherwise the states valid at the plan's
    ``now`` (begun by then, not superseded or ended by then) and — except for a
    current-state question — the events of record (a decision, an approval) that
    happened by then. Returns ``(facts, hidden,
    drawers, notes)``: facts whose predicate the question names ("report" →
    ``reports_to``) first, then the latest (with ``history``: in valid-time order); the
    number of states superseded or ended by ``now`` that were left out; their drawers in
    that order, each with the indexes of the plan entities its facts are about (for
    :func:`palace.ask.retrievers.graph`); and notes on what else was left out."""
    conn = palace.conn
    ids = tuple(i for e in plan.entities for i in e.entity_ids)
    if not ids:
        return (), 0, {}, []
    span = plan.window is not None and plan.window_source == "question" and plan.window.granularity != "day"
    base = FactFilter(entity_ids=ids, typed_only=True, live=True, wing=wing,
                      overlaps=(plan.window.start, plan.window.end) if plan.window is not None else None)
    day = plan.now or dt.date.today()
    state_now = FactFilter(kind="state", begun_by=day, not_ended_by=day, drop_undated_superseded=True)
    event_by = FactFilter(kind="event", begun_by=day)
    hidden, notes = 0, []
    if history:
        views = fact_views(conn, base, palace.registry)
    elif span:  # "in summer 2024": every fact valid at some time in it, with its own interval
        views = fact_views(conn, replace(base, begun_by=day, drop_undated_superseded=True), palace.registry)
    else:
        wanted = (state_now,) if plan.intent == "current" else (state_now, event_by)
        views = fact_views(conn, replace(base, any_of=wanted), palace.registry)
        def count(**narrower) -> int:
            return count_facts(conn, replace(base, **narrower), palace.registry)
        hidden = count(kind="state", ended_by=day)
        later = count(begins_after=day)
        if later:
            notes.append(f"{later} fact{'' if later == 1 else 's'} dated after {day} (--now) left out")
        if plan.intent == "current":
            past = count(kind="event", begun_by=day)
            if past:
                notes.append(f"{past} event{'' if past == 1 else 's'} (decisions, approvals…) left out: a"
                             " current-state answer lists states; --history shows everything")
    named = _named_predicates(plan.terms, palace.registry)
    ordered = sorted(views, key=lambda v: v.id)  # stable sorts: named predicates, then by valid time
    ordered.sort(key=lambda v: v.valid_from or "", reverse=not history)  # latest first, unless a timeline
    ordered.sort(key=lambda v: v.predicate not in named)
    index_of = {i: n for n, e in enumerate(plan.entities) for i in e.entity_ids}
    ends = {
        r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT id, subject_id, object_id FROM facts WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps([v.id for v in ordered]),),
        )
    }
    drawers: dict[str, tuple[int, ...]] = {}
    for view in ordered:
        about = {index_of[i] for i in ends.get(view.id, ()) if i in index_of}
        drawers[view.drawer_id] = tuple(sorted(set(drawers.get(view.drawer_id, ())) | about))
    return tuple(ordered[:FACTS_SHOWN]), hidden, drawers, notes


def _named_predicates(terms: tuple[str, ...], registry: dict) -> set[str]:
    """Predicates the question names by their name or one of their verbs ("report" →
    ``reports_to``, "decide" → ``decided``), compared by a crude stem."""
    stems = {_stem(t) for t in terms}
    named = set()
    for name, spec in registry.items():
        words = set(name.split("_")) | set(spec.verbs)
        for pattern in spec.patterns:
            words |= set(pattern.get("verbs", ()))
        if stems & {_stem(w) for w in words if len(w) > 2}:
            named.add(name)
    return named


def _chroma_where(wing: str | None, room: str | None, window=None) -> dict | None:
    """Chroma ``where`` for the scope: wing, room, and a drawer date overlapping a
    filtering window (used when the scope is too large to scan exactly; drawers that
    only mention a date in the window then come from the other retrievers)."""
    from palace.store.vectors import date_number

    clauses: list[dict] = [{"wing": wing}] if wing else []
    clauses += [{"room": room}] if room else []
    if window is not None:
        if window.start > dt.date.min:
            clauses.append({"date_end": {"$gt": date_number(window.start.isoformat())}})
        if window.end < dt.date.max:
            clauses.append({"date_start": {"$lt": date_number(window.end.isoformat())}})
    if len(clauses) > 1:
        return {"$and": clauses}
    return clauses[0] if clauses else None


def _check_scope(conn, wing: str | None, room: str | None) -> None:
    """An unknown wing or room is a user error that names the known ones."""
    if wing:
        wings = [r[0] for r in conn.execute("SELECT DISTINCT wing FROM files ORDER BY wing")]
        if wing not in wings:
            raise UsageError(f"no wing {wing!r} in this palace", hint=f"wings: {', '.join(wings)}")
    if room:
        sql, params = "SELECT DISTINCT room FROM files WHERE status = 'indexed'", []
        if wing:
            sql, params = sql + " AND wing = ?", [wing]
        rooms = [r[0] for r in conn.execute(sql + " ORDER BY room", params)]
        if room not in rooms:
            raise UsageError(f"no room {room!r}{' in wing ' + repr(wing) if wing else ''}",
                             hint=f"rooms: {', '.join(rooms)}")


def _in_scope(conn, drawer_ids: list[str], wing: str | None, room: str | None) -> set[int]:
    """The rowids of ``drawer_ids`` inside the wing and room."""
    sql, params = _scope(wing, room)
    return {r[0] for r in conn.execute(
        "SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id IN (SELECT value FROM json_each(?))"
        + (f" AND {sql}" if sql else ""), [json.dumps(drawer_ids), *params])}


def _scope(wing: str | None, room: str | None) -> tuple[str, list]:
    clauses, params = [], []
    if wing:
        clauses.append("f.wing = ?")
        params.append(wing)
    if room:
        clauses.append("f.room = ?")
        params.append(room)
    return " AND ".join(clauses), params


def _stem(term: str) -> str:
    """A crude prefix stem for showing matched terms (FTS5 matches with the Porter stemmer:
    "take" finds "taking", "grants" finds "grant")."""
    if term.isalpha():
        for suffix in ("ing", "ed", "es", "s", "e"):
            if term.endswith(suffix) and len(term) - len(suffix) >= 3:
                return term[: -len(suffix)]
    return term


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _snippet(text: str, terms: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The drawer's text around the sentence that holds most of ``terms`` (ties: the
    first), about :data:`SNIPPET_CHARS` long, markup removed; and the terms found."""
    from palace.nlp.markup import plain_text_for_ner

    plain = plain_text_for_ner(text)  # same length as text: offsets agree
    lowered = plain.lower()
    stems = {t: _stem(t) for t in terms}
    found = tuple(t for t, stem in stems.items() if re.search(rf"\b{re.escape(stem)}", lowered))
    best_start, best_end, best_score = 0, min(len(plain), SNIPPET_CHARS), 0
    cursor = 0
    for boundary in [*_SENTENCE_END.finditer(plain), None]:
        end = boundary.start() if boundary else len(plain)
        piece = lowered[cursor:end]
        score = sum(1 for t in found if re.search(rf"\b{re.escape(stems[t])}", piece))
        if score > best_score:
            best_start, best_end, best_score = cursor, end, score
        cursor = boundary.end() if boundary else len(plain)
    middle = (best_start + best_end) // 2
    start = max(0, min(best_start, middle - SNIPPET_CHARS // 2))
    if best_end - best_start <= SNIPPET_CHARS:
        start = max(0, min(best_start, best_end - SNIPPET_CHARS))  # the whole sentence, with what leads to it
        start = max(start, best_start - (SNIPPET_CHARS - (best_end - best_start)) // 2)
    piece = tidy(plain[start:start + SNIPPET_CHARS])
    prefix = "…" if plain[:start].strip() else ""
    suffix = "…" if plain[start + SNIPPET_CHARS:].strip() else ""
    return prefix + piece + suffix, found


def _fold_copies(conn, fused: list, top_k: int) -> list:
    """The first ``top_k`` of the fused list, each drawer's copies folded into it.

    A drawer whose text (whitespace aside) equals a better one's is dropped: minutes
    repeat an issue's header block in every meeting, and five copies hide the answer. Its
    place is noted in the better hit's ``same_text_in``. (Capping the drawers of one file
    at three before other files had their turn was tried and cost 3 points of recall@1 on
    the Rust dev set: the answer is often a file's fourth passage.) Returns
    ``[(drawer_id, score, contributions, same_text_in)]``."""
    if not fused:
        return []
    ids = [d for d, _, _ in fused]
    rows = {
        r["id"]: r for r in conn.execute(
            "SELECT d.id, d.text, d.line_start, f.path FROM drawers d JOIN files f ON f.id = d.file_id"
            " WHERE d.id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
    }
    first_of: dict[str, int] = {}
    copies: dict[int, list[str]] = {}
    kept: list[tuple] = []
    for item in fused:
        row = rows.get(item[0])
        if row is None:
            continue
        text = " ".join(row["text"].split())
        if text in first_of:
            copies[first_of[text]].append(f"{row['path']}:{row['line_start']}")
            continue
        first_of[text] = len(kept)
        copies[len(kept)] = []
        kept.append(item)
        if len(kept) == top_k:
            break
    return [(*item, tuple(copies[i])) for i, item in enumerate(kept)]


def _hits(conn, fused, plan: Plan, window_mode: str, entity_names: dict[str, tuple[str, ...]]) -> list[Hit]:
    if not fused:
        return []
    ids = [d for d, _, _, _ in fused]
    rows = {
        r["id"]: r
        for r in conn.execute(
            f"SELECT d.id, d.text, d.line_start, d.line_end, d.heading_path, d.date_start, f.path, f.wing,"
            f" f.room, f.title, f.doc_date_source, f.doc_date FROM drawers d JOIN files f ON f.id = d.file_id"
            f" WHERE d.id IN ({','.join('?' * len(ids))})",
            ids,
        )
    }
    window = f"{plan.window} [{window_mode}]" if plan.window else None
    hits = []
    for rank, (drawer, score, parts, same_text_in) in enumerate(fused, start=1):
        row = rows.get(drawer)
        if row is None:
            continue
        snippet, matched = _snippet(row["text"], plan.terms)
        source = row["doc_date_source"] or ""
        if row["date_start"] != row["doc_date"]:
            source = "heading"  # a running note's dated section
        hits.append(
            Hit(
                rank=rank,
                drawer_id=drawer,
                score=score,
                path=row["path"],
                wing=row["wing"],
                room=row["wing"] if row["room"] == "." else row["room"],
                line_start=row["line_start"],
                line_end=row["line_end"],
                date=None if source == "mtime" else row["date_start"],
                title=row["title"] or "",
                heading_path=tuple(json.loads(row["heading_path"])),
                snippet=snippet,
                why=Why(parts, matched, entity_names.get(drawer, ()), window),
                same_text_in=same_text_in,
                date_source=source,
            )
        )
    return hits
