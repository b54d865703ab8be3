"""The encoder's reports on unsupported declarations."""

from __future__ import annotations

import pytest

import crepair
from crepair.encode import encode
from crepair.errors import UnsupportedConstruct
from crepair.frontend import load_program

from cprog import write_c

ARGV = """
    int main(int argc, char *argv[]) {
        int n = argc;
        %s
        assert(n == argc);
        return 0;
    }
"""


def test_unused_argv_is_no_obstacle(tmp_path):
    path = write_c(tmp_path, ARGV % "")
    assert crepair.verify(path, unwind=1).outcome == crepair.VerifyOutcome.VERIFIED


@pytest.mark.parametrize("use", ["n = argc + (argv[1][0] - argv[1][0]);", "n = argc + (argv[0] == 0);"])
def test_argv_of_the_entry_is_modelled(tmp_path, use):
    path = write_c(tmp_path, ARGV % use)  # argv[1] exists only if argc > 1: reading it is a null dereference
    result = crepair.verify(path, unwind=1)
    if "argv[1]" in use:
        assert result.counterexample.violated == crepair.Violation.NULL_DEREFERENCE
    else:
        assert result.outcome == crepair.VerifyOutcome.VERIFIED


def test_a_pointer_array_parameter_elsewhere_is_reported(tmp_path):
    path = write_c(tmp_path, "int g(char *v[]) { return v[0][0]; }\nint main(void) { return 0; }\n"
                   "int h(void) { char *w[2]; return g(w); }\n")
    with pytest.raises(UnsupportedConstruct) as info:
        encode(load_program(path), bound=1, entry="h")
    assert info.value.construct == "pointer array (pointers are not supported)"


def test_two_dimensional_access_is_reported(tmp_path):
    path = write_c(tmp_path, "int main(void) { int a[3]; return a[1][2]; }\n")
    with pytest.raises(UnsupportedConstruct) as info:
        encode(load_program(path), bound=1)
    assert info.value.construct == "multi-dimensional array access"
