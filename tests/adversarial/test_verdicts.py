"""Verdicts within the bound (issue 26, items 1-3): what the user is told
when the unwinding bound cuts runs, run the way people call the tool (from
the program's folder, relative path, stdout to a pipe)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def crepair(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``crepair args...`` run from ``folder``."""
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTHONHASHSEED="0")
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout)


def write(folder: Path, name: str, source: str) -> str:
    (folder / name).write_text(textwrap.dedent(source).lstrip("\n"))
    return name


# ---------------------------------------------------------------- item 1
# A violation within the bound must not be hidden by the unwinding
# assumption of a loop exit that comes after it on the same run.

LOOP_PAST_BOUND = "int main(void){ int i = 0; while (i <= 8) { assert(i != 2); i = i + 1; } return 0; }\n"


def test_assertion_in_iteration_3_of_a_loop_cut_at_8_is_violated(tmp_path):
    name = write(tmp_path, "loop.c", LOOP_PAST_BOUND)
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "assertion violated: loop.c:1: assert(i != 2)" in done.stdout
    done = crepair(tmp_path, "verify", "--json", name)
    assert json.loads(done.stdout)["outcome"] == "violated"


OOB_IN_ITERATION_8 = """
    int main(void) {
        int a[7] = {0};
        int s = 0;
        int i = 0;
        while (i < 100) {
            s += a[i];
            i = i + 1;
        }
        return s;
    }
"""


def test_out_of_bounds_read_in_iteration_8_of_a_loop_cut_at_8_is_violated(tmp_path):
    name = write(tmp_path, "oob.c", OOB_IN_ITERATION_8)
    done = crepair(tmp_path, "verify", "--unwind", "8", name)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "oob.c:6:14: array index out of bounds: a[7] (size 7)" in done.stdout


def test_assumption_after_an_assertion_does_not_hide_its_failure(tmp_path):
    name = write(tmp_path, "after.c", """
        int main(void) {
            int x = nondet_int();
            assert(x != 5);
            __CPROVER_assume(x != 5);
            return 0;
        }
    """)
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "nondet_int()                 = 5" in done.stdout


def test_abort_after_an_assertion_does_not_hide_its_failure(tmp_path):
    name = write(tmp_path, "abort.c", """
        #include <stdlib.h>
        int main(void) {
            int x = nondet_int();
            assert(x != 5);
            if (x == 5)
                abort();
            return 0;
        }
    """)
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 1, done.stdout + done.stderr


def test_assumption_before_an_assertion_still_binds_it(tmp_path):
    name = write(tmp_path, "before.c", """
        int main(void) {
            int x = nondet_int();
            __CPROVER_assume(x != 5);
            assert(x != 5);
            int i = 0;
            while (i < 3) { assert(i != 7); i = i + 1; }
            return 0;
        }
    """)
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 0, done.stdout + done.stderr


STEP_DOWN = """
    int step(int i) { return i - 1; }
    int main(void) {
        int i = 0;
        while (i < 3) {
            assert(i >= 0);
            i = step(i);
        }
        return 0;
    }
"""


def test_repair_searches_when_the_violating_run_later_goes_past_the_bound(tmp_path):
    name = write(tmp_path, "step.c", STEP_DOWN)
    done = crepair(tmp_path, "repair", name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the original program: assertion violated: step.c:5: assert(i >= 0)" in done.stdout
    assert "i - 1  =>  i + 1" in done.stdout

