"""The test-driven search space (f1x, TOSEM'18, Fig. 10 and §5): sites,
candidates, costs, and every candidate a real C patch."""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pycparser import c_generator, c_parser

from cprog import NEWLINE_LOOP, SHARED, write_c
from crepair.frontend import load_program
from crepair.testequiv.candidates import Schema, SiteKind
from crepair.testequiv.space import SpaceOptions, build_space

GCC = shutil.which("gcc")
F1X = SHARED / "f1x-tests"
CODEFLAWS = SHARED / "codeflaws"

IF_ELSE = """
    int f(int a, int b) {
        int x = a - b;
        int y;
        if (a > b)
            x = x + 1;
        else
            x = x - 1;
        y = x * 2;
        return x + y;
    }
"""


def space_of(tmp_path, source, name="prog.c", **kw):
    program = load_program(write_c(tmp_path, source, name), real_c=True)
    return program, build_space(program, **kw)


def site(space, text, kind=None):
    found = [s for s in space.sites if s.text == text and (kind is None or s.kind == kind)]
    assert len(found) == 1, (text, [s.text for s in space.sites])
    return found[0]


def at(space, s):
    return {c.replacement: c for c in space.candidates if c.site == s.id}


def patched(program, space, c):
    s = space.sites[c.site]
    return program.original[: s.span.start] + c.replacement + program.original[s.span.end:]


def check_invariants(program, space):
    sites, cands = space.sites, space.candidates
    assert [s.id for s in sites] == list(range(len(sites)))
    assert sorted(s.order for s in sites) == list(range(len(sites)))
    assert [c.id for c in cands] == list(range(len(cands)))
    key = [(c.cost, sites[c.site].order, c.site, len(c.replacement), c.replacement) for c in cands]
    assert key == sorted(key)
    assert {c.site for c in cands} == set(range(len(sites)))
    for s in sites:
        assert s.text == program.original[s.span.start:s.span.end]
    seen = set()
    for c in cands:
        s = sites[c.site]
        assert c.replacement != s.text and (c.site, c.replacement) not in seen
        seen.add((c.site, c.replacement))
        assert c.cost >= 1
        assert not re.search(r"[/%]\s*0(?![\w.])", c.replacement) or re.search(r"[/%]\s*0(?![\w.])", s.text)
        if c.schema in (Schema.ASSIGNMENT, Schema.INITIALIZATION):
            assert c.lhs
        if s.kind == SiteKind.STMT and c.schema == Schema.EXPRESSION:  # an assignment's operator changed
            assert c.lhs and re.sub(r"[-+*/]?=", "=", c.replacement, count=1) == re.sub(r"[-+*/]?=", "=", s.text,
                                                                                          count=1)
        elif s.kind == SiteKind.STMT:
            assert c.schema in (Schema.GUARD, Schema.ASSIGNMENT, Schema.OUTPUT, Schema.COPY) and s.text in c.replacement
        assert (c.param is not None) == ("__CR_PARAM" in c.code)
        if c.param is not None:  # f1x's condition parameter: 0..64, read from a table by the meta-program
            assert 0 <= c.param <= 64 and c.schema in (Schema.EXPRESSION, Schema.REFINEMENT, Schema.GUARD,
                                                       Schema.FORMAT, Schema.OUTPUT)  # a conditional format's or
            # a guarded separator's atom
            atom = re.search(r"(\w+ [<>=!]=? )__CR_PARAM", c.code)[1] + str(c.param)
            assert atom in c.replacement and re.search(rf"\b{re.escape(atom)}(?!\w)", c.replacement)
        if c.schema == Schema.EXPRESSION and "__cr_e" not in c.code and s.kind != SiteKind.STMT:
            assert c.code.replace("__CR_PARAM", str(c.param)) == c.replacement


