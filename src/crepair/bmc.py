"""Bounded verification: "verified up to bound B" or a counterexample.

The program formula (``encode``) with the negated assertions is checked by
z3: unsatisfiable means every assertion holds on every run that goes
through each loop (and recursion) at most B times.  A second check asks
whether the bound cut off a feasible path (the innermost copy's condition
can hold); if so the result is vacuous beyond B and crepair says so.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from pathlib import Path

from crepair.encode import ProgramFormula, encode
from crepair.encode.formula import UnwindingCut
from crepair.frontend import CProgram, Span, load_program
from crepair.solver import smt
from crepair.solver.smt import SmtSolver, Verdict

DEFAULT_UNWIND = 8


class VerifyOutcome(enum.Enum):
    """Result of a bounded check."""

    VERIFIED = "verified"  # no assertion fails on runs within the bound
    VIOLATED = "violated"  # a counterexample was found
    UNKNOWN = "unknown"  # the solver gave up (time-out or unknown)


@dataclass(frozen=True, slots=True)
class InputValue:
    """The value of one input in a counterexample; ``line`` is 1-based;
    ``value`` is an int, or a list of ints for an array (first elements)."""

    label: str
    line: int
    value: "int | list[int]"


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A failing run: the violated assertion, every input, executed lines."""

    assertion: Span
    inputs: tuple[InputValue, ...]
    lines: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BoundReport:
    """Whether the unwinding bound cut off a feasible path, and where."""

    bound: int
    too_small: bool | None  # None: the check was unknown
    cut: UnwindingCut | None = None

    def message(self) -> str:
        if self.too_small is None:
            return f"could not decide whether unwinding bound {self.bound} is large enough"
        if not self.too_small:
            return f"every run fits within unwinding bound {self.bound}"
        where = f" ({self.cut.what} at {self.cut.span})" if self.cut else ""
        return (
            f"unwinding bound {self.bound} is too small{where}: "
            f"result is vacuous beyond bound {self.bound}; try --unwind {max(2 * self.bound, self.bound + 1)}"
        )


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """Outcome of :func:`verify`; ``seconds`` is wall-clock time."""

    path: str
    entry: str
    outcome: VerifyOutcome
    bound: BoundReport
    counterexample: Counterexample | None = None
    seconds: float = 0.0
    locations: int = 0
    warnings: tuple[str, ...] = field(default=())


def counterexample_of(formula: ProgramFormula, model: smt.Model) -> Counterexample:
    """Read the violated assertion, the inputs and the executed lines."""
    failed = next(
        (a for a in formula.assertions if model.eval_bool(smt.And(a.guard, smt.Not(a.cond)))),
        formula.assertions[0],
    )
    used = smt.constant_names(
        formula.hard() + formula.original_copies() + [formula.violation()]
    )
    inputs = []
    for inp in formula.inputs:
        if str(inp.term) not in used:
            continue
        if inp.is_array:
            value: int | list[int] = [
                model.eval_int(smt.Select(inp.term, smt.BitVecVal(i, 32)), inp.signed) for i in range(8)
            ]
        else:
            value = model.eval_int(inp.term, inp.signed)
        inputs.append(InputValue(inp.label, inp.line, value))
    lines: list[int] = []
    for step in formula.trace:
        if model.eval_bool(step.guard) and (not lines or lines[-1] != step.line):
            lines.append(step.line)
    return Counterexample(failed.span, tuple(inputs), tuple(lines))


def check_bound(
    formula: ProgramFormula, timeout: float | None = None, selected: dict[int, int] | None = None
) -> BoundReport:
    """Can a run satisfying the assumptions reach beyond the unwinding bound?

    Checks the original program, or the mutated one that takes alternative
    ``selected[i]`` at location index i (a repair whose loops need more
    iterations than the bound is correct only vacuously beyond it).
    ``timeout`` in seconds; an UNKNOWN check gives ``too_small=None``.
    """
    if not formula.cuts:
        return BoundReport(formula.bound, False)
    solver = SmtSolver(timeout=timeout)
    solver.add(*formula.hard(with_unwinding=False), *formula.selected_copies(selected or {}))
    solver.add(smt.disjunction(c.reached for c in formula.cuts))
    verdict = solver.check()
    if verdict == Verdict.UNKNOWN:
        return BoundReport(formula.bound, None)
    if verdict == Verdict.UNSAT:
        return BoundReport(formula.bound, False)
    model = solver.model()
    cut = next((c for c in formula.cuts if model.eval_bool(c.reached)), formula.cuts[0])
    return BoundReport(formula.bound, True, cut)


def verify_program(
    program: CProgram, *, unwind: int = DEFAULT_UNWIND, entry: str = "main", timeout: float | None = None
) -> VerifyResult:
    """Bounded check of a loaded program (see :func:`verify`)."""
    start = time.monotonic()
    formula, _ = encode(program, bound=unwind, entry=entry)
    warnings = []
    if not formula.assertions:
        warnings.append("the program has no assertion reachable from the entry function")
    solver = SmtSolver(timeout=timeout)
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation())
    verdict = solver.check()
    bound = check_bound(formula, timeout)
    cex = None
    if verdict == Verdict.SAT:
        outcome = VerifyOutcome.VIOLATED
        cex = counterexample_of(formula, solver.model())
    elif verdict == Verdict.UNSAT:
        outcome = VerifyOutcome.VERIFIED
    else:
        outcome = VerifyOutcome.UNKNOWN
    return VerifyResult(
        program.path, entry, outcome, bound, cex, time.monotonic() - start, len(formula.locations), tuple(warnings)
    )


def verify(
    path: str | Path, *, unwind: int = DEFAULT_UNWIND, entry: str = "main", timeout: float | None = None
) -> VerifyResult:
    """Check the assertions of the C file at ``path`` up to bound ``unwind``.

    ``timeout`` is in seconds.  Raises ``BadInput``/``UnsupportedConstruct``
    for programs crepair cannot take.  A VERIFIED outcome with
    ``result.bound.too_small`` true is vacuous beyond the bound.
    Source: Clarke, Kroening, Lerda, TACAS'04; AllRepair FM'16, Sect. 3.1.
    """
    return verify_program(load_program(path), unwind=unwind, entry=entry, timeout=timeout)
