"""Proof-guided repair: Algorithm 1 of Wolverine2 (§4, "Unsat Core Guided
Repair Algorithm").

The candidate P̂ (:class:`~crepair.heap.space.Space`) must satisfy
Φ_spec ∧ Φ_sem ∧ Φ_bk (:mod:`crepair.heap.encode`) with at most τ_grd
changed guards, τ_stm changed statements and τ_ins activated insertion
slots, all three 0 at first.  On UNSAT the unsat core (over the three bound
groups, made minimal by deletion) says which bound to widen, in the order
guard, statement, insertion (smaller changes first); a core with none of
them means no repair within the structure (wrong specification or too few
slots): fail fast.  The equalities of locked locations (Algorithm 1,
line 5) are hard constraints outside the groups: they cannot be relaxed,
so they never direct a widening.  ``tries`` checks at most (the paper: ten attempts).

>>> # repair_ir(fn, spec, slots=1) -> IRRepair with .changes, .widenings
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field

from crepair.heap.encode import Encoder
from crepair.heap.ir import Function, atoms
from crepair.heap.space import Choice, Space
from crepair.heap.states import Spec
from crepair.solver import Limits, smt, smt_solver
from crepair.solver.smt import Verdict


class HeapOutcome(enum.Enum):
    REPAIRED = "repaired"
    ORIGINAL_CORRECT = "original-correct"  # the program already satisfies the specification
    NO_REPAIR = "no-repair"  # the core names no bound (fail fast) or the tries ran out
    UNKNOWN = "unknown"  # the solver answered unknown (time-out)


@dataclass(frozen=True, slots=True)
class IRChange:
    """One change of P̂: ``kind`` "guard", "stmt", "delete" or "insert";
    ``index`` the location (1-based) or, for an insertion, the gap;
    ``before``/``after`` IR text; ``edits``: (start, end, new) on the
    original text (0-based offsets, end exclusive)."""

    kind: str
    index: int
    before: str
    after: str
    edits: tuple[tuple[int, int, str], ...]


@dataclass(slots=True)
class IRRepair:
    """What Algorithm 1 ended with: ``outcome``, the ``changes`` (REPAIRED),
    the final bounds ``tau`` (grd, stm, ins), ``widenings``, solver
    ``checks``, ``seconds`` and the solver's ``reason`` for UNKNOWN;
    ``assignment``: the choices of the changed locations and active slots
    (name -> value), what :func:`repair_ir` takes back in ``block``."""

    outcome: HeapOutcome
    changes: list[IRChange] = field(default_factory=list)
    assignment: dict = field(default_factory=dict)
    tau: tuple[int, int, int] = (0, 0, 0)
    widenings: int = 0
    checks: int = 0
    seconds: float = 0.0
    reason: str = ""


def repair_ir(fn: Function, spec: Spec, slots: int = 0, locked: frozenset[int] = frozenset(),
              tries: int = 10, limits: Limits | None = None, text: str = "",
              block: list[dict] | None = None) -> IRRepair:
    """Algorithm 1 on ``fn`` against ``spec`` with ``slots`` insertion
    slots; ``locked`` locations (1-based) never change.  ``text`` is the
    original source (for the edits).  ``block``: the ``assignment`` of
    earlier repairs, never returned again.  Never raises for "no
    repair" or "unknown" (see :class:`HeapOutcome`)."""
    start = time.monotonic()
    limits = limits or Limits()
    space = Space(fn, slots)
    solver = smt_solver(limits)
    for k, trace in enumerate(spec.traces):
        solver.add(*Encoder(space, trace, str(k)).encode())
    solver.add(*space.domains())
    for s in space.slots:  # an activated slot is never x = x
        same = smt.And(s.lhs_kind.term == smt.BitVecVal(0, 8), s.rhs_kind.term == smt.BitVecVal(0, 8),
                       s.lhs_base.term == s.rhs_base.term)
        solver.add(smt.Implies(s.t, smt.Not(same)))
    for old in block or ():
        solver.add(smt.Not(smt.conjunction(_term(name, v) for name, v in sorted(old.items()))))
    # The locked locations' equalities are hard constraints, not part of the
    # Φ_grd/Φ_stm groups: no bound can relax them, so an unsat core naming
    # them must not widen τ_grd (it would, up to its maximum, and exhaust
    # the tries while a statement bound is what blocks the repair).
    locked = set(locked)
    lock = [loc.instr.index in locked for loc in space.locations]
    phi_grd, phi_stm = space.phi_grd(locked), space.phi_stm(locked)
    solver.add(*(c for c, hard in zip(phi_grd + phi_stm, lock + lock) if hard))
    groups = {
        "grd": ([c for c, hard in zip(phi_grd, lock) if not hard], [loc.r for loc in space.locations]),
        "stm": ([c for c, hard in zip(phi_stm, lock) if not hard], [loc.s for loc in space.locations]),
        "ins": (space.phi_ins(), [s.t for s in space.slots]),
    }
    tau = {"grd": 0, "stm": 0, "ins": 0}
    result = IRRepair(HeapOutcome.NO_REPAIR)
    for attempt in range(tries):
        lits = {}
        for name, (phi, sel) in groups.items():
            lit = smt.Bool(f"A_{name}_{attempt}")
            solver.add(smt.Implies(lit, smt.conjunction(phi + [smt.at_most(sel, tau[name])])))
            lits[name] = lit
        verdict = solver.check(list(lits.values()))
        if verdict == Verdict.UNKNOWN:
            result = IRRepair(HeapOutcome.UNKNOWN, reason=solver.reason_unknown)
            break
        if verdict == Verdict.SAT:
            model = _canonical(solver, space, list(lits.values()), solver.model())
            changes = decode(space, model, text)
            outcome = HeapOutcome.REPAIRED if changes else HeapOutcome.ORIGINAL_CORRECT
            result = IRRepair(outcome, changes, _assignment(space, model, changes),
                              (tau["grd"], tau["stm"], tau["ins"]), attempt)
            break
        core = _minimal_core(solver, lits)
        if core is None:
            result = IRRepair(HeapOutcome.UNKNOWN, reason=solver.reason_unknown)
            break
        widened = next((n for n in ("grd", "stm", "ins") if n in core), None)
        if widened is None or tau[widened] >= len(groups[widened][1]):
            break  # fail fast: no bound is to blame
        tau[widened] += 1
    result.tau = (tau["grd"], tau["stm"], tau["ins"])
    result.checks, result.seconds = solver.checks, time.monotonic() - start
    return result


