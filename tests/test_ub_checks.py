"""Checks of undefined behaviour: division by zero, signed division
overflow, array bounds and shifts are violations (CBMC's default checks),
with a counterexample, a kind and the offending expression; localization
and repair treat them as part of the specification."""

import json

import pytest

import crepair
from crepair import NO_CHECKS, Checks, Violation
from crepair.bmc import check_original
from crepair.cli import ExitCode, main
from crepair.encode import encode
from crepair.frontend import load_program
from crepair.solver import Limits, smt
from crepair.solver.smt import Verdict
from cprog import SHARED, write_c


def program(body: str, globals_: str = "", helpers: str = "") -> str:
    return f"{globals_}\n{helpers}\nint main(void) {{\n{body}\n  return 0;\n}}\n"


def verify(tmp_path, source: str, **kwargs):
    return crepair.verify(write_c(tmp_path, source), **kwargs)


DIV_BY_ZERO = program("  int m = nondet_int();\n  assume(m == 0);\n  assert(7 / m == -1);")


def test_division_by_zero_is_a_violation_with_its_kind_and_expression(tmp_path):
    result = verify(tmp_path, DIV_BY_ZERO)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    cex = result.counterexample
    assert cex.violated == Violation.DIVISION_BY_ZERO
    assert (cex.assertion.line, cex.assertion.column) == (4, 10)
    assert result.original[cex.assertion.start:cex.assertion.end] == "7 / m"
    assert cex.detail == "7 / m (divisor 0)"
    assert [i.value for i in cex.inputs] == [0]


def test_checks_can_be_turned_off(tmp_path):
    assert verify(tmp_path, DIV_BY_ZERO, checks=NO_CHECKS).outcome == crepair.VerifyOutcome.VERIFIED
    off = Checks(division=False)
    assert verify(tmp_path, DIV_BY_ZERO, checks=off).outcome == crepair.VerifyOutcome.VERIFIED


@pytest.mark.parametrize("op", ["/", "%"])
@pytest.mark.parametrize("ctype, minimum, value", [
    ("int", "(-2147483647 - 1)", -2**31), ("long", "(-9223372036854775807L - 1)", -2**63),
])
def test_signed_minimum_divided_by_minus_one_overflows(tmp_path, op, ctype, minimum, value):
    src = program(f"  {ctype} d = nondet_{ctype}();\n  assume(d < 0 && d > -3);\n  {ctype} q = {minimum} {op} d;")
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.DIVISION_OVERFLOW
    assert cex.detail == f"{minimum} {op} d ({value} / -1)"
    assert [i.value for i in cex.inputs] == [-1]


@pytest.mark.parametrize("src", [
    # a short divided by -1 is computed in int: no overflow
    "  short s = nondet_short();\n  short d = nondet_short();\n  assume(d == -1);\n  int q = s / d;",
    # unsigned division by -1 (UINT_MAX) is defined
    "  unsigned u = nondet_uint();\n  unsigned q = u / -1;",
    # guarded by the path, by && / || and by ?:
    "  int m = nondet_int();\n  int q = 0;\n  if (m != 0) q = 7 / m;",
    "  int m = nondet_int();\n  int q = m != 0 && 7 / m > 1;",
    "  int m = nondet_int();\n  int q = m == 0 || 7 % m > 1;",
    "  int m = nondet_int();\n  int q = m ? 7 / m : 0;",
    "  int m = nondet_int();\n  int q = !m ? 0 : 7 / m;",
    "  int m = nondet_int();\n  while (m != 0 && 100 / m > 3) m++;",
    # shifts within the promoted width
    "  unsigned char c = nondet_uchar();\n  int n = nondet_int();\n  assume(n >= 0 && n < 32);\n  int r = c << n;",
    "  long x = nondet_long();\n  int n = nondet_int();\n  assume(n >= 0 && n <= 63);\n  long r = x >> n;",
])
def test_defined_operations_are_verified(tmp_path, src):
    result = verify(tmp_path, program(src))
    # no violation (the m++ loop is cut by the bound: bound-too-small, not verified)
    assert result.outcome in (crepair.VerifyOutcome.VERIFIED, crepair.VerifyOutcome.BOUND_TOO_SMALL), result.counterexample


