"""Soundness of Algorithm 2 (Wolverine2 Appendix A, Theorem A.1: the faulty
statement is always suspicious) on the kinds of fault the benchmark's
injector makes, and the repair space holding the inverse of every
mutation the injector can make (§7.1 against §4.1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crepair.frontend import load_program
from crepair.heap.build import build_function
from crepair.heap.inject import _sites
from crepair.heap.localize import suspicious
from crepair.heap.repair import HeapOutcome, repair_ir
from crepair.heap.space import Space
from crepair.heap.states import spec_of_json
from crepair.patch import apply_edits

BENCH = Path(__file__).resolve().parent.parent / "bench" / "heap" / "programs"

TREE = """#include <stdlib.h>
struct tnode { int height; struct tnode *left, *right; };
struct tnode *left_rotate(struct tnode *x) {
    struct tnode *y, *t;
    %s
}
"""

# the correct left_rotate (bench b08) on n5(n4, n3(n2, n1)): its states at entry and exit
NODES = {"n1": {"left": None, "right": None}, "n2": {"left": None, "right": None},
         "n3": {"left": "n2", "right": "n1"}, "n4": {"left": None, "right": None},
         "n5": {"left": "n4", "right": "n3"}}
AFTER = dict(NODES, n3={"left": "n5", "right": "n1"}, n5={"left": "n4", "right": "n2"})
ENTRY = {"at": "entry", "state": {"vars": {"x": "n5"}, "nodes": NODES}}
EXIT = {"at": "exit", "state": {"vars": {"x": "n5", "y": "n3", "t": "n2", "return": "n3"}, "nodes": AFTER}}


def _tree(tmp_path, body: str):
    path = tmp_path / "rot.c"
    path.write_text(TREE % body)
    fn = build_function(load_program(path, real_c=True), "left_rotate")
    spec = spec_of_json({"function": "left_rotate", "trace": [ENTRY, EXIT]})
    return fn, spec, [fn.instrs[i - 1].text() for i in sorted(suspicious(fn, spec))]


def test_a_mutated_left_hand_side_in_straight_line_code_is_suspicious(tmp_path):
    # t = y->left written as y = y->left (bench b08 ⟨1,0⟩): y is overwritten, t never written
    fn, spec, found = _tree(tmp_path, "y = x->right; y = y->left; x->right = t; y->left = x; return y;")
    assert "y = y->left;" in found


def test_a_second_fault_masking_the_first_is_suspicious(tmp_path):
    # y = x->right and return y both read x (bench b08 ⟨2,1⟩): return x returns the right node, but x
    # at the exit is wrong, and return reads it
    fn, spec, found = _tree(tmp_path, "x = x->right; t = x->left; x->right = t; x->left = x; return x;")
    assert "x = x->right;" in found and "return x;" in found


def test_a_correct_run_clears_the_straight_line_code(tmp_path):
    fn, spec, found = _tree(tmp_path, "y = x->right; t = y->left; x->right = t; y->left = x; return y;")
    assert found == []


def test_a_wrong_integer_that_is_not_upward_exposed_is_suspicious(tmp_path):
    # an integer split disagrees with every value: Γ is 1 before and after h = b->height, no gradient
    path = tmp_path / "h.c"
    path.write_text("struct node { int height; struct node *next; };\nstruct node *a, *b;\nint h;\n"
                    "void f() {\n    h = 0;\n    h = b->height;\n}\n")
    fn = build_function(load_program(path, real_c=True), "f")
    nodes = {"n1": {"height": 5, "next": None}, "n2": {"height": 7, "next": None}}
    spec = spec_of_json({"function": "f", "trace": [
        {"at": "entry", "state": {"vars": {"a": "n1", "b": "n2", "h": 0}, "nodes": nodes}},
        {"at": "exit", "state": {"vars": {"a": "n1", "b": "n2", "h": 5}, "nodes": nodes}}]})
    # (h = 0 is suspicious too: after it the backward h is split, and a split integer disagrees)
    assert [fn.instrs[i - 1].text() for i in sorted(suspicious(fn, spec))] == ["h = 0;", "h = b->height;"]


def test_a_field_write_that_went_to_a_field_already_holding_the_value_is_suspicious(tmp_path):
    # y->right = x written as y->parent = x (bench b16 ⟨2,0⟩): y->parent was x already, so the write
    # changes nothing; y->right keeps ω_pre's value though another statement writes a right field
    path = tmp_path / "p.c"
    path.write_text("struct tnode { struct tnode *left, *right, *parent; };\n"
                    "void f(struct tnode *x) {\n    struct tnode *y;\n    y = x->left;\n"
                    "    y->parent = x;\n    x->right = NULL;\n}\n")
    fn = build_function(load_program(path, real_c=True), "f")
    pre = {"n1": {"left": "n2", "right": "n3", "parent": None}, "n2": {"left": None, "right": None, "parent": "n1"},
           "n3": {"left": None, "right": None, "parent": "n1"}}
    post = dict(pre, n1=dict(pre["n1"], right=None), n2=dict(pre["n2"], right="n1"))
    spec = spec_of_json({"function": "f", "trace": [
        {"at": "entry", "state": {"vars": {"x": "n1"}, "nodes": pre}},
        {"at": "exit", "state": {"vars": {"x": "n1", "y": "n2"}, "nodes": post}}]})
    assert "y->parent = x;" in [fn.instrs[i - 1].text() for i in suspicious(fn, spec)]


def test_a_mutated_decrement_is_repaired_as_the_decrement(tmp_path):
    # d-- written as lb-- (bench l04 ⟨1,0⟩): the read of x-- is the written x, one choice for both
    path = tmp_path / "d.c"
    path.write_text("struct node { int v; struct node *next; };\nstruct node *p;\nint d, lb;\n"
                    "void f() {\n    d = 5;\n    lb = 2;\n    lb--;\n}\n")
    program = load_program(path, real_c=True)
    fn = build_function(program, "f")
    spec = spec_of_json({"function": "f", "trace": [
        {"at": "entry", "state": {"vars": {"d": 0, "lb": 0}, "nodes": {}}},
        {"at": "exit", "state": {"vars": {"d": 4, "lb": 2}, "nodes": {}}}]})
    rep = repair_ir(fn, spec, text=program.original)
    assert rep.outcome == HeapOutcome.REPAIRED
    assert [(c.before, c.after) for c in rep.changes] == [("lb--;", "d--;")]


def _operand_at(space: Space, loc: int, part: str, start: int):
    for oc in space.locations[loc - 1].operands:
        span = oc.operand.name_span if part == "name" else oc.operand.field_span
        if span is not None and span.start == start:
            return oc
    return None


@pytest.mark.parametrize("source", sorted(BENCH.glob("*.c")), ids=lambda p: p.stem)
def test_every_injectable_mutation_has_its_inverse_in_the_repair_space(source, tmp_path):
    """For each site and each replacement the injector may draw, the buggy
    version's repair space offers the original name at that operand (and
    a re-read left-hand side, x++, follows it).  The options of an operand
    are those of its type, whichever name it holds, so the buggy
    version's space is built for the first replacement of each site only."""
    manifest = {p["file"]: p["function"] for p in json.loads((BENCH.parent / "programs.json").read_text())}
    for h in BENCH.glob("*.h"):
        shutil.copy(h, tmp_path)
    program = load_program(source, real_c=True)
    fn = build_function(program, manifest[source.name])
    space = Space(fn, 0)
    checked = 0
    for loc, o, part in _sites(fn):
        span = o.name_span if part == "name" else o.field_span
        if part == "name":
            old = o.name
            options = [v for v, t in fn.variables.items() if t == (o.base_type if o.kind == "field" else o.type)]
        else:
            old = o.field
            options = [f for f, t in fn.structs[o.base_type[4:]].items() if t == o.type]
        news = sorted(x for x in options if x != old)
        if not news:
            continue
        path = tmp_path / source.name
        path.write_text(apply_edits(program.original, [(span.start, span.end, news[0])]))
        bspace = Space(build_function(load_program(path, real_c=True), fn.name), 0)
        oc = _operand_at(bspace, loc, part, span.start)
        assert oc is not None, (source.name, loc, old)
        choice = oc.base if part == "name" else oc.field
        assert choice.options[choice.original] == news[0] and old in choice.options, (source.name, loc, old)
        mine = _operand_at(space, loc, part, span.start)
        mine = mine.base if part == "name" else mine.field
        assert set(news) | {old} <= set(mine.options), (source.name, loc, old)
        ops = bspace.locations[loc - 1].operands
        stmt = fn.instrs[loc - 1].stmt
        if stmt is not None and o is stmt.lhs and stmt.op and ops[1].operand.name_span is None:
            assert ops[1].base is ops[0].base, (source.name, loc, "x++ reads what it writes")
        checked += 1
    assert checked > 0


