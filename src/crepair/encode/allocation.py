"""The bounded heap: ``malloc``, ``calloc``, ``free`` and ``sizeof``.

Every allocation the walk meets — each call site in each unwound loop
iteration and inlined call — creates a fresh heap *object* of the memory
model (:mod:`crepair.encode.memory`): an array of the pointed-to type with
``size / sizeof(T)`` elements (a term: the size may be an input).  The
heap is bounded as the program is: by the unwinding bound.  As CBMC
assumes by default, an allocation succeeds; ``malloc``'s elements are
nondeterministic, ``calloc``'s zero.  The element type is the pointer
type the result is assigned, initialized, returned, passed or cast to
(``T *p = malloc(n * sizeof *p)``); a result used otherwise is
rejected.

Each heap object has a liveness bit in the path environment
(``<key>$live``).  ``free(p)`` clears it for the object ``p`` points
into; a dereference of a freed object fails the pointer check
(POINTER_BOUNDS, CBMC's ``--pointer-check``), and ``free`` of a pointer
that is not the start of a live heap object fails INVALID_FREE (double
free, a pointer into the middle, a variable's address); ``free(NULL)``
does nothing (C11 7.22.3.3).

``sizeof`` is gcc's on x86-64 (C11 6.5.3.4): integer types their width,
pointers 8, arrays their element count times the element size, structs
and unions gcc's layout with each member aligned to its size (the
encoding's own packed layout, :mod:`crepair.encode.structs`, is not
observable otherwise).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.formula import LocationKind, Violation
from crepair.encode.memory import LIVE, Memory, MemObject, object_of, offset_of, pointer
from crepair.encode.ops import Value
from crepair.encode.walk import Ctx
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt

#: the allocation functions and their number of arguments
ALLOCATORS = {"malloc": 1, "calloc": 2}


def type_bytes(t, where=None) -> int:
    """``sizeof`` of type ``t`` in bytes (gcc x86-64); raises
    ``UnsupportedConstruct`` at ``where`` for ``void``."""
    return _size_align(t, where)[0]


def _size_align(t, where) -> tuple[int, int]:
    if isinstance(t, ct.PointerType):
        return 8, 8
    if isinstance(t, ct.StructType):
        parts = [(_size_align(m.ctype, where), m.count or 1) for m in t.members]
        align = max((a for (_, a), _ in parts), default=1)
        if t.is_union:
            size = max((s * n for (s, _), n in parts), default=0)
        else:  # each member at the next multiple of its alignment (System V x86-64 ABI)
            size = 0
            for (s, a), n in parts:
                size = -(-size // a) * a + s * n
        return -(-size // align) * align, align
    if t == ct.VOID:
        raise UnsupportedConstruct(where, "sizeof of void")
    n = max(1, t.bits // 8)
    return n, n


class Allocation(Memory):
    """Encodes ``malloc``/``calloc``/``free`` and ``sizeof`` (see module docstring)."""

    # -------------------------------------------------------------- sizeof
    def _sizeof(self, node: c_ast.Node) -> int:
        """``sizeof`` of a type name or an expression, in bytes."""
        t = self._type(node) if isinstance(node, c_ast.Typename) else self._static_type(node)
        if isinstance(t, ct.ArrayType):
            size = None
            if isinstance(node, c_ast.ID):
                size = self._array_size(self._lookup(node))
            elif isinstance(t.size, c_ast.Constant):
                size = int(t.size.value.rstrip("uUlL"), 0) * t.row
            if not isinstance(size, int):
                raise UnsupportedConstruct(self._point(node), "sizeof of an array of unknown or variable size")
            return size * type_bytes(t.elem, self._point(node))
        return type_bytes(t, self._point(node))

    def _static_type(self, node: c_ast.Node):
        """The type of expression ``node`` without evaluating it (the
        operand of ``sizeof``): variables, ``*e``, ``e[i]``, members."""
        match node:
            case c_ast.ID():
                return self._lookup(node).ctype
            case c_ast.Constant(type="char"):
                return ct.INT  # C11 6.4.4.4p10: a character constant is an int
            case c_ast.Constant(type="string"):
                raise UnsupportedConstruct(self._point(node), "sizeof of a string literal")
            case c_ast.UnaryOp(op="*", expr=e):
                return self._elem_of(self._static_type(e), node)
            case c_ast.ArrayRef(name=e):
                t = self._static_type(e)
                if isinstance(t, ct.ArrayType) and t.inner:  # a row of a multi-dimensional array
                    return ct.ArrayType(t.elem, c_ast.Constant("int", str(t.inner[0])), t.inner[1:])
                return self._elem_of(t, node)
            case c_ast.StructRef(name=e, type=kind):
                base = self._static_type(e)
                if kind == "->":
                    base = self._elem_of(base, node)
                return self._member(self._resolved(base), node).ctype
            case c_ast.Cast(to_type=t):
                return self._type(t)
        raise UnsupportedConstruct(self._point(node), "sizeof of this expression (use a type or a variable)")

    def _elem_of(self, t, node: c_ast.Node):
        if isinstance(t, (ct.ArrayType, ct.PointerType)):
            return self._resolved(t.elem)
        raise BadInput("dereference of a value that is not a pointer", self._point(node))

    # --------------------------------------------------------- allocation
    def _note_allocation(self, expr: c_ast.Node | None, target) -> None:
        """Record that ``expr``, if an allocation (under casts), becomes a
        value of pointer type ``target``: its objects' element type."""
        while isinstance(expr, c_ast.Cast):
            expr = expr.expr
        if (isinstance(expr, c_ast.FuncCall) and isinstance(expr.name, c_ast.ID)
                and expr.name.name in ALLOCATORS and isinstance(target, ct.PointerType)):
            self._allocation_types.setdefault(expr, self._resolved(target.elem))

    def _allocate(self, name: str, node: c_ast.FuncCall, args: list[c_ast.Node], ctx: Ctx) -> Value:
        """``malloc(size)`` or ``calloc(n, size)`` at ``node``: a pointer to
        element 0 of a fresh heap object."""
        if len(args) != ALLOCATORS[name]:
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {ALLOCATORS[name]}",
                           self._point(node))
        elem = self._allocation_types.get(node)
        if elem is None:
            raise UnsupportedConstruct(self._point(node), f"{name} whose result is not assigned or cast to a "
                                       "pointer type (the element type of the allocation)")
        line = self._line(node)
        sizes = []
        for i, arg in enumerate(args):
            term, ctx.state = self._located(arg, ctx.state, LocationKind.ARGUMENT, ct.ULONG,
                                            name=f"{name}@{line}::arg{i}")
            sizes.append(term)
        total = sizes[0] if len(sizes) == 1 else sizes[0] * sizes[1]
        count = smt.UDiv(total, smt.BitVecVal(type_bytes(elem, self._point(node)), 64))
        key = f"{name}@{line}#{next(self._instances)}"
        if name == "calloc":
            term = smt.K(smt.BitVecSort(32), smt.BitVecVal(0, elem.bits))
        else:
            term = smt.smt_array(f"{key}#{next(self._ssa)}", elem.bits)
        self._arrays[key] = term
        self._sizes[key] = smt.simplify(smt.Extract(31, 0, count))
        obj = MemObject(len(self._objects) + 1, key, f"{name}@{line}", ct.ArrayType(elem, None), heap=True)
        self._objects[key] = obj
        ctx.state.env[key + LIVE] = smt.BitVecVal(1, 1)
        return Value(pointer(obj.ident, smt.BitVecVal(0, 64)), ct.PointerType(elem))

    def _free(self, node: c_ast.FuncCall, args: list[c_ast.Node], ctx: Ctx) -> Value:
        """``free(p)``: the object ``p`` points to is no longer live."""
        if len(args) != 1:
            raise BadInput(f"call to 'free' with {len(args)} arguments, expected 1", self._point(node))
        ptr = self._expr(args[0], ctx)
        if isinstance(ptr.ctype, ct.IntType):
            self._null_constant(ptr, args[0])  # free(NULL) does nothing; another integer is rejected
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if not isinstance(ptr.ctype, ct.PointerType):
            raise BadInput("free of a value that is not a pointer", self._point(args[0]))
        p, env = ptr.term, ctx.state.env
        obj, off = object_of(p), offset_of(p)
        valid = [obj == smt.BitVecVal(0, 32)]  # free(NULL) does nothing
        for o in self._objects.values():
            live = env.get(o.key + LIVE) if o.heap else None
            if live is None or not ct.same_object_type(o.elem, self._resolved(ptr.ctype.elem)):
                continue
            is_o = obj == smt.BitVecVal(o.ident, 32)
            valid.append(smt.And(is_o, off == smt.BitVecVal(0, 64), live == smt.BitVecVal(1, 1)))
            env[o.key + LIVE] = smt.simplify(smt.If(is_o, smt.BitVecVal(0, 1), live))
        span = self._p.spans.span(args[0])
        subject = " ".join(self._p.original[span.start : span.end].split())
        self._check(ctx, Violation.INVALID_FREE, node, smt.Or(*valid), subject=subject, operands=(off,))
        return Value(smt.BitVecVal(0, 32), ct.VOID)
