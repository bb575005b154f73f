"""Fakes at the seams only (STYLE.md §9): a clock for recorded time. Real-path tests use
the real clock, the real spaCy pipeline and the real ONNX model; these stand in where a
unit test checks what lies behind the seam."""

from __future__ import annotations

import datetime as dt


class ManualClock:
    """A clock for :func:`palace.graph.temporal.set_clock` that moves only when told.

    It starts at the current second (UTC, microseconds dropped), so anything the real
    clock recorded before it is not later than its start; :meth:`advance` moves it on.
    Two minings with an ``advance(1)`` between them get distinct recorded times (kept to
    the second) without waiting one."""

    def __init__(self, start: dt.datetime | None = None) -> None:
        self.now = start or dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float = 1.0) -> dt.datetime:
        """Move the clock on by ``seconds``; return the new moment."""
        self.now += dt.timedelta(seconds=seconds)
        return self.now
