"""Reading and printing doubles in the bounded engine: ``%.Nf`` as glibc
prints it (crepair.solver.fp.fixed against gcc on drawn values), ``%lf``
input and ``--reference`` on two programs that print doubles."""

from __future__ import annotations

import random
import shutil
import struct
import subprocess

import pytest

import crepair
from crepair.solver import fp
from crepair.solver.smt import BitVecVal, simplify

from cprog import write_c

GCC = shutil.which("gcc")
VIOLATED = crepair.VerifyOutcome.VIOLATED


def _values() -> list[float]:
    rng = random.Random(7)
    values = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 2.675, 1.005, 1e-7, 123456.789, 9.2e18, 5e-324, -1e-3]
    values += [rng.uniform(-1e6, 1e6) for _ in range(60)] + [rng.randint(-99999, 99999) / 8 for _ in range(30)]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(62)))[0] for _ in range(30)]
    return values


def _printed(x: float, precision: int) -> str | None:
    pattern = struct.unpack("<Q", struct.pack("<d", x))[0]
    term, ok = fp.fixed(BitVecVal(pattern, 64), 64, precision)
    if not fp.simplify_value(ok):
        return None
    value = simplify(term).as_long()
    digits = str(value & ((1 << 64) - 1)).rjust(precision + 1, "0")
    text = digits[: len(digits) - precision] + ("." + digits[len(digits) - precision:] if precision else "")
    return ("-" if value >> 64 else "") + text


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
def test_fixed_point_printing_agrees_with_glibc(tmp_path):
    values = _values()
    precisions = (0, 1, 2, 3, 6, 9)
    table = ", ".join(f"{struct.unpack('<Q', struct.pack('<d', v))[0]}ULL" for v in values)
    source = write_c(tmp_path, f"""
        #include <stdio.h>
        #include <string.h>
        static const unsigned long long bits[] = {{{table}}};
        int main(void) {{
            int p[] = {{{", ".join(map(str, precisions))}}};
            for (unsigned i = 0; i < sizeof bits / sizeof bits[0]; i++)
                for (int j = 0; j < {len(precisions)}; j++) {{
                    double d;
                    memcpy(&d, &bits[i], sizeof d);
                    printf("%.*f\\n", p[j], d);
                }}
            return 0;
        }}
    """, "gcc.c")
    exe = tmp_path / "gcc"
    subprocess.run([GCC, "-O0", "-w", str(source), "-o", str(exe)], check=True)
    lines = iter(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines())
    checked = 0
    for v in values:
        for precision in precisions:
            expected = next(lines)
            ours = _printed(v, precision)
            if ours is None:  # the value is cut: at least 2^63 once scaled
                assert abs(v) * 10 ** precision >= 2 ** 62, (v, precision)
                continue
            assert ours == expected, (v, precision)
            checked += 1
    assert checked > 500


def test_a_different_precision_prints_differently(tmp_path):
    model = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            double a;
            scanf("%lf", &a);
            printf("%.1f\\n", a);
            return 0;
        }
    """, "model.c")
    student = write_c(tmp_path, model.read_text().replace("%.1f", "%.2f"), "student.c")
    result = crepair.verify(student, reference=model, unwind=2, timeout=120)
    assert result.outcome == VIOLATED


def test_reading_a_float_is_reported_as_integer_inputs_only(tmp_path):
    path = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            double a;
            if (scanf("%lf", &a) == 1)
                assert(a * 0 == 0 || a != a);
            return 0;
        }
    """)
    result = crepair.verify(path, unwind=2, timeout=120)
    assert result.outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL
    assert "float input (integer values tried only)" in result.bound.message()


def test_scanf_of_an_int_into_a_char_is_an_out_of_bounds_write(tmp_path):
    path = write_c(tmp_path, """
        #include <stdio.h>
        unsigned char m;
        int main(void) {
            int t;
            scanf("%d", &t);
            if (t > 5)
                scanf("%d", &m);
            return m;
        }
    """)
    result = crepair.verify(path, unwind=2)
    assert result.outcome == VIOLATED
    assert result.counterexample.violated == crepair.Violation.POINTER_BOUNDS
    assert [i.value for i in result.counterexample.inputs if i.label == "scanf %d"][0] > 5
