"""Ranking test-driven patches by semantic distance (QLOSE's idea on f1x's
search; crepair issue 29, items 2 and 3).

The search (f1x, TOSEM'18) yields plausible patches in syntactic cost
order.  With :attr:`Ranking.DISTANCE` the run measures each plausible
patch's distance from the original program
(:mod:`crepair.testequiv.distance`: the number of inputs — the passing
tests' and ``GENERATED`` mutants of them — on which its output
differs from the original's) and its *choices* (the identifiers and
literals it put in, :mod:`crepair.schemes.patch_prior`), and reports the
patches of least score first among patches of similar cost (at most
``COST_SLACK`` tenths apart, see :func:`ranked`), search (cost) order
breaking ties:

    score(P) = distance(P) + CHOICE_WEIGHT * compared(P) * choices(P)

so that a chosen value weighs as much as differing from the original on
a tenth of the compared inputs: an operator change (no choice) is
preferred to a constant or variable picked to fit the tests unless the
latter changes the original's behaviour much less.

The rule in first-patch mode (``max_repairs`` = k, not ``--all``): once k
plausible patches are found, the search goes on among candidates of
similar cost — at most ``COST_SLACK`` tenths (four AST nodes) above the
k-th patch's cost — until ``EXTRA_PLAUSIBLE`` more plausible patches are
found, or ``RANK_SHARE`` of the time then left (at most ``RANK_SECONDS``
seconds; ``RANK_SECONDS`` without a time limit) is used, or the space
ends; then the k best-ranked patches are reported.  With ``--all`` the
whole space is explored and every patch is reported, ranked; a patch found
after the run's time limit is not measured and comes last.

The diversity check (item 3): ``alternatives`` counts the other plausible
patches found whose outputs differ from the first reported patch's on
some compared input — then the tests underdetermine the fix.

Source: D'Antoni, Samanta, Singh, "QLOSE: Program Repair with
Quantitative Objectives", CAV'16 (semantic distance from the original on
the given inputs); Mechtaev et al., TOSEM'18 §5 (the cost order kept for
ties and for the search).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterator
from dataclasses import dataclass

from crepair.records import Repair
from crepair.schemes.patch_prior import choices
from crepair.testequiv.distance import Behaviour, Distance, Probe

# tenths of f1x cost above the last reported patch's still searched for ranking, and the width of the
# band ranked by score: four AST nodes, so that a guard or a refinement (cost 4) or an ``x + 1`` (2) of a
# much smaller distance is weighed against a variable swapped in (0.8).  One node (10) kept them out:
# Codeflaws tests only, 120 s, first patch passing the held-out tests 42 -> 44 (246-A, 276-B, 490-C,
# 638-A gained; 218-B, 359-A lost), 20 tenths 42 (bench/results/codeflaws-tests-band40.md, -slack*.md)
COST_SLACK = 40
EXTRA_PLAUSIBLE = 8  # plausible patches looked for beyond the ones reported
RANK_SHARE = 0.25  # share of the time left that the ranking phase may use
RANK_SECONDS = 30.0  # at most this many seconds of ranking phase (also without a time limit)
CHOICE_WEIGHT = 0.1  # a chosen identifier or literal weighs as much as differing on this share of the inputs


class Ranking(enum.Enum):
    """How the plausible patches of a test-driven run are ordered."""

    COST = "cost"  # f1x's syntactic cost only, streamed as found (TOSEM'18 §5)
    DISTANCE = "distance"  # semantic distance from the original first, cost next (QLOSE, CAV'16)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A plausible, validated ``repair``, the ``order`` (0-based) in which
    the search found it, its ``cost`` (tenths), its ``behaviour`` on the
    probe and ``distance`` (None: not measured); ``choices``: the values
    it picked (:func:`~crepair.schemes.patch_prior.choices`)."""

    repair: Repair
    order: int
    cost: int
    behaviour: Behaviour | None = None
    distance: Distance | None = None
    choices: int = 0

    @property
    def score(self) -> float | None:
        """Its distance plus its choices' weight (see the module; None: not measured)."""
        if self.distance is None:
            return None
        return self.distance.differ + CHOICE_WEIGHT * self.distance.compared * self.choices


def ranked(pool: list[Ranked]) -> list[Ranked]:
    """``pool`` in report order: repeatedly, among the patches left whose
    cost is at most ``COST_SLACK`` above the least cost left ("similar
    cost"), the one of least score (:attr:`Ranked.score`), then of
    earliest search order.  Unmeasured patches (distance None) rank by
    search order alone."""
    left = sorted(pool, key=lambda r: r.order)
    out: list[Ranked] = []
    while left:
        floor = min(r.cost for r in left)
        band = [r for r in left if r.cost <= floor + COST_SLACK]
        best = min(band, key=lambda r: (0, r.score, r.order) if r.distance else (1, 0, r.order))
        out.append(best)
        left.remove(best)
    return out


