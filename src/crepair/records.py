"""The records every stage shares: repairs, their evidence, run outcomes.

A repair is scheme-independent: the *edits* of the user's original text
(replacements, insertions, deletions), grouped by the repairable location
they change, the unified diff, the :class:`Scheme` that found it and the
:class:`Evidence` that it is correct.  Renderers (``crepair.report``) read
only these records.

Offsets are 0-based into the original text, end exclusive; lines and
columns are 1-based; times are seconds.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from crepair.frontend.spans import Span


class Scheme(enum.Enum):
    """Repair schemes."""

    MUTATION = "mutation"  # all minimal mutation repairs (AllRepair, FM'16)
    TEMPLATE = "template"  # diagnosis + linear templates (Könighofer & Bloem, FMCAD'11)
    TEST_DRIVEN = "test-driven"  # search with test-equivalence partitioning (f1x, TOSEM'18)
    HEAP = "heap"  # proof-guided repair against program states (Wolverine2, Verma & Roy)


class RepairOutcome(enum.Enum):
    """How a repair run (or one scheme of it) ended, ranked: when schemes
    are combined, the outcome that comes first in this order wins."""

    REPAIRED = "repaired"  # at least one non-vacuous repair was found
    STOPPED = "stopped"  # stopped on request (--max-repairs, --first, caller) before an answer
    UNKNOWN = "unknown"  # time-out or solver unknown before an answer
    BOUND_TOO_SMALL = "bound-too-small"  # the original violates nothing within B, but B cuts its runs
    ORIGINAL_CORRECT = "original-correct"  # the program already verifies (bounded proof, every run)
    NO_FAILING_TEST = "no-failing-test"  # test-driven: the original passes every test
    VACUOUS_ONLY = "vacuous-only"  # only repairs that the unwinding bound makes correct (FM'16 semantics)
    NO_REPAIR = "no-repair"  # none within the scheme up to the size limit
    EXHAUSTED = "exhausted"  # the whole search space was explored: none exists

    @staticmethod
    def merge(outcomes: "list[RepairOutcome]") -> "RepairOutcome":
        """The outcome of several schemes run in order: the highest ranked."""
        order = list(RepairOutcome)
        return min(outcomes, key=order.index) if outcomes else RepairOutcome.UNKNOWN


@dataclass(frozen=True, slots=True)
class Cut:
    """Where the unwinding bound cut runs: ``what`` is "loop" or
    "recursion", ``span`` the loop or call."""

    what: str
    span: Span


@dataclass(frozen=True, slots=True)
class BoundReport:
    """Whether the unwinding bound cuts off feasible runs, and where.

    ``too_small``: True (runs are cut off: results are vacuous beyond the
    bound), False (every run fits), None (the check was unknown).
    ``needed``: the smallest bound that covers every run, when known.
    """

    bound: int
    too_small: bool | None
    cut: Cut | None = None
    needed: int | None = None

    def hint(self) -> str:
        """"try --unwind N" with the smallest N known to be needed."""
        if self.needed is not None:
            return f"try --unwind {self.needed}"
        return f"try --unwind N with N > {self.bound}"

    def message(self) -> str:
        if self.too_small is None:
            return f"could not decide whether unwinding bound {self.bound} is large enough"
        if not self.too_small:
            return f"every run fits within unwinding bound {self.bound}"
        where = f" ({self.cut.what} at {self.cut.span})" if self.cut else ""
        return (
            f"unwinding bound {self.bound} is too small{where}: "
            f"result is vacuous beyond bound {self.bound}; {self.hint()}"
        )


class Evidence:
    """Why a repair is correct; one subclass per kind of specification."""

    __slots__ = ()

    @property
    def vacuous(self) -> bool:
        """Whether the evidence holds only because runs were left out."""
        return False

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class BoundedProof(Evidence):
    """A fresh solver proved the repaired program correct up to unwinding
    bound ``bound.bound``.  ``unwinding_assertions``: the proof covers every
    run (a run past the bound would have failed it); otherwise runs the bound
    cuts off were assumed away and ``bound.too_small`` says whether any
    exist (then the repair is *vacuous* beyond the bound)."""

    bound: BoundReport
    unwinding_assertions: bool

    @property
    def vacuous(self) -> bool:
        return not self.unwinding_assertions and self.bound.too_small is not False

    def describe(self) -> str:
        b = self.bound.bound
        if self.unwinding_assertions:
            return f"verified: every run ends within unwinding bound {b} and satisfies every assertion"
        if self.vacuous:
            cut = self.bound.cut
            where = f" ({cut.what} at {cut.span})" if cut is not None else ""
            if self.bound.too_small is None:
                return f"VACUOUS: could not decide whether the repaired program's runs fit unwinding bound {b}"
            return (f"VACUOUS: the repaired program has runs beyond unwinding bound {b}{where}; "
                    "it is correct only on the runs within the bound")
        return f"verified up to unwinding bound {b} (unwinding assumptions; every run fits)"


@dataclass(frozen=True, slots=True)
class PassesTests(Evidence):
    """A test-driven repair is only *plausible*: the patched program, built
    normally (not the meta-program), passed ``passed`` of ``total`` tests
    (all of them).  Tests are an incomplete specification: never "correct"."""

    passed: int
    total: int

    def describe(self) -> str:
        return f"plausible: passes {self.passed}/{self.total} tests"


@dataclass(frozen=True, slots=True)
class PassesSuite(Evidence):
    """A repair checked by concrete runs against a reference: the patched
    program, built normally, passed ``given`` given tests, ``generated``
    tests whose inputs were generated from the given ones and whose
    expected outputs are the reference's, and ``counterexamples`` tests
    made from the bounded check's counterexamples (each all of its kind).
    ``why_not_proved``: why the bounded proof did not decide (empty: not
    tried).  Stronger than :class:`PassesTests`, weaker than a proof."""

    given: int
    generated: int
    counterexamples: int = 0
    why_not_proved: str = ""
    held_back: int = 0

    def counts(self) -> str:
        generated = self.generated + self.held_back
        parts = [f"given {self.given}/{self.given}", f"generated {generated}/{generated}"]
        if self.counterexamples:
            parts.append(f"counterexamples {self.counterexamples}/{self.counterexamples}")
        return "tests (" + ", ".join(parts) + ")"

    def describe(self) -> str:
        why = f"; not proved: {self.why_not_proved}" if self.why_not_proved else ""
        return f"{self.counts()}{why}"


@dataclass(frozen=True, slots=True)
class EquivalenceProof(Evidence):
    """A fresh bounded check proved the patched program equivalent to the
    reference on every run within unwinding bound ``bound`` (every run fits:
    unwinding assertions) with array and string inputs of ``input_bound``
    elements; ``tests``: the concrete tests it passed before."""

    bound: int
    input_bound: int
    tests: PassesSuite

    def describe(self) -> str:
        return (f"proof (unwind {self.bound}, input bound {self.input_bound}): equivalent to the reference "
                f"on every run within the bound; {self.tests.counts()}")


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit of the original text: ``span`` is replaced by ``new``.

    An insertion has an empty span (``span.start == span.end``, ``old``
    empty); a deletion has an empty ``new``.
    """

    span: Span
    old: str
    new: str

    @property
    def kind(self) -> str:
        if not self.old:
            return "insert"
        return "delete" if not self.new else "replace"


