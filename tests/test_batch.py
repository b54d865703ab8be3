"""crepair batch: manifests, isolated workers, the results file, --resume."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crepair.batch.job as job_module
from crepair.batch import Job, JobLimits, ResultsFile, read_jobs, run_job
from crepair.batch.executors import process_pool
from crepair.batch.manifest import option_args
from crepair.cli import main
from crepair.cli.batch_cmd import plan, request_of
from crepair.errors import BadInput, UsageError
from cprog import CLAMP_TOO_HIGH, write_c

SRC = Path(__file__).resolve().parents[1] / "src"
SUM = (Path(__file__).resolve().parents[1] / "examples" / "sum.c").read_text()
CORRECT = """
    int main(void) {
        int x = nondet_int();
        __CPROVER_assume(x >= 0 && x <= 5);
        assert(x * 2 >= x);
        return 0;
    }
"""
BROKEN = "int main(void) { return 0 }\n"


def folder(tmp_path: Path) -> Path:
    d = tmp_path / "progs"
    d.mkdir()
    write_c(d, SUM, "p1_sum.c")
    write_c(d, CORRECT, "p2_correct.c")
    write_c(d, BROKEN, "p3_broken.c")
    write_c(d, CLAMP_TOO_HIGH, "p10_clamp.c")
    return d


def results(path: Path) -> dict:
    """id -> (outcome, the repairs' edits) of a results file."""
    out = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        edits = sorted(tuple((e["span"]["line"], e["old"], e["new"]) for c in x["changes"] for e in c["edits"])
                       for x in r["repairs"])
        out[r["id"]] = (r["outcome"], edits)
    return out


def batch(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.Popen([sys.executable, "-m", "crepair.cli", "batch", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_folder_is_its_c_files_in_natural_order(tmp_path):
    d = folder(tmp_path)
    jobs = read_jobs(str(d))
    assert [Path(j.program).name for j in jobs] == ["p1_sum.c", "p2_correct.c", "p3_broken.c", "p10_clamp.c"]
    assert all(j.command == "repair" and j.args == () for j in jobs)
    assert jobs[0].id == f"repair {d / 'p1_sum.c'}"
    globbed = read_jobs(str(d / "p1*.c"), "verify", ["--unwind", "3"])
    assert [(Path(j.program).name, j.command, j.args) for j in globbed] == [
        ("p1_sum.c", "verify", ("--unwind", "3")), ("p10_clamp.c", "verify", ("--unwind", "3"))]


def test_manifest_lines_give_command_options_and_paths_relative_to_the_manifest(tmp_path):
    m = tmp_path / "jobs.jsonl"
    m.write_text(
        "# two jobs\n"
        '{"program": "a.c", "command": "verify", "options": {"unwind": 3, "no-standard-checks": true}}\n'
        "\n"
        '{"program": "/abs/b.c", "id": "b", "options": {"reference": "ref.c", "init": ["initialize", "g"],'
        ' "mutate_main": false}, "args": ["--level", "2"]}\n')
    a, b = read_jobs(str(m))
    assert (a.program, a.command, a.args) == (str(tmp_path / "a.c"), "verify", ("--unwind", "3", "--no-standard-checks"))
    assert (b.id, b.program, b.command) == ("b", "/abs/b.c", "repair")
    assert b.args == ("--reference", str(tmp_path / "ref.c"), "--init", "initialize", "--init", "g", "--level", "2")
    assert option_args({"test_ids": ["n1", "p1"]}) == ["--test-ids", "n1", "p1"]


def test_yaml_manifest_and_bad_manifests(tmp_path):
    y = tmp_path / "jobs.yaml"
    y.write_text("jobs:\n  - program: a.c\n    options: {level: 2, max_size: 1}\n  - {program: b.c, command: localize}\n")
    a, b = read_jobs(str(y))
    assert a.args == ("--level", "2", "--max-size", "1") and (b.command, Path(b.program).name) == ("localize", "b.c")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"program": "a.c"}\n{"program": "a.c", "command": "fix"}\n')
    with pytest.raises(BadInput, match=r"bad.jsonl:2: unknown command 'fix'"):
        read_jobs(str(bad))
    bad.write_text('{"program": "a.c"}\n{"program": \n')
    with pytest.raises(BadInput, match=r"bad.jsonl:2: not JSON"):
        read_jobs(str(bad))
    bad.write_text('{"program": "a.c"}\n{"program": "a.c"}\n')
    with pytest.raises(UsageError, match="two jobs have the id"):
        read_jobs(str(bad))
    with pytest.raises(BadInput, match="no such file or folder"):
        read_jobs(str(tmp_path / "nothing*.c"))


def test_batch_runs_every_job_and_records_its_outcome_and_repairs(tmp_path):
    d = folder(tmp_path)
    out = tmp_path / "r.jsonl"
    page = tmp_path / "batch.html"
    assert main(["batch", str(d), "--jobs", "2", "--options", "--scheme mutation", "-o", str(out), "--quiet",
                 "--html", str(page)]) == 0
    html = page.read_text()
    assert html.count('<a href="#job-') == 4 and html.count("<section") == 4 and "p3_broken.c:1" in html
    got = {Path(k.split()[1]).name: v for k, v in results(out).items()}
    assert got == {
        "p1_sum.c": ("repaired", [((9, "<", "<="),)]),
        "p2_correct.c": ("original-correct", []),
        "p3_broken.c": ("bad-input", []),
        "p10_clamp.c": ("exhausted", []),  # level 1 cannot fix it
    }
    records = ResultsFile(out).records()
    broken = next(r for r in records if r["program"].endswith("p3_broken.c"))
    assert broken["exit_code"] == 3 and "p3_broken.c:1" in broken["message"]
    rep = next(r for r in records if r["program"].endswith("p1_sum.c"))
    assert rep["exit_code"] == 0 and rep["report"]["outcome"] == "repaired" and rep["seconds"] > 0
    # crepair never overwrites results
    assert main(["batch", str(d), "-o", str(out), "--quiet"]) == 2


def test_a_hanging_or_crashing_worker_is_that_jobs_outcome(tmp_path, monkeypatch):
    hang = Job("hang", "x.c", "verify")
    crash = Job("crash", "y.c", "verify")
    lines = {"hang": "import time; time.sleep(60)", "crash": "import os; os.abort()"}
    monkeypatch.setattr(job_module, "command_line",
                        lambda job, request, limits: [sys.executable, "-c", lines[job.id]])
    start = time.monotonic()
    limits = JobLimits(timeout=0.5, grace=0.5)
    got = {r["id"]: r for r in process_pool([hang, crash], limits, workers=2, requests=plan([hang, crash], 0.5))}
    assert time.monotonic() - start < 20
    assert got["hang"]["outcome"] == "timeout" and got["hang"]["message"].startswith("killed after")
    assert got["crash"]["outcome"] == "crash" and "SIGABRT" in got["crash"]["message"]


def test_the_memory_limit_is_set_in_the_worker(tmp_path):
    path = write_c(tmp_path, SUM, "sum.c")
    job = Job("j", str(path), "repair")
    record = run_job(job, request_of(job), JobLimits(timeout=30, memory_mb=64))
    assert record["outcome"] in ("out-of-memory", "crash") and record["repairs"] == []
    assert record["outcome"] == "out-of-memory" or "(memory limit 64 MiB)" in record["message"]
    job = Job("j", str(path), "repair", ("--scheme", "mutation"))
    ok = run_job(job, request_of(job), JobLimits(timeout=30, memory_mb=2048))
    assert ok["outcome"] == "repaired"


def test_killed_half_way_and_resumed_ends_with_the_results_of_an_uninterrupted_run(tmp_path):
    d = folder(tmp_path)
    for i in range(4):  # more jobs, so that the kill comes half-way
        write_c(d, SUM.replace("n <= 5", f"n <= {3 + i}"), f"p2{i}_sum.c")
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    common = ["--jobs", "1", "--options", "--scheme mutation"]
    p = batch(str(d), "-o", str(whole), *common)
    assert p.wait(timeout=300) == 0, p.stderr.read()
    p = batch(str(d), "-o", str(cut), *common)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not cut.exists() or cut.read_text().count("\n") < 2):
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait()
    written = cut.read_text().count("\n")
    assert 2 <= written < 8, "the kill came too late to test a resume"
    with cut.open("a") as fh:  # a line cut short by the kill
        fh.write('{"id": "repair ')
    p = batch(str(d), "-o", str(cut), "--resume", *common)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert f"resuming: {written} of 8 jobs" in err
    assert results(cut) == results(whole) and len(results(whole)) == 8
    assert cut.read_text().count("\n") == 8  # each job once, the cut line gone


def test_options_that_are_one_flag_reach_every_job(tmp_path):
    # argparse alone takes "--options --reproducible" for two options of batch
    d = folder(tmp_path)
    out = tmp_path / "r.jsonl"
    main(["batch", str(d / "p1_sum.c"), "--jobs", "1", "--options", "--reproducible", "-o", str(out), "--quiet"])
    (record,) = ResultsFile(out).records()
    assert "--reproducible" in record["args"] and record["report"]["options"]["reproducible"] is True
    assert record["outcome"] == "repaired"


def test_a_batch_with_a_crashed_job_exits_9(tmp_path, monkeypatch, capsys):
    # Issue 25: batch exited 0 although a job crashed.
    write_c(tmp_path, SUM, "a.c")
    write_c(tmp_path, SUM, "b.c")
    real = job_module.command_line

    def crash_b(job, request, limits):
        return ([sys.executable, "-c", "import os; os.abort()"] if job.program.endswith("b.c")
                else real(job, request, limits))

    monkeypatch.setattr(job_module, "command_line", crash_b)
    out = tmp_path / "r.jsonl"
    code = main(["batch", str(tmp_path / "*.c"), "--options", "--scheme mutation", "-o", str(out), "--quiet"])
    assert code == 9
    assert "1 of 2 jobs gave no answer (crash)" in capsys.readouterr().err


def test_a_worker_is_stopped_with_sigterm_first_so_that_it_cleans_up(tmp_path):
    # crepair takes SIGTERM as Ctrl-C (its temporary folders go); SIGKILL only for what outlives the grace
    import sys

    from crepair import toolchain
    from crepair.batch.job import kill

    done = tmp_path / "cleaned"
    script = ("import signal, sys, time, pathlib\n"
              f"def bye(*_):\n    pathlib.Path({str(done)!r}).write_text('yes')\n    sys.exit(143)\n"
              "signal.signal(signal.SIGTERM, bye)\nprint('ready', flush=True)\ntime.sleep(60)\n")
    proc = toolchain.spawn([sys.executable, "-c", script], text=True)
    assert proc.stdout.readline().strip() == "ready"
    kill(proc, grace=10)
    assert proc.wait(timeout=5) == 143 and done.read_text() == "yes"
    stubborn = toolchain.spawn([sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, "
                                "signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(60)\n"], text=True)
    assert stubborn.stdout.readline().strip() == "ready"
    kill(stubborn, grace=0.3)
    assert stubborn.wait(timeout=5) == -9
