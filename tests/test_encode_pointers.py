"""Pointers and structs in the bounded engine (crepair.encode.memory,
crepair.encode.structs): verdicts, counterexamples, the pointer checks,
and repair and localization through pointers."""

import pytest

import crepair
from crepair import NO_CHECKS, Violation
from crepair.errors import BadInput, UnsupportedConstruct
from cprog import write_c

VERIFIED, VIOLATED = crepair.VerifyOutcome.VERIFIED, crepair.VerifyOutcome.VIOLATED


def verify(tmp_path, source: str, **kwargs):
    return crepair.verify(write_c(tmp_path, source), **kwargs)


SWAP = """
    void swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }
    int main(void) {
        int x = nondet_int(), y = nondet_int();
        int x0 = x, y0 = y;
        swap(&x, &y);
        assert(x == y0 && y == x0);
        return 0;
    }
"""


def test_swap_through_pointers_is_verified(tmp_path):
    assert verify(tmp_path, SWAP).outcome == VERIFIED


def test_swap_that_writes_one_side_only_has_a_counterexample(tmp_path):
    result = verify(tmp_path, SWAP.replace("*b = t;", ""))
    assert result.outcome == VIOLATED
    x, y = [i.value for i in result.counterexample.inputs if i.label == "nondet_int()"]
    assert x != y  # x == y would swap correctly


SUM = """
    int sum(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
    int main(void) {
        int a[3] = {1, 2, 3};
        int *p = a;
        *(p + 1) = 5;
        p++;
        assert(*p == 5 && p[-1] == 1 && p[1] == 3);
        assert(sum(a, 3) == 9 && sum(p, 2) == 8);
        assert(&a[2] - p == 1 && p - a == 1);
        assert(p != a && p == &a[1] && p > a && !(p <= a));
        return 0;
    }
"""


def test_sum_over_an_array_through_a_pointer_parameter(tmp_path):
    assert verify(tmp_path, SUM).outcome == VERIFIED
    assert verify(tmp_path, SUM.replace("sum(p, 2) == 8", "sum(p, 2) == 9")).outcome == VIOLATED


def test_a_pointer_chooses_its_object_on_a_path(tmp_path):
    src = """
        int main(void) {
            int x = 1, y = 2;
            int c = nondet_int();
            int *p = c ? &x : &y;
            *p = *p + 10;
            assert(x + y == 13);
            assert(c ? x == 11 : y == 12);
            assert(x == 11);
            return 0;
        }
    """
    result = verify(tmp_path, src)
    assert result.outcome == VIOLATED
    assert result.counterexample.assertion.line == 8
    assert [i.value for i in result.counterexample.inputs] == [0]


STRUCTS = """
    struct S { int x; int a[3]; char c; };
    struct S make(int v) { struct S s; s.x = v; s.a[0] = 1; s.a[1] = 2; s.a[2] = v; s.c = 'z'; return s; }
    int get(struct S s, int i) { return s.a[i] + s.x; }
    void bump(struct S *p) { p->x++; p->a[1] += 10; }
    int main(void) {
        int v = nondet_int();
        assume(v > 0 && v < 100);
        struct S s = make(v);
        struct S t;
        t = s;
        bump(&t);
        assert(get(s, 2) == 2 * v);
        assert(t.x == v + 1 && t.a[1] == 12 && s.a[1] == 2 && t.c == 'z');
        assert((&t)->a[1] - s.a[1] == 10);
        return 0;
    }
"""


def test_structs_by_value_and_through_a_pointer(tmp_path):
    assert verify(tmp_path, STRUCTS).outcome == VERIFIED
    wrong = verify(tmp_path, STRUCTS.replace("t.x == v + 1", "t.x == v"))
    assert wrong.outcome == VIOLATED and wrong.counterexample.assertion.line == 13


