"""A batch job's report is the report of ``crepair COMMAND ... --json``.

The batch worker calls the API (never the command line, see
tests/test_layering.py) with the request the parent read from the job's
words; its report must still be the document the command prints, for
every kind of run: verify, localize, bounded repair, test-driven repair
(a folder of tests) and the staged repair against a reference of main.
Both run from the programs' folder with relative paths, as people call
them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cprog import write_c
from test_staged import course

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
SUM = (REPO / "examples" / "sum.c").read_text()

#: keys whose values are times (seconds, instants) and differ from run to run
TIMES = frozenset({"seconds", "time", "wall", "covered", "first_repair", "finished", "elapsed"})


#: counts that vary between two runs of the same command line, seen in the
#: test-driven search's exploration and the staged run's stats (a defect
#: of their own, not of batch)
VARYING = frozenset({"executions", "explored", "partitions", "ratio"})


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def timeless(value):
    """``value`` without the times (keys in :data:`TIMES` or ending in
    ``_seconds``) and the counts of :data:`VARYING`."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items()
                if k not in TIMES | VARYING and not k.endswith("_seconds")}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def folder(tmp_path: Path) -> Path:
    write_c(tmp_path, SUM, "sum.c")
    return course(tmp_path)


CASES = {
    "verify": ["verify", "sum.c", "--timeout", "60"],
    "verify-bitwuzla": ["verify", "sum.c", "--timeout", "60", "--solver", "bitwuzla"],
    "localize": ["localize", "sum.c", "--timeout", "60"],
    "repair-bounded": ["repair", "sum.c", "--scheme", "mutation", "--max-size", "1", "--timeout", "120"],
    "repair-schedule": ["repair", "sum.c", "--max-size", "1", "--timeout", "120"],
    "repair-tests-dir": ["repair", "sub.c", "--tests-dir", "tests", "--compare", "exact", "--timeout", "120",
                         "--test-timeout", "1000"],
    # --no-cache: the command, run after the job, would take the model's answers the job kept (and say so)
    "repair-reference": ["repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--timeout", "120",
                         "--no-cache"],
    "localize-spectrum": ["localize", "sub.c", "--method", "spectrum", "--tests-dir", "tests"],
}

def test_each_jobs_report_is_the_commands_json(tmp_path):
    d = folder(tmp_path)
    (d / "jobs.jsonl").write_text("".join(
        json.dumps({"id": name, "program": words[1], "command": words[0], "args": words[2:]}) + "\n"
        for name, words in CASES.items()))
    batch = crepair("batch", "jobs.jsonl", "--jobs", "2", "-o", "r.jsonl", "--quiet", cwd=d)
    assert batch.returncode == 0, batch.stderr
    records = {r["id"]: r for r in map(json.loads, (d / "r.jsonl").read_text().splitlines())}
    assert sorted(records) == sorted(CASES)
    for name, words in CASES.items():
        cli = crepair(*words, "--json", cwd=d)
        expected = json.loads(cli.stdout)
        record = records[name]
        report = dict(record["report"])
        if record["repairs"] or "repairs" in expected:
            report["repairs"] = record["repairs"]
        assert record["exit_code"] == cli.returncode, name
        assert timeless(report) == timeless(expected), name
        assert record["outcome"] == expected["outcome"], name
    codes = {name: r["exit_code"] for name, r in records.items()}
    assert records["verify-bitwuzla"]["report"]["decided_by"] == "bitwuzla"
    assert codes == {"verify": 1, "verify-bitwuzla": 1, "localize": 0, "repair-bounded": 0, "repair-schedule": 0, "repair-tests-dir": 0,
                     "repair-reference": 0, "localize-spectrum": 0}
    assert records["repair-tests-dir"]["outcome"] == "repaired" and records["repair-reference"]["repairs"]
    assert records["localize-spectrum"]["outcome"] != "usage"  # Issue 24: the batch's --timeout was refused


