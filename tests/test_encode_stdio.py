"""stdin, stdout and <string.h> in the bounded engine (crepair.encode.stdio,
.strings), and ``--reference`` on programs that read stdin and print.

The string functions' agreement with gcc/glibc is in
``test_encode_vs_gcc.py`` (TARGETED ``str*``/``mem*`` cases); here: verdicts,
counterexample inputs, errors, a gcc run on stdin, and a student/model
pair repaired through ``--reference``.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

import crepair
from crepair.encode.formats import Conversion, parse_format
from crepair.errors import UnsupportedConstruct

from cprog import write_c

VERIFIED = crepair.VerifyOutcome.VERIFIED
VIOLATED = crepair.VerifyOutcome.VIOLATED
GCC = shutil.which("gcc")


def verify(tmp_path, source: str, unwind: int = 5, **kw):
    return crepair.verify(write_c(tmp_path, source), unwind=unwind, **kw)


def scanned(result) -> list[tuple[str, object]]:
    return [(i.label, i.value) for i in result.counterexample.inputs if i.label.startswith(("scanf", "getchar"))]


# ------------------------------------------------------------------ formats
def test_formats_parse_into_text_and_conversions():
    pieces = parse_format(b"%d %5s%%x%*lld%hhu", None, scan=True)
    assert pieces == [Conversion("d", 32, True, text="%d"), b" ", Conversion("s", 0, False, width=5, text="%5s"),
                      b"%x", Conversion("d", 64, True, suppress=True, text="%*lld"),
                      Conversion("u", 8, False, text="%hhu")]
    assert parse_format(b"%-08.3ld|%c\n", None, scan=False)[0] == Conversion("d", 64, True, width=8,
                                                                            text="%-08.3ld")
    # Microsoft's %I64d, as glibc reads it: flag I, width 64, an int
    assert parse_format(b"%I64d", None, scan=True) == [Conversion("d", 32, True, width=64, text="%I64d")]


@pytest.mark.parametrize("fmt, what", [("%Lf", "conversion '%Lf' (long double)"),
                                       ("%p", "conversion '%p'"), ("%[a-z]", "conversion '%['")])
def test_unmodelled_conversions_are_named(tmp_path, fmt, what):
    path = write_c(tmp_path, f"""
        #include <stdio.h>
        int main(void) {{
            int x;
            scanf("{fmt}", &x);
            return 0;
        }}
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert str(info.value) == f"{path}:4:11: unsupported construct: {what}"


def test_a_stream_chosen_after_a_null_check_is_the_one_it_holds_on_every_path(tmp_path):
    # f is stdin on every path once the (never true) branch is folded: the condition is a repair location,
    # read as the program is written
    path = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            FILE *f = NULL;
            int n = 0;
            if (f == NULL)
                f = stdin;
            fscanf(f, "%d", &n);
            assert(n != 42);
            return 0;
        }
    """)
    result = crepair.verify(path)
    assert result.outcome == VIOLATED
    assert [i.value for i in result.counterexample.inputs if i.label.startswith("fscanf")] == [42]


def test_a_stream_that_is_not_one_standard_stream_is_named_where_it_is_used(tmp_path):
    # a FILE * holds stdin, stdout or stderr (crepair.encode.streams); one chosen by an input is not modelled
    path = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            int n = getchar();
            FILE *in = n > 48 ? stdin : stderr;
            fscanf(in, "%d", &n);
            return n;
        }
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path)
    assert str(info.value) == (f"{path}:5:12: unsupported construct: fscanf on a stream that is not always the same "
                               "one of stdin, stdout and stderr (streams opened with fopen are not modelled)")
    opened = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            FILE *in = fopen("in.txt", "r");
            return in == 0;
        }
    """, "opened.c")
    with pytest.raises(UnsupportedConstruct, match="3:16: unsupported construct: call to 'fopen': library function"):
        crepair.verify(opened)


# -------------------------------------------------------------------- input
def test_scanf_conversions_are_the_inputs_in_reading_order(tmp_path):
    result = verify(tmp_path, """
        #include <stdio.h>
        int main(void) {
            int a, b;
            scanf("%d %d", &a, &b);
            assert(!(a == 3 && b - a == 4));
            return 0;
        }
    """)
    assert result.outcome == VIOLATED
    assert scanned(result) == [("scanf %d", 3), ("scanf %d", 7)]


