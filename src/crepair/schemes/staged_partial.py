"""Where a staged run's search (:mod:`crepair.schemes.staged`) starts: the
part of the space searched first, and a partial fix to search from when no
single change passes a given test.

The first stage comes from the shape of the original's wrong outputs
(:func:`~crepair.oracle.shape.failure_shape`): the formats and the output
calls inserted before statements for a presentation error, the sites on
the output lines for tokens printed too many or too few.

A fault at two places that every test sees (two presentation errors: a
separator and a final newline) has no partial fix that passes a test, so
f1x's way of composing changes (a patch that passes some tests, then a
second search from it) never starts.  crepair's own measure instead: the
bytes to delete and insert to turn a candidate's outputs into the
expected ones (:func:`~crepair.testsuite.output_distance`).  The test-driven
search keeps its nearest misses on a failing test
(:meth:`~crepair.schemes.test_driven.TestDrivenRun.nearest`); the one
nearest on all the given tests, if nearer than the program searched, is
where round 2 starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from crepair.oracle.shape import Shape, failure_shape, output_lines
from crepair.records import Repair
from crepair.schemes.staged_checks import CandidateChecks
from crepair.testequiv.candidates import Schema
from crepair.testsuite.runner import output_distance, output_slack
from crepair.testsuite.spec import Comparison

BUILDERS = min(4, os.cpu_count() or 1)  # candidates built and run at once by nearest_fix


def first_stage(original: str, checks: CandidateChecks, suite, compare: Comparison) -> tuple[
        list[str], tuple[frozenset[Schema] | None, frozenset[int] | None] | None]:
    """(the given tests of ``suite`` that ``original`` fails, the part of
    the space searched first as (schemas, lines)): (FORMAT and OUTPUT,
    every line) for a presentation error, (every schema, the output
    lines) for tokens printed too many or too few, None: the whole space
    at once."""
    given, norm = suite.given, compare.normalize
    runs = checks.runs(original, [suite.stdin(t) for t in given]) if given else None
    pairs = list(zip(given, runs or ()))
    failing = [t for t, run in pairs if not checks.passes(run, suite.expected(t))]
    shape = failure_shape((norm(cut_output(run.output, suite.expected(t), compare)), norm(suite.expected(t)))
                          for t, run in pairs)
    return failing, {Shape.PRESENTATION: (frozenset({Schema.FORMAT, Schema.OUTPUT}), None),
                     Shape.OUTPUT: (None, output_lines(original))}.get(shape)


def nearest_fix(near: list[tuple[int, Repair]], base: str, checks: CandidateChecks, suite, compare: Comparison,
                timed_out: Callable[[], bool]) -> tuple[int, int, Repair] | None:
    """Of the near misses ``near`` ((distance on one test, repair) pairs,
    changes of ``base``), the one whose outputs on the given tests of
    ``suite`` are nearest the expected ones, as (``base``'s distance, its
    distance, the repair); None when none is nearer than ``base`` (or
    ``base`` does not compile).  Each candidate is built and run once on
    the given tests, :data:`BUILDERS` at a time (gcc is most of the time);
    stops early when ``timed_out()``."""
    if not near:
        return None
    candidates = list(dict((r.patched, r) for _, r in sorted(near, key=lambda n: n[0])).values())
    with ThreadPoolExecutor(max_workers=BUILDERS) as pool:
        distances = [pool.submit(outputs_distance, text, checks, suite, compare)
                     for text in [base] + [r.patched for r in candidates]]
        try:
            before = distances[0].result()
            if before is None:
                return None
            best: tuple[int, Repair] | None = None
            for rep, distance in zip(candidates, distances[1:]):
                after = distance.result()
                if after is not None and after < (before if best is None else best[0]):
                    best = (after, rep)
                if timed_out():
                    break
        finally:
            for distance in distances:
                distance.cancel()
    return None if best is None else (before, *best)


def outputs_distance(text: str, checks: CandidateChecks, suite, compare: Comparison) -> int | None:
    """The bytes to delete and insert to turn the outputs of ``text`` on
    the given tests of ``suite`` into the expected ones, summed (None: it
    does not compile).  An output longer than the expected one by more
    than the comparison's slack (:func:`~crepair.testsuite.runner.output_slack`)
    is compared up to there and its rest counted as bytes to delete: an
    upper bound, in time linear in the output (a run that loops at end of
    input prints megabytes before its time limit; the edit script of
    :class:`difflib.SequenceMatcher` on those took minutes)."""
    outputs = checks.outputs(text, [suite.stdin(t) for t in suite.given])
    if outputs is None:
        return None
    norm, total = compare.normalize, 0
    for t, got in zip(suite.given, outputs):
        want = suite.expected(t)
        cut = cut_output(got, want, compare)
        total += output_distance(norm(cut), norm(want)) + len(got) - len(cut)
    return total


def cut_output(got: bytes, expected: bytes, compare: Comparison) -> bytes:
    """``got`` up to the comparison's slack past the length of
    ``expected`` (bytes; the test runner cuts a run there too)."""
    return got[:len(expected) + output_slack(compare)]
