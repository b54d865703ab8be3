"""Algorithms 2 and 3 of TOSEM'18 on the paper's own examples, with the
programs modelled in Python (the value projection of Algorithm 1 done by
evaluating every remaining candidate at each execution of the site)."""

from __future__ import annotations

from crepair.frontend.spans import Span
from crepair.testequiv.candidates import Candidate, Schema, SearchSpace, Site, SiteKind
from crepair.testequiv.search import Exploration, explore

_SPAN = Span("p.c", 0, 1, 1, 1, 1, 1)


def _space(conditions: list[tuple[str, float]]) -> SearchSpace:
    site = Site(0, SiteKind.EXPR, _SPAN, "*", "f", "int", condition=True)
    ordered = sorted(conditions, key=lambda c: c[1])
    cands = tuple(
        Candidate(i, 0, Schema.EXPRESSION, code, code, int(cost * 10)) for i, (code, cost) in enumerate(ordered)
    )
    return SearchSpace((site,), cands)


# Fig. 3: count the odd numbers in (0, i]; the condition * is the hole.
#   while (i > 0) { if (*) c := c + 1; i := i - 1 }     test: i = 4, c = 0, expect c = 2
FIG3 = [("i >= 0", 0.1), ("c >= 0", 0.2), ("i % 2 == 1", 0.3), ("i > 2", 0.5)]


def _fig3_run(space: SearchSpace, conds, i0: int):
    def evaluate(p: int, test: str, others: frozenset[int]):
        i, c = {"t": i0, "u": 3}[test], 0
        alive = set(others) | {p}
        while i > 0:
            env = {"i": i, "c": c}
            value = bool(eval(conds[p], {}, env))
            alive = {q for q in alive if bool(eval(conds[q], {}, env)) == value}  # Algorithm 1
            if value:
                c += 1
            i -= 1
        expected = {"t": 2, "u": 2}[test]
        return c == expected, frozenset(alive)

    return evaluate


def test_fig3_partitioning_finds_the_optimal_patch_with_two_executions():
    space = _space(FIG3)
    conds = [c.code for c in space.candidates]
    found, stats = explore(space, ["t"], _fig3_run(space, conds, 4))
    # i >= 0 fails and its class holds c >= 0 (both true four times); i % 2 == 1 passes
    assert [conds[p] for p in found] == ["i % 2 == 1", "i > 2"]
    assert stats.executions == 3  # i >= 0 (class {i >= 0, c >= 0}), i % 2 == 1, i > 2
    assert stats.explored == 4 and stats.skipped_failing == 1 and stats.plausible == 2


def test_fig3_first_patch_is_the_least_cost_one_and_the_baseline_agrees():
    space = _space(FIG3)
    conds = [c.code for c in space.candidates]
    run = Exploration(space, ["t"], _fig3_run(space, conds, 4))
    assert conds[next(iter(run))] == "i % 2 == 1"
    base, base_stats = explore(space, ["t"], _fig3_run(space, conds, 4), partition=False)
    part, part_stats = explore(space, ["t"], _fig3_run(space, conds, 4))
    assert base == part  # partitioning loses nothing
    assert base_stats.executions == 4 and part_stats.executions == 3
    assert part_stats.ratio > base_stats.ratio


def _recorded_fig3() -> tuple[SearchSpace, list[str], list[tuple[str, str]], object]:
    """Fig. 3's space, its conditions, the (condition, test) runs made so far and the evaluate that records them."""
    space = _space(FIG3)
    conds = [c.code for c in space.candidates]
    calls: list[tuple[str, str]] = []
    inner = _fig3_run(space, conds, 4)

    def evaluate(p, t, others):
        calls.append((conds[p], t))
        return inner(p, t, others)

    return space, conds, calls, evaluate


def test_passing_classes_save_runs_of_later_tests_and_failing_tests_move_first():
    space, conds, calls, evaluate = _recorded_fig3()
    # test "u" (i = 3, expect 2): i % 2 == 1 (T F T) and i > 2 (T F F → 1) differ
    found, stats = explore(space, ["u", "t"], evaluate)
    assert [conds[p] for p in found] == ["i % 2 == 1"]
    # i >= 0 fails "u" first, so "u" stays in front; i > 2 fails "u"
    assert calls[0] == ("i >= 0", "u")
    assert ("c >= 0", "u") not in calls