def test_scanf_into_array_elements_checks_the_index(tmp_path):
    result = verify(tmp_path, """
        #include <stdio.h>
        int main(void) {
            int n, i, a[3];
            scanf("%d", &n);
            for (i = 0; i < n; i++)
                scanf("%d", &a[i]);
            return 0;
        }
    """)
    assert result.counterexample.violated == crepair.Violation.ARRAY_BOUNDS
    assert result.counterexample.detail == "a[3] (size 3)"


def test_a_short_conversion_writes_the_low_bytes_only(tmp_path):
    # x86-64 is little-endian: %d stores 4 bytes of the 8 of n
    src = """
        #include <stdio.h>
        int main(void) {
            long long n = 0;
            scanf("%d", &n);
            assert(n >= 0);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED
    assert verify(tmp_path, src.replace("%d", "%lld")).outcome == VIOLATED


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
def test_scanf_semantics_agree_with_gcc_on_stdin(tmp_path):
    body = """
        long long n = 0; unsigned u; char c; short h;
        scanf("%d %u %c %hd", &n, &u, &c, &h);
    """
    expr = "n % 1000003 + u % 1000 + c * 7 + h"
    gcc_src = write_c(tmp_path, f"#include <stdio.h>\nint main(void) {{ {body} printf(\"%lld\\n\", {expr}); "
                      "return 0; }\n", "gcc.c")
    exe = tmp_path / "gcc"
    subprocess.run([GCC, "-O0", "-w", str(gcc_src), "-o", str(exe)], check=True)
    stdin = "-5 -7 Z 70000\n"
    expected = int(subprocess.run([str(exe)], input=stdin, capture_output=True, text=True).stdout)
    # the same tokens pinned in crepair (their values as numbers; 'Z' is 90)
    pinned = f"""
        #include <stdio.h>
        int main(void) {{
            {body}
            assume((int)n == -5 && u == (unsigned)-7 && c == 'Z' && h == (short)70000);
            assert({expr} RELATION {expected}LL);
            return 0;
        }}
    """
    assert verify(tmp_path, pinned.replace("RELATION", "==")).outcome == VERIFIED
    assert verify(tmp_path, pinned.replace("RELATION", "!=")).outcome == VIOLATED


def test_scanf_into_members_and_through_pointers(tmp_path):
    # Codeflaws 217-A / 61-D read into &P[i].x, 580-C into a + i + 1
    src = """
        #include <stdio.h>
        struct P { int x; short y; };
        int main(void) {
            struct P pts[2] = {{1, 2}, {3, 4}}; struct P *q = &pts[1]; int a[4] = {0};
            scanf("%d %hd", &pts[0].x, &q->y);
            scanf("%d", a + 1 + 1);
            assume(pts[0].x == -5 && a[2] == 9);
            assert(pts[0].x * 1000 + pts[0].y * 100 + pts[1].x * 10 + a[2] RELATION -4761);
            assert(q->y == pts[1].y);
            return 0;
        }
    """
    assert verify(tmp_path, src.replace("RELATION", "==")).outcome == VERIFIED
    wrong = verify(tmp_path, src.replace("RELATION", "==").replace("&q->y", "&pts[0].y"))
    assert wrong.outcome == VIOLATED and [v for _, v in scanned(wrong)][:1] == [-5]


def test_percent_s_reads_a_bounded_word_and_its_nul(tmp_path):
    fits = """
        #include <stdio.h>
        #include <string.h>
        int main(void) {
            char s[9];
            scanf("%s", s);
            assert(strlen(s) >= 1 && strlen(s) <= 8 && s[0] != ' ' && s[0] != 0);
            return 0;
        }
    """
    assert verify(tmp_path, fits).outcome == VERIFIED
    small = verify(tmp_path, fits.replace("char s[9]", "char s[8]"))
    assert small.counterexample.violated == crepair.Violation.ARRAY_BOUNDS
    assert small.counterexample.detail == "s[8] (size 8)"  # 8 characters and the NUL
    word = verify(tmp_path, fits.replace("strlen(s) <= 8", "strcmp(s, \"yes\") != 0"))
    assert word.outcome == VIOLATED and list(b"yes") == scanned(word)[0][1]


def test_the_input_ends_only_for_a_tested_scanf(tmp_path):
    counted = """
        #include <stdio.h>
        int main(void) {
            int x, k = 0;
            while (scanf("%d", &x) == 1)
                k++;
            assert(k < 3);
            return 0;
        }
    """
    result = verify(tmp_path, counted)
    assert result.outcome == VIOLATED and [label for label, _ in scanned(result)][:3] == ["scanf %d"] * 3
    # no violation within the bound, which cuts the runs reading more tokens
    assert verify(tmp_path, counted.replace("k < 3", "k <= 6"), unwind=6).outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL
    tested = """
        #include <stdio.h>
        int main(void) {
            int x, y;
            scanf("%d", &x);
            y = scanf("%d %d", &x, &x);
            assert(CLAIM);
            return 0;
        }
    """
    assert verify(tmp_path, tested.replace("CLAIM", "y == 2 || y == 1 || y == -1")).outcome == VERIFIED
    for claim in ("y != 1", "y != -1"):  # the input may end before or inside the second scanf
        assert verify(tmp_path, tested.replace("CLAIM", claim)).outcome == VIOLATED


# ------------------------------------------------------------------ strings
def test_string_functions_over_arrays(tmp_path):
    src = """
        #include <stdio.h>
        #include <string.h>
        int main(void) {
            char s[10], t[12];
            int n;
            scanf("%s", s);
            strcpy(t, s);
            strcat(t, "xy");
            n = strlen(t);
            assert(strcmp(t, s) == 'x' && strncmp(t, s, n - 2) == 0 && n >= 3);
            assert(n <= 9);
            return 0;
        }
    """
    result = verify(tmp_path, src)
    assert result.outcome == VIOLATED and result.counterexample.assertion.line == 11
    assert len(scanned(result)[0][1]) == 8  # only an 8-character word makes t 10 long
    assert verify(tmp_path, src.replace("n <= 9", "n <= 10")).outcome == VERIFIED


def test_strcat_past_the_array_is_out_of_bounds(tmp_path):
    result = verify(tmp_path, """
        #include <string.h>
        int main(void) {
            char s[6] = "abc";
            strcat(s, "de");
            strcat(s, "f");
            return 0;
        }
    """)
    assert result.counterexample.violated == crepair.Violation.ARRAY_BOUNDS
    assert (result.counterexample.assertion.line, result.counterexample.detail) == (5, "s[6] (size 6)")


def test_memset_with_sizeof_fills_every_element(tmp_path):
    assert verify(tmp_path, """
        #include <string.h>
        int main(void) {
            int a[5];
            long b[3];
            memset(a, -1, sizeof(a));
            memset(b, 1, 2 * sizeof(long));
            assert(a[0] == -1 && a[4] == -1 && b[1] == 72340172838076673L);
            return 0;
        }
    """).outcome == VERIFIED


# ------------------------------------------------------- --reference, main
MODEL = """
    #include <stdio.h>
    int main() {
        int n, i, x, best = 0;
        scanf("%d", &n);
        for (i = 0; i < n && i < 3; i++) {
            scanf("%d", &x);
            if (x > best)
                best = x;
        }
        printf("best %d\\n", best);
        return 0;
    }