# -- the schemas on a small program ------------------------------------------------
def test_each_schema_on_an_if_with_an_else(tmp_path):
    # no anti-patterns: deleting a branch's only statement is A3's (test_antipatterns.py)
    program, space = space_of(tmp_path, IF_ELSE, options=SpaceOptions(anti_patterns=frozenset()))
    check_invariants(program, space)
    cond = site(space, "a > b")
    assert (cond.kind, cond.condition, cond.value_type, cond.side_effect_free) == (SiteKind.EXPR, True, "int", True)
    got = at(space, cond)
    assert (got["a >= b"].schema, got["a >= b"].cost, got["a >= b"].code) == (Schema.EXPRESSION, 8, "a >= b")
    refine = got["a > b && x != 0"]
    # x != 0 is a concretization (a constant): no preference
    assert (refine.schema, refine.cost, refine.code, refine.variables) == (Schema.REFINEMENT, 40, "__cr_e && (x != 0)",
                                                                          ("x",))
    assert got["a > b || a < x"].code == "__cr_e || (a < x)"
    then = site(space, "x = x + 1;", SiteKind.STMT)
    assert (then.reads, then.writes, then.side_effect_free) == (("x",), ("x",), False)
    delete = at(space, then)["{ if (0) x = x + 1; }"]  # braces: the else stays with its if
    assert (delete.schema, delete.code, delete.cost) == (Schema.GUARD, "0", 18)
    assert at(space, then)["{ if (a < b) x = x + 1; }"].cost == 38
    for c, inner in ((delete, "If"), (at(space, then)["{ y = 0; x = x + 1; }"], "Assignment")):
        outer = c_parser.CParser().parse(patched(program, space, c)).ext[0].body.block_items[2]
        assert outer.iffalse is not None  # by meaning: the else stays with the original if
        assert type(outer.iftrue.block_items[-1]).__name__ == inner
    assert at(space, then)["{ y = 0; x = x + 1; }"].lhs == "y"  # the only statement of a branch
    y_stmt = site(space, "y = x * 2;", SiteKind.STMT)
    assert at(space, y_stmt)["if (0) y = x * 2;"].cost == 18
    assert not [c for c in at(space, y_stmt).values() if c.lhs == "y" and c.schema == Schema.ASSIGNMENT]  # overwritten
    ops = at(space, y_stmt)  # the assignment's own operator: one operator change, valued by what it assigns
    assert (ops["y += x * 2;"].schema, ops["y += x * 2;"].code, ops["y += x * 2;"].cost) == (
        Schema.EXPRESSION, "(y) + (x * 2)", 8)
    assert ops["y -= x * 2;"].group == ops["y += x * 2;"].group and "y *= x * 2;" not in ops
    ret = at(space, site(space, "return x + y;", SiteKind.STMT))
    assign = ret["x = a; return x + y;"]
    assert (assign.schema, assign.code, assign.lhs, assign.cost, assign.variables) == (
        Schema.ASSIGNMENT, "a", "x", 30, ("a",))
    assert ret["x = x + 1; return x + y;"].cost == 50
    assert {c.group for c in ret.values() if c.lhs == "x"} != {c.group for c in ret.values() if c.lhs == "y"}
    assert {c.group for c in ret.values() if c.schema == Schema.GUARD} == {0}
    assert cond.variables == (("a", "int"), ("b", "int"), ("x", "int"), ("y", "int"))
    init = at(space, site(space, "y", SiteKind.DECL))
    assert list(init) == ["y = 0"] and init["y = 0"].cost == 10 and init["y = 0"].schema == Schema.INITIALIZATION
    assert at(space, site(space, "a - b"))["a + b"].cost == 8


def test_an_assignment_s_operator_is_changed_where_both_sides_are_free_of_side_effects(tmp_path):
    """Codeflaws 534-B ``v2 -= d`` -> ``v2 += d``; an accumulation written
    as an assignment (``s = a[i]`` -> ``s += a[i]``); never a pointer's
    ``*=``, never a side with a side effect."""
    program, space = space_of(tmp_path, """
        int f(int *a, int n, double d, int *p) {
            int i, s = 0;
            double v2 = 1;
            for (i = 0; i < n; i++)
                s = a[i];
            v2 -= d;
            a[0] *= 2;
            p += 1;
            a[i++] += 1;
            s -= f(a, n, d, p);
            return s + (int) v2;
        }
    """, options=SpaceOptions(anti_patterns=frozenset()))
    check_invariants(program, space)
    v2 = at(space, site(space, "v2 -= d;", SiteKind.STMT))
    assert (v2["v2 += d;"].code, v2["v2 += d;"].lhs) == ("(v2) + (d)", "v2")
    assert v2["v2 = d;"].code == "(d)" and "v2 *= d;" not in v2
    s = at(space, site(space, "s = a[i];", SiteKind.STMT))
    assert {"s += a[i];", "s -= a[i];"} <= set(s) and "s *= a[i];" not in s
    assert at(space, site(space, "a[0] *= 2;", SiteKind.STMT))["a[0] /= 2;"].lhs == "a[0]"
    for text in ("p += 1;", "a[i++] += 1;", "s -= f(a, n, d, p);"):
        assert not [c for c in at(space, site(space, text, SiteKind.STMT)).values() if c.schema == Schema.EXPRESSION]
    # the plain assignment made to read what it assigns is crepair's C5 anti-pattern (on by default)
    _, pruned_space = space_of(tmp_path, "int g(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s = a[i];"
                                         " return s; }", "g.c")
    assert "s += a[i];" not in at(pruned_space, site(pruned_space, "s = a[i];", SiteKind.STMT))