@pytest.mark.parametrize("stmt, kind, detail", [
    ("  int q = 100;\n  q /= m;", Violation.DIVISION_BY_ZERO, "q /= m (divisor 0)"),
    ("  int q = 100;\n  q %= m;", Violation.DIVISION_BY_ZERO, "q %= m (divisor 0)"),
    ("  int q = 1 << (m + 32);", Violation.SHIFT, "1 << (m + 32) (shift by 32, width 32)"),
    ("  int q = 1 >> (m - 1);", Violation.SHIFT, "1 >> (m - 1) (shift by -1, width 32)"),
    ("  long q = 1L << (m + 64);", Violation.SHIFT, "1L << (m + 64) (shift by 64, width 64)"),
    ("  char c = 1;\n  int q = c << (m + 32);", Violation.SHIFT, "c << (m + 32) (shift by 32, width 32)"),
    ("  int q;\n  int r = (q = 7 / m) + 1;", Violation.DIVISION_BY_ZERO, "7 / m (divisor 0)"),
    ("  int a[2];\n  int r = a[m + 2]++;", Violation.ARRAY_BOUNDS, "a[2] (size 2)"),
])
def test_compound_division_and_shifts(tmp_path, stmt, kind, detail):
    cex = verify(tmp_path, program("  int m = nondet_int();\n  assume(m == 0);\n" + stmt)).counterexample
    assert (cex.violated, cex.detail) == (kind, detail)


ARRAYS = [
    # (declarations, statement, index range: first out-of-bounds index), local and global, read and write
    ("", "  int a[4];\n  int v = a[i];", 4),
    ("", "  int a[4];\n  a[i] = 1;", 4),
    ("int g[4];", "  int v = g[i];", 4),
    ("int g[4];", "  g[i] = 1;", 4),
    ("int g[4];", "  g[i]++;", 4),
    ("int g[4];", "  g[i] += 2;", 4),
    ("", "  int n = nondet_int();\n  assume(n > 0 && n < 10);\n  int a[n];\n  a[i] = 1;", None),
]


@pytest.mark.parametrize("decls, stmt, bad", ARRAYS)
def test_array_accesses_out_of_bounds(tmp_path, decls, stmt, bad):
    src = program(f"  int i = nondet_int();\n  assume(i >= -2 && i <= 9);\n{stmt}", decls)
    cex = verify(tmp_path, src).counterexample
    assert cex is not None and cex.violated == Violation.ARRAY_BOUNDS
    index = cex.inputs[0].value
    assert index < 0 or (bad is not None and index >= bad) or (bad is None and index >= cex.inputs[1].value)
    ok = program(f"  int i = nondet_int();\n  assume(i >= 0 && i <= 3);\n{stmt}", decls)
    if bad is None:
        ok = ok.replace("n > 0", "n > 3")
    assert verify(tmp_path, ok).outcome == crepair.VerifyOutcome.VERIFIED


def test_index_is_checked_before_its_conversion_to_int(tmp_path):
    # (int) 4294967296L is 0, a valid index; the access is out of bounds
    src = program("  long i = nondet_long();\n  assume(i == 4294967296L);\n  int a[4];\n  a[i] = 1;")
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.ARRAY_BOUNDS and cex.detail == "a[4294967296] (size 4)"
    unsigned = program("  unsigned i = nondet_uint();\n  assume(i == 4294967295U);\n  int a[4];\n  a[i] = 1;")
    assert verify(tmp_path, unsigned).counterexample.detail == "a[4294967295] (size 4)"


def test_array_passed_to_a_function_keeps_its_size(tmp_path):
    helper = "int get(int b[], int k) { return b[k]; }"
    src = program("  int a[3];\n  int k = nondet_int();\n  assume(k >= 0 && k <= 3);\n  int v = get(a, k);",
                  helpers=helper)
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.ARRAY_BOUNDS and cex.detail == "b[3] (size 3)"
    assert cex.assertion.line == 1


def test_the_first_violation_of_the_run_is_reported(tmp_path):
    src = program("  int m = nondet_int();\n  assume(m == 0);\n  int a[2];\n  a[m + 2] = 1;\n  assert(7 / m == 1);")
    cex = verify(tmp_path, src).counterexample
    assert cex.violated == Violation.ARRAY_BOUNDS and cex.assertion.line == 5


def test_cli_text_json_and_switches(tmp_path, capsys):
    path = write_c(tmp_path, DIV_BY_ZERO)
    assert main(["verify", str(path)]) == ExitCode.VIOLATED
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"{path}:4:10: division by zero: 7 / m (divisor 0)"
    assert main(["verify", str(path), "--json"]) == ExitCode.VIOLATED
    cex = json.loads(capsys.readouterr().out)["counterexample"]
    assert (cex["violated"], cex["detail"], cex["assertion"]["column"]) == ("division by zero", "7 / m (divisor 0)", 10)
    for flag in ("--no-div-by-zero-check", "--no-standard-checks"):
        assert main(["verify", str(path), flag]) == ExitCode.OK
    assert main(["verify", str(path), "--no-bounds-check"]) == ExitCode.VIOLATED
    capsys.readouterr()


