"""``main(int argc, char *argv[])`` as the entry: argc in 1..ARGV_MAX and
bounded nondeterministic argument strings (crepair.encode.argv), read
character by character through the pointers or by the string functions."""

import re

import crepair
from crepair import Violation
from crepair.encode.argv import ARGV_MAX
from cprog import write_c

COUNT = """
#include <assert.h>
int main(int argc, char *argv[]) {
  int n = 0;
  if (argc > 1)
    for (int i = 0; argv[1][i] != '\\0'; i++) n++;
  assert(n < LIMIT);
  return 0;
}
"""


def verify(tmp_path, source: str, **kw):
    return crepair.verify(write_c(tmp_path, source), **kw)


def test_an_argument_is_a_string_of_at_most_input_bound_characters(tmp_path):
    assert verify(tmp_path, COUNT.replace("LIMIT", "9"), unwind=10).outcome == crepair.VerifyOutcome.VERIFIED
    result = verify(tmp_path, COUNT.replace("LIMIT", "8"), unwind=10)
    cex = result.counterexample
    values = {i.label: i.value for i in cex.inputs}
    assert values["argc"] >= 2
    assert 0 not in values["argv[1]"]  # eight non-NUL characters, then the NUL crepair adds


def test_argc_is_between_one_and_the_bound_and_argv_argc_is_null(tmp_path):
    src = ("#include <assert.h>\nint main(int argc, char **argv) {\n"
           f"  assert(argc >= 1 && argc <= {ARGV_MAX});\n  assert(argv[argc] == 0);\n  assert(argv[0] != 0);\n"
           "  return 0;\n}\n")
    assert verify(tmp_path, src).outcome == crepair.VerifyOutcome.VERIFIED


def test_reading_a_missing_argument_is_a_null_dereference(tmp_path):
    src = "int main(int argc, char *argv[]) {\n  return argv[1][0] == 'x';\n}\n"
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.NULL_DEREFERENCE
    assert [i.value for i in cex.inputs if i.label == "argc"] == [1]


def test_atoi_of_an_argument(tmp_path):
    src = ("#include <stdlib.h>\n#include <assert.h>\nint main(int argc, char **argv) {\n"
           "  if (argc < 2) return 0;\n  int n = atoi(argv[1]);\n  assert(n != 1234);\n  return 0;\n}\n")
    cex = verify(tmp_path, src).counterexample
    (arg,) = [i.value for i in cex.inputs if i.label == "argv[1]"]
    text = bytes(c & 0xFF for c in arg).split(b"\0")[0].decode("latin-1")
    m = re.match(r"[ \t\n\v\f\r]*([+-]?)(\d*)", text)
    assert int(m.group(1) + (m.group(2) or "0")) == 1234  # glibc's atoi of the argument


def test_atoi_of_a_missing_argument_is_a_null_dereference(tmp_path):
    src = "#include <stdlib.h>\nint main(int argc, char **argv) {\n  return atoi(argv[2]);\n}\n"
    cex = verify(tmp_path, src).counterexample
    assert (cex.violated, cex.detail) == (Violation.NULL_DEREFERENCE, "argv[2] (null pointer)")


def test_a_string_input_is_shown_as_a_c_string_too(tmp_path):
    from crepair.counterexample import InputValue
    assert InputValue("s", 1, [97, 98, 1, 34, 0, 5], chars=True).text() == '"ab\\x01\\x22" [97, 98, 1, 34, 0, 5]'
    assert InputValue("n", 1, [97, 0]).text() == "[97, 0]"
    # a large buffer's trailing run of equal elements is written once (a 1,000-char array is one line)
    assert InputValue("s", 1, [97, 98] + [0] * 998, chars=True).text() == '"ab" [97, 98, 998 × 0]'
    assert InputValue("a", 1, [5] * 7 + [1]).text() == "[5, 5, 5, 5, 5, 5, 5, 1]"
    assert InputValue("a", 1, [3] * 12).text() == "[3, 11 × 3]"
    cex = verify(tmp_path, COUNT.replace("LIMIT", "8"), unwind=10).counterexample
    assert [i.chars for i in cex.inputs if i.label.startswith("argv")] == [True] * 3
