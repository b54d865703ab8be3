"""``qsort`` in the bounded engine (crepair.encode.sorting): agreement with
gcc/glibc on drawn arrays (ties included: rows ``{key, index}`` show the
order of equal keys), verdicts with counterexamples that replay, the
unwinding cut and the rejected comparators."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crepair
from crepair.errors import UnsupportedConstruct

from cprog import write_c
from replay import failed_line, replay, replayable

GCC = shutil.which("gcc")
VERIFIED = crepair.VerifyOutcome.VERIFIED
VIOLATED = crepair.VerifyOutcome.VIOLATED

#: comparators of rows {key, index}: consistent total preorders of the keys
COMPARATORS = {
    "ascending": "return *(const int *)a - *(const int *)b;",
    "descending": "int x = *(const int *)a, y = *(const int *)b; return (y > x) - (y < x);",
    "modulo 3": "int x = *(const int *)a, y = *(const int *)b; return (x % 3 + 3) % 3 - (y % 3 + 3) % 3;",
}


def _program(keys: list[int], comparator: str, check: str) -> str:
    n = len(keys)
    fill = " ".join(f"r[{i}][0] = {k}; r[{i}][1] = {i};" for i, k in enumerate(keys))
    return f"""
        #include <stdio.h>
        #include <stdlib.h>
        int cmp(const void *a, const void *b) {{ {COMPARATORS[comparator]} }}
        int main(void) {{
            int r[7][2], i;
            {fill}
            qsort(r, {n}, sizeof(r[0]), cmp);
            {check}
            return 0;
        }}
    """


def _gcc_rows(tmp_path, keys: list[int], comparator: str) -> list[tuple[int, int]]:
    printing = 'for (i = 0; i < %d; i++) printf("%%d %%d\\n", r[i][0], r[i][1]);' % len(keys)
    source = write_c(tmp_path, _program(keys, comparator, printing), "gcc.c")
    exe = tmp_path / "gcc"
    subprocess.run([GCC, "-O0", "-w", str(source), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    return [(int(out[i]), int(out[i + 1])) for i in range(0, len(out), 2)]


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.integers(-4, 4), min_size=0, max_size=6), comparator=st.sampled_from(sorted(COMPARATORS)))
def test_qsort_agrees_with_glibc(tmp_path, keys, comparator):
    rows = _gcc_rows(tmp_path, keys, comparator)
    same = " && ".join(f"r[{i}][0] == {k} && r[{i}][1] == {j}" for i, (k, j) in enumerate(rows)) or "1"
    path = write_c(tmp_path, _program(keys, comparator, f"assert({same});"))
    result = crepair.verify(path, unwind=6)
    assert result.outcome == VERIFIED, (keys, comparator, rows)
    assert result.bound.too_small is False
    path = write_c(tmp_path, _program(keys, comparator, f"assert(!({same}));"))
    assert crepair.verify(path, unwind=6).outcome == VIOLATED


SORTED_INPUTS = """
    #include <stdlib.h>
    int cmp(const void *a, const void *b) {
        int x = *(const int *)a, y = *(const int *)b;
        return x < y ? -1 : x > y;
    }
    int main(void) {
        int a[4] = {0, 0, 0, 0}, i;
        for (i = 0; i < 4; i++) a[i] = nondet_int();
        qsort(a, 4, sizeof a[0], cmp);
        assert(CHECK);
        return 0;
    }
"""


def test_sorted_inputs_are_verified_sorted(tmp_path):
    check = "a[0] <= a[1] && a[1] <= a[2] && a[2] <= a[3]"
    result = crepair.verify(write_c(tmp_path, SORTED_INPUTS.replace("CHECK", check)), unwind=4)
    assert result.outcome == VERIFIED
    assert result.bound.too_small is False


def test_a_violation_of_sorted_inputs_replays_under_gcc(tmp_path):
    path = write_c(tmp_path, SORTED_INPUTS.replace("CHECK", "!(a[0] == -7 && a[3] == 9)"))
    result = crepair.verify(path, unwind=4)
    assert result.outcome == VIOLATED
    values = sorted(int(i.value) for i in result.counterexample.inputs if i.label == "nondet_int()")
    assert values[0] == -7 and values[-1] == 9
    assert replayable(result.counterexample)
    status, stderr = replay(path, result.counterexample, tmp_path)
    assert status != 0 and failed_line(stderr) == 10


def test_more_elements_than_the_bound_cut_the_run(tmp_path):
    path = write_c(tmp_path, """
        #include <stdlib.h>
        int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
        int main(void) {
            int a[8] = {5, 4, 3, 2, 1, 0, 7, 6}, n = nondet_int();
            __CPROVER_assume(n >= 0 && n <= 8);
            qsort(a, n, sizeof(int), cmp);
            assert(n < 2 || a[0] <= a[1]);
            return 0;
        }
    """)
    result = crepair.verify(path, unwind=3)
    assert result.outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL
    assert "qsort at" in result.bound.message()
    assert crepair.verify(path, unwind=8).outcome == VERIFIED


def test_a_sort_past_the_array_is_out_of_bounds(tmp_path):
    path = write_c(tmp_path, """
        #include <stdlib.h>
        int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
        int main(void) {
            int a[3] = {3, 2, 1};
            qsort(a, 4, sizeof(int), cmp);
            return 0;
        }
    """)
    result = crepair.verify(path, unwind=4)
    assert result.outcome == VIOLATED
    assert result.counterexample.violated == crepair.Violation.POINTER_BOUNDS


@pytest.mark.parametrize("comparator, what", [
    ("int cmp(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }",
     "conversion from int * to char *"),
    ("int cmp(const void *a) { return 0; }", "qsort comparator 'cmp' that does not take 2 parameters"),
])
def test_unsupported_comparators_are_named(tmp_path, comparator, what):
    path = write_c(tmp_path, f"""
        #include <stdlib.h>
        {comparator}
        int main(void) {{
            int a[3] = {{3, 2, 1}};
            qsort(a, 3, sizeof(int), cmp);
            return 0;
        }}
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path, unwind=3)
    assert what in str(info.value)
