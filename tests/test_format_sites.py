"""Format strings as repair sites (crepair's FORMAT schema,
:mod:`crepair.testequiv.formats`): the edits, the sites, and repairs of
wrong output formats under an exact comparison."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cprog import SHARED, write_c
from crepair.frontend import load_program
from crepair.testequiv.candidates import Schema, SiteKind
from crepair.testequiv.formats import format_edits
from crepair.typed.model import CHAR, DOUBLE, INT, LONG
from crepair.testequiv.space import build_space
from crepair.schemes.test_driven_patches import patched_text

IPAS = SHARED / "c-pack-ipas"


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from crepair.cli import main; sys.exit(main())",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def first_repair(proc: subprocess.CompletedProcess) -> dict:
    """The first repair of a ``--json`` run that exited 0."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)["repairs"][0]


def course_repair(tmp_path: Path, tests: list[tuple[str, str]]) -> dict:
    """The first repair (JSON) of ``sub.c`` against ``model.c`` in
    ``tmp_path``, with ``tests`` ((input, expected output) pairs) as the
    course's folder, exact comparison."""
    folder = tmp_path / "tests"
    folder.mkdir()
    for k, (given, expected) in enumerate(tests):
        (folder / f"{k}.in").write_text(given)
        (folder / f"{k}.out").write_text(expected)
    return first_repair(crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests",
                                "--compare", "exact", "--json", "--timeout", "120", cwd=tmp_path))


def project(tmp_path: Path, source: str, tests: dict[str, tuple[str, str]]) -> None:
    (tmp_path / "prog.c").write_text(source)
    folder = tmp_path / "tests"
    folder.mkdir()
    for name, (given, expected) in tests.items():
        (folder / f"{name}.in").write_text(given)
        (folder / f"{name}.out").write_text(expected)


DOUBLE_IT = """\
#include <stdio.h>
int main(void) {
    int x;
    if (scanf("%d", &x) != 1)
        return 1;
    printf(FORMAT, x * 2);
    return 0;
}
"""
DOUBLES = {"t1": ("3\n", "6\n"), "t2": ("5\n", "10\n"), "t3": ("-4\n", "-8\n")}


def test_edits_add_and_delete_newlines_and_spaces_and_never_change_the_number_of_conversions():
    edits = format_edits('"%d"', (INT,))
    assert '"%d\\n"' in edits and '"%d "' in edits and '"\\n%d"' in edits
    assert '"%i"' in edits and '"%u"' in edits and '"%c"' in edits
    assert '"%ld"' not in edits  # an int argument: %ld is ill-typed
    assert '"%d"' not in edits
    assert "\"%d\\n\"" in format_edits('"%d \\n"', (INT,))
    assert '"%ld"' in format_edits('"%d"', (LONG,)) and '"%d"' in format_edits('"%ld"', (INT,))
    floats = format_edits('"%f\\n"', (DOUBLE,))
    assert {'"%.2f\\n"', '"%.1f\\n"', '"%lf\\n"'} <= set(floats)
    assert {'"%.1f"', '"%.3f"', '"%f"'} <= set(format_edits('"%.2f"', (DOUBLE,)))
    assert '"%d"' in format_edits('"%c"', (CHAR,)) and '"%c"' not in format_edits('"%d"', (LONG,))
    for edited in format_edits('"%d: %5.2f %s%%\\n"', (INT, DOUBLE, CHAR)):
        assert edited.count("%") == 5, edited
    assert format_edits('"%*d"', (INT, INT)) == [e for e in format_edits('"%*d"', (INT, INT)) if "*d" in e]
    assert all("%" not in e.replace("%d", "") for e in format_edits('"%d"', (INT, INT)))  # arity mismatch


