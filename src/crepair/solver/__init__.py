"""The one package that talks to z3 and PySAT (STYLE.md, convention 4).

``smt`` is the term factory and the SMT-solver wrapper; ``sat`` holds the
SAT solver with cardinality constraints (MiniCard) used by AllRepair and
the hitting-set enumerator.  Every solver outside this package comes from
the factories below, which apply a run's :class:`Limits` (deadline,
deterministic resource limit, seed).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from typing import TYPE_CHECKING

from crepair.solver.smt import Optimizer, SmtSolver, Verdict

if TYPE_CHECKING:  # PySAT is imported on first use: verification needs no SAT solver
    from crepair.solver.sat import CardinalitySolver


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of every check of one run.

    ``deadline``: a ``time.monotonic()`` instant after which checks answer
    UNKNOWN (None: no time limit); ``rlimit``: z3 resource units per check
    (deterministic; None: none; tests use it to force UNKNOWN); ``seed``:
    the solvers' random seed.
    """

    deadline: float | None = None
    rlimit: int | None = None
    seed: int = 0

    @staticmethod
    def after(seconds: float | None, rlimit: int | None = None) -> "Limits":
        """Limits with a deadline ``seconds`` from now (None: none)."""
        return Limits(None if seconds is None else time.monotonic() + seconds, rlimit)

    def seconds_left(self) -> float | None:
        """Seconds until the deadline, at least a millisecond (None: none)."""
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.001)

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def within(self, seconds: float | None) -> "Limits":
        """These limits, with the deadline at most ``seconds`` from now."""
        if seconds is None:
            return self
        deadline = time.monotonic() + seconds
        if self.deadline is not None:
            deadline = min(deadline, self.deadline)
        return Limits(deadline, self.rlimit, self.seed)


def smt_solver(limits: Limits) -> SmtSolver:
    """A fresh incremental SMT solver under ``limits`` (its time limit is
    the time left until the deadline)."""
    return SmtSolver(timeout=limits.seconds_left(), seed=limits.seed, rlimit=limits.rlimit)


def optimizer(limits: Limits) -> Optimizer:
    """A fresh :class:`~crepair.solver.smt.Optimizer` under ``limits``."""
    return Optimizer(timeout=limits.seconds_left(), seed=limits.seed, rlimit=limits.rlimit)


def cardinality_solver(
    clauses: Sequence[Sequence[int]], exactly_one: Sequence[Sequence[int]], changed: Sequence[int], k: int
) -> CardinalitySolver:
    """A MiniCard solver over selection vectors (use it in a ``with`` block)."""
    from crepair.solver.sat import CardinalitySolver

    return CardinalitySolver([list(c) for c in clauses], [list(g) for g in exactly_one], list(changed), k)


__all__ = ["Limits", "Optimizer", "SmtSolver", "Verdict", "cardinality_solver",
           "optimizer", "smt_solver"]
