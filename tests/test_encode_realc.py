"""Real-C constructs in the bounded engine: the standard headers, switch,
array initializers and strings, 64-bit types, inputs and library models.

Their agreement with gcc on concrete values is checked in
``test_encode_vs_gcc.py``; here: verdicts, counterexamples, errors and a
repair through a switch.
"""

from __future__ import annotations

import pytest

import crepair
from crepair.encode import encode
from crepair.encode.formula import LocationKind
from crepair.encode.ops import string_bytes
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend import load_program

from cprog import write_c

VERIFIED = crepair.VerifyOutcome.VERIFIED
VIOLATED = crepair.VerifyOutcome.VIOLATED


def verify(tmp_path, source: str, unwind: int = 5):
    return crepair.verify(write_c(tmp_path, source), unwind=unwind)


def inputs_of(result) -> dict[str, int]:
    return {i.label: i.value for i in result.counterexample.inputs}


# ----------------------------------------------------------------- headers
ALL_HEADERS = """
    #include <string.h>
    #include <ctype.h>
    #include <math.h>
    #include <limits.h>
    #include <stdint.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <stddef.h>
    #include <inttypes.h>
    #include <assert.h>
    #include <stdbool.h>
    #include <time.h>
    int main(void) {
        int64_t big = 1;
        big <<= 40;
        uint8_t byte = 255;
        byte++;
        size_t n = 0;
        n--;
        long long ll = LLONG_MAX;
        bool ok = true;
        assert(big == 1099511627776LL && byte == 0 && n == SIZE_MAX && n == ULONG_MAX && ok);
        assert(INT_MIN == -2147483647 - 1 && sizeof_is_not_needed() == 0);
        assert(ll == 9223372036854775807LL && UINT_MAX == 4294967295U && CHAR_BIT == 8);
        assert(EOF == -1 && EXIT_SUCCESS == 0 && NULL == 0);
        printf("%d\\n", 1);
        return 0;
    }
    int sizeof_is_not_needed(void) { return 0; }
"""


def test_programs_with_the_standard_headers_verify(tmp_path):
    assert verify(tmp_path, ALL_HEADERS).outcome == VERIFIED


def test_limits_have_the_types_of_gcc(tmp_path):
    # INT_MIN is an int (a long would stay negative: -2147483648L + 0u is a long)
    src = """
        #include <limits.h>
        int main(void) {
            assert(INT_MIN + 0u == 2147483648u && LONG_MIN + 0ul == 9223372036854775808ul);
            assert(UINT_MAX + 1 == 0 && ULLONG_MAX + 1 == 0 && SCHAR_MIN == -128);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


def test_unmodelled_library_call_names_the_function(tmp_path):
    path = write_c(tmp_path, """
        #include <string.h>
        int main(void) {
            char s[4] = "abc";
            int n = strspn(s, "a");
            return n;
        }
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert str(info.value) == f"{path}:4:13: unsupported construct: call to 'strspn': library function not modelled"


def test_unmodelled_call_is_reported_only_when_encoded(tmp_path):
    src = """
        #include <math.h>
        int unused(int x) { return sqrt(x); }
        int main(void) { int x = nondet_int(); assert(x * 0 == 0); return 0; }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


def test_undeclared_library_function_is_still_named(tmp_path):
    path = write_c(tmp_path, "int main(void) { char s[3]; return strrchr(s, 'a') != 0; }\n")
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert info.value.construct == "call to 'strrchr': library function not modelled"


# ------------------------------------------------------------------ inputs
def test_inputs_take_their_declared_types(tmp_path):
    res = verify(tmp_path, """
        unsigned char nondet_byte(void);
        long long nondet();
        int main(void) {
            unsigned char b = nondet_byte();
            long long w = nondet();
            int i = nondetPick();
            unsigned long long u = __VERIFIER_nondet_ulonglong();
            assert(!(b == 200 && w == -5000000000LL && i == -3 && u == 18446744073709551615ULL));
            return 0;
        }
    """)
    assert res.outcome == VIOLATED
    assert inputs_of(res) == {
        "nondet_byte()": 200, "nondet()": -5000000000, "nondetPick()": -3,
        "__VERIFIER_nondet_ulonglong()": 18446744073709551615,
    }


def test_declared_byte_input_stays_in_range(tmp_path):
    src = "unsigned char nondet_byte(void);\nint main(void) { int b = nondet_byte(); assert(b >= 0 && b <= 255); return 0; }\n"
    assert verify(tmp_path, src).outcome == VERIFIED


def test_a_defined_nondet_function_is_called(tmp_path):
    src = "int nondetFive(void) { return 5; }\nint main(void) { assert(nondetFive() == 5); return 0; }\n"
    assert verify(tmp_path, src).outcome == VERIFIED


def test_float_input_is_unsupported(tmp_path):
    path = write_c(tmp_path, "int main(void) { int x = __VERIFIER_nondet_float(); return x; }\n")
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert "__VERIFIER_nondet_float" in info.value.construct


# ------------------------------------------------------------------ switch
CLASSIFY = """
    int classify(int c) {
        int r = 0;
        switch (c) {
        case 'a':
        case 'b':
            r = 1;
            break;
        case 'z':
            r = 2;
        default:
            r += 10;
            break;
        case 100:
            r = 3;
        }
        return r;
    }
