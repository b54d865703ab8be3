"""Expressions and operators: C expressions -> bit-vector terms.

Operators follow gcc on x86-64 (:mod:`crepair.encode.ops`).  An expression
is evaluated once recording its side effects (calls, assignments, ``++``)
and then replayed under each mutant's overrides from the cache, so that
every alternative of a location (AllRepair FM'16, Sect. 3.1 and 3.2) reads
the same SSA values.  Side effects under ``&&``, ``||`` and ``?:`` happen
only on the paths that evaluate them (short circuit, merged by Φ).  Array
accesses, divisions and shifts are checked for undefined behaviour
(:mod:`crepair.encode.undefined`).  Pointers (``&``, ``*``, ``p[i]``,
arithmetic, comparison) follow :mod:`crepair.encode.memory`; struct
members (``s.x``, ``p->x``, ``s.a[i]``) :mod:`crepair.encode.structs`.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode import streams, structs
from crepair.encode.dimensions import Dimensions
from crepair.encode.ops import (
    FLOAT_OPERATORS, Value, apply_binary, apply_unary, bool_value, constant_value, convert, to_bool, undefined_cases,
)
from crepair.encode.formula import LocationKind
from crepair.encode.walk import NEGATE, Ctx, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


class Expressions(Dimensions):
    """Encodes expressions: ``_expr(node, ctx) -> Value`` (an unknown
    expression raises ``UnsupportedConstruct``)."""

    # ---------------------------------------------------------- expressions
    def _expr(self, node: c_ast.Node, ctx: Ctx) -> Value:
        if ctx.overrides.get(node) is NEGATE:
            inner = Ctx(ctx.state, ctx.cache, {}, ctx.record, ctx.checks)
            return apply_unary("!", self._expr(node, inner))
        match node:
            case c_ast.Constant():
                override = ctx.overrides.get(node)
                value = constant_value(node, self._point(node))
                if override is not None and isinstance(value.ctype, ct.FloatType):  # a mutant of 1.5: the integer
                    return convert(Value(smt.BitVecVal(override, 64), ct.LONG), value.ctype)
                if override is not None:
                    return Value(smt.BitVecVal(override, value.ctype.bits), value.ctype)
                return value
            case c_ast.ID(name=name) if name in streams.TAGS and not any(name in s for s in self._scopes):
                return streams.constant(name)
            case c_ast.ID():
                if not ctx.record:
                    return ctx.cache[node]
                var = self._lookup(node)
                if isinstance(var.ctype, ct.ArrayType):
                    value = self._decay(var, node.name)
                else:
                    value = Value(ctx.state.env[var.key], var.ctype)
                ctx.cache[node] = value
                return value
            case c_ast.ArrayRef() if self._multi(node) is not None:
                return self._multi_value(node, ctx)
            case c_ast.ArrayRef(name=c_ast.ID() as name, subscript=sub) if not self._is_pointer(name):
                if ctx.record:
                    var = self._lookup(name)
                    if not isinstance(var.ctype, ct.ArrayType):
                        raise BadInput(f"'{name.name}' is not an array", self._point(name))
                    ctx.cache[node] = (self._arrays[var.key], var)
                array, var = ctx.cache[node]
                index = self._expr(sub, ctx)
                self._check_index(ctx, node, var, index)
                return Value(smt.Select(array, convert(index, ct.INT).term), var.ctype.elem)
            case c_ast.ArrayRef(name=c_ast.StructRef() as member, subscript=sub):
                packed, m = self._member_value(member, ctx, subscripted=True)
                if m.count is None:  # a pointer member: s->p[i] is *(s->p + i)
                    ptr = self._pointer_value(Value(packed, m.ctype), member)
                    return self._load(self._pointer_arith("+", ptr, self._expr(sub, ctx)), node, ctx)
                index = self._expr(sub, ctx)
                self._check_member_index(ctx, node, m, index)
                i = convert(index, ct.LONG).term
                return Value(structs.read_element(packed, m.ctype.bits, m.count, i), m.ctype)
            case c_ast.StructRef():
                term, m = self._member_value(node, ctx, subscripted=False)
                return Value(term, m.ctype)
            case c_ast.ArrayRef(name=c_ast.ArrayRef() as inner) if not self._pointer_elements(inner):
                while isinstance(inner, c_ast.ArrayRef):
                    inner = inner.name
                if isinstance(inner, c_ast.ID):
                    self._lookup(inner)  # an unusable variable (``char *argv[]``) says why
                raise UnsupportedConstruct(self._point(node), "multi-dimensional array access")
            case c_ast.ArrayRef(name=name, subscript=sub):  # p[i] is *(p + i)
                ptr = self._pointer_value(self._expr(name, ctx), name)
                return self._load(self._pointer_arith("+", ptr, self._expr(sub, ctx)), node, ctx)
            case c_ast.BinaryOp(op=op, left=left, right=right):
                op = ctx.overrides.get(node, op)
                if op in ("&&", "||"):
                    return self._logical(node, op, ctx)
                a, b = self._expr(left, ctx), self._expr(right, ctx)
                return self._binary(op, a, b, node, ctx)
            case c_ast.UnaryOp(op=op, expr=e):
                if op in ("p++", "p--", "++", "--"):
                    return self._increment(node, ctx)
                if op == "sizeof":  # C11 6.5.3.4: a size_t constant (no variable-length arrays here)
                    return Value(smt.BitVecVal(self._sizeof(e), 64), ct.ULONG)
                if op == "&":
                    return self._address_of(node, ctx)
                if op == "*":
                    return self._load(self._expr(e, ctx), node, ctx)
                value = self._expr(e, ctx)
                if not isinstance(value.ctype, ct.IntType) and op != "!":
                    raise UnsupportedConstruct(self._point(node), f"unary '{op}' on {value.ctype.name}")
                mutant = ctx.overrides.get(node, op)
                if isinstance(value.ctype, ct.FloatType) and "~" in (op, mutant):
                    if op == "~":
                        raise BadInput("invalid operand to unary ~ (a floating operand)", self._point(node))
                    mutant = op  # a mutant C does not allow equals the original
                return apply_unary(mutant, value)
            case c_ast.TernaryOp(cond=c, iftrue=t, iffalse=f):
                cond = to_bool(self._expr(c, ctx))
                a, b = self._branches(t, f, cond, ctx)
                if not (isinstance(a.ctype, ct.IntType) and isinstance(b.ctype, ct.IntType)):
                    same = a.ctype if not isinstance(a.ctype, ct.IntType) else b.ctype
                    a, b = self._coerce(a, same, t), self._coerce(b, same, f)
                    return Value(smt.If(cond, a.term, b.term), same)
                common = ct.common(a.ctype, b.ctype)
                return Value(smt.If(cond, convert(a, common).term, convert(b, common).term), common)
            case c_ast.FuncCall():
                if ctx.record:
                    ctx.cache[node] = self._call(node, ctx)
                return ctx.cache[node]
            case c_ast.Cast(to_type=t, expr=e):
                target = self._type(t)
                if isinstance(target, ct.ArrayType):
                    raise UnsupportedConstruct(self._point(node), "cast to an array")
                self._note_allocation(e, target)
                value = self._expr(e, ctx)
                return value if target == ct.VOID else self._coerce(value, target, node)
            case c_ast.Assignment():
                if not ctx.record:
                    return ctx.cache[node]
                return self._assign(node, ctx, located=False)
            case c_ast.ExprList(exprs=exprs):
                value = None
                for e in exprs:
                    value = self._expr(e, ctx)
                return value
        raise UnsupportedConstruct(self._point(node), f"expression {type(node).__name__}")

    def _logical(self, node: c_ast.BinaryOp, op: str, ctx: Ctx) -> Value:
        a = to_bool(self._expr(node.left, ctx))
        evaluated = a if op == "&&" else smt.Not(a)  # when C evaluates the right operand
        if ctx.record and has_effects(node.right):
            b = to_bool(self._guarded(node.right, evaluated, ctx))
        else:
            b = to_bool(self._under(evaluated, node.right, ctx))
        return bool_value(smt.And(a, b) if op == "&&" else smt.Or(a, b))

    def _branches(self, t, f, cond, ctx: Ctx) -> tuple[Value, Value]:
        if ctx.record and (has_effects(t) or has_effects(f)):
            return self._guarded(t, cond, ctx), self._guarded(f, smt.Not(cond), ctx)
        return self._under(cond, t, ctx), self._under(smt.Not(cond), f, ctx)

    def _under(self, cond: smt.Term, node: c_ast.Node, ctx: Ctx) -> Value:
        """Evaluate ``node``, an operand C evaluates only when ``cond``
        holds (its checks of undefined behaviour are guarded by ``cond``)."""
        self._when.append(cond)
        try:
            return self._expr(node, ctx)
        finally:
            self._when.pop()

    def _guarded(self, node: c_ast.Node, cond: smt.Term, ctx: Ctx) -> Value:
        """Evaluate ``node`` only on the paths where ``cond`` holds (short circuit)."""
        before = ctx.state
        inner = Ctx(before.fork(cond), ctx.cache, ctx.overrides, True, ctx.checks)
        value = self._under(cond, node, inner)
        skipped = before.fork(smt.Not(cond))
        ctx.state = self._merge([inner.state, skipped], before.guard, branch=cond)
        return value

    def _increment(self, node: c_ast.UnaryOp, ctx: Ctx) -> Value:
        if not ctx.record:
            return ctx.cache[node]
        target = node.expr
        inner = Ctx(ctx.state, ctx.cache, ctx.overrides, True)  # replays reuse it: its checks are plain assertions
        old = self._expr(target, inner)
        ctx.state = inner.state
        one = Value(smt.BitVecVal(1, 32), ct.INT)
        new = self._binary("+" if "+" in node.op else "-", old, one, node, inner)
        var_value = self._store(target, new, ctx, node)
        result = old if node.op.startswith("p") else var_value
        ctx.cache[node] = result
        return result


    # ------------------------------------------------- pointers and members
    def _binary(self, op: str, a: Value, b: Value, node: c_ast.Node, ctx: Ctx) -> Value:
        """``a op b`` (not ``&&``/``||``), checked; ``node`` its source."""
        if isinstance(a.ctype, ct.PointerType) or isinstance(b.ctype, ct.PointerType):
            return self._pointer_binary(op, getattr(node, "op", op).rstrip("="), a, b, node)
        if not (isinstance(a.ctype, ct.IntType) and isinstance(b.ctype, ct.IntType)):
            raise UnsupportedConstruct(self._point(node), f"operator '{op}' on a struct")
        if (isinstance(a.ctype, ct.FloatType) or isinstance(b.ctype, ct.FloatType)) and op not in FLOAT_OPERATORS:
            original = (getattr(node, "op", op).rstrip("=") if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment))
                        else op)
            if original not in FLOAT_OPERATORS:
                raise BadInput(f"invalid operands to binary {original} (a floating operand)", self._point(node))
            op = original  # a mutant C does not allow equals the original
        self._check_operation(ctx, node, undefined_cases(op, a, b))
        return apply_binary(op, a, b)

    def _pointer_elements(self, node: c_ast.ArrayRef) -> bool:
        """Whether ``node`` is ``a[i]`` of an array of pointers (``argv[i]``)."""
        if not isinstance(node.name, c_ast.ID):
            return False
        var = next((s[node.name.name] for s in reversed(self._scopes) if node.name.name in s), None)
        return var is not None and isinstance(var.ctype, ct.ArrayType) and isinstance(var.ctype.elem, ct.PointerType)

    def _is_pointer(self, name: c_ast.ID) -> bool:
        for scope in reversed(self._scopes):
            var = scope.get(name.name)
            if var is not None:
                return isinstance(var.ctype, ct.PointerType)
        return False

    def _member_value(self, node: c_ast.StructRef, ctx: Ctx, *, subscripted: bool) -> tuple[smt.Term, ct.Member]:
        """The value of member ``s.x`` or ``p->x`` (the packed elements of an
        array member, which only a ``subscripted`` member may be) and the
        member."""
        base = self._expr(node.name, ctx)
        if node.type == "->":
            base = self._load(base, node, ctx)
        member = self._member(base.ctype, node)
        if member.count is not None and not subscripted:
            raise UnsupportedConstruct(self._point(node), "array member used as a value")
        return structs.read_member(base.term, member), member

    def _member(self, stype, node: c_ast.StructRef) -> ct.Member:
        if not isinstance(stype, ct.StructType):
            raise BadInput(f"member access '{node.type}{node.field.name}' on a value that is not a struct",
                           self._point(node))
        member = stype.member(node.field.name)
        if member is None:
            raise BadInput(f"{stype.name} has no member '{node.field.name}'", self._point(node.field))
        return member

    def _struct_initializer(self, init: c_ast.InitList, stype: ct.StructType, state, *, located: bool, key: str = ""):
        """The value of ``struct S s = {v0, v1, ...}`` (C11 6.7.9): the
        values initialize the members in order, an array member's elements
        from a braced list or one by one (brace elision), a struct member
        from a braced list (recursively) or a struct value; the rest is
        zero.  ``located``: each integer value is an assignment location
        named after ``key``.  Returns the struct term and the state after
        the values' effects; raises ``BadInput`` for too many values."""
        members = stype.members[:1] if stype.is_union else stype.members  # C11 6.7.9p17: a union's first member
        items, k = list(init.exprs), 0
        term = smt.BitVecVal(0, stype.bits)
        for m in members:
            if k >= len(items):
                break
            item = items[k]
            if m.count and isinstance(item, c_ast.InitList):  # {..., {1, 2, 3}, ...}
                if len(item.exprs) > m.count:
                    raise BadInput(f"excess elements in the initializer of member '{m.name}'",
                                   self._point(item.exprs[m.count]))
                values, k = list(enumerate(item.exprs)), k + 1
            elif m.count:  # brace elision: the next values fill the elements
                values = []
                while len(values) < m.count and k < len(items) and not isinstance(items[k], c_ast.InitList):
                    values.append((len(values), items[k]))
                    k += 1
            else:
                values, k = [(None, item)], k + 1
            for j, value in values:
                if isinstance(m.ctype, ct.StructType) and isinstance(value, c_ast.InitList):
                    v, state = self._struct_initializer(value, m.ctype, state, located=located, key=key)
                else:
                    v, state = self._member_value_of(m, value, state, located, key)
                term = structs.replace(term, m.offset + (j or 0) * m.ctype.bits, v)
        if k < len(items):
            raise BadInput(f"excess elements in the initializer of {stype.name}", self._point(items[k]))
        return smt.simplify(term), state

    def _member_value_of(self, m: ct.Member, value: c_ast.Node, state, located: bool, key: str):
        """The term of one scalar (or struct-valued) initializer ``value`` of member ``m``, and the state after it."""
        if isinstance(value, c_ast.InitList):
            if len(value.exprs) != 1 or isinstance(value.exprs[0], c_ast.InitList):
                raise UnsupportedConstruct(self._point(value), "nested initializer list for a scalar member")
            value = value.exprs[0]  # {{1}}: a scalar in braces (C11 6.7.9p11)
        if located and isinstance(m.ctype, ct.IntType):
            return self._located(value, state, LocationKind.ASSIGNMENT, m.ctype, name=key)
        ctx = Ctx(state, {}, {}, True)
        v = self._coerce(self._expr(value, ctx), m.ctype, value).term
        return v, ctx.state

    def _check_member_index(self, ctx: Ctx, node: c_ast.ArrayRef, member: ct.Member, index: Value) -> None:
        """``0 <= index < count`` of an array member (ARRAY_BOUNDS)."""
        span = self._p.spans.span(node.name)
        subject = " ".join(self._p.original[span.start : span.end].split())
        self._check_index_within(ctx, node, index, member.count, subject)
