"""A check by Bitwuzla, or by Bitwuzla and z3 at once (a portfolio: the
first decided answer wins), for :class:`crepair.solver.smt.SmtSolver`.

Bitwuzla checks in a thread of its own (:class:`~crepair.solver.bzla.BitwuzlaRun`)
and, in the portfolio, z3 in another, on a copy of the solver in a z3
context of its own (:class:`_Z3Run`): z3 does not always stop when
interrupted (a large formula being simplified or bit-blasted), and a copy
in its own context can be left to stop by itself while the calling thread
goes on with z3.  Both release the GIL while they solve.  The first SAT or
UNSAT stops the other (interrupts z3's check, cancels Bitwuzla's), which
gets :data:`bzla.STOP_GRACE` seconds to stop; an answer it gives by then
is compared: two decided answers that differ are a bug in a solver or in
the translation between them, :class:`SolverDisagreement` says so, never a
verdict.  An UNKNOWN of one solver is never taken over a decided answer of
the other.

A SAT answer of Bitwuzla becomes a z3 model (:func:`bzla.model_of`); when
z3's evaluation finds an assertion false under it (a value SMT-LIB leaves
open, e.g. which NaN), z3 completes it: the values are assumed, those in an
unsat core dropped, and z3 checks again, a few times at most.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import z3

from crepair import interrupt
from crepair.errors import InternalError
from crepair.solver import bzla
from crepair.solver.smt import WATCHDOG_GRACE, Verdict

#: seconds past the time limit the caller waits for an answer (then both get bzla.STOP_GRACE to stop): the
#: command line's hard stop comes 1 s past --timeout
WAIT_GRACE = 0.25
#: rounds of z3's completion of a Bitwuzla model that z3's evaluation rejects
COMPLETION_ROUNDS = 4


def _verdict(result: z3.CheckSatResult) -> Verdict:
    return Verdict.SAT if result == z3.sat else Verdict.UNSAT if result == z3.unsat else Verdict.UNKNOWN


class SolverDisagreement(InternalError):
    """z3 and Bitwuzla gave opposite decided answers to one check (a bug:
    the message names both answers)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """The answer of one check: ``solver`` is "z3" or "bitwuzla" (the one
    that decided; "" when UNKNOWN), ``reason`` why UNKNOWN, ``model`` a z3
    model (of the main context) when SAT."""

    verdict: Verdict
    solver: str = ""
    reason: str = ""
    model: z3.ModelRef | None = None