def agreeing(probe: Probe | None, patch: Ranked, pool: list[Ranked]) -> int:
    """How many patches of ``pool`` (``patch`` itself included) behave
    exactly as ``patch`` on every compared input of ``probe`` (0 without a
    probe or behaviour)."""
    if probe is None or patch.behaviour is None:
        return 0
    return sum(1 for r in pool if r.behaviour is not None and not probe.disagree(patch.behaviour, r.behaviour))


def alternatives(probe: Probe | None, first: Ranked, others: list[Ranked]) -> int:
    """How many of ``others`` behave differently from ``first`` on some
    compared input of ``probe`` (0 without a probe or behaviours)."""
    if probe is None or first.behaviour is None:
        return 0
    return sum(1 for r in others if r.behaviour is not None and probe.disagree(first.behaviour, r.behaviour))


class Clock:
    """The stop rule of a run: its time limit (``timeout`` seconds from
    ``start``, None: none) and, once :meth:`rank_from` is called, the
    ranking phase's own budget."""

    def __init__(self, start: float, timeout: float | None):
        self.start, self.timeout = start, timeout
        self.rank_until: float | None = None

    def over(self) -> bool:
        """Whether the run's own time limit has passed."""
        return self.timeout is not None and time.monotonic() - self.start >= self.timeout

    def stop(self) -> str | None:
        """A ``stop`` callback for :class:`~crepair.testequiv.search.Exploration`."""
        if self.over():
            return "time limit reached"
        if self.rank_until is not None and time.monotonic() >= self.rank_until:
            return "ranking time used"
        return None

    def rank_from(self, now: float) -> float:
        """Start the ranking phase at ``now`` (monotonic seconds); returns its budget in seconds."""
        left = None if self.timeout is None else max(0.0, self.timeout - (now - self.start))
        budget = RANK_SECONDS if left is None else min(RANK_SECONDS, RANK_SHARE * left)
        self.rank_until = now + budget
        return budget


# -- the steps of a test-driven run (``run``: its TestDrivenRun) -------------------------
def probe_of(run, ws) -> Probe | None:
    """The inputs the patches' distances are measured on, with the
    original's behaviour (the meta-program as the original); None for
    driver tests (said in ``stats.ranking``)."""
    from crepair.testequiv.distance import folder_runner
    from crepair.testequiv.protocol import run_environment

    if not run.spec.ids:
        return None
    inv = run.spec.invocation(run.spec.ids[0], ws.root)
    runner = folder_runner(inv.argv, inv.cwd, inv.compare, run.test_timeout)
    probe = Probe.of(run.spec, run.passing, runner, run_environment(None))
    if probe is None:
        from crepair.testsuite.spec import FolderTests

        why = "no passing test to compare near" if isinstance(run.spec, FolderTests) else \
            "driver tests have no standard input to compare on"
        run.stats.ranking["note"] = f"cost order: {why}"
    else:
        run.stats.ranking.update(inputs=len(probe.inputs), generated=probe.generated,
                                  compared=len(probe.compared))
    return probe

def measure(run, probe: Probe | None, repair: Repair, order: int, cand, clock: Clock) -> Ranked:
    """The ranking record of a validated patch: its behaviour and
    distance on ``probe``, measured with the meta-program running
    ``cand`` (not after the run's time limit: a patch validated just
    before it keeps its cost only)."""
    from crepair.testequiv.protocol import run_environment

    if probe is None or clock.over():
        return Ranked(repair, order, cand.cost)
    b = probe.behaviour(run_environment(run.linked.runtime_id(cand.id)))
    return Ranked(repair, order, cand.cost, b, probe.distance(b), choices(repair))

def rank_patches(run, probe: Probe | None, pool: list[Ranked], keep: int | None, stopped: str) -> Iterator[Repair]:
    """Yield the patches to report, best ranked first, after filling
    ``stats.ranking`` (rule, patches considered, alternatives that
    behave differently from the first reported, why the search
    ended) and ``stats.distances``."""
    from crepair.schemes.semantic_ranking import alternatives, ranked

    order = ranked(pool)
    report = order if keep is None else order[:keep]
    r = run.stats.ranking
    r.update(rule=Ranking.DISTANCE.value, considered=len(pool), measured=sum(1 for x in pool if x.distance),
             moved=report[0].order != 0, alternatives=alternatives(probe, report[0], order[1:]),
             ended=stopped or ("space explored" if run.stats.complete else "enough plausible patches"))
    run.stats.distances = [None if x.distance is None else
                            {"distance": x.distance.differ, "compared": x.distance.compared, "cost": x.cost,
                             "choices": x.choices, "agree": agreeing(probe, x, pool)}
                            for x in report]
    for x in report:
        run.found += 1
        run.stats.repairs = run.found
        yield x.repair
