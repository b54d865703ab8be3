"""Inputs gcc rejects, inputs gcc accepts, and the messages about them
(issue 26, item 8), run the way people call the tool: from the program's
folder, with a relative path, stdout and stderr to pipes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def crepair(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTHONHASHSEED="0")
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout)


def write(folder: Path, name: str, source: str) -> str:
    (folder / name).write_text(textwrap.dedent(source).lstrip("\n"))
    return name


def one_error_line(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_a_function_defined_twice_is_bad_input_at_the_second_definition(tmp_path):
    name = write(tmp_path, "twice.c", """
        int f(int x) { return x; }
        int f(int x) { return x + 1; }
        int main(void) { assert(f(1) == 1); return 0; }
    """)
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 3
    assert one_error_line(done) == "crepair: error: twice.c:2:5: redefinition of function 'f' (first defined at line 1)"


def test_two_mains_are_bad_input(tmp_path):
    name = write(tmp_path, "mains.c", """
        int main(void) { return 0; }

        int main(void) { assert(0); return 0; }
    """)
    for command in ("verify", "repair"):
        done = crepair(tmp_path, command, name)
        assert done.returncode == 3
        assert one_error_line(done).startswith("crepair: error: mains.c:3:5: redefinition of function 'main'")


def test_a_one_line_implicit_int_definition_is_read(tmp_path):
    name = write(tmp_path, "kr.c", "main() { return 0; }\n")
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("verified up to unwinding bound 8 (main)")


def test_spans_after_an_implicit_int_on_the_same_line_are_exact(tmp_path):
    name = write(tmp_path, "kr2.c", """
        f(int x) { int a[2] = {0, 0}; return a[x + 1]; }
        main() { int i = nondet_int(); __CPROVER_assume(i >= 0 && i < 2); return f(i); }
    """)
    done = crepair(tmp_path, "verify", name)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("kr2.c:1:38: array index out of bounds: a[2] (size 2)")


def test_a_constant_mutated_to_zero_under_a_minus_reads_zero(tmp_path):
    name = write(tmp_path, "neg.c", """
        int get(int a[]) { return a[-1]; }
        int main(void) { int a[4] = {1, 2, 3, 4}; assert(get(a) == 1); return 0; }
    """)
    done = crepair(tmp_path, "repair", name, "--level", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "neg.c:1: -1 -> 0   in   a[-1]  =>  a[0]" in done.stdout
    assert "-0" not in done.stdout
    assert "+int get(int a[]) { return a[0]; }" in done.stdout


REF = """
    int a;
    int f(int x) { return x + a; }
"""


def test_a_missing_init_function_is_named_as_such(tmp_path):
    user, ref = write(tmp_path, "user.c", REF), write(tmp_path, "ref.c", REF)
    done = crepair(tmp_path, "verify", user, "--reference", ref, "--entry", "f", "--init", "nosuch")
    assert done.returncode == 3
    assert one_error_line(done) == "crepair: error: user.c: --init function 'nosuch' is not defined"


def test_an_assignment_as_assumption_is_a_usage_error(tmp_path):
    user, ref = write(tmp_path, "user.c", REF), write(tmp_path, "ref.c", REF)
    for expr in ("a = 3", "a++", "a += 1"):
        done = crepair(tmp_path, "verify", user, "--reference", ref, "--entry", "f", "--assume", expr)
        assert done.returncode == 2
        assert "assignments are not allowed in an assumption" in one_error_line(done)


def test_max_terms_zero_is_a_usage_error(tmp_path):
    name = write(tmp_path, "p.c", "int main(void) { int x = nondet_int(); assert(x != 1); return 0; }\n")
    done = crepair(tmp_path, "repair", name, "--scheme", "template", "--max-terms", "0")
    assert done.returncode == 2
    assert one_error_line(done) == "crepair: error: argument --max-terms: must be at least 1 (got 0)"


def test_debug_with_a_missing_input_names_the_file(tmp_path):
    heap = Path(__file__).resolve().parents[1] / "data" / "heap" / "fig1_reverse.c"
    (tmp_path / "fig1.c").write_bytes(heap.read_bytes())
    done = crepair(tmp_path, "debug", "fig1.c", "--input", "missing.txt", "--script", "-", timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert one_error_line(done) == "crepair: error: --input missing.txt: no such file"
    done = crepair(tmp_path, "debug", "fig1.c", "--input", ".", "--script", "-", timeout=120)
    assert done.returncode == 2 and one_error_line(done) == "crepair: error: --input .: not a regular file"


def test_init_with_the_staged_reference_run_says_where_it_is_used(tmp_path):
    name = write(tmp_path, "p.c", "int main(void) { return 0; }\n")
    done = crepair(tmp_path, "repair", name, "--reference", name, "--init", "setup")
    assert done.returncode == 2
    assert one_error_line(done) == ("crepair: error: --init/--assume: the runs against --reference start at main; "
                                    "give them to the bounded schemes (--scheme mutation|template)")