def test_example_3_6_value_equivalence_puts_both_conditions_in_one_class():
    # if (*) x := y   with x = 1, y = 2; the test asserts y == 3 (fails either way)
    space = _space([("x > 0", 0.1), ("y == 2", 0.2), ("x > 5", 0.3)])
    conds = [c.code for c in space.candidates]
    classes = []

    def evaluate(p, t, others):
        env = {"x": 1, "y": 2}
        value = bool(eval(conds[p], {}, env))
        cls = frozenset(q for q in set(others) | {p} if bool(eval(conds[q], {}, env)) == value)
        classes.append({conds[q] for q in cls})
        return env["y"] == 3, cls

    found, stats = explore(space, ["t"], evaluate)
    assert found == [] and classes[0] == {"x > 0", "y == 2"}
    assert stats.executions == 2 and stats.explored == 3


def test_stop_ends_the_search_with_its_reason():
    space = _space(FIG3)
    conds = [c.code for c in space.candidates]
    picks = iter(range(100))
    run = Exploration(space, ["t"], _fig3_run(space, conds, 4), stop=lambda: "time" if next(picks) >= 2 else None)
    assert list(run) == [] and run.stopped == "time" and not run.complete


def test_stop_is_asked_between_the_tests_of_one_candidate():
    # a candidate that loops runs each test to its time-out (50 ms): sixty tests went 3 s past the run's limit
    space = _space(FIG3)
    run = Exploration(space, ["t", "u", "v"], lambda p, t, others: (True, frozenset({p})), partition=False)
    run.stop = lambda: "time" if run.stats.executions >= 1 else None
    assert list(run) == [] and run.stopped == "time"
    assert run.stats.executions == 1 and run.stats.picked == 1


def test_explored_counts_a_failing_class_before_the_search_reaches_it():
    # Definition 6.1: a candidate is explored once the algorithm knows it fails a test.
    # Stop after the first execution: i >= 0 failed with class {i >= 0, c >= 0};
    # c >= 0 has not been picked yet, but it is decided.
    space = _space(FIG3)
    conds = [c.code for c in space.candidates]
    run = Exploration(space, ["t"], _fig3_run(space, conds, 4))
    run.stop = lambda: "stop" if run.stats.executions >= 1 else None
    assert list(run) == []
    assert run.stats.executions == 1 and run.stats.picked == 1
    assert run.stats.explored == 2 and run.stats.ratio == 2.0
    base = Exploration(space, ["t"], _fig3_run(space, conds, 4), partition=False)
    base.stop = lambda: "stop" if base.stats.executions >= 1 else None
    assert list(base) == [] and base.stats.explored == base.stats.picked == 1


def test_a_counterexample_added_while_iterating_refutes_later_candidates():
    # CEGIS: with test "t" alone both i % 2 == 1 and i > 2 are plausible; once
    # the first is reported, test "u" (i = 3, on which i > 2 counts 1) is added:
    # the later candidate runs it first and is refuted, the one reported is not re-run
    space, conds, calls, evaluate = _recorded_fig3()
    run = Exploration(space, ["t"], evaluate)
    found = []
    for p in run:
        found.append(conds[p])
        run.add_test("u")
        run.add_test("u")  # twice: once in the order
    assert found == ["i % 2 == 1"] and run.complete
    assert calls[-1] == ("i > 2", "u") and ("i % 2 == 1", "u") not in calls
    assert run.stats.plausible == 1 and run.stats.explored == 4


def test_a_test_added_before_iterating_runs_first():
    space, conds, calls, evaluate = _recorded_fig3()
    run = Exploration(space, ["t"], evaluate)
    run.add_test("u")
    assert [conds[p] for p in run] == ["i % 2 == 1"] and calls[0] == ("i >= 0", "u")
