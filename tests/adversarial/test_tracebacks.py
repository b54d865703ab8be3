"""Inputs that used to end in a Python traceback (issue 26, item 5): each
must be one line on standard error and a documented exit code.

Run as users do: ``python -m crepair.cli`` in the program's own folder,
relative paths, output captured (not a terminal)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import crepair

SRC = str(Path(crepair.__file__).resolve().parents[1])
BENCH = next((p for p in (Path(__file__).resolve().parents[3] / "shared" / "benchmarks",
                          Path("/work/shared/benchmarks")) if p.is_dir()), None)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def crepair_cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC, "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def one_line(run: subprocess.CompletedProcess) -> str:
    """The run's standard error, which must be one line and no traceback."""
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    return lines[0]


@pytest.fixture
def sum_c(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLES / "sum.c", tmp_path / "sum.c")
    return tmp_path / "sum.c"


@pytest.mark.skipif(BENCH is None, reason="the shared benchmarks are not here")
def test_a_later_stage_timing_out_while_encoding_is_a_json_report(tmp_path):
    shutil.copy(BENCH / "loops" / "bubblesort.c", tmp_path / "bubblesort.c")
    run = crepair_cli("repair", "bubblesort.c", "--timeout", "5", "--json", cwd=tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(run.stdout)  # one JSON document: the run's report, or the hard stop's error when a z3
    # check ignores its limit for more than crepair.cli.HARD_STOP_GRACE (1 s) past --timeout
    assert run.returncode in (4, 8)
    assert report.get("outcome") in ("unknown", "bound-too-small") or report["error"]["kind"] == "unknown", report


@pytest.mark.parametrize("html", ["missing/report.html", "."])
def test_html_that_cannot_be_written_is_a_usage_error_before_the_run(sum_c, html):
    before = sum_c.read_bytes()
    run = crepair_cli("repair", "sum.c", "--first", "--apply", "--html", html, cwd=sum_c.parent)
    assert run.returncode == 2 and "--html" in one_line(run) and ("does not exist" in run.stderr or "folder" in run.stderr)
    assert sum_c.read_bytes() == before and not (sum_c.parent / "sum.c.orig").exists()
    assert run.stdout == ""  # refused before the run


def test_apply_through_a_symlink_to_a_read_only_file_leaves_no_backup(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    shutil.copy(EXAMPLES / "sum.c", folder / "sum.c")
    (folder / "sum.c").chmod(0o444)
    folder.chmod(0o555)
    (tmp_path / "link.c").symlink_to(folder / "sum.c")
    try:
        run = crepair_cli("repair", "link.c", "--first", "--apply", cwd=tmp_path)
    finally:
        folder.chmod(0o755)
    assert run.returncode == 3 and "read-only" in one_line(run)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "link.c"]
    assert sorted(p.name for p in folder.iterdir()) == ["sum.c"]


UNBOUNDED = """\
int f(int n) { return f(n + 1); }
int main(void) { int x = f(0); __CPROVER_assert(x == 1, "a"); return 0; }
"""


def test_unbounded_recursion_is_a_bound_report(tmp_path):
    (tmp_path / "rec.c").write_text(UNBOUNDED)
    run = crepair_cli("verify", "rec.c", cwd=tmp_path)
    assert "Traceback" not in run.stderr and run.returncode == 8, run.stderr
    assert "bound 8 is too small (recursion at rec.c:1:" in run.stdout


def test_recursion_too_deep_to_encode_is_bad_input(tmp_path):
    (tmp_path / "rec.c").write_text(UNBOUNDED)
    run = crepair_cli("verify", "rec.c", "--unwind", "3000", cwd=tmp_path)
    assert run.returncode == 3 and "too deep to encode at unwinding bound 3000" in one_line(run)


@pytest.mark.parametrize("value", ["inf", "1e400", "1e300"])
def test_an_infinite_or_huge_timeout_is_a_usage_error(sum_c, value):
    run = crepair_cli("verify", "sum.c", "--timeout", value, cwd=sum_c.parent)
    assert run.returncode == 2 and "--timeout" in one_line(run)


def test_debug_with_a_missing_script_names_the_file(tmp_path):
    heap = Path(__file__).resolve().parents[1] / "data" / "heap" / "fig1_reverse.c"
    shutil.copy(heap, tmp_path / "fig1.c")
    run = crepair_cli("debug", "--script", "missing.txt", "fig1.c", cwd=tmp_path)
    assert run.returncode == 2 and "missing.txt" in one_line(run)


def test_batch_keeps_a_yaml_date_in_meta(sum_c):
    (sum_c.parent / "m.yaml").write_text("jobs:\n  - program: sum.c\n    command: verify\n"
                                         "    meta: {date: 2024-01-02, when: 2024-01-02 10:20:30}\n")
    run = crepair_cli("batch", "m.yaml", "-o", "r.jsonl", "--quiet", "--jobs", "1", cwd=sum_c.parent)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    (record,) = [json.loads(line) for line in (sum_c.parent / "r.jsonl").read_text().splitlines()]
    assert record["meta"]["date"] == "2024-01-02" and record["outcome"] == "violated"


def test_batch_output_that_is_a_folder_is_a_usage_error(sum_c):
    (sum_c.parent / "out").mkdir()
    run = crepair_cli("batch", "sum.c", "-o", "out", "--resume", "--quiet", cwd=sum_c.parent)
    assert run.returncode == 2 and "-o out: not a regular file" in one_line(run)


def test_batch_output_under_a_regular_file_is_a_usage_error(sum_c):
    run = crepair_cli("batch", "sum.c", "-o", "sum.c/r.jsonl", "--quiet", cwd=sum_c.parent)
    assert run.returncode == 2 and "-o sum.c/r.jsonl" in one_line(run)


def test_batch_resume_with_a_results_id_that_is_a_list_is_bad_input(sum_c):
    (sum_c.parent / "r.jsonl").write_text('{"id": [1, 2]}\n')
    run = crepair_cli("batch", "sum.c", "-o", "r.jsonl", "--resume", "--quiet", cwd=sum_c.parent)
    assert run.returncode == 3 and "r.jsonl:1:" in one_line(run)


def test_the_hard_stop_writes_nothing_once_the_report_is_being_written(tmp_path):
    # the race behind two JSON documents: the report is printed (or --apply writes) as --timeout + 1 s passes;
    # the hard stop then leaves the run to end with its report
    script = ("import argparse, sys, time\n"
              "from crepair import cli\n"
              "from crepair.cli.common import FINAL_OUTPUT\n"
              "args = argparse.Namespace(command='repair', timeout=0.01, started=time.monotonic())\n"
              "timer = cli._hard_stop(args, True)\n"
              "FINAL_OUTPUT.claim()\n"
              "time.sleep(cli.HARD_STOP_GRACE + 0.5)\n"
              "print('report')\n")
    env = {**os.environ, "PYTHONPATH": SRC}
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, "report\n", "")
    # without the report's claim the hard stop ends the run: its error, exit 4
    run = subprocess.run([sys.executable, "-c", script.replace("FINAL_OUTPUT.claim()\n", "")], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 4 and json.loads(run.stdout)["error"]["kind"] == "unknown", run


def test_commands_run_one_after_another_in_one_process(sum_c, capsys):
    # the report's claim of the final output is the run's: a script (or a test) calling main() again, or a
    # command's run() directly in another thread, runs (a claim that outlived its run once blocked them)
    import argparse
    import threading

    from crepair.cli import main
    from crepair.cli.common import finish

    for _ in range(3):
        assert main(["verify", str(sum_c), "--unwind", "2", "--timeout", "60", "--json"]) in (0, 1, 8)
        assert json.loads(capsys.readouterr().out)["outcome"]
    direct = threading.Thread(target=finish, args=(argparse.Namespace(json=False), "{}", lambda: None))
    direct.start()
    direct.join(10)
    assert not direct.is_alive()
    assert main(["verify", str(sum_c), "--unwind", "2", "--timeout", "60", "--json"]) in (0, 1, 8)
