"""``--reference REF.c``: the equivalence harness crepair builds itself."""

import subprocess

import pytest

import crepair
from crepair.cli import ExitCode, main
from cprog import SHARED, write_c

STUDENT = """
    int max3(int a, int b, int c) {
        int m = a;
        if (b > m)
            m = b;
        if (c < m)
            m = c;
        return m;
    }
"""

# the model solution, with a main the engine does not model (never reached from max3)
MODEL = """
    #include <stdio.h>
    struct pair { int a, b; };
    int max3(int a, int b, int c) {
        int m = a;
        if (b > m) m = b;
        if (c > m) m = c;
        return m;
    }
    int main(int argc, char *argv[]) {
        struct pair p = {1, 2};
        int *q = &p.a;
        printf("%d\\n", max3(*q, p.b, argc));
        return 0;
    }
"""


def _pair(tmp_path, student=STUDENT, model=MODEL):
    return write_c(tmp_path, student, "student.c"), write_c(tmp_path, model, "model.c")


def test_a_student_program_is_repaired_against_the_model_solution(tmp_path):
    student, model = _pair(tmp_path)
    text = student.read_text()
    run = crepair.repair(student, reference=model, entry="max3", level=2, max_size=1)
    repairs = list(run)
    assert run.outcome == crepair.RepairOutcome.REPAIRED
    # c > m and c >= m both give the maximum (equal values are the same maximum)
    assert sorted(c.after for r in repairs for c in r.changes) == ["c > m", "c >= m"]
    first = next(r for r in repairs if r.changes[0].after == "c > m")
    assert first.diff.splitlines()[2:] == [
        "@@ -2,7 +2,7 @@",
        "     int m = a;",
        "     if (b > m)",
        "         m = b;",
        "-    if (c < m)",
        "+    if (c > m)",
        "         m = c;",
        "     return m;",
        " }",
    ]
    assert all(c.span.file == str(student) for r in repairs for c in r.changes)
    assert student.read_text() == text  # the user's file is never written


def test_the_counterexample_feeds_both_programs_the_same_inputs(tmp_path):
    student, model = _pair(tmp_path)
    result = crepair.verify(student, reference=model, entry="max3")
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    values = {i.label: i.value for i in result.counterexample.inputs}
    a, b, c = values["a"], values["b"], values["c"]
    assert max(a, b) != (c if c < max(a, b) else max(a, b)) or max(a, b, c) != max(a, b)
    assert result.counterexample.assertion.file == str(student)  # reported at the entry function's name
    assert result.counterexample.assertion.line == 1
    cex = result.counterexample
    assert cex.violated == crepair.Violation.NOT_EQUIVALENT
    assert cex.detail.startswith("the value max3 returns: ") and ", the reference's: " in cex.detail
    mine, theirs = (int(x) for x in cex.detail.split(": ", 1)[1].split(", the reference's: "))
    assert mine == min(max(a, b), c) and theirs == max(a, b, c) and mine != theirs


def test_an_equivalent_program_is_verified_and_already_correct(tmp_path):
    student, model = _pair(tmp_path, STUDENT.replace("c < m", "m < c"))
    assert crepair.verify(student, reference=model, entry="max3").outcome == crepair.VerifyOutcome.VERIFIED
    run = crepair.repair(student, reference=model, entry="max3")
    assert list(run) == [] and run.outcome == crepair.RepairOutcome.ORIGINAL_CORRECT


CLAMP = """
    int limit = 10;
    int hits;
    int clamp(int x) {
        if (x > limit) {
            hits = hits + 1;
            return limit;
        }
        return x;
    }
"""


def test_assume_restricts_the_inputs_on_the_initial_state(tmp_path):
    student, model = _pair(tmp_path, CLAMP.replace("x > limit", "x >= limit + 5"), CLAMP)
    assert crepair.verify(student, reference=model, entry="clamp").outcome == crepair.VerifyOutcome.VIOLATED
    ok = crepair.verify(student, reference=model, entry="clamp", assume=["x <= limit"])
    assert ok.outcome == crepair.VerifyOutcome.VERIFIED
    # an assumption over a global input (hits starts nondeterministic: clamp is not main)
    bad = crepair.verify(student, reference=model, entry="clamp", assume=["x <= limit + 4", "hits == 0"])
    assert bad.outcome == crepair.VerifyOutcome.VIOLATED
    assert 10 < {i.label: i.value for i in bad.counterexample.inputs}["x"] <= 14
    # a global that only the assumption names (clamp never reads it) is a global of the harness all the same
    extra, _ = _pair(tmp_path, "int mode = 3;\n" + CLAMP.replace("x > limit", "x >= limit + 5"), CLAMP)
    assert crepair.verify(extra, reference=model, entry="clamp", assume=["x <= limit + mode - 3"]).outcome \
        == crepair.VerifyOutcome.VERIFIED
    with pytest.raises(crepair.UsageError, match="not a C expression"):
        crepair.verify(student, reference=model, entry="clamp", assume=["x >"])


