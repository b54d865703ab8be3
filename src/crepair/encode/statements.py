"""Statements and loops: the walk over a function body.

AllRepair FM'16, Sect. 3.1 (after Clarke, Kroening, Lerda, TACAS'04,
Sect. 3): every branch and loop condition is a location assigned to a fresh
Boolean; ``if`` forks the path state and merges the arms (Φ, FM'16 Fig. 2d);
loops are unwound B times and the innermost copy gets ``assume(!cond)``
(or, with unwinding assertions, a cut that counts as a violation);
``break``/``continue``/``return`` end a path, which rejoins at the loop's
(or switch's) exit, the next iteration or the function's end.  ``switch``
evaluates its controlling expression as an assignment location and each
``case`` label as a CASE_LABEL location (the label compared with the
value), enters at the matching label and falls through.  Declarations
with an initializer are assignment locations (an array's listed values
each, :mod:`crepair.encode.initializers`); without one, an input.
"""

from __future__ import annotations

import os

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.initializers import Initializers
from crepair.encode.formula import Constraint, Input, LocationKind, TraceStep, UnwindingCut
from crepair.encode.ops import Value, apply_binary, convert
from crepair.encode.walk import Ctx, State, Var, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt


class Statements(Initializers):
    """Encodes statements: ``_exec_<node type>(node, state) -> state``
    (an unknown statement raises ``UnsupportedConstruct``)."""

    # ---------------------------------------------------------- statements
    def _exec(self, node: c_ast.Node, state: State) -> State:
        if not state.alive and not isinstance(node, c_ast.Label):  # a label may be a goto's target
            return state
        method = getattr(self, f"_exec_{type(node).__name__}", None)
        if method is None:
            raise UnsupportedConstruct(self._point(node), f"statement {type(node).__name__}")
        if not isinstance(node, (c_ast.Compound, c_ast.EmptyStatement)):
            self._check_deadline()
            if self._in_user_file(node):  # executed lines name the user's file only (not a --reference's)
                self.formula.trace.append(TraceStep(state.guard, self._line(node), self._frames[-1].function))
        return method(node, state)

    def _exec_Compound(self, node: c_ast.Compound, state: State) -> State:
        self._push_scope()
        for item in node.block_items or []:
            state = self._exec(item, state)
        self._pop_scope()
        return state

    def _exec_EmptyStatement(self, node: c_ast.Node, state: State) -> State:
        return state

    def _exec_DeclList(self, node: c_ast.DeclList, state: State) -> State:
        for decl in node.decls:
            state = self._exec_Decl(decl, state)
        return state

    def _exec_Decl(self, node: c_ast.Decl, state: State) -> State:
        if isinstance(node.type, c_ast.FuncDecl) or node.name is None:  # a prototype, or ``struct S {...};``
            return state
        if "static" in (node.storage or []):
            raise UnsupportedConstruct(self._point(node), "static local variable")
        ctype = self._type(node.type)
        frame = self._frames[-1]
        key = f"{frame.function}@{next(self._instances)}::{node.name}"
        if isinstance(ctype, ct.ArrayType) and node.init is not None:
            ctype, term, state = self._initialized_array(node.name, ctype, node.init, state, located=True, key=key)
            self._declare(node.name, Var(key, ctype))
            self._arrays[key] = term
            return state
        var = Var(key, ctype)
        self._declare(node.name, var)
        init = node.init
        if isinstance(init, c_ast.InitList) and not isinstance(ctype, (ct.ArrayType, ct.StructType)):
            init = self._scalar_initializer(node.name, init)
        if isinstance(ctype, ct.ArrayType):
            self._nondet_array(var, node.name, node, state)
        elif init is None:
            term = self._fresh(var.key, ctype)
            point = self._point(node)
            label, line = f"{node.name} (uninitialized)", point.line
            if point.file != self._p.path:  # a local of the --reference program: its own file and line
                label, line = f"{node.name} (uninitialized, {os.path.basename(point.file)}:{point.line})", 0
            self.formula.inputs.append(Input(label, line, term, ctype.signed, guard=state.guard,
                                             floating=ct.float_bits(ctype)))
            state.env[var.key] = term
        else:
            self._note_allocation(init, ctype)
            term, state = self._located(init, state, LocationKind.ASSIGNMENT, ctype, name=var.key)
            state.env[var.key] = term
        return state

    def _exec_Assignment(self, node: c_ast.Assignment, state: State) -> State:
        ctx = Ctx(state, {}, {}, True)
        self._assign(node, ctx, located=True)
        return ctx.state

    def _exec_UnaryOp(self, node: c_ast.UnaryOp, state: State) -> State:
        ctx = Ctx(state, {}, {}, True)
        self._expr(node, ctx)
        return ctx.state

    _exec_BinaryOp = _exec_UnaryOp
    _exec_ID = _exec_UnaryOp
    _exec_Constant = _exec_UnaryOp
    _exec_Cast = _exec_UnaryOp
    _exec_TernaryOp = _exec_UnaryOp

    def _exec_FuncCall(self, node: c_ast.FuncCall, state: State) -> State:
        ctx = Ctx(state, {}, {}, True)
        self._call(node, ctx)
        return ctx.state

    def _exec_ExprList(self, node: c_ast.ExprList, state: State) -> State:
        for e in node.exprs:
            state = self._exec(e, state)
        return state

    def _exec_If(self, node: c_ast.If, state: State) -> State:
        g, state = self._located(node.cond, state, LocationKind.CONDITION, None, name="cond")
        escapes = self._escapes
        then_state = self._exec(node.iftrue, state.fork(g))
        else_state = self._exec(node.iffalse, state.fork(smt.Not(g))) if node.iffalse else state.fork(smt.Not(g))
        if self._escapes == escapes:
            return self._merge([then_state, else_state], state.guard, branch=g)
        return self._merge([then_state, else_state])

    def _exec_While(self, node: c_ast.While, state: State) -> State:
        return self._loop(node, state, node.cond, node.stmt, None, do_while=False)

    def _exec_DoWhile(self, node: c_ast.DoWhile, state: State) -> State:
        return self._loop(node, state, node.cond, node.stmt, None, do_while=True)

    def _exec_For(self, node: c_ast.For, state: State) -> State:
        self._push_scope()
        if node.init is not None:
            state = self._exec(node.init, state)
        state = self._loop(node, state, node.cond, node.stmt, node.next, do_while=False)
        self._pop_scope()
        return state

    def _loop(self, node, state: State, cond, body, step, *, do_while: bool) -> State:
        frame = self._frames[-1]
        exits: list[State] = []
        iterations = 0
        cur = state
        while cur.alive:
            if not (do_while and iterations == 0):
                if cond is not None:
                    g, cur = self._located(cond, cur, LocationKind.CONDITION, None, name="cond")
                else:
                    g = smt.BoolVal(True)
                if iterations == self._bound:
                    span = self._p.spans.line_span(node)
                    self._assume(self.formula.unwinding_assumptions, smt.Implies(cur.guard, smt.Not(g)), span)
                    self.formula.cuts.append(UnwindingCut(smt.And(cur.guard, g), span, "loop"))
                    exits.append(cur.fork(smt.Not(g)))
                    break
                exits.append(cur.fork(smt.Not(g)))
                cur = cur.fork(g)
            breaks: list[State] = []
            continues: list[State] = []
            frame.loops.append((breaks, continues))
            cur = self._exec(body, cur)
            frame.loops.pop()
            exits.extend(breaks)
            if continues:
                cur = self._merge(continues + [cur])
            if step is not None and cur.alive:
                cur = self._exec(step, cur)
            iterations += 1
        return self._merge(exits)

    def _exec_Break(self, node: c_ast.Break, state: State) -> State:
        frame = self._frames[-1]
        if not frame.loops:
            raise UnsupportedConstruct(self._point(node), "break outside a loop or switch")
        frame.loops[-1][0].append(state)
        self._escapes += 1
        return State(smt.BoolVal(False), state.env, False)

    def _exec_Continue(self, node: c_ast.Continue, state: State) -> State:
        frame = self._frames[-1]
        if not frame.loops or frame.loops[-1][1] is None:  # a switch passes on its loop's continue list
            raise UnsupportedConstruct(self._point(node), "continue outside a loop")
        frame.loops[-1][1].append(state)
        self._escapes += 1
        return State(smt.BoolVal(False), state.env, False)

    def _exec_Return(self, node: c_ast.Return, state: State) -> State:
        frame = self._frames[-1]
        if node.expr is not None:
            if frame.ret_key is None:
                ctx = Ctx(state, {}, {}, True)
                self._expr(node.expr, ctx)
                state = ctx.state
            else:
                self._note_allocation(node.expr, frame.ret_type)
                term, state = self._located(node.expr, state, LocationKind.RETURN, frame.ret_type, name=frame.ret_key)
                state.env[frame.ret_key] = term
        frame.returns.append(state)
        self._escapes += 1
        return State(smt.BoolVal(False), state.env, False)


    def _exec_Goto(self, node: c_ast.Goto, state: State) -> State:
        """``goto L``: the path waits for ``L:``, later in the function and
        in a statement that encloses this one (crepair.frontend.jumps)."""
        self._frames[-1].jumps.setdefault(node.name, []).append(state)
        self._escapes += 1
        return State(smt.BoolVal(False), state.env, False)

    def _exec_Label(self, node: c_ast.Label, state: State) -> State:
        """``L: stmt``: the paths of the gotos to ``L`` join this one."""
        waiting = self._frames[-1].jumps.pop(node.name, [])
        if waiting:
            state = self._merge(waiting + [state])
        return self._exec(node.stmt, state)

    # -------------------------------------------------------------- switch
    def _exec_Switch(self, node: c_ast.Switch, state: State) -> State:
        """``switch``: the controlling expression is an assignment location
        (its promoted value, widened to 64 bits), each ``case`` label a
        CASE_LABEL location ``value == label`` (the label converted to the
        promoted type, C11 6.8.4.2p5).  The path enters at the first label
        that matches (labels are distinct in C; a mutant may make two
        equal), else at ``default``, else skips the body; the labelled
        statements then run in order (fall-through), and ``break`` leaves."""
        skipped, labelled = self._switch_body(node)
        promoted: list[ct.IntType] = []

        def switch_value(ctx: Ctx) -> Value:
            value = self._expr(node.cond, ctx)
            if not promoted:
                promoted.append(ct.promote(value.ctype))
            return convert(convert(value, promoted[0]), ct.LONG)

        value, state = self._located(
            node.cond, state, LocationKind.ASSIGNMENT, ct.LONG, value_of=switch_value, name="switch"
        )
        self._push_scope()
        for decl in skipped:  # jumped over, but in scope
            state = self._exec(decl, state)
        matches: dict[c_ast.Node, smt.Term] = {}
        for item in labelled:
            if isinstance(item, c_ast.Case):
                def compare(ctx: Ctx, label=item.expr) -> Value:
                    case = convert(convert(self._expr(label, ctx), promoted[0]), ct.LONG)
                    return apply_binary("==", Value(value, ct.LONG), case)

                matches[item], state = self._located(
                    item.expr, state, LocationKind.CASE_LABEL, None, value_of=compare, name="case"
                )
        self._check_distinct(matches, state)
        entries: dict[c_ast.Node, smt.Term] = {}
        earlier: list[smt.Term] = []
        for label, match in matches.items():
            entries[label] = smt.And(match, smt.Not(smt.disjunction(earlier))) if earlier else match
            earlier.append(match)
        no_match = smt.Not(smt.disjunction(earlier)) if earlier else smt.BoolVal(True)
        frame = self._frames[-1]
        breaks: list[State] = []
        frame.loops.append((breaks, frame.loops[-1][1] if frame.loops else None))
        cur = State(smt.BoolVal(False), state.env, False)
        has_default = False
        for item in labelled:
            if isinstance(item, c_ast.Default):
                has_default = True
            cur = self._merge([cur, state.fork(entries.get(item, no_match))])
            for stmt in item.stmts or []:
                cur = self._exec(stmt, cur)
        frame.loops.pop()
        self._pop_scope()
        exits = breaks + [cur] + ([] if has_default else [state.fork(no_match)])
        return self._merge(exits)

    def _switch_body(self, node: c_ast.Switch) -> tuple[list[c_ast.Decl], list[c_ast.Node]]:
        """The declarations before the first label (the jump skips the
        other statements there) and the labels (``Case``/``Default``, each
        with the statements up to the next one), in order.  Raises
        ``UnsupportedConstruct`` for a label inside a nested statement and
        ``BadInput`` for two ``default`` labels."""
        body = node.stmt
        items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        first = next((i for i, item in enumerate(items) if isinstance(item, (c_ast.Case, c_ast.Default))), len(items))
        skipped = []
        for item in items[:first]:
            label = _nested_label(item)
            if label is not None:
                raise UnsupportedConstruct(self._point(label),
                                           f"{_LABEL[type(label)]} inside a statement of the switch body")
            if isinstance(item, c_ast.Decl):
                if item.init is not None:
                    raise UnsupportedConstruct(self._point(item), "initialized declaration before the first case label")
                skipped.append(item)
        labelled: list[c_ast.Node] = []
        for item in items[first:]:
            # ``switch (x) case 1: case 2: s;`` (no block) nests the labels
            while item.stmts and len(item.stmts) == 1 and isinstance(item.stmts[0], (c_ast.Case, c_ast.Default)):
                bare = (c_ast.Case(item.expr, [], item.coord) if isinstance(item, c_ast.Case)
                        else c_ast.Default([], item.coord))
                labelled.append(bare)
                item = item.stmts[0]
            labelled.append(item)
        if sum(isinstance(item, c_ast.Default) for item in labelled) > 1:
            raise BadInput("multiple default labels in one switch", self._point(node))
        return skipped, labelled

    def _check_distinct(self, matches: dict[c_ast.Node, smt.Term], state: State) -> None:
        """gcc rejects two equal case labels ("duplicate case value")."""
        seen: list[smt.Term] = []
        for case in matches:
            if has_effects(case.expr):
                raise BadInput("case label that is not an integer constant", self._point(case.expr))
            label = smt.simplify(convert(self._expr(case.expr, Ctx(state, {}, {}, True)), ct.LONG).term)
            if not smt.is_bv_value(label):
                raise BadInput("case label that is not an integer constant", self._point(case.expr))
            if any(label.eq(other) for other in seen):
                raise BadInput("duplicate case value", self._point(case.expr))
            seen.append(label)

    def _exec_Case(self, node: c_ast.Case, state: State) -> State:
        raise UnsupportedConstruct(self._point(node), "case label inside a statement of the switch body")

    def _exec_Default(self, node: c_ast.Default, state: State) -> State:
        raise UnsupportedConstruct(self._point(node), "default label inside a statement of the switch body")


_LABEL = {c_ast.Case: "case label", c_ast.Default: "default label"}


def _nested_label(node: c_ast.Node) -> c_ast.Node | None:
    """A ``case``/``default`` label of the enclosing switch inside ``node``."""
    if isinstance(node, (c_ast.Case, c_ast.Default)):
        return node
    if isinstance(node, c_ast.Switch):
        return None
    for _, child in node.children():
        label = _nested_label(child)
        if label is not None:
            return label
    return None
