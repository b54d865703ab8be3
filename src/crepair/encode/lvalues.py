"""Assignments and lvalues: variables, array elements, ``*p``, members.

AllRepair FM'16, Sect. 3.1: an assignment statement is a location; its
right-hand side (or, for ``x op= e``, the whole compound assignment) is
evaluated into a fresh SSA variable (TACAS'04 SSA).  An assignment nested
in an expression, and ``++``/``--``, are plain SSA equations in S_assign.
An array element store defines a fresh array
``a' = store(a, i, ite(g, v, a[i]))`` guarded by its path ``g`` (one chain
per array, see :meth:`~crepair.encode.core.EncoderCore._store_element`).
Any other lvalue is a :class:`Place`: a pointer or struct variable, ``*p``
and ``p[i]`` (:mod:`crepair.encode.memory`), and members ``s.x``,
``p->x``, ``s.a[i]`` (:mod:`crepair.encode.structs`), written by updating
the variable or object that holds it.  Assigning a pointer or struct is
not a location (only integer expressions are mutated).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode import structs
from crepair.encode.core import EncoderCore
from crepair.encode.formula import Constraint, LocationKind
from crepair.encode.ops import Value, convert
from crepair.encode.walk import Ctx, Var
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


Update = Callable[[smt.Term], smt.Term]


@dataclass(frozen=True, slots=True)
class Place:
    """An lvalue other than a scalar variable or an array variable's
    element: its type, its value when evaluated (``read()``) and
    ``update(ctx, f)``, which stores ``f(old value)`` on ``ctx``'s path."""

    ctype: object
    read: Callable[[], smt.Term]
    update: Callable[[Ctx, Update], None]