"""


@pytest.mark.parametrize("arg, expected", [("'a'", 1), ("'b'", 1), ("'z'", 12), ("100", 3), ("5", 10), ("-1", 10)])
def test_switch_fall_through_default_and_break(tmp_path, arg, expected):
    src = CLASSIFY + f"int main(void) {{ assert(classify({arg}) == {expected}); return 0; }}\n"
    assert verify(tmp_path, src).outcome == VERIFIED


def test_switch_counterexample_reaches_the_falling_case(tmp_path):
    res = verify(tmp_path, CLASSIFY + "int main(void) { int x = nondet_int(); assert(classify(x) != 12); return 0; }\n")
    assert res.outcome == VIOLATED
    assert inputs_of(res) == {"nondet_int()": ord("z")}


def test_switch_in_loop_break_and_continue(tmp_path):
    src = """
        int main(void) {
            int s = 0;
            for (int i = 0; i < 5; i++) {
                switch (i) {
                case 1: continue;
                case 2: s += 100; break;
                case 3: { if (s > 0) break; s = -1; }
                default: s += 1;
                }
                s += 1000;
            }
            assert(s == 4102);
            return 0;
        }
    """
    assert verify(tmp_path, src, unwind=6).outcome == VERIFIED


def test_switch_without_default_or_block_and_nested(tmp_path):
    src = """
        int f(unsigned char k, long v) {
            int r = 7;
            switch (k) case 3: r = 30;
            switch (v) {
            case 5000000000L: r += 1; break;
            case -1: switch (k) { case 3: r *= 2; break; } r += 100;
            }
            return r;
        }
        int main(void) {
            assert(f(3, 5000000000L) == 31 && f(3, -1) == 160 && f(4, -1) == 107 && f(4, 2) == 7);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


def test_switch_skips_statements_before_the_first_label(tmp_path):
    src = """
        int main(void) {
            int x = nondet_int(), y = 0;
            switch (x) { int t; y = 5; case 1: t = 2; y += t; }
            switch (x) case 7: case 8: y = 8;
            switch (x);
            assert(y == 0);
            return 0;
        }
    """
    res = verify(tmp_path, src)
    assert res.outcome == VIOLATED and inputs_of(res)["nondet_int()"] in (1, 7, 8)
    assert verify(tmp_path, src.replace("y == 0", "y == 0 || (x == 1 && y == 2) || (x >= 7 && x <= 8 && y == 8)")).outcome == VERIFIED


def test_switch_value_is_promoted_and_labels_converted(tmp_path):
    # the label 4294967297 converted to the promoted type unsigned int is 1
    src = """
        int f(unsigned short s) { switch (s) { case 65535: return 1; case -1: return 2; } return 0; }
        int g(unsigned u) { switch (u) { case 4294967297L: return 1; } return 0; }
        int main(void) { assert(f(65535) == 1 && g(1) == 1 && g(0) == 0); return 0; }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


def test_switch_locations(tmp_path):
    path = write_c(tmp_path, CLASSIFY + "int main(void) { return classify(nondet_int()); }\n")
    formula, _ = encode(load_program(path), bound=2)
    kinds = [(l.kind, l.text) for l in formula.locations if l.function == "classify"]
    assert kinds[:5] == [
        (LocationKind.ASSIGNMENT, "0"), (LocationKind.ASSIGNMENT, "c"), (LocationKind.CASE_LABEL, "'a'"),
        (LocationKind.CASE_LABEL, "'b'"), (LocationKind.CASE_LABEL, "'z'"),
    ]


@pytest.mark.parametrize("body, error, message", [
    ("switch (x) { case 1: case 1: return 0; }", BadInput, "duplicate case value"),
    ("switch (x) { case 1: { case 2: return 0; } }", UnsupportedConstruct, "case label inside a statement of the switch body"),
    ("switch (x) { x++; { case 1: return 0; } }", UnsupportedConstruct, "case label inside a statement of the switch body"),
    ("switch (x) { default: x = 1; default: return 0; }", BadInput, "multiple default labels in one switch"),
    ("switch (x) { case 1: continue; }", UnsupportedConstruct, "continue outside a loop"),
])
def test_switch_errors(tmp_path, body, error, message):
    path = write_c(tmp_path, f"int main(void) {{ int x = nondet_int(); {body} return 1; }}\n")
    with pytest.raises(error) as info:
        crepair.verify(path)
    assert message in str(info.value)


SWITCH_BUG = """
    int price(int kind) {
        int p = 0;
        switch (kind) {
        case 1: p = 10; break;
        case 3: p = 20; break;
        default: p = 5;
        }
        return p;
    }
    int main(void) {
        int k = nondet_int();
        int expected = k == 1 ? 10 : (k == 2 ? 20 : 5);
        assert(price(k) == expected);
        return 0;
    }
"""


def test_wrong_case_label_is_repaired(tmp_path):
    path = write_c(tmp_path, SWITCH_BUG)
    repairs = list(crepair.repair(path, level=2, max_size=1))
    texts = sorted((c.before, c.after) for r in repairs for c in r.changes)
    assert ("3", "2") in texts
    for r in repairs:
        assert crepair.verify(write_c(tmp_path, r.patched, "fixed.c")).outcome == VERIFIED


def test_wrong_switch_expression_is_repaired(tmp_path):
    src = SWITCH_BUG.replace("switch (kind)", "switch (kind + 1)").replace("case 3:", "case 2:")
    src = src.replace("k == 1 ? 10 : (k == 2 ? 20", "k == 2 ? 10 : (k == 3 ? 20")
    path = write_c(tmp_path, src)
    repairs = list(crepair.repair(path, level=1, max_size=1))
    assert [(c.before, c.after) for r in repairs for c in r.changes] == [("kind + 1", "kind - 1")]
    assert crepair.verify(write_c(tmp_path, repairs[0].patched, "fixed.c")).outcome == VERIFIED


# ------------------------------------------------------------ initializers
def test_array_initializers(tmp_path):
    src = """
        int g[5] = {1, 2};
        char hello[] = "hi\\n";
        unsigned char bytes[4] = "\\377\\x80";
        long gl[] = {-1, 5000000000L, 'x'};
        int scalar = {7};
        int z[3];
        int main(void) {
            int a[10] = {1, 2, 3};
            int zero[4] = {0};
            int b[] = {4, 5, 6};
            char s[8] = "ab";
            char t[] = "x\\ty";
            char exact[3] = "abc";
            char braced[] = {"ok"};
            assert(a[2] == 3 && a[3] == 0 && a[9] == 0 && zero[3] == 0 && b[2] == 6);
            assert(s[0] == 'a' && s[1] == 'b' && s[2] == '\\0' && s[7] == 0);
            assert(t[1] == 9 && t[3] == 0 && exact[2] == 'c' && braced[1] == 'k' && braced[2] == 0);
            assert(g[1] == 2 && g[4] == 0 && hello[2] == '\\n' && hello[3] == 0 && z[2] == 0);
            assert(bytes[0] == 255 && bytes[1] == 128 && bytes[2] == 0);
            assert(gl[0] == -1 && gl[1] == 5000000000L && gl[2] == 120 && scalar == 7);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


def test_initializer_values_are_locations_in_functions(tmp_path):
    path = write_c(tmp_path, "int main(void) { int a[3] = {1, 2 + 3}; assert(a[1] == 5); return 0; }\n")
    formula, _ = encode(load_program(path), bound=1)
    assert [(l.kind, l.text) for l in formula.locations][:2] == [
        (LocationKind.ASSIGNMENT, "1"), (LocationKind.ASSIGNMENT, "2 + 3")
    ]


def test_initializer_array_reports_its_size(tmp_path):
    res = verify(tmp_path, """
        int main(void) {
            char s[] = "abc";
            int i = nondet_int();
            __CPROVER_assume(i >= 0 && i < 4);
            assert(s[i] != 0);
            return 0;
        }
    """)
    assert res.outcome == VIOLATED and inputs_of(res) == {"nondet_int()": 3}


@pytest.mark.parametrize("decl, error, message", [
    ("int a[2] = {1, 2, 3};", BadInput, "excess elements in the initializer of array 'a'"),
    ('char s[2] = "abc";', BadInput, "initializer-string for array 's' is too long"),
    ('int s[4] = "abc";', BadInput, "initialized from a string literal"),
    ("int a[3] = {[1] = 2};", UnsupportedConstruct, "designated initializer"),
    ("int a[3] = {{1}, 2};", UnsupportedConstruct, "nested initializer list"),
])
def test_initializer_errors(tmp_path, decl, error, message):
    path = write_c(tmp_path, f"int main(void) {{ {decl} return 0; }}\n")
    with pytest.raises(error) as info:
        crepair.verify(path)
    assert message in str(info.value)


def test_string_bytes():
    assert string_bytes('"a\\x41\\101\\0z"', None) == b"aAA\x00z"
    assert string_bytes('"\\?\\e\\\\\\""', None) == b"?\x1b\\\""
    assert string_bytes('"é"', None) == "é".encode()
    with pytest.raises(UnsupportedConstruct):
        string_bytes('L"wide"', None)


# ---------------------------------------------------------- library models
def test_ctype_models_give_glibc_values(tmp_path):
    src = """
        #include <ctype.h>
        #include <stdlib.h>
        int main(void) {
            assert(isdigit('7') == 2048 && isdigit('a') == 0 && isalpha('Q') == 1024 && isalnum('3') == 8);
            assert(isspace('\\n') == 8192 && isupper('A') == 256 && islower('a') == 512 && isxdigit('f') == 4096);
            assert(ispunct('!') == 4 && isprint(' ') == 16384 && isgraph(' ') == 0 && iscntrl(127) == 2);
            assert(isblank('\\t') == 1 && isdigit(EOF) == 0 && isalpha(200) == 0 && isalpha(-56) == 0);
            assert(toupper('q') == 'Q' && toupper('Q') == 'Q' && tolower('Q') == 'q' && toupper(EOF) == EOF);
            assert(toupper(-56) == 200 && tolower(-128) == 128 && toupper(1000) == 1000);
            assert(abs(-4) == 4 && abs(-2147483647 - 1) == -2147483647 - 1 && labs(-5000000000L) == 5000000000L);
            assert(llabs(-3LL) == 3);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


def test_ctype_out_of_table_is_unconstrained(tmp_path):
    src = "#include <ctype.h>\nint main(void) { int c = nondet_int(); assert(isdigit(c) == 0 || isdigit(c) == 2048); return 0; }\n"
    res = verify(tmp_path, src)
    assert res.outcome == VIOLATED
    c = inputs_of(res)["nondet_int()"]
    assert not -128 <= c <= 255


def test_isdigit_counterexample(tmp_path):
    src = """
        #include <ctype.h>
        int main(void) {
            char c = nondet_char();
            if (isdigit(c))
                assert(c != '5');
            return 0;
        }
    """
    res = verify(tmp_path, src)
    assert res.outcome == VIOLATED and inputs_of(res) == {"nondet_char()": ord("5")}


def test_library_argument_is_a_location(tmp_path):
    src = """
        #include <stdlib.h>
        int dist(int a, int b) { return abs(a + b); }
        int main(void) {
            int a = nondet_int(), b = nondet_int();
            __CPROVER_assume(a > -100 && a < 100 && b > -100 && b < 100);
            assert(dist(a, b) == (a > b ? a - b : b - a));
            return 0;
        }
    """
    repairs = list(crepair.repair(write_c(tmp_path, src), level=1, max_size=1))
    assert [(c.before, c.after) for r in repairs for c in r.changes] == [("a + b", "a - b")]
