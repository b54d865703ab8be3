"""Pointers to struct members: ``&s.x``, ``&p->x``, ``&a[i].v[j]``.

A struct value is one bit-vector (:mod:`crepair.encode.structs`); a
pointer to one of its members points *into* the struct's object of the
memory model (:mod:`crepair.encode.memory`).  The members' scalars
(integers and pointers; every element of an array member; the members of
a nested struct) are numbered in declaration order: the struct's *slots*.
A pointer to a scalar type ``T`` into an object whose elements are
structs ``S`` of ``n`` slots has the offset ``i * n + j``: element ``i``
of the object (0 for a struct variable), slot ``j``.  So ``&a[i].x`` is
``&a[i]`` (offset ``i``, in structs) scaled by ``n`` plus ``x``'s slot,
and ``p + 1`` from ``&s.v[0]`` reaches ``&s.v[1]`` (slots of an array
member are consecutive, as its elements are in gcc's layout).  A
dereference reads or updates the slot's bits in the struct's bit-vector;
it is checked to lie in the object and to reach a slot of type ``T``
(POINTER_BOUNDS otherwise: C11 6.5.6p8 allows no other).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from crepair.encode import ctypes as ct
from crepair.encode import structs
from crepair.solver import smt


@cache
def slots(stype: ct.StructType) -> tuple[tuple[int, object], ...]:
    """The slots of ``stype``: ``(bit offset in the struct's bit-vector,
    C type)`` of each scalar, in declaration order (0-based)."""
    out: list[tuple[int, object]] = []
    for m in stype.members:
        for k in range(m.count or 1):
            offset = m.offset + k * m.ctype.bits
            if isinstance(m.ctype, ct.StructType):
                out += [(offset + o, t) for o, t in slots(m.ctype)]
            else:
                out.append((offset, m.ctype))
    return tuple(out)


def member_slot(stype: ct.StructType, member: ct.Member) -> int:
    """The index of the first slot of ``member`` of ``stype``."""
    j = 0
    for m in stype.members:
        if m.name == member.name:
            return j
        j += (m.count or 1) * (len(slots(m.ctype)) if isinstance(m.ctype, ct.StructType) else 1)
    raise KeyError(member.name)


def has_slot(stype, t) -> bool:
    """Whether a pointer to ``t`` may point into a struct of type ``stype``."""
    return isinstance(stype, ct.StructType) and any(ct.same_object_type(s, t) for _, s in slots(stype))


def typed_slots(stype: ct.StructType, t) -> list[tuple[int, int]]:
    """``(slot index, bit offset)`` of the slots of type ``t``."""
    return [(j, o) for j, (o, s) in enumerate(slots(stype)) if ct.same_object_type(s, t)]


def read_slot(value: smt.Term, stype: ct.StructType, slot: smt.Term, t) -> smt.Term:
    """The slot ``slot`` (a 32-bit term) of type ``t`` of struct value ``value``."""
    found = typed_slots(stype, t)
    out = structs.extract(value, found[-1][1], t.bits)
    for j, o in reversed(found[:-1]):
        out = smt.If(slot == smt.BitVecVal(j, 32), structs.extract(value, o, t.bits), out)
    return out


def write_slot(value: smt.Term, stype: ct.StructType, slot: smt.Term, t, update: Callable) -> smt.Term:
    """``value`` with slot ``slot`` of type ``t`` replaced by ``update(old)``."""
    out = value
    for j, o in typed_slots(stype, t):
        new = structs.replace(value, o, update(structs.extract(value, o, t.bits)))
        out = smt.If(slot == smt.BitVecVal(j, 32), new, out)
    return out


def slot_ok(stype: ct.StructType, slot: smt.Term, t) -> smt.Term:
    """Whether slot ``slot`` has type ``t``."""
    return smt.Or(*(slot == smt.BitVecVal(j, 32) for j, _ in typed_slots(stype, t)))
