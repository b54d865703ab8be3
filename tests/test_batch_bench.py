"""crepair bench: suites (a manifest with `each`) and their tables over batch results."""

import json
from pathlib import Path

import pytest

from crepair.batch.bench import cell, load_suite, tables
from crepair.cli import main
from crepair.errors import BadInput
from cprog import write_c

REPO = Path(__file__).resolve().parents[1]
SUM = (REPO / "examples" / "sum.c").read_text()

SUITE = """
title: tiny
about: two programs, two levels
jobs:
  - id: "p{n} L{level}"
    program: progs/p{n}.c
    each: {n: 1-2, level: [1, 2]}
    options: {scheme: mutation, level: "{level}", max_size: 1}
tables:
  - title: by level
    where: {level: 1}
    row: p{n}
    columns: [outcome, repairs, stages, checks]
  - title: side by side
    pair: level
    values: [1, 2]
    row: p{n}
    columns: [outcome, repairs]
totals:
  group: level
  item: n
  published: {1: [1], 2: [2]}
"""


def suite_dir(tmp_path: Path) -> Path:
    (tmp_path / "progs").mkdir()
    write_c(tmp_path / "progs", SUM, "p1.c")
    write_c(tmp_path / "progs", SUM.replace("n <= 5", "n <= 5 && n != 3").replace("i < n", "i < n - 7 + 7 + 1"),
            "p2.c")  # already correct: i runs to n
    (tmp_path / "tiny.yaml").write_text(SUITE)
    return tmp_path


def test_each_expands_into_jobs_with_their_meta(tmp_path):
    suite, jobs = load_suite(suite_dir(tmp_path) / "tiny.yaml")
    assert [j.id for j in jobs] == ["p1 L1", "p1 L2", "p2 L1", "p2 L2"]
    assert jobs[1].program == str(tmp_path / "progs" / "p1.c")
    assert jobs[1].args == ("--scheme", "mutation", "--level", "2", "--max-size", "1")
    assert dict(jobs[1].meta) == {"n": 1, "level": 2}
    (tmp_path / "bad.yaml").write_text("jobs: [{program: a.c, each: {n: [1, 1]}}]\n")
    with pytest.raises(BadInput, match="two jobs have the id"):
        load_suite(tmp_path / "bad.yaml")


def test_bench_runs_the_suite_and_writes_its_tables(tmp_path, capsys):
    d = suite_dir(tmp_path)
    results = tmp_path / "results"
    assert main(["bench", "tiny", "--suites", str(d), "--results", str(results), "--jobs", "2"]) == 0
    text = (results / "tiny.md").read_text()
    assert "## by level" in text and "4/4 jobs have results" in text
    assert "| p1 | repaired | 1 | mutation | " in text and "| p2 | original-correct | 0 | — | 0 |" in text
    assert "| p1 | repaired | 1 | repaired | 1 |" in text
    assert "* level 1: 1/2 repaired: v1" in text
    assert "| 2 | 1 | 1 | 0 | v1 | v2 |" in text  # level 2: published v2, crepair v1
    # the tables again, from the results file alone: they name the
    # invocation that made the results (its commit), not the checkout now
    (run,) = json.loads((results / "tiny.runs.json").read_text())
    run["commit"] = "0" * 40  # as if the results were made at another commit
    (results / "tiny.runs.json").write_text(json.dumps([run]))
    assert main(["bench", "tiny", "--suites", str(d), "--results", str(results), "--report-only"]) == 0
    text = (results / "tiny.md").read_text()
    assert "| p1 | repaired | 1 | repaired | 1 |" in text and "--report-only" in text
    assert f"commit of the runs: {'0' * 40}" in text and "`crepair bench tiny --suites" in text
    assert len(json.loads((results / "tiny.runs.json").read_text())) == 1  # --report-only ran nothing
    # a run of an installed copy of crepair (pip install ., not -e): the checkout's commit need not be its code
    import crepair

    here = Path(crepair.__file__).resolve().parent
    assert run["installed"] == ("" if (Path(__file__).resolve().parents[1] / "src" / "crepair") == here else str(here))
    run["installed"] = "/opt/site-packages/crepair"
    (results / "tiny.runs.json").write_text(json.dumps([run]))
    assert main(["bench", "tiny", "--suites", str(d), "--results", str(results), "--report-only"]) == 0
    text = (results / "tiny.md").read_text()
    assert "the installed copy in /opt/site-packages/crepair, not this checkout's src/" in text
    assert main(["bench", "nothing", "--suites", str(d)]) == 3
    assert "suites: tiny" in capsys.readouterr().err


