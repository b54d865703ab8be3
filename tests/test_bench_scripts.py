"""Every benchmark script under bench/ still imports and parses its
command line: ``python bench/X.py --help`` exits 0 (bench/scale.py and
bench/heap.py were broken by moves of the code they import, unnoticed
until a table had to be regenerated); and the suite of ``crepair bench
codeflaws-reference`` with its printer (a job per runnable defect, the
first repair judged on the held-out tests)."""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cprog import SHARED
from crepair.batch.bench import load_suite

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if '__name__ == "__main__"' in p.read_text())


def test_the_scripts_are_found():
    assert {"scale.py", "heap.py", "codeflaws.py", "tcas_schedule.py", "c_pack_ipas.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_exits_0(script):
    p = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True,
                       timeout=120, cwd=BENCH.parent)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "usage:" in p.stdout


CODEFLAWS = SHARED / "codeflaws"
CODEFLAWS_SUITE = BENCH / "suites" / "codeflaws-reference.yaml"
needs_codeflaws = pytest.mark.skipif(not (CODEFLAWS / "defects.tsv").is_file(), reason="Codeflaws not available")


def bench_module(name: str):
    """A module of bench/ (its scripts import their siblings by name)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


@needs_codeflaws
def test_codeflaws_reference_suite_has_a_job_per_runnable_defect():
    suite, jobs = load_suite(CODEFLAWS_SUITE)
    write = bench_module("codeflaws_reference_suite")
    defects = bench_module("codeflaws_checks").load_defects(CODEFLAWS)
    runnable = [d for d in defects if write.runnable(d)]
    assert {d.name for d in defects} - {d.name for d in runnable} == {"133-A-bug-18048780-18048793",
                                                                     "276-B-bug-15034096-15034124"}  # gzipped
    assert [j.id for j in jobs] == [d.name for d in runnable]
    for job, d in zip(jobs, runnable):
        options = dict(zip(job.args[::2], job.args[1::2]))
        assert Path(job.program).resolve() == (d.folder / d.buggy).resolve() and Path(job.program).is_file()
        assert Path(options["--reference"]).resolve() == (d.folder / d.accepted).resolve()
        assert Path(options["--reference"]).is_file()
        assert Path(options["--tests-dir"]).resolve() == d.folder.resolve()
        assert (options["--compare"], options["--timeout"]) == ("lines", "300")
        assert dict(job.meta) == {"class": d.klass}
    assert (CODEFLAWS_SUITE.parent / suite["printer"]).is_file()
    assert write.suite_text(CODEFLAWS, CODEFLAWS_SUITE) == CODEFLAWS_SUITE.read_text()  # the script wrote it


@needs_codeflaws
@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("patch") is None, reason="gcc and patch needed")
def test_codeflaws_reference_printer_checks_the_first_repair_on_the_heldout_tests(tmp_path):
    from crepair.patch import unified_diff

    report = bench_module("codeflaws_reference_report")
    suite, jobs = load_suite(CODEFLAWS_SUITE)
    fixed, other = (next(j for j in jobs if j.id.startswith(name)) for name in ("4-B-bug", "118-B-bug"))
    d = report.defect_of(fixed)
    diff = unified_diff(fixed.program, d.text(d.buggy), d.text(d.accepted))  # the accepted fix, as crepair writes it
    records = {fixed.id: {"id": fixed.id, "outcome": "repaired", "seconds": 20.0,
                          "repairs": [{"evidence_level": "tests", "seconds": 3.0, "diff": diff, "changes": []}]},
               other.id: {"id": other.id, "outcome": "exhausted", "seconds": 40.0, "repairs": []}}
    lines = report.tables(suite, [fixed, other], records, tmp_path / "out")

    def cells(start: str) -> list[str]:
        return [c.strip() for c in next(line for line in lines if line.startswith(start)).strip("|").split("|")]

    # defects, repaired, proof, tests, plausible, held-out pass, identical, exhausted, unknown, other, errors, median
    assert cells("| **all** |")[1:] == "2 1 0 1 0 1 1 1 0 0 0 30.0".split()
    passed, total = cells(f"| {fixed.id} |")[4].split("/")  # the held-out column: every valid test passed
    assert passed == total
    cached = json.loads((tmp_path / "out.checks.json").read_text())
    assert [c["heldout"]["ok"] for c in cached["checks"].values()] == [True]


def run_engine(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "engine.py"), *args], capture_output=True, text=True,
                          timeout=120, cwd=BENCH.parent)


def cells_of(text: str, start: str) -> list[str]:
    return [c.strip() for c in next(line for line in text.splitlines() if line.startswith(start)).strip("|").split("|")]


@pytest.mark.skipif(not (SHARED / "loops" / "sum.c").is_file(), reason="the loop benchmarks not available")
@pytest.mark.skipif(importlib.util.find_spec("bitwuzla") is None, reason="bitwuzla not installed")
def test_engine_runs_one_problem_with_two_solvers_then_resumes_and_renders(tmp_path):
    out = tmp_path / "engine.md"
    common = ["--suites", "loops", "--solvers", "z3,bitwuzla", "--only", "^sum B=3$", "--timeout", "20",
              "--output", str(out)]
    p = run_engine(*common)
    assert p.returncode == 0, p.stderr[-2000:]
    text = out.read_text()
    # problem, z3 verdict, z3 s, bitwuzla verdict, bitwuzla s, agree, note
    row = cells_of(text, "| sum B=3 |")
    assert (row[1], row[3], row[5]) == ("violated (z3)", "violated (bitwuzla)", "yes")
    assert "* Disagreements between decided verdicts: 0" in text
    assert cells_of(text, "| loops | z3 |")[2:6] == ["1", "1", "1", "0"]  # problems, taken, decided, rejected
    stored = json.loads(out.with_suffix(".json").read_text())
    assert set(stored["runs"]) == {"loops"} and set(stored["runs"]["loops"]) == {"sum B=3"}
    p = run_engine(*common, "--resume")  # everything stored: nothing runs, nothing changes
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(out.with_suffix(".json").read_text()) == stored
    out.unlink()
    assert run_engine("--render", "--output", str(out)).returncode == 0
    assert out.read_text() == text


def test_engine_report_lists_a_disagreement_and_exits_1(tmp_path):
    def result(outcome: str, by: str) -> dict:
        return {"outcome": outcome, "decided_by": by, "reason": "", "wall": 1.0, "timeout": 60}

    runs = {"tcas": {"tcas_v1": {"z3": result("verified", "z3"), "bitwuzla": result("violated", "bitwuzla")},
                     "tcas_v2": {"z3": result("unknown", None), "bitwuzla": result("violated", "bitwuzla")}},
            "loops": {"sum B=3": {"z3": result("bound-too-small", "z3"), "bitwuzla": result("verified", "bitwuzla")}}}
    out = tmp_path / "engine.md"
    out.with_suffix(".json").write_text(json.dumps({"invocations": [], "seed": 1, "runs": runs}))
    p = run_engine("--render", "--output", str(out))
    assert p.returncode == 1
    text = out.read_text()
    assert "* Disagreements between decided verdicts: 2" in text
    assert "  * tcas tcas_v1: bitwuzla violated, z3 verified" in text
    assert "  * loops sum B=3: bitwuzla verified, z3 bound-too-small" in text
    assert cells_of(text, "| tcas_v1 |")[5] == "**NO**" and cells_of(text, "| tcas_v2 |")[5] == "yes"
