"""Array terms built with z3's lambdas (the encoder's bulk updates).

>>> from crepair.solver import smt
>>> a = smt.K(smt.BitVecSort(32), smt.BitVecVal(0, 8))
>>> b = fill(a, smt.BitVecVal(2, 32), smt.BitVecVal(3, 32), smt.BitVecVal(7, 8))
>>> [smt.simplify(smt.Select(b, smt.BitVecVal(i, 32))).as_long() for i in range(6)]
[0, 0, 7, 7, 7, 0]
"""

from __future__ import annotations

import z3


def fill(array: z3.ArrayRef, start: z3.ExprRef, count: z3.ExprRef, value: z3.ExprRef) -> z3.ArrayRef:
    """``array`` with elements ``start .. start + count - 1`` (32-bit
    indices, signed) set to ``value``; the other elements unchanged."""
    i = z3.BitVec("fill$i", 32)
    inside = z3.And(i >= start, i < start + count)
    return z3.Lambda([i], z3.If(inside, value, z3.Select(array, i)))
