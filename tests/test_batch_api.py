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
import subprocess
import sys
from pathlib import Path

import pytest

from cprog import write_c
from test_staged import MODEL, SUBMISSION, TESTS

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
    (tmp_path / "sub.c").write_text(SUBMISSION)
    (tmp_path / "model.c").write_text(MODEL)
    (tmp_path / "tests").mkdir()
    for name, (given, expected) in TESTS.items():
        (tmp_path / "tests" / f"{name}.in").write_text(given)
        (tmp_path / "tests" / f"{name}.out").write_text(expected)
    return tmp_path


CASES = {
    "verify": ["verify", "sum.c", "--timeout", "60"],
    "localize": ["localize", "sum.c", "--timeout", "60"],
    "repair-bounded": ["repair", "sum.c", "--scheme", "mutation", "--max-size", "1", "--timeout", "120"],
    "repair-schedule": ["repair", "sum.c", "--max-size", "1", "--timeout", "120"],
    "repair-tests-dir": ["repair", "sub.c", "--tests-dir", "tests", "--compare", "exact", "--timeout", "120",
                         "--test-timeout", "1000"],
    "repair-reference": ["repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--timeout", "120"],
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
    assert codes == {"verify": 1, "localize": 0, "repair-bounded": 0, "repair-schedule": 0, "repair-tests-dir": 0,
                     "repair-reference": 0, "localize-spectrum": 0}
    assert records["repair-tests-dir"]["outcome"] == "repaired" and records["repair-reference"]["repairs"]
    assert records["localize-spectrum"]["outcome"] != "usage"  # Issue 24: the batch's --timeout was refused


@pytest.mark.parametrize("words, message", [
    (["--html", "x.html"], "--html: not in a batch job"),
    (["--level", "3"], "argument --level: invalid choice"),
    (["--states", "s.json", "--scheme", "heap"], "heap states (--scheme heap): not run by crepair batch"),
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
