"""Helpers shared by the tests: write a C program to a temporary file."""

from __future__ import annotations

import textwrap
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"


def write_c(tmp_path: Path, source: str, name: str = "prog.c") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    return path


# A clamp whose limit is one too high: level 1 cannot fix it, level 2 can
# (``y > 9`` with ``y = 9``); shared by the command-line and UNKNOWN tests.
CLAMP_TOO_HIGH = """
    int f(int x) {
        int y = x + 1;
        if (y > 10)
            y = 10;
        return y;
    }
    int main(void) {
        int x = nondet_int();
        __CPROVER_assume(x >= 0 && x <= 20);
        assert(f(x) <= 9);
        return 0;
    }
"""


# Counts the characters of a line; at the end of an input without a newline
# it never ends (getchar() keeps returning EOF): shared by the space and the
# meta-program tests.
NEWLINE_LOOP = """
#include <stdio.h>
int main(void) {
    int c, n = 0;
    while ((c = getchar()) != '\\n')
        n++;
    printf("%d\\n", n);
    return 0;
}
"""
