"""Every benchmark script under bench/ still imports and parses its
command line: ``python bench/X.py --help`` exits 0 (bench/scale.py and
bench/heap.py were broken by moves of the code they import, unnoticed
until a table had to be regenerated)."""

import subprocess
import sys
from pathlib import Path

import pytest

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