def test_leaf_changes_and_their_costs(tmp_path):
    program, space = space_of(tmp_path, """
        int g(int n, int m) {
            int k = 4;
            if (n > 1)
                k = n % 3 - m;
            return k;
        }
    """)
    check_invariants(program, space)
    cond = at(space, site(space, "n > 1"))
    assert cond["n > 2"].cost == cond["n > 0"].cost == cond["n > m"].cost == cond["n > 10"].cost == 8
    assert cond["m > 1"].cost == 8 and cond["n + 1 > 1"].cost == 20
    assert cond["n > 1 && m < n"].cost == 39
    assert cond["k > m"].cost == 28  # an atom in place of the condition (f1x: depth 2 + 2 - 1)
    assert "n > n" not in cond and "!(n > 1)" not in cond
    rhs = at(space, site(space, "n % 3 - m"))
    assert rhs["n % 3 + m"].cost == rhs["n / 3 - m"].cost == 8 and rhs["(unsigned)n % 3 - m"].cost == 10
    assert rhs["n % 3"].cost == 8 and rhs["m"].cost == 28  # simplification: the dropped operand  # dropping an operand and what it held
    assert "n % 0 - m" not in rhs and "n / 0 - m" not in rhs


def test_parentheses_only_where_the_new_operator_needs_them(tmp_path):
    program, space = space_of(tmp_path, """
        int h(int a, int b, int c) {
            int r = a + b * c;
            if ((a || b) && c)
                r = 1;
            if (a == b && c)
                r = r - (b - c);
            return !r;
        }
    """)
    check_invariants(program, space)
    init = at(space, site(space, "a + b * c"))
    assert "a + (b - c)" in init and "a * (b * c)" in init and "a + b / c" in init
    left = at(space, site(space, "a == b"))
    assert "(a == b || a < c)" in left and "a == b && a < c" in left
    for right in [s for s in space.sites if s.text == "c" and s.condition]:
        assert "(c || a < b)" in at(space, right)
    assert "r - (b + c)" in at(space, site(space, "r - (b - c)"))
    assert "r" in at(space, site(space, "!r"))  # dropping the !



@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
def test_a_new_operator_or_operand_never_glues_to_its_neighbour_into_another_token(tmp_path):
    """``a-*b`` with ``-`` -> ``/`` is ``a/ *b``, not ``a/*b`` (a comment's
    start): a qsort comparator's ``*(int *)a-*(int *)b`` (Codeflaws
    109-D) made the whole space's meta-program fail its own check."""
    program, space = space_of(tmp_path, """
        int cmp(const void *a, const void *b) { return *(int *)a-*(int *)b; }
        int g(int x, int *p) { return x-*p; }
    """)
    check_invariants(program, space)
    assert "*(int *)a/ *(int *)b" in at(space, site(space, "*(int *)a-*(int *)b"))
    difference = at(space, site(space, "x-*p"))
    assert "x/ *p" in difference and "x**p" in difference and "x+*p" in difference
    for c in space.candidates:
        assert "/*" not in c.replacement and "//" not in c.replacement, c.replacement
        ok, err = _compiles(patched(program, space, c), tmp_path)
        assert ok, f"{c.replacement!r}: {err}"
    from crepair.testequiv.metaprogram import instrument
    assert "x/ *p" in instrument(program.original, space)