def test_an_invocation_is_recorded_before_its_jobs_run(tmp_path, monkeypatch):
    # a bench killed by SIGTERM or SIGKILL never reaches its finally: its commit is on record all the same
    import crepair.batch.run

    d = suite_dir(tmp_path)
    results = tmp_path / "results"
    seen = []

    def running(*args, **kwargs):
        seen.append(json.loads((results / "tiny.runs.json").read_text()))

    monkeypatch.setattr(crepair.batch.run, "run_batch", running)
    assert main(["bench", "tiny", "--suites", str(d), "--results", str(results), "--jobs", "1"]) == 0
    ((during,),) = seen
    assert during["minutes"] is None and during["command"].startswith("crepair bench tiny")
    (after,) = json.loads((results / "tiny.runs.json").read_text())  # the same entry, finished
    assert after["minutes"] is not None and after["started"] == during["started"]


def test_shuffle_runs_the_jobs_in_a_seeded_random_order(tmp_path, monkeypatch):
    # a partial run (hours of C-Pack-IPAs, stopped part way) is then a random sample, the same one for the seed
    import crepair.batch.run

    d = suite_dir(tmp_path)
    orders = []
    monkeypatch.setattr(crepair.batch.run, "run_batch", lambda jobs, *a, **k: orders.append([j.id for j in jobs]))
    for extra in ([], ["--shuffle", "3"], ["--shuffle", "3"], ["--shuffle", "4"]):
        assert main(["bench", "tiny", "--suites", str(d), "--results", str(tmp_path / "r"), *extra]) == 0
    plain, three, again, four = orders
    assert plain == ["p1 L1", "p1 L2", "p2 L1", "p2 L2"]
    assert sorted(three) == plain and three == again and three != plain and four != three


def test_a_job_not_run_and_the_columns():
    assert cell(None, "outcome") == "not run" and cell(None, "wall") == ""
    record = {"outcome": "unknown", "seconds": 61.04, "repairs": [{"vacuous": True, "seconds": 1}],
              "report": {"schemes": [{"stopped": "timeout", "checks": 3, "covered": {"1": 0.51}},
                                     {"stopped": "timeout", "checks": 4, "diagnoses": 2}]}}
    assert [cell(record, c) for c in ("outcome", "repairs", "first_repair", "covered_1", "covered_2", "checks",
                                      "wall", "stat:diagnoses")] == [
        "unknown, time-out", "0 (+1 vacuous)", "—", "0.5", "—", "7", "61.0", "2"]
    with pytest.raises(BadInput, match="unknown column"):
        cell(record, "colour")


def test_the_committed_suites_load():
    for name, n in (("tcas-mutation", 82), ("tcas-template", 41), ("must-pruning", 242)):
        _, jobs = load_suite(REPO / "bench" / "suites" / f"{name}.yaml")
        assert len(jobs) == n
    if (REPO.parent / "shared" / "benchmarks" / "c-pack-ipas").is_dir():
        _, jobs = load_suite(REPO / "bench" / "suites" / "c-pack-ipas.yaml")
        assert len(jobs) == 1431 and len({dict(j.meta)["assignment"] for j in jobs}) == 25
        assert jobs[0].args[-4:] == ("--compare", "exact", "--timeout", "60")


PRINTER = """
def tables(suite, jobs, records, output):
    (output.parent / (output.name + ".extra")).write_text("seen")
    return [f"{j.id}: {records[j.id]['outcome']}" for j in jobs if j.id in records]
"""


