"""What a repair run cut off by its time limit says: which stage the limit
cut, how far that stage got, and — extrapolated from its pace so far —
which ``--timeout`` would let it finish on this program.

The estimate is only the pace so far carried over the rest of the stage's
work (mutation: the candidates of its search space, of which pruning may
skip many; templates: the diagnoses still allowed, which may be fewer), so
it is given as "about", rounded up to a whole minute.
"""

from __future__ import annotations

import math
import time

from crepair.records import StopReason
from crepair.run_record import MutationStats, TemplateStats


def time_limit_note(run, now: float | None = None) -> str | None:
    """One line for a run whose time limit cut a stage (None otherwise).

    ``run`` is a finished :class:`~crepair.schemes.run.RepairRun`; ``now``
    a ``time.monotonic()`` instant (default: now), to measure the run's
    elapsed seconds from ``run.problem.start``."""
    o = run.options
    cut = [(i, s) for i, s in enumerate(run.schemes)
           if s not in run.skipped and s.stats.stopped == StopReason.TIMEOUT]
    if not cut or not o.timeout:
        return None
    i, scheme = cut[0]
    stats = scheme.stats
    label = run.schedule.stages[i].label(o)
    elapsed = (time.monotonic() if now is None else now) - run.problem.start
    limit = f"--timeout {o.timeout:g}" + (" (resource units)" if o.reproducible else " s")
    where, total = _progress(stats, run.problems[i].options)
    text = f"time limit reached in stage {label} ({where}) after {elapsed:.0f} s ({limit})"
    later = [run.schedule.stages[j].label(o) for j, _ in cut[1:]]
    if later:
        text += f"; no time left for: {', '.join(later)}"
    if total is None or o.reproducible:
        return text + "; too little done to estimate the time it needs: try a larger --timeout"
    needed = elapsed - stats.seconds + total
    suggestion = max(60 * math.ceil(needed / 60), 60 * math.ceil((o.timeout + 1) / 60))
    return (f"{text}; at its pace so far the stage needs about {total:.0f} s in all: "
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
