"""COPY candidates (crepair.testequiv.copies): a statement of a loop's body
written again after the loop, where the last item of the input was left
pending."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from crepair.frontend.parse import load_program
from crepair.testequiv.candidates import Schema
from crepair.testequiv.metaprogram import instrument
from crepair.testequiv.space import build_space
from test_staged_uniform import course_repair

SRC = Path(__file__).resolve().parents[1] / "src"

# prints the length of each word of its input, but a word's length only when a blank follows it: the last word of
# an input without a final newline is lost
WORDS = r"""#include <stdio.h>
int main(void) {
    int c, length = 0;
    while ((c = getchar()) != EOF) {
        if (c == ' ' || c == '\n') {
            if (length > 0)
                printf("%d\n", length);
            length = 0;
        } else {
            int upper = c >= 'A' && c <= 'Z';
            if (c == '.')
                break;
            length = length + 1 + upper - upper;
        }
    }
    return 0;
}
"""

MODEL = r"""#include <stdio.h>
int main(void) {
    int c, n = 0;
    while ((c = getchar()) != EOF && c != '.') {
        if (c != ' ' && c != '\n') {
            n++;
        } else {
            if (n)
                printf("%d\n", n);
            n = 0;
        }
    }
    if (n)
        printf("%d\n", n);
    return 0;
}
"""


def copies_of(text: str, tmp_path: Path, lines=None):
    path = tmp_path / "words.c"
    path.write_text(text)
    space = build_space(load_program(path, real_c=True), lines=lines)
    return space, [c for c in space.candidates if c.schema is Schema.COPY]


def test_the_statements_of_the_loop_are_copied_to_the_statement_after_it(tmp_path):
    space, copies = copies_of(WORDS, tmp_path)
    assert {space.sites[c.site].text for c in copies} == {"return 0;"}
    # the statements of the body, but not those naming `upper` (declared in the body) nor the `if` holding a break
    assert sorted(c.code for c in copies) == ['({ if ( length > 0 ) printf ( "%d\\n" , length ) ; })',
                                              "({ length = 0 ; })", '({ printf ( "%d\\n" , length ) ; })']
    first = next(c for c in copies if c.code.startswith("({ if"))
    assert first.replacement == 'if (length > 0)\n        printf("%d\\n", length);\n    return 0;'
    # f1x's cost, the nodes added (if, >, two leaves; call, callee, arguments, two leaves), at least a guard's 4
    assert sorted(c.cost for c in copies) == [40, 50, 90] and first.cost == 90
    assert len({c.group for c in copies}) == len(copies)


def test_a_copy_is_generated_for_the_lines_of_its_loop_only(tmp_path):
    # the first stage of an output fault: the lines of the output calls; the return after the loop is not on them
    space, copies = copies_of(WORDS, tmp_path, lines={7})
    after = {c.site for c in copies}
    assert len(copies) == 3 and all(c.schema is Schema.COPY for c in space.candidates if c.site in after)
    _, copies = copies_of(WORDS, tmp_path, lines={16})  # the return itself: its copies too
    assert len(copies) == 3
    _, copies = copies_of(WORDS, tmp_path, lines={3})  # no line of the loop, not the return
    assert copies == []


def test_the_meta_program_runs_a_copy_only_as_the_running_candidate(tmp_path):
    space, copies = copies_of(WORDS, tmp_path)
    meta = tmp_path / "meta.c"
    meta.write_text(instrument(WORDS, space))
    exe = tmp_path / "meta"
    subprocess.run(["gcc", "-std=gnu99", "-O0", "-w", "-o", str(exe), str(meta)], check=True)
    fix = next(c for c in copies if c.code.startswith("({ if"))
    wrong = next(c for c in copies if c.code.startswith("({ printf"))

    def run(candidate: int, given: bytes) -> bytes:
        env = {**os.environ, "CREPAIR_CANDIDATE": str(candidate)}
        return subprocess.run([str(exe)], input=given, capture_output=True, env=env).stdout

    assert [run(-1, b"ab cde"), run(fix.id, b"ab cde"), run(wrong.id, b"ab cde")] == [b"2\n", b"2\n3\n", b"2\n3\n"]
    assert [run(fix.id, b"ab \n"), run(wrong.id, b"ab \n")] == [b"2\n", b"2\n0\n"]  # the unguarded copy prints 0


def test_tests_and_the_model_solution_choose_the_guarded_copy(tmp_path):
    tests = [("one two\n", "3\n3\n"), ("a bc", "1\n2\n"), ("  xy  ", "2\n"), ("", "")]
    report = course_repair(tmp_path, WORDS, MODEL, tests)
    assert report["outcome"] == "repaired", report
    first = report["repairs"][0]
    assert [(c["location"]["line"], c["replacement"]) for c in first["changes"]] == [
        (16, 'if (length > 0)\n        printf("%d\\n", length);\n    return 0;')], first
    patched = tmp_path / "fixed.c"
    subprocess.run(["patch", "-o", str(patched), str(tmp_path / "sub.c")], input=first["diff"], text=True,
                   check=True, capture_output=True)
    exe = tmp_path / "fixed"
    subprocess.run(["gcc", "-O0", "-w", "-o", str(exe), str(patched)], check=True)
    for given, expected in [*tests, ("x yz", "1\n2\n"), ("hello.world", "5\n"), ("ab. cd", "2\n")]:
        assert subprocess.run([str(exe)], input=given.encode(), capture_output=True).stdout == expected.encode()
