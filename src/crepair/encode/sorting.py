"""``qsort(base, n, size, cmp)``: a bounded stable sort calling ``cmp``.

The encoder sorts with bubble sort over the first ``n`` elements (``n`` ≤
the unwinding bound B): pass ``p`` (0-based) compares elements ``j`` and
``j + 1`` for ``j + 1 < n - p`` and swaps them when ``cmp`` returns a
positive value; that is ``B (B - 1) / 2`` comparisons on concrete
positions, each guarded, so no element is read at a symbolic index.
``cmp`` (a function the program defines) is inlined with its two
``const void *`` parameters bound to pointers to the elements; it casts
them to the element type (``*(int *)a``), a cast to another type is
rejected.

Agreement with gcc: glibc's ``qsort`` (2.36, and every version but
2.37-2.38) is ``msort``, a stable merge sort; for a comparator that is a
consistent total preorder of the element values both sorts give the same
array, ties included (both keep equal elements in their order, so the
outputs agree even when equal-comparing elements differ elsewhere, such as
rows ``{key, index}``).  For a comparator that is not (``return 1;``,
``strcmp`` on the rest of the array) the result is this bubble sort's,
which may differ from glibc's (a counterexample then may not replay under
gcc).  Not modelled either: glibc's quicksort fallback
when its buffer cannot be allocated.

``n`` above B cuts the run (an unwinding cut, "qsort"), as a loop does;
``size`` must be a constant multiple of the size of the type ``base``
points to (an element of ``int a[N][2]`` is 2 ints).  Every element
access is checked as a dereference (POINTER_BOUNDS).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.core import EncoderCore
from crepair.encode.formula import LocationKind, UnwindingCut
from crepair.encode.ops import Value, apply_binary, convert, to_bool
from crepair.encode.walk import Ctx, State, Var
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


class Sorting(EncoderCore):
    """Encodes ``qsort`` (see module docstring); a mixin of the call encoder."""

    def _qsort(self, node: c_ast.FuncCall, args: list[c_ast.Node], ctx: Ctx) -> Value:
        """``qsort(base, n, size, cmp)`` on the path of ``ctx`` (whose
        state it replaces).  Raises ``BadInput`` on a wrong number of
        arguments and ``UnsupportedConstruct`` for a comparator that is not
        a function of the program, a ``size`` that is not a constant
        multiple of the element size, or a base that is not a pointer."""
        if len(args) != 4:
            raise BadInput(f"call to 'qsort' with {len(args)} arguments, expected 4", self._point(node))
        base_node, count_node, size_node, cmp_node = args
        func = self._p.functions.get(cmp_node.name) if isinstance(cmp_node, c_ast.ID) else None
        if func is None:
            raise UnsupportedConstruct(self._point(cmp_node),
                                       "qsort comparator that is not a function defined in the program")
        base = self._expr(base_node, ctx)
        if not isinstance(base.ctype, ct.PointerType) or not isinstance(base.ctype.elem, ct.IntType):
            raise UnsupportedConstruct(self._point(base_node), "qsort of an array that is not of integers")
        width = self._qsort_width(size_node, base.ctype.elem, ctx)
        line = self._line(node)
        count, ctx.state = self._located(count_node, ctx.state, LocationKind.ARGUMENT, ct.ULONG,
                                         name=f"qsort@{line}::arg1")
        state = ctx.state
        span = self._p.spans.span(node)
        limit = smt.BitVecVal(self._bound, 64)
        self._assume(self.formula.unwinding_assumptions, smt.Implies(state.guard, smt.ULE(count, limit)), span)
        self.formula.cuts.append(UnwindingCut(smt.And(state.guard, smt.UGT(count, limit)), span, "qsort"))
        ctx.state = self._qsort_bubble(func, base, width, count, state, node)
        return Value(smt.BitVecVal(0, 32), ct.VOID)

    def _qsort_width(self, size_node: c_ast.Node, elem: ct.IntType, ctx: Ctx) -> int:
        """``size`` in elements of ``elem`` (a constant, at least 1)."""
        size = smt.simplify(convert(self._expr(size_node, ctx), ct.ULONG).term)
        unit = elem.bits // 8
        if not smt.is_bv_value(size) or size.as_long() == 0 or size.as_long() % unit:
            raise UnsupportedConstruct(self._point(size_node), f"qsort element size that is not a constant multiple "
                                       f"of sizeof({elem.name})")
        return size.as_long() // unit

    def _qsort_element(self, base: Value, index: smt.Term, width: int, part: int) -> Value:
        """A pointer to scalar ``part`` of element ``index`` (64-bit term)."""
        offset = index * smt.BitVecVal(width, 64) + smt.BitVecVal(part, 64)
        return self._pointer_arith("+", base, Value(offset, ct.LONG))

    def _qsort_read(self, base: Value, index: smt.Term, width: int, node: c_ast.Node, state: State) -> list[smt.Term]:
        return [self._load(self._qsort_element(base, index, width, j), node, Ctx(state, {}, {}, True)).term
                for j in range(width)]

    def _qsort_bubble(self, func: c_ast.FuncDef, base: Value, width: int, count: smt.Term, state: State,
                      node: c_ast.FuncCall) -> State:
        """Bubble sort of elements ``0 .. count - 1`` (``count`` ≤ B): pass
        ``p`` compares and swaps elements ``j, j + 1`` while ``j + 1 < count - p``."""
        for p in range(self._bound - 1):
            for j in range(self._bound - 1 - p):
                active = smt.ULT(smt.BitVecVal(j + 1 + p, 64), count)
                call = state.fork(active)
                a, b = smt.BitVecVal(j, 64), smt.BitVecVal(j + 1, 64)
                result, call = self._qsort_compare(func, base, width, a, b, call, node)
                swap = to_bool(apply_binary(">", result, Value(smt.BitVecVal(0, 32), ct.INT)))
                x = self._qsort_read(base, a, width, node, call)
                y = self._qsort_read(base, b, width, node, call)
                self._qsort_write(base, a, width, [smt.If(swap, v, u) for u, v in zip(x, y)], node, call)
                self._qsort_write(base, b, width, [smt.If(swap, u, v) for u, v in zip(x, y)], node, call)
                state = self._merge([call, state.fork(smt.Not(active))])
        return state

    def _qsort_write(self, base: Value, index: smt.Term, width: int, values: list[smt.Term], node: c_ast.Node,
                     state: State) -> None:
        for j, v in enumerate(values):
            target = self._qsort_element(base, index, width, j)
            self._store_through(target, lambda old, v=v: v, node, Ctx(state, {}, {}, True))

    def _qsort_compare(self, func: c_ast.FuncDef, base: Value, width: int, a: smt.Term, b: smt.Term, state: State,
                 node: c_ast.FuncCall) -> tuple[Value, State]:
        """``cmp(&elem[a], &elem[b])`` inlined on ``state``: its result
        (converted to ``int``) and the state after the call."""
        params = self._params(func)
        if len(params) != 2:
            raise UnsupportedConstruct(self._point(node), f"qsort comparator '{func.decl.name}' that does not take "
                                       "2 parameters")
        pointers = (self._qsort_element(base, a, width, 0), self._qsort_element(base, b, width, 0))
        bound = []
        for (pname, var), ptr in zip(params, pointers):
            if not (var.unusable or (isinstance(var.ctype, ct.PointerType)
                                     and ct.same_object_type(var.ctype.elem, ptr.ctype.elem))):
                raise UnsupportedConstruct(self._point(node), f"qsort comparator '{func.decl.name}' whose parameter "
                                           f"'{pname}' is not a const void * nor a pointer to the elements")
            bound.append((pname, Var(var.key, ptr.ctype), ptr.term))
        frame = self._enter(func, state)
        if frame.ret_key is None or not isinstance(frame.ret_type, ct.IntType):
            raise UnsupportedConstruct(self._point(node), f"qsort comparator '{func.decl.name}' that does not return "
                                       "an integer")
        for pname, var, term in bound:
            self._declare(pname, var)
            state.env[var.key] = term
        escapes = self._escapes
        state = self._leave(func, frame, self._exec(func.body, state))
        self._escapes = escapes
        return convert(Value(state.env[frame.ret_key], frame.ret_type), ct.INT), state
