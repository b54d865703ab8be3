"""Must fault localization (CAV'20): the paper's examples and Proposition 1."""

import itertools

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import crepair
from crepair.encode import encode
from crepair.frontend import load_program
from crepair.localization.must import DependencyGraph, compute_slice, fosfl
from crepair.mutation import MutationLevel, MutationUnit
from crepair.patch import apply_edits
from crepair.solver import smt
from crepair.solver.smt import SmtSolver, Verdict
from cprog import write_c


def counterexample(formula, **inputs):
    """A model of the program formula with the named inputs fixed."""
    solver = SmtSolver()
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation())
    for inp in formula.inputs:
        if inp.label in inputs:
            solver.add(inp.term == smt.BitVecVal(inputs[inp.label], 32))
    assert solver.check() == Verdict.SAT
    return solver.model()


# CAV'20 Fig. 1, one statement per line as in the paper.
ABS_VALUE = """\
void absValue(int x) { int abs = x;
    if (x < -1)
        abs = -x;
    assert(abs >= 0); }
"""


def test_abs_value_must_set_is_lines_1_and_2(tmp_path):
    program = load_program(write_c(tmp_path, ABS_VALUE))
    formula, _ = encode(program, bound=1, entry="absValue")
    result = fosfl(DependencyGraph(formula), formula, counterexample(formula, x=-1))
    assert {o.span.line for o in result.origins} == {1, 2}
    assert {program.original[o.span.start:o.span.end] for o in result.origins} == {"x", "x < -1"}


# CAV'20 Fig. 2.
FOO = """
    void foo(int x, int w) {
        int t = 0;
        int y = x - 3;
        int z = x + 3;
        if (w > 3) {
            t = z + w;
            assert(t < x);
            y = y + 10;
        }
        assert(y > z);
    }
"""


def test_foo_slice_of_y2_and_must_set(tmp_path):
    program = load_program(write_c(tmp_path, FOO))
    formula, _ = encode(program, bound=1, entry="foo")
    model = counterexample(formula, x=0, w=0)
    sdg = DependencyGraph(formula)
    (y2,) = [c for c in formula.s_phi if "::y#" in str(smt.eq_sides(c.term)[0])]
    y2_name = str(smt.eq_sides(y2.term)[0])
    influence = compute_slice(sdg, model, y2_name, set())
    # Slice(y2) = {y2 = ite(g0, y1, y0), y0 = x0 - 3, g0 = w0 > 3}
    slice_assign = {sdg.definitions[v].origin for v in influence if v in sdg.definitions} - {None}
    text = lambda o: program.original[o.span.start:o.span.end]
    assert {text(o) for o in slice_assign} == {"x - 3", "w > 3"}
    phis = [c for c in formula.s_phi if str(smt.eq_sides(c.term)[0]) in influence]
    assert phis == [y2]
    result = fosfl(sdg, formula, model)
    assert [(o.span.line, text(o)) for o in result.origins] == [(3, "x - 3"), (4, "x + 3"), (5, "w > 3")]