def test_the_final_globals_the_entry_writes_are_compared(tmp_path):
    # same return value, but the student counts hits twice
    student, model = _pair(tmp_path, CLAMP.replace("hits = hits + 1", "hits = hits + 2"), CLAMP)
    result = crepair.verify(student, reference=model, entry="clamp")
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    assert {i.label: i.value for i in result.counterexample.inputs}["x"] > 10
    assert result.counterexample.detail == "global hits: 2, the reference's: 1"
    run = crepair.repair(student, reference=model, entry="clamp", level=2, max_size=1)
    assert [c.after for r in run for c in r.changes] == ["hits + 1"]


NONDET = """
    int sum3(void) {
        int s = 0;
        s = s + nondet_int() % 7;
        s = s + nondet_int() % 5;
        return s;
    }
"""


def test_nondet_calls_return_the_same_values_in_call_order(tmp_path):
    same, model = _pair(tmp_path, NONDET.replace("int s = 0;", "int s = 0; int t = 0;"), NONDET)
    assert crepair.verify(same, reference=model, entry="sum3").outcome == crepair.VerifyOutcome.VERIFIED
    swapped, _ = _pair(tmp_path, NONDET.replace("% 7", "% 6"), NONDET)
    run = crepair.repair(swapped, reference=model, entry="sum3", level=2, max_size=1)
    assert [c.after for r in run for c in r.changes] == ["s + nondet_int() % 7"]


def test_init_functions_run_in_both_programs_before_the_entry(tmp_path):
    prog = """
        int table[3];
        void setup(void) { table[0] = 4; table[1] = 5; table[2] = 6; }
        int pick(int i) { return table[i]; }
    """
    student, model = _pair(tmp_path, prog.replace("= 5", "= 6"), prog)
    # without --init the table is an input, equal in both: the fault in setup is invisible
    bounded = ["i >= 0 && i < 3"]  # else table[i] reads out of bounds (a violation of its own)
    assert crepair.verify(student, reference=model, entry="pick").counterexample.violated == crepair.Violation.ARRAY_BOUNDS
    assert crepair.verify(student, reference=model, entry="pick", assume=bounded).outcome == \
        crepair.VerifyOutcome.VERIFIED
    found = crepair.verify(student, reference=model, entry="pick", init=["setup"], assume=["i >= 0 && i < 3"])
    assert found.outcome == crepair.VerifyOutcome.VIOLATED  # the table setup writes differs
    run = crepair.repair(student, reference=model, entry="pick", init=["setup"], assume=bounded, level=2, max_size=1)
    assert [(c.span.line, c.after) for r in run for c in r.changes] == [(2, "5")]


def test_localization_never_names_the_reference(tmp_path):
    student, model = _pair(tmp_path)
    result = crepair.localize(student, reference=model, entry="max3")
    assert result.locations and all(o.span.file == str(student) for o in result.locations)
    assert {o.span.line for o in result.locations} >= {5}


def test_the_template_scheme_repairs_against_a_reference(tmp_path):
    student, model = _pair(tmp_path, "int inc(int x) { return x + 2; }\n", "int inc(int x) { return x + 1; }\n")
    run = crepair.repair(student, reference=model, entry="inc", scheme="template", assume=["x < 1000 && x > -1000"],
                         max_repairs=1)
    assert [c.after for r in run for c in r.changes] == ["x + 1"]


def test_unreachable_unsupported_code_is_not_rejected_without_a_reference(tmp_path):
    prog = write_c(tmp_path, """
        struct s { int a; };
        int twice(int x) { int y = x + x; assert(y == 2 * x); return y; }
        int main(void) { long double v = 1; return twice((int)v); }
    """)
    assert crepair.verify(prog, entry="twice").outcome == crepair.VerifyOutcome.VERIFIED
    with pytest.raises(crepair.errors.UnsupportedConstruct, match=r"prog\.c:3:\d+: unsupported construct: floating"):
        crepair.verify(prog)  # from main, the struct is reached