"""


def _pair(tmp_path, student: str, model: str = MODEL):
    return write_c(tmp_path, student, "student.c"), write_c(tmp_path, model, "model.c")


def test_main_programs_read_the_same_stdin_and_compare_outputs(tmp_path):
    student, model = _pair(tmp_path, MODEL.replace("x > best", "x > best && x != 7"))
    result = crepair.verify(student, reference=model)
    assert result.outcome == VIOLATED
    values = [v for label, v in scanned(result)]
    assert values[0] >= 1 and 7 in values[1:1 + min(values[0], 3)]
    same = crepair.verify(write_c(tmp_path, MODEL, "same.c"), reference=model)
    assert same.outcome == VERIFIED
    with_argv = write_c(tmp_path, MODEL.replace("int main()", "int main(int argc, char *argv[])"), "argv.c")
    assert crepair.verify(with_argv, reference=model).outcome == VERIFIED  # argc and argv are not inputs


@pytest.mark.parametrize("printed, outcome", [
    ('printf("%d\\n", n, k++);', VERIFIED),  # k++ evaluated, its value not printed
    ('printf("%d\\n", n, k);', VIOLATED),  # the second line shows the missing increment
])
def test_arguments_beyond_the_format_are_evaluated_and_ignored(tmp_path, printed, outcome):
    """C11 7.21.6.1p2 (and 7.21.6.2p2 for scanf): once the format is
    exhausted, the arguments left are evaluated but otherwise ignored — a
    program with more arguments than conversions is valid C, not bad input."""
    model = write_c(tmp_path, """
        #include <stdio.h>
        int main(void) {
            int n;
            scanf("%d", &n);
            printf("%d\\n%d\\n", n, 1);
            return 0;
        }
    """, "model.c")
    student = write_c(tmp_path, f"""
        #include <stdio.h>
        int main(void) {{
            int n, k = 0;
            scanf("%d", &n, &k);
            {printed}
            printf("%d\\n", k);
            return 0;
        }}
    """, "student.c")
    assert crepair.verify(student, reference=model).outcome == outcome


def test_fewer_arguments_than_conversions_are_bad_input(tmp_path):
    path = write_c(tmp_path, '#include <stdio.h>\nint main(void) { printf("%d %d", 1); return 0; }\n')
    with pytest.raises(crepair.BadInput, match="call to 'printf' with 1 arguments for 2 conversions"):
        crepair.verify(path, reference=path)


@pytest.mark.parametrize("printed, outcome", [
    ('printf("best %d \\n", best);', VERIFIED),  # a blank at the end of a line does not count
    ('printf("\\n  best %d\\n\\n", best);', VERIFIED),  # nor empty lines and blanks that start one
    ('printf("best  %d\\n", best);', VIOLATED),  # two blanks inside a line do
    ('printf("best\\n%d\\n", best);', VIOLATED),  # and so does a line break
    ('printf("best "); putchar(48 + best % 10); putchar(10);', VIOLATED),  # a character is not a number
    ('printf("best %d", best); puts("");', VERIFIED),  # puts ends the line
    ('printf("best"); puts(""); printf("%d", best);', VIOLATED),
    ('printf("best %u", best);', VERIFIED),  # best >= 0: the same text; the final newline does not count
])
def test_outputs_compare_as_the_judge_compares_them(tmp_path, printed, outcome):
    student, model = _pair(tmp_path, MODEL.replace('printf("best %d\\n", best);', printed))
    assert crepair.verify(student, reference=model).outcome == outcome


PYRAMID = """
    #include <stdio.h>
    int main() {
        int n, l, c;
        scanf("%d", &n);
        for (l = 0; l < n; ++l) {
            for (c = 0; c < n - l - 1; ++c) printf("  ");
            for (c = 0; c < l + 1; ++c) {
                if (c) putchar(' ');
                printf("%d", c + 1);
            }
            for (c = 0; c < l; ++c)
                printf(" %d", l - c);
            putchar('\\n');
        }
        return 0;
    }
