"""Helpers shared by the tests: write a C program to a temporary file."""

from __future__ import annotations

import textwrap
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"


def write_c(tmp_path: Path, source: str, name: str = "prog.c") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    return path
