"""Array initializers and string literals (C11 6.7.9, gcc on x86-64).

``int a[10] = {1, 2, 3}`` sets the listed elements and zeroes the rest;
``int a[] = {...}`` takes its size from the list; ``char s[] = "abc"``
holds the string's bytes (UTF-8, as gcc stores them) and its terminating
NUL, which ``char s[3] = "abc"`` leaves out.  The array's term is the
chain ``store(... store(K(0), 0, v0) ..., n-1, v(n-1))``: no path guard is
needed, as the declaration's key is fresh.  In a function each listed
value is an assignment location (AllRepair FM'16, Sect. 3.1), as a
scalar's initializer is; at file scope values are constants.
A multi-dimensional array's list is flattened row by row
(:mod:`crepair.encode.dimensions`).  Designated initializers are
rejected by the front-end.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.core import EncoderCore
from crepair.encode.formula import LocationKind
from crepair.encode.ops import convert, string_bytes
from crepair.encode.walk import Ctx, State, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt

class Initializers(EncoderCore):
    """Encodes array declarations with an initializer."""

    def _initialized_array(
        self, name: str, ctype: ct.ArrayType, init: c_ast.Node, state: State, *, located: bool, key: str = ""
    ) -> tuple[ct.ArrayType, smt.Term, State]:
        """The array declared as ``ctype name = init``: its type (with the
        size the initializer gives when the declaration gives none), its
        term, and the state after the values' side effects.  ``located``:
        each value is an assignment location named after ``key``.  Raises
        ``BadInput`` for an initializer that is not an array's, or longer
        than the array."""
        elem = ctype.elem
        values: list[c_ast.Node | int]
        if ctype.inner:  # T a[n][d1]... = {{...}, ...}: flat, row by row (crepair.encode.dimensions)
            values = self._flat_initializer(name, init, ctype)
            length, optional = len(values), 0
        else:
            values, length, optional = self._array_values(name, elem, init)
        if ctype.size is None:
            rows = -(-length // ctype.row)
            ctype = ct.ArrayType(elem, c_ast.Constant("int", str(rows), init.coord), ctype.inner)
        else:
            size = self._constant_size(ctype.size, name, state) * smt.BitVecVal(ctype.row, 64)
            fits = smt.simplify(smt.ULE(smt.BitVecVal(length - optional, 64), size))
            if not smt.is_true(fits):
                what = f"initializer-string for array '{name}' is too long" if optional else (
                    f"excess elements in the initializer of array '{name}'"
                )
                raise BadInput(what, self._point(init))
            if not smt.is_true(smt.simplify(smt.ULE(smt.BitVecVal(length, 64), size))):
                values = values[:-1]
        term = smt.K(smt.BitVecSort(32), smt.BitVecVal(0, elem.bits))
        for i, value in enumerate(values):
            if isinstance(value, int):
                v = smt.BitVecVal(value, elem.bits)
            elif located:
                v, state = self._located(value, state, LocationKind.ASSIGNMENT, elem, name=key)
            else:
                v = convert(self._expr(value, Ctx(state, {}, {}, True)), elem).term
            term = smt.Store(term, smt.BitVecVal(i, 32), v)
        return ctype, term, state

    def _array_values(self, name: str, elem, init: c_ast.Node) -> tuple[list, int, int]:
        """The values of a one-dimensional array's initializer: nodes or
        bytes, their number, and 1 if the last (a string's NUL) may be
        left out (``char s[3] = "abc"``)."""
        if isinstance(init, c_ast.InitList) and len(init.exprs) == 1 and _is_string(init.exprs[0]):
            init = init.exprs[0]  # char s[] = {"abc"}
        if _is_string(init):
            if elem.bits != 8 or elem.is_bool:
                raise BadInput(f"array '{name}' of {elem.name} initialized from a string literal", self._point(init))
            data = string_bytes(init.value, self._point(init))
            return list(data) + [0], len(data) + 1, 1  # the NUL may not fit
        if isinstance(init, c_ast.InitList):
            nested = next((v for v in init.exprs if isinstance(v, c_ast.InitList)), None)
            if nested is not None and not isinstance(elem, ct.StructType):
                raise UnsupportedConstruct(self._point(nested), "nested initializer list for a scalar element")
            return list(init.exprs), len(init.exprs), 0
        raise BadInput(f"array '{name}' initialized with an expression that is not a list", self._point(init))

    def _scalar_initializer(self, name: str, init: c_ast.InitList) -> c_ast.Node:
        """The value of ``int x = {e};`` (C11 6.7.9p11)."""
        if len(init.exprs) != 1:
            raise BadInput(f"scalar '{name}' initialized with {len(init.exprs)} values", self._point(init))
        return init.exprs[0]

    def _constant_size(self, size: c_ast.Node, name: str, state: State) -> smt.Term:
        """The value (64 bits) of the size of an initialized array, which C
        requires to be constant."""
        if has_effects(size):
            raise BadInput(f"variable-length array '{name}' with an initializer", self._point(size))
        value = convert(self._expr(size, Ctx(state, {}, {}, True)), ct.ULONG).term
        value = smt.simplify(value)
        if not smt.is_bv_value(value):
            raise BadInput(f"variable-length array '{name}' with an initializer", self._point(size))
        return value


def _is_string(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.type == "string"
