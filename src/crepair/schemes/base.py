"""The scheme interface: a problem, a scheme's statistics, its ending.

A repair scheme is built from a :class:`Problem` (the program, the options,
the run's limits and its shared encodings) and yields checked
:class:`~crepair.records.Repair` records from :meth:`RepairScheme.repairs`,
smallest first where the scheme has an order; its ``stats`` (a
:class:`SchemeStats`) are final when the generator ends or is closed.
``crepair.schemes.run.RepairRun`` composes schemes in order.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterator
import dataclasses
from dataclasses import dataclass, field
from typing import Protocol

from crepair.encode import ProgramFormula, encode
from crepair.encode.formula import Unwinding
from crepair.encode.symex import Overrides
from crepair.frontend import CProgram
from crepair.mutation import MutationUnit
from crepair.options import RepairOptions
from crepair.records import Repair, RepairOutcome, StopReason
from crepair.run_record import SchemeStats
from crepair.solver import Limits


class Encoding(enum.Enum):
    """The encodings schemes ask for (each is built once per run)."""

    MUTANTS = "mutants"  # every location with its mutation alternatives (AllRepair)
    SPLIT_TERNARIES = "split-ternaries"  # ``c ? a : b`` as three locations, no alternatives (templates)


@dataclass(slots=True)
class Problem:
    """What a repair run works on: the loaded ``program``, the ``options``,
    the run's ``limits`` and ``start`` (``time.monotonic()``); encodings
    are built on demand and shared by the schemes."""

    program: CProgram
    options: RepairOptions
    limits: Limits
    start: float = field(default_factory=time.monotonic)
    _encodings: dict = field(default_factory=dict)

    def encoding(self, kind: Encoding) -> tuple[ProgramFormula, dict[int, tuple[Overrides, ...]]]:
        """The program formula (with ``options.unwinding``) and the mutants
        per location index of encoding ``kind``; raises ``BadInput`` /
        ``UnsupportedConstruct`` for code the encoder does not model and
        ``EncodingTimeout`` when the run's deadline passes first."""
        if kind not in self._encodings:
            o = self.options
            if kind == Encoding.MUTANTS:
                unit = MutationUnit(self.program, o.level, o.no_mutate, o.mutate_main)
                self._encodings[kind] = encode(
                    self.program, bound=o.unwind, entry=o.entry, alternatives=unit, split_conditions=True,
                    unwinding=o.unwinding,
                    checks=o.checks, deadline=self.limits.deadline,
                )
            else:
                self._encodings[kind] = encode(
                    self.program, bound=o.unwind, entry=o.entry, split_ternaries=True, unwinding=o.unwinding,
                    checks=o.checks, deadline=self.limits.deadline,
                )
        return self._encodings[kind]

    def with_unwinding(self, unwinding: "Unwinding") -> "Problem":
        """The same problem (limits, start) with ``options.unwinding`` set to
        ``unwinding``, sharing the encodings built so far (the unwinding
        semantics is only how :class:`ProgramFormula` reads its cuts)."""
        problem = Problem(self.program, dataclasses.replace(self.options, unwinding=unwinding), self.limits, self.start)
        problem._encodings = {kind: (dataclasses.replace(f, unwinding=unwinding), mutants)
                              for kind, (f, mutants) in self._encodings.items()}
        return problem


class RepairScheme(Protocol):
    """A repair scheme over one :class:`Problem`."""

    stats: SchemeStats

    def repairs(self) -> Iterator[Repair]:
        """Checked repairs; closing the generator stops the search
        (``stats.stopped`` becomes CALLER)."""
        ...


def finish(stats: SchemeStats, outcome: RepairOutcome, stopped: StopReason, reason: str = "") -> None:
    """Set how a scheme ended: an UNKNOWN or a time-out never hides the
    repairs found (``outcome`` REPAIRED stays, with the reason kept)."""
    if stats.repairs > stats.vacuous and outcome in (RepairOutcome.UNKNOWN, RepairOutcome.NO_REPAIR,
                                                      RepairOutcome.EXHAUSTED, RepairOutcome.STOPPED):
        outcome = RepairOutcome.REPAIRED
    elif stats.repairs and outcome in (RepairOutcome.NO_REPAIR, RepairOutcome.EXHAUSTED):
        outcome = RepairOutcome.VACUOUS_ONLY
    stats.outcome, stats.stopped, stats.reason = outcome, stopped, reason


def tracked(stats: SchemeStats, search: Iterator[Repair]) -> Iterator[Repair]:
    """Yield from a scheme's ``search``, recording its ``seconds`` and, if
    the caller closes the generator, that it was stopped (StopReason CALLER)."""
    start = time.monotonic()
    try:
        yield from search
    except GeneratorExit:
        if stats.stopped == StopReason.NOT_STARTED:
            finish(stats, RepairOutcome.STOPPED, StopReason.CALLER)
        raise
    finally:
        stats.seconds = time.monotonic() - start