@dataclass(frozen=True, slots=True)
class Change:
    """The edits a repair makes at one repairable location (an expression
    of the source): ``span`` and ``function`` of the location, ``kind``
    (condition, assignment, …), its whole text ``before`` and ``after``."""

    span: Span
    function: str | None
    kind: str
    before: str
    after: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True, slots=True)
class Repair:
    """A checked repair: its changes (in source order), the unified
    ``diff`` of the user's file, the whole ``patched`` text, ``seconds``
    since the run started, the ``scheme`` that found it and the
    ``evidence`` of its correctness; ``stage``: the stage of the default
    schedule that found it (e.g. ``"mutation level 2, must pruning"``;
    empty when the schemes were chosen, see ``crepair.schemes.schedule``).  A repair changes one file,
    :attr:`file` (the ``span.file`` of its changes, as the user named it;
    the diff is labelled with it and ``patched`` is its whole text)."""

    scheme: Scheme
    changes: tuple[Change, ...]
    diff: str
    patched: str
    seconds: float
    evidence: Evidence
    stage: str = ""

    @property
    def file(self) -> str:
        """The changed file (its changes' ``span.file``; empty without changes)."""
        return self.changes[0].span.file if self.changes else ""

    @property
    def size(self) -> int:
        """Number of changed locations."""
        return len(self.changes)

    @property
    def edits(self) -> tuple[Edit, ...]:
        return tuple(e for c in self.changes for e in c.edits)

    @property
    def vacuous(self) -> bool:
        """Correct only because the unwinding bound cuts its runs off."""
        return self.evidence.vacuous

    @property
    def bound(self) -> BoundReport | None:
        """The bound report of a bounded proof (None for other evidence)."""
        return self.evidence.bound if isinstance(self.evidence, BoundedProof) else None


class StopReason(enum.Enum):
    """Why a scheme stopped searching."""

    COMPLETE = "complete"  # every candidate up to the size limit was explored
    MAX_REPAIRS = "max-repairs"  # the requested number of repairs was found
    CALLER = "caller"  # the caller stopped iterating
    TIMEOUT = "timeout"  # the run's time limit was reached
    UNKNOWN = "unknown"  # a solver answered unknown where an answer was needed
    NOT_STARTED = "not-started"  # no search was needed (or possible)


def text_span(file: str, text: str, start: int, end: int) -> Span:
    """The :class:`Span` of ``text[start:end]`` (0-based offsets, end
    exclusive) with 1-based lines and columns (end inclusive; an empty span
    ends where it starts)."""
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    last = max(end - 1, start)
    end_line = text.count("\n", 0, last) + 1
    end_column = last - (text.rfind("\n", 0, last) + 1) + 1
    return Span(file, start, end, line, column, end_line, end_column)
