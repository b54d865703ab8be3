"""The mutation unit of AllRepair (FM'16, Sect. 3.2 and Table 1).

For each location the unit builds the alternative set S_i: the original
expression and every expression that differs from it by exactly one
mutation of one operator or constant.  Two mutation levels, as implemented
by AllRepair's authors:

* level 1: ``>=``→``>``, ``<=``→``<``, ``>``→``>=``, ``<``→``<=``,
  ``+``↔``-``, ``/``↔``%``, ``&&``↔``||``, ``&``→``|``,``^``;
  ``|``→``&``,``^``; ``^``→``&``,``|``; ``>>``↔``<<``;
* level 2 adds every relational operator to every other one, ``+``,``-``→``*``,
  ``*``→``+``,``-``, ``==``↔``!=``, and integer constants c→c+1, c−1, 0
  (when c∉{0,1,−1}), −c (when c≠0).  A value used as a truth value (a
  condition, an operand of ``&&``/``||``/``!``, a ``?:`` condition) is the
  comparison ``e != 0`` of C's semantics — and of the goto programs AllRepair
  mutates — so level 2 also mutates it to ``e == 0`` (printed ``!e``).

In the mutation scheme a branch or loop condition ``a && b`` (or ``||``)
is three locations, the branches of C's short-circuit evaluation: ``a``,
``b`` and the operator; so ``1<m && n<16`` has the size-2 repair
``1<=m && n<=16``, which FM'16 (one location per condition) cannot reach
(:mod:`crepair.encode.connectives`).

Compound assignments (``x += e``) mutate their operator like the binary one.
The specification is never mutated: ``main``, ``AllRepair_correct_*`` and
the functions the user names; assertions and assumptions are not locations.

>>> sorted(LEVEL_1_OPERATORS[">"])
['>=']
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode.formula import LocationKind
from crepair.encode.ops import parse_int_literal
from crepair.encode.symex import NEGATE, Site
from crepair.frontend.parse import CProgram
from crepair.mutation.macros import MacroBodies, MacroBody


def is_specification(function: str, no_mutate: frozenset[str] = frozenset(), mutate_main: bool = False) -> bool:
    """Whether ``function`` belongs to the specification (never changed):
    ``main`` (unless ``mutate_main``), ``AllRepair_correct_*`` or one of
    ``no_mutate``.  Assertions and assumptions are never locations."""
    return (
        (function == "main" and not mutate_main) or function.startswith("AllRepair_correct_") or function in no_mutate
    )


class MutationLevel(enum.IntEnum):
    """AllRepair's mutation levels (Table 1)."""

    LEVEL_1 = 1
    LEVEL_2 = 2


LEVEL_1_OPERATORS: dict[str, tuple[str, ...]] = {
    ">=": (">",), "<=": ("<",), ">": (">=",), "<": ("<=",),
    "+": ("-",), "-": ("+",), "/": ("%",), "%": ("/",),
    "&&": ("||",), "||": ("&&",),
    "&": ("|", "^"), "|": ("&", "^"), "^": ("&", "|"),
    ">>": ("<<",), "<<": (">>",),
}

_RELATIONAL = ("<", "<=", ">", ">=")
LEVEL_2_OPERATORS: dict[str, tuple[str, ...]] = {
    **{op: tuple(o for o in _RELATIONAL if o != op) for op in _RELATIONAL},
    "==": ("!=",), "!=": ("==",),
    "+": ("-", "*"), "-": ("+", "*"), "*": ("+", "-"),
    "/": ("%",), "%": ("/",),
    "&&": ("||",), "||": ("&&",),
    "&": ("|", "^"), "|": ("&", "^"), "^": ("&", "|"),
    ">>": ("<<",), "<<": (">>",),
}

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


