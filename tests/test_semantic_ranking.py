"""Semantic distance ranking and the diversity check of test-driven repair
(QLOSE, CAV'16, on f1x's search; crepair issue 29, items 2 and 3): the
distance and ranking rules on records, and end to end on small programs
of the shapes of Codeflaws 110-A (a membership constant changed to fit
the tests) and 109-D (a loop bound replaced by a constant)."""

from __future__ import annotations

import doctest
import html
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from crepair.records import Change, PassesTests, Repair, Scheme
from crepair.schemes import patch_prior
from crepair.schemes import semantic_ranking as sr
from crepair.schemes.patch_prior import choices
from crepair.schemes.semantic_ranking import Ranked, alternatives, ranked
from crepair.testequiv import distance as dist
from crepair.testequiv.distance import Behaviour, Probe
from crepair.testsuite import load_tests


def _repair(tag: str) -> Repair:
    return Repair(Scheme.TEST_DRIVEN, (), tag, tag, 0.0, PassesTests(1, 1))


def _ranked(order: int, cost: int, differ: int | None, outputs=()) -> Ranked:
    d = None if differ is None else dist.Distance(differ, 10)
    return Ranked(_repair(str(order)), order, cost, Behaviour(tuple(outputs)) if outputs else None, d)


def test_ranked_prefers_least_distance_among_similar_cost_only():
    pool = [_ranked(0, 8, 5), _ranked(1, 8, 1), _ranked(2, 8 + sr.COST_SLACK + 1, 0), _ranked(3, 10, 1)]
    # costs 8..8+COST_SLACK form the band while order 0 (cost 8) is left: distance 1 (orders 1 and 3, the
    # earlier first), then order 0's 5; the patch of distance 0 costs more than the slack above 8 and comes last
    assert [r.order for r in ranked(pool)] == [1, 3, 0, 2]


def test_a_guard_of_small_distance_outranks_a_cheaper_variable_swap():
    # Codeflaws 638-A's shape: 'i<n/2' -> 'i<n/a' (a variable swapped in, cost 0.8, distance 41) against
    # 'if (a < n) time++;' (a guard, cost 4, distance 16, two values chosen): the guard is within the band
    swap = Ranked(_repair("swap"), 0, 8, None, dist.Distance(41, 205), 1)
    guard = Ranked(_repair("guard"), 1, 48, None, dist.Distance(16, 205), 2)
    assert guard.score < swap.score and [r.order for r in ranked([swap, guard])] == [1, 0]


def _changed(order: int, before: str, after: str, differ: int, compared: int = 200) -> Ranked:
    rep = SimpleNamespace(changes=(SimpleNamespace(before=before, after=after),))
    return Ranked(_repair(after), order, 10, None, dist.Distance(differ, compared), choices(rep))


def test_a_chosen_value_weighs_a_tenth_of_the_compared_inputs():
    # Codeflaws 80-A's shape: every patch agrees with the original on all the inputs; the loop bound's
    # constant picked to fit the tests (found first) ranks below the operator change
    pool = [_changed(0, "i<50", "i<49", 0), _changed(1, "i<50", "i<=50", 0), _changed(2, "i<50", "i<51", 0)]
    assert [r.choices for r in pool] == [1, 0, 1]
    assert [r.order for r in ranked(pool)] == [1, 0, 2]
    # 592-A's: a variable put in (distance 8) against an operator change (distance 11): 8 + 20 > 11
    pool = [_changed(0, "currI+1", "result+1", 8), _changed(1, "movesA < movesB", "movesA <= movesB", 11)]
    assert ranked(pool)[0].order == 1 and pool[1].score == 11
    # 246-A's: the operator change differs on almost half the inputs; the constant's patch on one
    pool = [_changed(0, "n==1", "n>=1", 97), _changed(1, "n==1", "n < 3", 1)]
    assert ranked(pool)[0].order == 1 and pool[1].score == 1 + 0.1 * 200


