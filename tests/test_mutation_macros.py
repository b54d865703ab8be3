"""Macro bodies as repairable locations of the mutation scheme (issue 14).

A wrong constant inside a ``#define`` (TCAS v13: ``#define OLEV 600+100``)
is repaired by one edit of the ``#define`` line, which every use follows.
"""

import crepair
from crepair.frontend import load_program
from crepair.mutation import MutationLevel, MutationUnit
from crepair.mutation.macros import MacroBodies, object_macros
from cprog import write_c

WRONG_LIMIT = """
    #define LIMIT 600+100   /* feet */
    #define OTHER 5
    int limit_ok(int rate) {
        return rate <= LIMIT;
    }
    int main(void) {
        int rate = nondet_int();
        __CPROVER_assume(rate >= 0 && rate <= 2000);
        assert(limit_ok(rate) == (rate <= 600));
        return 0;
    }
"""


def test_wrong_constant_in_define_is_repaired_on_the_define_line(tmp_path):
    path = write_c(tmp_path, WRONG_LIMIT)
    run = crepair.repair(path, level=2, max_size=1, timeout=120)
    repairs = list(run)
    assert run.outcome == crepair.RepairOutcome.REPAIRED
    assert len(repairs) == 1
    (change,) = repairs[0].changes
    assert change.kind == "macro body"
    assert (change.span.line, change.before, change.after) == (1, "600+100", "600+0")
    (edit,) = change.edits
    assert (edit.span.line, edit.span.column, edit.old, edit.new) == (1, 19, "100", "0")
    # the diff changes the #define line only
    removed = [l for l in repairs[0].diff.splitlines() if l.startswith("-") and not l.startswith("---")]
    added = [l for l in repairs[0].diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
    assert removed == ["-#define LIMIT 600+100   /* feet */"]
    assert added == ["+#define LIMIT 600+0   /* feet */"]
    # re-verified from the patched text
    assert crepair.verify(write_c(tmp_path, repairs[0].patched, "patched.c")).outcome == crepair.VerifyOutcome.VERIFIED


def test_macro_used_twice_is_not_a_body_location(tmp_path):
    # editing the #define would change both uses; the mutant changes one
    source = WRONG_LIMIT.replace("return rate <= LIMIT;", "return rate <= LIMIT && rate < LIMIT + 1;")
    program = load_program(str(write_c(tmp_path, source)))
    bodies = MacroBodies(program)
    spans = program.spans
    from_macro = [i for i in range(200) if _exists(spans, i) and spans.token(i).from_macro]
    assert from_macro and all(bodies.body_token(i) is None for i in from_macro)


def test_body_tokens_map_in_order(tmp_path):
    program = load_program(str(write_c(tmp_path, WRONG_LIMIT)))
    macros, excluded = object_macros(program.original)
    assert [t.text for t in macros["LIMIT"].tokens] == ["600", "+", "100"]
    assert not excluded
    bodies = MacroBodies(program)
    spans = program.spans
    mapped = [bodies.body_token(i) for i in range(200) if _exists(spans, i) and spans.token(i).from_macro]
    assert [(m.name, t.text, t.line) for m, t in mapped] == [("LIMIT", "600", 1), ("LIMIT", "+", 1), ("LIMIT", "100", 1)]


def test_level_2_mutates_the_body_operator_and_constants(tmp_path):
    program = load_program(str(write_c(tmp_path, WRONG_LIMIT)))
    unit = MutationUnit(program, MutationLevel.LEVEL_2)
    from pycparser import c_ast

    ret = next(n for _, n in program.ast.children() if isinstance(n, c_ast.FuncDef) and n.decl.name == "limit_ok")
    root = ret.body.block_items[0].expr
    texts = {(m.old_text, m.new_text) for m in unit.mutations(root) if m.macro is not None}
    assert texts == {
        ("600", "601"), ("600", "599"), ("600", "0"), ("600", "(-600)"),
        ("+", "-"), ("+", "*"),
        ("100", "101"), ("100", "99"), ("100", "0"), ("100", "(-100)"),
    }


def _exists(spans, i: int) -> bool:
    try:
        spans.token(i)
    except IndexError:
        return False
    return True
