"""Test-driven repair: f1x's search with test-equivalence partitioning.

The pipeline (Mechtaev, Gao, Tan, Roychoudhury, TOSEM'18, §4–§5):

1. the original program is built in a copy of the project and every test
   is run: the failing tests are found, never taken on trust;
2. spectrum-based localization on a coverage build: the candidate lines
   are those every failing test executes, ranked by suspiciousness;
3. the search space (Fig. 10) over those lines, in cost order;
4. one meta-program: every site instrumented once, compiled once; the
   candidate to run is chosen at run time, and the runtime computes its
   value-based test-equivalence class on the fly (Algorithm 1);
5. exploration with partitioning (Algorithm 3) or without (Algorithm 2);
6. every plausible patch is rebuilt normally and re-run on every test
   before it is reported (evidence :class:`~crepair.records.PassesTests`).

A patch that passes every test is *plausible*, never "correct".
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from crepair.frontend import CProgram
from crepair.patch import apply_edits, unified_diff
from crepair.records import Change, Edit, PassesTests, Repair, RepairOutcome, Scheme, StopReason, text_span
from crepair.schemes.base import SchemeStats, finish
from crepair.testequiv.candidates import Candidate, SearchSpace
from crepair.testequiv.search import Exploration, ExplorationStats


@dataclass(frozen=True, slots=True)
class TestRepairOptions:
    """Options of a test-driven run.

    ``timeout``: seconds for the whole run (None: none); ``test_timeout``:
    milliseconds per test execution; ``partition``: Algorithm 3 (False:
    the enumerative baseline, Algorithm 2); ``all``: explore the whole
    space and report every plausible patch (False: stop after
    ``max_repairs``, default 1); ``lines``: restrict sites to these 1-based
    lines (None: every line the failing tests execute); ``formula``: the
    suspiciousness formula ranking sites (ochiai, tarantula, dstar).
    """

    timeout: float | None = 300.0
    test_timeout: int = 1000
    partition: bool = True
    all: bool = False
    max_repairs: int | None = 1
    lines: frozenset[int] | None = None
    formula: str = "ochiai"


@dataclass(slots=True)
class TestDrivenStats(SchemeStats):
    """:class:`SchemeStats` of the test-driven scheme, plus the tests (ids
    failing / passing on the original), the search space (``sites``,
    ``candidates``, ``by_schema``), the exploration counts (``explored``,
    ``executions``, ``partitions``, ``plausible``, ``ratio``, ``complete``),
    ``rejected``: plausible candidates whose normal build failed a test
    (should be 0), ``validations``: test executions spent re-checking
    patches, ``build_seconds`` of the meta-program."""

    failing: tuple[str, ...] = ()
    passing: tuple[str, ...] = ()
    sites: int = 0
    candidates: int = 0
    by_schema: dict = field(default_factory=dict)
    explored: int = 0
    executions: int = 0
    partitions: int = 0
    plausible: int = 0
    ratio: float = 0.0
    complete: bool = False
    rejected: int = 0
    validations: int = 0
    build_seconds: float = 0.0

    def take(self, e: ExplorationStats) -> None:
        self.explored, self.executions, self.partitions = e.explored, e.executions, e.partitions
        self.plausible, self.ratio = e.plausible, round(e.ratio, 3)


def candidate_repair(program: CProgram, space: SearchSpace, cand: Candidate, seconds: float,
                     evidence: PassesTests) -> Repair:
    """The :class:`Repair` record of candidate ``cand``: one change at its
    site, whose edit is the smallest span that differs (so ``>`` → ``>=``
    reads as such)."""
    site = space.sites[cand.site]
    before, after = site.text, cand.replacement
    i = 0
    while i < min(len(before), len(after)) and before[i] == after[i]:
        i += 1
    j = 0
    while j < min(len(before), len(after)) - i and before[-1 - j] == after[-1 - j]:
        j += 1
    start, end = site.span.start + i, site.span.end - j
    text, path = program.original, program.path
    edit = Edit(text_span(path, text, start, end), text[start:end], after[i:len(after) - j])
    change = Change(site.span, site.function, cand.schema.value, before, after, (edit,))
    patched = apply_edits(text, [(site.span.start, site.span.end, after)])
    return Repair(Scheme.TEST_DRIVEN, (change,), unified_diff(path, text, patched), patched, seconds, evidence)


class PartitionFiles:
    """The file through which the runtime gets and returns a class: one
    per run, in a private temporary folder."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="crepair-partition-")
        self.path = Path(self._dir.name) / "partition"

    def close(self) -> None:
        self._dir.cleanup()


def elapsed_stop(start: float, timeout: float | None):
    """A ``stop`` callback for :class:`Exploration` ending at the time limit."""
    if timeout is None:
        return None
    return lambda: "time limit reached" if time.monotonic() - start >= timeout else None


def _env(cand: int, partition: Path | None) -> dict[str, str]:
    env = {"CREPAIR_CANDIDATE": str(cand)}
    if partition is not None:
        env["CREPAIR_PARTITION"] = str(partition)
    return env


__all__ = ["TestRepairOptions", "TestDrivenStats", "candidate_repair", "Exploration", "RepairOutcome",
           "StopReason", "finish", "os", "Iterator", "elapsed_stop", "PartitionFiles", "_env"]