def _canonical(solver, space: Space, lits: list, model):
    """The first model in a fixed order (so equal problems give equal
    repairs whatever terms the process made before: z3's choice among
    models depends on them): selectors and deletions false where they
    can be, in location order, then slots inactive; then each changed
    location's choices original where they can be, else the smallest
    option; each active slot's gap the latest (the paper's FIX3 of Fig. 1
    goes after the loop) and its parts the smallest.  Each
    preference the current model already meets is fixed without a check.
    An UNKNOWN check ends it with the last model."""
    solver.push()
    try:
        solver.add(*lits)
        model = _prefer_all(solver, model, [(b, smt.BoolVal(False)) for loc in space.locations
                                            for b in (loc.r, loc.s, loc.delete)
                                            if b is not None and not smt.is_false(b)]
                            + [(sl.t, smt.BoolVal(False)) for sl in space.slots])
        prefs = []
        for loc in space.locations:
            if model.eval_bool(loc.r) or model.eval_bool(loc.s):
                prefs += [(c.term, smt.BitVecVal(v, 8)) for c in loc.guard_choices() + loc.stmt_choices()
                          for v in [c.original] + [k for k in range(len(c.options)) if k != c.original]]
        for sl in space.slots:
            if model.eval_bool(sl.t):
                prefs += [(sl.gap, smt.BitVecVal(g, 8)) for g in reversed(range(len(space.gaps)))]
                prefs += [(c.term, smt.BitVecVal(v, 8)) for c in sl.choices() for v in range(len(c.options))]
        return _prefer_all(solver, model, prefs)
    finally:
        solver.pop()


def _prefer_all(solver, model, prefs: list):
    """Fix each term to its preferred value in turn where satisfiable
    (a term already fixed skips its later preferences)."""
    fixed: set[str] = set()
    for term, value in prefs:
        name = str(term)
        if name in fixed:
            continue
        want = term == value
        if smt.is_true(model.eval_term(want)):
            solver.add(want)
            fixed.add(name)
            continue
        solver.push()
        solver.add(want)
        verdict = solver.check()
        if verdict == Verdict.SAT:
            model = solver.model()
        solver.pop()
        if verdict == Verdict.UNKNOWN:
            return model
        if verdict == Verdict.SAT:
            solver.add(want)
            fixed.add(name)
    return model


