"""Test-driven repair end to end (f1x, TOSEM'18): the command line, its exit
codes (0 / 122 / 123 as f1x), the evidence of a plausible patch, the
baseline against partitioning, and the dependency-based relation."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from crepair import api
from crepair.frontend import load_program
from crepair.testequiv.deps import close, dependency_classes
from crepair.testequiv.space import build_space
from crepair.schemes.test_driven_options import AUTO_FLOOR_MS, auto_test_timeout

MAX = """\
#include <stdio.h>

int main(void) {
  int a, b;
  if (scanf("%d %d", &a, &b) != 2)
    return 1;
  if (a > b)
    printf("%d\\n", 0);
  else
    printf("%d\\n", 1);
  return 0;
}
"""

TESTS = {"pos1": ("1 2", "1"), "pos2": ("2 1", "0"), "neg1": ("2 2", "0")}


def project(tmp_path: Path, source: str = MAX, tests=TESTS) -> Path:
    (tmp_path / "prog.c").write_text(source)
    for name, (given, expected) in tests.items():
        (tmp_path / f"input-{name}").write_text(given + "\n")
        (tmp_path / f"output-{name}").write_text(expected + "\n")
    return tmp_path / "prog.c"


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from crepair.cli import main; sys.exit(main())",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_the_least_cost_plausible_patch_is_the_intended_one_and_nothing_is_touched(tmp_path):
    prog = project(tmp_path)
    before = digest(tmp_path)
    proc = crepair("repair", "prog.c", "--tests-dir", ".", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["outcome"] == "repaired" and out["tests"] == {"failing": ["neg1"], "passing": ["pos1", "pos2"]}
    first = out["repairs"][0]
    assert first["changes"][0]["replacement"] == "a >= b"
    edit = first["changes"][0]["edits"][0]
    assert (edit["old"], edit["new"]) == (">", ">=")
    assert first["evidence"] == {"kind": "tests", "plausible": True, "passed": 3, "total": 3, "vacuous": False,
                                 "text": "plausible: passes 3/3 tests"}
    assert "+  if (a >= b)" in first["diff"]
    assert digest(tmp_path) == before and prog.read_text() == MAX
    text = crepair("repair", "prog.c", "--tests-dir", ".", cwd=tmp_path).stdout
    assert "plausible: passes 3/3 tests" in text and "correct" not in text.replace("not that it is correct", "")


def test_no_failing_test_exits_123(tmp_path):
    project(tmp_path, tests={"pos1": ("1 2", "1"), "pos2": ("2 1", "0")})
    proc = crepair("repair", "prog.c", "--tests-dir", ".", cwd=tmp_path)
    assert proc.returncode == 123, proc.stdout + proc.stderr
    assert "no-failing-test" in proc.stdout


def test_no_patch_in_the_search_space_exits_122(tmp_path):
    source = '#include <stdio.h>\nint main(void) {\n  puts("hello");\n  return 0;\n}\n'
    project(tmp_path, source, tests={"neg1": ("", "world")})
    proc = crepair("repair", "prog.c", "--tests-dir", ".", "--json", cwd=tmp_path)
    assert proc.returncode == 122, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["outcome"] == "exhausted" and out["exploration"]["complete"] and out["repairs"] == []


def test_partitioning_loses_no_plausible_patch_and_needs_fewer_executions(tmp_path):
    prog = project(tmp_path)
    runs = {}
    for partition in (True, False):
        run = api.repair_tests(prog, tests_dir=tmp_path, partition=partition, all=True, timeout=None)
        runs[partition] = ([r.patched for r in run], run.stats)
    assert runs[True][0] == runs[False][0] and runs[True][0]
    assert runs[True][1].explored == runs[False][1].explored == runs[True][1].candidates
    assert runs[True][1].executions < runs[False][1].executions
    assert runs[False][1].executions >= runs[False][1].explored  # the baseline runs every candidate at least once


def test_bad_test_options_are_usage_errors(tmp_path):
    project(tmp_path)
    assert crepair("repair", "prog.c", "--tests-dir", ".", "--level", "2", cwd=tmp_path).returncode == 2
    assert crepair("repair", "prog.c", "--no-partition", cwd=tmp_path).returncode == 2
    assert crepair("repair", "prog.c", "--tests-dir", "missing", cwd=tmp_path).returncode == 2
    spectrum = ("localize", "prog.c", "--method", "spectrum", "--tests-dir", ".")
    assert crepair(*spectrum, "--unwind", "3", cwd=tmp_path).returncode == 2
    assert crepair(*spectrum, "--timeout", "5", cwd=tmp_path).returncode == 2
    assert crepair(*spectrum, cwd=tmp_path).returncode == 0


STRAIGHT = textwrap.dedent("""\
    #include <stdio.h>
    int main(void) {
      int x = 0, y = 2, z = 5;
      z = z + 1;
      z = z * 2;
      y = y + 1;
      printf("%d %d\\n", x + y, z);
      return 0;
    }
    """)


def test_dependency_based_classes_join_insertions_nothing_in_between_can_tell_apart(tmp_path):
    path = tmp_path / "s.c"
    path.write_text(STRAIGHT)
    program = load_program(path, real_c=True)
    space = build_space(program)
    deps = dependency_classes(program, space)
    line = {c.id: space.sites[c.site].span.line for c in space.candidates}
    x_eq_y = {line[c.id]: c.id for c in space.candidates if (c.lhs, c.code) == ("x", "y")}
    # x = y; before line 4, 5 or 6: z's statements and y = y + 1 (run after the insertion) cannot tell
    assert {line[i] for i in deps[x_eq_y[4]]} == {4, 5, 6}
    # printf reads x (a call, "*"): the insertion before line 7 is a class of its own
    assert not ({line[i] for i in deps.get(x_eq_y[7], {x_eq_y[7]})} & {4, 5, 6})
    # y = z; cannot move past z = z * 2 (it writes z)
    y_eq_z = {line[c.id]: c.id for c in space.candidates if (c.lhs, c.code) == ("y", "z")}
    if 4 in y_eq_z and 5 in y_eq_z:
        assert y_eq_z[5] not in deps.get(y_eq_z[4], frozenset())
    assert close({x_eq_y[4]}, deps) == deps[x_eq_y[4]]


@pytest.mark.parametrize("partition", [True, False])
def test_dependency_classes_agree_with_running_each_insertion(tmp_path, partition):
    """Every member of a dependency class behaves as its representative on a
    test that prints every variable."""
    src = STRAIGHT.replace('printf("%d %d\\n", x + y, z);', 'printf("%d %d %d\\n", x, y, z);')
    prog = project(tmp_path, src, tests={"neg1": ("", "2 3 12")})
    run = api.repair_tests(prog, tests_dir=tmp_path, partition=partition, all=True, timeout=None)
    found = {r.patched for r in run}
    assert any("x = y;" in p or "x = 2;" in p for p in found)
    program = load_program(prog, real_c=True)
    space = build_space(program)
    deps = dependency_classes(program, space)
    by_text = {c.id: space.sites[c.site].span.start for c in space.candidates}
    for cls in {frozenset(v) for v in deps.values()}:
        patched = {_patch(program.original, space, i) for i in cls}
        assert len({p in found for p in patched}) == 1, (cls, by_text)


def _patch(original: str, space, cid: int) -> str:
    c = space.candidates[cid]
    s = space.sites[c.site]
    return original[:s.span.start] + c.replacement + original[s.span.end:]


def test_candidates_at_sites_a_passing_test_never_reaches_pass_it_without_a_run(tmp_path):
    prog = project(tmp_path)
    run = api.repair_tests(prog, tests_dir=tmp_path, all=True, timeout=None)
    sites = run.space.sites
    lines_of = {t: {sites[run.space.candidates[i].site].span.line for i in ids} for t, ids in run.unexecuted.items()}
    # the sites are on the lines neg1 (2 2, else branch) runs: 5, 7, 10, 11; pos1 (1 2) runs them all,
    # pos2 (2 1) takes the then branch and never reaches line 10
    assert lines_of["pos1"] == set() and lines_of["pos2"] == {10}
    assert "neg1" not in run.unexecuted  # failing tests are always run
    patched = [r.patched for r in run]
    baseline = [r.patched for r in api.repair_tests(prog, tests_dir=tmp_path, all=True, timeout=None, partition=False)]
    assert patched == baseline


def test_auto_test_timeout_scales_with_the_original_and_is_bounded():
    assert auto_test_timeout([0.001, 0.002], 1000) == AUTO_FLOOR_MS == 50  # 20 x 2 ms = 40 ms: the floor
    assert auto_test_timeout([0.010, 0.020], 1000) == 400  # 20 x the slowest
    assert auto_test_timeout([0.2], 1000) == 1000  # never above the limit the original ran under
    assert auto_test_timeout([0.2], 50) == 50
    assert auto_test_timeout([], 1000) == 50


def test_the_per_test_limit_is_auto_unless_given_and_is_reported(tmp_path):
    prog = project(tmp_path)
    out = json.loads(crepair("repair", "prog.c", "--tests-dir", ".", "--json", cwd=tmp_path).stdout)
    assert out["options"]["test_timeout_auto"] is True and AUTO_FLOOR_MS <= out["options"]["test_timeout_ms"] <= 1000
    given = json.loads(crepair("repair", "prog.c", "--tests-dir", ".", "--json", "--test-timeout", "700",
                               cwd=tmp_path).stdout)
    assert given["options"]["test_timeout_auto"] is False and given["options"]["test_timeout_ms"] == 700
    text = crepair("repair", "prog.c", "--tests-dir", ".", cwd=tmp_path).stdout
    assert "ms (auto)" in text.splitlines()[0]
    run = api.repair_tests(prog, tests_dir=tmp_path, test_timeout_ms=300)
    assert run.test_timeout == 300


def test_the_summary_counts_agree_with_the_patches_reported():
    # Issue 25: "1 plausible patch" beside "2 plausible": the exploration's
    # count is of candidates; the summary says why it differs.
    from types import SimpleNamespace

    from crepair.records import RepairOutcome
    from crepair.report.test_driven import render_summary

    stats = SimpleNamespace(explored=10, candidates=20, executions=5, ratio=2.0, partitions=5, plausible=2,
                            rejected=1)
    run = SimpleNamespace(stats=stats, outcome=RepairOutcome.REPAIRED, found=1, seconds=1.0, reason="")
    text = render_summary(run)
    assert "(1 plausible patch;" in text
    assert "2 candidates passed every test (1 reported as a plausible patch; 1 failed when built alone)" in text
    assert ", 2 plausible," not in text
    stats.plausible, stats.rejected = 1, 0
    assert "1 candidate passed every test, 1.0 s" in render_summary(run)


VOLUME = """\
#include <stdio.h>

int main(void) {
  int v, d, k;
  if (scanf("%d %d %d", &v, &d, &k) != 3)
    return 1;
  while (k-- > 0)
    v -= d;
  printf("%d\\n", v);
  return 0;
}
"""


def test_a_compound_assignment_of_the_wrong_sign_is_one_operator_change(tmp_path):
    """Codeflaws 534-B's fault (``v2 -= d`` for ``v2 += d``): the operator
    of an assignment is a site (crepair.testequiv.assignops), and the
    meta-program runs the changed statement in place of the original."""
    project(tmp_path, VOLUME, tests={"pos1": ("5 0 3", "5"), "neg1": ("1 2 3", "7"), "neg2": ("4 1 1", "5")})
    proc = crepair("repair", "prog.c", "--tests-dir", ".", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = json.loads(proc.stdout)["repairs"][0]
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [("v -= d;", "v += d;")]
    assert first["diff"].count("+    v += d;") == 1
