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


# ---------------------------------------------------------------- item 2
# "No assertion fails within the bound, but the bound cuts off runs" is its
# own outcome everywhere, matching exit 8: never "verified".

UNBOUNDED = """
    int main(void) {
        int n = nondet_int();
        int i = 0;
        while (i < n)
            i = i + 1;
        assert(i >= 0);
        return 0;
    }
"""


def test_verify_bound_too_small_is_its_own_outcome_in_text_json_html(tmp_path):
    name = write(tmp_path, "unbounded.c", UNBOUNDED)
    done = crepair(tmp_path, "verify", "--unwind", "3", name)
    assert done.returncode == 8
    assert done.stdout.startswith("no assertion violated within unwinding bound 3, but NOT verified")
    done = crepair(tmp_path, "verify", "--unwind", "3", "--json", "--html", "r.html", name)
    assert done.returncode == 8
    report = json.loads(done.stdout)
    assert report["outcome"] == "bound-too-small" and report["bound"]["too_small"] is True
    html = (tmp_path / "r.html").read_text()
    assert "bound-too-small" in html and ">verified<" not in html


def test_verify_api_outcome_is_bound_too_small(tmp_path):
    import crepair as api

    result = api.verify(tmp_path / write(tmp_path, "unbounded.c", UNBOUNDED), unwind=3)
    assert result.outcome == api.VerifyOutcome.BOUND_TOO_SMALL
    assert api.VerifyOutcome("bound-too-small") is api.VerifyOutcome.BOUND_TOO_SMALL


def test_batch_verify_counts_bound_too_small_not_verified(tmp_path):
    progs = tmp_path / "progs"
    progs.mkdir()
    write(progs, "unbounded.c", UNBOUNDED)
    write(progs, "fits.c", "int main(void) { int i = 0; while (i < 2) i = i + 1; assert(i == 2); return 0; }\n")
    done = crepair(tmp_path, "batch", "progs", "--command", "verify", "--options", "--unwind 3",
                   "-o", "out.jsonl", "--quiet")
    records = {json.loads(line)["id"]: json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()}
    outcomes = sorted((r["program"].split("/")[-1], r["outcome"], r["exit_code"]) for r in records.values())
    assert outcomes == [("fits.c", "verified", 0), ("unbounded.c", "bound-too-small", 8)], done.stdout + done.stderr


def test_localize_bound_too_small_is_its_own_outcome(tmp_path):
    name = write(tmp_path, "unbounded.c", UNBOUNDED)
    done = crepair(tmp_path, "localize", "--unwind", "3", "--json", name)
    assert done.returncode == 8
    assert json.loads(done.stdout)["outcome"] == "bound-too-small"


# ---------------------------------------------------------------- item 3
# When the specification's own loop runs as often as an unconstrained input
# says, every candidate fails the unwinding assertions: the truth is "bound
# too small", not "no repair"; the candidates correct within the bound are
# listed as VACUOUS, never counted nor applied.

SPEC_LOOP_UNBOUNDED = """
    int inc(int s) { return s + 2; }
    int main(void) {
        int n = nondet_int();
        int i = 0;
        int s = 0;
        while (i < n) {
            s = inc(s);
            i = i + 1;
        }
        assert(s == n || n < 0);
        return 0;
    }
"""


def test_repair_says_bound_too_small_when_the_specification_loop_is_unbounded(tmp_path):
    name = write(tmp_path, "count.c", SPEC_LOOP_UNBOUNDED)
    done = crepair(tmp_path, "repair", name, "--apply")
    assert done.returncode == 8, done.stdout + done.stderr
    assert "s + 2  =>  s + 1" in done.stdout and "VACUOUS" in done.stdout
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("overall outcome: bound-too-small (0 repairs): no "), last
    assert "can prove a repair" in last or "can be proved" in last
    assert "loop at count.c:6:5" in last
    assert "nothing applied" in done.stderr
    assert (tmp_path / name).read_text().startswith("int inc(int s) { return s + 2; }")


def test_repair_json_bound_too_small_lists_vacuous_repairs(tmp_path):
    name = write(tmp_path, "count.c", SPEC_LOOP_UNBOUNDED)
    done = crepair(tmp_path, "repair", name, "--level", "2", "--json")
    assert done.returncode == 8, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "bound-too-small" and "loop at count.c:6:5" in report["reason"]
    assert report["repairs"] and all(r["evidence"]["vacuous"] for r in report["repairs"])


def test_repair_names_the_bound_that_would_prove_the_candidates(tmp_path):
    name = write(tmp_path, "count12.c", SPEC_LOOP_UNBOUNDED.replace(
        "int n = nondet_int();", "int n = nondet_int();\n        __CPROVER_assume(n <= 12);"))
    done = crepair(tmp_path, "repair", name, "--level", "2")
    assert done.returncode == 8, done.stdout + done.stderr
    assert "s + 2  =>  s + 1" in done.stdout and "VACUOUS" in done.stdout
    assert done.stdout.strip().endswith("try --unwind 12 (what the first of them needs)"), done.stdout[-400:]
    done = crepair(tmp_path, "repair", name, "--level", "2", "--unwind", "12")
    assert done.returncode == 0 and "s + 2  =>  s + 1" in done.stdout
