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


@pytest.mark.parametrize("use", ["n = argv[1][0];", "n = argc + (argv[0] != 0);"])
def test_argv_is_reported_as_a_pointer_array(tmp_path, use):
    path = write_c(tmp_path, ARGV % use)
    with pytest.raises(UnsupportedConstruct) as info:
        encode(load_program(path), bound=1)
    assert info.value.construct == "parameter 'argv': pointer array (pointers are not supported)"



def test_two_dimensional_access_is_reported(tmp_path):
    path = write_c(tmp_path, "int main(void) { int a[3]; return a[1][2]; }\n")
    with pytest.raises(UnsupportedConstruct) as info:
        encode(load_program(path), bound=1)
    assert info.value.construct == "multi-dimensional array access"