def _minimal_core(solver, lits: dict) -> set[str] | None:
    """The groups of a minimal unsat core (deletion-based, dropping
    insertion first and guard last); None on UNKNOWN."""
    names = {str(v): k for k, v in lits.items()}
    core = {names[str(c)] for c in solver.core() if str(c) in names}
    for name in ("ins", "stm", "grd"):
        if name not in core or len(core) == 1:
            continue
        trial = core - {name}
        verdict = solver.check([lits[n] for n in ("grd", "stm", "ins") if n in trial])  # a fixed order
        if verdict == Verdict.UNKNOWN:
            return None
        if verdict == Verdict.UNSAT:
            core = {names[str(c)] for c in solver.core() if str(c) in names} & trial or trial
    return core


def _value(model, c: Choice):
    return c.options[min(model.eval_int(c.term, signed=False), len(c.options) - 1)]


def decode(space: Space, model, text: str) -> list[IRChange]:
    """The changes of P̂ (the model) against P, in source order."""
    out: list[IRChange] = []
    for loc in space.locations:
        ins = loc.instr
        if loc.delete is not None and model.eval_bool(loc.delete):
            start, end = _whole_lines(text, ins.span.start, ins.span.end)
            out.append(IRChange("delete", ins.index, ins.text(), "", ((start, end, ""),)))
            continue
        edits = []
        for oc in loc.operands:
            o = oc.operand
            if o.kind in ("var", "field") and o.name_span is None and not all(c.fixed() for c in oc.choices()):
                continue  # tied to the left-hand side (x++): its edit is the left-hand side's
            if oc.base is not None and _value(model, oc.base) != oc.base.options[oc.base.original]:
                edits.append((o.name_span.start, o.name_span.end, _value(model, oc.base)))
            if oc.field is not None and _value(model, oc.field) != oc.field.options[oc.field.original]:
                edits.append((o.field_span.start, o.field_span.end, _value(model, oc.field)))
        if ins.cond is not None:
            for a, opc in zip(atoms(ins.cond), loc.ops):
                if _value(model, opc) != a.op:
                    edits.append((a.op_span.start, a.op_span.end, _value(model, opc)))
        if edits:
            after = _apply(text[ins.span.start:ins.span.end], ins.span.start, edits)
            out.append(IRChange("guard" if ins.cond is not None else "stmt", ins.index,
                                text[ins.span.start:ins.span.end], after, tuple(sorted(edits))))
    for sl in space.slots:
        if not model.eval_bool(sl.t):
            continue
        gap = space.gaps[model.eval_int(sl.gap, signed=False)]
        lhs = _value(model, sl.lhs_base) + ("->" + _value(model, sl.lhs_field)
                                            if _value(model, sl.lhs_kind) == "field" else "")
        rk = _value(model, sl.rhs_kind)
        rhs = "NULL" if rk == "null" else _value(model, sl.rhs_base) + (
            "->" + _value(model, sl.rhs_field) if rk == "field" else "")
        stmt = f"{lhs} = {rhs};"
        new = f"{gap.indent}{stmt}\n" if gap.line_start else f"{stmt} "
        out.append(IRChange("insert", gap.index, "", stmt, ((gap.offset, gap.offset, new),)))
    return sorted(out, key=lambda c: c.edits[0][0])


def _apply(snippet: str, base: int, edits: list) -> str:
    for start, end, new in sorted(edits, reverse=True):
        snippet = snippet[:start - base] + new + snippet[end - base:]
    return snippet


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """``start``..``end`` widened to whole lines when nothing else is on them."""
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", end)
    le = len(text) if le < 0 else le
    if text[ls:start].strip() == "" and text[end:le].strip() == "":
        return ls, min(le + 1, len(text))
    return start, end


def _term(name: str, value):
    return (smt.Bool(name) == smt.BoolVal(value) if isinstance(value, bool)
            else smt.BitVec(name, 8) == smt.BitVecVal(value, 8))


def _assignment(space: Space, model, changes: list[IRChange]) -> dict:
    """The choices (name -> value) that make ``changes``."""
    out: dict = {}
    changed = {c.index for c in changes if c.kind != "insert"}
    for loc in space.locations:
        if loc.instr.index in changed:
            for c in loc.guard_choices() + loc.stmt_choices():
                out[str(c.term)] = model.eval_int(c.term, signed=False)
            if loc.delete is not None and not smt.is_false(loc.delete):
                out[str(loc.delete)] = model.eval_bool(loc.delete)
    for s in space.slots:
        active = model.eval_bool(s.t)
        out[str(s.t)] = active
        if active:
            for c in s.choices():
                out[str(c.term)] = model.eval_int(c.term, signed=False)
            out[str(s.gap)] = model.eval_int(s.gap, signed=False)
    return out
