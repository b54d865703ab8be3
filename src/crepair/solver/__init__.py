"""The one package that talks to z3 and PySAT (STYLE.md, convention 4).

``smt`` is the term factory and the SMT-solver wrapper; ``sat`` holds the
SAT solver with cardinality constraints (MiniCard) used by AllRepair.
"""

from crepair.solver.smt import SmtSolver, Verdict

__all__ = ["SmtSolver", "Verdict"]
