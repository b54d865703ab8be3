import itertools
import json
import subprocess
import sys

import pytest

import crepair
from crepair.cli import ExitCode, main
from crepair.encode import encode
from crepair.frontend import load_program
from crepair.mutation import MutationLevel, MutationUnit
from crepair.patch import apply_edits
from crepair.schemes.mutation import AllRepair, search_space
from cprog import write_c

# AllRepair FM'16, Fig. 2(a): sum of 1..n, with i starting at 0 and `i < n`.
PAPER_SUM = """
    int sum(int n) {
        __CPROVER_assume(n >= 1);
        int sum = 0;
        int i;
        for (i = 0; i < n; i++) {
            sum += i;
        }
        assert(sum == n * (n + 1) / 2);
        return sum;
    }
"""


def changes_of(repair):
    return frozenset((c.span.line, e.old, e.new) for c in repair.changes for e in c.edits)


def test_paper_example_sum_level_2(tmp_path):
    # FM'16 semantics (unwinding assumptions): n is unbounded, so every
    # repair is correct only on the runs within the bound: all are vacuous.
    path = write_c(tmp_path, PAPER_SUM)
    run = crepair.repair(path, entry="sum", level=2, max_size=2, unwind=3, timeout=None, unwinding="assumptions")
    repairs = list(run)
    assert repairs and all(r.vacuous for r in repairs)
    assert run.outcome == crepair.RepairOutcome.VACUOUS_ONLY
    found = [changes_of(r) for r in repairs]
    assert frozenset({(5, "<", "<=")}) in found
    for a, b in itertools.permutations(found, 2):
        assert not a < b, "a reported repair is a superset of another"
    # The programmer's intended fix, the pair `i = 1` with `i <= n`, is a
    # bounded-correct program too, but it is a superset of the size-1 repair
    # {i <= n}, so by Def. 6 it is not minimal and must not be reported.
    pair = PAPER_SUM.replace("i = 0;", "i = 1;").replace("i < n", "i <= n")
    # (no assertion fails within the bound, which cuts its runs: its own outcome, not "verified")
    assert crepair.verify(write_c(tmp_path, pair, "pair.c"), entry="sum", unwind=3).outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL
    assert frozenset({(5, "0", "1"), (5, "<", "<=")}) not in found
    assert run.stats.complete


def test_paper_example_sum_with_bounded_input_has_a_real_repair(tmp_path):
    # With n bounded the same repair is proved for every run (unwinding
    # assertions, the default): not vacuous, counted as repaired.
    path = write_c(tmp_path, PAPER_SUM.replace("n >= 1", "n >= 1 && n <= 3"))
    # i <= n runs the loop n + 1 = 4 times: at bound 3 its runs are cut off
    assert not list(crepair.repair(path, entry="sum", level=2, max_size=1, unwind=3, timeout=None))
    run = crepair.repair(path, entry="sum", level=2, max_size=1, unwind=4, timeout=None)
    repairs = list(run)
    assert frozenset({(5, "<", "<=")}) in [changes_of(r) for r in repairs]
    assert not any(r.vacuous for r in repairs)
    assert all(r.evidence.unwinding_assertions for r in repairs)
    assert run.outcome == crepair.RepairOutcome.REPAIRED


def test_search_space_counts_selection_vectors():
    assert search_space([2, 1, 3], 3) == {1: 6, 2: 2 + 6 + 3, 3: 6}


TWO_BUGS = """
    int clamp(int x, int lo, int hi) {
        int r = x;
        if (x > hi)
            r = hi;
        if (x > lo)
            r = lo;
        return r;
    }
    int main(void) {
        int x = nondet_int(), lo = nondet_int(), hi = nondet_int();
        __CPROVER_assume(lo <= hi && x > -100 && x < 100 && lo > -100 && hi < 100);
        int r = clamp(x, lo, hi);
        assert(lo <= r && r <= hi);
        assert(r == x || r == lo || r == hi);
        return 0;
    }
"""