"""

# the same pyramid printed cell by cell over a 2n-wide row, with blanks at the ends of lines
PYRAMID_CELLS = """
    #include <stdio.h>
    void rows(int n) {
        int i = 1, j, k;
        while (i <= n) {
            for (j = 1; j <= 2 * n; j++) {
                k = (j > n ? n - (j - n) : j) - (n - i);
                if (j <= n || k >= 1) {
                    if (k <= 0) printf("%c", ' ');
                    else printf("%d", k);
                    if (j < 2 * n) printf("%c", ' ');
                }
            }
            printf("\\n");
            i++;
        }
    }
    int main() {
        int n;
        scanf("%d", &n);
        rows(n);
        return 0;
    }
"""


def test_the_output_records_are_written_never_read_during_a_run(tmp_path):
    # each record is stored as ite(guard, store(out, n, r), out): no read-back of out[n] on the paths a print misses
    import z3

    from crepair.encode.symex import encode
    from crepair.options import ReferenceOptions
    from crepair.reference import load_with_reference
    from crepair.solver.terms import applications

    student, model = _pair(tmp_path, PYRAMID_CELLS, PYRAMID)
    program = load_with_reference(student, ReferenceOptions.of(model, (), (), None))
    formula, _ = encode(program, bound=3, entry=program.harness)
    terms = [c.term for c in formula.s_assign]
    reads = applications(terms, z3.Z3_OP_SELECT)
    assert not [r for r in reads if str(r.arg(0)).startswith("$stdout")]
    assert any(str(c.term.arg(0)).startswith("$stdout") and z3.is_app_of(c.term.arg(1), z3.Z3_OP_ITE)
               for c in formula.s_assign if z3.is_eq(c.term))


def test_nested_printing_loops_are_compared_with_the_model_at_the_default_bound(tmp_path):
    # C-Pack lab03/ex02's shape: unknown at 60 s while the output's stores read back earlier records
    student, model = _pair(tmp_path, PYRAMID_CELLS, PYRAMID)
    result = crepair.verify(student, reference=model, timeout=60)
    assert result.outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL  # equal for every n the bound covers
    wrong, _ = _pair(tmp_path, PYRAMID_CELLS.replace("k >= 1", "k >= 2"), PYRAMID)
    violated = crepair.verify(wrong, reference=model, timeout=60)
    assert violated.outcome == VIOLATED


def test_exit_ends_the_program_and_the_reference_runs_next(tmp_path):
    # (a number printed with %d is one token: the literal "best 0" would differ from it)
    early = MODEL.replace('scanf("%d", &n);', 'scanf("%d", &n);\n    if (n < 1) { printf("best %d\\n", 0); exit(0); }')
    student, model = _pair(tmp_path, "#include <stdlib.h>\n" + early)
    assert crepair.verify(student, reference=model).outcome == VERIFIED
    wrong = early.replace('printf("best %d\\n", 0); exit(0);', 'exit(0);')
    student, model = _pair(tmp_path, "#include <stdlib.h>\n" + wrong)
    assert crepair.verify(student, reference=model).outcome == VIOLATED


STREAMS = """
    #include <stdio.h>
    int largest(FILE *in, int n) {
        int i, x, best = 0;
        for (i = 0; i < n && i < 3; i++) {
            fscanf(in, "%d", &x);
            if (x > best)
                best = x;
        }
        return best;
    }
    int main() {
        int n;
        FILE *in = stdin, *out;
        out = stdout;
        if (!in || !out)  /* a standard stream is never NULL */
            return 1;
        fscanf(stdin, "%d", &n);
        n = largest(in, n);
        fprintf(stderr, "debugging %d\\n", n);  /* not compared */
        fputs("best ", out);
        fprintf(out, "%d", n);
        fputc('\\n', out);
        return 0;
    }
