"""Expressions and operators: C expressions -> bit-vector terms.

Operators follow gcc on x86-64 (:mod:`crepair.encode.ops`).  An expression
is evaluated once recording its side effects (calls, assignments, ``++``)
and then replayed under each mutant's overrides from the cache, so that
every alternative of a location (AllRepair FM'16, Sect. 3.1 and 3.2) reads
the same SSA values.  Side effects under ``&&``, ``||`` and ``?:`` happen
only on the paths that evaluate them (short circuit, merged by Φ).  Array
accesses, divisions and shifts are checked for undefined behaviour
(:mod:`crepair.encode.undefined`).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.ops import (
    Value, apply_binary, apply_unary, bool_value, constant_value, convert, to_bool, undefined_cases,
)
from crepair.encode.undefined import UndefinedBehaviour
from crepair.encode.walk import NEGATE, Ctx, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


class Expressions(UndefinedBehaviour):
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
                if override is not None:
                    return Value(smt.BitVecVal(override, value.ctype.bits), value.ctype)
                return value
            case c_ast.ID():
                if not ctx.record:
                    return ctx.cache[node]
                var = self._lookup(node)
                if isinstance(var.ctype, ct.ArrayType):
                    raise UnsupportedConstruct(self._point(node), "array used as a value")
                value = Value(ctx.state.env[var.key], var.ctype)
                ctx.cache[node] = value
                return value
            case c_ast.ArrayRef(name=c_ast.ID() as name, subscript=sub):
                if ctx.record:
                    var = self._lookup(name)
                    if not isinstance(var.ctype, ct.ArrayType):
                        raise BadInput(f"'{name.name}' is not an array", self._point(name))
                    ctx.cache[node] = (self._arrays[var.key], var)
                array, var = ctx.cache[node]
                index = self._expr(sub, ctx)
                self._check_index(ctx, node, var, index)
                return Value(smt.Select(array, convert(index, ct.INT).term), var.ctype.elem)
            case c_ast.ArrayRef(name=c_ast.ArrayRef() as inner):
                while isinstance(inner, c_ast.ArrayRef):
                    inner = inner.name
                if isinstance(inner, c_ast.ID):
                    self._lookup(inner)  # an unusable variable (``char *argv[]``) says why
                raise UnsupportedConstruct(self._point(node), "multi-dimensional array access")
            case c_ast.BinaryOp(op=op, left=left, right=right):
                op = ctx.overrides.get(node, op)
                if op in ("&&", "||"):
                    return self._logical(node, op, ctx)
                a, b = self._expr(left, ctx), self._expr(right, ctx)
                self._check_operation(ctx, node, undefined_cases(op, a, b))
                return apply_binary(op, a, b)
            case c_ast.UnaryOp(op=op, expr=e):
                if op in ("p++", "p--", "++", "--"):
                    return self._increment(node, ctx)
                if op == "sizeof":
                    raise UnsupportedConstruct(self._point(node), "sizeof")
                return apply_unary(ctx.overrides.get(node, op), self._expr(e, ctx))
            case c_ast.TernaryOp(cond=c, iftrue=t, iffalse=f):
                cond = to_bool(self._expr(c, ctx))
                a, b = self._branches(t, f, cond, ctx)
                common = ct.common(a.ctype, b.ctype)
                return Value(smt.If(cond, convert(a, common).term, convert(b, common).term), common)
            case c_ast.FuncCall():
                if ctx.record:
                    ctx.cache[node] = self._call(node, ctx)
                return ctx.cache[node]
            case c_ast.Cast(to_type=t, expr=e):
                target = self._type(t)
                if isinstance(target, ct.ArrayType):
                    raise UnsupportedConstruct(self._point(node), "cast to a pointer")
                value = self._expr(e, ctx)
                return value if target == ct.VOID else convert(value, target)
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
        new = apply_binary("+" if "+" in node.op else "-", old, one)
        var_value = self._store(target, new, ctx, node)
        result = old if node.op.startswith("p") else var_value
        ctx.cache[node] = result
        return result

