"""A check by Bitwuzla, or by Bitwuzla and z3 at once (a portfolio: the
first decided answer wins), for :class:`crepair.solver.smt.SmtSolver`.

z3 checks in the calling thread and Bitwuzla in its own
(:class:`~crepair.solver.bzla.BitwuzlaRun`); both release the GIL while
they solve.  The first SAT or UNSAT stops the other: Bitwuzla's answer
interrupts z3's check (only while it runs), z3's cancels Bitwuzla's.  Two
decided answers that differ are a bug in a solver or in the translation
between them: :class:`SolverDisagreement` says so, never a verdict.
An UNKNOWN of one solver is never taken over a decided answer of the other.

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
from crepair.solver.smt import Verdict

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
    model when SAT."""

    verdict: Verdict
    solver: str = ""
    reason: str = ""
    model: z3.ModelRef | None = None


class _Gate:
    """Interrupts z3's check only while it runs (an interrupt between
    checks must not reach the next one)."""

    def __init__(self, ctx: z3.Context):
        self._ctx = ctx
        self._lock = threading.Lock()
        self._open = False

    def __enter__(self) -> "_Gate":
        with self._lock:
            self._open = True
        return self

    def __exit__(self, *exc) -> None:
        with self._lock:
            self._open = False

    def interrupt(self) -> None:
        with self._lock:
            if self._open:
                self._ctx.interrupt()


def decide(solver: z3.Solver, z3_check: Callable[[], z3.CheckSatResult], seconds: float | None, seed: int = 0,
           with_z3: bool = True) -> Decision:
    """Check the assertions of the z3 ``solver`` with Bitwuzla, and at once
    with ``z3_check`` (a check of ``solver`` under its limits) when
    ``with_z3``.  ``seconds``: Bitwuzla's time limit (None: none).  Without
    ``with_z3``, z3 checks only when Bitwuzla cannot read the formula (its
    parser's error) and then decides.  Raises ``KeyboardInterrupt`` on
    Ctrl-C (both stopped), :class:`SolverDisagreement` when the solvers
    contradict each other.  ``solver`` keeps its assertions."""
    assertions = list(solver.assertions())
    gate = _Gate(solver.ctx)
    run = bzla.BitwuzlaRun(bzla.smt2_text(assertions), seconds, seed, gate.interrupt if with_z3 else None)
    mine, why = Verdict.UNKNOWN, ""
    end = None if seconds is None else time.monotonic() + seconds + bzla.STOP_GRACE
    with run:  # leaving it cancels Bitwuzla's check and joins its thread, also on Ctrl-C
        if with_z3:
            with gate:
                mine = _verdict(z3_check())
            why = solver.reason_unknown() if mine == Verdict.UNKNOWN else ""
        while mine == Verdict.UNKNOWN and not run.done.wait(0.1):
            if end is not None and time.monotonic() > end:
                break
    interrupt.stop_if_requested()
    theirs = run.verdict if run.done.is_set() else Verdict.UNKNOWN  # one that did not stop in time: no answer
    if Verdict.UNKNOWN not in (mine, theirs) and mine != theirs:
        raise SolverDisagreement(f"z3 answers {mine.value}, Bitwuzla {theirs.value}, on the same formula")
    if mine != Verdict.UNKNOWN:
        return Decision(mine, "z3", "", solver.model() if mine == Verdict.SAT else None)
    if theirs == Verdict.UNSAT:
        return Decision(theirs, "bitwuzla")
    if theirs == Verdict.SAT:
        model = _completed(run.values, assertions, solver)
        if model is None:
            return Decision(Verdict.UNKNOWN, "", "z3 rejects Bitwuzla's model")
        return Decision(theirs, "bitwuzla", "", model)
    if not with_z3 and run.unreadable:  # a formula Bitwuzla cannot read: z3 decides
        mine = _verdict(z3_check())
        interrupt.stop_if_requested()
        if mine == Verdict.UNKNOWN:
            return Decision(mine, "", f"{solver.reason_unknown()} (z3; {run.reason})")
        return Decision(mine, "z3", "", solver.model() if mine == Verdict.SAT else None)
    reason = run.reason if not with_z3 else f"z3: {why or 'unknown'}; bitwuzla: {run.reason}"
    return Decision(Verdict.UNKNOWN, "", reason)


def _completed(values, assertions: list[z3.BoolRef], solver: z3.Solver) -> z3.ModelRef | None:
    """Bitwuzla's ``values`` as a z3 model of ``assertions``, completed by
    z3 where its evaluation rejects them (module docstring); None if z3
    finds none within :data:`COMPLETION_ROUNDS` checks."""
    model = bzla.model_of(values)
    if bzla.satisfies(model, assertions):
        return model
    assumed = bzla.equalities(values)
    for _ in range(COMPLETION_ROUNDS):
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
