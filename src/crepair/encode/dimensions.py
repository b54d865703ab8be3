"""Multi-dimensional arrays: ``T a[n][d1]...[dk]`` as one flat array.

C stores such an array in row-major order (C11 6.5.2.1p3), and gcc lays it
out so: ``a[i][j]`` is element ``i * d1 + j`` of the flat array of
``n * d1`` elements of ``T``.  The encoding does the same — one SMT array
per variable, as for one dimension (:class:`~crepair.encode.ctypes.ArrayType`
with ``inner = (d1, ..., dk)``, constant inner dimensions).  A full
access ``a[i][j]`` reads or stores one element, each subscript checked
against its own dimension (ARRAY_BOUNDS, as CBMC's ``--bounds-check``);
a row ``a[i]`` used as a value decays to a pointer to its first element
(C11 6.3.2.1p3) — a pointer into the flat object of the memory model
(:mod:`crepair.encode.memory`), so ``scanf("%s", a[i])``, ``strlen(a[i])``
and a row passed to a function as ``int *`` work.  Initializers are
flattened row by row (nested braces, strings for char rows, brace
elision of scalars; C11 6.7.9p20-22).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.memory import Memory, pointer
from crepair.encode.ops import Value, convert, string_bytes
from crepair.encode.walk import Ctx, Var
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


def _chain(node: c_ast.Node) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """The base of an access ``b[s0][s1]...`` and its subscripts, outermost first."""
    subs = []
    while isinstance(node, c_ast.ArrayRef):
        subs.append(node.subscript)
        node = node.name
    return node, subs[::-1]


class Dimensions(Memory):
    """Accesses to multi-dimensional array variables (see module docstring)."""

    def _multi(self, node: c_ast.Node) -> tuple[Var, list[c_ast.Node]] | None:
        """``(variable, subscripts)`` when ``node`` subscripts a
        multi-dimensional array variable, else None."""
        base, subs = _chain(node)
        if not isinstance(base, c_ast.ID) or not subs:
            return None
        var = next((s[base.name] for s in reversed(self._scopes) if base.name in s), None)
        if var is None or not isinstance(var.ctype, ct.ArrayType) or not var.ctype.inner:
            return None
        return var, subs

    def _flat_index(self, var: Var, subs: list[c_ast.Node], node: c_ast.Node, ctx: Ctx) -> smt.Term:
        """The 32-bit flat index of the first element ``var[s0]...[sk]``
        designates, each subscript checked against its dimension."""
        t = var.ctype
        dims: list = [None, *t.inner]
        if len(subs) > len(dims):
            raise BadInput(f"subscript of '{node_name(node)}' beyond its {len(dims)} dimensions", self._point(node))
        total = self._array_size(var)
        if isinstance(total, int):
            dims[0] = total // t.row
        elif total is not None:
            dims[0] = smt.UDiv(total, smt.BitVecVal(t.row, 32))
        index = smt.BitVecVal(0, 64)
        name = node_name(node)
        for k, sub in enumerate(subs):
            v = self._expr(sub, ctx)
            if dims[k] is None:
                wide = convert(v, ct.LONG if v.ctype.signed or v.ctype.bits < 64 else ct.ULONG).term
            else:
                wide = self._check_index_within(ctx, node, v, dims[k], name + "[]" * k)
            index = wide if k == 0 else index * smt.BitVecVal(t.inner[k - 1], 64) + wide
        stride = 1
        for d in t.inner[len(subs) - 1:]:
            stride *= d
        return smt.simplify(smt.Extract(31, 0, index * smt.BitVecVal(stride, 64)))

    def _multi_value(self, node: c_ast.ArrayRef, ctx: Ctx) -> Value:
        """``a[i][j]`` (an element) or ``a[i]`` (a row: a pointer to its first element)."""
        var, subs = self._multi(node)
        if ctx.record:
            ctx.cache[node] = self._arrays[var.key]
        array = ctx.cache[node]
        index = self._flat_index(var, subs, node, ctx)
        depth = 1 + len(var.ctype.inner)
        if len(subs) == depth:
            return Value(smt.Select(array, index), var.ctype.elem)
        if len(subs) == depth - 1:
            ident = self._object(var, node_name(node)).ident
            return Value(pointer(ident, smt.SignExt(32, index)), ct.PointerType(var.ctype.elem))
        raise UnsupportedConstruct(self._point(node), "a sub-array of more than one dimension used as a value")

    # -------------------------------------------------------- initializers
    def _flat_initializer(self, name: str, init: c_ast.Node, t: ct.ArrayType) -> list:
        """The flat element values (initializer nodes, or ints for string
        bytes; zero-filled rows) of ``t name = init``; raises ``BadInput``
        for a row longer than its dimension."""
        if not isinstance(init, c_ast.InitList):
            raise BadInput(f"array '{name}' initialized with an expression that is not a list", self._point(init))
        return self._flat_rows(name, init, t.inner, t.elem)

    def _flat_rows(self, name: str, init: c_ast.Node, inner: tuple[int, ...], elem) -> list:
        if isinstance(init, c_ast.Constant) and init.type == "string":
            if inner or elem.bits != 8:
                raise BadInput(f"array '{name}' initialized from a string literal where a list is needed",
                               self._point(init))
            return list(string_bytes(init.value, self._point(init))) + [0]
        if not isinstance(init, c_ast.InitList):
            return [init]
        row = 1
        for d in inner:
            row *= d
        out: list = []
        for item in init.exprs:
            braced = isinstance(item, c_ast.InitList) or (isinstance(item, c_ast.Constant) and item.type == "string")
            if inner and braced:
                out += [0] * (-len(out) % row)  # a braced row starts at a row boundary
                values = self._flat_rows(name, item, inner[1:], elem)
                optional = 1 if isinstance(item, c_ast.Constant) else 0  # the NUL of a string may not fit
                if len(values) - optional > row:
                    raise BadInput(f"excess elements in a row of the initializer of array '{name}'", self._point(item))
                out += values[:row] + [0] * (row - min(len(values), row))
            elif isinstance(item, c_ast.InitList):
                raise UnsupportedConstruct(self._point(item), "nested initializer list for a scalar element")
            else:
                out.append(item)  # brace elision: scalars fill the elements in order
        return out


def node_name(node: c_ast.Node) -> str:
    """The variable an access ``a[i][j]`` subscripts."""
    base, _ = _chain(node)
    return base.name if isinstance(base, c_ast.ID) else "array"
