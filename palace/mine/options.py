"""What a mining run may spend and whom it tells: :class:`MineOptions` (its budget and
care), :class:`MineCallbacks` (progress and stop) and :func:`nlp_processes` (how many
processes read its NLP on this :class:`Machine`).

A run is steered by these values, never by module globals: ``palace mine`` uses the
defaults; the watcher, the tests and the benchmarks pass their own
(``Palace.mine(…, options=MineOptions(large_note_drawers=5))``).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from palace.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from palace.config import Config
    from palace.mine.outcomes import FileOutcome

__all__ = ["Machine", "MineCallbacks", "MineOptions", "nlp_processes"]


@dataclass(frozen=True)
class MineOptions:
    """A run's budget and care (the defaults are what ``palace mine`` uses):

    - ``large_note_drawers``: a note with more new drawers than this is read after all the
      others, so one huge note never holds back the notes saved beside it, and is stored
      in steps of this many drawers, each its own transaction: a stop or a kill loses at
      most one step, and the next run reads only the drawers not yet stored.
    - ``progress_every``: a note of more new drawers than this reports its progress
      (:attr:`MineCallbacks.on_progress`) every this many drawers.
    - ``parallel_min_drawers``: a run of fewer new drawers than this reads its NLP in this
      process, whatever the settings: a worker process starts in about the time this
      process reads a few hundred drawers (a watcher's save never starts one).
    - ``worker_mb``: what one extraction worker process holds (its spaCy pipeline and two
      batches), in MB, measured as the peak RSS of a worker on the Rust minutes; the
      workers of a run are capped by the free memory at this size each.
    - ``cooccurrences_per_drawer``: at most this many co-occurrence facts
      (``mentioned_with``) per drawer, each pair once: a long note of many names must not
      grow the graph with the square of its length.
    - ``verify``: hash the bytes of a file whose size and mtime are unchanged, to find an
      edit that kept both (the watcher's steps and catch-ups do; a whole ``palace mine``
      trusts the stamps unless asked).

    Raises :class:`UsageError` for a size below 1 (or a count below 0)."""

    large_note_drawers: int = 200
    progress_every: int = 50
    parallel_min_drawers: int = 2000
    worker_mb: int = 400
    cooccurrences_per_drawer: int = 40
    verify: bool = False

    def __post_init__(self) -> None:
        for name in ("large_note_drawers", "progress_every", "worker_mb"):
            if getattr(self, name) < 1:
                raise UsageError(f"MineOptions.{name} must be at least 1, not {getattr(self, name)}")
        for name in ("parallel_min_drawers", "cooccurrences_per_drawer"):
            if getattr(self, name) < 0:
                raise UsageError(f"MineOptions.{name} must be at least 0, not {getattr(self, name)}")


@dataclass(frozen=True)
class MineCallbacks:
    """How a run talks to whoever started it (each may be None):

    - ``on_start(n)``: once, with the number of paths the run considers;
    - ``on_file(outcome)``: once per path as it is decided (a :class:`FileOutcome`; the
      CLI draws its progress bar from them, the watcher logs them, tests pass a list's
      ``append``);
    - ``on_progress(path, drawers_read, drawers)``: a long note's NLP, every
      :attr:`MineOptions.progress_every` drawers (the
      CLI's progress bar and the watcher's status show it);
    - ``on_phase(phase, done, total)``: the work after the last path, which a bar of
      paths alone would show as frozen at its end: ``("resolving", 0, 0)`` once before the
      wing's names are resolved, then ``("vectors", done, total)`` as the drawers queued
      for embedding are finished (``done`` of ``total`` drawers; first when the last
      path is stored, then after each batch, from either embedding thread);
    - ``cancel``: once set, the run ends early and cleanly (:class:`palace.mine.run.MineRun`). Anything
      with ``is_set()``, ``wait(timeout)`` and ``set()`` serves (the watcher's yielding
      stop is one)."""

    on_start: Callable[[int], None] | None = None
    on_file: "Callable[[FileOutcome], None] | None" = None
    on_progress: Callable[[str, int, int], None] | None = None
    on_phase: Callable[[str, int, int], None] | None = None
    cancel: threading.Event | None = None


@dataclass(frozen=True)
class Machine:
    """What this machine offers a run's NLP: the ``cores`` this process may run on and
    the memory it can give without swapping (``available_mb``, MB; None when unknown)."""

    cores: int
    available_mb: int | None

    @classmethod
    def here(cls) -> "Machine":
        """This process's cores (its CPU affinity where known) and ``MemAvailable``
        (where there is no ``/proc/meminfo``, the free pages)."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return cls(cores, _available_mb())


def _available_mb() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (ValueError, OSError):
        return None


def nlp_processes(drawers: int, config: "Config", options: MineOptions | None = None,
                  machine: Machine | None = None) -> int:
    """How many processes read the NLP of a run with ``drawers`` new drawers.

    1 — this process — for fewer than :attr:`MineOptions.parallel_min_drawers` drawers (a
    watcher's save), whatever the settings. Else ``$PALACE_NLP_PROCESSES`` (raises
    :class:`ConfigError` unless a whole number ≥ 1) or ``config.nlp_processes`` when set;
    else 1 on a machine with two cores or fewer (spaCy and the embedding thread already
    keep one core each), and one per core but the embedder's, no more than the free
    memory holds at :attr:`MineOptions.worker_mb` each. ``machine``: default
    :meth:`Machine.here`, read only when the settings leave the choice to it."""
    options = options or MineOptions()
    if drawers < options.parallel_min_drawers:  # a watcher's save: no worker is worth starting, whatever the setting
        return 1
    raw = os.environ.get("PALACE_NLP_PROCESSES")
    if raw:
        try:
            wanted = int(raw)
            if wanted < 1:
                raise ValueError
        except ValueError:
            raise ConfigError(f"nlp_processes must be a whole number ≥ 1, not {raw!r}",
                              hint="set it in config.json or $PALACE_NLP_PROCESSES, e.g. 4") from None
        return wanted
    if config.nlp_processes is not None:
        return config.nlp_processes
    machine = machine or Machine.here()
    if machine.cores <= 2:
        return 1
    memory = machine.available_mb if machine.available_mb is not None else options.worker_mb
    return max(1, min(machine.cores - 1, memory // options.worker_mb))
