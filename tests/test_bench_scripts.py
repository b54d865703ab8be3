"""Every benchmark script under bench/ still imports and parses its
command line: ``python bench/X.py --help`` exits 0 (bench/scale.py and
bench/heap.py were broken by moves of the code they import, unnoticed
until a table had to be regenerated); and the suite of ``crepair bench
codeflaws-reference`` with its printer (a job per runnable defect, the
first repair judged on the held-out tests)."""

import importlib
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
