"""One time limit and one memory limit for every stage (issue 26, item 7):
``--timeout S`` counts from the start of the command and the run ends at
most 2 s past it (plus the interpreter's own start); the preprocessor is
limited too; a FIFO is refused up front; ``--memory MB`` makes running out
of memory an UNKNOWN outcome, not a traceback."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crepair

SRC = str(Path(crepair.__file__).resolve().parents[1])
ROOT = Path(__file__).resolve().parents[2]
BENCH = next((p for p in (ROOT.parent / "shared" / "benchmarks", Path("/work/shared/benchmarks")) if p.is_dir()),
             None)
CODEFLAWS = BENCH / "codeflaws" if BENCH else None
OVERSHOOT = 2.0  # seconds past --timeout the run may take (crepair.cli.HARD_STOP_GRACE)
GIB = 1 << 30


def crepair_cli(*args: str, cwd: Path, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": SRC, "PYTHONHASHSEED": "0"}
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=timeout)
    return run, time.monotonic() - start


def startup(cwd: Path) -> float:
    """Seconds the interpreter takes to start and load the command line
    (what ``--timeout`` cannot count) on this machine now."""
    env = {**os.environ, "PYTHONPATH": SRC}
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", "import crepair.cli"], cwd=cwd, env=env, check=True)
    return time.monotonic() - start


def codeflaws(name: str, tmp_path: Path) -> tuple[str, str]:
    """The buggy and the accepted program of the Codeflaws defect
    ``name`` (e.g. ``118-B-bug-16904583-16904610``), copied to ``tmp_path``."""
    folder = CODEFLAWS / name
    parts = name.split("-")  # PROBLEM-LETTER-bug-BUGGY-ACCEPTED
    prefix, buggy, accepted = "-".join(parts[:2]), parts[3], parts[4]
    for which, tag in (("buggy.c", buggy), ("accepted.c", accepted)):
        shutil.copy(folder / f"{prefix}-{tag}.c", tmp_path / which)
        (tmp_path / which).chmod(0o644)
    return "buggy.c", "accepted.c"


def one_line(run: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    return lines[0]


needs_codeflaws = pytest.mark.skipif(CODEFLAWS is None or not CODEFLAWS.is_dir(), reason="no Codeflaws here")


def _check_reference_repair(name: str, tmp_path: Path) -> None:
    buggy, accepted = codeflaws(name, tmp_path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    allowance = startup(tmp_path)
    run, seconds = crepair_cli("repair", buggy, "--reference", accepted, "--timeout", "5", "--quiet",
                               cwd=tmp_path)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode in (0, 4, 5, 8), (run.returncode, run.stderr)
    # the margin: the interpreter start-up measured just before varies on a loaded machine
    assert seconds <= 5 + OVERSHOOT + allowance + 1.0, f"{name}: {seconds:.1f} s (start-up {allowance:.1f} s)"
    if peak_kib > before:  # the largest child so far is this run
        assert peak_kib * 1024 <= 2 * GIB, f"{name}: {peak_kib // 1024} MiB"


@needs_codeflaws
def test_codeflaws_118b_with_reference_ends_within_the_time_limit(tmp_path):
    _check_reference_repair("118-B-bug-16904583-16904610", tmp_path)


@pytest.mark.slow
@needs_codeflaws
@pytest.mark.skipif(not os.environ.get("CREPAIR_SLOW"), reason="slow: set CREPAIR_SLOW=1")
@pytest.mark.parametrize("name", ["108-C-bug-634942-634961", "142-B-bug-1705195-1705323",
                                  "14-B-bug-13104829-13104860"])
def test_codeflaws_with_reference_end_within_the_time_limit(tmp_path, name):
    _check_reference_repair(name, tmp_path)


def test_an_include_of_dev_zero_is_stopped(tmp_path):
    (tmp_path / "zero.c").write_text("#include </dev/zero>\nint main(void) { return 0; }\n")
    run, seconds = crepair_cli("verify", "zero.c", "--timeout", "60", cwd=tmp_path, timeout=90)
    assert run.returncode == 3 and "zero.c:1:1" in one_line(run)
    assert seconds < 40


def test_verify_refuses_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "prog.c")
    run, _ = crepair_cli("verify", "prog.c", cwd=tmp_path, timeout=30)
    assert run.returncode == 3 and one_line(run) == "crepair: error: cannot read prog.c: not a regular file"


def test_out_of_memory_is_unknown_in_one_line(tmp_path):
    shutil.copy(ROOT / "examples" / "sum.c", tmp_path / "sum.c")
    run, _ = crepair_cli("repair", "sum.c", "--memory", "64", "--quiet", cwd=tmp_path)
    assert run.returncode == 4 and "out of memory" in one_line(run)


def test_one_rule_tells_out_of_memory_for_the_command_line_and_the_batch_worker():
    from crepair.errors import out_of_memory

    class Z3Exception(Exception):
        pass

    assert out_of_memory(MemoryError())
    assert out_of_memory(RuntimeError("can't start new thread"))
    assert out_of_memory(Z3Exception("b'out of memory'"))
    assert not out_of_memory(ValueError("no memory region at 0x10"))  # a defect, not the limit
    assert not out_of_memory(KeyError("x"))


def test_a_bad_memory_value_is_a_usage_error(tmp_path):
    shutil.copy(ROOT / "examples" / "sum.c", tmp_path / "sum.c")
    run, _ = crepair_cli("verify", "sum.c", "--memory", "10", cwd=tmp_path)
    assert run.returncode == 2 and "--memory" in one_line(run)