def constant_mutations(c: int) -> list[int]:
    """Level-2 constant manipulations of ``c``, without duplicates, in the
    order c+1, c−1, 0, −c."""
    out = [c + 1, c - 1]
    if c not in (0, 1, -1):
        out.append(0)
    if c != 0:
        out.append(-c)
    seen: list[int] = []
    for v in out:
        if v != c and v not in seen:
            seen.append(v)
    return seen


@dataclass(frozen=True, slots=True)
class Mutation:
    """One mutation: replace ``old_text`` at ``start:end`` (0-based offsets
    of the original file) by ``new_text``.  ``node`` and ``new`` are what
    the encoder overrides (an operator string or a constant value).
    ``macro`` is the macro whose ``#define`` body the edit changes (the
    token came out of its single expansion), else None."""

    node: c_ast.Node
    new: "str | int"
    start: int
    end: int
    old_text: str
    new_text: str
    macro: "MacroBody | None" = None


class Mutant(dict):
    """The overrides of one mutant (node -> new operator or constant), with
    the :class:`Mutation` it applies."""

    def __init__(self, mutation: Mutation):
        super().__init__({mutation.node: mutation.new})
        self.mutation = mutation

    __hash__ = object.__hash__


class MutationUnit:
    """Proposes the alternative set of every location (callable on a Site).

    ``no_mutate`` adds function names to the specification (never mutated);
    ``mutate_main`` lets the code of ``main`` (not its assertions) change.
    """

    def __init__(
        self, program: CProgram, level: MutationLevel, no_mutate: frozenset[str] = frozenset(),
        mutate_main: bool = False
    ):
        self._program = program
        self._level = level
        self._no_mutate = no_mutate
        self._mutate_main = mutate_main
        self._macros = MacroBodies(program)

    def is_specification(self, function: str) -> bool:
        return is_specification(function, self._no_mutate, self._mutate_main)

    def __call__(self, site: Site) -> list[dict]:
        if self.is_specification(site.function):
            return [{}]
        if site.connective:  # the operator alone: its operands are locations of their own
            table = LEVEL_2_OPERATORS if self._level >= MutationLevel.LEVEL_2 else LEVEL_1_OPERATORS
            return [{}] + [Mutant(m) for m in self._operator(site.root, table)]
        return [{}] + [Mutant(m) for m in self.mutations(site.root, site.kind == LocationKind.CONDITION)]

    def mutations(self, root: c_ast.Node, is_condition: bool = False) -> list[Mutation]:
        """Every single mutation of the expression ``root``, in source order.

        ``is_condition``: ``root`` is a branch or loop condition (used as a
        truth value).
        """
        level2 = self._level >= MutationLevel.LEVEL_2
        table = LEVEL_2_OPERATORS if level2 else LEVEL_1_OPERATORS
        out: list[Mutation] = []
        nodes = list(_mutable_nodes(root))
        negated = {id(n.expr): n for n in nodes if isinstance(n, c_ast.UnaryOp) and n.op == "-"}
        for node in nodes:
            if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment)):
                out.extend(self._operator(node, table))
            elif isinstance(node, c_ast.Constant) and level2:
                out.extend(self._constant(node, negated.get(id(node))))
        if level2:
            for node in _truth_values(root, is_condition):
                out.extend(self._negation(node))
        out.sort(key=lambda m: (m.start, m.end, m.new_text))
        return out

    def _negation(self, node: c_ast.Node) -> list[Mutation]:
        """A truth value ``e`` means ``e != 0``; level 2 mutates it to ``e == 0``."""
        span = self._program.spans.span(node)
        text = self._program.original[span.start : span.end]
        simple = isinstance(node, (c_ast.ID, c_ast.FuncCall, c_ast.ArrayRef)) or (
            text.startswith("(") and text.endswith(")")
        )
        return [Mutation(node, NEGATE, span.start, span.end, text, f"!{text}" if simple else f"!({text})")]

    def _operator(self, node, table) -> list[Mutation]:
        compound = isinstance(node, c_ast.Assignment)
        op = node.op[:-1] if compound else node.op
        spans = self._program.spans
        index = spans.op_index(node)
        tok = spans.token(index)
        macro = None
        if tok.from_macro:  # an operator of a macro body: edit the #define
            body = self._macros.body_token(index)
            if body is None:
                return []
            macro, tok = body
        old = self._program.original[tok.start : tok.end]
        suffix = "=" if compound else ""
        return [
            Mutation(node, new, tok.start, tok.end, old, new + suffix, macro)
            for new in table.get(op, ())
        ]

    def _constant(self, node: c_ast.Constant, minus: c_ast.UnaryOp | None = None) -> list[Mutation]:
        """The constant manipulations of ``node``; ``minus`` is the unary
        minus applied to it, if any (``-1`` mutated to 0 reads ``0``, not
        ``-0``)."""
        if node.type in ("char", "string") or "float" in node.type or "double" in node.type:
            return []
        spans = self._program.spans
        index = spans.const_index(node)
        tok = spans.token(index)
        macro = None
        if tok.from_macro:  # a constant of a macro body used once: edit the #define
            body = self._macros.body_token(index)
            if body is not None:
                macro, tok = body
        old = self._program.original[tok.start : tok.end]
        value, _ = parse_int_literal(node.value)
        out = []
        for new in constant_mutations(value):
            if macro is not None or not tok.from_macro:
                text = str(new) if new >= 0 else f"({new})"
            elif tok.expansion_size == 1 and _IDENT.match(old):
                text = _macro_text(old, value, new)
            else:
                continue
            if new == 0 and minus is not None and macro is None and spans.op_index(minus) == index - 1:
                sign = spans.token(index - 1)
                if not sign.from_macro and not tok.from_macro:  # the edit takes in the sign: ``-1`` => ``0``
                    start = sign.start
                    out.append(Mutation(node, new, start, tok.end, self._program.original[start : tok.end], text))
                    continue
            out.append(Mutation(node, new, tok.start, tok.end, old, text, macro))
        return out


