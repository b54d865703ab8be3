"""Char arrays passed by name to the C library: reading NUL-terminated
strings, storing into arrays, and their bounds.

There is no pointer model here: an argument of ``strlen``, ``printf("%s")``,
``scanf("%s")``, ``strcpy`` ... is an array variable ``s``, ``&s[i]``,
``s + i`` or a string literal (:class:`CharSource`).  A string is read
character by character, unrolled up to the array's size and at most
:meth:`CharArrays._string_limit` characters (twice the ``--input-bound``
and 2, so that two input strings concatenated fit, or the unwinding
bound and 2, so that a string a loop writes fits);
a run whose string goes on beyond that is cut off like a loop beyond the
unwinding bound (an :class:`~crepair.encode.formula.UnwindingCut` of kind
"string": a violation with unwinding assertions, an assumption without).
Reading or writing outside the array is an ARRAY_BOUNDS violation (CBMC's
``--bounds-check`` on the library's accesses), asserted where the call
is evaluated, never as a check of a location's alternatives (a replayed
mutant reuses the call's result, so its checks could not follow it).
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.core import EncoderCore
from crepair.encode.formula import Constraint, UnwindingCut, Violation
from crepair.encode.memory import object_of
from crepair.encode.ops import string_bytes
from crepair.encode.ops import convert
from crepair.encode.walk import Ctx, State, Var
from crepair.errors import UnsupportedConstruct
from crepair.solver import smt


@dataclass(frozen=True, slots=True)
class CharSource:
    """An array argument: ``var`` (None for a string literal, whose bytes
    with the NUL are ``literal``), the 32-bit index ``start`` of its first
    element, the array's element count ``size`` (an int, a 32-bit term,
    or None when unknown) and the ``node`` of the argument."""

    name: str
    var: Var | None
    start: smt.Term
    size: "int | smt.Term | None"
    node: c_ast.Node
    literal: bytes | None = None

    @property
    def elem(self) -> ct.IntType:
        return ct.CHAR if self.var is None else self.var.ctype.elem


DEFAULT_STRING_BOUND = 8  # crepair.options.DEFAULT_INPUT_BOUND (not imported: options imports the encoder)



class CharArrays(EncoderCore):
    """Reads and writes char arrays named by a call's arguments."""

    def _string_limit(self) -> int:
        """The most characters a string operation reads before it cuts the
        run off: room for two input strings and their NUL, or for a string
        a loop writes within the unwinding bound."""
        return max(2 * self._input_bound() + 2, self._bound + 2)

    def _input_bound(self) -> int:
        """``--input-bound`` of a ``--reference`` program, else the default
        (the longest string a ``%s`` conversion reads)."""
        options = getattr(self._p, "options", None)
        return getattr(options, "input_bound", None) or DEFAULT_STRING_BOUND

    def _array_argument(self, arg: c_ast.Node, ctx: Ctx, what: str) -> CharSource:
        """The array ``arg`` names (see :class:`CharSource`); raises
        ``UnsupportedConstruct`` for another expression (naming ``what``)."""
        if isinstance(arg, c_ast.Constant) and arg.type == "string":
            data = string_bytes(arg.value, self._point(arg)) + b"\0"
            return CharSource(arg.value, None, smt.bv(0), len(data), arg, data)
        multi = self._multi(arg.expr if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" else arg)
        if multi is not None:  # &a[i][j] or a row a[i] (crepair.encode.dimensions)
            var, subs = multi
            full = len(subs) == 1 + len(var.ctype.inner)
            if full != (isinstance(arg, c_ast.UnaryOp) and arg.op == "&") or len(subs) < len(var.ctype.inner):
                raise UnsupportedConstruct(self._point(arg), f"{what}: an argument that is not an element's "
                                           "address or a row of a multi-dimensional array")
            start = self._flat_index(var, subs, arg, ctx)
            return CharSource(var.key.rsplit("::", 1)[-1], var, start, self._array_size(var), arg)
        base, index = arg, None
        if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
            base = arg.expr
            if isinstance(base, c_ast.ArrayRef):
                base, index = base.name, base.subscript
        elif isinstance(arg, c_ast.BinaryOp) and arg.op == "+":
            base, index = arg.left, arg.right
            if isinstance(index, c_ast.ID) and isinstance(self._lookup(index).ctype, ct.ArrayType):
                base, index = index, base
        elif isinstance(arg, c_ast.Cast):
            return self._array_argument(arg.expr, ctx, what)
        if isinstance(arg, c_ast.ArrayRef) and isinstance(arg.name, c_ast.ID):
            argv = self._lookup(arg.name)
            string = self._argv_string(argv, arg.subscript)
            if string is not None:  # argv[K] (crepair.encode.argv): the K-th argument, if there is one
                present = smt.Select(self._arrays[argv.key], convert(self._expr(arg.subscript, ctx), ct.INT).term)
                self._check(Ctx(ctx.state, {}, {}, True), Violation.NULL_DEREFERENCE, arg,
                            present != smt.BitVecVal(0, 64), subject=f"{arg.name.name}[{arg.subscript.value}]")
                return CharSource(string.key, string, smt.bv(0), self._array_size(string), arg)
        if not isinstance(base, c_ast.ID) or not isinstance(self._lookup(base).ctype, ct.ArrayType):
            pointed = self._pointed_source(arg, ctx)
            if pointed is not None:
                return pointed
        if not isinstance(base, c_ast.ID):
            raise UnsupportedConstruct(self._point(arg), f"{what}: an argument that is not an array variable, "
                                       "&a[i], a + i, a pointer into one char array or a string literal")
        var = self._lookup(base)
        if not isinstance(var.ctype, ct.ArrayType):
            raise UnsupportedConstruct(self._point(arg), f"{what}: '{base.name}' is not an array nor a pointer "
                                       "into one char array")
        start = smt.bv(0) if index is None else convert(self._expr(index, ctx), ct.INT).term
        return CharSource(base.name, var, start, self._array_size(var), arg)

    def _pointed_source(self, arg: c_ast.Node, ctx: Ctx) -> CharSource | None:
        """``arg`` as a pointer (``p``, ``p + i``, ``(char *) v``) into an
        array of chars that is the one object it may point to on this path
        (its object id a constant once simplified, as a ``qsort``
        comparator's parameters are); None for anything else."""
        value = self._expr(arg, ctx)
        if not isinstance(value.ctype, ct.PointerType):
            return None
        ident = smt.simplify(object_of(value.term))
        if not smt.is_bv_value(ident):
            return None
        obj = next((o for o in self._objects.values() if o.ident == ident.as_long()), None)
        if obj is None or obj.in_env or not isinstance(obj.elem, ct.IntType) or obj.elem.bits != 8:
            return None
        var = Var(obj.key, obj.ctype)
        return CharSource(obj.name, var, smt.simplify(smt.Extract(31, 0, value.term)), self._array_size(var), arg)

    def _char_at(self, src: CharSource, offset: "int | smt.Term") -> smt.Term:
        """The element at ``start + offset`` now (a term of the element's width)."""
        if src.literal is not None and isinstance(offset, int):
            return smt.bv(src.literal[offset] if offset < len(src.literal) else 0, 8)
        index = smt.simplify(src.start + (smt.bv(offset) if isinstance(offset, int) else offset))
        if src.literal is not None:
            array = smt.K(smt.BitVecSort(32), smt.bv(0, 8))
            for i, b in enumerate(src.literal):
                array = smt.Store(array, smt.bv(i), smt.bv(b, 8))
            return smt.Select(array, index)
        return smt.Select(self._arrays[src.var.key], index)

    def _check_within(self, src: CharSource, last: smt.Term, ctx: Ctx, node: c_ast.Node,
                      when: smt.Term | None = None) -> None:
        """Assert that elements ``start .. start + last`` (``last`` a 32-bit
        offset) lie in the array, where the call is evaluated (if ``when``)."""
        if src.literal is not None:
            return
        size = src.size
        if size is None:
            return
        n = smt.SignExt(32, size) if isinstance(size, smt.Term) else smt.bv(size, 64)
        first = smt.SignExt(32, src.start)
        index = first + smt.SignExt(32, last)
        ok = smt.And(first >= smt.bv(0, 64), index >= first, index < n)
        if when is not None:
            ok = smt.Implies(when, ok)
        self._check(Ctx(ctx.state, {}, {}, True), Violation.ARRAY_BOUNDS, src.node, ok, subject=src.name,
                    operands=(index, n), signed=True)

    def _cut(self, reached: smt.Term, node: c_ast.Node) -> None:
        """A run that reaches ``reached`` goes beyond the string limit."""
        reached = smt.simplify(reached)
        if smt.is_false(reached):
            return
        span = self._p.spans.span(node)
        self.formula.cuts.append(UnwindingCut(reached, span, "string"))
        self._assume(self.formula.unwinding_assumptions, smt.Not(reached), span)

    def _scan_length(self, src: CharSource, ctx: Ctx, node: c_ast.Node) -> tuple[list[smt.Term], smt.Term]:
        """Read the string at ``src``: its first characters ``c_0 .. c_(k-1)``
        as they are now and its length (32-bit: the offset of its NUL).
        Asserts the NUL is within the array; cuts the run when the string
        is longer than the limit."""
        if src.literal is not None:
            chars = [smt.bv(b, 8) for b in src.literal]
            return chars, smt.bv(src.literal.index(0))
        limit = self._string_limit()
        k = limit
        if isinstance(src.size, int) and smt.is_bv_value(src.start):
            k = max(0, min(limit, src.size - src.start.as_signed_long()))
        chars = [self._char_at(src, j) for j in range(k)]
        length = smt.bv(k)
        for j in reversed(range(k)):
            length = smt.If(chars[j] == smt.bv(0, src.elem.bits), smt.bv(j), length)
        length = smt.simplify(length)
        self._check_within(src, length, ctx, node)
        found = smt.disjunction([c == smt.bv(0, src.elem.bits) for c in chars])
        beyond = self._beyond(src, k)
        self._cut(smt.And(ctx.state.guard, smt.Not(found), beyond), node)
        return chars, length

    def _beyond(self, src: CharSource, k: int) -> smt.Term:
        """Whether the array goes on after ``k`` elements from ``start``
        (a read there is in bounds, so stopping there cuts the run)."""
        if src.size is None:
            return smt.BoolVal(True)
        n = smt.SignExt(32, src.size) if isinstance(src.size, smt.Term) else smt.bv(src.size, 64)
        return smt.SignExt(32, src.start) + smt.bv(k, 64) < n

    def _store_at(self, src: CharSource, offset: "int | smt.Term", value: smt.Term, state: State,
                  node: c_ast.Node, when: smt.Term | None = None) -> None:
        """``start[offset] = value`` on the path of ``state``, if ``when``."""
        if src.var is None:
            raise UnsupportedConstruct(self._point(src.node), "writing into a string literal")
        index = smt.simplify(src.start + (smt.bv(offset) if isinstance(offset, int) else offset))
        path = state if when is None else State(smt.And(state.guard, when), state.env)
        self._store_element(path, src.var.key, index, value, self._p.spans.span(node))