def test_choices_count_the_identifiers_and_literals_a_change_puts_in():
    def count(*pairs: tuple[str, str]) -> int:
        return choices(SimpleNamespace(changes=tuple(SimpleNamespace(before=b, after=a) for b, a in pairs)))

    assert count(("a > b", "a < b"), ("x!=s-1", "x!=s")) == 0  # operators; a deletion
    assert count(("a<b", "b<a")) == 0  # the same values, moved
    assert count(("m>x", "m>i")) == 1 and count(('"second"', '"Second"')) == 1
    assert count(("sum=1;", "if (i >= x) sum=1;")) == 2  # a guard: two variables, the keyword not counted
    assert count(("i<n-1", "i<n-1 && n < 3"), ("0", "-1")) == 3  # over every change
    doctests = doctest.testmod(patch_prior)
    assert doctests.attempted == 4 and doctests.failed == 0


def test_unmeasured_patches_keep_the_search_order_after_measured_ones():
    pool = [_ranked(0, 8, None), _ranked(1, 8, 3), _ranked(2, 8, None)]
    assert [r.order for r in ranked(pool)] == [1, 0, 2]


def _probe(original: list[bytes | None], table: dict[str, list[bytes | None]]) -> Probe:
    inputs = tuple(f"{i}\n".encode() for i in range(len(original)))

    def run(stdin: bytes, env) -> bytes | None:
        return table[env["who"]][int(stdin)]

    return Probe(inputs, len(inputs), run, Behaviour(tuple(original)))


def test_distance_counts_differing_outputs_and_skips_inputs_the_original_crashes_on():
    probe = _probe([b"1", None, b"3", b"4"], {"p": [b"1", b"x", b"0", None]})
    b = probe.behaviour({"who": "p"})
    assert b.outputs == (b"1", None, b"0", None)  # input 1 is not run: the original crashed there
    assert probe.distance(b) == dist.Distance(differ=2, compared=3)


def test_a_patch_that_keeps_crashing_is_not_run_on_the_rest(monkeypatch):
    monkeypatch.setattr(dist, "GIVE_UP", 2)
    calls = []

    def run(stdin: bytes, env) -> bytes | None:
        calls.append(stdin)
        return None

    probe = Probe((b"a", b"b", b"c", b"d"), 4, run, Behaviour((b"1", b"2", b"3", b"4")))
    assert probe.distance(probe.behaviour({})) == dist.Distance(4, 4)
    assert len(calls) == 2


def test_alternatives_count_patches_that_disagree_with_the_first_somewhere():
    probe = _probe([b"1", b"2"], {})
    first = _ranked(0, 8, 0, [b"1", b"2"])
    same, other, unmeasured = _ranked(1, 8, 0, [b"1", b"2"]), _ranked(2, 8, 1, [b"1", b"9"]), _ranked(3, 8, None)
    assert alternatives(probe, first, [same, other, unmeasured]) == 1
    assert alternatives(None, first, [other]) == 0


def test_agreeing_counts_the_pool_patches_behaving_alike_on_every_compared_input():
    probe = _probe([b"1", None, b"3"], {})  # input 1 is not compared: the original crashed there
    a = _ranked(0, 8, 1, [b"1", b"x", b"0"])
    twin = _ranked(1, 8, 1, [b"1", b"y", b"0"])  # differs from a only where nothing is compared
    other, unmeasured = _ranked(2, 8, 0, [b"1", b"x", b"3"]), _ranked(3, 8, None)
    pool = [a, twin, other, unmeasured]
    assert [sr.agreeing(probe, x, pool) for x in pool] == [2, 2, 1, 0]
    assert sr.agreeing(None, a, pool) == 0


