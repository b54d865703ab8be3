"""C integer types and their bit-vector semantics (gcc, x86-64, LP64).

Values are two's-complement bit-vectors of the type's width; conversions,
integer promotions and the usual arithmetic conversions follow C11 6.3.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.errors import UnsupportedConstruct


@dataclass(frozen=True, slots=True)
class IntType:
    """An integer type: ``bits`` wide, ``signed`` or not; ``is_bool`` for _Bool."""

    bits: int
    signed: bool
    is_bool: bool = False
    name: str = "int"


@dataclass(frozen=True, slots=True)
class ArrayType:
    """An array of ``elem``; ``size`` is the declared size expression (or None)."""

    elem: IntType
    size: c_ast.Node | None


INT = IntType(32, True, name="int")
UINT = IntType(32, False, name="unsigned int")
LONG = IntType(64, True, name="long")
ULONG = IntType(64, False, name="unsigned long")
SHORT = IntType(16, True, name="short")
USHORT = IntType(16, False, name="unsigned short")
CHAR = IntType(8, True, name="char")
UCHAR = IntType(8, False, name="unsigned char")
BOOL = IntType(8, False, is_bool=True, name="_Bool")
VOID = IntType(32, True, name="void")


def from_names(names: list[str], where) -> IntType:
    """The type named by specifier keywords such as ``["unsigned", "long"]``."""
    words = [n for n in names if n not in ("const", "volatile", "register", "static", "extern", "auto", "inline")]
    unsigned = "unsigned" in words
    core = sorted(w for w in words if w not in ("signed", "unsigned"))  # C allows the specifiers in any order
    if core == ["void"]:
        return VOID
    if core == ["_Bool"]:
        return BOOL
    if core == ["char"]:
        return UCHAR if unsigned else CHAR
    if core in (["short"], ["int", "short"]):
        return USHORT if unsigned else SHORT
    if core in ([], ["int"]):
        return UINT if unsigned else INT
    # long and long long are both 64 bits (LP64)
    if core in (["long"], ["int", "long"], ["long", "long"], ["int", "long", "long"]):
        return ULONG if unsigned else LONG
    raise UnsupportedConstruct(where, f"type '{' '.join(names)}'")


def promote(t: IntType) -> IntType:
    """Integer promotion: types narrower than int become int."""
    return INT if t.bits < 32 else t


def common(a: IntType, b: IntType) -> IntType:
    """The usual arithmetic conversions of two (promoted) operand types."""
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    u, s = (a, b) if not a.signed else (b, a)
    if u.bits >= s.bits:
        return u
    return s
