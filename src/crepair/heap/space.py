"""The repair candidate P̂ as symbolic choices (Wolverine2 §4.1).

Every location ``i`` of the program gets the selector variables of
Algorithm 1: ``r_i`` (its guard may change) and ``s_i`` (its statement may
change).  A statement's guard is "not deleted" (``del_i`` false); a
condition's guard is its comparisons, each operand and operator a choice.  A
statement is its operands, each a :class:`Choice` among the variables (or
fields) of the same type — the repair "replaces an operand variable or field
by another of the same type".  Insertion slot ``j`` has its activation
``t_j``, its place ξ (a gap of the program, :class:`~crepair.heap.ir.Gap`)
and a pointer statement ``L = R`` with ``L`` in {x, x->f} and ``R`` in
{y, y->g, NULL}, every part a choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crepair.heap.ir import INT, Function, Instr, Operand, atoms
from crepair.solver import smt

_PTR_OPS = ["==", "!="]
_INT_OPS = ["==", "!=", "<", "<=", ">", ">="]


@dataclass(slots=True)
class Choice:
    """A symbolic choice among ``options`` (8-bit ``term``); ``original``:
    the index of the original program's option."""

    term: object
    options: list
    original: int

    def domain(self):
        return smt.ULT(self.term, smt.BitVecVal(len(self.options), 8))

    def is_original(self):
        return self.term == smt.BitVecVal(self.original, 8)

    def fixed(self) -> bool:
        return len(self.options) == 1


@dataclass(slots=True)
class OperandChoice:
    """The choices of one operand: its variable (``base``) and, for a field
    ``x->f``, its ``field``; ``operand`` the original."""

    operand: Operand
    base: Choice | None = None
    field: Choice | None = None

    def choices(self) -> list[Choice]:
        return [c for c in (self.base, self.field) if c is not None]


@dataclass(slots=True)
class Location:
    """The choices of location ``instr``: ``operands`` (statement: lhs then
    rhs; condition: left, right of each comparison), ``ops`` (one per
    comparison), the selectors ``r``/``s`` and ``delete`` (statements)."""

    instr: Instr
    r: object
    s: object
    delete: object | None
    operands: list[OperandChoice] = field(default_factory=list)
    ops: list[Choice] = field(default_factory=list)

    def guard_choices(self) -> list[Choice]:
        if self.instr.cond is None:
            return []
        return [c for o in self.operands for c in o.choices()] + self.ops

    def stmt_choices(self) -> list[Choice]:
        if self.instr.stmt is None:
            return []
        return [c for o in self.operands for c in o.choices()]


@dataclass(slots=True)
class Slot:
    """Insertion slot ``j`` (0-based): ``t`` active, ``gap`` (8-bit ξ),
    ``lhs_kind`` (0 var, 1 field), ``rhs_kind`` (0 var, 1 field, 2 NULL),
    the bases and fields of both sides."""

    j: int
    t: object
    gap: object
    lhs_kind: Choice
    lhs_base: Choice
    lhs_field: Choice
    rhs_kind: Choice
    rhs_base: Choice
    rhs_field: Choice

    def choices(self) -> list[Choice]:
        return [self.lhs_kind, self.lhs_base, self.lhs_field, self.rhs_kind, self.rhs_base, self.rhs_field]


def _tied(ins: Instr) -> bool:
    """Whether the statement reads its left-hand side again (``x += e``,
    ``x++``: the front-end's copy of the operand, without spans)."""
    s = ins.stmt
    if s.kind != "assign" or not s.op or s.lhs is None or s.lhs.name_span is None or not s.rhs:
        return False
    r = s.rhs[0]
    return r.name_span is None and (r.kind, r.name, r.field) == (s.lhs.kind, s.lhs.name, s.lhs.field)


