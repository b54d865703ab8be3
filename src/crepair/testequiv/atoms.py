"""Atoms: the comparisons f1x puts in conditions, guards and refinements.

An atom is ``x op y``, ``x op c`` (``op`` relational, ``x``, ``y`` visible
integer variables, ``c`` a constant of the site or f1x's condition
parameter ``0..max_condition_parameter``) or ``p == NULL``, ``p != NULL``
(Mechtaev et al., TOSEM'18, Fig. 10 and §5).
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from crepair.testequiv.candidates import PARAM
from crepair.testequiv.exprs import RELATIONAL
from crepair.testequiv.scope import Var


class Atom(NamedTuple):
    """``left op right``; ``param``: f1x's condition parameter when
    ``right`` spells it (the meta-program reads it from a table, so its
    ``code`` names :data:`PARAM`)."""

    left: str
    op: str
    right: str
    param: int | None = None

    @property
    def text(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    @property
    def code(self) -> str:
        return self.text if self.param is None else f"{self.left} {self.op} {PARAM}"


def site_atoms(ints: list[Var], ptrs: list[Var], consts, null: str, max_parameter: int) -> list[Atom]:
    """The atoms: ``x op y``, ``x op c`` for the site's constants, ``x op
    k`` for ``k`` in ``0..max_parameter`` (f1x's condition parameter, its
    ``maxConditionParameter``) and pointer null checks."""
    names = sorted(v.name for v in ints)
    out = [Atom(x, op, y) for x, y in combinations(names, 2) for op in RELATIONAL]
    out += [Atom(x, op, spelling) for x in names for _, spelling in consts for op in RELATIONAL]
    spelled = {value for value, _ in consts}
    out += [Atom(x, op, str(k), k) for x in names for k in range(max_parameter + 1) if k not in spelled
            for op in RELATIONAL]
    out += [Atom(p.name, op, null) for p in sorted(ptrs, key=lambda v: v.name) for op in ("==", "!=")]
    return out


def is_concrete(operand: str, null: str) -> bool:
    """Whether an atom's right operand is a constant or the null pointer:
    f1x gives no preference to concretization (a constant where a variable
    could be), so ``x op c`` costs 0.2 more than ``x op y``."""
    return operand == null or not operand.isidentifier()