def test_candidates_group_as_the_original_by_meaning(tmp_path):
    """Putting a replacement in parentheses changes nothing: it is one
    subtree where the original was, whatever the context's precedence."""
    program, space = space_of(tmp_path, """
        int q(int a, int b, int c) {
            int r = a - b - c;
            if (a < b == c || !(a & b) && c)
                r = a << b + c;
            r = a ? b : c - a * -1;
            return r % (b + 1);
        }
    """)
    generator, parser = c_generator.CGenerator(), c_parser.CParser()
    o = program.original
    exprs = [c for c in space.candidates if space.sites[c.site].kind == SiteKind.EXPR]
    for c in random.Random(3).sample(exprs, min(150, len(exprs))):
        s = space.sites[c.site]
        plain = o[:s.span.start] + c.replacement + o[s.span.end:]
        wrapped = o[:s.span.start] + "(" + c.replacement + ")" + o[s.span.end:]
        assert generator.visit(parser.parse(plain)) == generator.visit(parser.parse(wrapped)), c.replacement
        if "__cr_e" in c.code:  # the meta-program's view: the original's value
            code = c.code.replace("__cr_e", f"({s.text})").replace("__CR_PARAM", str(c.param))
            meant = o[:s.span.start] + "(" + code + ")" + o[s.span.end:]
            assert generator.visit(parser.parse(meant)) == generator.visit(parser.parse(plain))


# -- what is and is not a site -----------------------------------------------------------
def test_macros_directives_floats_and_headers(tmp_path):
    (tmp_path / "helper.h").write_text("static int helper(int x) { if (x > 0) return 1; return 0; }\n")
    program, space = space_of(tmp_path, """
        #include <stdio.h>
        #include "helper.h"
        #define N 10
        #define CHECK(c) if (c) return 1;
        #define FLAG
        int limit = N;
        int k(int n, int b) {
            double d = n * 0.5;
            CHECK(n < 0)
            if (n < N)
                b = N;
            if (n > 0
        #ifdef FLAG
                && b > 0
        #endif
               )
                return 1;
            return helper(n) + (int) d;
        }
    """)
    check_invariants(program, space)
    assert {s.function for s in space.sites} == {"k"}
    near = at(space, site(space, "n < N"))
    assert near["n <= N"].cost == 8 and near["n < N + 1"].cost == 20 and near["n < N - 1"].cost == 20
    assert site(space, "n > 0").condition and site(space, "b > 0").condition
    assert not [s for s in space.sites if "#ifdef" in s.text or s.text in ("N", "c", "n < 0")]
    why = {line(p): w for p, w in space.skipped}
    assert "file-scope initializer" in why[6] and "floating-point" in why[8]
    assert "macro expansion" in why[9] and "a macro use" in why[11] and "directive" in why[12]


def line(point: str) -> int:
    return int(point.rsplit(":", 2)[1])


def test_struct_members_pointers_and_null(tmp_path):
    program, space = space_of(tmp_path, """
        #include <stdlib.h>
        struct node { int v; struct node *next; };
        int len(struct node *p, struct node *q) {
            int n = 0;
            while (p != NULL && p->v > 0) {
                n++;
                p = p->next;
            }
            return n;
        }
    """, options=SpaceOptions(anti_patterns=frozenset()))  # C9 leaves out q != NULL: q is loop-invariant
    check_invariants(program, space)
    assert site(space, "p->next").value_type == "struct node *"
    cond = at(space, site(space, "p != NULL"))
    assert "p == NULL" in cond and "q != NULL" in cond
    assert "p->v >= 0" in at(space, site(space, "p->v > 0"))
    assert "q" in at(space, site(space, "p->next"))
    assert at(space, site(space, "n++;", SiteKind.STMT))["if (p == NULL) n++;"].cost == 40  # concretization: no preference
    assert not [r for r in cond if "NULL +" in r or "NULL -" in r or re.search(r"p != [a-z0-9]+$", r)]


def test_value_types_follow_c_conversions(tmp_path):
    program, space = space_of(tmp_path, """
        #include <stdio.h>
        #include <string.h>
        typedef struct node { int v; } Node;
        long g(unsigned u, long l, char c, const char *s, Node *q, unsigned long long w) {
            size_t n = strlen(s);
            static int calls;
            int a, b[4], *r;
            const int k = 2;
            printf("%ld %d %lu %p %p %llu", u + l, c + 1, n - 1, s, q, w * 2);
            return l + a + k;
        }
    """)
    check_invariants(program, space)
    types = {s.text: s.value_type for s in space.sites if s.kind == SiteKind.EXPR}
    assert types == {"u + l": "long", "c + 1": "int", "n - 1": "unsigned long", "s": "const char *",
                     "q": "Node *", "w * 2": "unsigned long long", "l + a + k": "long", "2": "int",
                     '"%ld %d %lu %p %p %llu"': "char *"}  # the format: a FORMAT site
    assert [s.text for s in space.sites if s.kind == SiteKind.DECL] == ["a"]
    assert ("s", "const char *") in site(space, "return l + a + k;", SiteKind.STMT).variables
    assert at(space, site(space, "a", SiteKind.DECL))["a = 0"].lhs == "a"
    call = site(space, 'printf("%ld %d %lu %p %p %llu", u + l, c + 1, n - 1, s, q, w * 2);', SiteKind.STMT)
    assert (call.reads, call.writes) == (("*", "c", "l", "n", "q", "s", "u", "w"), ("*",))
    assert not [c for c in space.candidates if c.lhs == "k"]  # const


