"""Bug localization by the gradient of forward/backward state differences:
Algorithm 2 of Wolverine2 (§5, "Pick suspicious statements"; soundness:
Appendix A, Theorem A.1).

Between two consecutive specified states ω_pre and ω_post of a trace, the
statements the trace ran are executed forward from ω_pre with the forward
semantics (the program as it is: states ω^f_i) and backward from ω_post
with the abstract backward semantics of Fig. 8 (Ω^b_i): an *upward
exposed* statement (Definition 1: nothing before it in the segment writes
its left-hand side) takes the left-hand side's value from ω_pre
(asgn1/getfld1); any other *splits* the state, the left-hand side taking
every node (asgn2); guards, ``free`` and the like are no-ops.  An entity
that ω_post does not specify starts split.  Γ_i = ω^f_i ⊗ Ω^b_i (the
difference weighted by the multiplying factor M/|Ω^b_i|) is computed in
closed form: splits are uniform and independent, so Γ_i / M is the sum over
entities of the probability that they disagree, kept as an exact fraction.
Statement i is suspicious when Γ_{i-1} ≠ Γ_i (the gradient), and always
when it is *sandwiched* (Definition 3; Case 2 of the proof) or writes a
field through a pointer the backward state does not know.  Writes to a
field match every write to the same field (aliases).

An entity that ω_post gives a value ω_pre does not, and that no
statement of the segment writes (Γ_0 ≠ 0 on it), means a write went to
another entity (a mutated left-hand side): every statement of the segment
writing an entity of its type is suspicious.

Conditions never change a state, so the gradient cannot clear them: they
stay suspicious (the repair may change them), as do locations the traces
never run.  A location is suspicious when one of its executions is.
"""

from __future__ import annotations

from fractions import Fraction

from crepair.heap.ir import Branch, Function, Instr, Loop, Seq, loop_lines
from crepair.heap.states import Event, Spec

_UNKNOWN = "?"
_ALL = object()  # a split entity: every value


class _Forward:
    """The program's own run along one trace (trace-forced loops), the
    state overridden by each specified state (the session's ``change``)."""

    def __init__(self, fn: Function, trace: tuple[Event, ...]):
        self.fn, self.trace = fn, trace
        self.pos = 0
        self.vars: dict = {v: _UNKNOWN for v in fn.variables}
        self.cells: dict = {}
        self.next_node = 1
        self.steps: list = []  # ("event", Event, state) | ("stmt", Instr, state after)
        self.returned = False
        self.unsure: set[int] = set()  # locations under a branch of unknown direction

    def snapshot(self):
        return dict(self.vars), dict(self.cells)

    def take_event(self) -> bool:
        ev = self.trace[self.pos]
        if ev.state is not None:
            for v, x in ev.state.vars.items():
                self.vars[v] = x
            for n, fs in ev.state.nodes.items():
                for f, x in fs.items():
                    self.cells[(n, f)] = x
            nums = [int(n[1:]) for n in list(ev.state.nodes) + list(ev.state.freed)]
            self.next_node = max([self.next_node - 1] + nums) + 1
        self.steps.append(("event", ev, self.snapshot()))
        self.pos += 1
        return self.pos >= len(self.trace)

    def read(self, o):
        if o.kind == "var":
            return self.vars.get(o.name, _UNKNOWN)
        if o.kind == "field":
            base = self.vars.get(o.name, _UNKNOWN)
            return _UNKNOWN if not isinstance(base, str) or base == _UNKNOWN else self.cells.get((base, o.field),
                                                                                                 _UNKNOWN)
        return None if o.kind == "null" else o.value

    def cond(self, c):
        if c.__class__.__name__ == "Atom":
            a, b = self.read(c.left), self.read(c.right)
            if _UNKNOWN in (a, b) and not (a is None and b is None):
                return _UNKNOWN
            if c.op in ("==", "!="):
                return (a == b) == (c.op == "==")
            if not isinstance(a, int) or not isinstance(b, int):
                return _UNKNOWN
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[c.op]
        if c.op == "!":
            v = self.cond(c.left)
            return v if v == _UNKNOWN else not v
        a, b = self.cond(c.left), self.cond(c.right)
        if c.op == "&&":
            return False if a is False or b is False else (_UNKNOWN if _UNKNOWN in (a, b) else True)
        return True if a is True or b is True else (_UNKNOWN if _UNKNOWN in (a, b) else False)

    def stmt(self, ins: Instr) -> None:
        s = ins.stmt
        if self.returned:
            return
        if s.kind == "assign":
            vals = [self.read(o) for o in s.rhs]
            value = vals[0]
            if s.op:
                value = (_UNKNOWN if not all(isinstance(v, int) for v in vals)
                         else vals[0] + vals[1] if s.op == "+" else vals[0] - vals[1])
            self.write(s.lhs, value)
        elif s.kind == "alloc":
            self.write(s.lhs, f"n{self.next_node}")
            self.next_node += 1
        elif s.kind == "return":
            if s.rhs:
                self.vars["return"] = self.read(s.rhs[0])
            self.returned = True
        self.steps.append(("stmt", ins, self.snapshot()))

    def write(self, lhs, value) -> None:
        if lhs.kind == "var":
            self.vars[lhs.name] = value
            return
        base = self.vars.get(lhs.name, _UNKNOWN)
        if isinstance(base, str) and base != _UNKNOWN:
            self.cells[(base, lhs.field)] = value

    def seq(self, seq: Seq) -> None:
        for n in seq.nodes:
            if isinstance(n, Instr):
                self.stmt(n)
            elif isinstance(n, Branch):
                self.branch(n)
            else:
                self.loop(n)

    def next_loop(self) -> int:
        if self.pos < len(self.trace) and self.trace[self.pos].at == "loop":
            return self.trace[self.pos].line
        return 0

    def branch(self, b: Branch) -> None:
        if self.returned:
            return
        v = self.cond(b.instr.cond)
        nxt = self.next_loop()
        if nxt and nxt in loop_lines(b.then):
            v = True
        elif nxt and nxt in loop_lines(b.orelse):
            v = False
        if v == _UNKNOWN:
            for side in (b.then, b.orelse):
                self.unsure |= _locations(side)
            return
        self.seq(b.then if v else b.orelse)

    def loop(self, lp: Loop) -> None:
        inner = loop_lines(lp.body) | {lp.line}
        while not self.returned and self.next_loop() == lp.line:
            if self.take_event():
                raise StopIteration
            if self.next_loop() not in inner:
                if self.cond(lp.instr.cond) is not False:
                    self.seq(lp.body)  # a body that returns (or an unknown guard)
                return
            self.seq(lp.body)

    def run(self) -> None:
        try:
            if self.take_event():
                return
            self.seq(self.fn.body)
            if self.pos < len(self.trace) and self.trace[self.pos].at == "exit":
                self.take_event()
        except StopIteration:
            pass


