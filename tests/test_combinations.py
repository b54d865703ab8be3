"""Every repair scheme with every kind of specification, as a user types
it: each pair runs to a documented outcome, or is one usage line with
exit code 2; never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAP = ROOT / "tests" / "data" / "heap"

PROGRAM = r"""#include <stdio.h>
#include <assert.h>
int largest(int a, int b, int c) {
    int m = a > b ? a : b;
    return c > m ? c : m;
}
int main(void) {
    int a, b, c, m;
    if (scanf("%d%d%d", &a, &b, &c) != 3)
        return 0;
    m = largest(a, b, c);
    assert(m >= a && m >= b && m >= c);
    printf("%d\n", a);
    return 0;
}
"""
MODEL = PROGRAM.replace('printf("%d\\n", a)', 'printf("%d\\n", m)')
DRIVER = """#!/bin/sh
case "$1" in
  t1) echo "1 2 3" | ./prog | grep -qx 3 ;;
  t2) echo "3 1 2" | ./prog | grep -qx 3 ;;
esac
"""

SPECS = {
    "assertions": [],
    "reference": ["--reference", "model.c"],
    "tests-dir": ["--tests-dir", "tests"],
    "reference+tests": ["--reference", "model.c", "--tests-dir", "tests"],
    "driver": ["--tests", "./driver.sh", "--test-ids", "t1", "t2"],
    "states": ["--states", "fig2_states.json"],
    "states-from": ["--states-from", "correct.c", "--checkpoints", "reverse"],
}
SCHEMES = {"default": [], "mutation": ["--scheme", "mutation"], "template": ["--scheme", "template"],
           "test-driven": ["--scheme", "test-driven"], "heap": ["--scheme", "heap"]}
#: the documented exit codes of a run that ran (README: exit codes)
OUTCOMES = {0, 1, 4, 5, 6, 8, 122, 123}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("combinations")
    (d / "prog.c").write_text(PROGRAM)
    (d / "model.c").write_text(MODEL)
    (d / "tests").mkdir()
    for name, given, expected in (("t1", "1 2 3\n", "3\n"), ("t2", "3 1 2\n", "3\n")):
        (d / "tests" / f"{name}.in").write_text(given)
        (d / "tests" / f"{name}.out").write_text(expected)
    (d / "driver.sh").write_text(DRIVER)
    (d / "driver.sh").chmod(0o755)
    shutil.copy(HEAP / "fig2_states.json", d)
    shutil.copy(HEAP / "fig1_reverse.c", d / "correct.c")
    return d


@pytest.mark.parametrize("spec", list(SPECS))
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_a_scheme_with_a_specification_runs_or_is_one_usage_line(folder, scheme, spec):
    program = "correct.c" if spec.startswith("states") else "prog.c"
    argv = [sys.executable, "-m", "crepair.cli", "repair", program, *SCHEMES[scheme], *SPECS[spec],
            "--timeout", "10", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=300, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 2:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("crepair: "), done.stderr
    else:
        assert done.returncode in OUTCOMES, (done.returncode, done.stdout, done.stderr)
        assert "outcome:" in done.stdout or "repaired" in done.stdout or "repair" in done.stdout, done.stdout
