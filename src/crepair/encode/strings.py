"""``<string.h>`` over arrays passed by name: ``strlen``, ``strcmp``,
``strncmp``, ``strcpy``, ``strncpy``, ``strcat``, ``strchr``, ``memset``,
``memcpy`` (and ``atoi``/``atol``/``atoll`` of ``<stdlib.h>``).

Each argument is an array variable, ``&a[i]``, ``a + i`` or a string
literal (:class:`~crepair.encode.chararrays.CharSource`); strings are read
and written character by character, unrolled as
:mod:`crepair.encode.chararrays` describes, with its bounds checks.
Results are glibc's on x86-64: ``strcmp``/``strncmp`` return the
difference of the first differing characters as ``unsigned char``
(glibc's SSE2/AVX2 code), ``strlen`` a ``size_t``.  The pointer results
of ``strcpy``, ``strcat``, ``memset`` and ``memcpy`` are not values (the
call must be a statement or its value unused).  A byte count
(``memset(a, 0, sizeof a)``, ``n * sizeof(int)``) may use ``sizeof`` of
an array variable or of an integer type.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.chararrays import CharArrays, CharSource
from crepair.encode.formula import Constraint
from crepair.encode.ops import Value, convert
from crepair.encode.walk import Ctx
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import arrays, smt

#: name -> number of arguments
STRING_FUNCTIONS = {"strlen": 1, "strcmp": 2, "strncmp": 3, "strcpy": 2, "strncpy": 3, "strcat": 2,
                    "memset": 3, "memcpy": 3, "atoi": 1, "atol": 1, "atoll": 1, "strchr": 2}
_SPACES = b" \t\n\v\f\r"  # isspace in the "C" locale
_LONG_CAP = 1 << 63  # strtol's |value| saturates here (LONG_MAX, or LONG_MIN negated)
_UNROLL = 64  # the most elements a memset/memcpy of part of an array writes one by one



class Strings(CharArrays):
    """Encodes the functions of :data:`STRING_FUNCTIONS`."""

    def _string_call(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        if len(args) != STRING_FUNCTIONS[name]:
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {STRING_FUNCTIONS[name]}",
                           self._point(node))
        if name in ("memset", "memcpy", "strchr"):
            return getattr(self, f"_{name}")(node, args, ctx)
        sources = [self._array_argument(a, ctx, name) for a in args[:2]]
        for src in sources:
            if src.elem.bits != 8:
                raise UnsupportedConstruct(self._point(src.node), f"{name} of '{src.name}', an array of "
                                           f"{src.elem.name}")
        count = None
        if len(args) == 3:
            count = convert(self._expr(args[2], ctx), ct.ULONG).term
        return getattr(self, f"_{name}")(node, sources, count, ctx)

    def _atoi(self, node, sources: list[CharSource], count, ctx: Ctx) -> Value:
        return self._parse_integer(node, sources[0], ctx, ct.INT)

    def _atol(self, node, sources: list[CharSource], count, ctx: Ctx) -> Value:
        return self._parse_integer(node, sources[0], ctx, ct.LONG)

    _atoll = _atol

    def _parse_integer(self, node, src: CharSource, ctx: Ctx, result: ct.IntType) -> Value:
        """glibc's ``atoi``/``atol``: ``(int) strtol(s, NULL, 10)`` (C11
        7.22.1.2, 7.22.1.4): leading white space, an optional sign, then
        decimal digits; a value beyond ``long`` saturates at LONG_MAX or
        LONG_MIN, and ``atoi`` keeps its low 32 bits (gcc's conversion).
        Reads up to the first character that ends the number (checked to
        lie in the array); a number still going on after the string limit
        cuts the run off (an UnwindingCut of kind "string")."""
        wide = 128  # |value| <= 2^63 * 10 + 9 fits
        value, negative = smt.bv(0, wide), smt.BoolVal(False)
        skipping, going = smt.BoolVal(True), smt.BoolVal(True)
        limit = self._string_limit()
        at = smt.bv(limit)
        for j in range(limit):
            c = self._char_at(src, j)
            digit = smt.And(smt.ULE(smt.bv(ord("0"), 8), c), smt.ULE(c, smt.bv(ord("9"), 8)))
            space = smt.Or(*(c == smt.bv(b, 8) for b in _SPACES))
            sign = smt.Or(c == smt.bv(ord("+"), 8), c == smt.bv(ord("-"), 8))
            step = value * smt.bv(10, wide) + smt.ZeroExt(wide - 8, c - smt.bv(ord("0"), 8))
            step = smt.If(smt.UGT(step, smt.bv(_LONG_CAP, wide)), smt.bv(_LONG_CAP, wide), step)
            stop = smt.And(going, smt.Not(digit), smt.Not(smt.And(skipping, smt.Or(space, sign))))
            at = smt.If(smt.And(stop, at == smt.bv(limit)), smt.bv(j), at)
            negative = smt.If(smt.And(going, skipping, sign), c == smt.bv(ord("-"), 8), negative)
            value = smt.If(smt.And(going, digit), step, value)
            going = smt.And(going, smt.Not(stop))
            skipping = smt.And(skipping, space)
        at = smt.simplify(at)
        if src.literal is None:
            self._check_within(src, smt.If(at == smt.bv(limit), smt.bv(limit - 1), at), ctx, src.node)
        self._cut(smt.And(ctx.state.guard, at == smt.bv(limit)), node)
        low = smt.Extract(63, 0, value)  # 2^63 here is LONG_MIN's magnitude
        signed = smt.If(negative, -low, smt.If(value == smt.bv(_LONG_CAP, wide), smt.bv((1 << 63) - 1, 64), low))
        term = signed if result.bits == 64 else smt.Extract(result.bits - 1, 0, signed)
        return Value(smt.simplify(term), result)

    def _strchr(self, node, args: list, ctx: Ctx) -> Value:
        """``strchr(s, c)`` (C11 7.24.5.2): a pointer to the first character
        of the string ``s`` (an array) equal to ``(char) c`` — the NUL too,
        when ``c`` is 0 — else the null pointer.  Reads the string up to its
        NUL (checked to lie in the array, as strlen)."""
        src = self._array_argument(args[0], ctx, "strchr")
        if src.var is None:
            raise UnsupportedConstruct(self._point(args[0]), "strchr of a string literal")
        if src.elem.bits != 8:
            raise UnsupportedConstruct(self._point(src.node), f"strchr of '{src.name}', an array of {src.elem.name}")
        c = convert(self._expr(args[1], ctx), ct.CHAR).term
        chars, length = self._scan_length(src, ctx, node)
        missing = smt.bv(-1)
        at = smt.If(c == smt.bv(0, 8), length, missing)
        for j in reversed(range(len(chars))):
            at = smt.If(smt.And(smt.bv(j) < length, chars[j] == c), smt.bv(j), at)
        # the pointer through which the string was read (args[0] is not evaluated twice)
        first = self._pointer_arith("+", self._decay(src.var, src.name), Value(src.start, ct.INT))
        found = self._pointer_arith("+", first, Value(at, ct.INT))
        return Value(smt.If(at == missing, smt.BitVecVal(0, 64), found.term), first.ctype)

    def _strlen(self, node, sources: list[CharSource], count, ctx: Ctx) -> Value:
        _, length = self._scan_length(sources[0], ctx, node)
        return Value(smt.ZeroExt(32, length), ct.ULONG)

    def _compare(self, node, a: CharSource, b: CharSource, count: smt.Term | None, ctx: Ctx) -> Value:
        """strcmp/strncmp: the first ``j`` (below ``count``) where the
        strings differ or end decides; reads up to ``j`` in both."""
        limit = self._string_limit()
        chars_a = [self._char_at(a, j) for j in range(limit)]
        chars_b = [self._char_at(b, j) for j in range(limit)]
        result, at = smt.bv(0), smt.bv(limit)
        for j in reversed(range(limit)):
            stop = smt.Or(chars_a[j] != chars_b[j], chars_a[j] == smt.bv(0, 8))
            diff = smt.ZeroExt(24, chars_a[j]) - smt.ZeroExt(24, chars_b[j])
            if count is not None:
                ended = count <= smt.bv(j, 64)
                result = smt.If(ended, smt.bv(0), smt.If(stop, diff, result))
                at = smt.If(ended, smt.bv(max(j - 1, 0)), smt.If(stop, smt.bv(j), at))
            else:
                result, at = smt.If(stop, diff, result), smt.If(stop, smt.bv(j), at)
        at = smt.simplify(at)
        for src in (a, b):
            if src.literal is None:
                self._check_within(src, at, ctx, src.node)
        self._cut(smt.And(ctx.state.guard, at == smt.bv(limit)), node)
        return Value(smt.simplify(result), ct.INT)

    def _strcmp(self, node, sources, count, ctx: Ctx) -> Value:
        return self._compare(node, sources[0], sources[1], None, ctx)

    def _strncmp(self, node, sources, count, ctx: Ctx) -> Value:
        return self._compare(node, sources[0], sources[1], count, ctx)

    def _copy(self, node, dest: CharSource, chars: list[smt.Term], length: smt.Term, ctx: Ctx,
              at: smt.Term | int = 0) -> None:
        """Write ``chars[0 .. length]`` (the NUL included) at ``dest[at ...]``."""
        last = length if isinstance(at, int) and at == 0 else at + length
        self._check_within(dest, last, ctx, dest.node)
        for j, c in enumerate(chars):
            self._store_at(dest, j if isinstance(at, int) and at == 0 else at + smt.bv(j), c, ctx.state, node,
                           when=smt.bv(j) <= length)

    def _strcpy(self, node, sources, count, ctx: Ctx) -> Value:
        dest, src = sources
        chars, length = self._scan_length(src, ctx, node)
        self._copy(node, dest, chars, length, ctx)
        return Value(smt.bv(0), ct.VOID)

    def _strcat(self, node, sources, count, ctx: Ctx) -> Value:
        dest, src = sources
        _, end = self._scan_length(dest, ctx, node)
        chars, length = self._scan_length(src, ctx, node)
        self._copy(node, dest, chars, length, ctx, at=end)
        return Value(smt.bv(0), ct.VOID)

    def _strncpy(self, node, sources, count, ctx: Ctx) -> Value:
        """``count`` characters: the string's, then NULs."""
        dest, src = sources
        chars, length = self._scan_length(src, ctx, node)
        n = smt.simplify(count)
        if not smt.is_bv_value(n) or n.as_long() > _UNROLL:
            raise UnsupportedConstruct(self._point(node), f"strncpy of a count that is not a constant up to {_UNROLL}")
        k = n.as_long()
        if k:
            self._check_within(dest, smt.bv(k - 1), ctx, dest.node)
        for j in range(k):
            c = smt.If(smt.bv(j) < length, chars[j], smt.bv(0, 8)) if j < len(chars) else smt.bv(0, 8)
            self._store_at(dest, j, c, ctx.state, node)
        return Value(smt.bv(0), ct.VOID)

    # ------------------------------------------------------------ memory
    def _bytes(self, node: c_ast.Node, ctx: Ctx) -> smt.Term:
        """A byte count (64 bits); ``sizeof`` as :mod:`crepair.encode.allocation` computes it."""
        if isinstance(node, c_ast.UnaryOp) and node.op == "sizeof":
            return smt.bv(self._sizeof(node.expr), 64)
        if isinstance(node, c_ast.BinaryOp) and node.op == "*":
            return self._bytes(node.left, ctx) * self._bytes(node.right, ctx)
        return convert(self._expr(node, ctx), ct.ULONG).term

    def _memset(self, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        dest = self._array_argument(args[0], ctx, "memset")
        byte = smt.Extract(7, 0, convert(self._expr(args[1], ctx), ct.INT).term)
        elem = dest.elem
        fill = smt.ZeroExt(elem.bits - 8, byte) if elem.bits > 8 else byte
        for k in range(1, elem.bits // 8):
            fill = fill | (smt.ZeroExt(elem.bits - 8, byte) << (8 * k))
        fill = smt.simplify(fill)
        self._fill(node, dest, self._bytes(args[2], ctx), ctx, lambda j: fill, smt.K(smt.BitVecSort(32), fill))
        return Value(smt.bv(0), ct.VOID)

    def _memcpy(self, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        dest = self._array_argument(args[0], ctx, "memcpy")
        src = self._array_argument(args[1], ctx, "memcpy")
        if src.elem != dest.elem and not (src.literal is not None and dest.elem.bits == 8):
            raise UnsupportedConstruct(self._point(node), f"memcpy from {src.elem.name} to {dest.elem.name}")
        count = self._bytes(args[2], ctx)
        whole = None
        if src.var is not None and smt.is_true(smt.simplify(src.start == smt.bv(0))):
            whole = self._arrays[src.var.key]
        self._fill(node, dest, count, ctx, lambda j: self._char_at(src, j), whole, src)
        return Value(smt.bv(0), ct.VOID)

    def _fill(self, node, dest: CharSource, count: smt.Term, ctx: Ctx, value, whole, src=None) -> None:
        """Elements ``dest[0 .. count/elem-1] = value(j)``; the whole array
        at once (``whole``, an array term) when ``count`` is its size."""
        eb = dest.elem.bits // 8
        elements = smt.simplify(smt.UDiv(count, smt.bv(eb, 64)))
        for s in (dest, src):
            if s is not None and s.literal is None:
                self._check_within(s, smt.Extract(31, 0, elements) - smt.bv(1), ctx, s.node,
                                   when=elements != smt.bv(0, 64))
        known = smt.is_bv_value(elements)
        full = isinstance(dest.size, int) and smt.is_true(smt.simplify(dest.start == smt.bv(0))) and known \
            and elements.as_long() == dest.size
        if full and whole is not None and dest.var is not None:
            old = self._arrays[dest.var.key]
            new = smt.smt_array(f"{dest.var.key}#{next(self._ssa)}", dest.elem.bits)
            term = whole if smt.is_true(ctx.state.guard) else smt.If(ctx.state.guard, whole, old)
            self.formula.s_assign.append(Constraint(new == term, self._p.spans.span(node), self._function))
            self._arrays[dest.var.key] = new
            return
        if known and elements.as_long() <= _UNROLL:
            for j in range(elements.as_long()):
                self._store_at(dest, j, value(j), ctx.state, node)
            return
        if not known and isinstance(dest.size, int) and dest.size <= _UNROLL:
            for j in range(dest.size):
                self._store_at(dest, j, value(j), ctx.state, node, when=smt.ULT(smt.bv(j, 64), elements))
            return
        if src is None and whole is not None and dest.var is not None:  # memset: one bulk update (a lambda)
            fill = smt.simplify(value(0))
            old = self._arrays[dest.var.key]
            new = smt.smt_array(f"{dest.var.key}#{next(self._ssa)}", dest.elem.bits)
            term = arrays.fill(old, dest.start, smt.Extract(31, 0, elements), fill)
            term = term if smt.is_true(ctx.state.guard) else smt.If(ctx.state.guard, term, old)
            self.formula.s_assign.append(Constraint(new == term, self._p.spans.span(node), self._function))
            self._arrays[dest.var.key] = new
            return
        raise UnsupportedConstruct(self._point(node), f"{node.name.name} of part of an array of more than "
                                   f"{_UNROLL} elements")