@pytest.mark.parametrize("words, message", [
    (["--html", "x.html"], "--html: not in a batch job"),
    (["--level", "3"], "argument --level: invalid choice"),
    (["--scheme", "heap"], "the heap scheme needs --states SPEC.json or --states-from CORRECT.c"),
    (["--help"], "--help: not in a batch job"),  # argparse would exit the batch itself
    (["--tests-dir", "t", "--scheme", "mutation"], "--scheme mutation: checks candidates with the bounded engine"),
])
def test_a_job_the_parser_refuses_is_recorded_without_a_worker(words, message):
    from crepair.batch import Job
    from crepair.batch.job import run_job
    from crepair.batch.request import Refusal
    from crepair.cli.batch_cmd import plan

    job = Job("j", "sum.c", "repair", tuple(words))
    (refusal,) = plan([job]).values()
    assert isinstance(refusal, Refusal) and refusal.kind == "usage" and refusal.exit_code == 2
    record = run_job(job, refusal)
    assert record["outcome"] == "usage" and message in record["message"] and record["report"] is None


HEAP = REPO / "tests" / "data" / "heap"
#: the heap programs' jobs (Wolverine2): repair with --states (widening 0 -> 1 insertion slot) and
#: --states-from, localize --method gradient with both
HEAP_CASES = {
    "heap-states": ["repair", "fig1_reverse.c", "--states", "fig2_states.json", "--timeout", "300"],
    "heap-states-from": ["repair", "rev.c", "--scheme", "heap", "--states-from", "correct.c", "--checkpoints",
                         "reverse", "--timeout", "300"],
    "gradient-states": ["localize", "fig1_reverse.c", "--method", "gradient", "--states", "fig2_states.json"],
    "gradient-states-from": ["localize", "rev.c", "--method", "gradient", "--states-from", "correct.c",
                             "--checkpoints", "reverse"],
}


@pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")
def test_heap_and_gradient_jobs_report_as_the_command(tmp_path):
    """Issue 24: heap repair and gradient localization were refused by
    batch (their logic lived in the command line); a job's report is now
    the command's --json document, run from the programs' folder."""
    from test_heap_cli import CORRECT

    shutil.copy(HEAP / "fig1_reverse.c", tmp_path)
    shutil.copy(HEAP / "fig2_states.json", tmp_path)
    (tmp_path / "correct.c").write_text(CORRECT)
    (tmp_path / "rev.c").write_text(CORRECT.replace("temp2 = current->next", "temp2 = current->prev"))
    (tmp_path / "jobs.jsonl").write_text("".join(
        json.dumps({"id": name, "program": words[1], "command": words[0], "args": words[2:]}) + "\n"
        for name, words in HEAP_CASES.items()))
    batch = crepair("batch", "jobs.jsonl", "--jobs", "2", "-o", "r.jsonl", "--quiet", cwd=tmp_path)
    assert batch.returncode == 0, batch.stdout + batch.stderr
    records = {r["id"]: r for r in map(json.loads, (tmp_path / "r.jsonl").read_text().splitlines())}
    assert sorted(records) == sorted(HEAP_CASES)
    for name, words in HEAP_CASES.items():
        cli = crepair(*words, "--json", cwd=tmp_path)
        expected = json.loads(cli.stdout)
        record = records[name]
        report = dict(record["report"])
        if "repairs" in expected:
            report["repairs"] = record["repairs"]
        assert (record["exit_code"], record["outcome"]) == (cli.returncode, expected["outcome"]), name
        # "checks" counts the solver calls that find the canonical first model: how many depends on the
        # model z3 gives first, so on the terms the process made before (heap/repair.py, _canonical)
        assert timeless(report) | {"checks": 0} == timeless(expected) | {"checks": 0}, name
    assert {n: (r["exit_code"], r["outcome"]) for n, r in records.items()} == {
        "heap-states": (0, "repaired"), "heap-states-from": (0, "repaired"),
        "gradient-states": (0, "localized"), "gradient-states-from": (0, "localized")}
    assert records["heap-states"]["report"]["insert_slots"] == 1  # widened from 0, as the command does
    assert [c["replacement"] for c in records["heap-states-from"]["repairs"][0]["changes"]] == [
        "temp2 = current->next;"]
    assert 16 in [loc["line"] for loc in records["gradient-states"]["report"]["locations"]]


def test_a_heap_request_carries_its_states_and_options():
    from crepair.batch import Job
    from crepair.batch.request import Request, Run
    from crepair.cli.batch_cmd import request_of
    from crepair.specification import HeapStates

    spec = str(HEAP / "fig2_states.json")
    heap = request_of(Job("h", "p.c", "repair", ("--states", spec, "--insert-slots", "1", "--tries", "3")), 600)
    gradient = request_of(Job("g", "p.c", "localize", ("--method", "gradient", "--states-from", "c.c",
                                                       "--checkpoints", "reverse,loops")), 600)
    assert (heap.run, heap.spec.states, heap.timeout) == (Run.HEAP, HeapStates("reverse", spec), 600)
    assert (heap.option("insert_slots"), heap.option("tries"), heap.option("localization")) == (1, 3, True)
    assert (gradient.run, gradient.spec.states) == (Run.GRADIENT, HeapStates("reverse", None, "c.c", True))
    for r in (heap, gradient):
        assert Request.of(json.loads(r.to_json())) == r and not r.hard_stop