class _Z3Run:
    """z3's check of a copy of ``solver`` in a context of its own, in a
    thread (``seconds``: its time limit, None: none; a watchdog interrupts
    it :data:`WATCHDOG_GRACE` seconds later).  ``on_decided`` is called
    from the thread on SAT or UNSAT.  Read ``verdict``, ``reason`` and
    :meth:`model` once ``done`` is set."""

    def __init__(self, solver: z3.Solver, seconds: float | None, seed: int, on_decided: Callable[[], None]):
        self._ctx = z3.Context()
        self._twin = solver.translate(self._ctx)
        self._twin.set("random_seed", seed)
        if seconds is not None:
            self._twin.set("timeout", max(1, int(seconds * 1000)))
        self._seconds = seconds
        self._on_decided = on_decided
        self.done = threading.Event()
        self.verdict, self.reason = Verdict.UNKNOWN, "not run"
        self._thread = threading.Thread(target=self._run, name="crepair-z3", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def interrupt(self) -> None:
        self._ctx.interrupt()

    def join(self, timeout: float | None) -> bool:
        self._thread.join(timeout)
        return self.done.is_set()

    def _run(self) -> None:
        watchdog = None
        if self._seconds is not None:
            watchdog = threading.Timer(self._seconds + WATCHDOG_GRACE, self._ctx.interrupt)
            watchdog.daemon = True
            watchdog.start()
        try:
            self.verdict = _verdict(self._twin.check())
            self.reason = "" if self.verdict != Verdict.UNKNOWN else self._twin.reason_unknown() or "unknown"
        except z3.Z3Exception as exc:  # e.g. memory: unknown, with the reason
            self.verdict, self.reason = Verdict.UNKNOWN, f"z3: {exc}"
        finally:
            if watchdog is not None:
                watchdog.cancel()
            self.done.set()
        if self.verdict != Verdict.UNKNOWN:
            self._on_decided()

    def model(self) -> z3.ModelRef:
        """The model of a SAT check, in the main context."""
        return self._twin.model().translate(z3.main_ctx())


def decide(solver: z3.Solver, z3_check: Callable[[], z3.CheckSatResult], seconds: float | None, seed: int = 0,
           with_z3: bool = True) -> Decision:
    """Check the assertions of the z3 ``solver`` with Bitwuzla, and at once
    with z3 (on a copy, :class:`_Z3Run`) when ``with_z3``.  ``seconds``:
    the time limit of each (None: none).  Without ``with_z3``, z3 checks
    (``z3_check``: a check of ``solver`` under its limits, in this thread)
    only when Bitwuzla cannot read the formula (its parser's error), and
    then decides.  Raises ``KeyboardInterrupt`` on Ctrl-C (both stopped),
    :class:`SolverDisagreement` when the solvers contradict each other.
    ``solver`` keeps its assertions."""
    started, limit = time.monotonic(), seconds
    assertions = list(solver.assertions())
    text = bzla.smt2_text(assertions)
    if seconds is not None:  # printing a large formula takes seconds of the limit too
        seconds -= time.monotonic() - started
        if seconds <= 0:
            return Decision(Verdict.UNKNOWN, "", "timeout")
    wake = threading.Event()
    z3run: _Z3Run | None = None
    run = bzla.BitwuzlaRun(text, seconds, seed, lambda: _first(z3run, wake))
    if with_z3:
        z3run = _Z3Run(solver, seconds, seed, lambda: _first(run, wake))
    end = None if seconds is None else time.monotonic() + seconds + WAIT_GRACE
    run.start()
    if z3run is not None:
        z3run.start()
    try:
        while not _over(run, z3run, end):
            wake.wait(0.05)
    finally:  # the first answer, Ctrl-C or the time limit: stop both, wait a little for the other's answer
        run.cancel()
        if z3run is not None:
            z3run.interrupt()
        left = time.monotonic() + bzla.STOP_GRACE
        run.join(max(0.0, left - time.monotonic()))
        if z3run is not None:
            z3run.join(max(0.0, left - time.monotonic()))
    interrupt.stop_if_requested()
    mine = z3run.verdict if z3run is not None and z3run.done.is_set() else Verdict.UNKNOWN
    theirs = run.verdict if run.done.is_set() else Verdict.UNKNOWN  # one that did not stop in time: no answer
    if Verdict.UNKNOWN not in (mine, theirs) and mine != theirs:
        raise SolverDisagreement(f"z3 answers {mine.value}, Bitwuzla {theirs.value}, on the same formula")
    if mine != Verdict.UNKNOWN:
        return Decision(mine, "z3", "", z3run.model() if mine == Verdict.SAT else None)
    if theirs == Verdict.UNSAT:
        return Decision(theirs, "bitwuzla")
    if theirs == Verdict.SAT:
        model = _completed(run.values, assertions, solver, end)
        if limit is not None:  # the completion's rounds had the time left: the solver keeps its own limit
            solver.set("timeout", max(1, int(limit * 1000)))
        if model is None:
            late = end is not None and time.monotonic() >= end
            return Decision(Verdict.UNKNOWN, "", "timeout (z3 completing Bitwuzla's model)" if late
                            else "z3 rejects Bitwuzla's model")
        return Decision(theirs, "bitwuzla", "", model)
    if z3run is None and run.unreadable:  # a formula Bitwuzla cannot read: z3 decides
        mine = _verdict(z3_check())
        interrupt.stop_if_requested()
        if mine == Verdict.UNKNOWN:
            return Decision(mine, "", f"{solver.reason_unknown()} (z3; {run.reason})")
        return Decision(mine, "z3", "", solver.model() if mine == Verdict.SAT else None)
    if z3run is None:
        return Decision(Verdict.UNKNOWN, "", run.reason if run.done.is_set() else "timeout")
    why = z3run.reason if z3run.done.is_set() else "timeout"
    return Decision(Verdict.UNKNOWN, "", f"z3: {why}; bitwuzla: {run.reason if run.done.is_set() else 'timeout'}")


def _first(other, wake: threading.Event) -> None:
    """A solver decided: stop ``other`` (None: none), wake the caller."""
    if isinstance(other, bzla.BitwuzlaRun):
        other.cancel()
    elif other is not None:
        other.interrupt()
    wake.set()


def _over(run: bzla.BitwuzlaRun, z3run: _Z3Run | None, end: float | None) -> bool:
    """Whether the caller stops waiting: a decided answer, both done, Ctrl-C, or past ``end``."""
    runs = [r for r in (run, z3run) if r is not None]
    if any(r.done.is_set() and r.verdict != Verdict.UNKNOWN for r in runs) or all(r.done.is_set() for r in runs):
        return True
    return interrupt.requested() or (end is not None and time.monotonic() > end)


def _completed(values, assertions: list[z3.BoolRef], solver: z3.Solver, end: float | None) -> z3.ModelRef | None:
    """Bitwuzla's ``values`` as a z3 model of ``assertions``, completed by
    z3 where its evaluation rejects them (module docstring); None if z3
    finds none within :data:`COMPLETION_ROUNDS` checks or before ``end``
    (monotonic seconds; None: no limit), the check's own time limit: each
    round gets the time left (they had the whole limit each, and a run
    went 24 s past its --timeout)."""
    model = bzla.model_of(values)
    if bzla.satisfies(model, assertions):
        return model
    assumed = bzla.equalities(values)
    for _ in range(COMPLETION_ROUNDS):
        if end is not None:
            left = end - time.monotonic()
            if left <= 0:
                return None
            solver.set("timeout", max(1, int(left * 1000)))
        answer = solver.check(*assumed)
        if answer == z3.sat:
            return solver.model()
        if answer != z3.unsat:
            return None
        core = {c.get_id() for c in solver.unsat_core()}
        if not core:
            return None
        assumed = [a for a in assumed if a.get_id() not in core]
    return None
