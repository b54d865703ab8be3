"""Search-space exploration: enumerative (Algorithm 2) and with on-the-fly
partitioning into test-equivalence classes (Algorithm 3).

Source: Mechtaev, Gao, Tan, Roychoudhury, "Test-Equivalence Analysis for
Automatic Patch Generation", TOSEM'18, §4 (Algorithms 2 and 3,
Definitions 4.2–4.4) and §6.3 (Definition 6.1, explored candidates).

The search is independent of how a candidate is run: ``evaluate(c, t,
others)`` runs candidate ``c`` on test ``t`` and returns whether it passed
and ``[c]``, its test-equivalence class among ``others`` (candidate ids of
the same site still undecided for ``t``; the class always contains ``c``).
The enumerative baseline passes no ``others`` and takes ``[c] = {c}``.

Candidates are picked in the order of the search space (cost first, §5),
so the first plausible patch found has the least cost (Definition 4.2), and
the search may stop there or run to the end (full exploration).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from crepair.testequiv.candidates import SearchSpace

Evaluate = Callable[[int, str, frozenset[int]], tuple[bool, frozenset[int]]]


@dataclass(slots=True)
class ExplorationStats:
    """Counts of one exploration.

    ``explored``: candidates decided — Definition 6.1: the algorithm has
    identified that they pass every test (plausible) or fail at least one
    (in the failing class of some test, by a run or through a class, also
    before the search reaches them in its order); ``picked``: candidates
    the search has reached in its order (= ``explored`` once complete);
    ``executions``: test executions of candidates; ``partitions``: classes
    computed (one per execution with partitioning); ``plausible``: patches
    passing every test; ``skipped_failing`` / ``skipped_passing``: candidate
    picks / test runs saved by a failing class (line 5 of Algorithm 3) or a
    passing class (line 10); ``seconds``: wall-clock time.
    """

    explored: int = 0
    picked: int = 0
    executions: int = 0
    partitions: int = 0
    plausible: int = 0
    skipped_failing: int = 0
    skipped_passing: int = 0
    seconds: float = 0.0

    @property
    def ratio(self) -> float:
        """Exploration speed: explored candidates per test execution (§6.3, RQ2)."""
        return self.explored / self.executions if self.executions else 0.0


@dataclass(slots=True)
class Exploration:
    """Algorithm 3 (``partition=True``) or Algorithm 2 (``partition=False``)
    over ``space`` with the ``tests`` (ids; failing tests should come
    first): iterate to get the ids of plausible candidates in search order.

    The test order adapts as in f1x: a test that fails a candidate moves to
    the front.  ``stop`` (optional) is asked before each pick and ends the
    search when it returns a reason (e.g. a time limit); the reason is kept
    in ``stopped``.  ``progress`` (optional) gets the counts after every
    test execution.  ``known_passing`` (with partitioning): per test, the
    candidates known to pass it without a run — one class with the original
    program, which passes it (see ``crepair.schemes.test_driven``).  ``max_cost`` (tenths, None: no
    limit; the caller may set it while iterating): the search ends at the first candidate of a higher
    cost (``stopped`` says so; not ``complete``).  ``stats`` are final when the iterator ends.
    :meth:`add_test` adds a test while iterating (counterexample-guided).
    """

    space: SearchSpace
    tests: Sequence[str]
    evaluate: Evaluate
    partition: bool = True
    stop: Callable[[], str | None] | None = None
    progress: Callable[[ExplorationStats], None] | None = None
    known_passing: Mapping[str, frozenset[int]] | None = None
    max_cost: int | None = None
    stats: ExplorationStats = field(default_factory=ExplorationStats)
    stopped: str = ""
    complete: bool = False
    _order: list[str] = field(default_factory=list)
    _passing: dict[str, set[int]] = field(default_factory=dict)

    def add_test(self, test: str) -> None:
        """Run ``test`` first on every candidate picked from now on (it
        refuted a candidate the other tests let through: a counterexample,
        CEGIS); candidates already yielded are not re-run.  A test already
        in the order is left where it is."""
        if test not in self._passing and test not in self._order:
            self._order.insert(0, test)
            self._passing[test] = set()

    def __iter__(self) -> Iterator[int]:
        start = time.monotonic()
        try:
            yield from self._search()
        finally:
            self.stats.seconds = time.monotonic() - start

    def _stop_asked(self) -> bool:
        """Whether ``stop`` says to stop (its reason then in ``stopped``)."""
        reason = self.stop() if self.stop is not None else None
        if reason:
            self.stopped = reason
        return bool(reason)

    def _search(self) -> Iterator[int]:
        self._order = order = list(dict.fromkeys([*self._order, *self.tests]))  # tests added before: first
        by_site: dict[int, set[int]] = {}  # the candidates of each site not yet picked
        for c in self.space.candidates:
            by_site.setdefault(c.site, set()).add(c.id)
        failing: set[int] = set()  # the union of every failing class (over all tests)
        self._passing = passing = {t: set() for t in order}  # C(t), as the union of its classes
        if self.partition and self.known_passing:
            for t, ids in self.known_passing.items():
                if t in passing:
                    passing[t] |= ids
        stats = self.stats
        for cand in self.space.candidates:
            if self._stop_asked():
                return
            if self.max_cost is not None and cand.cost > self.max_cost:
                self.stopped = f"cost above {self.max_cost}"
                return
            p = cand.id
            by_site[cand.site].discard(p)
            stats.picked += 1
            if p in failing:  # Algorithm 3, line 5: in a failing class of some test
                stats.skipped_failing += 1
                continue
            passed_all = True
            for t in list(order):
                if p in passing[t]:  # line 10: in a passing class of t
                    stats.skipped_passing += 1
                    continue
                if self._stop_asked():  # between tests too: a candidate may run every test (~0.6 s)
                    return
                others = frozenset()
                if self.partition:
                    others = frozenset(by_site[cand.site] - failing - passing[t])  # set algebra: C's loops
                ok, cls = self.evaluate(p, t, others)
                stats.executions += 1
                if self.progress is not None:
                    self.progress(stats)
                cls = (cls | {p}) if self.partition else frozenset({p})
                if self.partition:
                    stats.partitions += 1
                if ok:
                    passing[t] |= cls
                else:
                    failing |= cls
                    stats.explored = len(failing) + stats.plausible
                    order.remove(t)
                    order.insert(0, t)
                    passed_all = False
                    break
            if passed_all:
                stats.plausible += 1
                stats.explored = len(failing) + stats.plausible
                yield p
        self.complete = True


def explore(space: SearchSpace, tests: Sequence[str], evaluate: Evaluate, partition: bool = True) -> tuple[
        list[int], ExplorationStats]:
    """Run the whole exploration; returns the plausible candidate ids in
    search order and the counts."""
    run = Exploration(space, tests, evaluate, partition)
    found = list(run)
    return found, run.stats