def test_the_probe_mutates_the_passing_tests_only_and_needs_folder_tests(tmp_path):
    (tmp_path / "p.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "input-pos1").write_bytes(b"5 6\n")
    (tmp_path / "output-pos1").write_bytes(b"x\n")
    (tmp_path / "input-neg1").write_bytes(b"100000 200000\n")
    (tmp_path / "output-neg1").write_bytes(b"y\n")
    spec = load_tests(tmp_path / "p.c", tests_dir=tmp_path)
    probe = Probe.of(spec, ["pos1"], lambda x, env: x, {}, count=30)
    assert probe.inputs[0] == b"5 6\n" and probe.generated == len(probe.inputs) - 1 > 10
    assert all(len(x) < 12 for x in probe.inputs)  # no mutant of the failing test's large numbers
    assert Probe.of(spec, [], lambda x, env: x, {}) is None  # nothing near which the original is presumed right


# --- end to end ---------------------------------------------------------------------------------------------

# Codeflaws 110-A's shape: lucky digits (4 and 7) counted, the count tested for membership in {4, 7}.
# The bug: the loop stops before the leading digit (x > 10 instead of x > 0).  With these tests, cost order
# first proposes x % 10 -> x % 6 (line 9), and changing the membership constant c == 4 -> c == 3 (line 14,
# 110-A's overfitting patch) fits the tests too; both change the answers on many inputs near the passing tests.
LUCKY = """\
#include <stdio.h>

int main(void)
{
\tlong long x;
\tint c = 0;
\tscanf("%lld", &x);
\twhile (x > 10) {
\t\tint d = x % 10;
\t\tif (d == 4 || d == 7)
\t\t\tc++;
\t\tx = x / 10;
\t}
\tif (c == 4 || c == 7)
\t\tprintf("YES\\n");
\telse
\t\tprintf("NO\\n");
\treturn 0;
}
"""
LUCKY_TESTS = {"neg1": ("4744000695826", "YES"), "pos1": ("40047", "NO"), "pos2": ("1000000000000000000", "NO"),
               "pos3": ("7", "NO"), "pos4": ("4", "NO"), "pos5": ("123", "NO")}

# Codeflaws 109-D's shape: a sortedness check whose comparison is wrong (never breaks on these tests);
# for(i=0;i<n-1;i++) -> i<1 fits them (every unsorted test is longer than two).
SORTED = """\
#include <stdio.h>

int a[1000];

int main(void)
{
\tint n, i;
\tscanf("%d", &n);
\tfor (i = 0; i < n; i++)
\t\tscanf("%d", &a[i]);
\tfor (i = 0; i < n - 1; i++)
\t\tif (a[i] > a[i + 1] + 100)
\t\t\tbreak;
\tif (i >= n - 1)
\t\tprintf("YES\\n");
\telse
\t\tprintf("NO\\n");
\treturn 0;
}
"""
SORTED_TESTS = {"neg1": ("3\n4 2 1", "NO"), "neg2": ("7\n77 66 55 44 33 22 11", "NO"), "pos1": ("2\n4 7", "YES"),
                "pos2": ("1\n5", "YES")}


def _project(folder: Path, name: str, source: str, tests: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(source)
    for t, (given, expected) in tests.items():
        (folder / f"input-{t}").write_text(given + "\n")
        (folder / f"output-{t}").write_text(expected + "\n")
    return folder


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from crepair.cli import main; sys.exit(main())",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=400)


def _changes(data: dict) -> list[tuple[int, str]]:
    return [(r["changes"][0]["location"]["line"], r["changes"][0]["replacement"]) for r in data["repairs"]]


@pytest.fixture(scope="module")
def lucky(tmp_path_factory) -> Path:
    return _project(tmp_path_factory.mktemp("lucky"), "lucky.c", LUCKY, LUCKY_TESTS)


def test_110a_shape_distance_reports_the_fix_where_cost_order_reports_an_overfitting_patch(lucky):
    common = ("repair", "lucky.c", "--tests-dir", ".", "--lines", "8,9,14", "--anti-patterns", "none",
              "--timeout", "60", "--json")
    by_cost = crepair(*common, "--rank", "cost", cwd=lucky)
    assert by_cost.returncode == 0, by_cost.stderr
    cost = json.loads(by_cost.stdout)
    assert _changes(cost)[0] == (9, "x % 6")  # f1x's least-cost patch: overfits
    assert cost["repairs"][0]["distance"] is None and cost["semantic_ranking"] == {}

    by_distance = crepair(*common, "--html", "report.html", cwd=lucky)
    assert by_distance.returncode == 0, by_distance.stderr
    data = json.loads(by_distance.stdout)
    first = data["repairs"][0]["changes"][0]["replacement"]
    shown = html.unescape(re.sub(r"<[^>]+>", "", (lucky / "report.html").read_text()))
    assert first in " ".join(shown.split())  # the JSON's keys do not clash with the HTML's
    assert data["options"]["rank"] == "distance"
    # the loop condition (the accepted fix's location) is changed, not the digit's modulus; which change of it
    # comes first depends on the generated inputs: 'x > 0' (the fix) and 'x > c' (wrong only when a run of
    # lucky digits is longer than the digit before it) differ from the original on 3 and 2 in-domain inputs
    assert len(_changes(data)) == 1 and _changes(data)[0][0] == 8 and _changes(data)[0] != (9, "x % 6")
    assert data["repairs"][0]["distance"] <= 3 and data["repairs"][0]["distance_inputs"] > 100
    r = data["semantic_ranking"]
    assert r["moved"] and r["considered"] > 1 and r["alternatives"] >= 1 and r["generated"] == dist.GENERATED
    # every measured patch either behaves as the first (agree, the first included) or is an alternative
    assert data["repairs"][0]["agree"] + r["alternatives"] == r["measured"]
    assert 0 < data["repairs"][0]["cost"] <= 10  # one node of the condition changed (f1x's cost, tenths)


def test_110a_shape_the_membership_constant_change_is_ranked_below_the_fix_with_all(lucky):
    proc = crepair("repair", "lucky.c", "--tests-dir", ".", "--lines", "8,14", "--anti-patterns", "none",
                   "--timeout", "90", "--all", cwd=lucky)
    assert proc.returncode == 0, proc.stderr
    heads = [line for line in proc.stdout.splitlines() if line.startswith("patch ")]
    changes = [line.strip() for line in proc.stdout.splitlines() if line.startswith("  lucky.c:")]
    assert changes[0].startswith("lucky.c:8: 10 -> ") and "lucky.c:8: 10 -> 0" in changes  # the loop condition
    overfit = changes.index("lucky.c:14: 4 -> 3")
    assert overfit > 0
    far = [int(h.split("distance ")[1].split(":")[0]) for h in heads]
    assert far[0] < far[overfit]
    assert "warning: the tests underdetermine the fix: " in proc.stdout
    assert " behave differently on generated inputs" in proc.stdout


def test_109d_shape_the_loop_bound_constant_is_rejected_by_default_and_proposed_without_anti_patterns(tmp_path):
    folder = _project(tmp_path, "sorted.c", SORTED, SORTED_TESTS)
    common = ("repair", "sorted.c", "--tests-dir", ".", "--lines", "11,12", "--timeout", "60", "--all", "--json")
    default = json.loads(crepair(*common, cwd=folder).stdout)
    assert (11, "i < 1") not in _changes(default)
    assert default["space"]["anti_patterns"]["C1"] >= 1
    assert _changes(default)[0][0] == 12  # the comparison is what changes
    bare = json.loads(crepair(*common, "--anti-patterns", "none", cwd=folder).stdout)
    assert (11, "i < 1") in _changes(bare)


def test_rank_is_a_test_driven_option_only(tmp_path):
    (tmp_path / "p.c").write_text("int main(void) { return 0; }\n")
    proc = crepair("repair", "p.c", "--rank", "cost", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--rank: used by test-driven repair only" in proc.stderr


def test_the_summary_says_how_the_patches_were_ranked_and_warns_about_alternatives():
    from types import SimpleNamespace

    from crepair.records import RepairOutcome
    from crepair.report.test_driven import render_summary

    ranking = {"inputs": 205, "generated": 200, "compared": 203, "rule": "distance", "considered": 4,
               "alternatives": 1, "moved": True, "ended": "cost above 18"}
    stats = SimpleNamespace(explored=10, candidates=20, executions=5, ratio=2.0, partitions=5, plausible=4,
                            rejected=0, ranking=ranking)
    run = SimpleNamespace(stats=stats, outcome=RepairOutcome.REPAIRED, found=1, seconds=1.0, reason="")
    text = render_summary(run)
    assert "4 candidates passed every test (1 reported as a plausible patch; 3 ranked below by semantic distance)" \
        in text
    assert ("ranking: semantic distance from the original on 205 inputs (the passing tests' and 200 mutated from "
            "them; 2 skipped: the original crashed or timed out), 4 plausible patches compared (cost above 18); "
            "the cost order's first patch was ranked lower") in text
    assert text.endswith("warning: the tests underdetermine the fix: 1 alternative behaves differently on "
                         "generated inputs")
    stats.ranking = {"note": "cost order: no passing test to compare near"}
    assert render_summary(run).endswith("ranking: cost order: no passing test to compare near")
