"""The encoder's persistent environments and scope snapshots, and its cost
growing linearly with the program size."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from crepair.encode import encode
from crepair.encode.env import Env, Keys, differing
from crepair.frontend import load_program

from cprog import write_c

KEYS = [f"k{i}" for i in range(70)]  # more than 32: tries of two levels
operation = st.tuples(st.sampled_from(["set", "del", "fork"]), st.integers(0, 3), st.sampled_from(KEYS), st.integers())


@settings(max_examples=200, deadline=None)
@given(st.lists(operation, max_size=120))
def test_env_behaves_like_dicts_that_are_copied(ops):
    keys = Keys()
    envs, dicts = [Env(keys)], [{}]
    for op, which, key, value in ops:
        i = which % len(envs)
        if op == "set":
            envs[i][key] = value
            dicts[i][key] = value
        elif op == "del":
            envs[i].discard(key)
            dicts[i].pop(key, None)
        else:
            envs.append(envs[i].copy())
            dicts.append(dict(dicts[i]))
    for env, d in zip(envs, dicts):
        assert {k: env.get(k) for k in KEYS if k in env} == d
    # differing: every key whose value is not the same in all (identity)
    expected = {k for k in KEYS if len({id(d.get(k)) for d in dicts}) > 1 or len({k in d for d in dicts}) > 1}
    assert set(differing(envs)) == expected


def test_differing_visits_only_what_changed():
    keys = Keys()
    base = Env(keys)
    for i in range(5000):
        base[f"v{i}"] = i
    a, b = base.copy(), base.copy()
    a["v17"] = -1
    b["v4000"] = -2
    b["new"] = 3
    assert sorted(differing([a, b, base])) == ["new", "v17", "v4000"]
    assert base["v17"] == 17 and a["v4000"] == 4000


SCOPES = """
    int g = 5;
    int f(int p) {
        int a = p + 1;
        {
            char a = 2;
            int b = a + g;
            p = b;
        }
        unsigned c = a;
        return c + p;
    }
"""


def test_scope_snapshots_are_the_values_before_each_location(tmp_path):
    formula, _ = encode(load_program(write_c(tmp_path, SCOPES)), bound=1, entry="f")
    shown = []
    for copy in formula.copies:
        text = formula.locations[copy.location].text
        shown.append((text, [(v.name, v.bits, v.signed) for v in copy.scope]))
    assert shown == [
        ("p + 1", [("g", 32, True), ("p", 32, True)]),
        ("2", [("a", 32, True), ("g", 32, True), ("p", 32, True)]),
        ("a + g", [("a", 8, True), ("g", 32, True), ("p", 32, True)]),
        ("b", [("a", 8, True), ("b", 32, True), ("g", 32, True), ("p", 32, True)]),
        ("a", [("a", 32, True), ("g", 32, True), ("p", 32, True)]),
        ("c + p", [("a", 32, True), ("c", 32, False), ("g", 32, True), ("p", 32, True)]),
    ]
    # the value of p before ``p = b`` is the parameter, after it the assigned one
    before, after = formula.copies[3].scope, formula.copies[5].scope
    p_before = next(v for v in before if v.name == "p")
    p_after = next(v for v in after if v.name == "p")
    assert not p_before.term.eq(p_after.term)
    assert p_after.term.eq(formula.copies[3].lhs)
    assert len(before) == 4 and before[0].name == "a" and tuple(before) == before


def _straight_line(lines: int) -> str:
    body = ["int f(int x) {", "    int acc = x;"]
    for i in range(lines - 4):
        body.append(f"    int v{i} = acc + {i % 7};" if i % 2 == 0 else f"    acc = acc ^ v{i - 1};")
    return "\n".join(body + ["    return acc;", "}"]) + "\n"


def _encode_seconds(tmp_path, lines: int) -> float:
    """The least CPU time of two encodings (absorbs noise)."""
    program = load_program(write_c(tmp_path, _straight_line(lines), f"s{lines}.c"))
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        encode(program, bound=1, entry="f")
        best = min(best, time.process_time() - start)
    return best


def test_encoding_time_grows_linearly(tmp_path):
    """Four times the lines may cost at most about four times the time (a
    quadratic encoder, e.g. one that copies the scope at every location,
    takes sixteen times as long)."""
    small = _encode_seconds(tmp_path, 500)
    large = _encode_seconds(tmp_path, 2000)
    assert large < 8 * small, f"500 lines: {small:.3f} s, 2000 lines: {large:.3f} s"


LOOPS = """
int main(void) {
    int x = nondet_int();
    int s = 0;
    for (int i = 0; i < 3; i++) {
        if (x > i) s = s + i; else s = s - 1;
    }
    while (x > 10) { x = x - 7; if (x == 12) break; }
    for (int j = 0; j < 2; j++) s += j;
    assert(s != 4);
    return 0;
}
"""


def test_executed_lines_are_the_steps_whose_guard_holds(tmp_path):
    from crepair.solver.smt import SmtSolver, Verdict

    formula, _ = encode(load_program(write_c(tmp_path, LOOPS)), bound=3)
    solver = SmtSolver()
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation())
    assert solver.check() == Verdict.SAT
    model = solver.model()
    lines: list[int] = []
    for step in formula.trace:
        if model.eval_bool(step.guard) and (not lines or lines[-1] != step.line):
            lines.append(step.line)
    assert formula.executed_lines(model) == lines
    assert lines[-2:] == [9, 10] and lines.count(5) >= 2  # the loop body ran more than once
