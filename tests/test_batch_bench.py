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
    assert main(["bench", "nothing", "--suites", str(d)]) == 3
    assert "suites: tiny" in capsys.readouterr().err


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
