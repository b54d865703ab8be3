"""Fault injection (Wolverine2 §7.1): buggy versions ⟨x, y⟩ of a correct
program — x mutations (a variable or the field of a variable replaced by
another variable or field of the same type, in a statement or a guard) and
y deleted statements (pointer assignments, which a repair re-inserts).

Deterministic for a seed: the candidates are drawn from ``random.Random
(seed)``.  Every version kept compiles and fails its specification (the
correct program's states, run under gdb); the others are discarded.  A
deleted statement leaves its line empty, so lines do not move and the
injector's record (the lines of the mutated locations) names the faulty
locations of the buggy version.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from crepair.errors import BadInput
from crepair.frontend import CProgram, load_program
from crepair.heap.execute import check_against, record
from crepair.heap.ir import Function, Operand, atoms
from crepair.heap.states import Spec
from crepair.patch import apply_edits


@dataclass(frozen=True, slots=True)
class Injected:
    """One buggy version: its ``text``; ``mutations`` (line, old, new) and
    ``deletions`` (line, statement), 1-based lines; ``faulty_lines``: the
    lines of the mutated locations, ``faulty_locations`` the mutated
    locations of the buggy version's IR (1-based); ``failure``: how it
    fails the specification."""

    text: str
    mutations: tuple[tuple[int, str, str], ...]
    deletions: tuple[tuple[int, str], ...]
    faulty_lines: tuple[int, ...]
    failure: str
    faulty_locations: tuple[int, ...] = ()
    run: object = None  # the recorded run of the buggy version (execute.Run)
    edits: tuple[tuple[int, int, str], ...] = ()  # (start, end, new) on the correct text: mutations, deletions
    mutation_locations: tuple[int, ...] = ()  # the buggy version's location of each mutation

    def effective(self, program: CProgram, fn: Function, spec: Spec, k: int) -> bool:
        """Whether mutation ``k`` (0-based) is a fault the specified runs
        can show: alone, on the correct ``program`` (its IR ``fn``), it
        fails ``spec``, or undoing it alone changes the buggy version's
        recorded run.  A mutation that is neither (equivalent there, e.g.
        ``prev->next`` just after ``prev = p``) no repair needs."""
        if _fails(program, fn, apply_edits(program.original, [self.edits[k]]), spec, [])[0]:
            return True
        undone = [e for j, e in enumerate(self.edits) if j != k]
        run = _fails(program, fn, apply_edits(program.original, undone), spec, [])[2]
        return run is None or self.run is None or (run.spec, run.crashed) != (self.run.spec, self.run.crashed)

    def as_json(self) -> dict:
        return {"mutations": [list(m) for m in self.mutations], "deletions": [list(d) for d in self.deletions],
                "faulty_lines": list(self.faulty_lines), "faulty_locations": list(self.faulty_locations),
                "failure": self.failure}


def _sites(fn: Function) -> list[tuple[int, Operand, str]]:
    """(location, operand, "name"|"field") that a mutation may replace."""
    out = []
    for ins in fn.instrs:
        if ins.stmt is not None and ins.stmt.kind in ("alloc", "free"):
            continue
        ops = list(atoms(ins.cond)) if ins.cond is not None else []
        operands = [o for a in ops for o in (a.left, a.right)] if ins.cond is not None else (
            ([ins.stmt.lhs] if ins.stmt.lhs is not None else []) + list(ins.stmt.rhs))
        for o in operands:
            if o.kind in ("var", "field") and o.name_span is not None:
                out.append((ins.index, o, "name"))
            if o.kind == "field" and o.field_span is not None:
                out.append((ins.index, o, "field"))
    return out


def _deletable(fn: Function) -> list:
    """Pointer assignments outside declarations (what an insertion slot can
    put back): ``x = y``, ``x = y->f``, ``x->f = y``, ``... = NULL``."""
    out = []
    for ins in _in_blocks(fn.body):
        s = ins.stmt
        if (s is not None and s.kind == "assign" and not s.op and s.lhs.name_span is not None
                and s.lhs.type.startswith("ptr:") and len(s.rhs) == 1):
            out.append(ins)
    return out


def _in_blocks(seq) -> list:
    """Statements of compound statements (a deleted braceless body would
    make the next statement the body)."""
    from crepair.heap.ir import Branch, Instr, Loop

    out = []
    for n in seq.nodes:
        if isinstance(n, Instr) and seq.gaps:
            out.append(n)
        elif isinstance(n, Branch):
            out += _in_blocks(n.then) + _in_blocks(n.orelse)
        elif isinstance(n, Loop):
            out += _in_blocks(n.body)
    return out


def inject(program: CProgram, fn: Function, spec: Spec, mutations: int, deletions: int, n: int, seed: int,
           attempts: int = 40) -> list[Injected]:
    """Up to ``n`` distinct buggy versions ⟨mutations, deletions⟩ of
    ``program`` (``fn`` its function under test, ``spec`` the correct
    program's states), trying at most ``attempts`` × ``n`` candidates.
    Raises ``BadInput`` when the function has too few sites."""
    text = program.original
    sites, dels = _sites(fn), _deletable(fn)
    variables = fn.variables
    if len(sites) < mutations or len(dels) < deletions:
        raise BadInput(f"{program.path}: '{fn.name}' has {len(sites)} mutation sites and {len(dels)} deletable "
                       f"statements; ⟨{mutations}, {deletions}⟩ asked")
    rng = random.Random(seed)
    out: list[Injected] = []
    seen: set[str] = set()
    for _ in range(attempts * n):
        if len(out) >= n:
            break
        gone = rng.sample(dels, deletions)
        gone_idx = {g.index for g in gone}
        pool = [s for s in sites if s[0] not in gone_idx]
        if len(pool) < mutations:
            continue
        edits, muts, lines, used = [], [], [], set()
        for loc, o, part in rng.sample(pool, mutations):
            span = o.name_span if part == "name" else o.field_span
            if span.start in used:
                break
            if part == "name":
                options = [v for v, t in variables.items() if t == (o.base_type if o.kind == "field" else o.type)]
                old = o.name
            else:
                options = [f for f, t in fn.structs[o.base_type[4:]].items() if t == o.type]
                old = o.field
            options = [x for x in options if x != old]
            if not options:
                break
            new = rng.choice(sorted(options))
            used.add(span.start)
            edits.append((span.start, span.end, new))
            muts.append((span.line, old, new))
            lines.append(fn.instrs[loc - 1].line)
        else:
            for g in gone:
                edits.append((g.span.start, g.span.end, ""))
            buggy = apply_edits(text, edits)
            if buggy in seen:
                continue
            seen.add(buggy)
            moved = _moved(edits, len(muts))
            failure, located, run = _fails(program, fn, buggy, spec, moved)
            if failure:
                each = tuple(next((loc for loc, a in located if a == m), 0) for m in moved)
                out.append(Injected(buggy, tuple(muts), tuple((g.line, text[g.span.start:g.span.end]) for g in gone),
                                    tuple(sorted(set(lines))), failure, tuple(sorted({loc for loc, _ in located})),
                                    run, tuple(edits), each))
    return out


def _moved(edits: list, mutations: int) -> list[int]:
    """Where the first ``mutations`` edits start once all are applied."""
    out = []
    for start, _, _ in edits[:mutations]:
        out.append(start + sum(len(new) - (e - s) for s, e, new in edits if s < start))
    return out


def _fails(program: CProgram, fn: Function, text: str, spec: Spec, at: list[int]):
    """How ``text`` fails ``spec`` ("" when it passes or does not build),
    (location, offset) for its locations holding the offsets ``at``, and
    the run."""
    from crepair.heap.build import build_function

    try:
        prog = load_program(program.path, text=text, real_c=True)
        bfn = build_function(prog, fn.name)
        run = record(prog, bfn, limit=spec.events, lines=[lp.line for lp in fn.loops()], calls=len(spec.traces),
                     timeout=10)
    except BadInput:
        return "", (), None
    why = check_against(spec, run)
    located = [(i.index, a) for i in bfn.instrs for a in at if i.span.start <= a < i.span.end]
    return (why[0] if why else ""), located, run
