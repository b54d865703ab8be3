"""Arrays written on some paths only: the guarded stores of one SSA chain per
array (``store(a, i, ite(guard, v, a[i]))``, no Φ over whole arrays) must
mean what gcc computes, through branches, loops with break, calls that
return early and short-circuit operators."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_encode_vs_gcc import GCC, INT, Case, check_crepair, run_gcc

BRANCHES = """
int f(int x) {
    int a[4];
    a[0] = 0; a[1] = 1; a[2] = 2; a[3] = 3;
    if (x > 0) {
        a[1] = 10;
        if (x > 5) a[2] = 20; else a[3] = 30;
    } else {
        a[0] = -1;
    }
    for (int i = 0; i < 3; i++) {
        if (a[i] >= 5) break;
        a[i] += 100;
    }
    return a[0] * 1000000 + a[1] * 10000 + a[2] * 100 + a[3];
}
"""

CALLS = """
void put(int a[], int i, int v) {
    if (v < 0) return;
    a[i] = v;
}
int f(int x) {
    int a[3];
    a[0] = 1; a[1] = 2; a[2] = 3;
    put(a, 0, x);
    put(a, 1, x - 5);
    put(a, 2, a[0] + a[1]);
    return a[0] * 10000 + a[1] * 100 + a[2];
}
"""

SHORT_CIRCUIT = """
int g[2];
int f(int x) {
    int r = 0;
    if (x > 0 && g[0]++ < 1) g[1] = 9;
    if (x > 3 || (g[1] = g[1] + 1) > 5) r = g[1] * 10;
    return (x > 1 ? g[0]++ : g[1]--) * 1000 + g[0] * 100 + g[1] + r;
}
"""

CASES = {
    f"{name}_{x}": Case(source, INT, [(INT, x)], unwind=4)
    for name, source, xs in [
        ("branches", BRANCHES, (-3, 2, 7)),
        ("calls", CALLS, (-1, 3, 7)),
        ("short_circuit", SHORT_CIRCUIT, (-1, 2, 5)),
    ]
    for x in xs
}


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_guarded_array_stores_agree_with_gcc(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    check_crepair(case, run_gcc(case, tmp_path), tmp_path)
