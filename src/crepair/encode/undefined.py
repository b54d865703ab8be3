"""Checks of undefined behaviour: assertions the encoder adds.

As CBMC's default checks (``--bounds-check``, ``--div-by-zero-check``,
``--undefined-shift-check``; Clarke, Kroening, Lerda, TACAS'04, Sect. 4
instruments such properties as assertions), every array access, division
and shift gets an assertion that it is defined, guarded by its path
condition and, inside ``&&``, ``||`` and ``?:``, by the condition under
which C evaluates the operand.  Failing such an assertion is a violation
of the specification like a failing ``assert``.

Inside a location's expression the check follows the mutant (AllRepair
FM'16, Sect. 3.2): each alternative is evaluated with its own list of
checks (``Ctx.checks``), and every check becomes a *check copy* of the
location (:class:`~crepair.encode.formula.LocationCopy` with ``check``
set) whose alternatives are the condition in each alternative (true where
the alternative has no such operation); the assertion reads the copy's
Boolean.  So the selection of a mutant selects its checks, a repair cannot
introduce a division by zero, and fault localization sees the location.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.core import EncoderCore
from crepair.encode.formula import Assertion, LocationCopy, Violation
from crepair.encode.ops import Defined, Value, constant_value, convert
from crepair.encode.walk import Ctx, Scope, Var
from crepair.errors import CRepairError
from crepair.solver import smt


@dataclass(frozen=True, slots=True)
class PendingCheck:
    """A check met while evaluating one alternative of a location:
    ``guard`` is the path guard where it was met (None in a replay)."""

    kind: Violation
    node: c_ast.Node
    ok: smt.Term
    guard: smt.Term | None
    subject: str
    operands: tuple[smt.Term, ...]
    signed: bool


_ENABLED = {
    Violation.ARRAY_BOUNDS: "bounds",
    Violation.DIVISION_BY_ZERO: "division",
    Violation.DIVISION_OVERFLOW: "division",
    Violation.SHIFT: "shift",
    Violation.NULL_DEREFERENCE: "pointer",
    Violation.POINTER_BOUNDS: "pointer",
    Violation.INVALID_FREE: "pointer",
}


class UndefinedBehaviour(EncoderCore):
    """Adds the checks of undefined behaviour (see module docstring).

    Uses the encoder state ``_when`` (the conditions of the enclosing
    ``&&``/``||``/``?:`` operands, innermost last) and ``_sizes`` (array
    key -> element count recorded at the declaration).  A nested
    assignment or ``++``, whose effects replays do not redo, is evaluated
    with ``checks`` None: its checks are plain assertions.
    """

    def _check(self, ctx: Ctx, kind: Violation, node: c_ast.Node, ok: smt.Term, *,
               subject: str = "", operands: tuple[smt.Term, ...] = (), signed: bool = True) -> None:
        """Assert ``ok`` (the operation at ``node`` is defined) where it is
        evaluated; in a location's expression, collect it for the copy."""
        if not getattr(self.formula.checks, _ENABLED[kind]):
            return
        ok = smt.simplify(ok)  # a constant index or divisor: often true
        if self._when:
            ok = smt.Implies(smt.conjunction(self._when), ok)
        if ctx.checks is None:
            if ctx.record and not smt.is_true(ok):  # in a replay of an effect: the recording asserted it
                self.formula.assertions.append(
                    Assertion(ctx.state.guard, ok, self._p.spans.span(node), kind, subject, operands, signed)
                )
            return
        guard = ctx.state.guard if ctx.record else None
        ctx.checks.append(PendingCheck(kind, node, ok, guard, subject, operands, signed))

    def _check_operation(self, ctx: Ctx, node: c_ast.Node, cases: list[Defined]) -> None:
        """Check the definedness ``cases`` of the binary operation at ``node``."""
        if not cases:
            return
        span = self._p.spans.span(node)
        text = " ".join(self._p.original[span.start : span.end].split())
        for d in cases:
            self._check(ctx, d.kind, node, d.ok, subject=text, operands=d.operands, signed=d.signed)

    def _check_index(self, ctx: Ctx, node: c_ast.ArrayRef, var: Var, index: Value) -> None:
        """Check ``0 <= index < size`` of the access ``node`` to array
        ``var`` when its size is known."""
        size = self._array_size(var)
        if size is not None:
            self._check_index_within(ctx, node, index, size, node.name.name)

    def _check_index_within(self, ctx: Ctx, node: c_ast.Node, index: Value, count: "smt.Term | int",
                      subject: str) -> smt.Term:
        """Check ``0 <= index < count`` (ARRAY_BOUNDS) of the access at
        ``node``, compared in 64 bits before the index is narrowed to an
        array term's 32 bits; ``count`` is an element count (a 32-bit term
        for a variable-length array).  Returns the index widened to 64 bits."""
        wide = convert(index, ct.LONG if index.ctype.signed or index.ctype.bits < 64 else ct.ULONG).term
        n = smt.BitVecVal(count, 64) if isinstance(count, int) else smt.SignExt(32, count)
        if index.ctype.signed:
            ok = smt.And(wide >= smt.BitVecVal(0, 64), wide < n)
        else:
            ok = smt.And(n > smt.BitVecVal(0, 64), smt.ULT(wide, n))
        self._check(ctx, Violation.ARRAY_BOUNDS, node, ok, subject=subject, operands=(wide, n),
                    signed=index.ctype.signed)
        return wide

    def _array_size(self, var: Var) -> "smt.Term | int | None":
        """The (flat) element count of array ``var``: recorded at its declaration
        (a 32-bit term for a variable-length array), else its constant
        dimension; None when unknown (a parameter ``int a[]``)."""
        size = self._sizes.get(var.key)
        if size is not None:
            return size.as_long() if smt.is_bv_value(size) else size
        dim = var.ctype.size
        if isinstance(dim, c_ast.Constant) and dim.type == "int":
            try:
                return smt.simplify(constant_value(dim, self._point(dim)).term).as_signed_long() * var.ctype.row
            except CRepairError:
                return None
        return None

    def _check_copies(self, location: int, runs: list[list[PendingCheck]], guard: smt.Term, scope: Scope) -> None:
        """The check copies and assertions of one copy of ``location``:
        ``runs[j]`` holds the checks met evaluating alternative j; ``guard``
        is the path guard where the expression starts."""
        by_key: dict[tuple[int, Violation], list[PendingCheck | None]] = {}
        for j, run in enumerate(runs):
            for p in run:
                by_key.setdefault((id(p.node), p.kind), [None] * len(runs))[j] = p
        for found in by_key.values():
            first = next(p for p in found if p is not None)
            alternatives = tuple(smt.BoolVal(True) if p is None else p.ok for p in found)
            if all(smt.is_true(a) for a in alternatives):
                continue
            lhs = smt.Bool(f"defined@{self._line(first.node)}#{next(self._ssa)}")
            self.formula.copies.append(LocationCopy(location, lhs, alternatives, guard, scope, check=True))
            where = first.guard if first.guard is not None else guard
            self.formula.assertions.append(
                Assertion(where, lhs, self._p.spans.span(first.node), first.kind, first.subject, first.operands,
                          first.signed)
            )