class Space:
    """The choices of the repair candidate of ``fn`` with ``slots``
    insertion slots of pointer type ``slot_type`` (None: the type of the
    function's first struct pointer)."""

    def __init__(self, fn: Function, slots: int):
        self.fn = fn
        self.vars = fn.variables
        self.by_type: dict[str, list[str]] = {}
        for v, t in self.vars.items():
            self.by_type.setdefault(t, []).append(v)
        self.locations = [self._location(i) for i in fn.instrs]
        ptr_types = [t for t in self.by_type if t.startswith("ptr:") and fn.structs.get(t[4:])]
        self.slot_type = ptr_types[0] if ptr_types else None
        self.gaps = [g for g in fn.gaps if g.offset >= 0]
        self.slots = [self._slot(j) for j in range(slots)] if self.slot_type and self.gaps else []

    def fields_of(self, ptr_type: str, value_type: str) -> list[str]:
        return [f for f, t in self.fn.structs.get(ptr_type[4:], {}).items() if t == value_type]

    def _choice(self, name: str, options: list, original) -> Choice:
        return Choice(smt.BitVec(name, 8), options, options.index(original))

    def _operand(self, o: Operand, name: str) -> OperandChoice:
        if o.kind == "var":
            opts = self.by_type[o.type] if o.name_span is not None else [o.name]
            return OperandChoice(o, base=self._choice(f"{name}_v", opts, o.name))
        if o.kind == "field":
            bases = self.by_type[o.base_type] if o.name_span is not None else [o.name]
            fields = self.fields_of(o.base_type, o.type) if o.field_span is not None else [o.field]
            return OperandChoice(o, self._choice(f"{name}_b", bases, o.name),
                                 self._choice(f"{name}_f", fields, o.field))
        return OperandChoice(o)

    def _location(self, ins: Instr) -> Location:
        i = ins.index
        deletable = ins.stmt is not None and not (ins.stmt.lhs is not None and ins.stmt.lhs.kind == "var"
                                                  and ins.stmt.lhs.name_span is None)  # not a declaration's
        loc = Location(ins, smt.Bool(f"r_{i}"), smt.Bool(f"s_{i}"),
                       smt.Bool(f"del_{i}") if deletable else (smt.BoolVal(False) if ins.stmt is not None else None))
        if ins.stmt is not None:
            ops = ([ins.stmt.lhs] if ins.stmt.lhs is not None else []) + list(ins.stmt.rhs)
            loc.operands = [self._operand(o, f"l{i}_{k}") for k, o in enumerate(ops)]
            if _tied(ins):  # x += e, x++: the x read is the x written, one choice for both
                lhs = loc.operands[0]
                loc.operands[1] = OperandChoice(ops[1], lhs.base, lhs.field)
        else:
            for k, a in enumerate(atoms(ins.cond)):
                loc.operands += [self._operand(a.left, f"l{i}_{k}L"), self._operand(a.right, f"l{i}_{k}R")]
                opts = (_INT_OPS if a.left.type == INT else _PTR_OPS) if a.op_span is not None else [a.op]
                loc.ops.append(self._choice(f"l{i}_{k}op", opts, a.op))
        return loc

    def _slot(self, j: int) -> Slot:
        t = self.slot_type
        ptrs = self.by_type[t]
        fields = self.fields_of(t, t)
        return Slot(j, smt.Bool(f"t_{j}"), smt.BitVec(f"xi_{j}", 8),
                    Choice(smt.BitVec(f"s{j}_lk", 8), ["var", "field"], 0),
                    Choice(smt.BitVec(f"s{j}_lb", 8), ptrs, 0),
                    Choice(smt.BitVec(f"s{j}_lf", 8), fields or [""], 0),
                    Choice(smt.BitVec(f"s{j}_rk", 8), ["var", "field", "null"], 0),
                    Choice(smt.BitVec(f"s{j}_rb", 8), ptrs, 0),
                    Choice(smt.BitVec(f"s{j}_rf", 8), fields or [""], 0))

    def atom_choices(self, loc: Location, k: int) -> tuple[OperandChoice, OperandChoice, Choice]:
        """The left, right and operator choices of comparison ``k`` of a condition."""
        return loc.operands[2 * k], loc.operands[2 * k + 1], loc.ops[k]

    # -- Algorithm 1, lines 3-20 ---------------------------------------------
    def domains(self) -> list:
        """Every choice within its options (a tied operand's once); Φ_bk: each active slot in a gap,
        slots ordered (ξ monotone: slot j+1 never before slot j) and used in
        order."""
        out = [c.domain() for loc in self.locations for o in loc.operands for c in o.choices()
               if o.operand.name_span is not None or o.operand.kind not in ("var", "field") or c.fixed()]
        out += [c.domain() for loc in self.locations for c in loc.ops]
        for s in self.slots:
            out += [c.domain() for c in s.choices()]
            out.append(smt.ULT(s.gap, smt.BitVecVal(len(self.gaps), 8)))
        for a, b in zip(self.slots, self.slots[1:]):
            out += [smt.Implies(b.t, a.t), smt.Implies(b.t, smt.ULE(a.gap, b.gap))]
        return out

    def phi_grd(self, locked: set[int]) -> list:
        """Φ_grd: ¬r_i ⇒ P̂.grd[i] = P.grd[i] (locked: unconditionally)."""
        out = []
        for loc in self.locations:
            same = [c.is_original() for c in loc.guard_choices()]
            if loc.delete is not None:
                same.append(smt.Not(loc.delete))
            out.append(smt.conjunction(same) if loc.instr.index in locked
                       else smt.Implies(smt.Not(loc.r), smt.conjunction(same)))
        return out

    def phi_stm(self, locked: set[int]) -> list:
        """Φ_stm: ¬s_i ⇒ P̂.stm[i] = P.stm[i] (locked: unconditionally)."""
        out = []
        for loc in self.locations:
            same = smt.conjunction(c.is_original() for c in loc.stmt_choices())
            out.append(same if loc.instr.index in locked else smt.Implies(smt.Not(loc.s), same))
        return out

    def phi_ins(self) -> list:
        """Φ_ins: ¬t_j ⇒ slot j stays inactive.  The encoding already uses
        t_j as the slot's guard, so the group is only its bound Σ t ≤ τ_ins
        (added by Algorithm 1)."""
        return []
