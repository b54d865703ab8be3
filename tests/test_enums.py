"""Enumerations in the bounded engine (crepair.frontend.enums): the facts a
program asserts about its enumerations hold under gcc (the program is run)
and are verified by crepair; a false one is violated."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import crepair
from crepair.errors import UnsupportedConstruct

from cprog import write_c

GCC = shutil.which("gcc")

FACTS = """
    #include <assert.h>
    enum color { RED, GREEN = 5, BLUE, LAST = BLUE * 2 + 1 };
    typedef enum { NEG = -2, ZERO_AGAIN = NEG + 2 } sign;
    enum flags { F1 = 1 << 0, F2 = 1 << 1, F3 = 0x4, F4 = 010 };
    enum chars { NL = '\\n', LETTER = 'a', AFTER };
    struct item { enum color c; int n; };

    int shade(enum color c) {
        switch (c) {
        case RED: return 1;
        case GREEN: return 2;
        case BLUE: return 3;
        default: return 4;
        }
    }

    int main(void) {
        enum color c = BLUE;
        sign s = NEG;
        int counts[LAST + 1] = { 0 };  /* a dimension names a constant */
        counts[LAST] = GREEN;
        struct item it = { GREEN, 3 };
        assert(RED == 0 && GREEN == 5 && BLUE == 6 && LAST == 13);
        assert(ZERO_AGAIN == 0 && (F1 | F2 | F3 | F4) == 15);
        assert(NL == 10 && LETTER == 97 && AFTER == 98);
        assert(shade(c) == 3 && shade(RED) == 1 && shade(LAST) == 4 && shade(it.c) == 2);
        assert(s < 0);               /* an enumeration with a negative constant is int */
        assert(c - 7 > 0);           /* one without is unsigned int (gcc): 6u - 7 wraps */
        assert(sizeof(enum color) == 4 && sizeof(c) == 4);
        assert(sizeof(counts) == 14 * sizeof(int) && counts[13] == 5 && counts[0] == 0);
        {
            int GREEN = 42;          /* a local hides the constant ... */
            assert(GREEN == 42);
            enum { GREEN2 = 7, RED = 9 };  /* ... and a block's constant hides the file's */
            assert(RED == 9 && GREEN2 == 7);
        }
        assert(RED == 0 && GREEN == 5);
        CHECK
        return 0;
    }
"""


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
def test_the_enumeration_facts_gcc_agrees_with_are_verified(tmp_path):
    path = write_c(tmp_path, FACTS.replace("CHECK", ""))
    exe = tmp_path / "facts"
    subprocess.run([GCC, "-O0", "-w", str(path), "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 0  # every assertion holds under gcc
    result = crepair.verify(path, unwind=2)
    assert result.outcome == crepair.VerifyOutcome.VERIFIED, result.reason


def test_a_false_fact_about_an_enumeration_is_violated_at_its_line(tmp_path):
    source = FACTS.replace("CHECK", "int k = nondet_int(); assert(k != BLUE + GREEN);")
    path = write_c(tmp_path, source)
    result = crepair.verify(path, unwind=2)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    line = next(i for i, text in enumerate(source.splitlines()) if "k != BLUE" in text)
    assert result.counterexample.assertion.line == line  # write_c drops the first (empty) line
    assert [i.value for i in result.counterexample.inputs] == [11]


def test_an_enumerator_value_crepair_cannot_evaluate_is_named(tmp_path):
    path = write_c(tmp_path, """
        enum size { S = sizeof(long) };
        int main(void) { return S; }
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert "enum whose values are not integer constant expressions crepair evaluates" in str(info.value)