def test_the_words_around_the_conversions_are_deleted_in_one_edit():
    """A prompt or a sentence around the value (a judge wants the value
    alone); text of separators only has edits of its own."""
    assert '"%d"' in format_edits('"%d é o maior numero"', (INT,))
    assert '"%d\\n"' in format_edits('"%d é o maior numero"', (INT,))  # and the missing newline
    assert '"%d\\n"' in format_edits('"Introduza: %d\\n"', (INT,))
    both = format_edits('"O maior: %d (fim)\\n"', (INT,))
    assert {'"%d (fim)\\n"', '"O maior: %d\\n"', '"%d\\n"'} <= set(both)
    assert '"%d:%02d"' in format_edits('"Hora %d:%02d"', (INT, INT))  # the text between stays
    assert not [e for e in format_edits('"%d, %d\\n"', (INT, INT)) if e.startswith('"%d%d')]
    assert '"%d\\n"' not in format_edits('"  %d\\n"', (INT,))  # no word: no prompt edit


def test_printf_puts_and_fprintf_stdout_literals_are_format_sites_and_scanf_is_not(tmp_path):
    program = load_program(write_c(tmp_path, """\
        #include <stdio.h>
        int main(void) {
            int n;
            scanf("%d", &n);
            printf("n=%d\\n", n);
            puts("done");
            fprintf(stdout, "%d", n);
            fprintf(stderr, "%d", n);
            return 0;
        }
    """), real_c=True)
    space = build_space(program)
    formats = {space.sites[c.site].text for c in space.candidates if c.schema is Schema.FORMAT}
    assert formats == {'"n=%d\\n"', '"done"', '"%d"'}
    lines = {space.sites[c.site].span.line for c in space.candidates if c.schema is Schema.FORMAT}
    assert lines == {5, 6, 7}
    for c in space.candidates:
        if c.schema is Schema.FORMAT:
            assert space.sites[c.site].kind is SiteKind.EXPR and c.code == c.replacement
    groups = [(c.site, c.group) for c in space.candidates if c.schema is Schema.FORMAT]
    assert len(groups) == len(set(groups))  # never merged by value


def test_output_call_arguments_are_expression_sites(tmp_path):
    program = load_program(write_c(tmp_path, """\
        #include <stdio.h>
        int main(void) {
            int a, b, c, maior, n;
            scanf("%d %d %d", &a, &b, &c);
            maior = a;
            if (b > maior) maior = b;
            if (c > maior) maior = c;
            n = a;
            printf("%d\\n", n);
            return 0;
        }
    """), real_c=True)
    space = build_space(program)
    args = [s for s in space.sites if s.kind is SiteKind.EXPR and s.text == "n" and s.span.line == 9]
    assert len(args) == 1
    assert "maior" in {c.replacement for c in space.candidates if c.site == args[0].id}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
@pytest.mark.parametrize("wrong, right", [('"%d"', '"%d\\n"'), ('"%d \\n"', '"%d\\n"')])
def test_a_wrong_format_is_repaired_under_exact_comparison(tmp_path, wrong, right):
    project(tmp_path, DOUBLE_IT.replace("FORMAT", wrong), DOUBLES)
    change = first_repair(crepair("repair", "prog.c", "--tests-dir", "tests", "--compare", "exact", "--json",
                                  cwd=tmp_path))["changes"][0]
    assert (change["kind"], change["original"], change["replacement"]) == ("format", wrong, right)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_a_missing_final_newline_is_no_failure_when_trailing_whitespace_is_ignored(tmp_path):
    project(tmp_path, DOUBLE_IT.replace("FORMAT", '"%d"'), DOUBLES)
    proc = crepair("repair", "prog.c", "--tests-dir", "tests", "--compare", "trailing-whitespace", cwd=tmp_path)
    assert proc.returncode == 123, proc.stdout + proc.stderr
    assert "no-failing-test" in proc.stdout


SUBMISSION = IPAS / "incorrect" / "year-3" / "lab02" / "ex08" / "ex08-stu_065-sub_017.c"