def test_a_suite_with_its_own_output_and_printer(tmp_path):
    d = suite_dir(tmp_path)
    text = SUITE.split("tables:")[0].replace("jobs:", "output: out/tiny\nprinter: tiny_printer.py\njobs:")
    (d / "own.yaml").write_text(text.replace("each: {n: 1-2, level: [1, 2]}", "each: {n: 1, level: [1]}"))
    (d / "tiny_printer.py").write_text(PRINTER)
    assert main(["bench", "own", "--suites", str(d), "--jobs", "1"]) == 0
    lines = (d / "out" / "tiny.md").read_text().splitlines()
    assert "p1 L1: repaired" in lines and (d / "out" / "tiny.jsonl").exists()
    assert (d / "out" / "tiny.extra").read_text() == "seen"
    (d / "own.yaml").write_text(text.replace("tiny_printer.py", "missing.py"))
    assert main(["bench", "own", "--suites", str(d), "--report-only"]) == 3


def test_report_only_keeps_the_machine_of_the_runs_and_renders_the_same_tables_again(tmp_path, capsys):
    """--report-only re-renders from the stored data: the machine shown is
    the one the runs recorded (or, for runs that recorded none, the one the
    tables already name), never the machine re-rendering them."""
    import platform

    d = suite_dir(tmp_path)
    results = tmp_path / "results"
    args = ["bench", "tiny", "--suites", str(d), "--results", str(results)]
    assert main(args + ["--jobs", "2", "--only", "p1 L1"]) == 0
    (run,) = json.loads((results / "tiny.runs.json").read_text())
    assert run["machine"].endswith(platform.release()) and "z3-solver" in run["software"]
    run.update(machine="nproc 64, Linux 0.0-elsewhere", software="Python 3.0, z3-solver 4.0")
    (results / "tiny.runs.json").write_text(json.dumps([run]))
    assert main(args + ["--report-only"]) == 0
    first = (results / "tiny.md").read_text()
    assert "* Machine: nproc 64, Linux 0.0-elsewhere; Python 3.0, z3-solver 4.0\n" in first
    assert platform.release() not in first
    assert main(args + ["--report-only"]) == 0
    assert (results / "tiny.md").read_text() == first  # the stored data only: the same tables
    del run["machine"], run["software"]  # a run made before runs recorded their machine
    (results / "tiny.runs.json").write_text(json.dumps([run]))
    assert main(args + ["--report-only"]) == 0
    assert (results / "tiny.md").read_text() == first
    capsys.readouterr()


def _cli(*args: str, cwd: Path):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "src")})


def test_report_only_of_the_tcas_suite_in_a_temporary_checkout_changes_no_metadata(tmp_path):
    """The committed TCAS results re-rendered from a copy of bench/ in a
    temporary folder: the same machine line, no temporary path, no
    maintainer's TODO note, the results JSON unchanged."""
    import shutil

    bench = tmp_path / "repo" / "bench"
    shutil.copytree(REPO / "bench" / "harness", bench / "harness")
    for f in (REPO / "bench").glob("*.py"):
        shutil.copy(f, bench)
    (bench / "suites").mkdir()
    shutil.copy(REPO / "bench" / "suites" / "tcas-mutation.yaml", bench / "suites")
    (bench / "results").mkdir()
    for f in (REPO / "bench" / "results").glob("tcas-mutation.*"):
        shutil.copy(f, bench / "results")
    committed = (bench / "results" / "tcas-mutation.md").read_text()
    committed_json = (bench / "results" / "tcas-mutation.json").read_text()
    run = _cli("bench", "tcas-mutation", "--report-only", cwd=tmp_path / "repo")
    assert run.returncode == 0, run.stderr
    text = (bench / "results" / "tcas-mutation.md").read_text()
    machine = [line for line in committed.splitlines() if line.startswith("* Machine")]
    assert machine and machine == [line for line in text.splitlines() if line.startswith("* Machine")]
    for out in (text, run.stdout, run.stderr):
        assert str(tmp_path) not in out and "TODO" not in out
    assert (bench / "results" / "tcas-mutation.json").read_text() == committed_json


def test_bench_outside_the_repository_root_says_which_folder_it_looked_for(tmp_path):
    run = _cli("bench", "tcas-mutation", "--report-only", cwd=tmp_path)
    assert run.returncode == 3
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert f"the folder {tmp_path.resolve() / 'bench' / 'suites'} does not exist" in run.stderr
    assert "run crepair bench from the repository root" in run.stderr
