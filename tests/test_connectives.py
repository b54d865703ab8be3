"""smt.And, smt.Or and smt.If build the terms z3's constructors build, by
the C API when their arguments are terms already, by z3 otherwise."""

import pytest
import z3

from crepair.solver import smt


def test_the_terms_are_z3s_own():
    p, q, r = smt.Bool("p"), smt.Bool("q"), smt.Bool("r")
    x, y = smt.BitVec("x", 8), smt.BitVec("y", 8)
    pairs = [
        (smt.And(p, q, r), z3.And(p, q, r)), (smt.And([p, q]), z3.And([p, q])), (smt.And(p), z3.And(p)),
        (smt.Or(p, q), z3.Or(p, q)), (smt.Or((p, x > y)), z3.Or((p, x > y))),
        (smt.If(p, x, smt.bv(3, 8)), z3.If(p, x, z3.BitVecVal(3, 8))), (smt.If(p, q, r), z3.If(p, q, r)),
        # Python values, generators: z3's own constructors cast them
        (smt.And(p, True), z3.And(p, True)), (smt.Or(t for t in (p, q)), z3.Or(p, q)),
        (smt.If(p, x, 3), z3.If(p, x, 3)),
    ]
    for ours, theirs in pairs:
        assert z3.eq(ours, theirs), (ours, theirs)
        assert type(ours) is type(theirs)
    # an if-then-else of numerals is a term, not a numeral
    assert type(smt.If(p, smt.bv(1, 8), smt.bv(2, 8))) is z3.BitVecRef
    s = z3.Solver()
    s.add(smt.If(p, x, y) == 5, smt.Not(p), smt.Or(x == 1, y == 1))
    assert s.check() == z3.sat and s.model().eval(y).as_long() == 5 and s.model().eval(x).as_long() == 1


def test_sorts_that_differ_are_refused_as_by_z3():
    p = smt.Bool("p")
    with pytest.raises(z3.Z3Exception):
        smt.If(p, smt.BitVec("x", 8), smt.BitVec("y", 16))
    with pytest.raises(z3.Z3Exception):
        smt.And(p, smt.BitVec("x", 8) == 1, smt.BitVec("z", 8))


def test_terms_of_another_context_stay_in_it():
    other = z3.Context()
    p, q = z3.Bool("p", other), z3.Bool("q", other)
    assert smt.And(p, q).ctx is other and smt.If(p, q, p).ctx is other
    with pytest.raises(z3.Z3Exception):
        smt.And(p, smt.Bool("p"))  # one from each context: z3's own constructor refuses them
