"""A staged run builds every candidate with ``main`` called on a dirtied
stack, as the reference's answers are valid under: a submission that reads
a local before writing it passes its tests on a fresh stack (zeros) by
chance, and fails them on a judge's machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from crepair.oracle.reference import compile_c, dirty_stack_flags, run_binary
from test_staged import course

SRC = Path(__file__).resolve().parents[1] / "src"

MODEL = r"""#include <stdio.h>
int main(void) {
    int n, i, v, sum = 0;
    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &v);
        sum += v;
    }
    printf("%d\n", sum);
    return 0;
}
"""

# the sum of n numbers, never set to 0 first; main's large buffer puts
# total's frame 20 KB down the stack, on pages nothing touched before the
# program: on a fresh stack they hold zeros and every test passes by chance
# (a course's submission passes the same way with its locals where the
# loader left zeros)
UNINITIALIZED = r"""#include <stdio.h>
int total(void) {
    int n, i, v, sum;
    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &v);
        sum += v;
    }
    return sum;
}
int main(void) {
    char line[20000];
    sprintf(line, "%d", total());
    puts(line);
    return 0;
}
"""

TESTS = {"t0": ("3\n1 2 3\n", "6\n"), "t1": ("2\n7 5\n", "12\n"), "t2": ("4\n4 9 2 6\n", "21\n")}


def _outputs(folder: Path, flags: tuple[str, ...]) -> list[bytes]:
    assert compile_c(folder / "sub.c", folder / "sub", flags) is None
    return [run_binary(folder / "sub", given.encode(), timeout=5).output for given, _ in TESTS.values()]


def test_a_dirtied_stack_shows_the_local_read_before_it_is_written(tmp_path):
    course(tmp_path, UNINITIALIZED, TESTS, MODEL)
    expected = [want.encode() for _, want in TESTS.values()]
    assert _outputs(tmp_path, ()) == expected  # a fresh stack's zeros: every test passes by chance
    flags = dirty_stack_flags(tmp_path)
    assert flags and flags[0] == "-Dmain=crepair_user_main"
    assert _outputs(tmp_path, flags) != expected  # what the judge's machine may hold there


def test_the_staged_run_repairs_a_submission_that_passes_its_tests_by_chance(tmp_path):
    course(tmp_path, UNINITIALIZED, TESTS, MODEL)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-m", "crepair", "repair", "sub.c", "--reference", "model.c",
                           "--tests-dir", "tests", "--compare", "exact", "--json", "--timeout", "300", "--apply"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # not "no failing test"
    first = json.loads(proc.stdout)["repairs"][0]
    assert first["evidence_level"] in ("proof", "tests")
    assert any("sum" in c["replacement"] and "0" in c["replacement"] for c in first["changes"])  # sum set first
    assert (tmp_path / "sub.c").read_text() != UNINITIALIZED  # applied, the original kept as a backup
    assert _outputs(tmp_path, dirty_stack_flags(tmp_path)) == [want.encode() for _, want in TESTS.values()]
