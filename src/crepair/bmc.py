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
import time
from dataclasses import dataclass, field

from crepair.counterexample import Counterexample, counterexample_of
from crepair.encode import ProgramFormula, encode
from crepair.encode.formula import Checks, EncodingTimeout, EncodingTooDeep, Unwinding, Violation
from crepair.frontend import CProgram
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
    found_within: int = 0  # the unwinding bound of the formula the counterexample is from (≤ bound.bound; 0: none)


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
    return ViolationCheck(verdict, model, solver.reason_unknown if verdict == Verdict.UNKNOWN else "",
                          solver.decided_by)


def check_original(formula: ProgramFormula, limits: Limits) -> tuple[Verdict, smt.Model | None, str]:
    """:func:`check_violation` as (verdict, counterexample model when SAT,
    the solver's reason when UNKNOWN)."""
    check = check_violation(formula, limits)
    return check.verdict, check.model, check.reason


DEEPENING_SHARE = 0.25  # of the time left, what one smaller bound's encoding and violation check may take
DEEPENING_SECONDS = 30.0  # the same without a time limit


def deepening_bounds(unwind: int) -> list[int]:
    """The bounds below ``unwind`` at which :func:`deepen` looks for a
    violation first: 1, 2, 4, … (doubling), each < ``unwind``."""
    bounds, k = [], 1
    while k < unwind:
        bounds.append(k)
        k *= 2
    return bounds


@dataclass(frozen=True, slots=True)
class Deepened:
    """What :func:`deepen` found: ``formula`` and its SAT ``check`` at bound
    ``bound`` (< the bound asked for) when a violation was found there;
    ``formula`` alone (``check`` None) when no run reached ``bound``, so the
    formula at any larger bound is the same; nothing (both None) when the
    search ended undecided or without a violation."""

    formula: ProgramFormula | None = None
    check: ViolationCheck | None = None
    bound: int = 0


def deepen(program: CProgram, unwind: int, entry: str, limits: Limits, checks: Checks = Checks()) -> Deepened:
    """Iterative deepening of the unwinding bound for violations: the
    violation check at bounds 1, 2, 4, … below ``unwind``
    (:func:`deepening_bounds`), each encoding and check given
    ``DEEPENING_SHARE`` of the time left (``DEEPENING_SECONDS`` without a
    time limit).  A violation within a smaller bound is one within
    ``unwind`` (the unwinding assumptions only remove runs), and a
    counterexample with fewer iterations is found sooner (CBMC's
    incremental unwinding, Clarke, Kroening, Lerda, TACAS'04 Sect. 4).
    Stops at the first violation, at an UNKNOWN check or encoding, and at
    a bound no run reaches; an UNSAT check proves nothing beyond its bound
    and the search goes on."""
    for k in deepening_bounds(unwind):
        if limits.expired():
            break
        left = limits.seconds_left()
        step = limits.within(DEEPENING_SECONDS if left is None else DEEPENING_SHARE * left)
        try:
            formula, _ = encode(program, bound=k, entry=entry, unwinding=Unwinding.ASSUMPTIONS, checks=checks,
                                deadline=step.deadline)
        except (EncodingTimeout, EncodingTooDeep):
            break
        if not formula.cuts:
            return Deepened(formula, None, k)
        check = check_violation(formula, step)
        if check.verdict == Verdict.SAT:
            return Deepened(formula, check, k)
        if check.verdict == Verdict.UNKNOWN:
            break
    return Deepened()


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
    when it does, the bound that would not (:func:`needed_bound`).  A
    violation is looked for at smaller bounds first (:func:`deepen`); one
    found there is the outcome (``found_within`` its bound; the bound asked
    for is not checked).  With ``proof_only`` (a caller that only wants to
    know whether the program is proved), the bound is checked first: when
    it cuts off runs the outcome is UNKNOWN at once (``reason`` says so; no
    violation was looked for)."""
    limits = limits or Limits()
    start = time.monotonic()
    deepened = Deepened() if proof_only else deepen(program, unwind, entry, limits, checks)
    formula = deepened.formula
    if formula is None:
        try:
            formula, _ = encode(program, bound=unwind, entry=entry, unwinding=Unwinding.ASSUMPTIONS, checks=checks,
                                deadline=limits.deadline)
        except EncodingTimeout:
            return VerifyResult(
                program.path, entry, VerifyOutcome.UNKNOWN, BoundReport(unwind, None), None,
                time.monotonic() - start, 0, (), ENCODING_TIMEOUT, program.original,
            )
    warnings = []
    if not any(a.kind in (Violation.ASSERTION, Violation.NOT_EQUIVALENT) for a in formula.assertions):
        checked = " (only the checks of undefined behaviour are verified)" if formula.assertions else ""
        warnings.append(f"the program has no assertion reachable from the entry function{checked}")
    backend = limits.backend.value
    found_within = 0
    if deepened.check is not None:
        check, bound, found_within = deepened.check, BoundReport(unwind, None), deepened.bound
    elif proof_only:
        bound = check_bound(formula, limits)
        if bound.too_small:
            return VerifyResult(program.path, entry, VerifyOutcome.UNKNOWN, bound, None, time.monotonic() - start,
                                len(formula.locations), tuple(warnings), CUT_OFF.format(unwind), program.original,
                                backend)
        check = check_violation(formula, limits)
    else:
        check = check_violation(formula, limits)
        bound = dataclasses.replace(check_bound(formula, limits), bound=unwind)  # formula: maybe a smaller bound's
        if check.verdict == Verdict.UNSAT:
            bound = needed_bound(program, bound, entry, limits, checks)
    cex = None
    outcome, undecided = VerifyOutcome.within(check.verdict, bound)
    if check.model is not None:
        cex = counterexample_of(formula, check.model)
        found_within = found_within or unwind
    return VerifyResult(
        program.path, entry, outcome, bound, cex, time.monotonic() - start, len(formula.locations),
        tuple(warnings), (undecided or check.reason) if outcome == VerifyOutcome.UNKNOWN else "", program.original,
        backend, check.solver, found_within,
    )
