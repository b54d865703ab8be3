"""Simplification, unwinding, inlining and SSA: C AST -> program formula.

Follows AllRepair FM'16, Sect. 3.1 (after Clarke, Kroening, Lerda, TACAS'04):

* every branch and loop condition is assigned to a fresh Boolean, so that
  all original expressions are right-hand sides of assignments (locations);
* loops are unwound ``bound`` times; the innermost copy gets
  ``assume(!cond)``; recursive calls are inlined up to depth ``bound``;
* SSA: each assignment defines a fresh variable; at merge points the
  Φ-assignments ``x = g ? x1 : x2`` go to S_phi; an array element store
  defines a fresh array ``a' = store(a, i, g ? v : a[i])`` guarded by its
  path, so that arrays need no Φ.

The walk is a symbolic execution with a path guard per state; states are
merged after branches, loops and function bodies.  Every construct the walk
does not model raises :class:`~crepair.errors.UnsupportedConstruct`.

The encoder is split along the C constructs: :mod:`~crepair.encode.walk`
(path states), :mod:`~crepair.encode.core` (locations, merging),
:mod:`~crepair.encode.statements` (statements, loops),
:mod:`~crepair.encode.expressions` (expressions, operators),
:mod:`~crepair.encode.lvalues` (assignments, array stores),
:mod:`~crepair.encode.undefined` (checks of undefined behaviour) and
:mod:`~crepair.encode.calls` (entry, globals, calls).
"""

from __future__ import annotations

import ctypes

from crepair.encode.calls import Calls
from crepair.encode.connectives import Connectives
from crepair.encode.declared import DeclaredTypes
from crepair.encode.expressions import Expressions
from crepair.encode.formula import Checks, EncodingTooDeep, ProgramFormula, Unwinding
from crepair.encode.lvalues import Assignments
from crepair.encode.statements import Statements
from crepair.encode.walk import NEGATE, AlternativesFn, Overrides, Site, no_alternatives
from crepair.frontend.parse import CProgram

__all__ = ["NEGATE", "AlternativesFn", "Encoder", "Overrides", "Site", "encode", "no_alternatives"]


class Encoder(Calls, Statements, Assignments, Expressions, Connectives, DeclaredTypes):
    """Builds the :class:`ProgramFormula` of ``program`` from ``entry``.

    ``bound`` (≥ 0) is the unwinding bound B; ``alternatives`` gives, for
    each location, the mutants the mutation unit proposes.  ``run()``
    returns the formula; ``mutants`` maps each location index to its
    mutants (index 0 = the original).
    """


def encode(
    program: CProgram,
    *,
    bound: int,
    entry: str = "main",
    alternatives: AlternativesFn = no_alternatives,
    split_ternaries: bool = False,
    split_conditions: bool = False,
    unwinding: Unwinding = Unwinding.ASSUMPTIONS,
    checks: Checks = Checks(),
    deadline: float | None = None,
) -> tuple[ProgramFormula, dict[int, tuple[Overrides, ...]]]:
    """The program formula of ``program`` (see module docstring).

    Returns the formula and, per location index, the mutants whose terms are
    the location copies' alternatives (index 0 = original).  With
    ``split_ternaries`` a located ``c ? a : b`` (without side effects in its
    arms) becomes three locations: the condition and both arms.  With
    ``split_conditions`` a condition ``a && b`` (or ``||``, without side
    effects or checks of undefined behaviour) becomes three locations: ``a``,
    ``b`` and the operator (each operand split again), as the branches of
    C's short-circuit evaluation.
    ``unwinding`` chooses what a run cut off by the bound means (see
    :class:`~crepair.encode.formula.Unwinding`); ``checks`` which checks of
    undefined behaviour become assertions (:mod:`crepair.encode.undefined`;
    all by default).  ``deadline``: a ``time.monotonic()`` instant (None:
    none) past which the walk stops with
    :class:`~crepair.encode.formula.EncodingTimeout`.  Raises
    ``UnsupportedConstruct``/``BadInput`` for code the encoder does not model,
    ``EncodingTooDeep`` (a ``BadInput``) when it nests too deep to walk.
    """
    if bound < 0:
        raise ValueError("the unwinding bound must be >= 0")
    encoder = Encoder(
        program, bound=bound, entry=entry, alternatives=alternatives, split_ternaries=split_ternaries,
        split_conditions=split_conditions,
        unwinding=unwinding, checks=checks, deadline=deadline,
    )
    try:
        formula = encoder.run()
    except RecursionError:
        raise EncodingTooDeep(bound) from None
    except ctypes.ArgumentError as exc:  # raised in z3's ctypes call while converting its arguments
        if "RecursionError" in str(exc):
            raise EncodingTooDeep(bound) from None
        if "KeyboardInterrupt" in str(exc):
            raise KeyboardInterrupt from None
        raise
    return formula, encoder.mutants
