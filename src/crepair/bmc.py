"""Bounded verification: "verified up to bound B" or a counterexample.

The program formula (``encode``) with the negated assertions is checked by
z3 (Clarke, Kroening, Lerda, TACAS'04; AllRepair FM'16, Sect. 3.1):
unsatisfiable means every assertion holds on every run that goes through
each loop (and recursion) at most B times.  A second check asks whether
the bound cut off a feasible run (the innermost copy's condition can hold);
if so the result is vacuous beyond B, and :func:`needed_bound` looks for the
smallest bound that covers every run.

Bound convention: ``--unwind B`` lets a loop body run B times (CBMC's
``--unwind B`` lets it run B − 1 times and checks the B-th loop head).
"""

from __future__ import annotations

import dataclasses
import enum
import struct
import time
from dataclasses import dataclass, field

from crepair.encode import ProgramFormula, encode
from crepair.encode.formula import Assertion, Checks, EncodingTimeout, EncodingTooDeep, Unwinding, Violation
from crepair.frontend import CProgram, Span
from crepair.records import BoundReport, Cut
from crepair.solver import Limits, smt, smt_solver
from crepair.solver.smt import Verdict

DEFAULT_UNWIND = 8
UNDECIDED_BOUND = "could not decide whether the bound covers every run"
NEEDED_BOUND_SECONDS = 5.0  # time spent looking for the smallest sufficient bound
NEEDED_BOUND_LIMIT = 1024  # the largest bound tried


class VerifyOutcome(enum.Enum):
    """Result of a bounded check."""

    VERIFIED = "verified"  # no assertion fails on any run, and every run fits within the bound
    VIOLATED = "violated"  # a counterexample was found
    UNKNOWN = "unknown"  # the solver gave up (time-out, resource limit, unknown)
    BOUND_TOO_SMALL = "bound-too-small"  # no assertion fails within the bound, but the bound cuts off runs

    @staticmethod
    def of(verdict: Verdict) -> "VerifyOutcome":
        """The outcome of a check of the program's violation: SAT is a
        counterexample, UNSAT a bounded proof, UNKNOWN neither."""
        return {Verdict.SAT: VerifyOutcome.VIOLATED, Verdict.UNSAT: VerifyOutcome.VERIFIED}.get(
            verdict, VerifyOutcome.UNKNOWN
        )

    @staticmethod
    def within(verdict: Verdict, bound: "BoundReport") -> "tuple[VerifyOutcome, str]":
        """The outcome of a check of the violation and of the bound, with
        the reason when UNKNOWN: UNSAT is VERIFIED only if ``bound`` covers
        every run, BOUND_TOO_SMALL if it cuts off runs, and UNKNOWN (reason
        ``UNDECIDED_BOUND``) if that check was unknown."""
        outcome = VerifyOutcome.of(verdict)
        if outcome != VerifyOutcome.VERIFIED or bound.too_small is False:
            return outcome, ""
        if bound.too_small is None:
            return VerifyOutcome.UNKNOWN, UNDECIDED_BOUND
        return VerifyOutcome.BOUND_TOO_SMALL, ""


@dataclass(frozen=True, slots=True)
class ArrayValue:
    """The value of an array input of unknown size: ``entries`` (index ->
    value) where it differs from ``default``; every other element is
    ``default``.  Together they give every element."""

    entries: dict[int, int]
    default: int

    def __str__(self) -> str:
        items = [f"[{i}] = {v}" for i, v in sorted(self.entries.items())]
        return "{" + ", ".join(items + [f"every other element = {self.default}"]) + "}"


@dataclass(frozen=True, slots=True)
class InputValue:
    """The value of one input in a counterexample; ``line`` is 1-based;
    ``value`` is an int, a list of every element of a sized array (index
    0 first), or an :class:`ArrayValue` for an array of unknown size.
    Inputs come in the order a run reads them; ``executed`` is false for
    one on a path the run does not take."""

    label: str
    line: int
    value: "int | list[int] | ArrayValue"
    executed: bool = True  # the run reads this input (inputs in skipped branches: False)
    chars: bool = False  # an array of char (a string input: stdin %s, argv, a char array parameter)
    variable: str | None = None  # what the input call's value is assigned to (``x = nondet_int()``: x)
    floating: int = 0  # 32/64: ``value`` is the bit pattern of a float/double, printed as the number


    def text(self) -> str:
        """The value as printed: a char array also as a C string literal
        (up to its first NUL), e.g. ``"ab" [97, 98, 0]``; an array's last
        ``REPEAT_SHOWN`` or more equal elements as one, e.g.
        ``[7, 0, 998 × 0]`` (:func:`array_text`)."""
        if self.chars and isinstance(self.value, list):
            data = bytes(v & 0xFF for v in self.value).split(b"\0")[0]
            literal = "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\' else f"\\x{b:02x}" for b in data)
            return f'"{literal}" {array_text(self.value)}'
        if self.floating in (32, 64) and isinstance(self.value, int):
            return float_text(self.value, self.floating)
        return array_text(self.value) if isinstance(self.value, list) else str(self.value)


