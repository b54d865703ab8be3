"""The one package that talks to z3, Bitwuzla and PySAT (STYLE.md, convention 4).

``smt`` is the term factory and the SMT-solver wrapper; ``bzla`` and
``portfolio`` let Bitwuzla decide its checks, alone or racing z3; ``sat`` holds the
SAT solver with cardinality constraints (MiniCard) used by AllRepair and
the hitting-set enumerator.  Every solver outside this package comes from
the factories below, which apply a run's :class:`Limits` (deadline,
deterministic resource limit per check, the run's resource budget, seed).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from typing import TYPE_CHECKING

from crepair.solver.optimizer import Optimizer
from crepair.solver.smt import Backend, SmtSolver, Verdict

if TYPE_CHECKING:  # PySAT is imported on first use: verification needs no SAT solver
    from crepair.solver.sat import CardinalitySolver


#: z3 resource units per second of solver work on the calibration machine
#: (z3 5.4 on TCAS's template and mutation checks, nproc 2 AMD EPYC:
#: 433 M units in 63 s of checks) -- the exchange rate of reproducible runs
UNITS_PER_SECOND = 7_000_000
#: in a reproducible run, the wall clock stops the run only at this many
#: times its time limit (a safety net for work z3 does not count)
WALL_CLOCK_SAFETY = 10


class Ledger:
    """A budget of ``units`` z3 resource units shared by every check of a
    run (or of one part of it, whose spending is charged to its ``parent``
    too).  z3 counts its work in these units deterministically, so a run
    that stops when its ledger is spent stops at the same point on any
    machine and under any load, unlike a wall-clock deadline."""

    __slots__ = ("units", "spent", "parent")

    def __init__(self, units: int, parent: "Ledger | None" = None):
        self.units = units
        self.spent = 0
        self.parent = parent

    def left(self) -> int:
        """Units left here and in every ancestor (≤ 0: spent)."""
        own = self.units - self.spent
        return own if self.parent is None else min(own, self.parent.left())

    def spend(self, units: int) -> None:
        self.spent += units
        if self.parent is not None:
            self.parent.spend(units)


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of every check of one run.

    ``deadline``: a ``time.monotonic()`` instant after which checks answer
    UNKNOWN (None: no time limit); ``rlimit``: z3 resource units per check
    (deterministic; None: none; tests use it to force UNKNOWN); ``seed``:
    the solvers' random seed; ``ledger``: the run's budget of z3 resource
    units (reproducible runs, :meth:`after`; None: none), after which
    checks answer UNKNOWN and :meth:`expired` is true; ``backend``: the
    SMT solver that decides checks without assumptions (:class:`Backend`).
    """

    deadline: float | None = None
    rlimit: int | None = None
    seed: int = 0
    ledger: Ledger | None = None
    backend: Backend = Backend.Z3

    @staticmethod
    def after(seconds: float | None, rlimit: int | None = None, reproducible: bool = False,
              started: float | None = None, backend: Backend = Backend.Z3) -> "Limits":
        """Limits with a deadline ``seconds`` from now, or from the
        ``time.monotonic()`` instant ``started`` (None: no limit).  With
        ``reproducible``, the limit is counted in z3 resource units instead
        (``seconds`` × :data:`UNITS_PER_SECOND`), and the deadline, a
        safety net, is :data:`WALL_CLOCK_SAFETY` times as far."""
        if seconds is None:
            return Limits(None, rlimit, backend=backend)
        start = time.monotonic() if started is None else started
        if reproducible:
            return Limits(start + WALL_CLOCK_SAFETY * seconds, rlimit,
                          ledger=Ledger(int(seconds * UNITS_PER_SECOND)), backend=backend)
        return Limits(start + seconds, rlimit, backend=backend)

    def seconds_left(self) -> float | None:
        """Seconds until the deadline, at least a millisecond (None: none)."""
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.001)

    def expired(self) -> bool:
        """The deadline has passed or the ledger is spent."""
        if self.ledger is not None and self.ledger.left() <= 0:
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def within(self, seconds: float | None) -> "Limits":
        """These limits, with the deadline at most ``seconds`` from now (in
        a reproducible run: a ledger of ``seconds``' worth of units that
        also charges this one, and the safety deadline)."""
        if seconds is None:
            return self
        reproducible = self.ledger is not None
        deadline = time.monotonic() + seconds * (WALL_CLOCK_SAFETY if reproducible else 1)
        if self.deadline is not None:
            deadline = min(deadline, self.deadline)
        ledger = Ledger(int(seconds * UNITS_PER_SECOND), self.ledger) if reproducible else None
        return Limits(deadline, self.rlimit, self.seed, ledger, self.backend)


def smt_solver(limits: Limits) -> SmtSolver:
    """A fresh incremental SMT solver under ``limits`` (its time limit is
    the time left until the deadline)."""
    return SmtSolver(timeout=limits.seconds_left(), seed=limits.seed, rlimit=limits.rlimit, ledger=limits.ledger,
                     deadline=limits.deadline, backend=limits.backend)


def optimizer_solver(limits: Limits) -> Optimizer:
    """A fresh :class:`~crepair.solver.optimizer.Optimizer` under ``limits``."""
    return Optimizer(timeout=limits.seconds_left(), seed=limits.seed, rlimit=limits.rlimit, ledger=limits.ledger)


def cardinality_solver(
    clauses: Sequence[Sequence[int]], exactly_one: Sequence[Sequence[int]], changed: Sequence[int], k: int
) -> CardinalitySolver:
    """A MiniCard solver over selection vectors (use it in a ``with`` block)."""
    from crepair.solver.sat import CardinalitySolver

    return CardinalitySolver([list(c) for c in clauses], [list(g) for g in exactly_one], list(changed), k)


__all__ = ["UNITS_PER_SECOND", "WALL_CLOCK_SAFETY", "Backend", "Ledger", "Limits", "Optimizer", "SmtSolver", "Verdict",
           "cardinality_solver", "optimizer_solver", "smt_solver"]
