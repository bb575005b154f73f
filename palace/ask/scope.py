"""The scope of a question: where its evidence may come from, said once.

A :class:`Scope` is built once per question by :func:`build_scope` (the scope stage of
:func:`palace.ask.query.ask`) and read by every retriever and check: its SQL condition
over the notes (:meth:`Scope.condition`), its Chroma ``where`` (:meth:`Scope.where`),
the drawers it allows (:attr:`Scope.allowed`, the set every retriever receives; which
of some drawers lie in its wing and room: :meth:`Scope.rowids`), the window's drawers
(:meth:`Scope.inside`) and the check that its wing and room exist (:meth:`Scope.check`).

Wing and room always restrict. A date window restricts only when it came from
``--since``/``--until`` (mode ``filter``); a window read from the question ranks
(``boost``): the drawers it holds are raised by the ``date`` retriever and the others
pushed down after fusion (:mod:`palace.ask.ranking`). A window that holds no drawer is
``ignored``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Mapping

from palace.ask import retrievers
from palace.errors import UsageError
from palace.nlp.dates import DateInterval
from palace.store import search

#: The window modes: ``filter`` (``--since``/``--until``), ``boost`` (a window read from
#: the question), ``ignored`` (a window that holds no drawer), ``none``.
WINDOW_MODES = ("filter", "boost", "ignored", "none")


@dataclass(frozen=True)
class Scope:
    """Where a question's evidence may come from.

    - ``wing``, ``room``: the notes searched (None: all).
    - ``window``: the plan's date window (None: no window), used as ``mode`` says (one of
      :data:`WINDOW_MODES`).
    - ``allowed``: the rowids of the drawers the retrievers may return (None: every
      drawer): the wing's and room's, those a filtering window holds, and the drawers
      the graph's answer cites (admitted from outside a filter).
    - ``tiers``: ``{rowid: tier}`` of the drawers the window holds
      (:func:`palace.ask.retrievers.in_window`: 4 dated in it, 3 mentioning a date that
      begins in its first year, 2 mentioning a day inside it, 1 a date overlapping it);
      empty with no window or for a baseline run.
    """

    wing: str | None = None
    room: str | None = None
    window: DateInterval | None = None
    mode: str = "none"
    allowed: frozenset[int] | None = None
    tiers: Mapping[int, int] = field(default_factory=dict)

    def condition(self) -> tuple[str, list]:
        """SQL over ``files f`` for the wing and room, and its parameters (``""`` for all)."""
        clauses, params = [], []
        if self.wing:
            clauses.append("f.wing = ?")
            params.append(self.wing)
        if self.room:
            clauses.append("f.room = ?")
            params.append(self.room)
        return " AND ".join(clauses), params

    def where(self) -> dict | None:
        """Chroma ``where`` for the scope: wing, room, and, when the window filters, a
        drawer date overlapping it (used when the scope is too large to scan exactly;
        drawers that only mention a date in the window then come from the other
        retrievers)."""
        from palace.store.vectors import date_number

        clauses: list[dict] = [{"wing": self.wing}] if self.wing else []
        clauses += [{"room": self.room}] if self.room else []
        if self.window is not None and self.mode == "filter":
            if self.window.start > dt.date.min:
                clauses.append({"date_end": {"$gt": date_number(self.window.start.isoformat())}})
            if self.window.end < dt.date.max:
                clauses.append({"date_start": {"$lt": date_number(self.window.end.isoformat())}})
        if len(clauses) > 1:
            return {"$and": clauses}
        return clauses[0] if clauses else None

    def rowids(self, conn, drawer_ids: list[str]) -> set[int]:
        """The rowids of ``drawer_ids`` inside the wing and room (not narrowed by a window)."""
        return search.scoped_rowids(conn, self.condition(), drawer_ids)

    def check(self, conn) -> None:
        """Raise :class:`UsageError`, naming the known ones, for an unknown wing or room."""
        if self.wing:
            wings = search.wing_names(conn)
            if self.wing not in wings:
                raise UsageError(f"no wing {self.wing!r} in this palace", hint=f"wings: {', '.join(wings)}")
        if self.room:
            rooms = search.room_names(conn, self.wing)
            if self.room not in rooms:
                raise UsageError(f"no room {self.room!r}{' in wing ' + repr(self.wing) if self.wing else ''}",
                                 hint=f"rooms: {', '.join(rooms)}")

    @property
    def ranks(self) -> bool:
        """True when the window ranks the drawers (mode ``boost``) rather than filtering them."""
        return self.mode == "boost"

    def inside(self) -> "Scope":
        """The scope narrowed to the window a question reads (mode ``filter``): the
        drawers dated in it or mentioning a day inside it, or, when none does, every
        drawer meeting it at all — for BM25 and vectors run again inside it."""
        held = {r for r, t in self.tiers.items() if t >= 2} or set(self.tiers)
        held = held if self.allowed is None else held & self.allowed
        return replace(self, mode="filter", allowed=frozenset(held))

    def admit(self, rowids: set[int]) -> "Scope":
        """The scope with the drawers of ``rowids`` allowed too (a restricted scope only)."""
        return self if self.allowed is None else replace(self, allowed=self.allowed | rowids)

    def label(self) -> str | None:
        """The window as each hit's ``why`` shows it: ``start → end (granularity) [mode]``."""
        return f"{self.window} [{self.mode}]" if self.window else None


def build_scope(conn, plan, *, wing: str | None, room: str | None, baseline: bool) -> tuple[Scope, list[str]]:
    """The scope of ``plan`` (a :class:`palace.ask.planning.Plan`) in ``wing``/``room``,
    and the notes that say how its window is used. A ``baseline`` run (the retrievers
    alone) reads no window. Raises :class:`UsageError` for an unknown wing or room
    (:meth:`Scope.check`)."""
    scope = Scope(wing=wing, room=room, window=plan.window, mode=plan.window_mode)
    scope.check(conn)
    sql, _ = scope.condition()
    if sql:
        scope = replace(scope, allowed=frozenset(search.scoped_rowids(conn, scope.condition())))
    if plan.window is None or baseline:
        return scope, []
    return _windowed(scope, retrievers.in_window(conn, plan.window))


def _windowed(scope: Scope, tiers: dict[int, int]) -> tuple[Scope, list[str]]:
    """The scope with the window's ``tiers``: a filter keeps the drawers in the window; a
    window that ranks but holds no drawer is ignored."""
    held = {r for r, t in tiers.items() if t >= 2}
    held = held if scope.allowed is None else held & scope.allowed
    dated = sum(1 for rowid in held if tiers[rowid] == retrievers.DATED_TIER)
    said = (f"{dated} drawer{'' if dated == 1 else 's'} dated in it, {len(held) - dated} more that mention"
            " a day in it")
    scope = replace(scope, tiers=tiers)
    if scope.mode == "filter":
        return replace(scope, allowed=frozenset(held)), [f"date window {scope.window} filters: {said}"]
    if held:
        return scope, [f"date window {scope.window} ranks: {said}; drawers dated outside it are pushed down,"
                       " notes with no date of their own are neither"]
    return replace(scope, mode="ignored"), [f"no drawer falls in {scope.window}; the window was ignored"]