def test_typedef_struct_and_global_struct_start_zeroed(tmp_path):
    src = """
        typedef struct { int lo; int hi; } Range;
        Range g;
        int width(Range *r) { return r->hi - r->lo; }
        int main(void) {
            assert(g.lo == 0 && g.hi == 0);
            g.hi = 7;
            g.lo = 2;
            assert(width(&g) == 5);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED


ARRAY_OF_STRUCTS = """
    struct S { int x; char c; };
    int main(void) {
        struct S arr[3];
        int i = nondet_int();
        assume(i >= 0 && i < 3);
        arr[i].x = 5; arr[i].c = 'a';
        arr[(i + 1) % 3].x = 6;
        assert(arr[i].x == 5 && arr[i].c == 'a');
        struct S *p = &arr[(i + 1) % 3];
        assert(p->x == 6);
        p[0].x = 7;
        assert(arr[(i + 1) % 3].x == 7);
        return arr[2].x;
    }
"""


def test_array_of_structs(tmp_path):
    assert verify(tmp_path, ARRAY_OF_STRUCTS).outcome == VERIFIED
    cex = verify(tmp_path, ARRAY_OF_STRUCTS.replace("arr[2].x;", "arr[3].x;")).counterexample
    assert cex.violated == Violation.ARRAY_BOUNDS and cex.detail == "arr[3] (size 3)"


def test_struct_initializer_lists(tmp_path):
    src = """
        struct S { int x; char a[3]; long z; };
        typedef struct S T;
        T g = {1, 2, 3, 4, 5};
        struct S h = {0};
        int main(void) {
            int v = nondet_int();
            T s = {v, 7};
            assert(g.x == 1 && g.a[0] == 2 && g.a[2] == 4 && g.z == 5);
            assert(h.x == 0 && h.z == 0 && h.a[1] == 0);
            assert(s.x == v && s.a[0] == 7 && s.a[1] == 0 && s.z == 0);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED
    assert verify(tmp_path, src.replace("s.a[0] == 7", "s.a[0] == 8")).counterexample.assertion.line == 10


def test_union_of_integers_shares_the_low_order_bytes(tmp_path):
    src = """
        union U { int i; unsigned char b[4]; short s; };
        int main(void) {
            union U u;
            u.i = 0x11223344;
            assert(u.b[0] == 0x44 && u.b[3] == 0x11 && u.s == 0x3344);
            u.b[1] = 0xff;
            assert(u.i == 0x1122ff44);
            union U w = {-1};
            assert(w.s == -1 && w.b[2] == 255);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED
    assert verify(tmp_path, src.replace("0x1122ff44", "0x1122ff45")).counterexample.assertion.line == 7


def test_null_dereference_is_reported(tmp_path):
    src = """
        #include <stddef.h>
        int main(void) {
            int x = 3; int *p = &x;
            if (nondet_int()) p = NULL;
            return *p;
        }
    """
    result = verify(tmp_path, src)
    assert result.outcome == VIOLATED
    cex = result.counterexample
    assert cex.violated == Violation.NULL_DEREFERENCE
    assert (cex.assertion.line, cex.assertion.column) == (5, 12)
    assert cex.detail == "*p (null pointer)"
    assert [i.value for i in cex.inputs] != [0]
    assert verify(tmp_path, src, checks=NO_CHECKS).outcome == VERIFIED


def test_out_of_bounds_dereference_is_reported(tmp_path):
    src = """
        int main(void) {
            int a[4]; int *p = a;
            int i = nondet_int();
            assume(i >= 0 && i <= 4);
            return *(p + i);
        }
    """
    result = verify(tmp_path, src)
    cex = result.counterexample
    assert cex.violated == Violation.POINTER_BOUNDS
    assert cex.detail == "*(p + i) (offset 4, size 4)"
    assert [i.value for i in cex.inputs if i.label == "nondet_int()"] == [4]
    assert verify(tmp_path, src.replace("i <= 4", "i < 4")).outcome == VERIFIED


def test_a_scalar_is_an_object_of_one_element(tmp_path):
    src = """
        void set(int *p, int k) { p[k] = 1; }
        int main(void) { int x = 0; set(&x, nondet_int()); return x; }
    """
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.POINTER_BOUNDS and cex.detail.endswith("size 1)")
    assert [i.value for i in cex.inputs] != [0]


def test_pointer_to_a_local_of_a_returned_call_dangles(tmp_path):
    src = """
        int *addr(int v) { int x = v; return &x; }
        int get(int *p) { return *p; }
        int twice(int v) { int x = v; return get(&x) * 2; }
        int main(void) {
            assert(twice(4) == 8);
            int *p = addr(3);
            return *p;
        }
    """
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.POINTER_BOUNDS
    assert (cex.assertion.line, cex.detail) == (7, "*p (offset 0, no live object it points into)")


def test_uninitialized_pointer_points_nowhere(tmp_path):
    src = "int main(void) { int *p; return *p; }\n"
    cex = verify(tmp_path, src).counterexample
    assert cex.violated in (Violation.NULL_DEREFERENCE, Violation.POINTER_BOUNDS)


def test_entry_pointer_parameter_is_an_input_array(tmp_path):
    src = """
        int first(int *a) {
            assert(a[0] != 7);
            return a[0];
        }
    """
    result = verify(tmp_path, src, entry="first")
    assert result.outcome == VIOLATED
    value = result.counterexample.inputs[0].value
    assert value.entries.get(0, value.default) == 7


ABS_THROUGH_POINTER = """
    void absolute(int *p) {
        if (*p > 0)
            *p = -*p;
    }
    int main(void) {
        int x = nondet_int();
        assume(x > -100 && x < 100);
        absolute(&x);
        assert(x >= 0);
        return 0;
    }
"""


def test_repair_in_a_function_that_takes_a_pointer(tmp_path):
    path = write_c(tmp_path, ABS_THROUGH_POINTER)
    run = crepair.repair(path, level=2, max_size=1, unwind=2, timeout=None)
    repairs = list(run)
    found = {frozenset((c.span.line, e.old, e.new) for c in r.changes for e in c.edits) for r in repairs}
    assert {frozenset({(2, ">", "<")}), frozenset({(2, ">", "<=")})} <= found
    assert run.outcome == crepair.RepairOutcome.REPAIRED


def test_repair_mutates_constants_compared_with_pointers(tmp_path):
    src = """
        #include <stddef.h>
        int get(int *p, int d) {
            if (p != NULL)
                return *p - 1;
            return d;
        }
        int main(void) {
            int x = nondet_int();
            assume(x > -100 && x < 100);
            assert(get(&x, 0) == x && get(NULL, 5) == 5);
            return 0;
        }
    """
    run = crepair.repair(write_c(tmp_path, src), level=2, max_size=1, unwind=2, timeout=None)
    found = {frozenset((c.span.line, e.old, e.new) for c in r.changes for e in c.edits) for r in run}
    assert found == {frozenset({(4, "1", "0")}), frozenset({(4, "-", "*")})}


def test_must_localization_sees_the_location_that_reads_through_a_pointer(tmp_path):
    path = write_c(tmp_path, ABS_THROUGH_POINTER)
    result = crepair.localize(path, unwind=2)
    assert 2 in {o.span.line for o in result.locations}


@pytest.mark.parametrize("body, construct", [
    ("int x; int *p = &x; int **q = &p;", "pointer to pointer"),
    ("int x; int *p = &x; long *q = (long *)p;", "conversion from int * to long *"),
    ("int x; long n = (long)&x;", "int * converted to long"),
    ("int *p = (int *)8;", "integer converted to a pointer"),
    ("union U { int a; int *p; } u;", "union member 'p' that is not an integer"),
    ("struct S { int a, b; }; struct S s = {1, 2, 3};", "excess elements in the initializer of struct S"),
])
def test_unsupported_pointer_constructs_are_reported(tmp_path, body, construct):
    path = write_c(tmp_path, "int main(void) {\n    " + body + "\n    return 0;\n}\n")
    with pytest.raises((UnsupportedConstruct, BadInput)) as info:
        crepair.verify(path)
    assert construct in str(info.value)
    assert str(info.value).startswith(f"{path}:2:")


def test_a_member_pointer_reaches_only_slots_of_its_type(tmp_path):
    src = ("struct M { int x; int v[2]; long z; };\nint main(void) {\n  struct M s = {1, {2, 3}, 4};\n"
           "  int *q = &s.v[0];\n  int k = nondet_int();\n  if (k >= 0 && k < 3) q[k] = 0;\n"
           "  assert(s.x == 1 && s.z == 4);\n  return 0;\n}\n")
    cex = crepair.verify(write_c(tmp_path, src)).counterexample
    assert cex.violated == Violation.POINTER_BOUNDS  # q[2] would be the long z
    assert [i.value for i in cex.inputs if i.label == "nondet_int()"] == [2]
    ok = src.replace("k < 3", "k < 2")
    assert crepair.verify(write_c(tmp_path, ok)).outcome == crepair.VerifyOutcome.VERIFIED


STRING_THROUGH_A_POINTER = """
    #include <string.h>
    int main(void) {
        char s[10] = "hello", t[10] = "help";
        char *p = s + 1;
        int k = nondet_int();
        __CPROVER_assume(k >= 0 && k <= 5);
        assert(strlen(p) == 4 && strcmp(p, "ello") == 0 && strcmp(p, t) < 0);
        char *q = s + k;
        assert(strlen(q) != 2);
        return 0;
    }
"""


def test_string_functions_read_through_a_pointer_into_one_char_array(tmp_path):
    result = crepair.verify(write_c(tmp_path, STRING_THROUGH_A_POINTER), unwind=2)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    assert result.counterexample.assertion.line == 9  # strlen("hello" + 3) == 2: k = 3 only
    assert [i.value for i in result.counterexample.inputs] == [3]
    holds = STRING_THROUGH_A_POINTER.replace("strlen(q) != 2", "strlen(q) == 5 - k")
    assert crepair.verify(write_c(tmp_path, holds, "holds.c"), unwind=2).outcome == crepair.VerifyOutcome.VERIFIED


def test_a_pointer_that_may_point_into_two_arrays_is_named_for_string_functions(tmp_path):
    path = write_c(tmp_path, """
        #include <string.h>
        int main(void) {
            char s[10] = "hello", t[10] = "help";
            int k = nondet_int();
            char *q = k ? s : t;
            return strlen(q);
        }
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert "strlen: 'q' is not an array nor a pointer into one char array" in str(info.value)


SEQUENCE = """
    #include <stdlib.h>
    struct seq { int *arr; int n; };
    int main(void) {
        struct seq *s = malloc(sizeof(struct seq));
        s->n = 3;
        s->arr = malloc(sizeof(int) * s->n);
        for (int c = 0; c < s->n; c++)
            s->arr[c] = 10 * c;
        s->arr[1] += 5;
        int k = nondet_int();
        __CPROVER_assume(k >= 0 && k < 4);
        assert(s->arr[1] == 15 && s->arr[2] == 20);
        return s->arr[k];
    }
"""


def test_a_pointer_member_is_subscripted_as_the_array_it_points_to(tmp_path):
    # s->arr[i] is *(s->arr + i): read, written and bounds-checked through the pointer
    cex = verify(tmp_path, SEQUENCE, unwind=4).counterexample
    assert cex.violated == Violation.POINTER_BOUNDS
    assert [i.value for i in cex.inputs if i.label == "nondet_int()"] == [3]
    assert verify(tmp_path, SEQUENCE.replace("k < 4", "k < 3"), unwind=4).outcome == VERIFIED
    assert verify(tmp_path, SEQUENCE.replace("+= 5", "+= 4"), unwind=4).counterexample.violated == Violation.ASSERTION