def brute_force_minimal_repairs(path, level, max_size, entry="main"):
    """Every sv of size <= max_size checked by patching the file and verifying it."""
    program = load_program(path)
    unit = MutationUnit(program, level)
    formula, mutants = encode(program, bound=2, entry=entry, alternatives=unit, split_conditions=True)
    locs = [l.index for l in formula.locations if len(mutants[l.index]) > 1]
    repaired = []
    for size in range(1, max_size + 1):
        for chosen in itertools.combinations(locs, size):
            for alts in itertools.product(*(range(1, len(mutants[i])) for i in chosen)):
                muts = [mutants[i][j].mutation for i, j in zip(chosen, alts)]
                text = apply_edits(program.original, [(m.start, m.end, m.new_text) for m in muts])
                candidate = path.with_name("candidate.c")
                candidate.write_text(text)
                if crepair.verify(candidate, unwind=2, entry=entry).outcome == crepair.VerifyOutcome.VERIFIED:
                    repaired.append(frozenset((m.start, m.new_text) for m in muts))
    return {r for r in repaired if not any(o < r for o in repaired)}


@pytest.mark.parametrize("level", [MutationLevel.LEVEL_1, MutationLevel.LEVEL_2])
def test_all_minimal_repairs_equal_brute_force(tmp_path, level):
    path = write_c(tmp_path, TWO_BUGS)
    expected = brute_force_minimal_repairs(path, level, 2)
    run = crepair.repair(path, level=level, max_size=2, unwind=2, timeout=None)
    got = [frozenset((e.span.start, e.new) for e in r.edits) for r in run]
    assert len(got) == len(set(got))
    assert set(got) == expected
    if level == MutationLevel.LEVEL_2:
        assert expected  # `x > lo` -> `x < lo` is a level-2 mutation
    sizes = [len(r) for r in got]
    assert sizes == sorted(sizes)  # smallest first


# Issue 25: one mutation on each of two comparisons of one condition.
RANGE_TWO_BUGS = """
    int f(int m, int n) {
        if (1 < m && m <= n && n < 16)
            return 1;
        return 0;
    }
    int main(void) {
        int m = nondet_int();
        int n = nondet_int();
        int want = 1 <= m && m <= n && n <= 16;
        assert(f(m, n) == want);
        return 0;
    }
"""


