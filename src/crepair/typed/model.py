"""The C type model of gcc on x86-64 (LP64).

A :class:`CType` is one C type: integers by conversion rank (C11 6.3.1.1:
``_Bool`` 0, the three ``char`` types 1, ``short`` 2, ``int`` 3, ``long`` 4,
``long long`` 5) and signedness, with ``char`` signed and distinct from
``signed char``; ``float``, ``double`` and ``long double``; pointers,
arrays and functions with their target type; structs and unions by tag.
Widths are gcc's on x86-64: ``int`` 32 bits, ``long``, ``long long`` and
pointers 64.  :func:`promote` is the integer promotion (C11 6.3.1.1p2),
:func:`usual` the usual arithmetic conversions (C11 6.3.1.8),
:func:`integer_literal` the type of an integer constant (C11 6.4.4.1).

>>> promote(CHAR).text, usual(UINT, LONG).text, usual(LLONG, ULONG).text
('int', 'long', 'unsigned long long')
>>> integer_literal("0xffffffff")[1].text, integer_literal("4294967296")[1].text
('unsigned int', 'long')
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


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
    integers have a conversion ``rank`` (see the module docstring) and
    ``signed``, floating types a rank too (float 1, double 2, long double
    3); ``target`` is the pointee (POINTER), element (ARRAY) or return
    type (FUNCTION); ``record`` keys a struct's members in
    :class:`crepair.typed.infer.Types`; ``const`` is the top qualifier;
    ``length`` an array's element count, when it is an integer constant."""

    kind: TypeKind
    text: str
    rank: int = 0
    signed: bool = True
    target: CType | None = None
    record: str = ""
    const: bool = False
    length: int | None = None

    @property
    def scalar(self) -> bool:
        """Integer or (named) pointer: a value the search space can handle."""
        return self.kind == TypeKind.INTEGER or (self.kind == TypeKind.POINTER and bool(self.text))

    @property
    def bits(self) -> int:
        """The width in bits of an integer, floating or pointer type (the
        value bits of ``long double``: 80); 0 for any other."""
        if self.kind == TypeKind.INTEGER:
            return _SIZES[self.rank] * 8
        if self.kind == TypeKind.FLOAT:
            return {1: 32, 2: 64, 3: 80}[self.rank]
        return 64 if self.kind == TypeKind.POINTER else 0

    def unqualified(self) -> CType:
        if not self.const:
            return self
        return CType(self.kind, self.text, self.rank, self.signed, self.target, self.record, length=self.length)


_SIZES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 8}
_NAMES = {0: "_Bool", 1: "char", 2: "short", 3: "int", 4: "long", 5: "long long"}


def integer(rank: int, signed: bool = True) -> CType:
    """The integer type of ``rank`` (rank 1 signed: plain ``char``)."""
    if rank == 0:
        return CType(TypeKind.INTEGER, "_Bool", 0, False)
    name = _NAMES[rank]
    return CType(TypeKind.INTEGER, name if signed else f"unsigned {name}", rank, signed)


BOOL, CHAR, UCHAR, SHORT, USHORT = integer(0), integer(1), integer(1, False), integer(2), integer(2, False)
SCHAR = CType(TypeKind.INTEGER, "signed char", 1, True)
INT, UINT, LONG, ULONG = integer(3), integer(3, False), integer(4), integer(4, False)
LLONG, ULLONG = integer(5), integer(5, False)
FLOAT = CType(TypeKind.FLOAT, "float", 1)
DOUBLE = CType(TypeKind.FLOAT, "double", 2)
LDOUBLE = CType(TypeKind.FLOAT, "long double", 3)
VOID = CType(TypeKind.VOID, "void")
OTHER = CType(TypeKind.OTHER, "")


def pointer_to(t: CType) -> CType:
    if t.kind in (TypeKind.ARRAY, TypeKind.FUNCTION) or not t.text:
        return CType(TypeKind.POINTER, "", target=t)
    base = ("const " if t.const else "") + t.text
    return CType(TypeKind.POINTER, base + ("*" if base.endswith("*") else " *"), target=t)


def array_of(t: CType, length: int | None = None) -> CType:
    return CType(TypeKind.ARRAY, f"{t.text} []" if t.text else "", target=t, length=length)


def canonical(t: CType) -> str:
    """A spelling of ``t`` that two programs share when they name the same
    type differently (typedef names resolved, ``unsigned`` as ``unsigned
    int``, a struct by its tag, qualifiers dropped, an array as a pointer
    to its element, as a parameter is adjusted): ``"unsigned int *"``."""
    if t.kind in (TypeKind.POINTER, TypeKind.ARRAY):
        return (canonical(t.target) if t.target is not None else "?") + " *"
    if t.kind == TypeKind.FUNCTION:
        return (canonical(t.target) if t.target is not None else "?") + "()"
    if t.kind == TypeKind.RECORD:
        return t.record
    return t.text or t.kind.value


