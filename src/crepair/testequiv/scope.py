"""C types and variables for the search space: a small type inference.

The search space needs to know, for an expression of a real C program,
whether it is an integer, a pointer or something else (floating point, a
struct), how to name its type in C, and which variables a candidate may
read at a place.  :class:`Types` resolves pycparser type nodes and infers
the type of an expression by C11's rules (§6.3.1.1 integer promotions,
§6.3.1.8 usual arithmetic conversions), for LP64 (x86-64 gcc): ``int`` is
32 bits, ``long`` and pointers 64.

The C library's headers are read through pycparser-fake-libc, whose
typedefs all say ``int``; the standard integer typedefs (``size_t``,
``int64_t``…) are therefore taken from a table of their real LP64 types,
and every other typedef of those headers is opaque (``FILE``,
``va_list``); the user's own headers are read as written.

>>> INT.text, promote(CHAR).text, usual(UINT, LONG).text
('int', 'int', 'long')
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from crepair.frontend.preprocess import in_user_file
from crepair.testequiv.ctext import int_literal



class TypeKind(enum.Enum):
    INTEGER = "integer"  # also _Bool, char, enums
    POINTER = "pointer"
    ARRAY = "array"
    FLOAT = "float"
    RECORD = "record"  # struct or union
    VOID = "void"
    FUNCTION = "function"
    OTHER = "other"  # opaque header typedefs, anything not understood


@dataclass(frozen=True, slots=True)
class CType:
    """A C type.  ``text`` names it in C (``"unsigned int"``, ``"char *"``;
    empty when it has no simple name, e.g. a pointer to an array);
    integers have a conversion ``rank`` (_Bool 0, char 1, short 2, int 3,
    long 4, long long 5) and ``signed``; ``target`` is the pointee
    (POINTER), element (ARRAY) or return type (FUNCTION); ``record`` keys
    a struct's members in :class:`Types`; ``const`` is the top qualifier."""

    kind: TypeKind
    text: str
    rank: int = 0
    signed: bool = True
    target: CType | None = None
    record: str = ""
    const: bool = False

    @property
    def scalar(self) -> bool:
        """Integer or (named) pointer: a value the search space can handle."""
        return self.kind == TypeKind.INTEGER or (self.kind == TypeKind.POINTER and bool(self.text))


_SIZES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 8}
_NAMES = {0: "_Bool", 1: "char", 2: "short", 3: "int", 4: "long", 5: "long long"}


def integer(rank: int, signed: bool = True) -> CType:
    if rank == 0:
        return CType(TypeKind.INTEGER, "_Bool", 0, False)
    name = _NAMES[rank]
    text = name if signed else f"unsigned {name}"
    if rank == 1 and signed:
        text = "char"  # plain char is signed on x86-64
    return CType(TypeKind.INTEGER, text, rank, signed)


INT, UINT, LONG, ULONG, CHAR = integer(3), integer(3, False), integer(4), integer(4, False), integer(1)
DOUBLE = CType(TypeKind.FLOAT, "double")
VOID = CType(TypeKind.VOID, "void")
OTHER = CType(TypeKind.OTHER, "")


def pointer_to(t: CType) -> CType:
    if t.kind in (TypeKind.ARRAY, TypeKind.FUNCTION) or not t.text:
        return CType(TypeKind.POINTER, "", target=t)
    base = ("const " if t.const else "") + t.text
    return CType(TypeKind.POINTER, base + ("*" if base.endswith("*") else " *"), target=t)


def decay(t: CType) -> CType:
    """Arrays and functions used as values become pointers (§6.3.2.1)."""
    if t.kind == TypeKind.ARRAY and t.target is not None:
        return pointer_to(t.target)
    if t.kind == TypeKind.FUNCTION:
        return pointer_to(t)
    return t


def promote(t: CType) -> CType:
    if t.kind == TypeKind.INTEGER and t.rank < 3:
        return INT
    return t


