"""Simplification, unwinding, inlining and SSA: C AST -> program formula.

Follows AllRepair FM'16, Sect. 3.1 (after Clarke, Kroening, Lerda, TACAS'04):

* every branch and loop condition is assigned to a fresh Boolean, so that
  all original expressions are right-hand sides of assignments (locations);
* loops are unwound ``bound`` times; the innermost copy gets
  ``assume(!cond)``; recursive calls are inlined up to depth ``bound``;
* SSA: each assignment defines a fresh variable; at merge points the
  Φ-assignments ``x = g ? x1 : x2`` go to S_phi.

The walk is a symbolic execution with a path guard per state; states are
merged after branches, loops and function bodies.  Every construct the walk
does not model raises :class:`~crepair.errors.UnsupportedConstruct`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.formula import (
    Assertion,
    Constraint,
    Input,
    Location,
    LocationCopy,
    LocationKind,
    ProgramFormula,
    ScopeValue,
    TraceStep,
    Unwinding,
    UnwindingCut,
)
from crepair.encode.ops import Value, apply_binary, apply_unary, bool_value, constant_value, convert, to_bool
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend.parse import CProgram
from crepair.solver import smt

#: Overrides of one mutant: AST node -> new operator (str), constant (int)
#: or NEGATE (the truth value ``e != 0`` becomes ``e == 0``).
Overrides = Mapping[c_ast.Node, "str | int"]
NEGATE = "!=0 -> ==0"


@dataclass(frozen=True, slots=True)
class Site:
    """What the mutation unit is asked about: a location's expression.

    ``root`` is the expression whose operators and constants may change (an
    ``Assignment`` node for compound assignments); ``function`` encloses it.
    """

    root: c_ast.Node
    kind: LocationKind
    function: str


#: Returns the alternatives of a site: element 0 must be ``{}`` (the original).
AlternativesFn = Callable[[Site], Sequence[Overrides]]


def no_alternatives(site: Site) -> Sequence[Overrides]:
    """The alternatives function of plain verification: only the original."""
    return ({},)


_NONDET_TYPES = {
    "int": ct.INT, "uint": ct.UINT, "unsigned": ct.UINT, "char": ct.CHAR, "uchar": ct.UCHAR,
    "short": ct.SHORT, "ushort": ct.USHORT, "long": ct.LONG, "ulong": ct.ULONG,
    "bool": ct.BOOL, "_Bool": ct.BOOL,
}
_ASSERTS = {"assert", "__VERIFIER_assert", "__CPROVER_assert", "__assert"}
_ASSUMES = {"assume", "__VERIFIER_assume", "__CPROVER_assume"}
_ERRORS = {"__VERIFIER_error", "reach_error"}
_IGNORED_CALLS = {"printf", "puts", "putchar", "fflush", "fprintf"}


@dataclass(slots=True)
class _Var:
    key: str
    ctype: "ct.IntType | ct.ArrayType"
    unusable: str | None = None


@dataclass(slots=True)
class _State:
    guard: smt.Term
    env: dict[str, smt.Term]
    alive: bool = True

    def fork(self, cond: smt.Term | None = None) -> "_State":
        guard = self.guard if cond is None else smt.And(self.guard, cond)
        return _State(guard, dict(self.env), self.alive)


@dataclass(slots=True)
class _Frame:
    function: str
    ret_key: str | None
    ret_type: ct.IntType
    returns: list[_State] = field(default_factory=list)
    loops: list[tuple[list[_State], list[_State]]] = field(default_factory=list)


@dataclass(slots=True)
class _Ctx:
    """Expression evaluation: ``record`` executes side effects on ``state``
    and fills ``cache``; replay rebuilds terms from ``cache`` under
    ``overrides`` (a mutant)."""

    state: _State | None
    cache: dict[c_ast.Node, object]
    overrides: Overrides
    record: bool


class Encoder:
    """Builds the :class:`ProgramFormula` of ``program`` from ``entry``.

    ``bound`` (≥ 0) is the unwinding bound B; ``alternatives`` gives, for
    each location, the mutants the mutation unit proposes.
    """

    def __init__(
        self,
        program: CProgram,
        *,
        bound: int,
        entry: str,
        alternatives: AlternativesFn,
        split_ternaries: bool = False,
        unwinding: Unwinding = Unwinding.ASSUMPTIONS,
    ):
        if entry not in program.functions:
            raise BadInput(f"{program.path}: entry function '{entry}' is not defined (use --entry)")
        self._p = program
        self._bound = bound
        self._entry = entry
        self._alternatives = alternatives
        self._split_ternaries = split_ternaries
        self.formula = ProgramFormula(bound=bound, entry=entry, unwinding=unwinding)
        self.mutants: dict[int, tuple[Overrides, ...]] = {}
        self._locations: dict[c_ast.Node, int] = {}
        self._ssa = itertools.count()
        self._instances = itertools.count()
        self._scopes: list[dict[str, _Var]] = [{}]
        self._frames: list[_Frame] = []
        self._call_stack: list[str] = []
        self._escapes = 0  # returns/breaks/continues seen: paths that leave a branch

    # ------------------------------------------------------------------ api
    def run(self) -> ProgramFormula:
        state = _State(smt.BoolVal(True), {})
        for decl in self._p.globals:
            state = self._global(decl, state)
        func = self._p.functions[self._entry]
        frame = self._enter(func, state)
        for name, var in self._params(func):
            self._scopes[-1][name] = var
            if isinstance(var.ctype, ct.ArrayType):
                state.env[var.key] = self._nondet_array(var, name, func)
            else:
                term = self._fresh(var.key, var.ctype)
                self.formula.inputs.append(Input(name, self._line(func), term, var.ctype.signed))
                state.env[var.key] = term
        state = self._leave(func, frame, self._exec(func.body, state))
        return self.formula

    # ------------------------------------------------------------- helpers
    def _point(self, node: c_ast.Node):
        return self._p.spans.point(node)

    def _line(self, node: c_ast.Node) -> int:
        return self._point(node).line

    def _fresh(self, key: str, ctype: ct.IntType) -> smt.Term:
        return smt.BitVec(f"{key}#{next(self._ssa)}", ctype.bits)

    def _nondet_array(self, var: _Var, label: str, node: c_ast.Node) -> smt.Term:
        elem = var.ctype.elem
        term = smt.smt_array(f"{var.key}#{next(self._ssa)}", elem.bits)
        self.formula.inputs.append(Input(label, self._line(node), term, elem.signed, is_array=True))
        return term

    def _lookup(self, node: c_ast.ID) -> _Var:
        for scope in reversed(self._scopes):
            var = scope.get(node.name)
            if var is not None:
                if var.unusable:
                    raise UnsupportedConstruct(self._point(node), var.unusable)
                return var
        raise BadInput(f"'{node.name}' is not declared", self._point(node))

    def _type(self, node: c_ast.Node) -> "ct.IntType | ct.ArrayType":
        match node:
            case c_ast.TypeDecl(type=c_ast.IdentifierType(names=names)):
                if len(names) == 1 and names[0] in self._p.typedefs:
                    return self._type(self._p.typedefs[names[0]])
                return ct.from_names(names, self._point(node))
            case c_ast.Typename(type=t) | c_ast.Decl(type=t):
                return self._type(t)
            case c_ast.ArrayDecl(type=inner, dim=dim):
                elem = self._type(inner)
                if isinstance(elem, ct.ArrayType):
                    raise UnsupportedConstruct(self._point(node), "multi-dimensional array")
                return ct.ArrayType(elem, dim)
            case c_ast.PtrDecl(type=inner):
                elem = self._type(inner)
                if isinstance(elem, ct.ArrayType):
                    raise UnsupportedConstruct(self._point(node), "pointer to array")
                return ct.ArrayType(elem, None)
        raise UnsupportedConstruct(self._point(node), f"type {type(node).__name__}")

    @property
    def _function(self) -> str:
        return self._frames[-1].function

    # ---------------------------------------------------------- locations
    def _site_location(self, root: c_ast.Node, span_node: c_ast.Node, kind: LocationKind) -> tuple[int, tuple[Overrides, ...]]:
        idx = self._locations.get(root)
        if idx is None:
            function = self._frames[-1].function
            mutants = tuple(self._alternatives(Site(root, kind, function)))
            span = self._p.spans.span(span_node)
            idx = len(self.formula.locations)
            self.formula.locations.append(
                Location(idx, kind, function, span, self._p.original[span.start : span.end], len(mutants) > 1)
            )
            self._locations[root] = idx
            self.mutants[idx] = mutants
        return idx, self.mutants[idx]

    def _located(
        self,
        root: c_ast.Node,
        state: _State,
        kind: LocationKind,
        target: ct.IntType | None,
        *,
        span_node: c_ast.Node | None = None,
        value_of: Callable[[_Ctx], Value] | None = None,
        name: str = "tmp",
    ) -> tuple[smt.Term, _State]:
        """Evaluate a location's expression into a fresh SSA variable.

        ``target`` None means a condition (a fresh Boolean).  Returns the
        variable and the state after the expression's side effects.
        """
        if (
            self._split_ternaries
            and value_of is None
            and isinstance(root, c_ast.TernaryOp)
            and not _has_effects(root.iftrue)
            and not _has_effects(root.iffalse)
        ):
            # ``c ? a : b`` as ``if (c) tmp = a; else tmp = b;``: three locations
            g, state = self._located(root.cond, state, LocationKind.CONDITION, None, name="cond")
            a, state = self._located(root.iftrue, state, kind, target, name=name)
            b, state = self._located(root.iffalse, state, kind, target, name=name)
            return smt.If(g, a, b), state
        idx, mutants = self._site_location(root, span_node or root, kind)
        scope = self._scope_values(state)
        evaluate = value_of or (lambda ctx: self._expr(root, ctx))
        ctx = _Ctx(state, {}, {}, True)
        value = evaluate(ctx)
        state = ctx.state

        def final(v: Value) -> smt.Term:
            return to_bool(v) if target is None else convert(v, target).term

        alternatives = [final(value)]
        for overrides in mutants[1:]:
            alternatives.append(final(evaluate(_Ctx(None, ctx.cache, overrides, False))))
        line = self._line(span_node or root)
        if target is None:
            lhs = smt.Bool(f"{name}@{line}#{next(self._ssa)}")
        else:
            lhs = smt.BitVec(f"{name}#{next(self._ssa)}", target.bits)
        self.formula.copies.append(LocationCopy(idx, lhs, tuple(alternatives), state.guard, scope))
        return lhs, state

    def _scope_values(self, state: _State) -> tuple[ScopeValue, ...]:
        """The scalar variables visible here (innermost declaration wins)."""
        seen: dict[str, ScopeValue] = {}
        for scope in reversed(self._scopes):
            for name, var in scope.items():
                if name in seen or var.unusable or not isinstance(var.ctype, ct.IntType):
                    continue
                term = state.env.get(var.key)
                if term is not None:
                    seen[name] = ScopeValue(name, term, var.ctype.bits, var.ctype.signed)
        return tuple(sorted(seen.values(), key=lambda v: v.name))

    # -------------------------------------------------------------- globals
    def _global(self, decl: c_ast.Decl, state: _State) -> _State:
        ctype = self._type(decl.type)
        var = _Var(f"{decl.name}", ctype)
        self._scopes[0][decl.name] = var
        if isinstance(ctype, ct.ArrayType):
            state.env[var.key] = smt.K(smt.BitVecSort(32), smt.BitVecVal(0, ctype.elem.bits))
        elif decl.init is not None:
            ctx = _Ctx(state, {}, {}, True)
            state.env[var.key] = convert(self._expr(decl.init, ctx), ctype).term
        else:
            state.env[var.key] = smt.BitVecVal(0, ctype.bits)
        return state

    # ------------------------------------------------------------ functions
    def _params(self, func: c_ast.FuncDef) -> list[tuple[str, _Var]]:
        args = func.decl.type.args
        if args is None:
            return []
        knr = {d.name: d for d in (func.param_decls or [])}
        inst = next(self._instances)
        out = []
        for p in args.params:
            if isinstance(p, c_ast.ID):  # K&R: the type is in param_decls
                name, decl = p.name, knr.get(p.name)
            elif isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and p.type.declname is None:
                if self._type(p) == ct.VOID:
                    return []
                raise UnsupportedConstruct(self._point(p), "unnamed parameter")
            elif isinstance(p, c_ast.EllipsisParam):
                raise UnsupportedConstruct(self._point(p), "variadic function")
            else:
                name, decl = p.name, p
            key = f"{func.decl.name}@{inst}::{name}"
            try:
                ptype = self._type(decl) if decl is not None else ct.INT
            except UnsupportedConstruct as exc:
                out.append((name, _Var(key, ct.INT, f"parameter '{name}': {exc.construct}")))
                continue
            out.append((name, _Var(key, ptype)))
        return out

    def _enter(self, func: c_ast.FuncDef, state: _State) -> _Frame:
        name = func.decl.name
        rtype_node = func.decl.type.type
        rtype = self._type(rtype_node)
        if isinstance(rtype, ct.ArrayType):
            raise UnsupportedConstruct(self._point(func), "function returning a pointer")
        ret_key = None if rtype == ct.VOID else f"{name}@{next(self._instances)}::$return"
        if ret_key:
            state.env[ret_key] = self._fresh(ret_key, rtype)
        frame = _Frame(name, ret_key, rtype)
        self._frames.append(frame)
        self._call_stack.append(name)
        self._saved_scopes = getattr(self, "_saved_scopes", [])
        self._saved_scopes.append(self._scopes)
        self._scopes = [self._scopes[0], {}]
        return frame

    def _leave(self, func: c_ast.FuncDef, frame: _Frame, state: _State) -> _State:
        merged = self._merge(frame.returns + [state])
        self._frames.pop()
        self._call_stack.pop()
        self._scopes = self._saved_scopes.pop()
        return merged

    def _call(self, node: c_ast.FuncCall, ctx: _Ctx) -> Value:
        if not isinstance(node.name, c_ast.ID):
            raise UnsupportedConstruct(self._point(node), "call through an expression")
        name = node.name.name
        args = node.args.exprs if node.args is not None else []
        state = ctx.state
        if name.startswith("nondet_") or name.startswith("__VERIFIER_nondet_"):
            suffix = name.split("nondet_", 1)[1]
            ctype = _NONDET_TYPES.get(suffix)
            if ctype is None:
                raise UnsupportedConstruct(self._point(node), f"input function '{name}'")
            term = self._fresh(f"{name}@{self._line(node)}", ctype)
            self.formula.inputs.append(Input(f"{name}()", self._line(node), term, ctype.signed))
            return Value(term, ctype)
        if name in _ASSERTS or name in _ASSUMES:
            if not args:
                raise BadInput(f"{name} needs an argument", self._point(node))
            cond = to_bool(self._expr(args[0], ctx))
            span = self._p.spans.span(node)
            if name in _ASSERTS:
                self.formula.assertions.append(Assertion(ctx.state.guard, cond, span))
            else:
                self.formula.assumptions.append(Constraint(smt.Implies(ctx.state.guard, cond), span))
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if name in _ERRORS:
            self.formula.assertions.append(Assertion(state.guard, smt.BoolVal(False), self._p.spans.span(node)))
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if name == "abort" or name == "exit":
            self.formula.assumptions.append(Constraint(smt.Not(state.guard), self._p.spans.span(node)))
            state.alive, state.guard = False, smt.BoolVal(False)
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if name in _IGNORED_CALLS:
            return Value(self._fresh(f"{name}@{self._line(node)}", ct.INT), ct.INT)
        func = self._p.functions.get(name)
        if func is None:
            raise UnsupportedConstruct(self._point(node), f"call to '{name}', which has no definition")
        if self._call_stack.count(name) >= self._bound and name in self._call_stack:
            span = self._p.spans.span(node)
            self.formula.cuts.append(UnwindingCut(state.guard, span, "recursion"))
            self.formula.unwinding_assumptions.append(Constraint(smt.Not(state.guard), span))
            rtype = self._type(func.decl.type.type)
            return Value(self._fresh(f"{name}$cut", rtype if isinstance(rtype, ct.IntType) else ct.INT), rtype)
        params = self._params(func)
        if len(params) != len(args):
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {len(params)}", self._point(node))
        bound: list[tuple[str, _Var, smt.Term]] = []
        for (pname, var), arg in zip(params, args):
            if isinstance(var.ctype, ct.ArrayType) or var.unusable:
                if not isinstance(arg, c_ast.ID):
                    raise UnsupportedConstruct(self._point(arg), "array argument that is not an array variable")
                target = self._lookup(arg)
                bound.append((pname, _Var(target.key, target.ctype), None))
                continue
            term, ctx.state = self._located(arg, ctx.state, LocationKind.ARGUMENT, var.ctype, name=var.key)
            bound.append((pname, var, term))
        frame = self._enter(func, ctx.state)
        for pname, var, term in bound:
            self._scopes[-1][pname] = var
            if term is not None:
                ctx.state.env[var.key] = term
        escapes = self._escapes  # the callee's returns rejoin the caller
        ctx.state = self._leave(func, frame, self._exec(func.body, ctx.state))
        self._escapes = escapes
        if frame.ret_key is None:
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        return Value(ctx.state.env[frame.ret_key], frame.ret_type)

    # ------------------------------------------------------------- merging
    def _merge(
        self, states: list[_State], guard: smt.Term | None = None, branch: smt.Term | None = None
    ) -> _State:
        """Join ``states``: guard is ``guard`` or the disjunction of theirs;
        variables that differ get a Φ-assignment ``x = ite(g1, x1, ite(...))``.
        For the two arms of a branch whose paths all rejoin, ``branch`` is its
        condition and the Φ reads ``x = ite(branch, x_then, x_else)`` (FM'16 Fig. 2d)."""
        alive = [s for s in states if s.alive]
        if branch is not None and len(alive) != 2:
            branch = None
        if not alive:
            return _State(smt.BoolVal(False), dict(states[-1].env) if states else {}, False)
        if len(alive) == 1:
            s = alive[0]
            return _State(guard if guard is not None else s.guard, s.env, True)
        merged_guard = guard if guard is not None else smt.disjunction(s.guard for s in alive)
        keys = set(alive[0].env)
        for s in alive[1:]:
            keys &= set(s.env)
        env: dict[str, smt.Term] = {}
        for key in sorted(keys):
            values = [s.env[key] for s in alive]
            first = values[0]
            if all(v.eq(first) for v in values[1:]):
                env[key] = first
                continue
            term = values[-1]
            for s, v in zip(reversed(alive[:-1]), reversed(values[:-1])):
                term = smt.If(branch if branch is not None else s.guard, v, term)
            if smt.is_array(first):
                phi = smt.smt_array(f"{key}#{next(self._ssa)}", first.range().size())
            else:
                phi = smt.BitVec(f"{key}#{next(self._ssa)}", first.size())
            self.formula.s_phi.append(Constraint(phi == term, None))
            env[key] = phi
        return _State(merged_guard, env, True)

    # ---------------------------------------------------------- statements
    def _exec(self, node: c_ast.Node, state: _State) -> _State:
        if not state.alive:
            return state
        method = getattr(self, f"_exec_{type(node).__name__}", None)
        if method is None:
            raise UnsupportedConstruct(self._point(node), f"statement {type(node).__name__}")
        if not isinstance(node, (c_ast.Compound, c_ast.EmptyStatement)):
            self.formula.trace.append(TraceStep(state.guard, self._line(node), self._frames[-1].function))
        return method(node, state)

    def _exec_Compound(self, node: c_ast.Compound, state: _State) -> _State:
        self._scopes.append({})
        for item in node.block_items or []:
            state = self._exec(item, state)
        self._scopes.pop()
        return state

    def _exec_EmptyStatement(self, node: c_ast.Node, state: _State) -> _State:
        return state

    def _exec_DeclList(self, node: c_ast.DeclList, state: _State) -> _State:
        for decl in node.decls:
            state = self._exec_Decl(decl, state)
        return state

    def _exec_Decl(self, node: c_ast.Decl, state: _State) -> _State:
        if isinstance(node.type, c_ast.FuncDecl):
            return state
        if "static" in (node.storage or []):
            raise UnsupportedConstruct(self._point(node), "static local variable")
        ctype = self._type(node.type)
        frame = self._frames[-1]
        var = _Var(f"{frame.function}@{next(self._instances)}::{node.name}", ctype)
        self._scopes[-1][node.name] = var
        if isinstance(ctype, ct.ArrayType):
            if node.init is not None:
                raise UnsupportedConstruct(self._point(node), "array initializer")
            state.env[var.key] = self._nondet_array(var, node.name, node)
        elif node.init is None:
            term = self._fresh(var.key, ctype)
            self.formula.inputs.append(Input(f"{node.name} (uninitialized)", self._line(node), term, ctype.signed))
            state.env[var.key] = term
        else:
            term, state = self._located(node.init, state, LocationKind.ASSIGNMENT, ctype, name=var.key)
            state.env[var.key] = term
        return state

    def _exec_Assignment(self, node: c_ast.Assignment, state: _State) -> _State:
        ctx = _Ctx(state, {}, {}, True)
        self._assign(node, ctx, located=True)
        return ctx.state

    def _exec_UnaryOp(self, node: c_ast.UnaryOp, state: _State) -> _State:
        ctx = _Ctx(state, {}, {}, True)
        self._expr(node, ctx)
        return ctx.state

    _exec_BinaryOp = _exec_UnaryOp
    _exec_ID = _exec_UnaryOp
    _exec_Constant = _exec_UnaryOp
    _exec_Cast = _exec_UnaryOp
    _exec_TernaryOp = _exec_UnaryOp

    def _exec_FuncCall(self, node: c_ast.FuncCall, state: _State) -> _State:
        ctx = _Ctx(state, {}, {}, True)
        self._call(node, ctx)
        return ctx.state

    def _exec_ExprList(self, node: c_ast.ExprList, state: _State) -> _State:
        for e in node.exprs:
            state = self._exec(e, state)
        return state

    def _exec_If(self, node: c_ast.If, state: _State) -> _State:
        g, state = self._located(node.cond, state, LocationKind.CONDITION, None, name="cond")
        escapes = self._escapes
        then_state = self._exec(node.iftrue, state.fork(g))
        else_state = self._exec(node.iffalse, state.fork(smt.Not(g))) if node.iffalse else state.fork(smt.Not(g))
        if self._escapes == escapes:
            return self._merge([then_state, else_state], state.guard, branch=g)
        return self._merge([then_state, else_state])

    def _exec_While(self, node: c_ast.While, state: _State) -> _State:
        return self._loop(node, state, node.cond, node.stmt, None, do_while=False)

    def _exec_DoWhile(self, node: c_ast.DoWhile, state: _State) -> _State:
        return self._loop(node, state, node.cond, node.stmt, None, do_while=True)

    def _exec_For(self, node: c_ast.For, state: _State) -> _State:
        self._scopes.append({})
        if node.init is not None:
            state = self._exec(node.init, state)
        state = self._loop(node, state, node.cond, node.stmt, node.next, do_while=False)
        self._scopes.pop()
        return state

    def _loop(self, node, state: _State, cond, body, step, *, do_while: bool) -> _State:
        frame = self._frames[-1]
        exits: list[_State] = []
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
                    self.formula.unwinding_assumptions.append(Constraint(smt.Implies(cur.guard, smt.Not(g)), span))
                    self.formula.cuts.append(UnwindingCut(smt.And(cur.guard, g), span, "loop"))
                    exits.append(cur.fork(smt.Not(g)))
                    break
                exits.append(cur.fork(smt.Not(g)))
                cur = cur.fork(g)
            breaks: list[_State] = []
            continues: list[_State] = []
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

    def _exec_Break(self, node: c_ast.Break, state: _State) -> _State:
        frame = self._frames[-1]
        if not frame.loops:
            raise UnsupportedConstruct(self._point(node), "break outside a loop")
        frame.loops[-1][0].append(state)
        self._escapes += 1
        return _State(smt.BoolVal(False), state.env, False)

    def _exec_Continue(self, node: c_ast.Continue, state: _State) -> _State:
        frame = self._frames[-1]
        if not frame.loops:
            raise UnsupportedConstruct(self._point(node), "continue outside a loop")
        frame.loops[-1][1].append(state)
        self._escapes += 1
        return _State(smt.BoolVal(False), state.env, False)

    def _exec_Return(self, node: c_ast.Return, state: _State) -> _State:
        frame = self._frames[-1]
        if node.expr is not None:
            if frame.ret_key is None:
                ctx = _Ctx(state, {}, {}, True)
                self._expr(node.expr, ctx)
                state = ctx.state
            else:
                term, state = self._located(node.expr, state, LocationKind.RETURN, frame.ret_type, name=frame.ret_key)
                state.env[frame.ret_key] = term
        frame.returns.append(state)
        self._escapes += 1
        return _State(smt.BoolVal(False), state.env, False)

    # ---------------------------------------------------------- assignment
    def _assign(self, node: c_ast.Assignment, ctx: _Ctx, *, located: bool) -> Value:
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
            index = self._index(lv.subscript, ctx)
        else:
            raise UnsupportedConstruct(self._point(lv), "assignment target that is not a variable or array element")

        def value_of(c: _Ctx) -> Value:
            if node.op == "=":
                return self._expr(node.rvalue, c)
            op = c.overrides.get(node, node.op[:-1])
            current = self._read_lvalue(node, var, index, c)
            return apply_binary(op, current, self._expr(node.rvalue, c))

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
            new = smt.smt_array(f"{var.key}#{next(self._ssa)}", target.bits)
            old = ctx.state.env[var.key]
            self.formula.s_assign.append(
                Constraint(new == smt.Store(old, index, value.term), self._p.spans.span(node), self._function)
            )
            ctx.state.env[var.key] = new
        ctx.cache[node] = value
        return value

    def _read_lvalue(self, node: c_ast.Assignment, var: _Var, index, ctx: _Ctx) -> Value:
        key = ("lvalue", node)
        if ctx.record:
            env_term = ctx.state.env[var.key]
            if index is None:
                value = Value(env_term, var.ctype)
            else:
                value = Value(smt.Select(env_term, index), var.ctype.elem)
            ctx.cache[key] = value
            return value
        return ctx.cache[key]

    def _index(self, sub: c_ast.Node, ctx: _Ctx) -> smt.Term:
        return convert(self._expr(sub, ctx), ct.INT).term

    # ---------------------------------------------------------- expressions
    def _expr(self, node: c_ast.Node, ctx: _Ctx) -> Value:
        if ctx.overrides.get(node) is NEGATE:
            inner = _Ctx(ctx.state, ctx.cache, {}, ctx.record)
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
                    ctx.cache[node] = (ctx.state.env[var.key], var.ctype.elem)
                array, elem = ctx.cache[node]
                return Value(smt.Select(array, self._index(sub, ctx)), elem)
            case c_ast.BinaryOp(op=op, left=left, right=right):
                op = ctx.overrides.get(node, op)
                if op in ("&&", "||"):
                    return self._logical(node, op, ctx)
                return apply_binary(op, self._expr(left, ctx), self._expr(right, ctx))
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

    def _logical(self, node: c_ast.BinaryOp, op: str, ctx: _Ctx) -> Value:
        a = to_bool(self._expr(node.left, ctx))
        if ctx.record and _has_effects(node.right):
            guard_cond = a if op == "&&" else smt.Not(a)
            b = to_bool(self._guarded(node.right, guard_cond, ctx))
        else:
            b = to_bool(self._expr(node.right, ctx))
        return bool_value(smt.And(a, b) if op == "&&" else smt.Or(a, b))

    def _branches(self, t, f, cond, ctx: _Ctx) -> tuple[Value, Value]:
        if ctx.record and (_has_effects(t) or _has_effects(f)):
            return self._guarded(t, cond, ctx), self._guarded(f, smt.Not(cond), ctx)
        return self._expr(t, ctx), self._expr(f, ctx)

    def _guarded(self, node: c_ast.Node, cond: smt.Term, ctx: _Ctx) -> Value:
        """Evaluate ``node`` only on the paths where ``cond`` holds (short circuit)."""
        before = ctx.state
        inner = _Ctx(before.fork(cond), ctx.cache, ctx.overrides, True)
        value = self._expr(node, inner)
        skipped = before.fork(smt.Not(cond))
        ctx.state = self._merge([inner.state, skipped], before.guard, branch=cond)
        return value

    def _increment(self, node: c_ast.UnaryOp, ctx: _Ctx) -> Value:
        if not ctx.record:
            return ctx.cache[node]
        target = node.expr
        old = self._expr(target, ctx)
        one = Value(smt.BitVecVal(1, 32), ct.INT)
        new = apply_binary("+" if "+" in node.op else "-", old, one)
        var_value = self._store(target, new, ctx, node)
        result = old if node.op.startswith("p") else var_value
        ctx.cache[node] = result
        return result

    def _store(self, target: c_ast.Node, value: Value, ctx: _Ctx, origin: c_ast.Node) -> Value:
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
            new = smt.smt_array(f"{var.key}#{next(self._ssa)}", var.ctype.elem.bits)
            old = ctx.state.env[var.key]
            self.formula.s_assign.append(
                Constraint(new == smt.Store(old, index, converted.term), self._p.spans.span(origin), self._function)
            )
            ctx.state.env[var.key] = new
            return converted
        raise UnsupportedConstruct(self._point(target), "increment of something that is not a variable")


def _has_effects(node: c_ast.Node) -> bool:
    """Whether evaluating ``node`` may call a function or assign."""
    if isinstance(node, (c_ast.FuncCall, c_ast.Assignment)):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--", "++", "--"):
        return True
    return any(_has_effects(child) for _, child in node.children())


def encode(
    program: CProgram,
    *,
    bound: int,
    entry: str = "main",
    alternatives: AlternativesFn = no_alternatives,
    split_ternaries: bool = False,
    unwinding: Unwinding = Unwinding.ASSUMPTIONS,
) -> tuple[ProgramFormula, dict[int, tuple[Overrides, ...]]]:
    """The program formula of ``program`` (see module docstring).

    Returns the formula and, per location index, the mutants whose terms are
    the location copies' alternatives (index 0 = original).  With
    ``split_ternaries`` a located ``c ? a : b`` (without side effects in its
    arms) becomes three locations: the condition and both arms.
    ``unwinding`` chooses what a run cut off by the bound means (see
    :class:`~crepair.encode.formula.Unwinding`).  Raises
    ``UnsupportedConstruct``/``BadInput`` for code the encoder does not model.
    """
    if bound < 0:
        raise ValueError("the unwinding bound must be >= 0")
    encoder = Encoder(
        program, bound=bound, entry=entry, alternatives=alternatives, split_ternaries=split_ternaries,
        unwinding=unwinding,
    )
    formula = encoder.run()
    return formula, encoder.mutants