@pytest.mark.parametrize("case, what", [
    ("missing", "model.c"),
    ("entry", "the reference does not define 'max3' (the entry function)"),
    ("signature", "entry function 'max3' is int(int, int, int) in"),
    ("assume", "--assume 'd > 0': 'd' is neither a parameter of max3 nor a global"),
    ("init", "--init function 'setup' is not defined"),
])
def test_bad_input_is_one_line_with_its_exit_code(tmp_path, capsys, case, what):
    student, model = _pair(tmp_path)
    args = ["verify", str(student), "--entry", "max3", "--reference", str(model)]
    code = ExitCode.BAD_INPUT
    if case == "missing":
        model.unlink()
    elif case == "entry":
        model.write_text("int max2(int a, int b) { return a > b ? a : b; }\n")
    elif case == "signature":
        model.write_text("int max3(int a, int b) { return a > b ? a : b; }\n")
    elif case == "assume":
        args += ["--assume", "d > 0"]
        code = ExitCode.USAGE
    else:
        args += ["--init", "setup"]
    assert main(args) == code
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and what in err and "Traceback" not in err


def test_signatures_compare_as_types_not_spellings(tmp_path):
    # typedef names resolved, `unsigned` is `unsigned int`, an array parameter is a pointer, a struct by its tag
    student = write_c(tmp_path, """
        typedef unsigned int uint;
        struct box { int v; };
        typedef struct box box_t;
        uint pick(const uint a[], box_t *b, unsigned n) { return n ? a[0] + b->v : 0u; }
    """, "student.c")
    model = write_c(tmp_path, """
        struct box { int v; };
        unsigned pick(unsigned int *a, struct box *b, unsigned int n) { return n ? a[0] + b->v : 0; }
    """, "model.c")
    result = crepair.verify(student, entry="pick", reference=model, unwind=1)
    assert result.outcome == crepair.VerifyOutcome.VERIFIED
    model.write_text(model.read_text().replace("unsigned int n", "long n"))
    with pytest.raises(crepair.errors.BadInput, match=r"is unsigned int\(unsigned int \*, struct box \*, unsigned int\)"
                                                      r" in .*student\.c but unsigned int\(unsigned int \*, struct box \*, "
                                                      r"long\) in the reference"):
        crepair.verify(student, entry="pick", reference=model, unwind=1)


def test_reference_options_need_a_reference(capsys, tmp_path):
    student, _ = _pair(tmp_path)
    assert main(["verify", str(student), "--assume", "a > 0"]) == ExitCode.USAGE
    assert "need --reference" in capsys.readouterr().err


TCAS = SHARED / "tcas"
TCAS_ASSUME = ["High_Confidence>=0 && High_Confidence<=1",
               "Two_of_Three_Reports_Valid>=0 && Two_of_Three_Reports_Valid<=1",
               "Alt_Layer_Value>=0 && Alt_Layer_Value<=3", "Other_RAC>=0 && Other_RAC<=1",
               "Other_Capability>=0 && Other_Capability<=1", "Climb_Inhibit>=0 && Climb_Inhibit<=1",
               "Own_Tracked_Alt<=100000 && Other_Tracked_Alt<=100000 && Up_Separation<=100000 && "
               "Down_Separation<=100000 && Cur_Vertical_Sep<=100000 && Own_Tracked_Alt_Rate<=100000"]
ARGV = ["Cur_Vertical_Sep", "High_Confidence", "Two_of_Three_Reports_Valid", "Own_Tracked_Alt",
        "Own_Tracked_Alt_Rate", "Other_Tracked_Alt", "Alt_Layer_Value", "Up_Separation", "Down_Separation",
        "Other_RAC", "Other_Capability", "Climb_Inhibit"]


@pytest.mark.skipif(not TCAS.is_dir(), reason="../shared/benchmarks/tcas not found")
def test_a_tcas_counterexample_separates_the_two_sir_programs_compiled_with_gcc(tmp_path):
    version, original = TCAS / "sir" / "versions" / "v1" / "tcas.c", TCAS / "sir" / "original.c"
    result = crepair.verify(version, reference=original, entry="alt_sep_test", init=["initialize"],
                            assume=TCAS_ASSUME)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    values = {i.label: i.value for i in result.counterexample.inputs}
    argv = [str(values[name]) for name in ARGV]
    outputs = []
    for src in (version, original):
        exe = tmp_path / src.parent.name
        subprocess.run(["gcc", "-w", "-std=gnu89", "-o", str(exe), str(src)], check=True)
        outputs.append(subprocess.run([str(exe), *argv], capture_output=True, text=True).stdout)
    assert outputs[0] != outputs[1]


