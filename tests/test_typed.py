"""The typed C layer (crepair.typed) against gcc: the type of every
expression of the gcc-agreement generator's programs (random and
targeted, ``test_encode_vs_gcc.py``) and of a program written to reach
every rule, probed with ``__builtin_types_compatible_p(__typeof__(e), T)``
in the expression's own scope (``typeprobe.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from crepair.typed.model import (CHAR, DOUBLE, FLOAT, INT, LLONG, LONG, SCHAR, SHORT, UINT, ULLONG, ULONG,
                                 integer_literal, promote, usual)
from crepair.typed.program import typed_functions

import test_encode_vs_gcc as agreement
from cprog import write_c
from typeprobe import disagreements

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not installed")


@pytest.mark.parametrize("a, b, common", [
    (CHAR, CHAR, INT), (UINT, INT, UINT), (UINT, LONG, LONG), (ULONG, LONG, ULONG), (LLONG, ULONG, ULLONG),
    (LONG, LLONG, LLONG), (FLOAT, INT, FLOAT), (FLOAT, DOUBLE, DOUBLE), (SCHAR, CHAR, INT),
])
def test_usual_arithmetic_conversions(a, b, common):
    assert usual(a, b) == common == usual(b, a)


@pytest.mark.parametrize("text, value, ctype", [
    ("2147483647", 2147483647, INT), ("2147483648", 2147483648, LONG), ("0x80000000", 2147483648, UINT),
    ("0xffffffffffffffff", 2**64 - 1, ULONG), ("9223372036854775808", 2**63, ULLONG), ("1u", 1, UINT),
    ("1ll", 1, LLONG), ("017", 15, INT), ("0b101", 5, INT), ("1LU", 1, ULONG),
])
def test_integer_literals_take_the_first_type_that_holds_them(text, value, ctype):
    assert integer_literal(text) == (value, ctype)
    assert promote(CHAR) == INT and promote(ctype) == ctype


def test_expressions_are_typed_in_their_scopes_in_preorder():
    from pycparser import c_parser
    ast = c_parser.CParser().parse("""
        unsigned char g;
        long f(short s) {
            int x = s << 1;
            { char x = 'a'; g = x + 1u; }
            for (long x = 0; x < 2; x++) g = x;
            return x;
        }""")
    f = typed_functions(ast)["f"]
    seen = [(e.text, e.type.text) for e in f.expressions]
    assert seen == [
        ("s << 1", "int"), ("s", "short"), ("1", "int"),
        ("'a'", "int"), ("g = x + 1u", "unsigned char"), ("g", "unsigned char"), ("x + 1u", "unsigned int"),
        ("x", "char"), ("1u", "unsigned int"),
        ("0", "int"), ("x < 2", "int"), ("x", "long"), ("2", "int"), ("x++", "long"), ("x", "long"),
        ("g = x", "unsigned char"), ("g", "unsigned char"), ("x", "long"),
        ("x", "int"),
    ]
    assert f.returns == LONG and f.params == (("s", SHORT),)


EVERY_RULE = r"""
#include <string.h>
#include <stdlib.h>
struct point { int x; long y; unsigned char tag[4]; struct point *next; };
typedef struct point point_t;
typedef unsigned short word;
static const int limit = 3;
enum { ZERO, ONE };
double half(float f) { return f / 2; }
long f(char c, signed char sc, unsigned char uc, short s, word w, unsigned u, long l, long long ll,
       unsigned long long ull, float fl, double d, int *p, const char *text, point_t *pt) {
    int a[5] = {1, 2, 3};
    char name[8] = "abc";
    struct point q = {1, 2};
    size_t n = strlen(text) + sizeof a + sizeof(long);
    long r = c + sc + uc + s + w + u + l + ll + (long) ull;
    r += (c < sc) + !uc + ~s + -w + (u >> 1) + (l << 2) + (ll % 3) + (ull & 1u) + 'x' + ONE + limit;
    r += fl > 0.5f ? 1 : 2.0;
    d = fl * 2 + d / 3 + half(fl) + 1e3 + 2.5f + (float) r;
    r += *p + p[1] + a[2] + 2[a] + *(a + 1) + (&a[3] - a) + (p == a) + name[0] + *text;
    r += q.x + q.y + q.tag[1] + pt->next->x + (*pt).y + (pt ? pt->tag[0] : 0);
    r += (s++, uc--) + ++ll + w-- + (r = l) + (uc += 2) + (c ? u : l) + (c ? sc : uc);
    r += abs((int) r) + labs(l) + (long) n + (p != 0) + (text + 1 == 0) + (point_t *) 0 - pt;
    for (int i = 0, j = 1; i < s && j; i++, j--)
        r ^= i * j + (unsigned char) i;
    switch (uc & 3) { case ONE: r++; break; default: r--; }
    return r + (long) d + sizeof(point_t) + (n > 0 && l || !ll);
}
"""


@needs_gcc
def test_every_rule_agrees_with_gcc(tmp_path):
    mismatches, probed, skipped = disagreements(write_c(tmp_path, EVERY_RULE, "every.c"), GCC)
    assert mismatches == []
    assert probed >= 250 and len(skipped) <= 12, (probed, skipped)


@needs_gcc
@pytest.mark.parametrize("name", sorted(agreement.TARGETED))
def test_targeted_programs_agree_with_gcc(name, tmp_path):
    case, _ = agreement.TARGETED[name]
    path = write_c(tmp_path, agreement.gcc_program(case), f"{name}.c")
    mismatches, probed, _ = disagreements(path, GCC)
    assert mismatches == [] and probed > 0


@needs_gcc
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(prog=agreement.programs())
def test_random_programs_agree_with_gcc(prog, tmp_path: Path):
    for safe in (False, True):
        path = write_c(tmp_path, agreement.gcc_program(prog.case(safe)), f"random{int(safe)}.c")
        mismatches, probed, _ = disagreements(path, GCC)
        assert mismatches == [], path.read_text()
        assert probed > 0
