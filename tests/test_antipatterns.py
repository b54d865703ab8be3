"""Anti-patterns (Tan et al., FSE'16, and crepair's own rules of issue 29)
as search-space rules: what each rule leaves out, what it keeps, the
counts, the option, and the overfitting patches of Codeflaws 109-D and
110-A's shapes no longer proposed first."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cprog import write_c
from crepair.frontend import load_program
from crepair.testequiv.antipatterns import AntiPattern, anti_pattern_rules
from crepair.errors import UsageError
from crepair.testequiv.space import SpaceOptions, build_space

NONE = SpaceOptions(anti_patterns=frozenset())

RULES = """\
#include <stdio.h>
#include <stdlib.h>
int g(int a, int n) {
    int s = 0, i = 0, x;
    if (n < 0)
        exit(1);
    while (i < n) {
        if (n && a > 0)
            s += i;
        if (s > 100)
            break;
        i++;
    }
    x = a * 2;
    if (x > n) {
        s = s + 1;
    }
    for (i = 0; i < n - 1; i++)
        s += i;
    if (a == 4 || a == 7)
        s = 0;
    s = s * 2;
    return s;
}
"""


def replacements(tmp_path, source, options=SpaceOptions()):
    return _replacements(source, options)


@functools.cache
def _replacements(source: str, options: SpaceOptions):
    with tempfile.TemporaryDirectory() as tmp:
        program = load_program(write_c(Path(tmp), source), real_c=True)
        space = build_space(program, options=options)
    return {(space.sites[c.site].text, c.replacement) for c in space.candidates}, space


@pytest.mark.parametrize("rule, site, replacement", [
    (AntiPattern.EXIT_NODE, "return s;", "if (0) return s;"),
    (AntiPattern.EXIT_NODE, "exit(1);", "if (0) exit(1);"),
    (AntiPattern.CONTROL_STATEMENT, "break;", "if (0) break;"),
    (AntiPattern.SINGLE_STATEMENT, "s = s + 1;", "if (0) s = s + 1;"),
    (AntiPattern.SET_BEFORE_IF, "x = a * 2;", "if (0) x = a * 2;"),
    (AntiPattern.LOOP_COUNTER, "i++;", "if (0) i++;"),
    (AntiPattern.TRIVIAL_CONDITION, "n", "1"),  # n && a > 0 -> 1 && a > 0
    (AntiPattern.CONSTANT_BOUND, "i < n - 1", "i < 1"),
    (AntiPattern.CONSTANT_BOUND, "i < n", "i < 2"),
    (AntiPattern.MEMBER_CONSTANT, "a == 4", "a == 3"),
])
def test_each_rule_leaves_out_its_overfitting_candidates_only_when_on(tmp_path, rule, site, replacement):
    assert_left_out_only_when_on(tmp_path, RULES, rule, site, replacement)


def assert_left_out_only_when_on(tmp_path, source: str, rule: AntiPattern, site: str, replacement: str) -> None:
    """The candidate ``site`` -> ``replacement`` of ``source`` is in the
    space without rules, left out by default and by ``rule`` alone, which
    counts it."""
    everything, _ = replacements(tmp_path, source, NONE)
    assert (site, replacement) in everything
    default, space = replacements(tmp_path, source)
    assert (site, replacement) not in default
    alone, _ = replacements(tmp_path, source, SpaceOptions(anti_patterns=frozenset({rule})))
    assert (site, replacement) not in alone
    assert dict(space.pruned)[rule.value] > 0


def test_the_rules_keep_the_ordinary_fixes(tmp_path):
    kept, space = replacements(tmp_path, RULES)
    for pair in [("i < n - 1", "i < n"), ("i < n - 1", "i <= n - 1"), ("a == 4", "a != 4"), ("a == 4", "a == n"),
                 ("s = s * 2;", "if (0) s = s * 2;"), ("x > n", "x >= n"), ("i < n", "i <= n"), ("a == 4", "a == 5")]:
        if pair == ("a == 4", "a == 5"):
            assert pair not in kept  # a membership constant
        else:
            assert pair in kept, pair
    _, bare = replacements(tmp_path, RULES, NONE)
    assert len(bare.candidates) - len(space.candidates) == sum(n for _, n in space.pruned)


def test_subscripts_made_constant_by_an_operator_are_left_out(tmp_path):
    source = """\
        int a[10];
        int f(int i) { return a[i + 1] - a[i]; }
    """
    default, _ = replacements(tmp_path, source)
    everything, _ = replacements(tmp_path, source, NONE)
    assert ("i + 1", "i % 1") in everything and ("i + 1", "i % 1") not in default
    assert ("i + 1", "i - 1") in default


MAIN = """\
#include <stdio.h>
int main(int argc, char *argv[]) {
    int i, n, s = 0;
    scanf("%d", &n);
    for (i = 0; i < n; i++)
        s += i;
    printf("%d\\n", s > 10);
    return 0;
}
"""


def test_a_parameter_main_never_reads_is_no_candidate_s_variable(tmp_path):
    """C3: argc of a program that reads standard input is 1 in every test;
    ``s > 10`` -> ``s > argc`` is a constant in disguise.  When main reads
    argc, candidates may read it too."""
    default, space = replacements(tmp_path, MAIN)
    everything, _ = replacements(tmp_path, MAIN, NONE)
    reads_argc = {(site, r) for site, r in everything if "argc" in r and "argc" not in site}
    assert ("s > 10", "s > argc") in reads_argc
    assert not reads_argc & default
    assert dict(space.pruned)["C3"] > 0
    used = MAIN.replace("scanf(\"%d\", &n);", "scanf(\"%d\", &n);\n    n += argc - 1;")
    kept, space = replacements(tmp_path, used)
    assert ("s > 10", "s > argc") in kept and dict(space.pruned).get("C3", 0) == 0


def test_rule_names_parse_and_unknown_ones_are_usage_errors():
    assert anti_pattern_rules("all") == frozenset(AntiPattern)
    assert anti_pattern_rules("none") == frozenset()
    assert anti_pattern_rules("a1, C1") == {AntiPattern.EXIT_NODE, AntiPattern.CONSTANT_BOUND}
    with pytest.raises(UsageError, match="A9"):
        anti_pattern_rules("A1,A9")


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from crepair.cli import main; sys.exit(main())",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def project(tmp_path: Path, source: str, tests: dict[str, tuple[str, str]]) -> None:
    (tmp_path / "prog.c").write_text(source)
    for name, (given, expected) in tests.items():
        (tmp_path / f"input-{name}").write_text(given)
        (tmp_path / f"output-{name}").write_text(expected)


SORTED = """\
#include <stdio.h>