def test_lines_restrict_and_rank_orders(tmp_path):
    program, full = space_of(tmp_path, IF_ELSE)
    _, only = space_of(tmp_path, IF_ELSE, lines={4, 8})
    searched = {c.site for c in only.candidates}
    assert {only.sites[s].span.line for s in searched} == {4, 8} and searched == set(range(len(searched)))
    counting = [s for s in only.sites if s.id not in searched]  # they count a run's steps only
    assert counting and all(s.kind == SiteKind.STMT and s.span.line not in (4, 8) for s in counting)
    assert len(only.candidates) < len(full.candidates)
    _, ranked = space_of(tmp_path, IF_ELSE, rank={8: 0, 4: 1})
    check_invariants(program, ranked)
    first = [s for s in ranked.sites if s.order == 0][0]
    assert first.span.line == 8
    assert [s.span.line for s in sorted(ranked.sites, key=lambda s: s.order)][:3] == [8, 8, 4]
    by_cost = [c for c in ranked.candidates if c.cost == 18]
    assert ranked.sites[by_cost[0].site].span.line == 8


def test_two_builds_are_identical_and_the_bound_holds(tmp_path):
    program, first = space_of(tmp_path, IF_ELSE)
    assert build_space(program) == first
    small = build_space(program, options=SpaceOptions(max_candidates=50))
    assert len(small.candidates) == 50
    assert [(c.cost, c.replacement) for c in small.candidates] == [(c.cost, c.replacement) for c in first.candidates[:50]]
    assert "max_candidates=50" in small.skipped[-1][1]
    only = build_space(program, options=SpaceOptions(schemas=frozenset({Schema.GUARD})))
    assert {c.schema for c in only.candidates} == {Schema.GUARD}


# -- the f1x micro-programs: their intended fixes are in the space --------------------
# (line, intended expression) from the comment on the faulty line
F1X_FIXES = {
    "array-subscripts": (8, "a[0] >= b[0]"), "assign-in-condition": (8, "a >= b"),
    "cast-expr": (8, "(long) a >= b"), "dangling-else": (8, "a >= b"), "divide-by-zero": (8, "a >= b"),
    "guarded-assignment": (9, "a >= b"), "if-condition": (8, "a >= b"), "incomplete-pointee": (11, "a >= b"),
    "inside-ifdef": (11, "a >= b"), "int-assignment": (8, "a >= b"), "intersect-ifdef": (19, "a >= b"),
    "loop-condition": (7, "n >= 1"), "memberexpr": (15, "pp->first >= pp->second"),
    "non-integer-member": (20, "x >= y"), "null-dereference": (15, "a >= b"), "pointer-arithmetic": (11, "a + 1"),
    "pointer": (25, "p == t"), "refine-condition": (12, "foo() || a >= b"), "replace-constant": (7, "a > 5"),
    "signed-int-overflow": (9, "mid - (unsigned)base - 1"), "substitute-bool2": (10, "a > b"),
    # no comment on the line: what test.sh asks for
    "return": (6, "value"), "break": (8, "i > 2"),
}
needs_f1x = pytest.mark.skipif(not F1X.exists(), reason="shared benchmarks absent")


_PARSER = c_parser.CParser()


def _meaning(expr: str) -> str:
    ast = _PARSER.parse(f"typedef int Incomplete; void __f(void) {{ __x = ({expr}); }}")
    return c_generator.CGenerator().visit(ast.ext[-1].body.block_items[0].rvalue)


def _letters(text: str) -> str:
    return re.sub(r"[\s()]", "", text)


@needs_f1x
@pytest.mark.parametrize("name", sorted(F1X_FIXES))
def test_the_intended_fix_of_each_f1x_program_is_in_the_space(name):
    line_no, fix = F1X_FIXES[name]
    program = load_program(F1X / name / "program.c", real_c=True)
    space = build_space(program)
    check_invariants(program, space)
    want = _meaning(fix)
    hits = [c for c in space.candidates if space.sites[c.site].span.line == line_no
            and space.sites[c.site].kind == SiteKind.EXPR and _letters(c.replacement) == _letters(fix)
            and _meaning(c.replacement) == want]
    assert hits, f"{fix} not in the space of {name}"


