"""Property (issue 26, item 1): every violation a run reaches within the
bound is reported, whatever the run does afterwards.

Generated programs: a loop over a counter with a random start, limit,
comparison and step (possibly never ending), maybe an inner loop, and a
check at a random place of the body — ``assert(i != K)`` or an array read
``a[i - OFF]``.  The programs read no input, so the run is one: gcc runs an
instrumented copy that counts each loop's iterations (a loop body run more
than B times takes the run beyond ``--unwind B``) and says whether the check
fails while the run is still within the bound.  ``crepair.verify`` must
then answer exactly: violated (the check fails within the bound),
bound-too-small (the run goes beyond the bound first), or verified.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crepair

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to run the programs")

CAP = 2000  # loop iterations before the instrumented run gives up (the loop does not end)
SIZE = 5  # elements of the array the array checks read


@dataclass(frozen=True)
class Loop:
    start: int
    op: str
    limit: int
    step: int
    form: str  # "while" or "for"


@dataclass(frozen=True)
class Case:
    outer: Loop
    inner: int | None  # iterations of an inner loop (j = 0; j < inner; j++), None: none
    check: str  # "assert" or "array"
    k: int  # the asserted-against value, or the array read's offset
    late: bool  # (while loops) the check comes after the step
    bound: int


loops = st.builds(Loop, st.integers(-6, 6), st.sampled_from(["<", "<=", ">", ">=", "!="]), st.integers(-6, 6),
                  st.integers(-2, 3), st.sampled_from(["while", "for"]))
cases = st.builds(Case, loops, st.one_of(st.none(), st.integers(0, 4)), st.sampled_from(["assert", "array"]),
                  st.integers(-8, 8), st.booleans(), st.integers(1, 5))


def source(case: Case, instrumented: bool) -> str:
    """The C program of ``case``; ``instrumented``: the copy gcc runs, which
    exits 1 when the check fails within the bound, 2 when it fails beyond
    it, 3 when a loop outlasts ``CAP``, else 0."""
    o, b = case.outer, case.bound
    index = "i + j" if case.inner is not None else "i"

    def check() -> str:
        if case.check == "assert":
            cond = f"{index} != {case.k}"
            return f"if (!({cond})) return beyond ? 2 : 1;" if instrumented else f"assert({cond});"
        at = f"{index} - ({case.k})"
        if instrumented:
            return f"if (!(0 <= {at} && {at} < {SIZE})) return beyond ? 2 : 1; s += a[{at}];"
        return f"s += a[{at}];"

    def count(n: str) -> str:
        return f"{n}++; if ({n} > {b}) beyond = 1; if ({n} > {CAP}) return 3;" if instrumented else ""

    body = check()
    if case.inner is not None:
        body = (f"int n2 = 0; for (j = 0; j < {case.inner}; j++) {{ {count('n2')} {body} }}")
    step = f"i = i + ({o.step})"
    if o.form == "while":
        parts = [step + ";", body] if case.late else [body, step + ";"]
        loop = f"i = {o.start}; while (i {o.op} {o.limit}) {{ {count('n1')} {' '.join(parts)} }}"
    else:
        loop = f"for (i = {o.start}; i {o.op} {o.limit}; {step}) {{ {count('n1')} {body} }}"
    head = "int beyond = 0; int n1 = 0;" if instrumented else ""
    return (f"int main(void) {{\n  int a[{SIZE}] = {{0}}; int s = 0; int i; int j = 0; {head}\n"
            f"  {loop}\n  return s - s;\n}}\n")


def gcc_run(folder: Path, case: Case) -> int:
    c = folder / "run.c"
    c.write_text(source(case, instrumented=True))
    exe = folder / "run"
    subprocess.run(["gcc", "-O0", "-w", "-o", str(exe), str(c)], check=True, timeout=60)
    return subprocess.run([str(exe)], timeout=30).returncode


EXPECTED = {1: crepair.VerifyOutcome.VIOLATED, 2: crepair.VerifyOutcome.BOUND_TOO_SMALL,
            3: crepair.VerifyOutcome.BOUND_TOO_SMALL}


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases)
def test_every_violation_within_the_bound_is_reported(tmp_path, case):
    code = gcc_run(tmp_path, case)
    prog = tmp_path / "prog.c"
    prog.write_text(source(case, instrumented=False))
    result = crepair.verify(prog, unwind=case.bound)
    if code == 0:  # no failure; the run is beyond the bound iff a loop ran more than B times
        expected = {crepair.VerifyOutcome.VERIFIED, crepair.VerifyOutcome.BOUND_TOO_SMALL}
    else:
        expected = {EXPECTED[code]}
    assert result.outcome in expected, (source(case, False), code, result.outcome, result.counterexample)
    if code == 1 and case.check == "assert":
        assert result.counterexample.violated == crepair.Violation.ASSERTION


def test_the_generator_can_tell_within_from_beyond(tmp_path):
    """The instrumented run's verdicts on two hand-computed cases."""
    within = Case(Loop(0, "<=", 8, 1, "while"), None, "assert", 2, False, 8)  # i == 2 in iteration 3
    beyond = Case(Loop(0, "<=", 8, 1, "while"), None, "assert", 8, False, 8)  # i == 8 in iteration 9
    assert gcc_run(tmp_path, within) == 1 and gcc_run(tmp_path, beyond) == 2