def test_localize_command_sarif_and_json(tmp_path, capsys):
    import json

    from crepair.cli import main

    path = write_c(tmp_path, ABS_VALUE.replace("void absValue(int x) {", "void absValue(int x) { __CPROVER_assume(x > -100);"))
    sarif = tmp_path / "out.sarif"
    assert main(["localize", str(path), "--entry", "absValue", "--sarif", str(sarif)]) == 0
    out = capsys.readouterr().out
    assert "every repair within the mutation or arbitrary-expression scheme changes at least one" in out
    assert "x < -1" in out and "^^^^^^" in out
    log = json.loads(sarif.read_text())
    assert log["version"] == "2.1.0"
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]]
    assert [(g["startLine"], g["startColumn"], g["endColumn"]) for g in regions] == [(1, 62, 63), (2, 9, 15)]
    assert main(["localize", str(path), "--entry", "absValue", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [l["span"]["line"] for l in data["locations"]] == [1, 2]
    assert data["counterexample"]["inputs"][0]["value"] == -1


# ---------------------------------------------------------------------------
# Proposition 1 and the must property on generated programs.

EXPRS = ["x + y", "x - 2", "y * 3", "x + 1", "y - x", "2 * x"]
CONDS = ["x > y", "x <= 3", "y >= 0", "x < y + 1", "x == 2"]

MAIN = """
int main(void) {{
    int x = nondet_int(), y = nondet_int();
    __CPROVER_assume(x >= -8 && x <= 8 && y >= -8 && y <= 8);
    /*PIN*/
    assert(f(x, y) == AllRepair_correct_f(x, y));
    return 0;
}}
"""


def with_specification(f: str) -> str:
    """A program: ``f``, its fault-free copy ``AllRepair_correct_f`` and a
    ``main`` asserting that they agree (a ``str.format`` template)."""
    return f + f.replace("int f(", "int AllRepair_correct_f(") + MAIN


TEMPLATE = with_specification("""
int f(int x, int y) {{
    int r = {e1};
    if ({c1})
        r = {e2};
    return r;
}}
""")

# Conditionally evaluated operands and array elements: the must sets skip
# the operands a model does not evaluate and the elements it does not read.
SHORT_EXPRS = ["x > 0 ? y : x + 1", "(x < y) + 3", "y - 1", "x == y ? 2 : y", "x * 2"]
SHORT_CONDS = ["x > y && y >= 0", "x <= 3 || y == 1", "x < 2 && (y > 0 || x == y)", "y != 4"]

SHORT_TEMPLATE = with_specification("""
int f(int x, int y) {{
    int p = {e1};
    int q = {e2};
    int r = p > 2 && q < 3;
    if ({c1})
        r = r ? p : q + 1;
    return r;
}}
""")

ARRAY_TEMPLATE = with_specification("""
int f(int x, int y) {{
    int a[3];
    a[0] = {e1};
    a[1] = {e2};
    a[2] = x;
    if ({c1})
        a[0] = a[1] - y;
    return a[x > 0] + a[2];
}}
""")


def candidates(formula, mutants, size):
    """Every selection of 1..size locations with a mutant each: (locations, alternative indices)."""
    locs = [l.index for l in formula.locations if len(mutants[l.index]) > 1]
    for k in range(1, size + 1):
        for chosen in itertools.combinations(locs, k):
            for alts in itertools.product(*(range(1, len(mutants[i])) for i in chosen)):
                yield chosen, alts


def check_pruning_and_must_sets(tmp, template, e1, e2, c1, picks):
    """Inject one or two level-2 mutations into ``f`` and check Proposition 1
    and the must property of the bug's must set (brute force, size <= 2)."""
    correct = write_c(tmp, template.format(e1=e1, e2=e2, c1=c1), "correct.c")
    program = load_program(correct)
    formula, mutants = encode(program, bound=1, entry="main", alternatives=MutationUnit(program, MutationLevel.LEVEL_2))
    in_f = [
        m.mutation for loc in formula.locations if loc.function == "f" for m in mutants[loc.index][1:]
    ]
    chosen = {picks[0] % len(in_f)}
    if len(picks) > 1:
        chosen.add(picks[1] % len(in_f))
    edits = [(in_f[i].start, in_f[i].end, in_f[i].new_text) for i in sorted(chosen)]
    spans = sorted((s, e) for s, e, _ in edits)
    assume(all(a[1] <= b[0] for a, b in zip(spans, spans[1:])))
    buggy_text = apply_edits(program.original, edits)
    buggy = write_c(tmp, buggy_text, "buggy.c")
    verdict = crepair.verify(buggy, unwind=1)
    assume(verdict.outcome == crepair.VerifyOutcome.VIOLATED)

    # Proposition 1: the same minimal repairs with and without pruning.
    key = lambda r: frozenset((e.span.start, e.new) for e in r.edits)
    none = {key(r) for r in crepair.repair(buggy, level=2, max_size=2, unwind=1, timeout=None, prune="none")}
    must = {key(r) for r in crepair.repair(buggy, level=2, max_size=2, unwind=1, timeout=None, prune="must")}
    assert none == must
    event(f"minimal repairs: {'some' if none else 'none'}")

    # The must set of the bug on its counterexample hits every minimal
    # repairable set for that input (brute force over the scheme, size <= 2).
    result = crepair.localize(buggy, unwind=1)
    inputs = [i.value for i in result.counterexample.inputs if i.label == "nondet_int()"]
    pinned = buggy_text.replace("/*PIN*/", f"__CPROVER_assume(x == {inputs[0]} && y == {inputs[1]});")
    pinned_prog = load_program(write_c(tmp, pinned, "pinned.c"))
    formula, mutants = encode(
        pinned_prog, bound=1, entry="main", alternatives=MutationUnit(pinned_prog, MutationLevel.LEVEL_2)
    )
    repairable_sets = []
    for locs, alts in candidates(formula, mutants, 2):
        solver = SmtSolver()
        solver.add(*formula.hard(), formula.violation())
        chosen = dict(zip(locs, alts))
        solver.add(*(c.lhs == c.alternatives[chosen.get(c.location, 0)] for c in formula.copies))
        verdict = solver.check()
        assert verdict != Verdict.UNKNOWN
        if verdict == Verdict.UNSAT:
            repairable_sets.append(frozenset(formula.locations[i].span.start for i in locs))
    minimal = {s for s in repairable_sets if not any(o < s for o in repairable_sets)}
    must_starts = {o.span.start for o in result.locations}
    event(f"minimal repairable sets for the input: {len(minimal)}")
    for m in minimal:
        assert m & must_starts, f"must set {sorted(must_starts)} misses minimal repairable set {sorted(m)}"


PICKS = st.lists(st.integers(0, 10_000), min_size=1, max_size=2, unique=True)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(e1=st.sampled_from(EXPRS), e2=st.sampled_from(EXPRS), c1=st.sampled_from(CONDS), picks=PICKS)
def test_pruning_keeps_every_minimal_repair_and_must_sets_hit_them(tmp_path_factory, e1, e2, c1, picks):
    check_pruning_and_must_sets(tmp_path_factory.mktemp("gen"), TEMPLATE, e1, e2, c1, picks)


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    template=st.sampled_from([SHORT_TEMPLATE, ARRAY_TEMPLATE]), e1=st.sampled_from(SHORT_EXPRS),
    e2=st.sampled_from(SHORT_EXPRS), c1=st.sampled_from(SHORT_CONDS), picks=PICKS,
)
def test_must_sets_with_short_circuits_and_arrays(tmp_path_factory, template, e1, e2, c1, picks):
    check_pruning_and_must_sets(tmp_path_factory.mktemp("gen"), template, e1, e2, c1, picks)


