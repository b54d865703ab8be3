"""Declared types and the type of an expression (C11 6.5, gcc on x86-64).

:class:`Types` holds one program's typedefs, structs and unions,
enumeration constants and functions; :meth:`Types.resolve` turns a
declaration's type node into a :class:`crepair.typed.model.CType` and
:meth:`Types.of` infers an expression's type given the variables in
scope, as C11 6.5 types each operator: an lvalue has its declared type
(an array is not decayed: ``sizeof`` and ``&`` see it whole), arithmetic
operators the usual arithmetic conversions of their operands, shifts the
promoted left operand, comparisons and ``!``, ``&&``, ``||`` ``int``, an
assignment, ``++`` and ``--`` their operand's unqualified type, the comma
operator its right operand after lvalue conversion, ``sizeof``
``unsigned long`` (``size_t``).

The C library's headers as pycparser-fake-libc writes them declare every
typedef as ``int``; those typedefs are taken from the table of their real
x86-64 types (:func:`crepair.typed.model.libc_typedef`) and any other of
them (``FILE``, ``va_list``) is opaque.  Never raises on odd input: what it
does not understand is ``OTHER``.
"""

from __future__ import annotations

from pathlib import Path

from pycparser import c_ast

from crepair.frontend.preprocess import in_user_file
from crepair.typed.model import (
    CHAR, DOUBLE, FLOAT, INT, LDOUBLE, LONG, OTHER, ULONG, CType, TypeKind, array_of, decay, integer_literal,
    libc_typedef, named, pointer_to, promote, usual,
)

_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!=", "&&", "||"})


