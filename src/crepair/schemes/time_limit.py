"""What a repair run cut off by its time limit says: which stage the limit
cut, how far that stage got, and — extrapolated from its pace so far —
which ``--timeout`` would let it finish on this program.

The estimate is only the pace so far carried over the rest of the stage's
work (mutation: the candidates of its search space, of which pruning may
skip many; templates: the diagnoses still allowed, which may be fewer), so
it is given as "about", rounded up to a whole minute.

:class:`Deadline` is the one end of a run that the schemes which start
processes (test-driven, staged, heap) share: each process they start gets
the time left as its own limit.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from crepair.records import RepairOutcome, StopReason
from crepair.run_record import MutationStats, TemplateStats


#: the least time limit a process gets (seconds): below it, a started
#: compiler or test could not even start, and the caller stops instead
MIN_CHILD_SECONDS = 0.05


def arm_hard_stop(started: float, seconds: float, grace: float, expire: Callable[[], None], *,
                  reproducible: bool = False) -> threading.Timer:
    """The wall-clock last resort of a ``--timeout`` of ``seconds`` counted
    from the ``time.monotonic()`` instant ``started``: a daemon timer,
    started, that calls ``expire`` ``grace`` seconds after the limit (z3
    does not always stop a check at its limit, nor when interrupted).
    With ``reproducible`` the limit is counted in resource units and the
    wall clock allows ``WALL_CLOCK_SAFETY`` times it.  Cancel it when the
    run ends."""
    if reproducible:
        from crepair.solver import WALL_CLOCK_SAFETY

        seconds *= WALL_CLOCK_SAFETY
    timer = threading.Timer(max(started + seconds + grace - time.monotonic(), 0), expire)
    timer.daemon = True
    timer.start()
    return timer


@dataclass(frozen=True, slots=True)
class Deadline:
    """The end of a run: ``at``, a ``time.monotonic()`` instant (None: no
    limit).  ``--timeout S`` counts from the start of the command
    (:meth:`after` with its ``started`` instant), so loading the program
    and setting a stage up count too."""

    at: float | None = None

    @staticmethod
    def after(seconds: float | None, started: float | None = None) -> "Deadline":
        """The deadline ``seconds`` after the ``time.monotonic()`` instant
        ``started`` (None: now); no limit when ``seconds`` is None."""
        if seconds is None:
            return Deadline(None)
        return Deadline((time.monotonic() if started is None else started) + seconds)

    def left(self) -> float | None:
        """Seconds until the deadline, negative once it passed (None: no limit)."""
        return None if self.at is None else self.at - time.monotonic()

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def share(self, fraction: float) -> "Deadline":
        """The deadline ``fraction`` (0 to 1) of the time left from now
        (no limit when this one has none)."""
        left = self.left()
        return Deadline(None if left is None else time.monotonic() + fraction * left)

    def cap(self, seconds: float | None) -> float | None:
        """The time limit, in seconds, of a process whose own limit is
        ``seconds`` (None: none): no later than the deadline, and at least
        :data:`MIN_CHILD_SECONDS`."""
        left = self.left()
        if left is None:
            return seconds
        left = max(left, MIN_CHILD_SECONDS)
        return left if seconds is None else min(seconds, left)

    def cap_ms(self, ms: int) -> int:
        """:meth:`cap` of a limit in whole milliseconds (at least 1)."""
        return max(1, math.ceil(1000 * self.cap(ms / 1000)))


def time_limit_note(run, now: float | None = None) -> str | None:
    """One line for a run whose time limit cut a stage, or cut the check
    of the original program (and of its unwinding bound) that comes before
    every stage; None otherwise.

    ``run`` is a finished :class:`~crepair.schemes.run.RepairRun`; ``now``
    a ``time.monotonic()`` instant (default: now), to measure the run's
    elapsed seconds from the command's start (``options.started``, else ``run.problem.start``)."""
    o = run.options
    if not o.timeout:
        return None
    started = run.problem.start if o.started is None else o.started  # --timeout counts from the command's start
    elapsed = (time.monotonic() if now is None else now) - started
    after = f"{elapsed:.1f}" if elapsed < 10 else f"{elapsed:.0f}"
    limit = f"--timeout {o.timeout:g}" + (" (resource units)" if o.reproducible else " s")
    if not run.searched and run.outcome == RepairOutcome.UNKNOWN and run.problem.limits.expired():
        stages = ", ".join(stage.label(o) for stage in run.schedule.stages)
        return (f"time limit reached before the first stage, in the check of the original program and its "
                f"unwinding bound, after {after} s ({limit}); no time left for: {stages}; "
                f"try a larger --timeout")
    cut = [(i, s) for i, s in enumerate(run.schemes)
           if s not in run.skipped and s.stats.stopped == StopReason.TIMEOUT]
    if not cut:
        return None
    i, scheme = cut[0]
    stats = scheme.stats
    label = run.schedule.stages[i].label(o)
    where, total = _progress(stats, run.problems[i].options)
    text = f"time limit reached in stage {label} ({where}) after {after} s ({limit})"
    later = [run.schedule.stages[j].label(o) for j, _ in cut[1:]]
    if later:
        text += f"; no time left for: {', '.join(later)}"
    if total is None or o.reproducible:
        return text + "; too little done to estimate the time it needs: try a larger --timeout"
    needed = elapsed - stats.seconds + total
    suggestion = max(60 * math.ceil(needed / 60), 60 * math.ceil((o.timeout + 1) / 60))
    return (f"{text}; at its pace so far the stage needs about {math.ceil(total)} s in all: "
            f"--timeout {suggestion} would let it finish on this program")


def _progress(stats, options) -> tuple[str, float | None]:
    """(how far the stage got, the seconds it needs in all at its pace so
    far, or None when it did too little to tell)."""
    if isinstance(stats, TemplateStats):
        most = options.max_diagnoses
        of = f" of at most {most}" if most else ""
        where = f"working on diagnosis {stats.diagnoses}{of}" if stats.diagnoses else "before its first diagnosis"
        if not stats.diagnoses or not most or stats.seconds <= 0:
            return where, None
        return where, stats.seconds / stats.diagnoses * most
    if isinstance(stats, MutationStats):
        space = sum(stats.space.values())
        where = f"{stats.checked} of {space} candidates of size <= {stats.max_size} checked"
        if not stats.checked or stats.seconds <= 0:
            return where, None
        return where, stats.seconds / stats.checked * space
    return "not started: its encoding outlasted the limit", None
