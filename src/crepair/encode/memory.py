"""The memory model of the bounded engine: objects and pointers.

A pointer value is one 64-bit term, the pair (object id, element offset):
bits 63..32 hold the id of the object it points into (0: the null
pointer), bits 31..0 the signed offset in elements of the pointed-to type
(gcc x86-64 pointers are 64 bits; the byte layout is never observable
without casts between pointer types, which are rejected).  Objects are the
program's variables whose address is taken (``&x``, an array decaying to
``&a[0]``), the arrays an entry function's pointer parameters point to,
the argument strings of ``argv`` (:mod:`crepair.encode.argv`) and the
heap objects ``malloc``/``calloc`` create (:mod:`crepair.encode.allocation`,
with a liveness bit that ``free`` clears); each gets an id, in the order
the walk first meets it.  A pointer to a struct member points into the
struct's object, its offset counting the struct's scalar slots
(:mod:`crepair.encode.fields`).  A scalar,
pointer or struct object stays an SSA variable of the path environment
(an object of one element); an array object is its SMT array
(:meth:`~crepair.encode.core.EncoderCore._store_element`).

``*p`` reads an ``ite`` over the objects of the pointed-to type whose
address was taken so far (a type-based points-to set, as CBMC's value
sets in their simplest form, Clarke, Kroening, Lerda, TACAS'04, Sect. 4);
``*p = v`` updates each of them under ``object(p) == id``.  Every
dereference is checked as CBMC's ``--pointer-check`` does: the pointer is
not null (NULL_DEREFERENCE) and its offset lies inside a live object it
may point to (POINTER_BOUNDS; a local of a call that has returned is
dead).  Pointer arithmetic and comparison follow C11
6.5.6, 6.5.8-9 within one object; ``p - q`` of different objects is
undefined and not checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode import fields
from crepair.encode.formula import Constraint, Input, Violation
from crepair.encode.ops import Value, bool_value, convert, to_bool
from crepair.encode.undefined import UndefinedBehaviour
from crepair.encode.walk import Ctx, State, Var
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt

NULL = smt.BitVecVal(0, 64)
LIVE = "$live"  # suffix of a heap object's liveness bit (1 bit) in the path environment


@dataclass(frozen=True, slots=True)
class MemObject:
    """An object pointers may point into: ``ident`` (≥ 1) its id, ``key``
    the variable key of its term (in the path environment when
    ``in_env``, else in the encoder's arrays), ``name`` its C name,
    ``owner`` the inlined call whose local it is (dead once it returns)."""

    ident: int
    key: str
    name: str
    ctype: object
    owner: object = field(default=None, compare=False)  # the frame of a local (None: static or an input)
    heap: bool = False  # allocated by malloc/calloc (crepair.encode.allocation): it has a liveness bit

    @property
    def in_env(self) -> bool:
        return not isinstance(self.ctype, ct.ArrayType)

    @property
    def elem(self):
        return self.ctype.elem if isinstance(self.ctype, ct.ArrayType) else self.ctype


def pointer(ident: int | smt.Term, offset: smt.Term) -> smt.Term:
    """The pointer to element ``offset`` (a bit-vector, truncated to 32
    bits) of object ``ident``."""
    obj = smt.BitVecVal(ident, 32) if isinstance(ident, int) else ident
    return smt.Concat(obj, smt.Extract(31, 0, offset))


def object_of(p: smt.Term) -> smt.Term:
    """The object id (32 bits) of pointer ``p``."""
    return smt.Extract(63, 32, p)


def offset_of(p: smt.Term) -> smt.Term:
    """The element offset of pointer ``p``, sign-extended to 64 bits."""
    return smt.SignExt(32, smt.Extract(31, 0, p))


_POINTER_OPS = {"+", "-", "==", "!=", "<", "<=", ">", ">="}


class Memory(UndefinedBehaviour):
    """Objects, pointers and their checks (see module docstring)."""

    # ------------------------------------------------------------ objects
    def _object(self, var: Var, name: str) -> MemObject:
        """The object of variable ``var`` (registered when first met)."""
        obj = self._objects.get(var.key)
        if obj is None:
            is_local = "::" in var.key and "$object" not in var.key  # ``f@3::x``; not a global nor an input
            owner = self._frames[-1] if is_local and self._frames else None
            obj = self._objects[var.key] = MemObject(len(self._objects) + 1, var.key, name, var.ctype, owner)
        return obj

    def _live(self, obj: MemObject, ctx: Ctx) -> smt.Term:
        """Whether ``obj`` is live on ``ctx``'s path: a heap object until it
        is freed (crepair.encode.allocation), any other object always."""
        if not obj.heap:
            return smt.BoolVal(True)
        bit = ctx.state.env.get(obj.key + LIVE)  # none: not allocated on this path
        return smt.BoolVal(False) if bit is None else bit == smt.BitVecVal(1, 1)

    def _resolved(self, t):
        """``t``, or the complete type of a struct that was still being
        laid out when a pointer to it was declared (``struct node *next``
        inside ``struct node``)."""
        if isinstance(t, ct.StructType) and not t.members:
            full = self._struct_types.get(f"union {t.tag}" if t.is_union else t.tag)
            if full is not None:
                return full
        return t

    def _candidates(self, elem) -> list[MemObject]:
        """The objects a pointer to ``elem`` may point into, by id."""
        return [o for o in self._objects.values()
                if ct.same_object_type(o.elem, elem) or fields.has_slot(self._resolved(o.elem), elem)]

    def _in_struct(self, obj: MemObject, elem) -> "ct.StructType | None":
        """The struct type of ``obj``'s elements when a pointer to ``elem``
        points into them at a slot (crepair.encode.fields), else None."""
        if ct.same_object_type(obj.elem, elem):
            return None
        return self._resolved(obj.elem)

    def _pointer_input(self, var: Var, name: str, node: c_ast.Node, state: State) -> None:
        """An entry function's pointer parameter: it points to element 0
        of a fresh object, an array of unknown size (an input, as an array
        parameter) or a struct."""
        elem = var.ctype.elem
        if isinstance(elem, ct.StructType):
            target = Var(f"{var.key}$object", elem)
            term = self._fresh(target.key, elem)
            self.formula.inputs.append(Input(f"*{name}", self._line(node), term, False, guard=state.guard))
            state.env[target.key] = term
        else:
            target = Var(f"{var.key}$object", ct.ArrayType(elem, None))
            self._nondet_array(target, name, node, state)
        state.env[var.key] = pointer(self._object(target, name).ident, smt.BitVecVal(0, 64))

    # ----------------------------------------------------------- pointers
    def _decay(self, var: Var, name: str) -> Value:
        """Array ``var`` used as a value: ``&var[0]`` (C11 6.3.2.1p3)."""
        return Value(pointer(self._object(var, name).ident, smt.BitVecVal(0, 64)), ct.PointerType(var.ctype.elem))

    def _address_of(self, node: c_ast.UnaryOp, ctx: Ctx) -> Value:
        """``&e`` for a variable, an array element or ``*p``."""
        e = node.expr
        if isinstance(e, c_ast.UnaryOp) and e.op == "*":
            return self._pointer_value(self._expr(e.expr, ctx), e.expr)
        if isinstance(e, c_ast.StructRef):
            return self._member_address(e, ctx)
        if isinstance(e, c_ast.ArrayRef):
            if isinstance(e.name, c_ast.StructRef):  # &s.v[i]: from the array member's first slot
                base = self._member_address(e.name, ctx)
            else:
                base = self._pointer_value(self._expr(e.name, ctx), e.name)
            return self._pointer_arith("+", base, self._expr(e.subscript, ctx))
        if isinstance(e, c_ast.ID):
            if not ctx.record:
                return ctx.cache[node]
            var = self._lookup(e)
            if isinstance(var.ctype, ct.ArrayType):
                raise UnsupportedConstruct(self._point(node), "address of an array (pointer to array)")
            if isinstance(var.ctype, ct.PointerType):
                raise UnsupportedConstruct(self._point(node), "address of a pointer (pointer to pointer)")
            value = Value(pointer(self._object(var, e.name).ident, smt.BitVecVal(0, 64)), ct.PointerType(var.ctype))
            ctx.cache[node] = value
            return value
        raise UnsupportedConstruct(self._point(node), "address of something that is not a variable or array element")

    def _member_address(self, e: c_ast.StructRef, ctx: Ctx) -> Value:
        """``&s.x``, ``&a[i].x``, ``&p->x``: a pointer to the member's
        first slot in the struct's object (crepair.encode.fields)."""
        if e.type == "->":
            base = self._pointer_value(self._expr(e.name, ctx), e.name)
        elif isinstance(e.name, c_ast.ID):
            var = self._lookup(e.name)
            if not isinstance(var.ctype, ct.StructType):
                raise BadInput(f"member access '.{e.field.name}' on a value that is not a struct", self._point(e))
            base = Value(pointer(self._object(var, e.name.name).ident, smt.BitVecVal(0, 64)), ct.PointerType(var.ctype))
        elif isinstance(e.name, c_ast.ArrayRef):
            base = self._address_of(c_ast.UnaryOp("&", e.name, e.name.coord), ctx)
        else:
            raise UnsupportedConstruct(self._point(e), "address of a member of a nested struct")
        stype = self._resolved(base.ctype.elem)
        member = self._member(stype, e)
        if isinstance(member.ctype, ct.StructType):
            raise UnsupportedConstruct(self._point(e), "address of a struct member that is a struct")
        slots = smt.BitVecVal(len(fields.slots(stype)), 64)
        offset = offset_of(base.term) * slots + smt.BitVecVal(fields.member_slot(stype, member), 64)
        return Value(pointer(object_of(base.term), offset), ct.PointerType(member.ctype))

    def _pointer_value(self, value: Value, node: c_ast.Node) -> Value:
        if not isinstance(value.ctype, ct.PointerType):
            raise BadInput("dereference of a value that is not a pointer", self._point(node))
        elem = self._resolved(value.ctype.elem)
        return value if elem is value.ctype.elem else Value(value.term, ct.PointerType(elem))

    def _pointer_arith(self, op: str, p: Value, n: Value) -> Value:
        """``p + n`` or ``p - n``: the offset moves by ``n`` elements."""
        k = convert(n, ct.LONG).term
        offset = offset_of(p.term) + k if op == "+" else offset_of(p.term) - k
        return Value(pointer(object_of(p.term), offset), p.ctype)

    def _pointer_binary(self, op: str, original: str, a: Value, b: Value, node: c_ast.Node) -> Value:
        """A binary operator with a pointer operand (C11 6.5.6, 6.5.8,
        6.5.9).  A mutant's operator that C does not allow here (``p * 2``)
        keeps the ``original`` operator: the mutant then equals the
        original and is never part of a minimal repair."""
        if not self._pointer_operator_ok(op, a, b):
            if op == original or not self._pointer_operator_ok(original, a, b):
                raise UnsupportedConstruct(self._point(node), f"operator '{op}' on a pointer")
            op = original
        pa, pb = isinstance(a.ctype, ct.PointerType), isinstance(b.ctype, ct.PointerType)
        if op in ("+", "-") and not (pa and pb):
            return self._pointer_arith(op, a, b) if pa else self._pointer_arith(op, b, a)
        if op == "-":
            return Value(offset_of(a.term) - offset_of(b.term), ct.LONG)
        x = a.term if pa else self._address_constant(a, node)
        y = b.term if pb else self._address_constant(b, node)
        if op == "==":
            return bool_value(x == y)
        if op == "!=":
            return bool_value(x != y)
        ox, oy = offset_of(x), offset_of(y)
        return bool_value({"<": ox < oy, "<=": ox <= oy, ">": ox > oy, ">=": ox >= oy}[op])

    @staticmethod
    def _pointer_operator_ok(op: str, a: Value, b: Value) -> bool:
        pa, pb = isinstance(a.ctype, ct.PointerType), isinstance(b.ctype, ct.PointerType)
        if op not in _POINTER_OPS or (op == "+" and pa and pb):
            return False
        if op == "-" and pb and not pa:
            return False
        if pa and pb and not ct.same_object_type(a.ctype.elem, b.ctype.elem):
            return False
        return True

    def _address_constant(self, v: Value, node: c_ast.Node) -> smt.Term:
        """An integer constant compared with a pointer: 0 is the null
        pointer, another value an address in no object (gcc compares the
        address; a level-2 mutant turns ``p != NULL`` into ``p != 1``)."""
        simple = smt.simplify(convert(v, ct.LONG).term) if isinstance(v.ctype, ct.IntType) else None
        if simple is None or not smt.is_bv_value(simple):
            raise UnsupportedConstruct(self._point(node), "pointer compared with an integer that is not a constant")
        return simple

    def _null_constant(self, v: Value, node: c_ast.Node) -> smt.Term:
        """The null pointer, for an integer constant 0 compared with or
        converted to a pointer (C11 6.3.2.3p3)."""
        if isinstance(v.ctype, ct.IntType) and smt.is_bv_value(smt.simplify(v.term)):
            if smt.simplify(v.term).as_long() == 0:
                return NULL
        raise UnsupportedConstruct(self._point(node), "integer converted to a pointer")

    def _coerce(self, value: Value, target, node: c_ast.Node) -> Value:
        """``value`` converted to ``target`` as by assignment (C11 6.5.16.1):
        integers as :func:`~crepair.encode.ops.convert`; a pointer from a
        pointer to a compatible type or from a null pointer constant; a
        struct from the same struct type.  Raises ``UnsupportedConstruct``
        otherwise."""
        source = value.ctype
        if isinstance(target, ct.IntType):
            if isinstance(source, ct.IntType):
                return convert(value, target)
            if isinstance(source, ct.PointerType) and target.is_bool:
                return convert(bool_value(to_bool(value)), target)
            raise UnsupportedConstruct(self._point(node), f"{source.name} converted to {target.name}")
        if isinstance(target, ct.PointerType):
            if isinstance(source, ct.PointerType):
                if not ct.same_object_type(source.elem, target.elem):
                    raise UnsupportedConstruct(self._point(node), f"conversion from {source.name} to {target.name}")
                return Value(value.term, target)
            return Value(self._null_constant(value, node), target)
        if source != target:
            raise UnsupportedConstruct(self._point(node), f"{source.name} converted to {target.name}")
        return value

    # ------------------------------------------------------ dereferencing
    def _snapshot(self, ptr: Value, node: c_ast.Node, ctx: Ctx) -> list[tuple[MemObject, smt.Term]]:
        """The candidate objects of ``ptr`` with their current terms, as
        recorded (a replay reads the recording's memory)."""
        key = ("memory", node)
        if ctx.record:
            found = []
            for obj in self._candidates(ptr.ctype.elem):
                if obj.owner is not None and not any(f is obj.owner for f in self._frames):
                    continue  # a local of a call that returned: pointers into it dangle
                term = ctx.state.env.get(obj.key) if obj.in_env else self._arrays.get(obj.key)
                if term is not None:
                    found.append((obj, term))
            ctx.cache[key] = found
            ctx.cache[("live", node)] = [self._live(o, ctx) for o, _ in found]
        return ctx.cache[key]

    def _check_dereference(self, ptr: Value, node: c_ast.Node, ctx: Ctx, found) -> None:
        """The pointer checks of dereferencing ``ptr`` at ``node``."""
        p = ptr.term
        obj, off = object_of(p), offset_of(p)
        span = self._p.spans.span(node)
        subject = " ".join(self._p.original[span.start : span.end].split())
        self._check(ctx, Violation.NULL_DEREFERENCE, node, obj != smt.BitVecVal(0, 32), subject=subject)
        inside, size = [obj == smt.BitVecVal(0, 32)], smt.BitVecVal(-1, 64)
        for (o, _), live in reversed(list(zip(found, ctx.cache[("live", node)]))):
            n = self._object_size(o)
            is_o = obj == smt.BitVecVal(o.ident, 32)
            stype = self._in_struct(o, ptr.ctype.elem)
            if stype is not None:  # a pointer to a member: offsets count slots, which must have its type
                ns = smt.BitVecVal(len(fields.slots(stype)), 64)
                n = None if n is None else n * ns
                live = smt.And(live, fields.slot_ok(stype, smt.Extract(31, 0, smt.URem(off, ns)), ptr.ctype.elem))
            if n is None:
                inside.append(smt.And(is_o, off >= smt.BitVecVal(0, 64), live))
                continue
            inside.append(smt.And(is_o, off >= smt.BitVecVal(0, 64), off < n, live))
            size = smt.If(smt.And(is_o, live), n, size)  # a freed object: "no live object"
        self._check(ctx, Violation.POINTER_BOUNDS, node, smt.Or(*inside), subject=subject, operands=(off, size))

    def _object_size(self, obj: MemObject) -> smt.Term | None:
        """The element count of ``obj`` (64 bits); None when unknown."""
        if obj.in_env:
            return smt.BitVecVal(1, 64)
        size = self._array_size(Var(obj.key, obj.ctype))
        if size is None:
            return None
        return smt.BitVecVal(size, 64) if isinstance(size, int) else smt.SignExt(32, size)

    def _load(self, ptr: Value, node: c_ast.Node, ctx: Ctx) -> Value:
        """``*ptr``, the dereference at ``node``: an ``ite`` over the
        candidate objects, checked (see module docstring)."""
        ptr = self._pointer_value(ptr, node)
        found = self._snapshot(ptr, node, ctx)
        self._check_dereference(ptr, node, ctx, found)
        elem = ptr.ctype.elem
        obj, index = object_of(ptr.term), smt.Extract(31, 0, ptr.term)
        reads = []
        for o, term in found:
            stype = self._in_struct(o, elem)
            if stype is None:
                reads.append((o, term if o.in_env else smt.Select(term, index)))
                continue
            ns = smt.BitVecVal(len(fields.slots(stype)), 32)
            whole = term if o.in_env else smt.Select(term, smt.UDiv(index, ns))
            reads.append((o, fields.read_slot(whole, stype, smt.URem(index, ns), elem)))
        if not reads:
            return Value(smt.BitVec(f"invalid@{self._line(node)}#{next(self._ssa)}", elem.bits), elem)
        value = reads[-1][1]
        for o, read in reversed(reads[:-1]):
            value = smt.If(obj == smt.BitVecVal(o.ident, 32), read, value)
        return Value(value, elem)

    def _store_through(self, ptr: Value, update: Callable[[smt.Term], smt.Term], node: c_ast.Node, ctx: Ctx) -> None:
        """``*ptr = update(*ptr)`` on the path of ``ctx`` (recording only):
        each candidate object is updated where ``ptr`` points into it."""
        ptr = self._pointer_value(ptr, node)
        found = self._snapshot(ptr, node, ctx)
        self._check_dereference(ptr, node, ctx, found)
        obj, index = object_of(ptr.term), smt.Extract(31, 0, ptr.term)
        span = self._p.spans.span(node)
        state = ctx.state
        for o, term in found:
            is_o = smt.simplify(obj == smt.BitVecVal(o.ident, 32))
            if smt.is_false(is_o):
                continue
            apply, at = update, index
            stype = self._in_struct(o, ptr.ctype.elem)
            if stype is not None:  # a member's slot: the struct holding it is updated
                ns = smt.BitVecVal(len(fields.slots(stype)), 32)
                apply = _slot_update(stype, smt.URem(index, ns), ptr.ctype.elem, update)
                at = smt.UDiv(index, ns)
            if o.in_env:
                new = apply(term) if smt.is_true(is_o) else smt.If(is_o, apply(term), term)
                fresh = self._fresh(o.key, o.ctype)
                self.formula.s_assign.append(Constraint(fresh == new, span, self._function))
                state.env[o.key] = fresh
            else:
                where = State(smt.And(state.guard, is_o), state.env, state.alive)
                self._store_element(where, o.key, at, apply(smt.Select(term, at)), span)


def _slot_update(stype, slot: smt.Term, elem, update: Callable[[smt.Term], smt.Term]) -> Callable[[smt.Term], smt.Term]:
    """The update of a whole struct of type ``stype`` that applies ``update`` to its slot ``slot``."""
    return lambda whole: fields.write_slot(whole, stype, slot, elem, update)