@pytest.mark.parametrize("level", ["1", "2"])
def test_two_mutations_in_one_condition_are_a_size_2_repair(tmp_path, level):
    # C evaluates `a && b` as two branches: each comparison is a location
    # (FM'16 keeps a whole condition one location, so the pair is outside
    # its space), and
    # `<` -> `<=` is a level-1 mutation (FM'16 Table 1), so the pair is in
    # the space at both levels.
    write_c(tmp_path, RANGE_TWO_BUGS)
    proc = subprocess.run(
        [sys.executable, "-m", "crepair.cli", "repair", "prog.c", "--scheme", "mutation", "--level", level,
         "--max-size", "2", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == ExitCode.OK, proc.stderr
    report = json.loads(proc.stdout)
    found = [sorted((e["old"], e["new"]) for c in r["changes"] for e in c["edits"]) for r in report["repairs"]]
    assert [("<", "<="), ("<", "<=")] in found
    assert "if (1 <= m && m <= n && n <= 16)" in report["repairs"][0]["diff"]


def test_and_or_of_a_split_condition_is_still_mutated(tmp_path):
    src = """
        int f(int a, int b) {
            if (a > 0 && b > 0)
                return 1;
            return 0;
        }
        int main(void) {
            int a = nondet_int(), b = nondet_int();
            assert(f(a, b) == (a > 0 || b > 0));
            return 0;
        }
    """
    (rep,) = crepair.repair(write_c(tmp_path, src), level=1, max_size=1, timeout=None)
    assert [(e.old, e.new) for e in rep.edits] == [("&&", "||")]


def test_a_guarded_array_read_keeps_its_condition_whole(tmp_path):
    # `i < 4 && a[i] > 0`: a[i] is only read when i < 4; with `||` it would be
    # read out of bounds, so the condition stays one location and its
    # `||` mutant is refuted by the bounds check.
    src = """
        int a[4];
        int f(int i) {
            if (i < 4 && a[i] > 0)
                return 1;
            return 0;
        }
        int main(void) {
            int i = nondet_int();
            __CPROVER_assume(i >= 0 && i <= 8);
            a[0] = nondet_int();
            assert(f(i) == (i < 4 && a[i] > 1));
            return 0;
        }
    """
    path = write_c(tmp_path, src)
    found = [[(e.old, e.new) for e in r.edits] for r in crepair.repair(path, level=1, max_size=1, timeout=None)]
    assert [("&&", "||")] not in found


def test_diff_changes_only_the_mutated_token(tmp_path):
    src = """
        #define LIMIT 10   /* keep me */
        int f(int a) {
            // comment stays
            return a  >  LIMIT;
        }
        int main(void) {
            int a = nondet_int();
            assert(f(a) == (a >= 10));
            return 0;
        }
    """
    path = write_c(tmp_path, src)
    (rep,) = crepair.repair(path, level=1, max_size=1)
    before, after = path.read_text(), rep.patched
    assert after == before.replace("a  >  LIMIT", "a  >=  LIMIT")
    body = rep.diff.splitlines()[2:]
    assert [l for l in body if l.startswith(("+", "-"))] == ["-    return a  >  LIMIT;", "+    return a  >=  LIMIT;"]


def test_macro_constant_is_repaired_on_its_define_line(tmp_path):
    src = """
        #define LIMIT 9
        int f(int a) { return a >= LIMIT; }
        int main(void) {
            int a = nondet_int();
            assert(f(a) == (a >= 10));
            return 0;
        }
    """
    path = write_c(tmp_path, src)
    repairs = list(crepair.repair(path, level=2, max_size=1))
    texts = {(c.kind, c.after) for r in repairs for c in r.changes}
    # LIMIT is used once: its constant is a location of the #define's body (issue 14)
    assert ("macro body", "10") in texts and ("return", "a > LIMIT") in texts
    for r in repairs:
        fixed = write_c(tmp_path, r.patched, "fixed.c")
        assert crepair.verify(fixed).outcome == crepair.VerifyOutcome.VERIFIED


def test_generator_can_stop_early_and_specification_is_never_mutated(tmp_path):
    path = write_c(tmp_path, TWO_BUGS)
    run = crepair.repair(path, level=2, max_size=2, unwind=2)
    first = next(run)
    run.close()
    assert first.size >= 1
    for r in crepair.repair(path, level=2, max_size=2, unwind=2):
        assert all(c.function == "clamp" for c in r.changes)
    assert not list(crepair.repair(path, level=2, max_size=2, unwind=2, no_mutate={"clamp"}))


def test_cli_outcomes_and_apply(tmp_path, capsys):
    correct = write_c(tmp_path, TWO_BUGS.replace("if (x > lo)", "if (x < lo)"), "ok.c")
    assert main(["repair", str(correct), "--quiet"]) == ExitCode.ORIGINAL_CORRECT
    hopeless = write_c(tmp_path, TWO_BUGS.replace("r = lo;", "r = 5;"), "no.c")
    assert main(["repair", str(hopeless), "--quiet", "--max-size", "1", "--scheme", "mutation"]) == ExitCode.NO_REPAIR
    buggy = write_c(tmp_path, TWO_BUGS, "bug.c")
    original = buggy.read_text()
    capsys.readouterr()
    assert main(["repair", str(buggy), "--json", "--level", "2", "--unwind", "2"]) == ExitCode.OK
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "repaired" and data["schemes"][0]["outcome"] == "repaired" and data["repairs"][0]["diff"].startswith("---")
    assert buggy.read_text() == original  # nothing written without --apply
    assert main(["repair", str(buggy), "--first", "--apply", "--quiet", "--level", "2"]) == ExitCode.OK
    assert (tmp_path / "bug.c.orig").read_text() == original
    assert buggy.read_text() != original
    assert crepair.verify(buggy).outcome == crepair.VerifyOutcome.VERIFIED


def test_truth_value_negation_is_a_level_2_mutation(tmp_path):
    src = """
        int pick(int flag, int a, int b) { return flag ? b : a; }
        int main(void) {
            int f = nondet_int(), a = nondet_int(), b = nondet_int();
            __CPROVER_assume(f == 0 || f == 1);
            assert(pick(f, a, b) == (f ? a : b));
            return 0;
        }
    """
    path = write_c(tmp_path, src)
    assert not list(crepair.repair(path, level=1, max_size=1))
    repairs = list(crepair.repair(path, level=2, max_size=1))
    assert "return !flag ? b : a;" in {r.patched.splitlines()[0].split("{ ")[1].rstrip(" }") for r in repairs}


def test_fresh_solver_checks_find_the_same_repairs(tmp_path):
    # The fallback for svs the incremental solver leaves undecided checks a
    # fresh solver and localizes on its model; forced for every sv, the
    # minimal repairs must not change (with and without pruning).
    path = write_c(tmp_path, TWO_BUGS)
    program = load_program(path)
    formula, mutants = encode(program, bound=2, entry="main", alternatives=MutationUnit(program, MutationLevel.LEVEL_2))

    def repairs(incremental_rlimit, prune):
        search = AllRepair(
            formula, mutants, path=str(path), original=program.original, max_size=2,
            prune=prune, incremental_rlimit=incremental_rlimit,
        )
        return {frozenset((e.span.start, e.new) for e in r.edits) for r in search}, search.stats

    for prune in (False, True):
        incremental, inc_stats = repairs(14_000_000, prune)
        fresh, fresh_stats = repairs(0, prune)
        assert incremental and fresh == incremental
        assert inc_stats.fresh_checks == 0
        assert fresh_stats.fresh_checks > 0 and fresh_stats.complete


# A loop that the mutation `i + 1 -> i - 1` makes run past any bound: that
# mutant is "correct up to the bound" only because every run is cut off.
VACUOUS = """
    int twice(int n) {
        int s = 0;
        int i = 0;
        while (i < n) {
            s = s + 2;
            i = i + 1;
        }
        return s;
    }
    int main(void) {
        int n = nondet_int();
        __CPROVER_assume(n >= 0 && n <= 3);
        assert(twice(n) == -2 * n);
        return 0;
    }
"""


def test_a_repair_that_only_the_bound_makes_correct_is_not_a_repair(tmp_path, capsys):
    path = write_c(tmp_path, VACUOUS)
    real = frozenset({(5, "+", "-")})
    vacuous = frozenset({(6, "+", "-")})
    # default: unwinding assertions, so the endless loop fails like any bug
    run = crepair.repair(path, level=1, max_size=1, unwind=4, timeout=None)
    repairs = [r for r in run]
    assert [changes_of(r) for r in repairs] == [real]
    assert repairs[0].evidence.unwinding_assertions and not repairs[0].vacuous
    assert run.bound.too_small is False  # the original program fits the bound
    # FM'16 semantics: both, the vacuous one labelled and ranked last
    run = crepair.repair(path, level=1, max_size=1, unwind=4, timeout=None, unwinding="assumptions")
    repairs = list(run)
    assert [changes_of(r) for r in repairs] == [real, vacuous]
    assert not repairs[0].vacuous and repairs[1].vacuous
    assert repairs[1].bound.too_small is True
    assert run.outcome == crepair.RepairOutcome.REPAIRED and run.found == 1
    main(["repair", str(path), "--level", "1", "--max-size", "1", "--unwind", "4", "--unwinding-assumptions"])
    out = capsys.readouterr().out
    assert out.count("VACUOUS") == 2  # the label and the warning of repair 2
    assert "vacuous repairs (not counted): 1" in out


def test_only_vacuous_repairs_are_no_repair_and_never_applied(tmp_path, capsys):
    # no level-1 mutation gives -3n; the endless loop passes vacuously
    path = write_c(tmp_path, VACUOUS.replace("-2 * n", "-3 * n"))
    before = path.read_bytes()
    assert not list(crepair.repair(path, level=1, max_size=1, unwind=4, timeout=None))
    run = crepair.repair(path, level=1, max_size=1, unwind=4, timeout=None, unwinding="assumptions")
    repairs = list(run)
    assert [changes_of(r) for r in repairs] == [frozenset({(6, "+", "-")})] and repairs[0].vacuous
    assert run.outcome == crepair.RepairOutcome.VACUOUS_ONLY
    code = main(["repair", str(path), "--max-size", "1", "--unwind", "4", "--unwinding-assumptions", "--apply", "--scheme", "mutation"])
    assert code == ExitCode.NO_REPAIR
    assert path.read_bytes() == before and not (tmp_path / "prog.c.orig").exists()
    err = capsys.readouterr().err
    assert "nothing applied" in err
