"""Φ_sem and Φ_spec: an execution of the repair candidate along a trace.

Wolverine2 §3.1: Φ_sem ≡ ∏ T_i(S_i, S_{i+1}) over the instructions of the
trace, with the forward semantics of Fig. "Forward Semantics" (asgn,
getfld, putfld, grd1/grd2, nondet) — a getfield or putfield on ``null`` is
an error (no repaired run may have one).  Loops run the iterations the trace
took (every iteration runs the same instructions, those of P̂): a loop
visit followed in the trace by a visit of the same loop (or of a loop in its
body) was entered, any other was left.  When the trace contains the loop's
exit, its guard must hold on every entering visit and fail on the leaving
one; a trace that stops inside a loop forced its iterations (the ``enter``
command) and says nothing of its guard.  Branches without loops are
symbolic (path conditions); a branch whose loops the trace visits was taken.

Φ_spec: at each event with a state, every specified variable and node field
equals the state's value.  A pointer is an 8-bit node number (0 = NULL,
``dangling`` = a pointer to no node), an integer 32 bits.  The fields of
nodes the function allocates hold what the harness's malloc leaves there
(bytes 0xA5: no node; calloc: zeros), as do locals before their first
assignment (the harness initializes them so); entities the entry state
leaves out are unconstrained.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from crepair.errors import BadInput
from crepair.heap.ir import INT, Atom, Branch, Instr, Loop, Seq, loop_lines
from crepair.heap.space import Choice, OperandChoice, Space
from crepair.heap.states import Event, State, node_number
from crepair.solver import smt


def _bv(v: int, ty: str):
    return smt.BitVecVal(v, 32 if ty == INT else 8)


def _mux(choice: Choice, values: list):
    out = values[-1]
    for k in range(len(values) - 2, -1, -1):
        out = smt.If(choice.term == smt.BitVecVal(k, 8), values[k], out)
    return out


@dataclass(frozen=True, slots=True)
class SymState:
    """Variables, heap (field -> per-node values, index 0 = NULL's), the
    next node number, the error and returned flags and the return value."""

    vars: dict
    heap: dict
    next: object
    err: object
    ret: object
    retval: object | None


class _Done(Exception):
    def __init__(self, state: SymState):
        self.state = state


class Encoder:
    """Builds Φ_sem ∧ Φ_spec of ``space`` (the candidate P̂) along one
    ``trace`` (a call's events; ``tag`` names its fresh variables);
    :attr:`constraints` are hard constraints; ``nodes``: K, the number of
    heap nodes modelled."""

    def __init__(self, space: Space, trace: tuple[Event, ...], tag: str = "0"):
        self.space, self.fn, self.trace, self.tag = space, space.fn, trace, tag
        numbers = [node_number(n) for e in trace if e.state for n in list(e.state.nodes) + list(e.state.freed)]
        numbers += [node_number(v) for e in trace if e.state for v in e.state.vars.values()
                    if isinstance(v, str)]
        entry = trace[0].state
        self.first_new = max([node_number(n) for n in list(entry.nodes) + list(entry.freed)] + [0]) + 1
        allocs = sum(1 for i in self.fn.instrs if i.stmt is not None and i.stmt.kind == "alloc")
        self.nodes = max(numbers + [0, self.first_new - 1 + allocs])
        self.dangling = self.nodes + 1
        self.constraints: list = []
        self.pos = 1
        self._fresh = 0

    def fresh(self, ty: str, what: str):
        self._fresh += 1
        return smt.BitVec(f"{what}#{self.tag}.{self._fresh}", 32 if ty == INT else 8)

    # -- states ----------------------------------------------------------------
    def initial(self) -> SymState:
        st = self.trace[0].state
        vars_ = {}
        for v, ty in self.space.vars.items():
            if v in st.vars:
                vars_[v] = self.value(st.vars[v], ty)
            elif v in self.fn.locals:
                vars_[v] = self.undefined(ty)
            else:
                vars_[v] = self.fresh(ty, v)  # not specified: any value
        heap = {}
        for tag, fields in self.fn.structs.items():
            for f, ty in fields.items():
                key = (tag, f)
                heap[key] = [self.fresh(ty, f"{tag}.{f}@0")]
                for k in range(1, self.nodes + 1):
                    given = st.nodes.get(f"n{k}", {})
                    if f in given:
                        heap[key].append(self.value(given[f], ty))
                    elif k >= self.first_new:  # allocated later: malloc's memory is uninitialized
                        heap[key].append(self.undefined(ty))
                    else:
                        heap[key].append(self.fresh(ty, f"n{k}.{f}"))
        return SymState(vars_, heap, smt.BitVecVal(self.first_new, 8), smt.BoolVal(False), smt.BoolVal(False),
                        None)

    def undefined(self, ty: str):
        """The value of malloc'ed memory and of uninitialized locals (the
        harness fills them with bytes 0xA5): a pointer to no node, the
        integer 0xA5A5A5A5."""
        return smt.BitVecVal(self.dangling, 8) if ty != INT else smt.BitVecVal(0xA5A5A5A5, 32)

    def value(self, v, ty: str):
        if ty == INT:
            if not isinstance(v, int):
                raise BadInput(f"states: {v!r} is not an integer")
            return smt.BitVecVal(v, 32)
        if v is None:
            return smt.BitVecVal(0, 8)
        if not isinstance(v, str) or not node_number(v):
            raise BadInput(f"states: {v!r} is not a node name or null")
        return smt.BitVecVal(node_number(v), 8)

    def matches(self, st: SymState, want: State) -> list:
        """Φ_spec of one event: the specified entities of ``want``."""
        out = []
        for v, x in want.vars.items():
            if v == "return":
                if st.retval is None:
                    continue
                out.append(st.retval == self.value(x, self.fn.returns))
            elif v in st.vars:
                out.append(st.vars[v] == self.value(x, self.space.vars[v]))
            else:
                raise BadInput(f"states: '{v}' is not a variable of {self.fn.name} (nor a global it can see)")
        for n, fields in want.nodes.items():
            k = node_number(n)
            for f, x in fields.items():
                for (tag, g), cells in st.heap.items():
                    if g == f and k < len(cells):
                        out.append(cells[k] == self.value(x, self.fn.structs[tag][f]))
                        break
        return out

    # -- reading and writing ------------------------------------------------
    def read(self, st: SymState, oc: OperandChoice):
        """(value, error condition) of operand ``oc`` in ``st``."""
        o = oc.operand
        if o.kind == "var":
            return _mux(oc.base, [st.vars[v] for v in oc.base.options]), smt.BoolVal(False)
        if o.kind == "field":
            base = _mux(oc.base, [st.vars[v] for v in oc.base.options])
            tag = o.base_type[4:]
            vals = [self.cell(st.heap[(tag, f)], base) for f in oc.field.options]
            return _mux(oc.field, vals), self.bad(base)
        if o.kind == "null":
            return smt.BitVecVal(0, 8), smt.BoolVal(False)
        return _bv(o.value, INT), smt.BoolVal(False)

    def bad(self, base):
        return smt.Or(base == smt.BitVecVal(0, 8), smt.UGT(base, smt.BitVecVal(self.nodes, 8)))

    def cell(self, cells: list, base):
        out = cells[0]
        for k in range(1, len(cells)):
            out = smt.If(base == smt.BitVecVal(k, 8), cells[k], out)
        return out

    def write(self, st: SymState, oc: OperandChoice, active, value) -> SymState:
        o = oc.operand
        if o.kind == "var":
            vars_ = dict(st.vars)
            for k, v in enumerate(oc.base.options):
                vars_[v] = smt.If(smt.And(active, oc.base.term == smt.BitVecVal(k, 8)), value, st.vars[v])
            return replace(st, vars=vars_)
        base = _mux(oc.base, [st.vars[v] for v in oc.base.options])
        return self.put(st, o.base_type[4:], oc.field, base, active, value)

    def put(self, st: SymState, tag: str, fchoice: Choice, base, active, value) -> SymState:
        heap = dict(st.heap)
        for k, f in enumerate(fchoice.options):
            sel = smt.And(active, fchoice.term == smt.BitVecVal(k, 8))
            cells = st.heap[(tag, f)]
            heap[(tag, f)] = [cells[0]] + [smt.If(smt.And(sel, base == smt.BitVecVal(n, 8)), value, cells[n])
                                           for n in range(1, len(cells))]
        return replace(st, heap=heap, err=smt.Or(st.err, smt.And(active, self.bad(base))))

    # -- instructions --------------------------------------------------------
    def guard(self, st: SymState, ins: Instr):
        """(value, error condition) of condition ``ins`` of P̂ in ``st``."""
        loc = self.space.locations[ins.index - 1]
        counter = [0]

        def ev(c):
            if isinstance(c, Atom):
                k = counter[0]
                counter[0] += 1
                lc, rc, opc = self.space.atom_choices(loc, k)
                (a, ea), (b, eb) = self.read(st, lc), self.read(st, rc)
                tests = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
                return _mux(opc, [tests[o] for o in opc.options]), smt.Or(ea, eb)
            if c.op == "!":
                v, e = ev(c.left)
                return smt.Not(v), e
            (va, ea), (vb, eb) = ev(c.left), ev(c.right)
            if c.op == "&&":
                return smt.And(va, vb), smt.Or(ea, smt.And(va, eb))
            return smt.Or(va, vb), smt.Or(ea, smt.And(smt.Not(va), eb))

        return ev(ins.cond)

    def statement(self, st: SymState, ins: Instr, pc) -> SymState:
        loc = self.space.locations[ins.index - 1]
        active = smt.And(pc, smt.Not(st.ret), smt.Not(loc.delete))
        s = ins.stmt
        ops = loc.operands
        if s.kind == "assign":
            vals = [self.read(st, oc) for oc in ops[1:]]
            err = smt.Or(*[e for _, e in vals]) if len(vals) > 1 else vals[0][1]
            value = vals[0][0]
            if s.op == "+":
                value = vals[0][0] + vals[1][0]
            elif s.op == "-":
                value = vals[0][0] - vals[1][0]
            lhs_err = self.read(st, ops[0])[1] if ops[0].operand.kind == "field" else smt.BoolVal(False)
            st = replace(st, err=smt.Or(st.err, smt.And(active, smt.Or(err, lhs_err))))
            return self.write(st, ops[0], active, value)
        if s.kind == "alloc":
            new = st.next
            st = replace(st, next=smt.If(active, new + 1, new),
                         err=smt.Or(st.err, smt.And(active, smt.UGT(new, smt.BitVecVal(self.nodes, 8)))))
            if s.op == "calloc":
                tag = ops[0].operand.type[4:]
                for f, ty in self.fn.structs[tag].items():
                    one = Choice(smt.BitVecVal(0, 8), [f], 0)
                    st = self.put(st, tag, one, new, active, _bv(0, ty))
            return self.write(st, ops[0], active, new)
        if s.kind == "free":
            base, _ = self.read(st, ops[0])
            return replace(st, err=smt.Or(st.err, smt.And(active, smt.UGT(base, smt.BitVecVal(self.nodes, 8)))))
        # return
        retval = st.retval
        if ops:
            value, err = self.read(st, ops[0])
            retval = value if retval is None else smt.If(active, value, retval)
            st = replace(st, err=smt.Or(st.err, smt.And(active, err)))
        return replace(st, ret=smt.Or(st.ret, active), retval=retval)

    def slots_at(self, st: SymState, gap, pc) -> SymState:
        """The insertion slots placed (ξ) at ``gap``, in slot order."""
        if gap.offset < 0:
            return st
        g = self.space.gaps.index(gap)
        for sl in self.space.slots:
            active = smt.And(pc, smt.Not(st.ret), sl.t, sl.gap == smt.BitVecVal(g, 8))
            tag = self.space.slot_type[4:]
            ptrs = sl.lhs_base.options
            rbase = _mux(sl.rhs_base, [st.vars[v] for v in ptrs])
            rfield = _mux(sl.rhs_field, [self.cell(st.heap[(tag, f)], rbase) for f in sl.rhs_field.options])
            rk = sl.rhs_kind.term
            value = smt.If(rk == smt.BitVecVal(0, 8), rbase,
                           smt.If(rk == smt.BitVecVal(1, 8), rfield, smt.BitVecVal(0, 8)))
            rerr = smt.And(rk == smt.BitVecVal(1, 8), self.bad(rbase))
            st = replace(st, err=smt.Or(st.err, smt.And(active, rerr)))
            as_var = smt.And(active, sl.lhs_kind.term == smt.BitVecVal(0, 8))
            vars_ = dict(st.vars)
            for k, v in enumerate(ptrs):
                vars_[v] = smt.If(smt.And(as_var, sl.lhs_base.term == smt.BitVecVal(k, 8)), value, st.vars[v])
            st = replace(st, vars=vars_)
            lbase = _mux(sl.lhs_base, [st.vars[v] for v in ptrs])
            st = self.put(st, tag, sl.lhs_field, lbase, smt.And(active, sl.lhs_kind.term == smt.BitVecVal(1, 8)),
                          value)
        return st

    # -- the trace ---------------------------------------------------------------
    def event(self, st: SymState, reached) -> None:
        """Consume the next event (its state asserted where ``reached``)."""
        ev = self.trace[self.pos]
        self.constraints.append(reached)
        if ev.state is not None:
            self.constraints += [smt.Implies(reached, c) for c in self.matches(st, ev.state)]
        self.pos += 1
        if self.pos == len(self.trace):
            raise _Done(st)

    def next_loop(self) -> int:
        """The line of the next event if it is a loop visit, else 0."""
        if self.pos < len(self.trace) and self.trace[self.pos].at == "loop":
            return self.trace[self.pos].line
        return 0

    def seq(self, seq: Seq, st: SymState, pc) -> SymState:
        for k, node in enumerate(seq.nodes):
            if seq.gaps:
                st = self.slots_at(st, seq.gaps[k], pc)
            if isinstance(node, Instr):
                st = self.statement(st, node, pc)
            elif isinstance(node, Branch):
                st = self.branch(st, node, pc)
            else:
                st = self.loop(st, node, pc)
        if seq.gaps:
            st = self.slots_at(st, seq.gaps[-1], pc)
        return st

    def branch(self, st: SymState, b: Branch, pc) -> SymState:
        live = smt.And(pc, smt.Not(st.ret))
        v, e = self.guard(st, b.instr)
        st = replace(st, err=smt.Or(st.err, smt.And(live, e)))
        nxt = self.next_loop()
        then_loops, else_loops = loop_lines(b.then), loop_lines(b.orelse)
        if nxt and nxt in then_loops:
            self.constraints.append(smt.Implies(live, v))
            return self.seq(b.then, st, smt.And(pc, v))
        if nxt and nxt in else_loops:
            self.constraints.append(smt.Implies(live, smt.Not(v)))
            return self.seq(b.orelse, st, smt.And(pc, smt.Not(v)))
        if then_loops:
            self.constraints.append(smt.Not(smt.And(live, v)))
        else:
            st = self.seq(b.then, st, smt.And(pc, v))
        if else_loops:
            self.constraints.append(smt.Not(smt.And(live, smt.Not(v))))
            return st
        return self.seq(b.orelse, st, smt.And(pc, smt.Not(v)))

    def loop(self, st: SymState, lp: Loop, pc) -> SymState:
        inner = loop_lines(lp.body) | {lp.line}
        visits = []
        while True:
            live = smt.And(pc, smt.Not(st.ret))
            if self.next_loop() != lp.line:
                self.constraints.append(smt.Not(live))  # the trace does not visit this loop here
                return st
            v, e = self.guard(st, lp.instr)
            st = replace(st, err=smt.Or(st.err, smt.And(live, e)))
            self.event(st, live)
            if self.next_loop() in inner:
                visits.append((live, v))
                st = self.seq(lp.body, st, pc)
                continue
            self.constraints += [smt.Implies(lv, g) for lv, g in visits]  # the run is complete
            if _returns(lp.body):
                after = self.seq(lp.body, st, smt.And(pc, v))
                self.constraints.append(smt.Implies(smt.And(live, v), after.ret))
                return after
            self.constraints.append(smt.Implies(live, smt.Not(v)))
            return st

    def encode(self) -> list:
        """Φ_sem ∧ Φ_spec as a list of hard constraints (no error on any run)."""
        st = self.initial()
        try:
            st = self.seq(self.fn.body, st, smt.BoolVal(True))
            if self.pos < len(self.trace) and self.trace[self.pos].at == "exit":
                self.event(st, smt.BoolVal(True))
            self.constraints.append(smt.BoolVal(False))  # events the program cannot reach
        except _Done as done:
            st = done.state
        self.constraints.append(smt.Not(st.err))
        return self.constraints


def _returns(seq: Seq) -> bool:
    for n in seq.nodes:
        if isinstance(n, Instr) and n.stmt is not None and n.stmt.kind == "return":
            return True
        if isinstance(n, Branch) and (_returns(n.then) or _returns(n.orelse)):
            return True
        if isinstance(n, Loop) and _returns(n.body):
            return True
    return False