def usual(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions of two arithmetic types."""
    if TypeKind.FLOAT in (a.kind, b.kind):
        return DOUBLE
    if a.kind != TypeKind.INTEGER or b.kind != TypeKind.INTEGER:
        return OTHER
    a, b = promote(a), promote(b)
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    s, u = (a, b) if a.signed else (b, a)
    if u.rank >= s.rank:
        return u
    if _SIZES[s.rank] > _SIZES[u.rank]:
        return s
    return integer(s.rank, False)


_LIBC_INTEGERS = {
    "size_t": ULONG, "ssize_t": LONG, "ptrdiff_t": LONG, "intptr_t": LONG, "uintptr_t": ULONG,
    "intmax_t": LONG, "uintmax_t": ULONG, "time_t": LONG, "clock_t": LONG, "off_t": LONG,
    "pid_t": INT, "uid_t": UINT, "gid_t": UINT, "wchar_t": INT, "wint_t": UINT, "bool": integer(0),
    "sig_atomic_t": INT, "mode_t": UINT, "useconds_t": UINT, "suseconds_t": LONG, "u_int": UINT,
    "uint": UINT, "ushort": integer(2, False), "u_char": integer(1, False), "u_short": integer(2, False),
    "u_long": ULONG,
}
_EXACT = re.compile(r"(u?)int(_least|_fast)?(8|16|32|64)_t\Z")
_RANK_OF_BITS = {8: 1, 16: 2, 32: 3, 64: 4}


def _libc_typedef(name: str) -> CType:
    if name in _LIBC_INTEGERS:
        return _LIBC_INTEGERS[name]
    m = _EXACT.match(name)
    if m:
        bits = int(m[3])
        if m[2] == "_fast" and bits > 8:
            bits = 64  # glibc's fast types are long on x86-64
        return integer(_RANK_OF_BITS[bits], not m[1])
    return CType(TypeKind.OTHER, name)


def _integer_names(names: list[str]) -> CType | None:
    words = [n for n in names if n not in ("signed", "unsigned")]
    signed = "unsigned" not in names
    longs = words.count("long")
    if "_Bool" in words:
        return integer(0)
    if "char" in words:
        return integer(1, signed) if ("unsigned" in names or "signed" in names) else CHAR
    if "short" in words:
        return integer(2, signed)
    if longs:
        return integer(min(3 + longs, 5), signed)
    if not words or words == ["int"]:
        return integer(3, signed)
    return None


class Types:
    """Types of one program: typedefs, structs, enumerators, functions.

    ``Types(program.ast)``; :meth:`resolve` turns a declaration's type node
    into a :class:`CType`, :meth:`of` infers an expression's type given the
    variables in scope (name -> CType).  Never raises on odd input: what it
    does not understand is ``OTHER``.
    """

    def __init__(self, ast: c_ast.FileAST):
        self._typedefs: dict[str, tuple[c_ast.Node, bool]] = {}
        self._records: dict[str, dict[str, c_ast.Node]] = {}
        self._anonymous: dict[int, str] = {}
        self.enumerators: set[str] = set()
        self.functions: dict[str, c_ast.Node] = {}
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                libc = ext.coord is not None and "pycparser_fake_libc" in Path(ext.coord.file).parts
                self._typedefs[ext.name] = (ext.type, not libc)
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
        """The type a declaration's type node denotes."""
        match node:
            case c_ast.TypeDecl(type=inner, quals=quals):
                t = self.resolve(inner)
                return CType(t.kind, t.text, t.rank, t.signed, t.target, t.record, "const" in (quals or []))
            case c_ast.Typename(type=inner) | c_ast.Decl(type=inner):
                return self.resolve(inner)
            case c_ast.PtrDecl(type=inner, quals=quals):
                t = pointer_to(self.resolve(inner))
                return CType(t.kind, t.text, target=t.target, const="const" in (quals or []))
            case c_ast.ArrayDecl(type=inner):
                element = self.resolve(inner)
                return CType(TypeKind.ARRAY, f"{element.text} []" if element.text else "", target=element)
            case c_ast.FuncDecl(type=inner):
                return CType(TypeKind.FUNCTION, "", target=self.resolve(inner))
            case c_ast.IdentifierType(names=names):
                return self._names(names)
            case c_ast.Struct() | c_ast.Union():
                key = self._record_key(node)  # complete or not, a tagged record is nameable
                return CType(TypeKind.RECORD, key if node.name else "", record=key)
            case c_ast.Enum():
                return INT
        return OTHER

    def _names(self, names: list[str]) -> CType:
        if any(n in ("float", "double") for n in names):
            return DOUBLE
        if names == ["void"]:
            return VOID
        if len(names) == 1 and names[0] in self._typedefs:
            node, own = self._typedefs[names[0]]
            if not own:
                return _libc_typedef(names[0])
            t = self.resolve(node)
            if t.kind in (TypeKind.RECORD, TypeKind.OTHER, TypeKind.POINTER):
                return CType(t.kind, names[0], target=t.target, record=t.record)  # named by the typedef
            return t
        return _integer_names(names) or OTHER

    def member(self, record: CType, field: str) -> CType:
        members = self._records.get(record.record, {})
        node = members.get(field)
        return self.resolve(node) if node is not None else OTHER

    # -- expressions ----------------------------------------------------------
    def of(self, node: c_ast.Node, scope: dict[str, CType]) -> CType:
        """The type of expression ``node``, arrays not decayed; ``scope``
        maps the visible variables to their types."""
        match node:
            case c_ast.Constant(type=kind, value=value):
                return _constant_type(kind, value)
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
            case c_ast.BinaryOp(op=op, left=l, right=r):
                return self._binary(op, decay(self.of(l, scope)), decay(self.of(r, scope)))
            case c_ast.Assignment(lvalue=l):
                return self.of(l, scope)
            case c_ast.TernaryOp(iftrue=t, iffalse=f):
                a, b = decay(self.of(t, scope)), decay(self.of(f, scope))
                if a.kind in (TypeKind.INTEGER, TypeKind.FLOAT) and b.kind in (TypeKind.INTEGER, TypeKind.FLOAT):
                    return usual(a, b)
                return a if a.kind == TypeKind.POINTER else b
            case c_ast.Cast(to_type=t) | c_ast.CompoundLiteral(type=t):
                return self.resolve(t)
            case c_ast.FuncCall(name=callee):
                f = decay(self.of(callee, scope))
                f = f.target if f.kind == TypeKind.POINTER and f.target is not None else f
                if callee is not None and isinstance(callee, c_ast.ID) and f.kind == TypeKind.OTHER:
                    return INT  # an undeclared function: C89's implicit int
                return f.target if f.kind == TypeKind.FUNCTION and f.target is not None else OTHER
            case c_ast.ArrayRef(name=n, subscript=s):
                base = decay(self.of(n, scope))
                if base.kind != TypeKind.POINTER:
                    base = decay(self.of(s, scope))
                return base.target if base.kind == TypeKind.POINTER and base.target is not None else OTHER
            case c_ast.StructRef(name=n, type=arrow, field=f):
                base = decay(self.of(n, scope))
                if arrow == "->":
                    base = base.target if base.kind == TypeKind.POINTER and base.target is not None else OTHER
                return self.member(base, f.name) if base.kind == TypeKind.RECORD else OTHER
            case c_ast.ExprList(exprs=es) if es:
                return self.of(es[-1], scope)
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
        return decay(t)  # ++ and --

    def _binary(self, op: str, a: CType, b: CType) -> CType:
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return INT
        if op in ("<<", ">>"):
            return promote(a)
        if op in ("+", "-") and TypeKind.POINTER in (a.kind, b.kind):
            if a.kind == b.kind:
                return LONG  # ptrdiff_t
            return a if a.kind == TypeKind.POINTER else b
        return usual(a, b)


def _constant_type(kind: str, value: str) -> CType:
    if kind == "char":
        return INT
    if kind == "string":
        return pointer_to(CHAR)
    if kind in ("float", "double", "long double"):
        return DOUBLE
    parsed = int_literal(value)
    return integer(parsed[1], parsed[2]) if parsed is not None else INT


class VarKind(enum.Enum):
    GLOBAL = "global"
    PARAM = "parameter"
    LOCAL = "local"


@dataclass(frozen=True, slots=True)
class Var:
    """A variable visible at a site: ``name``, its declared ``type``
    (arrays not decayed) and where it is declared."""

    name: str
    type: CType
    kind: VarKind

    @property
    def integer(self) -> bool:
        return self.type.kind == TypeKind.INTEGER

    @property
    def pointer(self) -> bool:
        return self.type.kind == TypeKind.POINTER and bool(self.type.text)


def why_not_a_site(t: CType) -> str:
    """Why a value of type ``t`` is not an EXPR site (a note of the search space)."""
    match t.kind:
        case TypeKind.FLOAT:
            return "floating-point value (not a site)"
        case TypeKind.RECORD:
            return "struct or union value (not a site)"
        case TypeKind.VOID:
            return "void value (not a site)"
        case TypeKind.POINTER:
            return "pointer whose type has no simple C name (not a site)"
    return "value of a type not understood (not a site)"


@dataclass(slots=True)
class Function:
    """What the candidates of one function draw on: its integer constants
    (value -> spelling, most frequent first) and the lines where each
    name is used."""

    name: str
    constants: dict[int, str] = field(default_factory=dict)
    uses: dict[str, list[int]] = field(default_factory=dict)
