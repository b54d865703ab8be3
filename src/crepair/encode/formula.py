"""The program formula and its parts (AllRepair FM'16, Sect. 3.1).

After simplification, unwinding and SSA, a program becomes a set of
constraints: S_assign (one equation per SSA assignment, each knowing the
source it encodes), S_phi (the Φ-assignments at merge points) and S_demand
(the assumptions, and the negated disjunction of the assertions).  The
program is bounded-correct iff the conjunction is unsatisfiable.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from crepair.errors import BadInput
from crepair.frontend.spans import Span
from crepair.solver import smt


class Unwinding(enum.Enum):
    """What a run that the unwinding bound cuts off means.

    ASSERTIONS (the default of ``repair``; CBMC's ``--unwinding-assertions``):
    at the innermost unwound copy the loop condition (or recursion) must be
    false, so a run the bound cuts off *violates* the specification and a
    bounded proof covers every run.  ASSUMPTIONS (AllRepair FM'16, Sect.
    3.1): the innermost copy gets ``assume(!cond)``, cut-off runs are
    dropped, and a result is vacuous beyond the bound.
    """

    ASSERTIONS = "assertions"
    ASSUMPTIONS = "assumptions"


class Violation(enum.Enum):
    """What a failing run violates: a user assertion, an unwinding
    assertion, or one of the checks of undefined behaviour the encoder adds
    (CBMC's default checks; on gcc x86-64 the divisions trap with SIGFPE)."""

    ASSERTION = "assertion"
    UNWINDING_ASSERTION = "unwinding assertion"  # a run goes beyond the bound (unwinding assertions)
    DIVISION_BY_ZERO = "division by zero"  # ``/``, ``%``, ``/=``, ``%=`` by 0
    DIVISION_OVERFLOW = "signed division overflow"  # ``MIN / -1``, ``MIN % -1`` (int or long)
    ARRAY_BOUNDS = "array index out of bounds"  # read or write, index < 0 or >= size
    SHIFT = "undefined shift"  # ``<<``/``>>`` by a negative amount or >= the promoted width
    NULL_DEREFERENCE = "null pointer dereference"  # ``*p``, ``p[i]``, ``p->x`` with p null
    POINTER_BOUNDS = "pointer dereference out of bounds"  # offset outside the object, or no (live) object
    INVALID_FREE = "invalid free"  # free(p): p is not null nor the start of a live heap object
    NOT_EQUIVALENT = "differs from the reference"  # --reference: a return value, global or the output differs


@dataclass(frozen=True, slots=True)
class Checks:
    """Which checks of undefined behaviour the encoder adds as assertions
    (CBMC's ``--bounds-check``, ``--div-by-zero-check`` (with signed
    division overflow, which traps too), ``--undefined-shift-check``,
    ``--pointer-check``); all on by default.  :data:`NO_CHECKS` is the encoding of user assertions
    only."""

    bounds: bool = True
    division: bool = True
    shift: bool = True
    pointer: bool = True


NO_CHECKS = Checks(bounds=False, division=False, shift=False, pointer=False)


class LocationKind(enum.Enum):
    """What a repairable location is in the source."""

    CONDITION = "condition"  # branch or loop condition (a fresh Boolean after simplification)
    ASSIGNMENT = "assignment"  # right-hand side of an assignment or initializer
    RETURN = "return"  # returned expression
    ARGUMENT = "argument"  # actual argument of a call (assigned to the parameter)
    CASE_LABEL = "case label"  # a switch's case label, compared with the controlling value


@dataclass(frozen=True, slots=True)
class Location:
    """A repairable expression of the source.

    ``index`` is 0-based, in source order; ``function`` the enclosing
    function; ``span`` the exact expression; ``mutable`` is false inside the
    specification (``main``, ``AllRepair_correct_*``, ``--no-mutate``).
    """

    index: int
    kind: LocationKind
    function: str
    span: Span
    text: str
    mutable: bool


@dataclass(frozen=True, slots=True)
class LocationCopy:
    """One unwound/inlined copy of a location: ``lhs == alternatives[j]``.

    ``alternatives[0]`` encodes the original expression; the others encode
    the mutants the mutation unit proposed, in its order.  A ``check`` copy
    is the Boolean "no undefined behaviour" of one check inside the
    location's expression (an :class:`Assertion` reads its ``lhs``): it
    follows the alternative selected, is true in alternatives without that
    operation, and is true when a template replaces the whole expression.  ``scope`` is a
    sequence of :class:`ScopeValue` sorted by name (the encoder gives a
    snapshot computed when first read, see :class:`crepair.encode.walk.Scope`).
    """

    location: int
    lhs: smt.Term
    alternatives: tuple[smt.Term, ...]
    guard: smt.Term
    scope: Sequence["ScopeValue"] = ()
    check: bool = False


@dataclass(frozen=True, slots=True)
class ScopeValue:
    """A scalar variable in scope where a location copy executes: its C
    ``name`` and its value ``term`` (a ``bits``-wide bit-vector) just before
    the location's expression is evaluated (Könighofer & Bloem's Vals(r))."""

    name: str
    term: smt.Term
    bits: int
    signed: bool


@dataclass(frozen=True, slots=True)
class Constraint:
    """A hard constraint with its origin span (``None`` when synthetic) and,
    for assignments, the function whose statement it encodes."""

    term: smt.Term
    span: Span | None
    function: str | None = None


@dataclass(frozen=True, slots=True)
class Assertion:
    """An assertion copy: violated iff ``guard and not cond``.

    ``kind`` is ASSERTION for the user's ``assert`` (``span``: the call),
    else the check of undefined behaviour (``span``: the offending
    expression).  For checks, ``subject`` is the array's name or the
    expression's text and ``operands`` the terms a counterexample shows:
    (index, size) as 64-bit signed for ARRAY_BOUNDS, (offset, size) for
    POINTER_BOUNDS (size -1: no object), none for NULL_DEREFERENCE, (dividend, divisor)
    for the divisions, (amount, width) for SHIFT, read as signed iff
    ``signed``.  They are the original program's terms (alternative 0).
    """

    guard: smt.Term
    cond: smt.Term
    span: Span
    kind: Violation = Violation.ASSERTION
    subject: str = ""
    operands: tuple[smt.Term, ...] = ()
    signed: bool = True


@dataclass(frozen=True, slots=True)
class UnwindingCut:
    """A place where the unwinding bound cut paths: reached iff ``reached``.

    ``what`` is "loop", "recursion" or "string" (a string operation of
    the library read more characters than its limit,
    :mod:`crepair.encode.chararrays`); ``span`` the loop or call.
    """

    reached: smt.Term
    span: Span
    what: str


@dataclass(frozen=True, slots=True)
class Input:
    """An input of the program: an entry parameter, a ``nondet_*()`` call or
    an uninitialized variable.  ``signed`` tells how to print the value;
    ``size`` is set for arrays whose element count is known (an int, or a
    32-bit term for a variable-length array); ``guard`` holds iff the run
    reads the input (None: always); ``variable`` names what a call's value
    is assigned to (``x`` for ``int x = nondet_int();``, else None);
    ``floating``: 32 or 64 when the term is the IEEE-754 bit pattern of a
    ``float`` or ``double`` (0: an integer).  ``formula.inputs`` lists inputs in the order a run reads them."""

    label: str
    line: int
    term: smt.Term
    signed: bool
    is_array: bool = False
    size: "smt.Term | int | None" = None
    guard: smt.Term | None = None
    variable: str | None = None
    floating: int = 0


@dataclass(frozen=True, slots=True)
class TraceStep:
    """A statement copy; it executed iff ``guard`` holds in the model."""

    guard: smt.Term
    line: int
    function: str


@dataclass(slots=True)
class ProgramFormula:
    """The program formula of one program, bound and entry.

    ``s_assign``: plain SSA equations; ``copies``: the equations of
    repairable locations (their alternatives selected by guards);
    ``s_phi``: Φ-assignments; ``assumptions``: user assumptions;
    ``unwinding_assumptions``: the ``assume(!cond)`` of innermost copies;
    ``assertions``: every assertion copy; ``cuts``: where the bound cut
    paths.  ``unwinding`` says whether a cut is an assumption (FM'16) or
    a violation (unwinding assertion); ``checks`` which checks of undefined
    behaviour are among the assertions.  ``locations`` is indexed by
    ``Location.index``.
    """

    bound: int
    entry: str
    unwinding: Unwinding = Unwinding.ASSUMPTIONS
    checks: Checks = Checks()
    locations: list[Location] = field(default_factory=list)
    s_assign: list[Constraint] = field(default_factory=list)
    copies: list[LocationCopy] = field(default_factory=list)
    s_phi: list[Constraint] = field(default_factory=list)
    assumptions: list[Constraint] = field(default_factory=list)
    unwinding_assumptions: list[Constraint] = field(default_factory=list)
    assertions: list[Assertion] = field(default_factory=list)
    cuts: list[UnwindingCut] = field(default_factory=list)
    inputs: list[Input] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)

    def violation(self) -> smt.Term:
        """True iff some assertion fails, or, with unwinding assertions, a
        run reaches beyond the bound."""
        failures = [smt.And(a.guard, smt.Not(a.cond)) for a in self.assertions]
        if self.unwinding == Unwinding.ASSERTIONS:
            failures += [c.reached for c in self.cuts]
        return smt.disjunction(failures)

    def hard(self, with_unwinding: bool = True) -> list[smt.Term]:
        """S_assign ∪ S_phi ∪ assumptions, and the unwinding assumptions
        when they are assumptions (``unwinding`` ASSUMPTIONS) unless
        ``with_unwinding`` is false."""
        groups = [self.s_assign, self.s_phi, self.assumptions]
        if with_unwinding and self.unwinding == Unwinding.ASSUMPTIONS:
            groups.append(self.unwinding_assumptions)
        return [c.term for group in groups for c in group]

    def demand(self) -> list[smt.Term]:
        """S_demand: the assumptions (with the unwinding assumptions when
        they are assumptions) and :meth:`violation`."""
        groups = [self.assumptions]
        if self.unwinding == Unwinding.ASSUMPTIONS:
            groups.append(self.unwinding_assumptions)
        return [c.term for group in groups for c in group] + [self.violation()]

    def failed_cut(self, model: smt.Model) -> "UnwindingCut | None":
        """With unwinding assertions, the first cut ``model`` reaches while
        no assertion fails (the violated unwinding assertion), else None."""
        if self.unwinding != Unwinding.ASSERTIONS:
            return None
        if any(model.eval_bool(smt.And(a.guard, smt.Not(a.cond))) for a in self.assertions):
            return None
        return next((c for c in self.cuts if model.eval_bool(c.reached)), None)

    def executed_lines(self, model: smt.Model) -> list[int]:
        """The 1-based lines of the statement copies the run of ``model``
        executes (``trace`` steps whose guard holds), consecutive repeats
        merged: the lines a counterexample shows.

        Guards share their history (the guard after a loop is a disjunction
        over its exits, built on the guard before it), so evaluating each
        step's guard on its own costs O(its DAG) per step, quadratic after
        many loops; here every DAG node is evaluated once (iteratively: the
        DAG may be deeper than Python's recursion limit).
        """
        value: dict[int, bool] = {}
        lines: list[int] = []
        for step in self.trace:
            if _holds(step.guard, model, value) and (not lines or lines[-1] != step.line):
                lines.append(step.line)
        return lines

    def original_copies(self) -> list[smt.Term]:
        """The location copies with their original expression."""
        return self.selected_copies({})

    def selected_copies(self, selected: dict[int, int]) -> list[smt.Term]:
        """The location copies with alternative ``selected.get(i, 0)`` at
        location index i (0 = the original expression)."""
        return [c.lhs == c.alternatives[selected.get(c.location, 0)] for c in self.copies]


_CONNECTIVES = {
    "and": lambda v: all(v),
    "or": lambda v: any(v),
    "not": lambda v: not v[0],
    "implies": lambda v: (not v[0]) or v[1],
    "ite": lambda v: v[1] if v[0] else v[2],
}


def _holds(root: smt.Term, model: smt.Model, value: dict[int, bool]) -> bool:
    """The truth of Boolean ``root`` in ``model``; ``value`` memoizes it by
    term id across calls (connectives are evaluated here, atoms by the model)."""
    stack = [root]
    while stack:
        term = stack[-1]
        key = term.get_id()
        if key in value:
            stack.pop()
            continue
        connective = _CONNECTIVES.get(smt.bool_kind(term))
        if connective is None:  # an atom, true or false
            value[key] = model.eval_bool(term)
            stack.pop()
            continue
        children = smt.shape(term)[1]
        pending = [c for c in children if c.get_id() not in value]
        if pending:
            stack.extend(pending)
            continue
        value[key] = connective([value[c.get_id()] for c in children])
        stack.pop()
    return value[root.get_id()]


class EncodingTooDeep(BadInput):
    """The unwound and inlined program nests deeper than the encoder's
    walk can go (Python's recursion limit; e.g. a recursion inlined
    ``bound`` times).  Bad input at the bound asked for; the search for the
    bound a program needs stops at it."""

    def __init__(self, bound: int):
        super().__init__(f"the program nests too deep to encode at unwinding bound {bound} "
                         f"(recursion or nesting; try a smaller --unwind)")
        self.bound = bound


class EncodingTimeout(Exception):
    """The run's deadline passed while the program was being encoded (the
    unwound and inlined program is too large to build in the time left).
    Callers turn it into the outcome UNKNOWN with reason ``timeout``; it is
    never a verdict."""