@pytest.mark.skipif(not SUBMISSION.exists() or shutil.which("gcc") is None, reason="C-Pack-IPAs or gcc absent")
def test_a_course_submission_whose_only_error_is_the_format_is_repaired(tmp_path):
    """The submission prints ``%.2f`` without the newline the course's
    judge expects (every output differs from the expected one only there)."""
    tests = IPAS / "tests" / "lab02" / "ex08"
    repair = first_repair(crepair("repair", str(SUBMISSION), "--tests-dir", str(tests), "--compare", "exact", "--json",
                                  cwd=tmp_path))
    assert repair["changes"][0]["kind"] == "format"
    assert '+    printf("%.2f\\n", media);' in repair["diff"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_every_format_candidate_passes_gccs_format_check(tmp_path):
    source = """\
        #include <stdio.h>
        void g(unsigned u, long l, char c, double d, float f, unsigned long long w, const char *s) {
            printf("%ld %d|%c %5.2f\\n", u + l, c + 1, c, d);
            printf("%llu %f %s", w / 2, f, s);
            fprintf(stdout, "%i %u\\n", c, u);
            printf("%d\\nsum: %d\\n", c, c + u);
        }
    """
    program = load_program(write_c(tmp_path, source), real_c=True)
    space = build_space(program)
    cands = [c for c in space.candidates if c.schema is Schema.FORMAT]
    assert len(cands) > 30
    assert [(c.replacement, program.original[slice(*c.tail)]) for c in cands if c.tail] == [('"%d\\n"', ", c + u")]
    for c in cands:
        out = tmp_path / "patched.c"
        out.write_text(patched_text(program.original, space, c))
        proc = subprocess.run(["gcc", "-c", "-Wformat", "-Werror=format", "-o", str(tmp_path / "p.o"), str(out)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, (c.replacement, proc.stderr)


def test_tabs_and_every_space_before_a_newline_and_a_separator_moved_to_the_front():
    from crepair.testequiv.formats import separator_choices

    assert {'"%d"', '"%d "', '"%d\\n"'} <= set(format_edits('"%d\\t"', (INT,)))  # a tab deleted or swapped
    assert '"%d\\n%d\\n"' in format_edits('"%d \\n%d \\n"', (INT, INT))  # both at once
    assert '" %d"' in format_edits('"%d "', (INT,))
    assert separator_choices('"%d "') == [('"%d "', '"%d"'), ('" %d"', '"%d"'), ('"%d\\n"', '"%d "'),
                                          ('"%d \\n"', '"%d "')]
    assert separator_choices('"%d\\n"') == [('"%d\\n"', '"%d"')]
    assert separator_choices('L"x"') == []


def test_a_literal_in_a_loop_has_conditional_formats_over_the_loop_variables(tmp_path):
    program = load_program(write_c(tmp_path, """\
        #include <stdio.h>
        int main(void) {
            int a[3] = {1, 2, 3}, i, k = 7;
            for (i = 0; i < 3; i++)
                printf("%d ", a[i]);
            printf("%d ", k);
            return 0;
        }
    """), real_c=True)
    space = build_space(program)
    conditional = [c for c in space.candidates if c.schema is Schema.FORMAT and "?" in c.replacement]
    assert {space.sites[c.site].span.line for c in conditional} == {5}  # the literal outside the loop has none
    replacements = {c.replacement for c in conditional}
    assert '(i != 0) ? " %d" : "%d"' in replacements and '(i < 2) ? "%d " : "%d"' in replacements
    assert all(c.replacement.startswith("(i ") for c in conditional)  # atoms over what the loop condition reads
    assert all(c.cost > min(d.cost for d in space.candidates if d.schema is Schema.FORMAT) for c in conditional)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_conditional_formats_of_one_pair_are_partitioned_by_the_literal_they_print(tmp_path):
    """The conditional formats of one literal pair share a group, so a run
    compares them by the literal chosen at each execution: with tests only,
    the repair is found with far fewer executions than there are such
    candidates (each in a group of its own took one execution apiece,
    Codeflaws 4-B's 2,954 of 3,667)."""
    source = """\
#include <stdio.h>
int main(void) {
    int n, i;
    scanf("%d", &n);
    for (i = 1; i <= n; i++)
        printf("%d ", i);
    printf("\\n");
    return 0;
}
"""
    program = load_program(write_c(tmp_path, source), real_c=True)
    space = build_space(program)
    conditional = [c for c in space.candidates if c.schema is Schema.FORMAT and "?" in c.replacement]
    pairs = {}
    for c in conditional:
        pairs.setdefault(c.replacement.split(") ? ", 1)[1], set()).add(c.group)
    assert len(pairs) > 1 and all(len(groups) == 1 for groups in pairs.values())
    assert len({g for groups in pairs.values() for g in groups}) == len(pairs)
    project(tmp_path, source, {"t1": ("3\n", "1 2 3\n"), "t2": ("1\n", "1\n"), "t3": ("4\n", "1 2 3 4\n")})
    run = crepair("repair", "prog.c", "--tests-dir", "tests", "--compare", "exact", "--json", "--timeout", "120",
                  cwd=tmp_path)
    repair = first_repair(run)
    assert repair["changes"][0]["kind"] == "format", repair
    executions = json.loads(run.stdout)["exploration"]["executions"]
    assert executions < len(conditional) // 4, (executions, len(conditional))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_a_trailing_separator_printed_in_a_loop_is_repaired_by_a_conditional_format(tmp_path):
    """The course's judge is exact: ``1 2 3 \\n`` is a presentation error
    of ``1 2 3\\n``; the separator must be printed between the numbers only."""
    source = """\
#include <stdio.h>
int main(void) {
    int n, i, x;
    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &x);
        printf("%d ", 2 * x);
    }
    printf("\\n");
    return 0;
}
"""
    model = source.replace('printf("%d ", 2 * x);', 'if (i) putchar(\' \');\n        printf("%d", 2 * x);')
    project(tmp_path, source, {"t1": ("3\n1 2 3\n", "2 4 6\n"), "t2": ("2\n5 -1\n", "10 -2\n"),
                               "t3": ("1\n7\n", "14\n")})
    (tmp_path / "model.c").write_text(model)
    repair = first_repair(crepair("repair", "prog.c", "--reference", "model.c", "--tests-dir", "tests", "--compare",
                                  "exact", "--json", "--timeout", "120", cwd=tmp_path))
    change = repair["changes"][0]
    assert change["kind"] == "format" and change["original"] == '"%d "', change
    patched = tmp_path / "patched.c"
    patched.write_text(repair["patched"] if "patched" in repair else source.replace('"%d "', change["replacement"]))
    subprocess.run(["gcc", "-w", "-o", str(tmp_path / "p"), str(patched)], check=True)
    for given, want in (("4\n1 2 3 4\n", "2 4 6 8\n"), ("1\n9\n", "18\n")):
        assert subprocess.run([str(tmp_path / "p")], input=given, capture_output=True, text=True).stdout == want


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_two_literals_each_missing_a_newline_are_repaired_one_failing_test_at_a_time(tmp_path):
    """No single edit passes both tests ('yes' and 'no' each lack the
    newline): the search with one failing test at a time finds the partial
    fix that round 2 completes.  (``main`` ends without ``return``: a
    newline inserted before a statement after the ``if`` would fix both.)"""
    source = """\
#include <stdio.h>
int main(void) {
    int n, m;
    scanf("%d %d", &n, &m);
    if (n % m == 0)
        printf("yes");
    else
        printf("no");
}
"""
    model = source.replace('printf("yes");', 'printf("yes\\n");').replace('printf("no");', 'printf("no\\n");')
    project(tmp_path, source, {"t1": ("4 2\n", "yes\n"), "t2": ("5 2\n", "no\n"), "t3": ("9 3\n", "yes\n")})
    (tmp_path / "model.c").write_text(model)
    changes = first_repair(crepair("repair", "prog.c", "--reference", "model.c", "--tests-dir", "tests", "--compare",
                                   "exact", "--json", "--timeout", "120", cwd=tmp_path))["changes"]
    assert sorted((c["original"], c["replacement"]) for c in changes) == [('"no"', '"no\\n"'), ('"yes"', '"yes\\n"')]


# -- OUTPUT: a newline inserted before a statement --------------------------------------

ECHO = """\
#include <stdio.h>
int main(void) {
    int c;
    while ((c = getchar()) != EOF)
        if (c != ' ')
            PUT;
    return 0;
}
"""


@pytest.mark.parametrize("put,newline", [("putchar(c)", "putchar('\\n')"), ('printf("%c", c)', 'printf("\\n")')])
def test_a_newline_is_inserted_before_each_statement_in_the_program_s_own_style(tmp_path, put, newline):
    program = load_program(write_c(tmp_path, ECHO.replace("PUT", put)), real_c=True)
    space = build_space(program)
    inserted = [c for c in space.candidates if c.schema is Schema.OUTPUT and c.code == newline]
    sites = [space.sites[c.site] for c in inserted]
    guarded = f"if (c != ' ')\n            {put};"  # a compound statement in a loop body is a place too
    assert [s.text for s in sites] == [guarded, f"{put};", "return 0;"]
    by_text = {s.text: c.replacement for s, c in zip(sites, inserted)}
    assert by_text["return 0;"] == f"{newline};\n    return 0;"
    assert by_text[f"{put};"] == f"{{ {newline}; {put}; }}"  # the only statement of a branch: braces
    assert by_text[guarded] == f"{{ {newline}; {guarded} }}"  # the only statement of the loop: braces
    assert all(c.cost == 20 for c in inserted)  # tenths: a call and a constant


CROSS = """\
#include <stdio.h>
int main(void) {
    int n, l, c;
    scanf("%d", &n);
    for (l = 1; l <= n; l++) {
        for (c = 1; c <= n; c++) {
            if (c == l || c + l == n + 1)
                printf("*");
            else
                printf("-");
        }
        printf("\\n");
    }
    return 0;
}
"""


def test_a_separator_is_written_on_some_iterations_before_a_statement_in_a_loop(tmp_path):
    space = build_space(load_program(write_c(tmp_path, CROSS), real_c=True))
    outputs = [c for c in space.candidates if c.schema is Schema.OUTPUT]
    outside = [c for c in outputs if space.sites[c.site].text == "return 0;"]
    assert [c.code for c in outside] == ['printf("\\n")']  # not in a loop: a newline only
    branch = next(s for s in space.sites if s.text.startswith("if (c == l"))
    here = [c for c in outputs if c.site == branch.id]
    calls = {(c.lhs, c.group) for c in here if c.lhs}
    assert {call for call, _ in calls} == {'printf(" ")', 'printf("\\n")'}  # a space or a newline...
    assert len({group for _, group in calls}) == 2  # ... each call its own group, compared by the guard's value
    guarded = [c for c in here if c.lhs == 'printf(" ")']
    assert all(c.replacement.startswith("if (") and 40 < c.cost <= 50 for c in guarded)  # a call and an atom
    assert {c.variables for c in guarded} <= {("c",), ("l",), ("n",), ("c", "l"), ("c", "n"), ("l", "n")}
    wanted = 'if (c > 1) printf(" ");\n            if (c == l'
    assert wanted in {c.replacement[:len(wanted)] for c in guarded}


def test_a_cross_without_separators_is_repaired_by_one_guarded_separator(tmp_path):
    # C-Pack-IPAs lab03/ex03's shape: every test fails the same way, and the two format sites would need
    # the same conditional edit; one separator written before the row's branch repairs it
    model = CROSS.replace("if (c == l", 'if (c > 1) printf(" ");\n            if (c == l')
    project(tmp_path, CROSS, {"t1": ("3\n", "* - *\n- * -\n* - *\n"),
                              "t2": ("4\n", "* - - *\n- * * -\n- * * -\n* - - *\n")})
    (tmp_path / "model.c").write_text(model)
    repair = first_repair(crepair("repair", "prog.c", "--reference", "model.c", "--tests-dir", "tests", "--compare",
                                  "exact", "--json", "--timeout", "120", cwd=tmp_path))
    [change] = repair["changes"]
    assert change["kind"] == "output" and change["original"].startswith("if (c == l")
    [edit] = change["edits"]
    assert edit["kind"] == "insert" and edit["old"] == ""
    assert re.fullmatch(r'if \(c (> 1|>= 2|!= 1)\) printf\(" "\);\s+', edit["new"])
    assert repair["evidence"]["kind"] in ("tests", "proof") and repair["evidence"]["generated"] > 0


def test_no_newline_is_inserted_without_stdio(tmp_path):
    source = "int putchar(int);\nint main(void) { putchar('a'); return 0; }\n"
    space = build_space(load_program(write_c(tmp_path, source), real_c=True))
    assert not [c for c in space.candidates if c.schema is Schema.OUTPUT]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_a_missing_final_newline_after_a_putchar_loop_is_repaired_by_an_inserted_newline(tmp_path):
    """No format string to edit: the program writes character by
    character, and the course's judge wants the line ended."""
    project(tmp_path, ECHO.replace("PUT", "putchar(c)"),
            {"t1": ("a b c", "abc\n"), "t2": ("x y", "xy\n"), "t3": ("q", "q\n")})
    model = ECHO.replace("PUT", "putchar(c)").replace("    return 0;", "    putchar('\\n');\n    return 0;")
    (tmp_path / "model.c").write_text(model)
    for spec in (["--tests-dir", "tests"], ["--tests-dir", "tests", "--reference", "model.c"]):
        repair = first_repair(crepair("repair", "prog.c", *spec, "--compare", "exact", "--json", "--timeout", "120",
                                      cwd=tmp_path))
        assert repair["changes"][0]["kind"] == "output"
        assert "+    putchar('\\n');\n     return 0;" in repair["diff"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_a_sentence_around_the_value_is_repaired_by_a_format_edit(tmp_path):
    source = """\
#include <stdio.h>
int main(void) {
    int a, b;
    scanf("%d %d", &a, &b);
    printf("O maior numero e %d", a > b ? a : b);
    return 0;
}
"""
    project(tmp_path, source, {"t1": ("1 2\n", "2\n"), "t2": ("7 3\n", "7\n")})
    change = first_repair(crepair("repair", "prog.c", "--tests-dir", "tests", "--compare", "exact", "--json",
                                  "--timeout", "120", cwd=tmp_path))["changes"][0]
    assert (change["kind"], change["replacement"]) == ("format", '"%d\\n"')


def test_a_word_in_another_case_is_one_edit_and_conversions_and_escapes_keep_theirs():
    edits = format_edits('"second\\n"', None)
    assert '"Second\\n"' in edits and '"SECOND\\n"' in edits
    assert '"YES %d\\n"' in format_edits('"yes %d\\n"', (INT,))
    assert all("%d" in e and "\\n" in e for e in format_edits('"yes %d\\n"', (INT,)) if "YES" in e or "Yes" in e)
    assert not [e for e in format_edits('"%d\\n"', (INT,)) if "%D" in e or "\\N" in e]  # no letter outside


def test_a_reference_s_output_literals_replace_a_literal_with_the_same_conversions(tmp_path):
    from crepair.testequiv.formats import literal_replacements, output_literals

    model = write_c(tmp_path, '#include <stdio.h>\nint main(void) { int n = 2; if (n) printf("Impossible\\n"); else '
                              'printf("%d items\\n", n); puts("end"); fprintf(stdout, "%d-%d", n, n); return 0; }',
                    "model.c")
    found = output_literals(load_program(model, real_c=True).ast)
    assert found == ('"Impossible\\n"', '"%d items\\n"', '"end"', '"%d-%d"')
    assert literal_replacements('"impossivel"', None, found) == ['"Impossible\\n"', '"end"']
    assert literal_replacements('"%d\\n"', (INT,), found) == ['"%d items\\n"']  # one %d: the same conversions
    assert literal_replacements('"%d items\\n"', (INT,), found) == []  # itself is no candidate
    # the first of two conversions: the second's argument is dropped; never all of them (no "Impossible" for %d %d)
    assert literal_replacements('"%d %d\\n"', (INT, INT), found) == ['"%d items\\n"', '"%d-%d"']
    # the same arguments, other widths, flags or precisions: a model's "%02d:%02d" for "%2d:%2d"; never another type
    widths = ('"%02d:%02d\\n"', '"%.2f\\n"', '"%*d|%ld\\n"', '"%i %x"')
    assert literal_replacements('"%2d:%2d\\n"', (INT, INT), widths) == ['"%02d:%02d\\n"']
    assert literal_replacements('"%f\\n"', (DOUBLE,), widths) == ['"%.2f\\n"']
    assert literal_replacements('"%d %d"', (INT, INT), widths) == ['"%02d:%02d\\n"']  # %x: unsigned, not %d's
    assert literal_replacements('"%d|%d %ld"', (INT, INT, LONG), widths) == ['"%02d:%02d\\n"', '"%*d|%ld\\n"']
    assert literal_replacements('"%u %X"', (INT, INT), widths) == []  # %i %x: an int first


def test_a_line_of_output_too_many_is_dropped_with_the_arguments_it_consumed():
    """``printf("%s\\nlength: %d\\n", s, n)`` where the judge wants the
    first line: the lines after an inner newline dropped; the patch deletes
    the argument no conversion consumes, unless it has side effects."""
    from crepair.testequiv.formats import dropped_arguments

    assert '"%s\\n"' in format_edits('"%s\\nlength: %d\\n"', (CHAR, INT))
    assert not [e for e in format_edits('"%d\\n"', (INT,)) if "%" not in e]  # a last newline: no line dropped
    #            "%s\n"      , s    , n
    ends = (10, 13, 16)  # the end offsets of the literal and of its two arguments
    assert dropped_arguments('"%s\\n"', ends, pure=1) == (13, 16)
    assert dropped_arguments('"%s %d\\n"', ends, pure=0) == (16, 16)  # every argument consumed: nothing
    assert dropped_arguments('"%s\\n"', ends, pure=0) is None  # n has side effects (n++): kept, no edit
    assert dropped_arguments('"%s %d %d\\n"', ends, pure=2) is None  # more conversions than arguments


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_a_sentence_printed_after_the_answer_is_dropped_with_its_argument(tmp_path):
    """A student prints the line the course asks for and a second one
    (its length); the repair keeps the first line and deletes the
    argument of the second's ``%d``, so gcc's format check passes (an
    argument left over would be ``-Wformat-extra-args``)."""
    (tmp_path / "model.c").write_text('#include <stdio.h>\nint main(void) { char s[80];\n'
                                      '  if (scanf("%79s", s) == 1) printf("%s\\n", s);\n  return 0; }\n')
    (tmp_path / "sub.c").write_text('#include <stdio.h>\n#include <string.h>\nint main(void) { char s[80];\n'
                                    '  if (scanf("%79s", s) == 1) {\n    int n = (int)strlen(s);\n'
                                    '    printf("%s\\nLength: %d\\n", s, n);\n  }\n  return 0; }\n')
    first = course_repair(tmp_path, [("ola", "ola\n"), ("adeus", "adeus\n")])
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [
        ('"%s\\nLength: %d\\n", s, n', '"%s\\n", s')]
    assert [e["kind"] for e in first["changes"][0]["edits"]] == ["replace", "delete"]
    source = (tmp_path / "sub.c").read_text()
    for e in sorted(first["changes"][0]["edits"], key=lambda e: -e["span"]["start"]):
        source = source[:e["span"]["start"]] + e["new"] + source[e["span"]["end"]:]
    (tmp_path / "fixed.c").write_text(source)
    proc = subprocess.run(["gcc", "-Wformat", "-Werror=format", "-o", str(tmp_path / "fixed"),
                           str(tmp_path / "fixed.c")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(tmp_path / "fixed")], input="bom dia", capture_output=True, text=True).stdout == "bom\n"


def test_a_wrong_word_of_the_output_is_repaired_from_the_reference_s_literals(tmp_path):
    """The judge's word is not a small edit of the student's (Codeflaws
    20-B's kind: ``"-1"`` where ``"0"`` is expected): the model solution
    prints it."""
    (tmp_path / "model.c").write_text('#include <stdio.h>\nint main(void) { int a; scanf("%d", &a);\n'
                                      '  if (a < 0) printf("Impossible\\n"); else printf("%d\\n", 2 * a);\n'
                                      '  return 0; }\n')
    (tmp_path / "sub.c").write_text('#include <stdio.h>\nint main(void) { int a; scanf("%d", &a);\n'
                                    '  if (a < 0) printf("impossivel\\n"); else printf("%d\\n", a + a);\n'
                                    '  return 0; }\n')
    first = course_repair(tmp_path, [("3\n", "6\n"), ("-2\n", "Impossible\n")])
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [('"impossivel\\n"', '"Impossible\\n"')]
