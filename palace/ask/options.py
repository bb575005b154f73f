"""The options of one question: :class:`AskOptions`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class AskOptions:
    """How to answer one question (:func:`palace.ask.query.ask`).

    - ``top_k``: how many drawers to return (copies folded in).
    - ``wing``, ``room``: restrict the search to them.
    - ``since``, ``until``: keep drawers dated in ``[since, until]`` (inclusive days).
    - ``now``: the day relative dates in the question are read from, and the day a
      question without a time is about (default: today).
    - ``history``: keep superseded facts in the answer.
    - ``retrievers_only``: run only these retrievers (e.g. ``("bm25",)``), weight 1, with
      no date window, graph answer, re-ranking or floor — the baselines of
      ``benchmarks/eval_retrieval.py``.
    """

    top_k: int = 10
    wing: str | None = None
    room: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    now: dt.date | None = None
    history: bool = False
    retrievers_only: tuple[str, ...] | None = None

    @property
    def baseline(self) -> bool:
        """True for a run of the retrievers alone (``retrievers_only``)."""
        return self.retrievers_only is not None

    def weights(self, planned: dict[str, float]) -> dict[str, float]:
        """The retrievers' weights: the plan's, or 1 for each of ``retrievers_only``."""
        if self.retrievers_only is not None:
            return {name: 1.0 for name in self.retrievers_only}
        return dict(planned)
