"""Algorithm 2 of Wolverine2 (§5.1, the tables "Single bug in a program
with semantically independent statements" and "... semantically dependent
... statements"): the suspicious statements are exactly the paper's."""

from __future__ import annotations

from crepair.frontend import load_program
from crepair.heap.build import build_function
from crepair.heap.localize import suspicious
from crepair.heap.states import spec_of_json

PROGRAM = """#include <stdlib.h>
struct node { int data; struct node *next; };
struct node *a, *b, *c, *d;
void f() {
    a = a->next;
    b = b->next;
    c = %s->next;
}
"""

NODES = {f"n{k}": {"next": f"n{k + 1}"} for k in range(1, 6)}
NODES["n6"] = {"next": None}


def _run(tmp_path, third: str, post: dict) -> list[str]:
    path = tmp_path / "p.c"
    path.write_text(PROGRAM % third)
    fn = build_function(load_program(path, real_c=True), "f")
    spec = spec_of_json({"function": "f", "trace": [
        {"at": "entry", "state": {"vars": {"a": "n1", "b": "n2", "c": "n3", "d": "n5"}, "nodes": NODES}},
        {"at": "exit", "state": {"vars": post, "nodes": NODES}}]})
    return [fn.instrs[i - 1].text() for i in sorted(suspicious(fn, spec))]


def test_independent_statements_only_the_buggy_one(tmp_path):
    # fix: b = d; forward ⟨n2,n3,n4,n5⟩, postcondition ⟨n2,n5,n4,n5⟩: the gradient is 1 at b = b.next only
    assert _run(tmp_path, "c", {"a": "n2", "b": "n5", "c": "n4", "d": "n5"}) == ["b = b->next;"]


def test_dependent_statement_is_suspicious_too(tmp_path):
    # c = b.next depends on the buggy b: postcondition ⟨n2,n5,n6,n5⟩, gradients 0, 1, 1
    assert _run(tmp_path, "b", {"a": "n2", "b": "n5", "c": "n6", "d": "n5"}) == ["b = b->next;", "c = b->next;"]


def test_a_correct_run_has_nothing_suspicious(tmp_path):
    assert _run(tmp_path, "c", {"a": "n2", "b": "n3", "c": "n4", "d": "n5"}) == []


def test_a_mutated_left_hand_side_is_found(tmp_path):
    # b = b->next written as d = b->next: b keeps its value, no statement writes it (Γ_0 ≠ 0)
    path = tmp_path / "p.c"
    path.write_text(PROGRAM.replace("b = b->next", "d = b->next") % "c")
    fn = build_function(load_program(path, real_c=True), "f")
    spec = spec_of_json({"function": "f", "trace": [
        {"at": "entry", "state": {"vars": {"a": "n1", "b": "n2", "c": "n3", "d": "n5"}, "nodes": NODES}},
        {"at": "exit", "state": {"vars": {"a": "n2", "b": "n3", "c": "n4", "d": "n5"}, "nodes": NODES}}]})
    assert "d = b->next;" in [fn.instrs[i - 1].text() for i in suspicious(fn, spec)]
