"""Assignments and lvalues: scalar variables and array elements.

AllRepair FM'16, Sect. 3.1: an assignment statement is a location; its
right-hand side (or, for ``x op= e``, the whole compound assignment) is
evaluated into a fresh SSA variable (TACAS'04 SSA).  An assignment nested
in an expression, and ``++``/``--``, are plain SSA equations in S_assign.
An array element store defines a fresh array
``a' = store(a, i, ite(g, v, a[i]))`` guarded by its path ``g`` (one chain
per array, see :meth:`~crepair.encode.core.EncoderCore._store_element`).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.core import EncoderCore
from crepair.encode.formula import Constraint, LocationKind
from crepair.encode.ops import Value, apply_binary, convert, undefined_cases
from crepair.encode.walk import Ctx, Var
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


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
        if isinstance(lv, c_ast.ID):
            var = self._lookup(lv)
            if isinstance(var.ctype, ct.ArrayType):
                raise UnsupportedConstruct(self._point(lv), "assignment to an array")
            target = var.ctype
            index = None
        elif isinstance(lv, c_ast.ArrayRef) and isinstance(lv.name, c_ast.ID):
            var = self._lookup(lv.name)
            if not isinstance(var.ctype, ct.ArrayType):
                raise BadInput(f"'{lv.name.name}' is not an array", self._point(lv))
            target = var.ctype.elem
            subscript = self._expr(lv.subscript, ctx)
            self._check_index(ctx, lv, var, subscript)
            index = convert(subscript, ct.INT).term
        else:
            raise UnsupportedConstruct(self._point(lv), "assignment target that is not a variable or array element")

        def value_of(c: Ctx) -> Value:
            if node.op == "=":
                return self._expr(node.rvalue, c)
            op = c.overrides.get(node, node.op[:-1])
            current = self._read_lvalue(node, var, index, c)
            operand = self._expr(node.rvalue, c)
            self._check_operation(c, node, undefined_cases(op, current, operand))
            return apply_binary(op, current, operand)

        root = node.rvalue if node.op == "=" else node
        if located:
            term, ctx.state = self._located(
                root, ctx.state, LocationKind.ASSIGNMENT, target, span_node=root, value_of=value_of, name=var.key
            )
            value = Value(term, target)
        else:
            value = convert(value_of(ctx), target)
            if ctx.record:
                fresh = self._fresh(var.key, target)
                self.formula.s_assign.append(Constraint(fresh == value.term, self._p.spans.span(node), self._function))
                value = Value(fresh, target)
        if not ctx.record:
            return ctx.cache[node]
        if index is None:
            ctx.state.env[var.key] = value.term
        else:
            self._store_element(ctx.state, var.key, index, value.term, self._p.spans.span(node))
        ctx.cache[node] = value
        return value

    def _read_lvalue(self, node: c_ast.Assignment, var: Var, index, ctx: Ctx) -> Value:
        key = ("lvalue", node)
        if ctx.record:
            if index is None:
                value = Value(ctx.state.env[var.key], var.ctype)
            else:
                value = Value(smt.Select(self._arrays[var.key], index), var.ctype.elem)
            ctx.cache[key] = value
            return value
        return ctx.cache[key]

    def _index(self, sub: c_ast.Node, ctx: Ctx) -> smt.Term:
        return convert(self._expr(sub, ctx), ct.INT).term


    def _store(self, target: c_ast.Node, value: Value, ctx: Ctx, origin: c_ast.Node) -> Value:
        if isinstance(target, c_ast.ID):
            var = self._lookup(target)
            converted = convert(value, var.ctype)
            fresh = self._fresh(var.key, var.ctype)
            self.formula.s_assign.append(Constraint(fresh == converted.term, self._p.spans.span(origin), self._function))
            ctx.state.env[var.key] = fresh
            return Value(fresh, var.ctype)
        if isinstance(target, c_ast.ArrayRef) and isinstance(target.name, c_ast.ID):
            var = self._lookup(target.name)
            index = self._index(target.subscript, ctx)
            converted = convert(value, var.ctype.elem)
            self._store_element(ctx.state, var.key, index, converted.term, self._p.spans.span(origin))
            return converted
        raise UnsupportedConstruct(self._point(target), "increment of something that is not a variable")

