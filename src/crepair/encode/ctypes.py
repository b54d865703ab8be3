"""C types and their bit-vector semantics (gcc, x86-64, LP64).

Values are two's-complement bit-vectors of the type's width; conversions,
integer promotions and the usual arithmetic conversions follow C11 6.3.
A pointer is a 64-bit pair (object id, element offset) and a struct the
concatenation of its members (:mod:`crepair.encode.memory`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pycparser import c_ast

from crepair.errors import UnsupportedConstruct
from crepair.typed import model


@dataclass(frozen=True, slots=True)
class IntType:
    """An integer type: ``bits`` wide, ``signed`` or not; ``is_bool`` for _Bool."""

    bits: int
    signed: bool
    is_bool: bool = False
    name: str = "int"


@dataclass(frozen=True, slots=True)
class FloatType(IntType):
    """``float`` (32 bits) or ``double`` (64 bits), IEEE 754 binary32 /
    binary64 as SSE computes on x86-64.  A value's term is its IEEE bit
    pattern (so it is stored, merged and indexed as an integer of the same
    width is); the operators decode it (:mod:`crepair.encode.floats`)."""


@dataclass(frozen=True, slots=True)
class StreamType(IntType):
    """``FILE *`` holding one of the standard streams, as a tag
    (:mod:`crepair.encode.streams`: 1 stdin, 2 stdout, 3 stderr; never 0,
    so a standard stream is not NULL).  No other stream (``fopen``) is
    modelled."""


@dataclass(frozen=True, slots=True)
class ArrayType:
    """An array of ``elem``; ``size`` is the declared size expression (or
    None).  A multi-dimensional array ``T a[n][d1][d2]`` is one flat array
    of ``T`` in row-major order: ``inner`` holds the constant inner
    dimensions ``(d1, d2)`` (empty for one dimension), ``size`` the outer
    one (crepair.encode.dimensions)."""

    elem: IntType
    size: c_ast.Node | None
    inner: tuple[int, ...] = ()

    @property
    def row(self) -> int:
        """Elements per index of the outer dimension (1 for one dimension)."""
        n = 1
        for d in self.inner:
            n *= d
        return n


@dataclass(frozen=True, slots=True)
class PointerType:
    """A pointer to ``elem`` (64 bits: object id in bits 63..32, the
    signed element offset in bits 31..0; 0 is the null pointer)."""

    elem: "IntType | StructType"
    bits: int = 64
    signed: bool = False
    is_bool: bool = False

    @property
    def name(self) -> str:
        return f"{self.elem.name} *"


@dataclass(frozen=True, slots=True)
class Member:
    """A struct member: ``ctype`` (an array member has ``count`` elements
    of ``ctype``, else ``count`` is None), at bit ``offset`` (0-based, from
    the least significant bit) of the struct's bit-vector."""

    name: str
    ctype: "IntType | PointerType | StructType"
    count: int | None
    offset: int

    @property
    def bits(self) -> int:
        return self.ctype.bits * (self.count or 1)


@dataclass(frozen=True, slots=True)
class StructType:
    """A struct by value: one bit-vector of ``bits`` bits, its ``members``
    packed in declaration order from bit 0 (no padding: the layout is never
    observable without casts, which the encoder rejects).  A union of
    integers and integer arrays (``is_union``) has every member at bit 0:
    reading another member than the one written reinterprets the low-order
    bytes, as on little-endian x86-64."""

    tag: str
    members: tuple[Member, ...]
    bits: int
    signed: bool = False
    is_bool: bool = False
    is_union: bool = False  # a union: every member at offset 0, as wide as the widest

    @property
    def name(self) -> str:
        return f"{'union' if self.is_union else 'struct'} {self.tag}"

    def member(self, name: str) -> "Member | None":
        return next((m for m in self.members if m.name == name), None)


def same_object_type(a, b) -> bool:
    """Whether objects of types ``a`` and ``b`` may be accessed through
    the same pointer type (integer types of equal width and signedness)."""
    if isinstance(a, IntType) and isinstance(b, IntType):
        return (a.bits, a.signed, a.is_bool) == (b.bits, b.signed, b.is_bool)
    if isinstance(a, StructType) and isinstance(b, StructType) and (not a.members or not b.members):
        # one is a struct still being laid out (``struct node *next``)
        return (a.tag, a.is_union) == (b.tag, b.is_union)
    return a == b


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
FLOAT = FloatType(32, True, name="float")
DOUBLE = FloatType(64, True, name="double")
STREAM = StreamType(8, False, name="FILE *")
_BY_WIDTH = {(t.bits, t.signed): t for t in (CHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG)}


def float_bits(ctype) -> int:
    """32 or 64 for ``float``/``double`` (values held as IEEE-754 bit
    patterns), 0 for any other type."""
    return ctype.bits if isinstance(ctype, FloatType) else 0


def of_model(t: model.CType) -> IntType | None:
    """The encoder's type for an arithmetic or void type of the C type
    model (:mod:`crepair.typed.model`), by width and signedness (``long
    long`` is the 64-bit ``long``); None for ``long double`` and any other
    kind."""
    if t.kind == model.TypeKind.VOID:
        return VOID
    if t.kind == model.TypeKind.FLOAT:
        return {1: FLOAT, 2: DOUBLE}.get(t.rank)
    if t.kind != model.TypeKind.INTEGER:
        return None
    if t.rank == 0:
        return BOOL
    return _BY_WIDTH[t.bits, t.signed]


def to_model(t: IntType) -> model.CType:
    """The C type model's type for the encoder's arithmetic type ``t``."""
    if isinstance(t, FloatType):
        return model.FLOAT if t.bits == 32 else model.DOUBLE
    if t.is_bool:
        return model.BOOL
    return model.integer({8: 1, 16: 2, 32: 3, 64: 4}[t.bits], t.signed)


def from_names(names: list[str], where) -> IntType:
    """The type named by specifier keywords such as ``["unsigned", "long"]``
    (:func:`crepair.typed.model.named`).  Raises ``UnsupportedConstruct``
    at ``where`` for other names and ``long double``."""
    t = model.named(names)
    ctype = of_model(t) if t is not None else None
    if ctype is None:
        raise UnsupportedConstruct(where, f"type '{' '.join(names)}'")
    return ctype


def promote(t: IntType) -> IntType:
    """Integer promotion (C11 6.3.1.1p2, :func:`crepair.typed.model.promote`):
    types narrower than int become int (a float stays)."""
    return INT if t.bits < 32 and not isinstance(t, FloatType) else t


@functools.cache
def common(a: IntType, b: IntType) -> IntType:
    """The usual arithmetic conversions of two operand types (C11 6.3.1.8,
    :func:`crepair.typed.model.usual`)."""
    return of_model(model.usual(to_model(a), to_model(b)))
