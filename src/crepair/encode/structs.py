"""Structs by value: layout and member access on bit-vectors.

A struct value is one bit-vector, the concatenation of its members
(:class:`~crepair.encode.ctypes.StructType`; member 0 in the least
significant bits, no padding).  So a struct variable is one SSA variable
like a scalar: assignment ``s = t``, passing and returning by value, and Φ
at joins need nothing new, and ``s.x = v`` defines a fresh ``s`` whose
member ``x`` is ``v`` (the TACAS'04 SSA of a field update, as CBMC's
``with`` expressions).  An array member is ``count`` packed elements; an
element at a variable index is an ``ite`` over the elements.  The byte
layout (padding) is not modelled: without pointer casts no program can
observe it; ``sizeof`` is gcc's (:mod:`crepair.encode.allocation`), and
pointers to members address the members' scalars
(:mod:`crepair.encode.fields`).
"""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.errors import UnsupportedConstruct
from crepair.solver import smt


def layout(
    tag: str, decls: list[c_ast.Decl], type_of: Callable, point: Callable, *, union: bool = False
) -> ct.StructType:
    """The :class:`StructType` of ``struct tag { decls }``: ``type_of`` maps
    a declaration's type node to its C type, ``point`` a node to its source
    point.  Raises ``UnsupportedConstruct`` for bit-fields, members of
    unknown size, and members that are not integers, pointers, structs or
    one-dimensional arrays of integers of constant size (for a ``union``:
    integers and arrays of integers only, whose bytes overlap as gcc's)."""
    members: list[ct.Member] = []
    offset = 0
    for decl in decls:
        if decl.bitsize is not None:
            raise UnsupportedConstruct(point(decl), "bit-field")
        if decl.name is None:
            raise UnsupportedConstruct(point(decl), "anonymous struct member")
        mtype = type_of(decl.type)
        count = None
        if isinstance(mtype, ct.ArrayType):
            dim = mtype.size
            if not (isinstance(dim, c_ast.Constant) and dim.type == "int"):
                raise UnsupportedConstruct(point(decl), f"struct member '{decl.name}': array without a constant size")
            count = int(dim.value.rstrip("uUlL"), 0)
            if count <= 0:
                raise UnsupportedConstruct(point(decl), f"struct member '{decl.name}': array of size {count}")
            mtype = mtype.elem
        if mtype == ct.VOID:
            raise UnsupportedConstruct(point(decl), f"struct member '{decl.name}' of type void")
        if union and not isinstance(mtype, ct.IntType):
            raise UnsupportedConstruct(point(decl),
                                       f"union member '{decl.name}' that is not an integer or integer array")
        member = ct.Member(decl.name, mtype, count, 0 if union else offset)
        members.append(member)
        offset = max(offset, member.bits) if union else offset + member.bits
    if not members:
        raise UnsupportedConstruct(point(decls[0]) if decls else None, f"empty struct {tag}")
    return ct.StructType(tag, tuple(members), offset, is_union=union)


def extract(term: smt.Term, offset: int, bits: int) -> smt.Term:
    """Bits ``offset .. offset+bits-1`` of ``term``."""
    if offset == 0 and bits == smt.width(term):
        return term
    return smt.Extract(offset + bits - 1, offset, term)


def replace(term: smt.Term, offset: int, value: smt.Term) -> smt.Term:
    """``term`` with bits ``offset ..`` replaced by ``value``."""
    total, bits = smt.width(term), smt.width(value)
    parts = []
    if offset + bits < total:
        parts.append(smt.Extract(total - 1, offset + bits, term))
    parts.append(value)
    if offset > 0:
        parts.append(smt.Extract(offset - 1, 0, term))
    return parts[0] if len(parts) == 1 else smt.Concat(*parts)


def read_member(term: smt.Term, member: ct.Member) -> smt.Term:
    """The value of ``member`` (packed elements for an array member)."""
    return extract(term, member.offset, member.bits)


def write_member(term: smt.Term, member: ct.Member, value: smt.Term) -> smt.Term:
    """The struct ``term`` with ``member`` set to ``value``."""
    return replace(term, member.offset, value)


def read_element(packed: smt.Term, elem_bits: int, count: int, index: smt.Term) -> smt.Term:
    """Element ``index`` (a bit-vector, 0-based) of ``count`` packed
    elements; an index out of range gives element ``count - 1`` (the
    bounds check rejects such runs)."""
    simple = smt.simplify(index)
    if smt.is_bv_value(simple) and 0 <= simple.as_signed_long() < count:
        return extract(packed, simple.as_signed_long() * elem_bits, elem_bits)
    value = extract(packed, (count - 1) * elem_bits, elem_bits)
    for j in range(count - 2, -1, -1):
        value = smt.If(index == smt.BitVecVal(j, smt.width(index)), extract(packed, j * elem_bits, elem_bits), value)
    return value


def write_element(packed: smt.Term, elem_bits: int, count: int, index: smt.Term, value: smt.Term) -> smt.Term:
    """The packed elements with element ``index`` set to ``value`` (no
    change for an index out of range)."""
    simple = smt.simplify(index)
    if smt.is_bv_value(simple):
        j = simple.as_signed_long()
        return replace(packed, j * elem_bits, value) if 0 <= j < count else packed
    parts = []
    for j in range(count - 1, -1, -1):
        old = extract(packed, j * elem_bits, elem_bits)
        parts.append(smt.If(index == smt.BitVecVal(j, smt.width(index)), value, old))
    return parts[0] if len(parts) == 1 else smt.Concat(*parts)