def test_the_request_is_read_once_and_carries_the_time_limit():
    from crepair.batch import Job, JobLimits
    from crepair.batch.request import Request, Run
    from crepair.cli.batch_cmd import request_of

    own = request_of(Job("a", "p.c", "repair", ("--timeout", "30", "--reproducible")), 600)
    default = request_of(Job("b", "p.c", "verify", ("--unwind", "3")), 600)
    spectrum = request_of(Job("c", "p.c", "localize", ("--method", "spectrum", "--tests-dir", "t")), 600)
    assert (own.run, own.timeout, own.reproducible) == (Run.BOUNDED, 30.0, True)
    assert (default.run, default.timeout, default.option("unwind")) == (Run.VERIFY, 600, 3)
    assert (spectrum.run, spectrum.timeout, spectrum.spec.tests.tests_dir) == (Run.SPECTRUM, 600, "t")
    unlimited = request_of(Job("d", "p.c", "repair", ("--timeout", "0")), 600)
    staged = request_of(Job("e", "p.c", "repair", ("--reference", "m.c", "--tests-dir", "t")), 600)
    assert staged.run == Run.STAGED and staged.spec.reference.path == "m.c" and staged.spec.tests.tests_dir == "t"
    # the wall clock stops what the command line stops so: not the runs with tests, whose clock starts later
    assert [r.hard_stop for r in (own, default, spectrum, staged)] == [True, True, False, False]
    for r in (own, default, spectrum, staged):
        assert Request.of(json.loads(r.to_json())) == r
    limits = JobLimits(timeout=600, grace=60)
    assert limits.kill_after(own) == 30 * 10 + 150  # --reproducible: the wall clock at 10x the limit
    assert limits.kill_after(default) == 600 + 300
    assert unlimited.timeout is None and limits.kill_after(unlimited) is None  # the job's own "no limit"


def test_the_exit_code_maps_name_real_outcomes():
    """crepair.exit_codes keys its maps by outcome values: each is one."""
    from crepair import exit_codes
    from crepair.bmc import VerifyOutcome
    from crepair.records import RepairOutcome

    assert set(exit_codes.VERIFY) == {o.value for o in VerifyOutcome}
    for codes in (exit_codes.REPAIR, exit_codes.TEST_DRIVEN, exit_codes.STAGED, exit_codes.HEAP):
        assert set(codes) <= {o.value for o in RepairOutcome}
    assert exit_codes.of_outcome(RepairOutcome.STOPPED, exit_codes.REPAIR) == exit_codes.ExitCode.UNKNOWN
    assert exit_codes.of_outcome(RepairOutcome.EXHAUSTED, exit_codes.TEST_DRIVEN) == 122


HANGING_WORKER = """
import json, sys, time
import crepair.batch.execute as execute
execute.execute = lambda request, started=None: time.sleep(60)  # a check that does not stop at its limit
from crepair.batch import worker
sys.exit(worker.main([json.dumps({"memory_mb": None, "cpu_seconds": None}), sys.argv[1]]))
"""


def test_a_run_that_overruns_its_limit_is_stopped_by_the_wall_clock_with_an_unknown_report():
    """The command line's last resort (HARD_STOP_GRACE seconds past
    --timeout) holds in a worker too: the job's outcome is unknown (exit
    4), not a kill by the batch a minute later."""
    import time

    from crepair.batch.request import Command, Request, Run

    request = Request(Command.REPAIR, Run.BOUNDED, "p.c", timeout=0.5)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", HANGING_WORKER, request.to_json()], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert time.monotonic() - start < 30, "stopped at the limit + grace, not by the 60 s sleep"
    envelope = json.loads(done.stdout.strip().splitlines()[-1])
    assert envelope["exit_code"] == 4 and envelope["report"]["error"]["kind"] == "unknown"
    assert "did not stop at the time limit (--timeout 0.5 s" in envelope["report"]["error"]["message"]
