"""The bounded heap (crepair.encode.allocation): malloc/calloc/free as
objects of the memory model, with CBMC's pointer checks — use after free,
double free, free of a non-heap pointer, out-of-bounds heap access — as
violations with a counterexample; ``sizeof`` as gcc's (the gcc-agreement
cases are in test_encode_vs_gcc.py)."""

import pytest

import crepair
from crepair import Violation
from crepair.errors import UnsupportedConstruct
from cprog import write_c

LIST = """
#include <stdlib.h>
#include <assert.h>
struct node { int v; struct node *next; };
int main(void) {
  int n = nondet_int();
  __CPROVER_assume(n >= 0 && n <= 3);
  struct node *head = NULL;
  for (int i = 0; i < n; i++) {
    struct node *x = (struct node *) malloc(sizeof(struct node));
    x->v = i;
    x->next = head;
    head = x;
  }
  int s = 0, len = 0;
  for (struct node *p = head; p != NULL; p = p->next) { s += p->v; len++; }
  assert(len == n);
  assert(s == n * (n - 1) / 2);
  int *a = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) a[i] = i;
  while (head != NULL) { struct node *t = head->next; free(head); head = t; }
  free(a);
  return 0;
}
"""


def verify(tmp_path, source: str, **kw):
    return crepair.verify(write_c(tmp_path, source), **kw)


def test_a_linked_list_on_the_heap_is_verified(tmp_path):
    result = verify(tmp_path, LIST, unwind=4)
    assert result.outcome == crepair.VerifyOutcome.VERIFIED
    assert not result.bound.too_small


def test_a_wrong_list_length_is_a_counterexample(tmp_path):
    result = verify(tmp_path, LIST.replace("assert(len == n);", "assert(len == n && len < 3);"), unwind=4)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    assert result.counterexample.violated == Violation.ASSERTION
    assert [i.value for i in result.counterexample.inputs] == [3]


def test_heap_array_overrun_is_a_pointer_bounds_violation(tmp_path):
    result = verify(tmp_path, LIST.replace("i < n; i++) a[i]", "i <= n; i++) a[i]"), unwind=5)
    cex = result.counterexample
    assert cex.violated == Violation.POINTER_BOUNDS
    n = cex.inputs[0].value
    assert cex.detail == f"a[i] (offset {n}, size {n})"


@pytest.mark.parametrize("body, kind, detail", [
    ("int *p = malloc(4 * sizeof *p); int *q = p; free(p); if (c > 3) q[1] = 2;",
     Violation.POINTER_BOUNDS, "q[1] (offset 1, no live object it points into)"),
    ("int *p = calloc(3, sizeof(int)); free(p); if (c == 7) free(p);",
     Violation.INVALID_FREE, "free(p) (offset 0: not the start of a live allocated object)"),
    ("int *p = calloc(3, sizeof(int)); if (c == 7) free(p + 1);",
     Violation.INVALID_FREE, "free(p + 1) (offset 1: not the start of a live allocated object)"),
    ("int x = 1; int *p = &x; if (c == 7) free(p);",
     Violation.INVALID_FREE, "free(p) (offset 0: not the start of a live allocated object)"),
])
def test_heap_misuse_is_a_violation(tmp_path, body, kind, detail):
    src = f"#include <stdlib.h>\nint main(void) {{\n  int c = nondet_int();\n  {body}\n  return 0;\n}}\n"
    cex = verify(tmp_path, src).counterexample
    assert (cex.violated, cex.detail) == (kind, detail)


def test_calloc_zeroes_free_null_is_nothing_and_malloc_reads_are_nondeterministic(tmp_path):
    src = ("#include <stdlib.h>\n#include <assert.h>\nint main(void) {\n"
           "  int *z = calloc(2, sizeof(int)); assert(z[0] == 0 && z[1] == 0); free(z); free(NULL);\n"
           "  int *m = malloc(sizeof(int)); assert(*m == 0);\n  return 0;\n}\n")
    result = verify(tmp_path, src)
    cex = result.counterexample
    assert (cex.violated, cex.assertion.line) == (Violation.ASSERTION, 5)


def test_an_allocation_of_unknown_element_type_is_rejected_at_the_call(tmp_path):
    src = "#include <stdlib.h>\nint main(void) {\n  if (malloc(4) == 0) return 1;\n  return 0;\n}\n"
    with pytest.raises(UnsupportedConstruct) as exc:
        verify(tmp_path, src)
    assert ":3:7: unsupported construct: malloc whose result is not assigned or cast to a pointer type" in str(exc.value)


def test_checks_off_means_no_heap_check(tmp_path):
    src = "#include <stdlib.h>\nint main(void) {\n  int *p = malloc(sizeof(int)); free(p); free(p);\n  return 0;\n}\n"
    assert verify(tmp_path, src).counterexample.violated == Violation.INVALID_FREE
    assert verify(tmp_path, src, checks=crepair.NO_CHECKS).outcome == crepair.VerifyOutcome.VERIFIED


def test_the_heap_overrun_is_repaired_by_mutation(tmp_path):
    path = write_c(tmp_path, LIST.replace("i < n; i++) a[i]", "i <= n; i++) a[i]"))
    run = crepair.repair(path, unwind=5, mutate_main=True, max_repairs=1)
    (repair,) = list(run)
    assert [(c.before, c.after) for c in repair.changes] == [("i <= n", "i < n")]
