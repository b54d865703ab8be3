"""An assignment statement's operator as a repair site.

f1x's EXPRESSION schema (Mechtaev et al., TOSEM'18, Fig. 10) replaces the
operators inside an expression; the operator of an assignment is not one
of them.  Two common faults are one such change: an accumulation written
as a plain assignment (``soma = n;`` for ``soma += n;``) and a compound
operator of the wrong sign (Codeflaws 534-B, ``v2 -= d;`` for ``v2 +=
d;``).  The candidates of an expression statement ``l op r;`` — ``op``
one of ``=``, ``+=``, ``-=``, ``*=``, ``/=``, ``l`` of integer or floating
type, ``l`` and ``r`` without side effects — are the statement with
another of these operators (a ``*=``/``/=`` only in place of the other
one; from ``=`` only ``+=`` and ``-=``).  Each is an EXPRESSION candidate
of the statement's STMT site: its value is what it assigns to ``l``
(``l + r`` for ``+=``), and the running one assigns it in place of the
statement (:mod:`crepair.testequiv.metaprogram`'s ``__CR_R``), so
candidates assigning equal values are test-equivalent.  A change costs
one operator change, as f1x's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from crepair.testequiv.effects import side_effect_free
from crepair.typed.infer import Types
from crepair.typed.model import TypeKind

_OTHERS = {"=": ("+=", "-="), "+=": ("-=", "="), "-=": ("+=", "="), "*=": ("/=", "="), "/=": ("*=", "=")}


@dataclass(frozen=True, slots=True)
class OperatorChange:
    """One candidate: ``code``, the value the statement assigns to
    ``lhs`` (C source); ``replacement``, the whole statement's new text."""

    lhs: str
    code: str
    replacement: str


def operator_changes(node: c_ast.Node, text: str, lhs: str, rhs: str, types: Types,
                     scope: dict) -> list[OperatorChange]:
    """The candidates of the statement ``text`` (its source, ``;``
    included) whose node is ``node``; ``lhs`` and ``rhs``: the user's text
    of its two sides; ``scope``: the visible variables (name -> a
    :class:`~crepair.testequiv.scope.Var`), typed by ``types``.  Empty for
    any other statement, a side with a side effect, an ``l`` whose type is
    not arithmetic, or an operator the text does not show right after
    ``lhs``."""
    if not isinstance(node, c_ast.Assignment) or node.op not in _OTHERS:
        return []
    if not (side_effect_free(node.lvalue) and side_effect_free(node.rvalue)):
        return []
    kind = types.of(node.lvalue, {name: v.type for name, v in scope.items()}).kind
    if kind not in (TypeKind.INTEGER, TypeKind.FLOAT):
        return []
    m = re.match(rf"\s*{re.escape(lhs)}\s*({re.escape(node.op)})", text)
    if m is None:
        return []
    out = []
    for op in _OTHERS[node.op]:
        code = f"({rhs})" if op == "=" else f"({lhs}) {op[0]} ({rhs})"
        out.append(OperatorChange(lhs, code, text[:m.start(1)] + op + text[m.end(1):]))
    return out