@needs_f1x
def test_the_f1x_deletion_is_in_the_space():
    program = load_program(F1X / "deletion" / "program.c", real_c=True)
    space = build_space(program)
    stmt = site(space, "inc(&n);", SiteKind.STMT)
    assert at(space, stmt)["if (0) inc(&n);"].cost == 18


def _codeflaws(count: int | None = None) -> list[tuple[str, Path]]:
    if not CODEFLAWS.exists():
        return []
    out = []
    for d in sorted(p for p in CODEFLAWS.iterdir() if "-bug-" in p.name):
        contest, problem, _, buggy, _ = d.name.split("-")
        out.append((d.name, d / f"{contest}-{problem}-{buggy}.c"))
    return out if count is None else random.Random(7).sample(out, count)


def _load(path: Path, tmp_path: Path):
    if not path.exists():  # a few are stored compressed
        text = gzip.decompress((path.parent / (path.name + ".gz")).read_bytes()).decode("utf-8", "surrogateescape")
        path = tmp_path / path.name
        path.write_text(text, errors="surrogateescape")
    return load_program(path, real_c=True)


@needs_f1x
def test_every_f1x_program_and_a_sample_of_codeflaws_build(tmp_path):
    everything = os.environ.get("CREPAIR_SLOW")
    programs = [(d.name, d / "program.c") for d in sorted(F1X.iterdir()) if d.is_dir()]
    programs += _codeflaws(None if everything else 6)
    for name, path in programs:
        program = _load(path, tmp_path)
        space = build_space(program)
        check_invariants(program, space)
        assert 0 < len(space.candidates) <= SpaceOptions().max_candidates, name


# -- every replacement is C that gcc compiles -----------------------------------------------
def _compiles(text: str, directory: Path) -> tuple[bool, str]:
    path = directory / "candidate.c"
    path.write_text(text, errors="surrogateescape")
    flags = ["-fsyntax-only", "-std=gnu99", "-w", "-Werror=int-conversion", "-Werror=incompatible-pointer-types"]
    proc = subprocess.run([GCC, *flags, "-I", str(directory), str(path)], capture_output=True, text=True)
    return proc.returncode == 0, proc.stderr


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
def test_a_sample_of_each_schema_compiles(tmp_path):
    sources = [write_c(tmp_path, IF_ELSE, "if_else.c")]
    if F1X.exists():
        sources += [F1X / n / "program.c" for n in ("pointer", "memberexpr", "break", "signed-int-overflow")]
    sources += [p for _, p in _codeflaws(3)]
    rnd = random.Random(11)
    for k, path in enumerate(sources):
        program = _load(path, tmp_path)
        space = build_space(program)
        work = tmp_path / f"build_{k}"
        work.mkdir()
        for h in path.parent.glob("*.h"):
            (work / h.name).write_text(h.read_text())
        assert _compiles(program.original, work)[0]
        for schema in Schema:
            chosen = [c for c in space.candidates if c.schema == schema]
            for c in rnd.sample(chosen, min(4, len(chosen))):
                ok, err = _compiles(patched(program, space, c), work)
                assert ok, f"{path.name}: {c.replacement!r}: {err}"


def test_the_plain_side_of_a_comparison_with_side_effects_is_a_site_a_given_constant_may_replace(tmp_path):
    """``(c = getchar()) != '\\n'`` cannot be evaluated twice (the
    meta-program compares candidates on one execution), so it has no
    EXPRESSION candidates; its constant side is a site of its own, and a
    reference's ``EOF`` (``SpaceOptions.constants``) may replace it."""
    program, space = space_of(tmp_path, NEWLINE_LOOP, options=SpaceOptions(constants=((-1, "EOF"),)))
    check_invariants(program, space)
    newline = site(space, "'\\n'", SiteKind.EXPR)
    assert {"EOF", "11", "9", "c", "n"} <= set(at(space, newline))  # '\\n' + 1 and - 1, the variables
    whole = site(space, "(c = getchar()) != '\\n'", SiteKind.EXPR)
    assert not any(c.schema is Schema.EXPRESSION for c in at(space, whole).values())
    _, without = space_of(tmp_path, NEWLINE_LOOP)
    assert "EOF" not in at(without, site(without, "'\\n'", SiteKind.EXPR))
