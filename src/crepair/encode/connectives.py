"""Conditions ``a && b`` / ``a || b`` as separate locations (mutation scheme).

C evaluates ``a && b`` as two branches (C11 6.5.13: a sequence point after
``a``): ``a``, ``b`` and the operator each become a location, so a repair
may change one comparison of a compound condition and another one (size
2), or the operator alone.  This departs from FM'16 (Rothenberg &
Grumberg, Sect. 3.1-3.2), where a whole condition is one guard assignment
and its alternative set holds single mutations only, so two mutations in
one condition are outside the paper's space at any size.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode.core import EncoderCore
from crepair.encode.formula import LocationKind
from crepair.encode.ops import Value, bool_value
from crepair.encode.walk import Ctx, State, has_effects
from crepair.solver import smt


class Connectives(EncoderCore):
    """The splitting of conditions, used by ``EncoderCore._located`` when
    the encoder was built with ``split_conditions``."""

    def _splits(self, root: c_ast.Node, state: State) -> bool:
        """Whether the condition ``root`` is an ``&&``/``||`` whose operands
        become locations of their own (C evaluates ``a && b`` as two
        branches, C11 6.5.13).  Only without
        side effects and without checks of undefined behaviour in the
        operands, whose evaluation guard would depend on the operator's
        mutant."""
        if not (isinstance(root, c_ast.BinaryOp) and root.op in ("&&", "||")) or has_effects(root):
            return False
        probe = Ctx(state.fork(), {}, {}, True, [])
        self._expr(root, probe)
        return not probe.checks

    def _located_connective(self, root: c_ast.BinaryOp, state: State, kind: LocationKind,
                            name: str) -> tuple[smt.Term, State]:
        """``a && b`` (or ``||``) as three locations: ``a``, ``b`` (each
        split again if it is one) and the operator, whose alternatives
        combine the operands' variables (``&&`` or ``||``)."""
        a, state = self._located(root.left, state, kind, None, name=name)
        b, state = self._located(root.right, state, kind, None, name=name)

        def combine(ctx: Ctx) -> Value:
            return bool_value(smt.And(a, b) if ctx.overrides.get(root, root.op) == "&&" else smt.Or(a, b))

        return self._located(root, state, kind, None, value_of=combine, name=name, connective=True)