class Types:
    """Types of one program: typedefs, structs, enumerators, functions.

    ``Types(program_ast)``; :meth:`resolve` and :meth:`of` (see the module
    docstring).  ``enumerators`` are the names of the enumeration
    constants, ``functions`` the declared functions' type nodes by name.
    """

    def __init__(self, ast: c_ast.FileAST):
        self._typedefs: dict[str, tuple[c_ast.Node, bool]] = {}
        self._records: dict[str, dict[str, c_ast.Node]] = {}
        self._anonymous: dict[int, str] = {}
        self.enumerators: set[str] = set()
        self.functions: dict[str, c_ast.Node] = {}
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                self._typedefs[ext.name] = (ext.type, not from_fake_libc(ext))
            elif isinstance(ext, c_ast.FuncDef):
                self.functions[ext.decl.name] = ext.decl.type
            elif isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl):
                self.functions.setdefault(ext.name, ext.type)
        self._collect(ast)

    def _collect(self, ast: c_ast.Node) -> None:
        stack = [ast]
        while stack:
            node = stack.pop()
            if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.decls is not None:
                members = {d.name: d.type for d in node.decls if isinstance(d, c_ast.Decl) and d.name}
                self._records[self._record_key(node)] = members
            elif isinstance(node, c_ast.Enumerator):
                self.enumerators.add(node.name)
            elif isinstance(node, c_ast.Typedef) and in_user_file(node):
                self._typedefs.setdefault(node.name, (node.type, True))
            stack.extend(child for _, child in node.children())

    def _record_key(self, node: c_ast.Node) -> str:
        kind = "struct" if isinstance(node, c_ast.Struct) else "union"
        if node.name:
            return f"{kind} {node.name}"
        return self._anonymous.setdefault(id(node), f"{kind} #{len(self._anonymous)}")

    # -- declarations -------------------------------------------------------
    def resolve(self, node: c_ast.Node) -> CType:
        """The type a declaration's type node (or a ``Typename``) denotes."""
        match node:
            case c_ast.TypeDecl(type=inner, quals=quals):
                t = self.resolve(inner)
                return CType(t.kind, t.text, t.rank, t.signed, t.target, t.record, "const" in (quals or []))
            case c_ast.Typename(type=inner) | c_ast.Decl(type=inner):
                return self.resolve(inner)
            case c_ast.PtrDecl(type=inner, quals=quals):
                t = pointer_to(self.resolve(inner))
                return CType(t.kind, t.text, target=t.target, const="const" in (quals or []))
            case c_ast.ArrayDecl(type=inner, dim=dim):
                length = integer_literal(dim.value) if isinstance(dim, c_ast.Constant) and dim.type == "int" else None
                return array_of(self.resolve(inner), length[0] if length else None)
            case c_ast.FuncDecl(type=inner):
                return CType(TypeKind.FUNCTION, "", target=self.resolve(inner))
            case c_ast.IdentifierType(names=names):
                return self._names(names)
            case c_ast.Struct() | c_ast.Union():
                key = self._record_key(node)  # complete or not, a tagged record is nameable
                return CType(TypeKind.RECORD, key if node.name else "", record=key)
            case c_ast.Enum():
                return INT  # gcc: unsigned int when no constant is negative (the front-end lowers enums first)
        return OTHER

    def _names(self, names: list[str]) -> CType:
        if len(names) == 1 and names[0] in self._typedefs:
            node, own = self._typedefs[names[0]]
            if not own:
                return libc_typedef(names[0])
            t = self.resolve(node)
            if t.kind in (TypeKind.RECORD, TypeKind.OTHER, TypeKind.POINTER):
                return CType(t.kind, names[0], target=t.target, record=t.record)  # named by the typedef
            return t
        return named(names) or OTHER

    def member(self, record: CType, field: str) -> CType:
        """The declared type of member ``field`` of struct or union ``record``."""
        members = self._records.get(record.record, {})
        node = members.get(field)
        return self.resolve(node) if node is not None else OTHER

    # -- expressions ----------------------------------------------------------
    def of(self, node: c_ast.Node, scope: dict[str, CType]) -> CType:
        """The type of expression ``node`` (arrays not decayed); ``scope``
        maps the visible variables to their declared types."""
        match node:
            case c_ast.Constant(type=kind, value=value):
                return constant_type(kind, value)
            case c_ast.ID(name=name):
                if name in scope:
                    return scope[name]
                if name in self.enumerators:
                    return INT
                if name in self.functions:
                    return self.resolve(self.functions[name])
                return OTHER
            case c_ast.UnaryOp(op=op, expr=e):
                return self._unary(op, e, scope)
            case c_ast.BinaryOp(op=op, left=left, right=right):
                return self._binary(op, decay(self.of(left, scope)), decay(self.of(right, scope)))
            case c_ast.Assignment(lvalue=lvalue):
                return self.of(lvalue, scope).unqualified()
            case c_ast.TernaryOp(iftrue=t, iffalse=f):
                a, b = decay(self.of(t, scope)), decay(self.of(f, scope))
                if a.kind in (TypeKind.INTEGER, TypeKind.FLOAT) and b.kind in (TypeKind.INTEGER, TypeKind.FLOAT):
                    return usual(a, b)
                return (a if a.kind == TypeKind.POINTER else b).unqualified()
            case c_ast.Cast(to_type=t):
                return self.resolve(t).unqualified()
            case c_ast.CompoundLiteral(type=t):
                return self.resolve(t)
            case c_ast.FuncCall(name=callee):
                f = decay(self.of(callee, scope))
                f = f.target if f.kind == TypeKind.POINTER and f.target is not None else f
                if isinstance(callee, c_ast.ID) and f.kind == TypeKind.OTHER:
                    return INT  # an undeclared function: C89's implicit int
                return f.target if f.kind == TypeKind.FUNCTION and f.target is not None else OTHER
            case c_ast.ArrayRef(name=n, subscript=s):
                base = decay(self.of(n, scope))
                if base.kind != TypeKind.POINTER:
                    base = decay(self.of(s, scope))  # 2[a] is a[2]
                return base.target if base.kind == TypeKind.POINTER and base.target is not None else OTHER
            case c_ast.StructRef(name=n, type=arrow, field=f):
                base = decay(self.of(n, scope))
                if arrow == "->":
                    base = base.target if base.kind == TypeKind.POINTER and base.target is not None else OTHER
                return self.member(base, f.name) if base.kind == TypeKind.RECORD else OTHER
            case c_ast.ExprList(exprs=es) if es:
                return decay(self.of(es[-1], scope)).unqualified()
        return OTHER

    def _unary(self, op: str, e: c_ast.Node, scope: dict[str, CType]) -> CType:
        if op in ("sizeof", "_Alignof"):
            return ULONG
        if op == "!":
            return INT
        if op == "&":
            return pointer_to(self.of(e, scope))
        t = self.of(e, scope)
        if op == "*":
            t = decay(t)
            return t.target if t.kind == TypeKind.POINTER and t.target is not None else OTHER
        if op in ("-", "+", "~"):
            return promote(t)
        return decay(t).unqualified()  # ++ and --

    @staticmethod
    def _binary(op: str, a: CType, b: CType) -> CType:
        if op in _COMPARISONS:
            return INT
        if op in ("<<", ">>"):
            return promote(a)
        if op in ("+", "-") and TypeKind.POINTER in (a.kind, b.kind):
            if a.kind == b.kind:
                return LONG  # ptrdiff_t
            return (a if a.kind == TypeKind.POINTER else b).unqualified()
        return usual(a, b)


def from_fake_libc(node: c_ast.Node) -> bool:
    """Whether ``node`` comes from pycparser-fake-libc's headers (whose
    typedefs all say ``int``)."""
    return node.coord is not None and "pycparser_fake_libc" in Path(node.coord.file).parts


def constant_type(kind: str, value: str) -> CType:
    """The type of a constant as pycparser gives it (``kind`` "int",
    "char", "string", "float", "double", …, and its text): a character
    constant is an ``int``, a string literal an array of ``char``, a
    floating constant ``double`` unless suffixed ``f`` or ``l``."""
    if kind == "char":
        return INT
    if kind == "string":
        return array_of(CHAR)  # (its length counts escapes: not worked out here)
    if kind in ("float", "double", "long double"):
        suffix = value[-1:].lower()
        return FLOAT if suffix == "f" else LDOUBLE if suffix == "l" else DOUBLE
    parsed = integer_literal(value)
    return parsed[1] if parsed is not None else INT

