"""``sprintf`` into a char array in the bounded engine (crepair.encode.sprintf):
the bytes and the result agree with gcc/glibc on drawn values, a buffer too
small is an out-of-bounds write whose counterexample replays, and the
conversions it does not print are named."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crepair
from crepair.errors import UnsupportedConstruct

from cprog import write_c
from replay import replay, replayable

GCC = shutil.which("gcc")
VERIFIED = crepair.VerifyOutcome.VERIFIED
VIOLATED = crepair.VerifyOutcome.VIOLATED

#: format -> the argument list, over ``long long v`` (a pinned input) and ``char w[]`` (holding "ab")
FORMATS = {
    "%d": "(int)v", "%u": "(unsigned)v", "%hhd": "(int)v", "%hu": "(unsigned)v", "%lld": "v",
    "%llu": "(unsigned long long)v", "[%d|%s]%c": "(int)v, w, (int)(v & 63) + 48", "%i%%": "(short)v",
}


def _program(fmt: str, value: int, check: str) -> str:
    return f"""
        #include <stdio.h>
        int main(void) {{
            char s[48], w[4] = "ab";
            long long v = nondet_long();
            int k, i;
            __CPROVER_assume(v == {value}LL);
            k = sprintf(s, "{fmt}", {FORMATS[fmt]});
            {check}
            return 0;
        }}
    """


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fmt=st.sampled_from(sorted(FORMATS)),
       value=st.one_of(st.integers(-(1 << 63), (1 << 63) - 1), st.integers(-1000, 1000),
                       st.sampled_from([0, -1, 9, 10, 99, 100, -2147483648, 4294967295, -(1 << 63)])))
def test_sprintf_agrees_with_glibc(tmp_path, fmt, value):
    printing = 'printf("%d\\n", k); for (i = 0; i <= k; i++) printf("%d\\n", s[i]);'
    plain = _program(fmt, value, printing).replace("nondet_long()", f"{value}LL")
    source = write_c(tmp_path, plain.replace(f"__CPROVER_assume(v == {value}LL);", ""), "gcc.c")
    exe = tmp_path / "gcc"
    subprocess.run([GCC, "-O0", "-w", str(source), "-o", str(exe)], check=True)
    k, *chars = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    same = " && ".join([f"k == {k}"] + [f"s[{i}] == {c}" for i, c in enumerate(chars)])
    result = crepair.verify(write_c(tmp_path, _program(fmt, value, f"assert({same});")), unwind=2)
    assert result.outcome == VERIFIED, (fmt, value, k, chars)
    result = crepair.verify(write_c(tmp_path, _program(fmt, value, f"assert(!({same}));")), unwind=2)
    assert result.outcome == VIOLATED


def test_a_number_too_long_for_the_buffer_is_out_of_bounds_and_replays(tmp_path):
    path = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            char s[4] = {0, 0, 0, 0};
            int n = nondet_int();
            __CPROVER_assume(n >= 0 && n <= 9999);
            sprintf(s, "%d", n);
            return s[0];
        }
    """)
    result = crepair.verify(path, unwind=2)
    assert result.outcome == VIOLATED
    assert result.counterexample.violated == crepair.Violation.ARRAY_BOUNDS
    (n,) = [i.value for i in result.counterexample.inputs if i.label == "nondet_int()"]
    assert 1000 <= n <= 9999
    assert replayable(result.counterexample)
    replayed = write_c(tmp_path, path.read_text().replace('sprintf(s, "%d", n);',
                                                          'sprintf(s, "%d", n); assert(s[3] == 0);'), "replayed.c")
    status, _ = replay(replayed, result.counterexample, tmp_path)
    assert status != 0  # gcc wrote a fourth digit where the NUL should be
    fixed = write_c(tmp_path, path.read_text().replace("char s[4] = {0, 0, 0, 0};", "char s[5] = {0, 0, 0, 0, 0};"),
                    "fixed.c")
    assert crepair.verify(fixed, unwind=2).outcome == VERIFIED


def test_the_digits_are_read_back(tmp_path):
    path = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            char s[16];
            int n = nondet_int(), i, sum = 0;
            __CPROVER_assume(n >= 0 && n < 1000);
            sprintf(s, "%d", n);
            for (i = 0; s[i]; i++)
                sum += s[i] - '0';
            assert(sum != 27);
            return 0;
        }
    """)
    result = crepair.verify(path, unwind=4)
    assert result.outcome == VIOLATED
    assert [i.value for i in result.counterexample.inputs if i.label == "nondet_int()"] == [999]


@pytest.mark.parametrize("fmt, what", [("%5d", "sprintf %5d"), ("%x", "sprintf %x"), ("%-d", "sprintf %-d")])
def test_conversions_it_does_not_print_are_named(tmp_path, fmt, what):
    path = write_c(tmp_path, f"""
        #include <stdio.h>
        int main(void) {{
            char s[16];
            sprintf(s, "{fmt}", 5);
            return 0;
        }}
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path, unwind=2)
    assert str(info.value).startswith(f"{path}:4:5: unsupported construct: {what} (sprintf prints")


def test_printf_of_a_choice_of_two_formats_prints_the_chosen_one(tmp_path):
    student = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            int n;
            scanf("%d", &n);
            printf(n > 3 ? "YES %d\\n" : "NO %d\\n", n);
            return 0;
        }
    """, "student.c")
    model = write_c(tmp_path, student.read_text().replace("n > 3", "n >= 3"), "model.c")
    result = crepair.verify(student, reference=model, unwind=2)
    assert result.outcome == VIOLATED
    assert [i.value for i in result.counterexample.inputs if i.label == "scanf %d"] == [3]
    assert crepair.verify(student, reference=student, unwind=2).outcome == VERIFIED


def test_memset_of_part_of_a_large_array(tmp_path):
    path = write_c(tmp_path, """
        #include <string.h>
        unsigned char mem[101];
        int main(void) {
            int l = nondet_int(), n = nondet_int();
            __CPROVER_assume(l >= 0 && n >= 0 && l <= 200 && n <= 200 && l + n <= 101);
            mem[50] = 9;
            memset(&mem[l], 7, n * sizeof(unsigned char));
            assert(mem[50] == 9 || (l <= 50 && 50 < l + n));
            assert(mem[50] != 7 || l != 50 || n != 1);
            return 0;
        }
    """)
    result = crepair.verify(path, unwind=2)
    assert result.outcome == VIOLATED
    assert result.counterexample.assertion.start == path.read_text().index("assert(mem[50] != 7")
    fixed = write_c(tmp_path, path.read_text().replace("    assert(mem[50] != 7 || l != 50 || n != 1);\n", ""),
                    "fixed.c")
    assert crepair.verify(fixed, unwind=2).outcome == VERIFIED
    over = write_c(tmp_path, fixed.read_text().replace("l + n <= 101", "l + n <= 102"), "over.c")
    assert crepair.verify(over, unwind=2).counterexample.violated == crepair.Violation.ARRAY_BOUNDS
