"""The map solver of AllRepair: SAT with native cardinality constraints.

PySAT's MiniCard holds the selection-vector constraints: for each location
exactly one selection variable (``AtMost(V_i, 1)`` and ``∨V_i``), the size
bound ``AtMost(changed, k)`` (= ``AtLeast(V_o, n-k)``, FM'16 Fig. 4 line 15)
and the blocking clauses.  MiniCard cannot retract a constraint, so when k
grows the solver is rebuilt from the clauses kept here (k changes only a few
times per run; blocking clauses learnt before stay valid).
"""

from __future__ import annotations

from collections.abc import Hashable

from pysat.formula import IDPool
from pysat.solvers import Minicard


class VarPool:
    """Maps domain objects to positive SAT variables and back (1-based)."""

    def __init__(self) -> None:
        self._pool = IDPool()

    def id(self, obj: Hashable) -> int:
        return self._pool.id(obj)

    def obj(self, var: int) -> Hashable:
        return self._pool.obj(var)


class CardinalitySolver:
    """Enumerates selection vectors with at most ``k`` changed locations.

    ``clauses``: CNF clauses (lists of non-zero ints); ``exactly_one``: one
    literal group per location; ``changed``: the literals "location i is
    changed"; ``k``: the size bound.  ``next_sv`` returns the set of true
    variables of a model, or None when no sv of size ≤ k is left.
    """

    def __init__(self, clauses: list[list[int]], exactly_one: list[list[int]], changed: list[int], k: int):
        self._clauses = [list(c) for c in clauses]
        self._groups = [list(g) for g in exactly_one]
        self._changed = list(changed)
        self._k = k
        self._solver = self._build(k)
        self._unbounded: Minicard | None = None

    def _build(self, k: int | None) -> Minicard:
        solver = Minicard()
        for clause in self._clauses:
            solver.add_clause(clause)
        for group in self._groups:
            solver.add_atmost(group, 1)
        if k is not None:
            solver.add_atmost(self._changed, k)
        return solver

    def set_size(self, k: int) -> None:
        """Allow svs of size ≤ ``k`` from now on (k only grows)."""
        self._solver.delete()
        self._k = k
        self._solver = self._build(k)

    def next_sv(self) -> set[int] | None:
        if not self._solver.solve():
            return None
        return {lit for lit in self._solver.get_model() if lit > 0}

    def block(self, clause: list[int]) -> None:
        """Add a blocking clause to every later query."""
        self._clauses.append(list(clause))
        self._solver.add_clause(clause)

    def any_left(self) -> bool:
        """Is there an unexplored sv of any size (FM'16 Fig. 4 line 18)?"""
        with self._build(None) as solver:
            return solver.solve()

    def close(self) -> None:
        """Free the native solver (also done by ``with``)."""
        if self._solver is not None:
            self._solver.delete()
            self._solver = None

    def __enter__(self) -> "CardinalitySolver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