def _locations(seq: Seq) -> set[int]:
    out: set[int] = set()
    for n in seq.nodes:
        if isinstance(n, Instr):
            out.add(n.index)
        elif isinstance(n, Branch):
            out |= {n.instr.index} | _locations(n.then) | _locations(n.orelse)
        else:
            out |= {n.instr.index} | _locations(n.body)
    return out


def _key(ins: Instr):
    """What a statement writes, for matching (Definitions 1-3): a variable,
    or a field name (every write of a field may alias)."""
    s = ins.stmt
    if s.kind in ("assign", "alloc"):
        return ("var", s.lhs.name) if s.lhs.kind == "var" else ("field", s.lhs.field)
    if s.kind == "return" and s.rhs:
        return ("var", "return")
    return None


def _disagree(b, f, domain: int) -> Fraction:
    if b is _ALL:
        return Fraction(domain - 1, domain) if f != _UNKNOWN and not isinstance(f, int) else Fraction(1)
    return Fraction(int(b != f))


def _segment(fn: Function, pre: dict, post: Event, stmts: list, suspicious: set[int]) -> None:
    """Algorithm 2 on one segment: ``stmts`` are (Instr, forward state
    after it); ``pre`` is the forward state at ω_pre."""
    pre_vars, pre_cells = pre
    nodes = sorted({n for n, _ in pre_cells} | {n for _, (_, c) in stmts for n, _ in c}
                   | set(post.state.nodes), key=lambda n: int(n[1:]))
    domain = len(nodes) + 1
    fields = {f for fs in fn.structs.values() for f in fs}
    bvars = {v: post.state.vars.get(v, _ALL) for v in list(fn.variables) + ["return"]}
    bcells = {(n, f): post.state.nodes.get(n, {}).get(f, _ALL) for n in nodes for f in fields}
    keys = [_key(ins) for ins, _ in stmts]

    def gamma(fwd) -> Fraction:
        fv, fc = fwd
        total = sum((_disagree(b, fv.get(v, _UNKNOWN), domain) for v, b in bvars.items()), Fraction(0))
        return total + sum((_disagree(b, fc.get(c, _UNKNOWN), domain) for c, b in bcells.items()), Fraction(0))

    after = gamma(stmts[-1][1])
    final_vars = stmts[-1][1][0]
    wrong = {v for v, x in post.state.vars.items() if final_vars.get(v, _UNKNOWN) != x}
    for i in range(len(stmts) - 1, -1, -1):
        ins, (fv, fc) = stmts[i]
        key = keys[i]
        before_fwd = stmts[i - 1][1] if i > 0 else pre
        if {("var", v) for v in _read_vars(ins)} & {("var", v) for v in wrong} - set(keys[i:]):
            suspicious.add(ins.index)  # it reads a value ω_post proves wrong (a second fault may mask it)
        if key is not None and key[0] == "var" and fv.get(key[1], _UNKNOWN) == _UNKNOWN:
            suspicious.add(ins.index)  # the forward run cannot say what it wrote (Γ is blind to it)
        if key is not None and _wrote_wrong(ins, key, fv, fc, bvars, bcells):
            suspicious.add(ins.index)  # Case 3's difference, also where a split cannot show it (integers)
        if key is not None:
            up = key not in keys[:i]
            down = key not in keys[i + 1:]
            if not up and not down:
                suspicious.add(ins.index)  # sandwiched
            lhs = ins.stmt.lhs if ins.stmt.kind != "return" else None
            if key[0] == "var":
                bvars[key[1]] = pre_vars.get(key[1], _UNKNOWN) if up else _ALL
            else:
                base = bvars.get(lhs.name, _ALL)
                if base is _ALL or not isinstance(base, str) or base == _UNKNOWN:
                    suspicious.add(ins.index)  # the written cell is not known
                    for n in nodes:
                        bcells[(n, key[1])] = _ALL
                else:
                    bcells[(base, key[1])] = pre_cells.get((base, key[1]), _UNKNOWN) if up else _ALL
        before = gamma(before_fwd)
        if before != after:
            suspicious.add(ins.index)
        after = before
    # Γ_0 ≠ 0 for an entity no statement wrote: a write went elsewhere (a
    # mutated left-hand side); every statement writing its type may be it
    types = {("var", v): t for v, t in fn.variables.items()}
    written = set(keys)
    lost = {types.get(("var", v)) for v, b in bvars.items() if b is not _ALL and ("var", v) not in written
            and b != pre_vars.get(v, _UNKNOWN)}
    lost |= {("field", _field_type(fn, f)) for (n, f), b in bcells.items() if b is not _ALL
             and ("field", f) not in written and b != pre_cells.get((n, f), _UNKNOWN)}
    # the same per cell, with the cells the forward run wrote: a field write
    # that went to another field or node leaves (n, f) at ω_pre's value
    cells, anywhere = set(), set()
    for i, (ins, _) in enumerate(stmts):
        s = ins.stmt
        if s.lhs is not None and s.lhs.kind == "field":
            base = (stmts[i - 1][1] if i > 0 else pre)[0].get(s.lhs.name, _UNKNOWN)
            if isinstance(base, str) and base != _UNKNOWN:
                cells.add((base, s.lhs.field))
            else:
                anywhere.add(s.lhs.field)
    lost |= {("field", _field_type(fn, f)) for n, fs in post.state.nodes.items() for f, b in fs.items()
             if (n, f) in pre_cells and (n, f) not in cells and f not in anywhere and b != pre_cells[(n, f)]}
    for ins, _ in stmts:
        s = ins.stmt
        if s.lhs is None:
            continue
        if s.lhs.kind == "var" and s.lhs.type in lost:
            suspicious.add(ins.index)
        if s.lhs.kind == "field" and ("field", s.lhs.type) in lost:
            suspicious.add(ins.index)