L07_SPEC = Path(__file__).parent / "data" / "heap" / "l07_delete_at_spec.json"


@pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")
def test_locked_locations_never_widen_the_guard_bound(tmp_path, capsys):
    # bench <2,0> l07_sll_delete_position v1: two statements mutated, both suspicious; the unsat core also
    # held the locked (unsuspicious) guards' equalities, so Algorithm 1 widened tau_grd up to its maximum
    # and the ten tries ran out; locks are hard constraints now, and the core names the statement bound
    from crepair.cli import main

    correct = (BENCH / "l07_sll_delete_position.c").read_text()
    buggy = correct.replace("victim = temp->next;", "victim = victim->next;").replace(
        "after = victim->next;", "after = after->next;")
    assert buggy.count("victim->next") == 1 and "after->next" in buggy  # the injector's two mutations, once each
    (tmp_path / "sll.h").write_text((BENCH / "sll.h").read_text())
    (tmp_path / "delete_at_v1.c").write_text(buggy)
    code = main(["repair", str(tmp_path / "delete_at_v1.c"), "--scheme", "heap", "--states", str(L07_SPEC),
                 "--function", "delete_at", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["outcome"] == "repaired" and out["tau"] == {"grd": 0, "stm": 2, "ins": 0}
    (rep,) = out["repairs"]
    assert sorted(c["replacement"] for c in rep["changes"]) == ["after = victim->next;", "victim = temp->next;"]
