"""Refinement templates (f1x, TOSEM'18 Fig. 10: ``e && b``, ``e || b``) with
``b`` a linear condition whose constant the counterexample-guided loop of
FMCAD'11 synthesizes, and the ranking of repairs (issue 14)."""

import pytest

import crepair
from crepair.encode.formula import Location, LocationKind
from crepair.frontend import Span, load_program
from crepair.records import BoundedProof, BoundReport, Change, Edit, Repair, Scheme
from crepair.schemes.ranking import RepairRanking
from crepair.schemes.template_forms import Shape, Template, is_truth_value, render
from crepair.solver import smt
from cprog import write_c

# TCAS v5 in small: the conjunct `&& (sep > 450)` was dropped
DROPPED_CONJUNCT = """
    int high_conf;
    int rate;
    int sep;

    int enabled(void) {
        int on = high_conf && (rate <= 600);
        return on;
    }

    int AllRepair_correct_enabled(void) {
        return high_conf && (rate <= 600) && (sep > 450);
    }

    int main(void) {
        high_conf = nondet_int();
        __CPROVER_assume(high_conf >= 0 && high_conf <= 1);
        rate = nondet_int();
        sep = nondet_int();
        __CPROVER_assume(rate <= 100000 && sep <= 100000);
        assert(enabled() == AllRepair_correct_enabled());
        return 0;
    }
"""


def test_dropped_conjunct_is_restored_by_refinement_with_the_right_constant(tmp_path):
    path = write_c(tmp_path, DROPPED_CONJUNCT)
    run = crepair.repair(path, scheme="template", components={"rhs"}, max_size=1, repairs_per_diagnosis=1,
                         max_diagnoses=1, timeout=300, diagnosis_timeout=120)
    repairs = list(run)
    assert len(repairs) == 1
    (change,) = repairs[0].changes
    assert (change.span.line, change.before) == (6, "high_conf && (rate <= 600)")
    # sep > 450 and sep >= 451 are the same condition; nothing else is
    assert change.after in ("high_conf && (rate <= 600) && (sep > 450)", "high_conf && (rate <= 600) && (sep >= 451)")
    fixed = write_c(tmp_path, repairs[0].patched, "fixed.c")
    assert crepair.verify(fixed).outcome == crepair.VerifyOutcome.VERIFIED
    # the wrong-constant neighbours are not repairs
    for wrong in ("sep > 449", "sep > 451"):
        bad = write_c(tmp_path, DROPPED_CONJUNCT.replace("(rate <= 600);", f"(rate <= 600) && ({wrong});"), "bad.c")
        assert crepair.verify(bad).outcome == crepair.VerifyOutcome.VIOLATED


def _loc(text, kind=LocationKind.ASSIGNMENT):
    return Location(0, kind, "f", Span("f.c", 0, 1, 1, 1, 1, 1), text, True)


@pytest.mark.parametrize(
    "text, truth",
    [
        ("a && (b <= 600)", True),
        ("(x < y)", True),
        ("!x", True),
        ("x + 1", False),
        ("x & (y < 3)", False),
        ("c ? a < b : 0", False),
        ("f(a < b)", False),
        ("(a) - (b)", False),
    ],
)
def test_truth_values(text, truth):
    assert is_truth_value(_loc(text)) == truth
    assert is_truth_value(_loc(text, LocationKind.CONDITION))


def _refine(text, shape):
    k = (smt.BitVec("k_0", 32), smt.BitVec("k_1", 12), smt.BitVec("k_2", 12))
    return Template(_loc(text), ("x", "y"), k, smt.BitVec("op", 3), shape)


def test_refinements_render_with_the_original_expression_first():
    assert render(_refine("a && b", Shape.AND), {"k_0": -600, "k_1": 1, "k_2": 0, "op": 2}) == "a && b && (x > 600)"
    # -x + 600 < 0 prints without a negation that could overflow
    assert render(_refine("a && b", Shape.OR), {"k_0": 600, "k_1": -1, "k_2": 0, "op": 0}) == "(a && b) || (x > 600)"
    assert render(_refine("a || b", Shape.AND), {"k_0": 0, "k_1": 1, "k_2": -1, "op": 4}) == "(a || b) && (x == y)"


def _repair(program, function, before, after, order_text=""):
    span = Span(program.path, 0, 1, 1, 1, 1, 1)
    change = Change(span, function, "assignment", before, after, (Edit(span, before, after),))
    return Repair(Scheme.TEMPLATE, (change,), order_text, "", 0.0, BoundedProof(BoundReport(8, False), True))


RANKED = """
    int thresh[2];
    int alt;
    int layer;
    void initialize(void) {
        thresh[0] = 400;
        thresh[1] = 500;
    }
    int pick(void) {
        return thresh[layer] + alt;
    }
    int main(void) {
        alt = nondet_int();
        layer = nondet_int();
        __CPROVER_assume(layer >= 0 && layer <= 1);
        initialize();
        assert(pick() >= 0);
        return 0;
    }
"""


def test_ranking_puts_new_input_reads_last_then_fewer_variables_and_smaller_constants(tmp_path):
    program = load_program(str(write_c(tmp_path, RANKED)))
    ranking = RepairRanking(program, "main")
    assert ranking.inputs == {"alt", "layer"}
    reads_input = _repair(program, "initialize", "400", "400 + alt")  # initialize() never read alt
    two_vars = _repair(program, "pick", "thresh[layer] + alt", "thresh[layer] + alt + layer")
    big = _repair(program, "pick", "thresh[layer] + alt", "thresh[layer] + 900")
    small = _repair(program, "pick", "thresh[layer] + alt", "thresh[layer] + 9")
    assert ranking.new_input_reads(reads_input) == {"alt"}
    assert not ranking.new_input_reads(two_vars)  # pick() already read both
    ranked = ranking.rank([reads_input, two_vars, big, small])
    assert ranked == [small, big, two_vars, reads_input]