REPEAT_SHOWN = 8  # an array's trailing run of equal elements at least this long is printed as "N × v"


def array_text(values: list) -> str:
    """``values`` as a Python list, its trailing run of ``REPEAT_SHOWN`` or
    more equal elements (after the first) written ``N × v``: a 1,000-char
    buffer holding "ab" is ``[97, 98, 998 × 0]``."""
    run = 0
    while run < len(values) - 1 and values[-1 - run] == values[-1]:
        run += 1
    if run < REPEAT_SHOWN:
        return str(values)
    head = ", ".join(str(v) for v in values[:len(values) - run])
    return f"[{head}, {run} × {values[-1]}]"


def float_text(bits: int, width: int) -> str:
    """The ``float`` (``width`` 32) or ``double`` (64) whose IEEE-754 bit
    pattern is ``bits`` (signed or not), in the fewest digits that read
    back as the same value: ``2.0000000000000004``, ``0.1``, ``-0``,
    ``inf``, ``nan``."""
    fmt = "<f" if width == 32 else "<d"
    raw = (bits & ((1 << width) - 1)).to_bytes(width // 8, "little")
    value = struct.unpack(fmt, raw)[0]
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if value != value or struct.pack(fmt, float(text)) == raw:
            return text
    return repr(value)


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A failing run: what it violates, every input, executed lines.

    ``assertion`` is the span of the violated assertion, of the loop or
    recursive call the bound cuts (``violated`` UNWINDING_ASSERTION), or
    of the expression whose behaviour is undefined (the other kinds);
    ``detail`` then says what is undefined with the run's values, e.g.
    ``a[4] (size 4)``; ``lines`` are 1-based.
    """

    assertion: Span
    inputs: tuple[InputValue, ...]
    lines: tuple[int, ...]
    violated: Violation = Violation.ASSERTION
    detail: str = ""


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """Outcome of :func:`verify`; ``seconds`` is wall-clock time;
    ``reason`` says why an UNKNOWN outcome is unknown; ``original`` is the
    text of the file checked (spans index it); ``backend`` the SMT solver
    asked for, ``solver`` the one whose answer the outcome is."""

    path: str
    entry: str
    outcome: VerifyOutcome
    bound: BoundReport
    counterexample: Counterexample | None = None
    seconds: float = 0.0
    locations: int = 0
    warnings: tuple[str, ...] = field(default=())
    reason: str = ""
    original: str = field(default="", repr=False)  # the file's text (crepair.frontend.source)
    backend: str = "z3"  # the SMT solver asked for (crepair.solver.Backend's value)
    solver: str = ""  # the one that decided the violation check ("z3", "bitwuzla"; "": none did)


def _array_value(model: smt.Model, inp, signed: bool) -> "list[int] | ArrayValue":
    if inp.size is not None:
        n = inp.size if isinstance(inp.size, int) else model.eval_int(inp.size, signed=True)
        if 0 <= n <= 1 << 16:
            return [model.eval_int(smt.Select(inp.term, smt.BitVecVal(i, 32)), signed) for i in range(n)]
    entries, default = smt.array_entries(model, inp.term, signed)
    return ArrayValue(entries, default)


def counterexample_of(formula: ProgramFormula, model: smt.Model) -> Counterexample:
    """Read what is violated, the inputs and the executed lines of ``model``."""
    used = smt.constant_names(formula.hard() + formula.original_copies() + [formula.violation()])
    inputs = []
    for inp in formula.inputs:
        if str(inp.term) not in used and not smt.constant_names([inp.term]) & used:
            continue  # an input the formula does not read (a term such as the low bits of a token: its constant)
        chars = False
        if inp.is_array:
            value: int | list[int] | ArrayValue = _array_value(model, inp, inp.signed)
            chars = smt.width(smt.Select(inp.term, smt.BitVecVal(0, 32))) == 8
        else:
            value = model.eval_int(inp.term, inp.signed)
        inputs.append(InputValue(inp.label, inp.line, value, inp.guard is None or model.eval_bool(inp.guard), chars,
                                 inp.variable, inp.floating))
    lines = formula.executed_lines(model)
    cut = formula.failed_cut(model)
    if cut is not None:
        return Counterexample(cut.span, tuple(inputs), tuple(lines), Violation.UNWINDING_ASSERTION)
    failed = next(
        (a for a in formula.assertions if model.eval_bool(smt.And(a.guard, smt.Not(a.cond)))),
        formula.assertions[0],
    )
    return Counterexample(failed.span, tuple(inputs), tuple(lines), failed.kind, describe(failed, model))


def describe(assertion: Assertion, model: smt.Model) -> str:
    """What a failed check of undefined behaviour does in the run of
    ``model``: ``a[4] (size 4)``, ``7 / m (divisor 0)``, ``x / y
    (-2147483648 / -1)``, ``x << n (shift by 32, width 32)``; "" for a
    user assertion."""
    values = [model.eval_int(t, assertion.signed) for t in assertion.operands]
    kind, subject = assertion.kind, assertion.subject
    if kind == Violation.ARRAY_BOUNDS:
        return f"{subject}[{values[0]}] (size {values[1]})"
    if kind == Violation.DIVISION_BY_ZERO:
        return f"{subject} (divisor 0)"
    if kind == Violation.NULL_DEREFERENCE:
        return f"{subject} (null pointer)"
    if kind == Violation.POINTER_BOUNDS:
        return f"{subject} (offset {values[0]}, size {values[1]})" if values[1] >= 0 else f"{subject} (offset {values[0]}, no live object it points into)"
    if kind == Violation.NOT_EQUIVALENT:
        if len(values) == 2:
            return f"{subject}: {values[0]}, the reference's: {values[1]}"
        return subject
    if kind == Violation.INVALID_FREE:
        return f"free({subject}) (offset {values[0]}: not the start of a live allocated object)"
    if kind == Violation.DIVISION_OVERFLOW:
        return f"{subject} ({values[0]} / {values[1]})"
    if kind == Violation.SHIFT:
        return f"{subject} (shift by {values[0]}, width {values[1]})"
    return ""


def check_bound(formula: ProgramFormula, limits: Limits, selected: dict[int, int] | None = None) -> BoundReport:
    """Can a run satisfying the assumptions reach beyond the unwinding bound?

    Checks the original program, or the mutated one that takes alternative
    ``selected[i]`` at location index i (a repair whose loops need more
    iterations than the bound is correct only vacuously beyond it).  An
    UNKNOWN check gives ``too_small=None``.
    """
    if not formula.cuts:
        return BoundReport(formula.bound, False)
    if limits.expired():  # no check started past the deadline: z3 may take seconds to notice its 1 ms limit
        return BoundReport(formula.bound, None)
    solver = smt_solver(limits)
    solver.add(*formula.hard(with_unwinding=False), *formula.selected_copies(selected or {}))
    solver.add(smt.disjunction(c.reached for c in formula.cuts))
    verdict = solver.check()
    if verdict == Verdict.UNKNOWN:
        return BoundReport(formula.bound, None)
    if verdict == Verdict.UNSAT:
        return BoundReport(formula.bound, False)
    model = solver.model()
    cut = next((c for c in formula.cuts if model.eval_bool(c.reached)), formula.cuts[0])
    return BoundReport(formula.bound, True, Cut(cut.what, cut.span))


CUT_OFF = "unwinding bound {} cuts off runs: no proof at this bound (no violation was looked for)"
ENCODING_TIMEOUT = ("time limit reached while unwinding and encoding the program "
                    "(try a larger --timeout or a smaller --unwind)")


def needed_bound(
    program: CProgram, report: BoundReport, entry: str, limits: Limits, checks: Checks = Checks()
) -> BoundReport:
    """``report`` with ``needed`` set to the smallest bound > ``report.bound``
    under which no run is cut off, when one ≤ ``NEEDED_BOUND_LIMIT`` is found
    within ``NEEDED_BOUND_SECONDS`` (doubling, then bisection); else as is.
    ``checks``: the checks of undefined behaviour of the encoding."""
    if not report.too_small:
        return report
    needed, _ = bound_search(program, report.bound, entry, limits, checks)
    return report if needed is None else dataclasses.replace(report, needed=needed)


def bound_search(
    program: CProgram, bound: int, entry: str, limits: Limits, checks: Checks = Checks()
) -> tuple[int | None, int]:
    """Bounds above ``bound``, which cuts off runs of ``program``: the
    smallest one under which no run is cut off (None when none ≤
    ``NEEDED_BOUND_LIMIT`` is found within ``NEEDED_BOUND_SECONDS``:
    doubling, then bisection), and the largest one found to cut off runs
    (≥ ``bound``; ≥ ``NEEDED_BOUND_LIMIT`` when the search went that far)."""
    limits = limits.within(NEEDED_BOUND_SECONDS)

    def fits(b: int) -> bool | None:
        if limits.expired():
            return None
        try:
            formula, _ = encode(program, bound=b, entry=entry, checks=checks, deadline=limits.deadline)
        except (EncodingTimeout, EncodingTooDeep):
            return None
        return {True: False, False: True, None: None}[check_bound(formula, limits).too_small]

    low, high = bound, max(bound + 1, 2 * bound)
    while True:
        ok = fits(high)
        if ok is None:
            return None, low
        if ok:
            break
        low, high = high, 2 * high
        if low >= NEEDED_BOUND_LIMIT:
            return None, low
    while high - low > 1:  # low is cut off, high fits
        mid = (low + high) // 2
        ok = fits(mid)
        if ok is None:
            return None, low
        low, high = (low, mid) if ok else (mid, high)
    return high, low


@dataclass(frozen=True, slots=True)
class ViolationCheck:
    """The answer of :func:`check_violation`: ``model`` when SAT,
    ``reason`` when UNKNOWN, ``solver`` the SMT solver that decided ("z3",
    "bitwuzla"; "" when UNKNOWN)."""

    verdict: Verdict
    model: smt.Model | None = None
    reason: str = ""
    solver: str = ""


def check_violation(formula: ProgramFormula, limits: Limits) -> ViolationCheck:
    """Does the original program (alternative 0 everywhere) violate the
    specification of ``formula``?  Checked by ``limits.backend``; UNKNOWN
    (reason "timeout") without a check once the deadline has passed."""
    if limits.expired():
        return ViolationCheck(Verdict.UNKNOWN, None, "timeout")
    solver = smt_solver(limits)
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation())
    verdict = solver.check()
    model = solver.model() if verdict == Verdict.SAT else None
    return ViolationCheck(verdict, model, solver.reason_unknown if verdict == Verdict.UNKNOWN else "", solver.decided_by)


def check_original(formula: ProgramFormula, limits: Limits) -> tuple[Verdict, smt.Model | None, str]:
    """:func:`check_violation` as (verdict, counterexample model when SAT,
    the solver's reason when UNKNOWN)."""
    check = check_violation(formula, limits)
    return check.verdict, check.model, check.reason


def verify_program(
    program: CProgram,
    *,
    unwind: int = DEFAULT_UNWIND,
    entry: str = "main",
    limits: Limits | None = None,
    checks: Checks = Checks(),
    proof_only: bool = False,
) -> VerifyResult:
    """Bounded check of a loaded program (see :func:`crepair.verify`):
    assertions and the ``checks`` of undefined behaviour on the runs within
    the bound (unwinding assumptions), then whether the bound cuts off runs;
    when it does, the bound that would not (:func:`needed_bound`).  With
    ``proof_only`` (a caller that only wants to know whether the program is
    proved), the bound is checked first: when it cuts off runs the outcome
    is UNKNOWN at once (``reason`` says so; no violation was looked for)."""
    limits = limits or Limits()
    start = time.monotonic()
    try:
        formula, _ = encode(program, bound=unwind, entry=entry, unwinding=Unwinding.ASSUMPTIONS, checks=checks,
                            deadline=limits.deadline)
    except EncodingTimeout:
        return VerifyResult(
            program.path, entry, VerifyOutcome.UNKNOWN, BoundReport(unwind, None), None, time.monotonic() - start,
            0, (), ENCODING_TIMEOUT, program.original,
        )
    warnings = []
    if not any(a.kind in (Violation.ASSERTION, Violation.NOT_EQUIVALENT) for a in formula.assertions):
        checked = " (only the checks of undefined behaviour are verified)" if formula.assertions else ""
        warnings.append(f"the program has no assertion reachable from the entry function{checked}")
    backend = limits.backend.value
    if proof_only:
        bound = check_bound(formula, limits)
        if bound.too_small:
            return VerifyResult(program.path, entry, VerifyOutcome.UNKNOWN, bound, None, time.monotonic() - start,
                                len(formula.locations), tuple(warnings), CUT_OFF.format(unwind), program.original,
                                backend)
        check = check_violation(formula, limits)
    else:
        check = check_violation(formula, limits)
        bound = check_bound(formula, limits)
        if check.verdict == Verdict.UNSAT:
            bound = needed_bound(program, bound, entry, limits, checks)
    cex = None
    outcome, undecided = VerifyOutcome.within(check.verdict, bound)
    if check.model is not None:
        cex = counterexample_of(formula, check.model)
    return VerifyResult(
        program.path, entry, outcome, bound, cex, time.monotonic() - start, len(formula.locations),
        tuple(warnings), (undecided or check.reason) if outcome == VerifyOutcome.UNKNOWN else "", program.original,
        backend, check.solver,
    )
