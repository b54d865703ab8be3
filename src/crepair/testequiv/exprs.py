"""The EXPRESSION schema: one change to a side-effect-free expression.

f1x (Mechtaev et al., TOSEM'18, §5) modifies an existing integer
expression or condition as Angelix does; its synthesizer changes one node
of the expression tree.  Here, for each node of a site's expression:

- operator replacement (cost 1): relational to relational (pointers: only
  ``==``/``!=``), ``+ - * / %`` among themselves (pointer arithmetic: ``+``
  and ``-``), ``& | ^`` among themselves, ``<<``/``>>``, ``&&``/``||``;
  never a literal ``/ 0`` or ``% 0``;
- an operand cast to unsigned (cost 1, f1x's UNSIGNED_CAST), for signed
  integer operands of arithmetic and comparisons that are not constants;
- simplification (cost: the size of the dropped operand, f1x's depth): a binary
  arithmetic, bitwise or logical node replaced by one of its operands;
  dropping a ``!``, unary ``-`` or ``~`` (cost 1);
- leaf substitution (cost = the leaf's size): an integer variable,
  array element, member or dereference by another visible integer variable
  or a constant; a pointer by a visible pointer of the same type or NULL;
  a constant ``c`` by ``c+1``, ``c-1``, the function's constants, the
  integers ``0..max_parameter`` (f1x's parameter) or a variable (cost 1);
- ``x + 1`` and ``x - 1`` for integer non-constant leaves (cost 2).

Cost is f1x's distance, the number of AST nodes added, changed or removed
(§5), in tenths, less f1x's preference by rule (its ``syntacticDiff``):
0.2 off for operator replacement, simplification, a variable or constant
replaced by a variable, a constant by another (:func:`tenths`); a variable
replaced by a constant, a cast or ``x ± 1`` get none.  Changes inside a smaller site (a sub-condition, a subscript) are
that site's own, so each patched program is proposed once.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.frontend.parse import CProgram
from crepair.testequiv.ctext import (BINARY, COMMA, PRIMARY, UNARY, char_text, constant_value, glued, join_text,
                                   node_precedence, operand_context, place)
from crepair.testequiv.scope import Var
from crepair.testequiv.place import Place
from crepair.testequiv.verbatim import Verbatim
from crepair.typed.infer import Types
from crepair.typed.model import CType, TypeKind, decay

RELATIONAL = ("<", "<=", ">", ">=", "==", "!=")
ARITHMETIC = ("+", "-", "*", "/", "%")
BITWISE = ("&", "|", "^")
SHIFT = ("<<", ">>")
LOGICAL = ("&&", "||")


GOOD = 2  # tenths off the distance for f1x's preferred rules
OK = 1  # for loosening and tightening (refinement)


def tenths(distance: int, bonus: int = 0) -> int:
    """A cost in tenths of an AST node: ``distance`` nodes less ``bonus``
    tenths (f1x's prioritization: 0.2 for its "good" rules, 0.1 for
    loosening/tightening)."""
    return 10 * distance - bonus


@dataclass(frozen=True, slots=True)
class Change:
    """Replace ``original[start:end]`` by ``text``; ``cost`` in AST nodes."""

    start: int
    end: int
    text: str
    cost: int


@dataclass(frozen=True, slots=True)
class Pool:
    """What leaves may become at one site: integer and pointer variables
    (ranked, bounded), constants for variables (value, spelling) and
    constants for constants."""

    integers: tuple[Var, ...]
    pointers: tuple[Var, ...]
    constants: tuple[tuple[int, str], ...]
    replacements: tuple[tuple[int, str], ...]
    null: str


def size(node: c_ast.Node) -> int:
    """Number of AST nodes of an expression (a type name counts one)."""
    if isinstance(node, c_ast.Typename):
        return 1
    return 1 + sum(size(c) for _, c in node.children())


class Mutator:
    """EXPRESSION changes of the sites of one program."""

    def __init__(self, program: CProgram, types: Types, verbatim: Verbatim):
        self._original = program.original
        self._spans = program.spans
        self._types = types
        self._verbatim = verbatim

    def changes(self, site: Place, pool: Pool, excluded: list[tuple[int, int]]) -> list[Change]:
        """The changes of ``site``'s expression outside the ``excluded``
        spans (smaller sites), in walk order."""
        self._pool, self._excluded = pool, excluded
        self._scope = {name: var.type for name, var in site.scope.items()}
        self._out: list[Change] = []
        self._walk(site.node, self.root_context(site), divisor=False)
        return self._out

    def root_context(self, site: Place) -> int:
        return COMMA if self._parenthesized(site.node) else site.context

    # -- helpers ----------------------------------------------------------------
    def _region(self, node: c_ast.Node) -> tuple[int, int]:
        span = self._spans.span(node)
        return span.start, span.end

    def text_of(self, node: c_ast.Node) -> str:
        """The user's text of ``node`` (its span)."""
        start, end = self._region(node)
        return self._original[start:end]

    def _parenthesized(self, node: c_ast.Node) -> bool:
        first, last = self._spans.balanced_extent(node)
        try:
            before, after = self._spans.token(first - 1), self._spans.token(last + 1)
        except IndexError:
            return False
        return first > 0 and (before.text, after.text) in (("(", ")"), ("[", "]"))

    def _context(self, parent: c_ast.Node, child: c_ast.Node) -> int:
        return COMMA if self._parenthesized(child) else operand_context(parent, child)

    def _level(self, node: c_ast.Node) -> int:
        return PRIMARY if self._parenthesized(node) else node_precedence(node)

    def _type(self, node: c_ast.Node) -> CType:
        return decay(self._types.of(node, self._scope))

    def _add(self, node: c_ast.Node, text: str, cost: int) -> None:
        start, end = self._region(node)
        if glued(self._original[start - 1:start], text):  # ``a-b`` -> ``a- *p``, not the comment ``a-/*p``
            text = " " + text
        if glued(text, self._original[end:end + 1]):
            text += " "
        if text != self._original[start:end]:
            self._out.append(Change(start, end, text, cost))

    def _put(self, node: c_ast.Node, text: str, level: int | None, context: int, cost: int) -> None:
        start, _ = self._region(node)
        before = self._original[start - 1] if start > 0 else ""
        self._add(node, place(text, context, level, before), cost)

    # -- the walk -----------------------------------------------------------------
    def _walk(self, node: c_ast.Node, context: int, divisor: bool, sibling: c_ast.Node | None = None) -> None:
        """Changes of ``node`` and below; ``sibling``: the other operand
        of a binary parent (``x op x`` and ``c op c`` are not proposed)."""
        start, end = self._region(node)
        if any(s <= start and end <= e for s, e in self._excluded):
            return
        if self._verbatim.is_macro_leaf(node):
            self._macro_leaf(node, context, divisor, sibling)
            return
        if self._verbatim.expression(node) is not None:
            for _, child in node.children():  # a macro's expansion: only exact parts change
                self._walk(child, COMMA if self._parenthesized(child) else PRIMARY, False)
            return
        match node:
            case c_ast.Constant() | c_ast.UnaryOp(op="-", expr=c_ast.Constant()):
                value = constant_value(node)
                if value is not None:
                    self._constant(node, value, context, divisor, sibling, macro=False)
            case c_ast.ID(name=name):
                t = self._type(node)
                if name in self._scope or name in self._types.enumerators:
                    self._leaf(node, t, context, divisor, sibling, plus_one=name in self._scope)
            case c_ast.ArrayRef(subscript=sub):
                self._leaf(node, self._type(node), context, divisor, sibling, plus_one=True)
                self._walk(sub, COMMA, divisor=False)
            case c_ast.StructRef() | c_ast.UnaryOp(op="*"):
                self._leaf(node, self._type(node), context, divisor, sibling, plus_one=True)
            case c_ast.BinaryOp():
                self._binary(node, context, divisor)
            case c_ast.UnaryOp(op=op, expr=e) if op in ("!", "-", "~", "+"):
                self._drop_unary(node, context)
                self._walk(e, self._context(node, e), divisor=False)
            case c_ast.Cast(expr=e):
                self._walk(e, self._context(node, e), divisor=False)
            case c_ast.TernaryOp(cond=c, iftrue=t, iffalse=f):
                for child in (c, t, f):
                    self._walk(child, self._context(node, child), divisor=False)

    def _binary(self, node: c_ast.BinaryOp, context: int, divisor: bool) -> None:
        op, left, right = node.op, node.left, node.right
        lt, rt = self._type(left), self._type(right)
        ints = lt.kind == TypeKind.INTEGER and rt.kind == TypeKind.INTEGER
        ptr = TypeKind.POINTER in (lt.kind, rt.kind)
        zero = constant_value(right) == 0
        alternatives: tuple[str, ...] = ()
        if op in RELATIONAL:
            alternatives = RELATIONAL if ints else (("==", "!=") if ptr and op in ("==", "!=") else ())
        elif op in ARITHMETIC:
            if ints:
                alternatives = tuple(o for o in ARITHMETIC if not (zero and o in ("/", "%")))
            elif lt.kind == TypeKind.POINTER and rt.kind == TypeKind.INTEGER and op in ("+", "-"):
                alternatives = ("+", "-")
        elif op in BITWISE and ints:
            alternatives = BITWISE
        elif op in SHIFT and ints:
            alternatives = SHIFT
        elif op in LOGICAL:
            alternatives = LOGICAL
        for new in alternatives:
            if new != op:
                self._add(node, self._rebuild(node, new, context), tenths(1, GOOD))
        if ints and (op in RELATIONAL or op in ARITHMETIC):
            for side, t in ((left, lt), (right, rt)):
                if t.signed and constant_value(side) is None and not isinstance(side, c_ast.Cast):
                    cast = "(unsigned)" if t.rank <= 3 else f"(unsigned {t.text})"
                    inner = self.text_of(side) if self._level(side) >= UNARY else f"({self.text_of(side)})"
                    self._add(side, cast + inner, tenths(1))
        if op in ARITHMETIC or op in BITWISE or op in SHIFT or op in LOGICAL:
            mine = self._type(node)
            for keep, drop, t in ((left, right, lt), (right, left, rt)):
                if _same_class(t, mine) and not (divisor and constant_value(keep) == 0):
                    self._put(node, self.text_of(keep), node_precedence(keep), context, tenths(size(drop), GOOD))
        for child, other in ((left, right), (right, left)):
            if op in RELATIONAL and ptr and self._type(child).kind != TypeKind.POINTER:
                continue  # the null pointer constant of p == 0
            self._walk(child, self._context(node, child), child is right and op in ("/", "%"), other)

    def _rebuild(self, node: c_ast.BinaryOp, new: str, context: int) -> str:
        """``node`` with operator ``new``, operands and the whole
        parenthesized where the new precedence needs it."""
        o = self._original
        start, end = self._region(node)
        ls, le = self._region(node.left)
        rs, re_ = self._region(node.right)
        tok = self._spans.token(self._spans.op_index(node))
        level = BINARY[new]
        lt = o[ls:le] if self._level(node.left) >= level else f"({o[ls:le]})"
        rt = o[rs:re_] if self._level(node.right) > level else f"({o[rs:re_]})"
        body = join_text(join_text(o[start:ls] + lt + o[le:tok.start], new), o[tok.end:rs] + rt + o[re_:end])
        return f"({body})" if level < context else body

    def _drop_unary(self, node: c_ast.UnaryOp, context: int) -> None:
        _, end = self._region(node)
        tok = self._spans.token(self._spans.op_index(node))
        if tok.from_macro:
            return
        rest = self._original[tok.end:end].lstrip()
        level = PRIMARY if self._parenthesized(node.expr) else node_precedence(node.expr)
        self._put(node, rest, level, context, tenths(1, GOOD))

    # -- leaves -----------------------------------------------------------------
    def _leaf(self, node: c_ast.Node, t: CType, context: int, divisor: bool, sibling: c_ast.Node | None,
              plus_one: bool) -> None:
        """Substitutions of a variable, element, member or dereference;
        never the ``sibling`` operand's own text (``x < x``) and no constant
        beside a constant."""
        cost, text = size(node), self.text_of(node)
        pool = self._pool
        name = node.name if isinstance(node, c_ast.ID) else None
        twin = _flat(self.text_of(sibling)) if sibling is not None else None
        if t.kind == TypeKind.INTEGER:
            for var in pool.integers:
                if var.name not in (name, twin):
                    self._put(node, var.name, PRIMARY, context, tenths(cost, GOOD))
            for value, spelling in pool.constants if constant_value(sibling) is None else ():
                if not (divisor and value == 0):
                    self._put(node, spelling, None, context, tenths(cost))
            if plus_one:
                inner = text if self._level(node) >= BINARY["+"] else f"({text})"
                for sign in ("+", "-"):
                    self._put(node, f"{inner} {sign} 1", BINARY[sign], context, tenths(2))
        elif t.kind == TypeKind.POINTER and t.text:
            for var in pool.pointers:
                if var.name not in (name, twin) and var.type.text == t.text:
                    self._put(node, var.name, PRIMARY, context, tenths(cost, GOOD))
            if pool.null:
                self._put(node, pool.null, PRIMARY, context, tenths(cost))

    def _constant(self, node: c_ast.Node, value: int, context: int, divisor: bool, sibling: c_ast.Node | None,
                  macro: bool) -> None:
        spelled = dict(self._pool.replacements)
        is_char = isinstance(node, c_ast.Constant) and node.type == "char"
        if macro:
            name = self.text_of(node)
            for sign in ("+", "-"):
                self._put(node, f"{name} {sign} 1", BINARY[sign], context, tenths(2))
        seen = {value}
        for new in ([] if macro else [value + 1, value - 1]) + [v for v, _ in self._pool.replacements]:
            if new in seen or (divisor and new == 0):
                continue
            seen.add(new)
            text = spelled.get(new) or (char_text(new) if is_char else None) or str(new)
            self._put(node, text, None, context, tenths(1, GOOD))
        twin = _flat(self.text_of(sibling)) if sibling is not None else None
        for var in self._pool.integers:
            if var.name != twin:
                self._put(node, var.name, PRIMARY, context, tenths(1, GOOD))

    def _macro_leaf(self, node: c_ast.Node, context: int, divisor: bool, sibling: c_ast.Node | None) -> None:
        t = self._type(node)
        value = constant_value(node)
        if value is not None:
            self._constant(node, value, context, divisor, sibling, macro=True)
        elif t.kind == TypeKind.INTEGER:
            self._leaf(node, t, context, divisor, sibling, plus_one=True)


def _flat(text: str) -> str:
    return "".join(text.split())


def _same_class(a: CType, b: CType) -> bool:
    if a.kind == TypeKind.INTEGER:
        return b.kind == TypeKind.INTEGER
    return a.kind == TypeKind.POINTER and b.kind == TypeKind.POINTER and a.text == b.text and bool(a.text)
