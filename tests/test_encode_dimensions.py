"""Multi-dimensional arrays (crepair.encode.dimensions): flat row-major
arrays with a bounds check per subscript; rows decay to pointers and feed
scanf/string functions; initializers flattened row by row.  Values are
compared with gcc in test_encode_vs_gcc.py (md_* cases)."""

import pytest

import crepair
from crepair import Violation
from crepair.errors import UnsupportedConstruct
from cprog import write_c


def verify(tmp_path, source: str, **kw):
    return crepair.verify(write_c(tmp_path, source), **kw)


def test_an_inner_subscript_is_checked_against_its_own_dimension(tmp_path):
    src = ("int g[3][4];\nint main(void) {\n  int j = nondet_int();\n"
           "  if (j >= 0 && j <= 4) g[1][j] = 7;\n  return 0;\n}\n")
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.ARRAY_BOUNDS
    assert cex.detail == "g[][4] (size 4)"
    assert [i.value for i in cex.inputs] == [4]


def test_scanf_reads_into_elements_and_rows(tmp_path):
    src = ("#include <stdio.h>\n#include <string.h>\n#include <assert.h>\nint g[3][4];\nchar w[3][5];\n"
           "int main(void) {\n  int n;\n  if (scanf(\"%d\", &n) != 1 || n < 0 || n > 2) return 0;\n"
           "  if (scanf(\"%d %4s\", &g[n][1], w[n]) != 2) return 0;\n"
           "  assert(g[n][1] != 17 || strlen(w[n]) != 3 || w[n][0] != 'x');\n  return 0;\n}\n")
    cex = verify(tmp_path, src, unwind=10).counterexample
    assert cex.violated == Violation.ASSERTION
    values = [i.value for i in cex.inputs if i.label.startswith("scanf")]
    assert values[1] == 17


def test_a_nested_list_for_a_scalar_element_is_rejected(tmp_path):
    with pytest.raises(UnsupportedConstruct) as exc:
        verify(tmp_path, "int main(void) {\n  int a[2] = {{1}, 2};\n  return a[0];\n}\n")
    assert "2:16: unsupported construct: nested initializer list for a scalar element" in str(exc.value)


def test_a_variable_inner_dimension_is_rejected_naming_it(tmp_path):
    with pytest.raises(UnsupportedConstruct) as exc:
        verify(tmp_path, "int main(void) {\n  int n = nondet_int();\n  int a[2][n];\n  return 0;\n}\n")
    assert "inner dimension that is not a positive integer constant" in str(exc.value)
