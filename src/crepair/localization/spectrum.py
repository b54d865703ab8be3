"""Spectrum-based fault localization: rank the program's lines by how much
more the failing tests execute them than the passing ones.

For a line s, with F failing and P passing tests in all:
``ef(s)``/``ep(s)`` count the failing/passing tests that execute s and
``nf(s) = F - ef(s)``, ``np(s) = P - ep(s)`` those that do not.

* Ochiai (Abreu, Zoeteweij, van Gemund, "On the accuracy of spectrum-based
  fault localization", TAIC PART 2007): ``ef / sqrt(F * (ef + ep))``.
* Tarantula (Jones & Harrold, "Empirical evaluation of the Tarantula
  automatic fault-localization technique", ASE 2005):
  ``(ef/F) / (ef/F + ep/P)`` (``ep/P`` is 0 when P = 0).
* DStar (Wong, Debroy, Gao, Li, "The DStar method for effective software
  fault localization", IEEE Trans. Reliability 2014), star = 2:
  ``ef**2 / (ep + nf)`` (infinite when ``ep + nf`` = 0).

Candidates are the lines executed by every failing test, as f1x considers
only patches whose modification all failing tests execute (Mechtaev et al.,
TOSEM'18, §6.3, Definition 6.1).  When some failing tests have exact
coverage and others only gcov's estimate (they crashed or timed out, see
``crepair.testsuite.coverage``), the candidates are the lines every failing
test with exact coverage executes; the counts use every test.
On the candidates ``ef = F`` and ``nf = 0`` (with exact coverage), so the
three formulas order them alike (fewer passing executions first); they
differ in the scores.
Ties go to the smaller line number.

>>> round(ochiai(1, 1, 0, 1), 4)
0.7071
>>> round(tarantula(1, 1, 0, 1), 4), dstar(1, 0, 0, 2)
(0.6667, inf)
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from crepair.testsuite.coverage import Spectrum
from crepair.testsuite.runner import TestOutcome

DSTAR_STAR = 2


class Formula(enum.Enum):
    """Suspiciousness formulas (see the module docstring)."""

    OCHIAI = "ochiai"
    TARANTULA = "tarantula"
    DSTAR = "dstar"


def ochiai(ef: int, ep: int, nf: int, np: int) -> float:
    """Ochiai: ``ef / sqrt((ef + nf) * (ef + ep))``; 0 when a factor is 0."""
    denominator = math.sqrt((ef + nf) * (ef + ep))
    return ef / denominator if denominator else 0.0


def tarantula(ef: int, ep: int, nf: int, np: int) -> float:
    """Tarantula: ``(ef/F) / (ef/F + ep/P)`` with F = ef + nf, P = ep + np;
    a ratio with a zero denominator counts as 0, and so does 0/0."""
    failed = ef / (ef + nf) if ef + nf else 0.0
    passed = ep / (ep + np) if ep + np else 0.0
    return failed / (failed + passed) if failed + passed else 0.0


def dstar(ef: int, ep: int, nf: int, np: int, star: int = DSTAR_STAR) -> float:
    """DStar: ``ef**star / (ep + nf)``; ``math.inf`` when ``ep + nf`` is 0
    and ``ef`` is not, 0 when both are 0."""
    if ep + nf == 0:
        return math.inf if ef else 0.0
    return ef**star / (ep + nf)


SCORES = {Formula.OCHIAI: ochiai, Formula.TARANTULA: tarantula, Formula.DSTAR: dstar}


@dataclass(frozen=True, slots=True)
class RankedLine:
    """A candidate line: its 1-based ``line`` number, its ``score`` (a
    float, possibly ``math.inf`` for DStar) and how many failing and passing
    tests execute it; ``file``: its file (relative to the project) when
    several files are ranked together (:func:`rank_files`), else empty."""

    line: int
    score: float
    executed_by_failing: int
    executed_by_passing: int
    file: str = ""


@dataclass(frozen=True, slots=True)
class SpectrumResult:
    """Spectrum-based localization of the program at ``path``.

    ``ranking``: the candidate lines, most suspicious first (empty when no
    test fails); ``failing`` / ``passing``: the test ids, in the
    specification's order (a time-out counts as failing); ``timed_out``:
    the ids that hit the time limit; ``estimated``: the ids whose coverage
    is gcov's estimate (the program crashed or timed out); ``seconds``: wall
    clock, building and running included; ``original``: the program's text.
    """

    path: str
    formula: Formula
    ranking: tuple[RankedLine, ...]
    failing: tuple[str, ...]
    passing: tuple[str, ...]
    seconds: float
    original: str
    timed_out: tuple[str, ...] = ()
    estimated: tuple[str, ...] = ()


def rank(spectrum: Spectrum, formula: Formula = Formula.OCHIAI) -> tuple[RankedLine, ...]:
    """The lines executed by every failing test of ``spectrum`` (every one
    with exact coverage, when there is one), scored by ``formula`` and
    sorted by decreasing score, then increasing line number.  Empty when
    no test fails.  ``spectrum`` is not changed."""
    failing = spectrum.failing
    if not failing:
        return ()
    passing = spectrum.passing
    score = SCORES[formula]
    exact = [t for t in failing if t.exact] or failing
    candidates = frozenset.intersection(*(t.lines for t in exact))
    ranked = []
    for line in candidates:
        ef = sum(line in t.lines for t in failing)
        ep = sum(line in t.lines for t in passing)
        ranked.append(RankedLine(line, score(ef, ep, len(failing) - ef, len(passing) - ep), ef, ep))
    ranked.sort(key=lambda r: (-r.score, r.line))
    return tuple(ranked)


def rank_files(spectrum: Spectrum, formula: Formula = Formula.OCHIAI) -> tuple[RankedLine, ...]:
    """:func:`rank` over every file the spectrum covers
    (``Spectrum.files``, or the program alone), each line labelled with its
    file: the scores of one formula are comparable across files (they count
    tests), so the lines are sorted together by decreasing score, then by
    the file's place in ``spectrum.files``, then by line."""
    files = spectrum.files or (spectrum.program,)
    ranked = [RankedLine(r.line, r.score, r.executed_by_failing, r.executed_by_passing, f)
              for f in files for r in rank(spectrum.of(f), formula)]
    where = {f: i for i, f in enumerate(files)}
    ranked.sort(key=lambda r: (-r.score, where[r.file], r.line))
    return tuple(ranked)


def localize_spectrum(spectrum: Spectrum, path: str, original: str, formula: Formula = Formula.OCHIAI,
                      seconds: float | None = None) -> SpectrumResult:
    """The :class:`SpectrumResult` of ``spectrum`` for the program at
    ``path`` with text ``original``; ``seconds`` defaults to the
    spectrum's own."""
    return SpectrumResult(
        path, formula, rank(spectrum, formula),
        tuple(t.test for t in spectrum.failing), tuple(t.test for t in spectrum.passing),
        spectrum.seconds if seconds is None else seconds, original,
        tuple(t.test for t in spectrum.tests if t.outcome == TestOutcome.TIMEOUT),
        tuple(t.test for t in spectrum.tests if not t.exact),
    )