class Assignments(EncoderCore):
    """Encodes assignments and stores to variables and array elements."""

    # ---------------------------------------------------------- assignment
    def _assign(self, node: c_ast.Assignment, ctx: Ctx, *, located: bool) -> Value:
        if located:
            return self._assign_to(node, ctx, located=True)
        # replays reuse a nested assignment's value: its checks are plain assertions
        inner = Ctx(ctx.state, ctx.cache, ctx.overrides, ctx.record)
        value = self._assign_to(node, inner, located=False)
        ctx.state = inner.state
        return value

    def _assign_to(self, node: c_ast.Assignment, ctx: Ctx, *, located: bool) -> Value:
        lv = node.lvalue
        place = None
        var, index = None, None
        if isinstance(lv, c_ast.ID) and isinstance(self._lookup(lv).ctype, ct.IntType):
            var = self._lookup(lv)
            target = var.ctype
        elif isinstance(lv, c_ast.ID) and isinstance(self._lookup(lv).ctype, ct.ArrayType):
            raise UnsupportedConstruct(self._point(lv), "assignment to an array")
        elif isinstance(lv, c_ast.ArrayRef) and self._multi(lv) is not None:
            var, subs = self._multi(lv)
            if len(subs) != 1 + len(var.ctype.inner):
                raise UnsupportedConstruct(self._point(lv), "assignment to an array")
            target = var.ctype.elem
            index = self._flat_index(var, subs, lv, ctx)
        elif isinstance(lv, c_ast.ArrayRef) and isinstance(lv.name, c_ast.ID) and not self._is_pointer(lv.name):
            var = self._lookup(lv.name)
            if not isinstance(var.ctype, ct.ArrayType):
                raise BadInput(f"'{lv.name.name}' is not an array", self._point(lv))
            target = var.ctype.elem
            subscript = self._expr(lv.subscript, ctx)
            self._check_index(ctx, lv, var, subscript)
            index = convert(subscript, ct.INT).term
        else:
            place = self._place(lv, ctx)
            target = place.ctype

        def value_of(c: Ctx) -> Value:
            if node.op == "=":
                return self._expr(node.rvalue, c)
            op = c.overrides.get(node, node.op[:-1])
            current = self._read_lvalue(node, var, index, c, place)
            operand = self._expr(node.rvalue, c)
            return self._binary(op, current, operand, node, c)

        root = node.rvalue if node.op == "=" else node
        if node.op == "=":
            self._note_allocation(node.rvalue, target)
        name = var.key if var is not None else "store"
        if not isinstance(target, ct.IntType):
            value = self._coerce(value_of(ctx), target, node)
        elif located:
            term, ctx.state = self._located(
                root, ctx.state, LocationKind.ASSIGNMENT, target, span_node=root, value_of=value_of, name=name
            )
            value = Value(term, target)
        else:
            value = self._coerce(value_of(ctx), target, node)
            if ctx.record:
                fresh = self._fresh(name, target)
                self.formula.s_assign.append(Constraint(fresh == value.term, self._p.spans.span(node), self._function))
                value = Value(fresh, target)
        if not ctx.record:
            return ctx.cache[node]
        if place is not None:
            place.update(ctx, lambda old: value.term)
        elif index is None:
            ctx.state.env[var.key] = value.term
        else:
            self._store_element(ctx.state, var.key, index, value.term, self._p.spans.span(node))
        ctx.cache[node] = value
        return value

    def _read_lvalue(self, node: c_ast.Assignment, var: Var, index, ctx: Ctx, place: Place | None = None) -> Value:
        key = ("lvalue", node)
        if ctx.record:
            if place is not None:
                value = Value(place.read(), place.ctype)
            elif index is None:
                value = Value(ctx.state.env[var.key], var.ctype)
            else:
                value = Value(smt.Select(self._arrays[var.key], index), var.ctype.elem)
            ctx.cache[key] = value
            return value
        return ctx.cache[key]

    def _index(self, sub: c_ast.Node, ctx: Ctx) -> smt.Term:
        return convert(self._expr(sub, ctx), ct.INT).term


    def _store(self, target: c_ast.Node, value: Value, ctx: Ctx, origin: c_ast.Node) -> Value:
        if isinstance(target, c_ast.ID) and not isinstance(self._lookup(target).ctype, (ct.ArrayType, ct.StructType)):
            var = self._lookup(target)
            converted = self._coerce(value, var.ctype, origin)
            fresh = self._fresh(var.key, var.ctype)
            self.formula.s_assign.append(Constraint(fresh == converted.term, self._p.spans.span(origin),
                                                    self._function))
            ctx.state.env[var.key] = fresh
            return Value(fresh, var.ctype)
        if (isinstance(target, c_ast.ArrayRef) and isinstance(target.name, c_ast.ID)
                and not self._is_pointer(target.name)):
            var = self._lookup(target.name)
            index = self._index(target.subscript, ctx)
            converted = convert(value, var.ctype.elem)
            self._store_element(ctx.state, var.key, index, converted.term, self._p.spans.span(origin))
            return converted
        place = self._place(target, ctx)
        converted = self._coerce(value, place.ctype, origin)
        place.update(ctx, lambda old: converted.term)
        return converted

    # --------------------------------------------------------------- places
    def _place(self, lv: c_ast.Node, ctx: Ctx) -> Place:
        """The :class:`Place` of lvalue ``lv``, its subexpressions evaluated
        on ``ctx`` (recording).  Raises ``UnsupportedConstruct`` for other
        assignment targets."""
        span = self._p.spans.span(lv)
        if isinstance(lv, c_ast.ID):
            var = self._lookup(lv)
            if isinstance(var.ctype, ct.ArrayType):
                raise UnsupportedConstruct(self._point(lv), "assignment to an array")

            def update_var(c: Ctx, f: Update) -> None:
                fresh = self._fresh(var.key, var.ctype)
                self.formula.s_assign.append(Constraint(fresh == f(c.state.env[var.key]), span, self._function))
                c.state.env[var.key] = fresh

            return Place(var.ctype, lambda: ctx.state.env[var.key], update_var)
        if isinstance(lv, c_ast.UnaryOp) and lv.op == "*":
            return self._pointee(self._expr(lv.expr, ctx), lv, ctx)
        if isinstance(lv, c_ast.ArrayRef) and isinstance(lv.name, c_ast.StructRef):
            of = self._member_place(lv.name, ctx)
            m, base = of.member, of.place_of_member()
            if m.count is None:  # a pointer member: s->p[i] is *(s->p + i)
                ptr = self._pointer_value(Value(base.read(), m.ctype), lv.name)
                return self._pointee(self._pointer_arith("+", ptr, self._expr(lv.subscript, ctx)), lv, ctx)
            subscript = self._expr(lv.subscript, ctx)
            self._check_member_index(ctx, lv, m, subscript)
            i = convert(subscript, ct.LONG).term

            def update_element(c: Ctx, f: Update) -> None:
                base.update(c, lambda packed: structs.write_element(
                    packed, m.ctype.bits, m.count, i, f(structs.read_element(packed, m.ctype.bits, m.count, i))))

            return Place(m.ctype, lambda: structs.read_element(base.read(), m.ctype.bits, m.count, i), update_element)
        if isinstance(lv, c_ast.ArrayRef):
            ptr = self._pointer_value(self._expr(lv.name, ctx), lv.name)
            return self._pointee(self._pointer_arith("+", ptr, self._expr(lv.subscript, ctx)), lv, ctx)
        if isinstance(lv, c_ast.StructRef):
            base = self._member_place(lv, ctx)
            if base.member.count is not None:
                raise UnsupportedConstruct(self._point(lv), "assignment to an array member")
            return base.place_of_member()
        raise UnsupportedConstruct(self._point(lv), "assignment target that is not a variable, element, member or *p")

    def _pointee(self, ptr: Value, node: c_ast.Node, ctx: Ctx) -> Place:
        """The place ``*ptr`` (dereferenced at ``node``)."""
        ptr = self._pointer_value(ptr, node)
        return Place(
            ptr.ctype.elem,
            lambda: self._load(ptr, node, ctx).term,
            lambda c, f: self._store_through(ptr, f, node, c),
        )

    def _member_place(self, node: c_ast.StructRef, ctx: Ctx) -> "_MemberOf":
        if node.type == "->":
            base = self._pointee(self._expr(node.name, ctx), node, ctx)
        else:
            base = self._place(node.name, ctx)
        return _MemberOf(base, self._member(base.ctype, node))


@dataclass(frozen=True, slots=True)
class _MemberOf:
    """Member ``member`` of the struct at ``place``."""

    place: Place
    member: ct.Member

    def place_of_member(self) -> Place:
        base, m = self.place, self.member
        return Place(
            m.ctype,
            lambda: structs.read_member(base.read(), m),
            lambda c, f: base.update(c, lambda s: structs.write_member(s, m, f(structs.read_member(s, m)))),
        )