"""


@pytest.mark.parametrize("change, outcome", [
    (None, VERIFIED),
    (("x > best", "x >= best + 1 && x != 5"), VIOLATED),
    (("fputc('\\n', out);", "putc('\\n', stderr);"), VERIFIED),  # the final newline does not count
    (('fputs("best ", out);', 'fputs("best", out);'), VIOLATED),  # fputs adds no newline: "best3" is one token
])
def test_streams_held_in_variables_read_stdin_and_write_stdout(tmp_path, change, outcome):
    student = STREAMS if change is None else STREAMS.replace(*change)
    assert (student == STREAMS) == (change is None)
    student, model = _pair(tmp_path, student, STREAMS)
    result = crepair.verify(student, reference=model)
    assert result.outcome == outcome
    if change is not None and "x != 5" in change[1]:  # the counterexample reads a 5 among the first three numbers
        read = [i.value for i in result.counterexample.inputs if i.label.startswith("fscanf")]
        assert read[0] >= 1 and 5 in read[1:1 + min(read[0], 3)]


def test_a_student_main_is_repaired_against_the_model_solution(tmp_path):
    student, model = _pair(tmp_path, MODEL.replace("x > best", "x < best"))
    run = crepair.repair(student, reference=model, level=2, max_size=1)
    found = sorted((c.span.line, c.before, c.after) for r in run for c in r.changes)
    assert (7, "x < best", "x > best") in found
    assert all(line == 7 for line, _, _ in found)


def test_gets_and_fgets_read_lines(tmp_path):
    src = """
        #include <stdio.h>
        #include <string.h>
        int main(void) {
            char s[12], t[12];
            gets(s);
            fgets(t, 6, stdin);
            assert(strlen(s) <= 8 && strlen(t) >= 1 && strlen(t) <= 5 && t[strlen(t) - 1] == '\\n');
            assert(s[0] != ' ');
            return 0;
        }
    """
    result = verify(tmp_path, src)
    assert result.outcome == VIOLATED and result.counterexample.assertion.line == 8
    assert [(i.label, i.value[:1]) for i in result.counterexample.inputs if i.label == "gets()"] == [("gets()", [32])]


def test_a_string_longer_than_the_limit_cuts_the_run_like_a_loop(tmp_path):
    src = f"""
        #include <string.h>
        int main(void) {{
            char s[40] = "{'a' * 30}";
            assert(strlen(s) == 30);
            return 0;
        }}
    """
    short = verify(tmp_path, src, unwind=5)  # reads at most 2 * 8 + 2 characters
    assert short.bound.too_small and short.bound.cut.what == "string"  # vacuous beyond the limit
    long = verify(tmp_path, src, unwind=29)  # the unwinding bound + 2 = 31 characters: the NUL is read
    assert long.outcome == VERIFIED and long.bound.too_small is False


def test_memset_of_a_variable_count_is_bounded_by_the_array(tmp_path):
    src = """
        #include <string.h>
        int main(void) {
            char s[10] = "abc";
            int n = nondet_int();
            assume(n >= 0 && n <= 10);
            memset(s, 120, n);
            assert(n < 4 || s[3] == 120);
            assert(n > 3 || s[3] == 0);
            memset(s, 0, 0);
            return 0;
        }
    """
    assert verify(tmp_path, src).outcome == VERIFIED
    over = verify(tmp_path, src.replace("n <= 10", "n <= 11"))
    assert (over.counterexample.detail, over.counterexample.inputs[-1].value) == ("s[10] (size 10)", 11)


ROW = """
    #include <stdio.h>
    int main(void) {
        int n, i, a[5];
        scanf("%d", &n);
        if (n < 0 || n > 4)
            return 0;
        for (i = 0; i < n; i++)
            scanf("%d", a + i);
        for (i = 0; i < n; i++)
            printf("%d%s", a[i], i == n - 1 ? "\\n" : " ");
        return 0;
    }