int a[100][2];

int main(void) {
    int n, i;
    if (scanf("%d", &n) != 1)
        return 1;
    for (i = 0; i < n; i++)
        scanf("%d", &a[i][0]);
    for (i = 0; i < n - 1; i++)
        if (a[i] > a[i + 1])
            break;
    if (i >= n - 1) {
        puts("0");
        return 0;
    }
    puts("1");
    return 0;
}
"""
SORTED_TESTS = {"t1": ("1\n5\n", "0\n"), "t2": ("3\n3 1 2\n", "1\n"), "t3": ("4\n4 3 2 1\n", "1\n"),
                "t4": ("2\n1 2\n", "0\n")}


def first_change(proc) -> tuple[int, str, str]:
    change = json.loads(proc.stdout)["repairs"][0]["changes"][0]
    return change["location"]["line"], change["original"], change["replacement"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_109d_shape_a_loop_bound_or_subscript_made_constant_is_no_longer_the_first_patch(tmp_path):
    """Codeflaws 109-D: ``a[i] > a[i + 1]`` compares rows (the real fix,
    ``a[i][0] > a[i + 1][0]``, is out of the space); the tests pass when
    the loop runs once: ``i < 1`` or ``a[i % 1]``."""
    project(tmp_path, SORTED, SORTED_TESTS)
    bare = crepair("repair", "prog.c", "--tests-dir", ".", "--json", "--anti-patterns", "none", cwd=tmp_path)
    assert bare.returncode == 0, bare.stderr
    assert first_change(bare) == (12, "i + 1", "i % 1")
    assert json.loads(bare.stdout)["space"]["anti_patterns"] == {}
    proc = crepair("repair", "prog.c", "--tests-dir", ".", "--json", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert data["space"]["anti_patterns"]["C1"] > 0 and data["options"]["anti_patterns"][0] == "A1"
    if proc.returncode == 0:
        line, old, new = first_change(proc)
        assert (line, new) not in {(12, "i % 1"), (11, "i < 1"), (11, "i < 2")}
        assert "% 1" not in new and line != 11
    text = crepair("repair", "prog.c", "--tests-dir", ".", "--max-repairs", "1", cwd=tmp_path)
    assert "anti-patterns: " in text.stdout and "C1 " in text.stdout and "--anti-patterns none" in text.stdout


LUCKY = """\
#include <stdio.h>
void islucky(int x)
{
    int a = 0;
    while (1) {
        if (a == 4 || a == 7) {
            printf("YES\\n");
            break;
        } else if (x != 0) {
            a = x % 10;
            x = x / 10;
        } else {
            printf("NO\\n");
            break;
        }
    }
}
int main(void)
{
    long long int x, y;
    scanf("%lld", &x);
    y = 0;
    while (x > 0) {
        x = x / 10;
        y++;
    }
    islucky(y);
    return 0;
}
"""
LUCKY_TESTS = {"neg1": ("4744000695826\n", "YES\n"), "pos1": ("40047\n", "NO\n"), "pos2": ("7747774\n", "YES\n"),
               "pos3": ("1000000000000000000\n", "NO\n"), "pos4": ("7\n", "NO\n"), "pos5": ("4\n", "NO\n"),
               "pos6": ("474404774\n", "NO\n")}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc needed")
def test_110a_shape_a_membership_constant_is_no_longer_changed(tmp_path):
    """Codeflaws 110-A: the lucky digits 4 and 7 come from the problem;
    ``a == 4`` -> ``a == 3`` passes the tests (13 digits) but is wrong."""
    project(tmp_path, LUCKY, LUCKY_TESTS)
    # f1x's cost order (the semantic distance ranking reports x % 10 -> x % 9 first here, as wrong)
    bare = crepair("repair", "prog.c", "--tests-dir", ".", "--json", "--anti-patterns", "none", "--rank", "cost",
                   cwd=tmp_path)
    assert bare.returncode == 0, bare.stderr
    assert first_change(bare) == (6, "a == 4", "a == 3")
    proc = crepair("repair", "prog.c", "--tests-dir", ".", "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["space"]["anti_patterns"]["C2"] > 0
    if proc.returncode == 0:
        line, old, new = first_change(proc)
        assert line != 6, (line, old, new)


def test_anti_patterns_option_errors_are_one_line(tmp_path):
    project(tmp_path, SORTED, SORTED_TESTS)
    proc = crepair("repair", "prog.c", "--tests-dir", ".", "--anti-patterns", "A9", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "A9" in proc.stderr
    proc = crepair("repair", "prog.c", "--anti-patterns", "none", cwd=tmp_path)
    assert proc.returncode == 2 and "test-driven repair only" in proc.stderr


def test_calls_are_no_loop_counter_or_set_before_if(tmp_path):
    source = """\
        #include <stdio.h>
        int f(void) {
            int x, s = 0;
            while (scanf("%d", &x) == 1) {
                printf("%d\\n", x);
                s += x;
            }
            puts("end");
            if (getchar() == 'y')
                s = 0;
            return s;
        }
    """
    kept, _ = replacements(tmp_path, source)
    assert ('printf("%d\\n", x);', 'if (0) printf("%d\\n", x);') in kept
    assert ('puts("end");', 'if (0) puts("end");') in kept
    assert ("s += x;", "if (0) s += x;") in kept


def test_a_debug_print_alone_in_a_loop_may_be_deleted(tmp_path):
    """A3's exception: the only statement of a loop body that writes
    output (a leftover debug print, Codeflaws 230-A's shape) may be
    deleted; any other lone statement may not."""
    source = """\
        #include <stdio.h>
        int main(void) {
            int a[4] = {3, 1, 2, 0}, i, s = 0;
            for (i = 0; i < 4; i++)
                printf("%d ", a[i]);
            for (i = 0; i < 4; i++)
                s += a[i];
            printf("%d\\n", s);
            return 0;
        }
    """
    kept, _ = replacements(tmp_path, source)
    assert ('printf("%d ", a[i]);', 'if (0) printf("%d ", a[i]);') in kept
    assert ("s += a[i];", "if (0) s += a[i];") not in kept


ROLES = """\
int g(int a, int b, int c, int n) {
    int s, m, t, i;
    if (a > b)
        m = a;
    else
        m = b;
    t = a + 1;
    if (a == b || a == c || b == c)
        return 0;
    s = 0;
    for (i = 2; i < n; i++)
        s += i;
    return s + m + t;
}
"""
START = """\
int a[10];
int h(int n) {
    int k, s = 5;
    for (k = 0; k < n; k++)
        s += a[k];
    return s;
}
"""
UNASSIGNED = """\
int u(int n) {
    int j, s = n * 2;
    if (s > n)
        s = s - 1;
    return s;
}
"""


@pytest.mark.parametrize("rule, source, site, replacement", [
    (AntiPattern.CONSTANT_CONDITION, ROLES, "a > b", "a > 1"),  # 451-A's shape
    (AntiPattern.SELF_READ, ROLES, "b", "m"),  # m = b -> m = m: a deletion in disguise
    (AntiPattern.SELF_READ, ROLES, "a + 1", "a + t"),  # t = a + 1 -> t = a + t: the stale value
    (AntiPattern.UNIFORM_CHAIN, ROLES, "a == c", "a > c"),  # 143-A's shape
    (AntiPattern.LOOP_START, ROLES, "2", "0"),  # skips back two iterations
    (AntiPattern.LOOP_START, START, "0", "-1"),  # a[-1]
    (AntiPattern.UNASSIGNED_READ, UNASSIGNED, "s > n", "s > j"),  # j is never assigned
])
def test_crepair_rules_of_issue_29_leave_out_their_candidates_only_when_on(tmp_path, rule, source, site, replacement):
    assert_left_out_only_when_on(tmp_path, source, rule, site, replacement)


def test_crepair_rules_of_issue_29_keep_the_ordinary_fixes(tmp_path):
    kept, _ = replacements(tmp_path, ROLES)
    for pair in [("a > b", "a < b"), ("a > b", "a >= b"), ("a > b", "a > c"), ("b", "a"), ("b", "b + 1"),
                 ("a + 1", "a - 1"), ("a == c", "b == c"), ("2", "1"), ("2", "3"), ("2", "n"), ("i < n", "i <= n")]:
        assert pair in kept, pair
    kept, _ = replacements(tmp_path, START)
    assert ("0", "1") in kept and ("5", "0") in kept  # a start moves by one; other initializers are free
    kept, _ = replacements(tmp_path, UNASSIGNED)
    assert ("s > n", "s >= n") in kept and ("s > n", "s > s") not in kept


def test_a_two_comparison_chain_is_no_list_of_cases(tmp_path):
    source = """\
        int f(int a, int b, int c) { return a < b && b < c; }
    """
    kept, _ = replacements(tmp_path, source)
    assert ("a < b", "a <= b") in kept


def test_a_local_read_before_its_first_assignment_is_unassigned(tmp_path):
    """C8 at Codeflaws 451-A's shape: ``if (a > b) s = a; else s = b;``:
    ``s`` is not yet assigned in the condition; after it, or in a loop
    that assigns it, it may be read."""
    source = """\
        int f(int a, int b, int n) {
            int s, k, i;
            if (a > b) s = a; else s = b;
            k = 0;
            for (i = 0; i < n; i++) {
                if (a > k) a--;
                k = a;
            }
            return s % 2 == 0 && k > 1;
        }
    """
    default, space = replacements(tmp_path, source)
    everything, _ = replacements(tmp_path, source, NONE)
    assert ("a > b", "s > b") in everything and ("a > b", "s > b") not in default
    assert ("a > k", "a > s") in default  # s is assigned above the loop
    assert dict(space.pruned)["C8"] > 0


def test_a_loop_s_subscript_made_loop_invariant_is_left_out(tmp_path):
    """C9 at Codeflaws 413-A's shape: ``a[i]`` -> ``a[m]`` in the loop
    ``for (i = 0; i < m; i++)`` reads one element (one past the end);
    another variable the loop assigns may replace the counter."""
    source = """\
        int a[100];
        int f(int m, int lo) {
            int i, k = 0, c = 0;
            for (i = 0; i < m; i++) {
                if (a[i] < lo)
                    c++;
                k = k + 2;
            }
            return c + k;
        }
    """
    default, space = replacements(tmp_path, source)
    everything, _ = replacements(tmp_path, source, NONE)
    assert ("i", "m") in everything and ("i", "m") not in default
    assert ("i", "k") in default and ("i", "i + 1") in default
    assert dict(space.pruned)["C9"] > 0


def test_a_named_constant_counts_as_a_value_not_a_literal(tmp_path):
    """C1 at Codeflaws 133-A's shape: ``i < LEN`` -> ``i < 1`` (the loop
    runs once) is left out; ``i < LEN - 1`` stays."""
    source = """\
        #define LEN 4
        int a[LEN];
        int f(void) {
            int i, s = 0;
            for (i = 0; i < LEN; i++)
                s += a[i];
            return s;
        }
    """
    default, _ = replacements(tmp_path, source)
    everything, _ = replacements(tmp_path, source, NONE)
    assert ("i < LEN", "i < 1") in everything and ("i < LEN", "i < 1") not in default
    assert ("i < LEN", "i < LEN - 1") in default


def test_an_added_condition_counting_loop_iterations_is_left_out(tmp_path):
    """C10 at Codeflaws 109-D's, 41-C's and 4-B's shapes: a refinement of
    a loop condition ``i < n - 1 && i < 1``, a guard ``if (i != 9)``
    count the tests' iterations; a first iteration's exception
    ``if (i > 0)`` stays."""
    source = """\
        int a[100];
        int f(int n) {
            int i, s = 0;
            for (i = 0; i < n - 1; i++)
                if (a[i] > a[i + 1])
                    break;
            for (i = 0; i < n; i++) {
                s += a[i];
            }
            return s + i;
        }
    """
    default, space = replacements(tmp_path, source)
    everything, _ = replacements(tmp_path, source, NONE)
    for pair in [("i < n - 1", "i < n - 1 && i < 1"), ("s += a[i];", "if (i != 9) s += a[i];")]:
        assert pair in everything and pair not in default, pair
    for pair in [("s += a[i];", "if (i > 0) s += a[i];"), ("s += a[i];", "if (i != n) s += a[i];")]:
        assert pair in default, pair
    assert dict(space.pruned)["C10"] > 0


@pytest.mark.parametrize("source", ["RULES", "MAIN", "SORTED", "LUCKY", "ROLES", "START", "UNASSIGNED"])
def test_a_rule_is_asked_only_where_its_gate_lets_it_fire(tmp_path, source):
    """``testequiv.pruning`` asks a rule only about drafts of its schemas
    at places its gate admits: every removal the rule makes on its own,
    over the whole space, lies inside its gate (so the gates change no
    space, only its cost)."""
    from crepair.testequiv.pruning import GATES
    from crepair.testequiv.antipatterns import RULES as CHECKS
    from crepair.testequiv.sites import collect
    from crepair.typed import infer

    program = load_program(write_c(tmp_path, globals()[source]), real_c=True)
    places, _ = collect(program, infer.Types(program.ast))
    where = {(p.span.start, p.span.end, p.kind): p for p in places}
    space = build_space(program, options=NONE)
    fired = set()
    for c in space.candidates:
        site = space.sites[c.site]
        p = where[site.span.start, site.span.end, site.kind]
        for rule, check in CHECKS.items():
            if check(p, c, program.original):
                fired.add(rule)
                schemas, gate = GATES[rule]
                assert c.schema in schemas and gate(p), (rule, site.text, c.replacement)
    assert fired  # each source makes some rule fire