@pytest.mark.skipif(not (SHARED / "tcas").exists(), reason="shared benchmarks absent")
def test_tcas_v38_writes_past_its_array(capsys):
    path = SHARED / "tcas" / "spec" / "tcas_v38.c"
    result = crepair.verify(path)
    cex = result.counterexample
    assert cex.violated == Violation.ARRAY_BOUNDS
    assert (cex.assertion.line, cex.assertion.column, cex.detail) == (82, 5, "Positive_RA_Alt_Thresh[3] (size 3)")
    # without the checks the write is unnoticed (as before them) and the assertion holds
    assert crepair.verify(path, checks=NO_CHECKS).outcome == crepair.VerifyOutcome.VERIFIED
    assert main(["verify", str(path)]) == ExitCode.VIOLATED
    assert f"{path}:82:5: array index out of bounds: Positive_RA_Alt_Thresh[3] (size 3)" in capsys.readouterr().out


# ------------------------------------------------------------ mutants
MUL = """
int f(int x, int y) { return x * y; }
int main(void) {
  int y = nondet_int();
  assume(y >= 0 && y <= 2);
  int r = f(6, y);
  return 0;
}
"""


@pytest.mark.parametrize("call", ["int r = f(6, y);", "int q;\n  int r = (q = f(6, y)) + 1;"])
def test_a_check_follows_the_selected_mutant(tmp_path, call):
    prog = load_program(write_c(tmp_path, MUL.replace("int r = f(6, y);", call)))

    def to_division(site):  # the original, and `x / y` instead of `x * y`
        if site.function == "f":
            return ({}, {site.root: "/"})
        return ({},)

    formula, _ = encode(prog, bound=2, alternatives=to_division)
    [loc] = [loc.index for loc in formula.locations if loc.function == "f"]
    checks = [c for c in formula.copies if c.check]
    assert checks and all(c.location == loc for c in checks)
    limits = Limits()
    assert check_original(formula, limits)[0] == Verdict.UNSAT  # x * y is defined
    from crepair.solver import smt_solver

    solver = smt_solver(limits)
    solver.add(*formula.hard(), *formula.selected_copies({loc: 1}), formula.violation())
    assert solver.check() == Verdict.SAT  # x / y with y == 0
    assert smt.is_true(smt.simplify(checks[0].alternatives[0]))


DIVIDES_BY_ZERO = """
int scale(int m) { return 100 / (m - 1); }
int AllRepair_correct_scale(int m) { return 100 / (m + 1); }
int main(void) {
  int m = nondet_int();
  assume(m >= 0 && m <= 5);
  int r = scale(m);
  return 0;
}
"""


def test_a_program_whose_only_failure_is_undefined_is_localized_and_repaired(tmp_path):
    path = write_c(tmp_path, DIVIDES_BY_ZERO)
    result = crepair.localize(path)
    assert result.counterexample.violated == Violation.DIVISION_BY_ZERO
    assert [o.span.line for o in result.locations] == [1]
    run = crepair.repair(path, level=1, max_size=1, timeout=120)
    repairs = list(run)
    assert repairs and run.outcome == crepair.RepairOutcome.REPAIRED
    for r in repairs:
        patched = write_c(tmp_path, r.patched, "patched.c")
        assert crepair.verify(patched).outcome == crepair.VerifyOutcome.VERIFIED
    assert any(e.new == "+" for r in repairs for c in r.changes for e in c.edits)
    # the spec without the checks: nothing to repair
    assert crepair.repair(path, checks=NO_CHECKS, timeout=60).outcome == crepair.RepairOutcome.ORIGINAL_CORRECT


def test_diagnosis_and_template_repair_remove_a_division_by_zero(tmp_path):
    src = DIVIDES_BY_ZERO.replace("int r = scale(m);", "int r = scale(m);\n  assert(r >= 0);")
    path = write_c(tmp_path, src)
    result = crepair.localize(path, method="diagnosis", max_size=1)
    assert [[c.span.line for c in d.components] for d in result.diagnoses][:1] == [[1]]
    run = crepair.repair(path, scheme="template", max_size=1, timeout=120, max_repairs=1)
    [repair] = list(run)
    assert crepair.verify(write_c(tmp_path, repair.patched, "patched.c")).outcome == crepair.VerifyOutcome.VERIFIED