@pytest.mark.skipif(not TCAS.is_dir(), reason="../shared/benchmarks/tcas not found")
def test_a_tcas_fault_in_initialize_is_repaired_on_the_sir_file(tmp_path):
    version, original = TCAS / "sir" / "versions" / "v16" / "tcas.c", TCAS / "sir" / "original.c"
    run = crepair.repair(version, reference=original, entry="alt_sep_test", init=["initialize"],
                         assume=TCAS_ASSUME, level=2, max_size=1)
    # the fault is in initialize (Positive_RA_Alt_Thresh[0] = 400+1;), which only --init reaches
    assert sorted((c.span.line, c.after) for r in run for c in r.changes) == [
        (50, "399+1"), (50, "400*1"), (50, "400+0")]


SUM = """
    int total;
    int main(void) {
        int n = nondet_int();
        int i;
        assume(n >= 0 && n < 5);
        for (i = 0; i < n; i++)
            total += i;
        return total;
    }
"""


def test_a_main_program_is_repaired_from_the_command_line(tmp_path, capsys):
    # main is code here (the reference is the specification); total starts at 0 as in C
    student, model = _pair(tmp_path, SUM.replace("i < n", "i <= n"), SUM)
    code = main(["repair", str(student), "--reference", str(model), "--level", "1", "--max-size", "1", "--quiet"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK
    assert "-    for (i = 0; i <= n; i++)\n+    for (i = 0; i < n; i++)" in out
    assert "1 repair;" in out


@pytest.mark.parametrize("extra", [["--method", "spectrum", "--tests-dir", "."], []])
def test_localize_takes_a_reference_only_with_the_bounded_methods(tmp_path, capsys, extra):
    student, model = _pair(tmp_path, SUM.replace("i < n", "i <= n"), SUM)
    code = main(["localize", str(student), "--reference", str(model), *extra])
    if extra:
        assert code == ExitCode.USAGE and "--reference: not used by --method spectrum" in capsys.readouterr().err
    else:
        assert code == ExitCode.OK and f"{student}:6:" in capsys.readouterr().out


def test_array_parameters_are_bounded_inputs_compared_after_the_call(tmp_path):
    prog = """
        void bump(int a[], int n) {
            int i;
            for (i = 0; i < n; i++)
                a[i] = a[i] + 1;
        }
    """
    student, model = _pair(tmp_path, prog.replace("i < n", "i < n - 1"), prog)
    result = crepair.verify(student, reference=model, entry="bump", input_bound=3, assume=["n >= 0 && n <= 3"])
    assert result.outcome == crepair.VerifyOutcome.VIOLATED  # the last element is not bumped: a differs
    assert {i.label: i.value for i in result.counterexample.inputs}["n"] >= 1
    same, _ = _pair(tmp_path, prog.replace("i < n", "n > i"), prog)
    assert crepair.verify(same, reference=model, entry="bump", input_bound=3,
                          assume=["n >= 0 && n <= 3"]).outcome == crepair.VerifyOutcome.VERIFIED


def test_a_different_output_is_named_as_such(tmp_path):
    prog = "#include <stdio.h>\nint main(void) {\n  int n;\n  scanf(\"%d\", &n);\n  printf(\"%d\\n\", n > 5 ? 1 : 0);\n  return 0;\n}\n"
    student, model = _pair(tmp_path, prog.replace("n > 5", "n >= 5"), prog)
    cex = crepair.verify(student, reference=model).counterexample
    assert (cex.violated, cex.detail) == (crepair.Violation.NOT_EQUIVALENT, "the output")
    assert [i.value for i in cex.inputs if i.label == "scanf %d"][0] == 5


def test_the_executed_lines_are_the_users_file_only(tmp_path):
    # the reference is longer and its branch sits lower: its lines must not show as the user's
    prog = ("#include <stdio.h>\nint main(void) {\n  int n;\n  scanf(\"%d\", &n);\n  if (n > 3)\n"
            "    printf(\"%d\\n\", n + 1);\n  else\n    printf(\"%d\\n\", n);\n  return 0;\n}\n")
    model = prog.replace("scanf(\"%d\", &n);\n", "scanf(\"%d\", &n);\n\n\n\n\n\n").replace("n > 3", "n > 5")
    student, reference = _pair(tmp_path, prog, model)
    cex = crepair.verify(student, reference=reference).counterexample
    assert list(cex.lines) == [3, 4, 5, 6, 9]  # n in 4..5 takes the then-branch (line 6), then return (line 9)