def _wrote_wrong(ins: Instr, key, fv: dict, fc: dict, bvars: dict, bcells: dict) -> bool:
    """Whether the value statement ``ins`` wrote (forward state after it:
    ``fv``/``fc``) differs from the backward state after it where that
    one is not split: an integer split disagrees with every value, so
    Γ cannot tell a wrong integer from a split one."""
    if key[0] == "var":
        b = bvars.get(key[1], _ALL)
        return b is not _ALL and fv.get(key[1], _UNKNOWN) != b
    node = fv.get(ins.stmt.lhs.name, _UNKNOWN)
    if not isinstance(node, str) or node == _UNKNOWN:
        return False
    b = bcells.get((node, key[1]), _ALL)
    return b is not _ALL and fc.get((node, key[1]), _UNKNOWN) != b


def _read_vars(ins: Instr) -> set[str]:
    """The variables a statement reads (a field's base included)."""
    s = ins.stmt
    ops = list(s.rhs) + ([s.lhs] if s.lhs is not None and s.lhs.kind == "field" else [])
    return {o.name for o in ops if o.kind in ("var", "field") and not (o is s.lhs and o.kind == "var")}


def _field_type(fn: Function, f: str) -> str | None:
    return next((fs[f] for fs in fn.structs.values() if f in fs), None)


def suspicious(fn: Function, spec: Spec) -> set[int]:
    """The suspicious locations (1-based) of ``fn`` against ``spec``: a
    superset of the faulty ones (Theorem A.1).  Conditions and locations no
    trace runs are always in it."""
    out = {i.index for i in fn.instrs if i.cond is not None}
    ran: set[int] = set()
    for trace in spec.traces:
        fwd = _Forward(fn, trace)
        fwd.run()
        out |= fwd.unsure
        pre, stmts = None, []
        for kind, what, state in fwd.steps:
            if kind == "stmt":
                ran.add(what.index)
                if what.stmt is not None and what.stmt.kind in ("free",):
                    continue
                stmts.append((what, state))
                continue
            if what.state is None:
                continue
            if pre is not None and stmts:
                _segment(fn, pre, what, stmts, out)
            pre, stmts = state, []
        if stmts:  # statements after the last specified state: nothing clears them
            out |= {ins.index for ins, _ in stmts}
    out |= {i.index for i in fn.instrs if i.index not in ran}
    return out


def rank(fn: Function, spec: Spec) -> list[int]:
    """Locations in Algorithm 2's order: the suspicious ones first (source
    order), then the rest; for comparing ranks with spectrum methods."""
    found = suspicious(fn, spec)
    return sorted(found) + [i.index for i in fn.instrs if i.index not in found]