def decay(t: CType) -> CType:
    """Arrays and functions used as values become pointers (C11 6.3.2.1)."""
    if t.kind == TypeKind.ARRAY and t.target is not None:
        return pointer_to(t.target)
    if t.kind == TypeKind.FUNCTION:
        return pointer_to(t)
    return t


def promote(t: CType) -> CType:
    """The integer promotion (C11 6.3.1.1p2): below ``int``, ``int`` (all
    their values fit); any other type unchanged (but unqualified)."""
    if t.kind == TypeKind.INTEGER and t.rank < 3:
        return INT
    return t.unqualified()


def usual(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions of two arithmetic types (C11
    6.3.1.8): the wider floating type if either is one, else the common
    integer type of the promoted operands; ``OTHER`` for a non-arithmetic
    operand."""
    if TypeKind.FLOAT in (a.kind, b.kind):
        floats = [t for t in (a, b) if t.kind == TypeKind.FLOAT]
        return max(floats, key=lambda t: t.rank).unqualified()
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


def integer_literal(text: str) -> tuple[int, CType] | None:
    """The value and type of an integer constant (C11 6.4.4.1, LP64: the
    first of its suffix's candidate types that holds the value; decimal
    constants without ``u`` stay signed), or None when ``text`` is not
    one.  A value beyond every candidate (gcc's extension) is ``unsigned
    long long``."""
    body = text.rstrip("uUlL")
    suffix = text[len(body):].lower()
    if suffix not in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
        return None
    try:
        if body.lower().startswith("0x"):
            value, decimal = int(body[2:], 16), False
        elif body.lower().startswith("0b"):  # gcc's binary constants
            value, decimal = int(body[2:], 2), False
        elif body.startswith("0") and len(body) > 1:
            value, decimal = int(body, 8), False
        else:
            value, decimal = int(body, 10), True
    except ValueError:
        return None
    unsigned, longs = "u" in suffix, suffix.count("l")
    for rank in (3, 4, 5)[longs:]:
        bits = _SIZES[rank] * 8
        for signed in ((False,) if unsigned else ((True,) if decimal else (True, False))):
            if value < 1 << (bits - 1 if signed else bits):
                return value, integer(rank, signed)
    return value, ULLONG


#: the integer typedefs of the C library on x86-64 glibc
LIBC_INTEGERS = {
    "size_t": ULONG, "ssize_t": LONG, "ptrdiff_t": LONG, "intptr_t": LONG, "uintptr_t": ULONG,
    "intmax_t": LONG, "uintmax_t": ULONG, "time_t": LONG, "clock_t": LONG, "off_t": LONG,
    "pid_t": INT, "uid_t": UINT, "gid_t": UINT, "wchar_t": INT, "wint_t": UINT, "bool": BOOL,
    "sig_atomic_t": INT, "mode_t": UINT, "useconds_t": UINT, "suseconds_t": LONG, "u_int": UINT,
    "uint": UINT, "ushort": USHORT, "u_char": UCHAR, "u_short": USHORT, "u_long": ULONG,
}
_EXACT = re.compile(r"(u?)int(_least|_fast)?(8|16|32|64)_t\Z")
_RANK_OF_BITS = {8: 1, 16: 2, 32: 3, 64: 4}


def libc_typedef(name: str) -> CType:
    """The type a C library typedef stands for on x86-64 glibc
    (``size_t``, ``int32_t``…); ``OTHER`` named ``name`` when it is not an
    integer type crepair knows (``FILE``, ``va_list``)."""
    if name in LIBC_INTEGERS:
        return LIBC_INTEGERS[name]
    m = _EXACT.match(name)
    if m:
        bits = int(m[3])
        if m[2] == "_fast" and bits > 8:
            bits = 64  # glibc's fast types are long on x86-64
        t = integer(_RANK_OF_BITS[bits], not m[1])
        return SCHAR if t == CHAR else t  # int8_t is signed char
    return CType(TypeKind.OTHER, name)


def named(names: list[str]) -> CType | None:
    """The arithmetic or void type named by specifier keywords such as
    ``["unsigned", "long"]`` (in any order, qualifiers and storage classes
    ignored), or None when they name none."""
    words = [n for n in names if n not in ("const", "volatile", "register", "static", "extern", "auto", "inline",
                                           "restrict", "_Thread_local")]
    signed = "unsigned" not in words
    core = sorted(w for w in words if w not in ("signed", "unsigned"))
    longs = core.count("long")
    if core == ["void"]:
        return VOID
    if core == ["_Bool"]:
        return BOOL
    if core == ["float"]:
        return FLOAT
    if core == ["double"]:
        return DOUBLE
    if core == ["double", "long"]:
        return LDOUBLE
    if core == ["char"]:
        return CHAR if "signed" not in words and "unsigned" not in words else (SCHAR if signed else UCHAR)
    if core in (["short"], ["int", "short"]):
        return integer(2, signed)
    if core in ([], ["int"]):
        return integer(3, signed)
    if longs and longs <= 2 and set(core) <= {"int", "long"} and core.count("int") <= 1:
        return integer(3 + longs, signed)
    return None
