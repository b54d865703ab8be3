"""The schemes that run processes stop at the run's deadline by themselves
(issue 26, item 7): test-driven repair (builds and test runs), the heap
scheme (gcc and gdb runs) and the staged run against a reference (the
reference's runs, candidates' builds and tests, bounded checks).
``--timeout S`` counts from the start of the command; each process gets
the time left as its own limit, and the run ends with its own report:
outcome ``unknown``, stopped by the ``timeout``, exit 4 — not the last
resort's error (``crepair.cli.HARD_STOP_GRACE`` past the limit).

The limit given is the time this machine takes now to load crepair's
stages plus :data:`SEARCH` seconds, so that on a loaded machine too the
search itself is what the limit cuts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crepair

SRC = str(Path(crepair.__file__).resolve().parents[1])
ROOT = Path(__file__).resolve().parents[2]
SEARCH = 2.0  # seconds the search gets before the limit cuts it
OVERSHOOT = 2.0  # seconds past --timeout a run may take (issue 26, item 7)


def crepair_cli(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": SRC, "PYTHONHASHSEED": "0"}
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300)
    return run, time.monotonic() - start


def loading(cwd: Path) -> float:
    """Seconds this machine takes now to start crepair and load every
    stage (``crepair --version`` builds the whole parser)."""
    _, seconds = crepair_cli("--version", cwd=cwd)
    return seconds


def assert_stopped_by_itself(args: list[str], cwd: Path, search: float = SEARCH, may_repair: bool = False) -> dict:
    """Run ``crepair repair ARGS --timeout T --json`` with T = loading +
    ``search``; it must end with its own report (unknown, stopped by the
    timeout, exit 4; with ``may_repair``, also repaired before the limit
    cut the search: exit 0, stopped by the timeout) within T + OVERSHOOT
    (+ the loading time measured, for the interpreter's start on a loaded
    machine)."""
    allowance = loading(cwd)
    limit = round(allowance + search, 1)
    run, seconds = crepair_cli("repair", *args, "--timeout", str(limit), "--json", cwd=cwd)
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(run.stdout)  # one JSON document
    assert "error" not in report, report  # not the last resort (the hard stop)
    endings = [(4, "unknown", "timeout")] + ([(0, "repaired", "timeout")] if may_repair else [])
    assert (run.returncode, report["outcome"], report["stopped"]) in endings, run.stderr
    assert seconds <= limit + OVERSHOOT + allowance, f"{seconds:.1f} s for --timeout {limit} (loading {allowance:.1f} s)"
    return report




@pytest.mark.skipif(shutil.which("gdb") is None or shutil.which("gcc") is None, reason="needs gcc and gdb")
def test_the_heap_scheme_stops_at_the_deadline(tmp_path):
    for name in ("fig1_reverse.c", "fig2_states.json"):
        shutil.copy(ROOT / "tests" / "data" / "heap" / name, tmp_path / name)
    # without localization Algorithm 1 widens over every location, and with 100 repairs wanted it searches the
    # whole space: about 11 s on an idle machine (its first repair comes after about 1 s), and the limit leaves
    # it 1 s.  (Stopping at the first repair, the search ended in 1 s once the encoder's And/Or/If got faster.)
    assert_stopped_by_itself(["fig1_reverse.c", "--states", "fig2_states.json", "--no-localization",
                              "--max-repairs", "100"], tmp_path, search=1.0, may_repair=True)


REFERENCE = """#include <stdio.h>

int main(void) {
  int a, b;
  if (scanf("%d %d", &a, &b) != 2)
    return 1;
  printf("%d\\n", (a * 7 + b * 3) % 11);
  return 0;
}
"""


def max_and_reference(tmp_path: Path) -> Path:
    """examples/max with ref.c, a reference no change of max.c agrees with,
    and the reference's outputs for the tests' inputs."""
    folder = tmp_path / "max"
    shutil.copytree(ROOT / "examples" / "max", folder)
    (folder / "ref.c").write_text(REFERENCE)
    for given in folder.glob("input-*"):
        a, b = map(int, given.read_text().split())
        (folder / given.name.replace("input-", "output-")).write_text(f"{(a * 7 + b * 3) % 11}\n")
    return folder


def test_test_driven_repair_stops_at_the_deadline(tmp_path):
    # tests no change passes (the outputs of ref.c below), --no-partition: the whole space (5,565 candidates),
    # one at a time (examples/max's own tests have a patch a search may find within the limit: "repaired")
    folder = max_and_reference(tmp_path)
    assert_stopped_by_itself(["max.c", "--tests-dir", ".", "--no-partition"], folder)


def test_test_driven_repair_with_slow_tests_stops_at_the_deadline(tmp_path):
    # each run of the program takes 1.5 s (the tests' limit is 5 s): the original's runs for the spectrum (a
    # plain and a coverage run per test, 12 s in all) went on past the limit, which counted from after them
    shutil.copytree(ROOT / "examples" / "max", tmp_path / "max")
    prog = tmp_path / "max" / "max.c"
    prog.write_text(prog.read_text().replace("#include <stdio.h>", "#include <stdio.h>\n#include <unistd.h>")
                    .replace("  int a, b;", "  int a, b;\n  usleep(1500000);"))
    report = assert_stopped_by_itself(["max.c", "--tests-dir", ".", "--test-timeout", "5000"], tmp_path / "max")
    assert report["reason"] == "time limit reached before the search (running the original's tests)"


def test_the_staged_run_against_a_reference_stops_at_the_deadline(tmp_path):
    folder = max_and_reference(tmp_path)
    report = assert_stopped_by_itself(["max.c", "--reference", "ref.c", "--tests-dir", "."], folder)
    assert report["scheme"] == "reference-staged"


def test_a_staged_run_without_time_for_its_first_test_input_is_unknown(tmp_path):
    # no tests: the first input comes from a bounded check, which gets the time left but 1 s; with about
    # 1.5 s left after loading, there is none, and the run ended "exhausted" (search space complete)
    folder = max_and_reference(tmp_path)
    report = assert_stopped_by_itself(["max.c", "--reference", "ref.c"], folder, search=1.5)
    assert report["stats"]["explored"] == 0


def test_a_deadline_caps_each_process_at_the_time_left():
    from crepair.schemes.time_limit import MIN_CHILD_SECONDS, Deadline

    assert Deadline.after(None).cap(3.0) == 3.0 and Deadline.after(None).cap(None) is None
    assert Deadline.after(None).left() is None and not Deadline.after(None).passed()
    soon = Deadline.after(0.5)
    assert 0 < soon.cap(10.0) <= 0.5 and 0 < soon.cap(None) <= 0.5 and soon.cap(0.1) == 0.1
    assert 1 <= soon.cap_ms(1000) <= 500 and soon.cap_ms(20) == 20
    gone = Deadline(time.monotonic() - 1)
    assert gone.passed() and gone.left() < 0
    assert gone.cap(10.0) == MIN_CHILD_SECONDS and gone.cap_ms(1000) == 50
    started = time.monotonic() - 10
    assert Deadline.after(5, started).passed()  # counted from the command's start, not from now