"""


@pytest.mark.parametrize("last, outcome", [("i == n", VERIFIED),  # a blank, not a newline, ends the output
                                           ("i == 0", VIOLATED)])
def test_a_choice_of_literal_strings_prints_the_selected_one(tmp_path, last, outcome):
    student, model = _pair(tmp_path, ROW.replace("i == n - 1", last), ROW)
    assert crepair.verify(student, reference=model).outcome == outcome


LARGER_WORD = """
    #include <stdio.h>
    int main() {
        int c, i;
        char s1[8], s2[8];
        scanf("%s %s", s1, s2);
        for (i = c = 0; s1[i] != '\\0' && c == 0; ++i)
            c = s1[i] - s2[i];
        printf("%s\\n", c > 0 ? s1 : s2);
        return 0;
    }
"""


def test_percent_s_of_a_choice_between_arrays_prints_the_one_selected(tmp_path):
    student, model = _pair(tmp_path, LARGER_WORD, LARGER_WORD)
    assert crepair.verify(student, reference=model, input_bound=3).outcome == VERIFIED
    swapped = LARGER_WORD.replace("c > 0 ? s1 : s2", "c > 0 ? s2 : s1")
    student, model = _pair(tmp_path, swapped, LARGER_WORD)
    result = crepair.verify(student, reference=model, input_bound=3)
    assert result.outcome == VIOLATED
    words = [bytes(c & 0xFF for c in v).split(b"\0")[0] for label, v in scanned(result) if label.startswith("scanf %s")]
    assert len(words) == 2 and words[0] != words[1]  # equal words print the same either way
    literal = LARGER_WORD.replace("c > 0 ? s1 : s2", 'c > 0 ? s1 : "second"')
    student, model = _pair(tmp_path, literal, LARGER_WORD)
    assert crepair.verify(student, reference=model, input_bound=3).outcome == VIOLATED
