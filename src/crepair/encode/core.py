"""The encoder's core: its state, locations and the merging of paths.

AllRepair FM'16, Sect. 3.1: every repairable expression (condition,
right-hand side, returned value, argument) becomes a *location*, assigned
to a fresh SSA variable; each unwound or inlined copy of it is a
:class:`~crepair.encode.formula.LocationCopy` whose alternatives encode the
mutants.  Where paths join, scalar variables that differ get a
Φ-assignment ``x = ite(g, x1, x2)`` in S_phi (the SSA of Clarke, Kroening,
Lerda, TACAS'04, Sect. 3); path environments are persistent
(:mod:`~crepair.encode.env`), so forks, snapshots and merges cost what the
paths changed.  Arrays are one chain of guarded stores shared by all paths
(:meth:`EncoderCore._store_element`), never merged.  The statement,
expression, assignment and call encoders of the sibling modules are mixins
over :class:`EncoderCore`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.formula import (
    Checks, Constraint, EncodingTimeout, Input, Location, LocationCopy, LocationKind, ProgramFormula, Unwinding,
)
from crepair.encode.ops import Value, convert, to_bool
from crepair.encode.env import Env, Keys, differing
from crepair.encode.walk import AlternativesFn, Ctx, Frame, Overrides, Scope, ScopeChain, Site, State, Var, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend.parse import CProgram
from crepair import interrupt
from crepair.solver import smt


class EncoderCore:
    """The state shared by the encoder mixins (see :class:`~crepair.encode.symex.Encoder`)."""

    def __init__(
        self,
        program: CProgram,
        *,
        bound: int,
        entry: str,
        alternatives: AlternativesFn,
        split_ternaries: bool = False,
        split_conditions: bool = False,
        unwinding: Unwinding = Unwinding.ASSUMPTIONS,
        checks: Checks = Checks(),
        deadline: float | None = None,
    ):
        if entry not in program.functions:
            raise BadInput(f"{program.path}: entry function '{entry}' is not defined (use --entry)")
        self._p = program
        # a --reference program's spans tell the user's nodes from the reference's (crepair.reference.program)
        self._users_node = getattr(program.spans, "in_user_file", None)
        self._bound = bound
        self._entry = entry
        self._alternatives = alternatives
        self._split_ternaries = split_ternaries
        self._split_conditions = split_conditions
        self._deadline = deadline  # time.monotonic() instant; past it the walk raises EncodingTimeout
        self.formula = ProgramFormula(bound=bound, entry=entry, unwinding=unwinding, checks=checks)
        self.mutants: dict[int, tuple[Overrides, ...]] = {}
        self._locations: dict[c_ast.Node, int] = {}
        self._lines: dict[c_ast.Node, int] = {}  # memo of _line: statements of loops are walked B times
        self._ssa = itertools.count()
        self._instances = itertools.count()
        self._keys = Keys()  # numbers the variable keys of every Env of this encoding
        # the current term of each array: one SSA chain for all paths, its stores guarded (see _store_element)
        self._arrays: dict[str, smt.Term] = {}
        self._scopes: list[dict[str, Var]] = [{}]
        self._frames: list[Frame] = []
        self._saved_scopes: list[list[dict[str, Var]]] = []  # the callers' scopes
        self._chain: ScopeChain | None = None  # snapshot of _scopes, None when it changed since
        self._call_stack: list[str] = []
        self._escapes = 0  # returns/breaks/continues seen: paths that leave a branch
        # checks of undefined behaviour (crepair.encode.undefined)
        self._sizes: dict[str, smt.Term] = {}  # array key -> element count, when the declaration gives it
        self._when: list[smt.Term] = []  # conditions of the enclosing &&, ||, ?: operands
        self._declarations: dict[str, c_ast.Decl] | None = None  # function prototypes by name, when first needed
        # the memory model (crepair.encode.memory): objects whose address is taken, by key
        self._objects: dict = {}  # key -> crepair.encode.memory.MemObject
        self._struct_types: dict[str, ct.StructType] = {}  # by tag, when first used
        self._struct_defs: dict[str, c_ast.Struct] | None = None  # struct definitions by tag
        self._allocation_types: dict = {}  # malloc/calloc call -> element type (crepair.encode.allocation)
        # "no assertion failed so far": the conjunction over formula.assertions[:_held_count] (see _assume)
        self._held: smt.Term = smt.BoolVal(True)
        self._held_count = 0

    # ------------------------------------------------------------- helpers
    def _assume(self, group: list[Constraint], term: smt.Term, span) -> None:
        """Append the assumption ``term`` (with its span, None when
        synthetic) to ``group`` (``formula.assumptions`` or
        ``formula.unwinding_assumptions``), binding only the runs on which
        no assertion encoded so far fails.

        An assumption cuts runs from its point on, never the failure of an
        assertion before it (CBMC: an assertion is checked under the
        assumptions that precede it): a run that fails an assertion stops
        there, as ``assert`` aborts, so a later ``assume``, ``abort()`` or
        unwinding assumption does not hide the failure.  The walk encodes
        each path in execution order, so the assertions encoded before an
        assumption include every one that precedes it on its path (those of
        other paths have false guards there).
        """
        fresh = self.formula.assertions[self._held_count :]
        if fresh:
            before = [] if smt.is_true(self._held) else [self._held]
            self._held = smt.conjunction(before + [smt.Implies(a.guard, a.cond) for a in fresh])
            self._held_count = len(self.formula.assertions)
        if not smt.is_true(self._held):
            term = smt.Implies(self._held, term)
        group.append(Constraint(term, span))

    def _check_deadline(self) -> None:
        """Raise :class:`EncodingTimeout` once the deadline has passed, and
        ``KeyboardInterrupt`` once Ctrl-C was pressed."""
        interrupt.stop_if_requested()
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise EncodingTimeout
    def _point(self, node: c_ast.Node):
        return self._p.spans.point(node)

    def _in_user_file(self, node: c_ast.Node) -> bool:
        """Whether ``node`` is in the user's file (False for a ``--reference``
        program's and its harness's nodes, see crepair.reference.program)."""
        return self._users_node is None or self._users_node(node)

    def _line(self, node: c_ast.Node) -> int:
        line = self._lines.get(node)
        if line is None:
            line = self._lines[node] = self._point(node).line
        return line

    def _fresh(self, key: str, ctype: ct.IntType) -> smt.Term:
        return smt.BitVec(f"{key}#{next(self._ssa)}", ctype.bits)

    def _nondet_array(self, var: Var, label: str, node: c_ast.Node, state: State) -> smt.Term:
        """A fresh array input; its size is recorded when the declaration
        gives one (a constant, or a side-effect-free expression)."""
        elem = var.ctype.elem
        term = smt.smt_array(f"{var.key}#{next(self._ssa)}", elem.bits)
        size, dim = None, var.ctype.size
        if isinstance(dim, c_ast.Constant) and dim.type == "int":
            size = smt.BitVecVal(int(dim.value.rstrip("uUlL"), 0), 32)
        elif dim is not None and not has_effects(dim):
            try:
                size = convert(self._expr(dim, Ctx(state, {}, {}, True)), ct.INT).term
            except (BadInput, UnsupportedConstruct):
                size = None
        if size is not None and var.ctype.inner:  # the flat element count
            size = smt.simplify(size * smt.BitVecVal(var.ctype.row, 32))
        self.formula.inputs.append(
            Input(label, self._line(node), term, elem.signed, is_array=True, size=size, guard=state.guard)
        )
        self._arrays[var.key] = term
        if size is not None:
            self._sizes[var.key] = size
        return term

    def _lookup(self, node: c_ast.ID) -> Var:
        for scope in reversed(self._scopes):
            var = scope.get(node.name)
            if var is not None:
                if var.unusable:
                    raise UnsupportedConstruct(self._point(node), var.unusable)
                return var
        raise BadInput(f"'{node.name}' is not declared", self._point(node))

    @property
    def _function(self) -> str:
        return self._frames[-1].function

    # ---------------------------------------------------------- locations
    def _site_location(
        self, root: c_ast.Node, span_node: c_ast.Node, kind: LocationKind, connective: bool = False
    ) -> tuple[int, tuple[Overrides, ...]]:
        idx = self._locations.get(root)
        if idx is None:
            function = self._frames[-1].function
            mutants = tuple(self._alternatives(Site(root, kind, function, connective)))
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
        state: State,
        kind: LocationKind,
        target: ct.IntType | None,
        *,
        span_node: c_ast.Node | None = None,
        value_of: Callable[[Ctx], Value] | None = None,
        name: str = "tmp",
        connective: bool = False,
    ) -> tuple[smt.Term, State]:
        """Evaluate a location's expression into a fresh SSA variable.

        ``target`` None means a condition (a fresh Boolean).  Returns the
        variable and the state after the expression's side effects.
        ``connective``: the location is the ``&&``/``||`` operator of
        ``root`` alone (its operands are locations of their own).
        """
        if self._split_conditions and target is None and value_of is None and self._splits(root, state):
            return self._located_connective(root, state, kind, name)
        if (
            self._split_ternaries
            and value_of is None
            and isinstance(root, c_ast.TernaryOp)
            and not has_effects(root.iftrue)
            and not has_effects(root.iffalse)
        ):
            # ``c ? a : b`` as ``if (c) tmp = a; else tmp = b;``: three locations
            g, state = self._located(root.cond, state, LocationKind.CONDITION, None, name="cond")
            a, _ = self._located(root.iftrue, state.fork(g), kind, target, name=name)  # no effects in the arms
            b, _ = self._located(root.iffalse, state.fork(smt.Not(g)), kind, target, name=name)
            return smt.If(g, a, b), state
        if target is not None and (not isinstance(target, ct.IntType) or isinstance(target, ct.StreamType)):
            # a pointer, struct or stream value is not a location (AllRepair mutates integer expressions)
            if isinstance(root, c_ast.InitList) and isinstance(target, ct.StructType):
                return self._struct_initializer(root, target, state, located=True, key=name)
            ctx = Ctx(state, {}, {}, True)
            value = value_of(ctx) if value_of is not None else self._expr(root, ctx)
            return self._coerce(value, target, root).term, ctx.state
        idx, mutants = self._site_location(root, span_node or root, kind, connective)
        scope = self._scope_values(state)
        evaluate = value_of or (lambda ctx: self._expr(root, ctx))
        entry_guard = state.guard
        ctx = Ctx(state, {}, {}, True, [])
        value = evaluate(ctx)
        state = ctx.state

        def final(v: Value) -> smt.Term:
            return to_bool(v) if target is None else self._coerce(v, target, root).term

        alternatives = [final(value)]
        checks = [ctx.checks]  # the checks of undefined behaviour met in each alternative
        for overrides in mutants[1:]:
            replay = Ctx(None, ctx.cache, overrides, False, [])
            alternatives.append(final(evaluate(replay)))
            checks.append(replay.checks)
        line = self._line(span_node or root)
        if target is None:
            lhs = smt.Bool(f"{name}@{line}#{next(self._ssa)}")
        else:
            lhs = smt.BitVec(f"{name}#{next(self._ssa)}", target.bits)
        self.formula.copies.append(LocationCopy(idx, lhs, tuple(alternatives), state.guard, scope))
        if any(checks):
            self._check_copies(idx, checks, entry_guard, scope)
        return lhs, state

    def _scope_values(self, state: State) -> Scope:
        """The scalar variables visible here (innermost declaration wins),
        as a snapshot read later (O(1) now: the chain is shared until the
        scopes change)."""
        if self._chain is None:
            self._chain = tuple((scope, len(scope)) for scope in self._scopes)
        return Scope(self._chain, state.env.copy())

    def _store_element(self, state: State, key: str, index: smt.Term, value: smt.Term, span,
                       write_only: bool = False) -> smt.Term:
        """``a[index] = value`` on the path of ``state``: the new array is
        ``store(a, index, ite(guard, value, a[index]))``, or, for an array
        the run only writes (``write_only``: the output records of
        :mod:`crepair.encode.stdio`, compared once at the end),
        ``ite(guard, store(a, index, value), a)``.

        Arrays are not in the path environments: every path reads and
        extends one chain of guarded stores, which no merge needs to join
        (a store is the identity on the paths its guard excludes, and the
        walk visits a path's stores before the code executed after them).
        A Φ over whole arrays (``a3 = ite(g, a1, a2)``) would instead leave
        the solver array-valued ``ite`` terms at every join.  The read-back
        ``a[index]`` of the first form is what an array that is read needs
        (z3 proves bubblesort at bound 10 in 20 s with it, not in 120 s
        without); for the output it is a read over every earlier record
        that proving two outputs equal must reason about: Bitwuzla decides
        C-Pack lab03/ex02's nested printing loops against the model at
        bound 8 in 8 s with the second form, not in 60 s with the first.
        Returns the new array variable.
        """
        self._check_deadline()  # one statement may store many elements (a printf, a memset)
        old = self._arrays[key]
        if smt.is_true(state.guard):
            stored = smt.Store(old, index, value)
        elif write_only:
            stored = smt.If(state.guard, smt.Store(old, index, value), old)
        else:
            stored = smt.Store(old, index, smt.If(state.guard, value, smt.Select(old, index)))
        new = smt.smt_array(f"{key}#{next(self._ssa)}", smt.width(value))
        self.formula.s_assign.append(Constraint(new == stored, span, self._function))
        self._arrays[key] = new
        return new

    def _push_scope(self) -> None:
        self._scopes.append({})
        self._chain = None

    def _pop_scope(self) -> None:
        self._scopes.pop()
        self._chain = None

    def _declare(self, name: str, var: Var) -> None:
        """Add ``name`` to the innermost scope.  Scope dicts only grow, so
        that a :class:`Scope` snapshot is a prefix; redeclaring a name in
        the same scope (file-scope tentative definitions) uses a new dict."""
        scope = self._scopes[-1]
        if name in scope:
            scope = self._scopes[-1] = dict(scope)
        scope[name] = var
        self._chain = None

    # ------------------------------------------------------------- merging
    def _merge(
        self, states: list[State], guard: smt.Term | None = None, branch: smt.Term | None = None
    ) -> State:
        """Join ``states``: guard is ``guard`` or the disjunction of theirs;
        variables that differ get a Φ-assignment ``x = ite(g1, x1, ite(...))``.
        For the two arms of a branch whose paths all rejoin, ``branch`` is its
        condition and the Φ reads ``x = ite(branch, x_then, x_else)`` (FM'16 Fig. 2d)."""
        alive = [s for s in states if s.alive]
        if branch is not None and len(alive) != 2:
            branch = None
        if not alive:
            return State(smt.BoolVal(False), states[-1].env.copy() if states else Env(self._keys), False)
        if len(alive) == 1:
            s = alive[0]
            return State(guard if guard is not None else s.guard, s.env, True)
        merged_guard = guard if guard is not None else smt.disjunction(s.guard for s in alive)
        # only keys whose terms are not shared may differ; sorted, as the Φs are numbered in this order
        env = alive[0].env.copy()
        for key in sorted(differing(s.env for s in alive)):
            values = [s.env.get(key) for s in alive]
            if key.endswith("$live"):  # a heap object's liveness bit: 0 where it was not allocated
                values = [smt.BitVecVal(0, 1) if v is None else v for v in values]
            if any(v is None for v in values):  # declared on some paths only: out of scope after the join
                env.discard(key)
                continue
            first = values[0]
            if all(v.eq(first) for v in values[1:]):
                continue
            term = values[-1]
            for s, v in zip(reversed(alive[:-1]), reversed(values[:-1])):
                term = smt.If(branch if branch is not None else s.guard, v, term)
            phi = smt.BitVec(f"{key}#{next(self._ssa)}", first.size())  # arrays are not in environments
            self.formula.s_phi.append(Constraint(phi == term, None))
            env[key] = phi
        return State(merged_guard, env, True)
