"""Command-line arguments of an entry function ``main(int argc, char *argv[])``.

The arguments are bounded nondeterministic strings (the issue's "argv as
bounded nondeterministic strings", as CBMC models them): ``argc`` is an
input with ``1 <= argc <= ARGV_MAX``; ``argv[0 .. ARGV_MAX-1]`` point to
char arrays of ``--input-bound`` + 1 elements whose characters are inputs
and whose last element is NUL (a string of at most ``--input-bound``
characters); ``argv[argc]`` is the null pointer (C11 5.1.2.2.1p2).  The
array ``argv`` itself is an array of pointers (64-bit elements of the
memory model, :mod:`crepair.encode.memory`): ``argv[i][j]`` reads
through the pointer, with the pointer checks; ``argv[K]`` with a
constant ``K`` may also be passed to the string functions
(:mod:`crepair.encode.strings`, ``atoi``), which then read the K-th
string.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.formula import Constraint, Input
from crepair.encode.memory import NULL, Memory, pointer
from crepair.encode.walk import State, Var
from crepair.errors import UnsupportedConstruct
from crepair.solver import smt

ARGV_MAX = 3  # the most arguments, the program's name included


def is_argv(decl: c_ast.Node) -> bool:
    """Whether parameter ``decl`` is ``char *argv[]`` or ``char **argv``."""
    t = getattr(decl, "type", None)
    if not isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) or not isinstance(t.type, c_ast.PtrDecl):
        return False
    inner = t.type.type
    return (isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, c_ast.IdentifierType)
            and inner.type.names == ["char"])


class Arguments(Memory):
    """Builds ``argc`` and ``argv`` of the entry function (see module docstring)."""

    def _argv_input(self, argv: Var, argc: Var | None, func: c_ast.FuncDef, state: State) -> Var:
        """Declare the entry's ``argv`` (a :class:`Var` whose ``unusable``
        reason is replaced) as ``ARGV_MAX`` bounded strings, ``argc`` (if
        given) their number; returns the usable ``argv`` variable."""
        length = self._input_bound() + 1
        line = self._line(func)
        usable = Var(argv.key, ct.ArrayType(ct.PointerType(ct.CHAR), c_ast.Constant("int", str(ARGV_MAX + 1))))
        count = state.env[argc.key] if argc is not None else smt.BitVecVal(ARGV_MAX, 32)
        self.formula.assumptions.append(Constraint(smt.And(count >= smt.BitVecVal(1, 32),
                                                           count <= smt.BitVecVal(ARGV_MAX, 32)),
                                                   None))  # the C start-up, not a line of the program
        term = smt.K(smt.BitVecSort(32), NULL)
        self._argv_strings = []
        for i in range(ARGV_MAX):
            s = Var(f"{argv.key}${i}", ct.ArrayType(ct.CHAR, c_ast.Constant("int", str(length))))
            chars = smt.smt_array(f"{s.key}#{next(self._ssa)}", 8)
            self._arrays[s.key] = smt.Store(chars, smt.BitVecVal(length - 1, 32), smt.BitVecVal(0, 8))
            self._sizes[s.key] = smt.BitVecVal(length, 32)
            self.formula.inputs.append(Input(f"argv[{i}]", line, chars, True, is_array=True,
                                             size=smt.BitVecVal(length - 1, 32), guard=state.guard))
            self._argv_strings.append(s)
            ident = self._object(s, f"argv[{i}]").ident
            here = smt.BitVecVal(i, 32)
            term = smt.Store(term, here, smt.If(here < count, pointer(ident, smt.BitVecVal(0, 64)), NULL))
        self._arrays[usable.key] = term
        self._sizes[usable.key] = smt.BitVecVal(ARGV_MAX + 1, 32)
        return usable

    def _argv_string(self, var: Var, index: c_ast.Node) -> Var | None:
        """The K-th argument string for ``argv[K]`` (``K`` a constant), if
        ``var`` is the entry's ``argv``; raises ``UnsupportedConstruct``
        for ``K >= ARGV_MAX`` (an argument crepair does not model)."""
        strings = getattr(self, "_argv_strings", None)
        if not strings or var.key != strings[0].key.rsplit("$", 1)[0] or not isinstance(index, c_ast.Constant):
            return None
        try:
            k = int(index.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
        if k >= len(strings):
            raise UnsupportedConstruct(
                self._point(index), f"argv[{k}]: crepair models at most {ARGV_MAX - 1} command-line arguments "
                f"(argv[1]..argv[{ARGV_MAX - 1}]); give --entry FUNCTION to start from a function that takes "
                "the values as parameters")
        return strings[k] if 0 <= k else None