def _macro_text(name: str, value: int, new: int) -> str:
    if new == value + 1:
        return f"({name} + 1)"
    if new == value - 1:
        return f"({name} - 1)"
    if new == -value:
        return f"(-{name})"
    return str(new)


_PREDICATES = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"}


def _truth_values(root: c_ast.Node, is_condition: bool):
    """Sub-expressions of ``root`` used as truth values (implicitly ``!= 0``):
    a condition root, ``?:`` conditions, operands of ``&&``, ``||``, ``!``;
    not those that already are comparisons or logical operators, nor
    constants (constant mutations cover them)."""
    candidates = [root] if is_condition else []
    for node in _mutable_nodes(root):
        if isinstance(node, c_ast.TernaryOp):
            candidates.append(node.cond)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            candidates.extend((node.left, node.right))
        elif isinstance(node, c_ast.UnaryOp) and node.op == "!":
            candidates.append(node.expr)
    for node in candidates:
        if isinstance(node, c_ast.Constant):
            continue
        if isinstance(node, c_ast.BinaryOp) and node.op in _PREDICATES:
            continue
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            continue
        if isinstance(node, (c_ast.Assignment, c_ast.Cast)):
            continue
        yield node


def _mutable_nodes(root: c_ast.Node):
    """Nodes of ``root`` whose operator or constant a mutation may change:
    not inside calls, nested assignments or increments (their values are
    computed once), nor the target of a compound assignment."""
    if isinstance(root, c_ast.Assignment):
        yield root
        yield from _mutable_nodes(root.rvalue)
        return
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (c_ast.FuncCall, c_ast.Assignment)):
            continue
        if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--", "++", "--", "sizeof"):
            continue
        if isinstance(node, c_ast.Cast):
            stack.append(node.expr)
            continue
        yield node
        stack.extend(child for _, child in reversed(node.children()))
