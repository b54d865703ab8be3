"""IEEE 754 binary32/binary64 arithmetic on bit patterns (z3's FP theory).

The encoder keeps a ``float``/``double`` as its IEEE bit pattern, a
bit-vector of 32/64 bits (so environments, arrays and merges treat it as
any other value); these functions decode the patterns, compute as gcc's
SSE code does on x86-64 (every operation rounded to nearest, ties to even;
``FLT_EVAL_METHOD`` 0: a ``float`` operation is rounded to ``float``) and
encode the result.  A NaN result is some NaN pattern (SMT-LIB leaves which
one open; a program cannot tell NaNs apart without reading their bits).

>>> x = from_decimal("0.1", 64)
>>> hex(simplify_value(x))
'0x3fb999999999999a'
>>> simplify_value(less(add(x, from_decimal("0.2", 64), 64), from_decimal("0.3", 64), 64))
False
"""

from __future__ import annotations

import z3

RNE = z3.RNE()
RTZ = z3.RTZ()
_SORTS_MADE = [0]  # FP sorts asked for in this process: every floating-point term starts with one


def sorts_made() -> int:
    """How many FP sorts this module has made (never decreases): a solver
    whose count has not moved since its last look holds no new
    floating-point terms, and need not probe them (a probe costs z3
    resource units, which ``--reproducible`` runs count)."""
    return _SORTS_MADE[0]


def sort(bits: int) -> z3.FPSortRef:
    """The FP sort of a 32- or 64-bit pattern."""
    _SORTS_MADE[0] += 1
    return z3.Float32() if bits == 32 else z3.Float64()


def decode(pattern: z3.ExprRef, bits: int) -> z3.FPRef:
    return z3.fpBVToFP(pattern, sort(bits))


def encode(value: z3.FPRef) -> z3.ExprRef:
    return z3.fpToIEEEBV(value)


def from_decimal(text: str, bits: int) -> z3.ExprRef:
    """The pattern of decimal (or hexadecimal) literal ``text`` rounded to
    nearest, as gcc rounds a constant (C11 6.4.4.2)."""
    return encode(z3.FPVal(text, sort(bits)))


def binary(op: str, x: z3.ExprRef, y: z3.ExprRef, bits: int) -> z3.ExprRef:
    """``x op y`` for ``+ - * /``, rounded to nearest-even."""
    a, b = decode(x, bits), decode(y, bits)
    result = {"+": z3.fpAdd, "-": z3.fpSub, "*": z3.fpMul, "/": z3.fpDiv}[op](RNE, a, b)
    return encode(result)


def add(x: z3.ExprRef, y: z3.ExprRef, bits: int) -> z3.ExprRef:
    return binary("+", x, y, bits)


def compare(op: str, x: z3.ExprRef, y: z3.ExprRef, bits: int) -> z3.BoolRef:
    """IEEE comparison (``==`` is false on a NaN, ``-0 == +0``)."""
    a, b = decode(x, bits), decode(y, bits)
    if op == "!=":
        return z3.Not(z3.fpEQ(a, b))
    return {"==": z3.fpEQ, "<": z3.fpLT, "<=": z3.fpLEQ, ">": z3.fpGT, ">=": z3.fpGEQ}[op](a, b)


def less(x: z3.ExprRef, y: z3.ExprRef, bits: int) -> z3.BoolRef:
    return compare("<", x, y, bits)


def is_zero(x: z3.ExprRef, bits: int) -> z3.BoolRef:
    return z3.fpIsZero(decode(x, bits))


def negate(x: z3.ExprRef, bits: int) -> z3.ExprRef:
    """``-x``: the sign bit flipped (also of a NaN, as ``xorpd`` does)."""
    return x ^ z3.BitVecVal(1 << (bits - 1), bits)


def absolute(x: z3.ExprRef, bits: int) -> z3.ExprRef:
    """``fabs(x)``: the sign bit cleared (``andpd``)."""
    return x & z3.BitVecVal((1 << (bits - 1)) - 1, bits)


def square_root(x: z3.ExprRef, bits: int) -> z3.ExprRef:
    """``sqrt(x)``, correctly rounded (``sqrtsd``; glibc's ``sqrt`` is it)."""
    return encode(z3.fpSqrt(RNE, decode(x, bits)))


def resize(x: z3.ExprRef, frm: int, to: int) -> z3.ExprRef:
    """``float`` <-> ``double``: exact widening, narrowing rounded to nearest."""
    return encode(z3.fpFPToFP(RNE, decode(x, frm), sort(to)))


def from_integer(v: z3.ExprRef, signed: bool, bits: int) -> z3.ExprRef:
    """An integer bit-vector converted to a float of ``bits``, rounded to nearest."""
    convert = z3.fpSignedToFP if signed else z3.fpUnsignedToFP
    return encode(convert(RNE, v, sort(bits)))


def to_integer(x: z3.ExprRef, bits: int, width: int, signed: bool) -> z3.ExprRef:
    """A float truncated toward zero to a ``width``-bit integer (C11
    6.3.1.4; a value out of range is undefined, the result then unspecified)."""
    convert = z3.fpToSBV if signed else z3.fpToUBV
    return convert(RTZ, decode(x, bits), z3.BitVecSort(width))


def in_range(x: z3.ExprRef, bits: int, width: int, signed: bool) -> z3.BoolRef:
    """Whether ``x`` truncated toward zero fits a ``width``-bit integer."""
    a = z3.fpRoundToIntegral(RTZ, decode(x, bits))
    low = -(1 << (width - 1)) if signed else 0
    high = (1 << (width - 1)) if signed else (1 << width)
    return z3.And(z3.fpGEQ(a, z3.FPVal(low, sort(bits))), z3.fpLT(a, z3.FPVal(high, sort(bits))))


def is_integral(x: z3.ExprRef, bits: int) -> z3.BoolRef:
    """Whether ``x`` is a finite integer value."""
    a = decode(x, bits)
    return z3.And(z3.Not(z3.fpIsInf(a)), z3.Not(z3.fpIsNaN(a)), z3.fpEQ(z3.fpRoundToIntegral(RTZ, a), a))


def power_exact(x: z3.ExprRef, k: int, bits: int) -> tuple[z3.ExprRef, z3.BoolRef]:
    """``x`` to the constant power ``k`` (0 ≤ ``k`` ≤ 4) rounded once, and
    whether that is the exact value (the product computed without rounding
    in a format wide enough for it: binary128 when its 113 significand
    bits hold the product — a float's to the 4th power, a double's square
    — as Bitwuzla reads only the standard formats; a wider one beyond)."""
    mantissa = 24 if bits == 32 else 53
    need = mantissa * max(k, 1) + 1
    wide = z3.Float128() if need <= 113 else z3.FPSort(15, need)
    _SORTS_MADE[0] += 1
    a = z3.fpFPToFP(RNE, decode(x, bits), wide)
    product = z3.FPVal(1, wide)
    for _ in range(k):
        product = z3.fpMul(RNE, product, a)
    rounded = z3.fpFPToFP(RNE, product, sort(bits))
    exact = z3.fpEQ(z3.fpFPToFP(RNE, rounded, wide), product)
    return encode(rounded), z3.Or(exact, z3.fpIsInf(product), z3.fpIsNaN(product))


def power_of_two(e: z3.ExprRef, bits: int) -> z3.ExprRef:
    """``2^e`` as a double for a 32-bit signed integer ``e`` (exact; +inf
    above the range, subnormals and 0 below it)."""
    assert bits == 64
    e64 = z3.SignExt(32, e)
    normal = (e64 + 1023) << 52
    subnormal = z3.BitVecVal(1, 64) << (e64 + 1074)
    infinity = z3.BitVecVal(0x7FF0000000000000, 64)
    return z3.If(e64 > 1023, infinity,
                 z3.If(e64 >= -1022, normal, z3.If(e64 >= -1074, subnormal, z3.BitVecVal(0, 64))))


def fixed(x: z3.ExprRef, bits: int, precision: int) -> tuple[z3.ExprRef, z3.BoolRef]:
    """What glibc's ``%.Nf`` prints for ``x`` (N = ``precision`` ≤ 20): the
    65-bit term (sign bit, then ``|x| * 10^N`` rounded to an integer, ties
    to even, as glibc rounds the exact binary value) and whether it is
    that text (``x`` finite and the rounded value below 2^63).

    Computed on bit-vectors, exactly: ``|x| = m * 2^e`` (``m`` < 2^53), so
    ``|x| * 10^N = (m * 5^N) * 2^(e + N)``, a constant product (< 2^100)
    shifted left, or right with the bits shifted out rounding it.
    """
    assert bits == 64 and 0 <= precision <= 20
    w = 128
    field, fraction = z3.Extract(62, 52, x), z3.ZeroExt(w - 52, z3.Extract(51, 0, x))
    normal = field != z3.BitVecVal(0, 11)
    m = z3.If(normal, fraction | z3.BitVecVal(1 << 52, w), fraction)
    e = z3.If(normal, z3.ZeroExt(w - 11, field) - 1075, z3.BitVecVal(-1074, w))
    product = m * z3.BitVecVal(5 ** precision, w)
    t = e + precision
    left = z3.And(t >= 0, t <= 63)
    up = product << z3.If(left, t, z3.BitVecVal(0, w))
    fits_left = z3.And(left, z3.LShR(product, z3.If(left, 63 - t, z3.BitVecVal(0, w))) == 0)
    shift = z3.If(t < -120, z3.BitVecVal(120, w), -t)
    q = z3.LShR(product, shift)
    rest = product - (q << shift)
    half = z3.BitVecVal(1, w) << (shift - 1)
    odd = z3.Extract(0, 0, q) == z3.BitVecVal(1, 1)
    down = z3.If(z3.Or(z3.UGT(rest, half), z3.And(rest == half, odd)), q + 1, q)
    value = z3.If(t >= 0, up, down)
    ok = z3.And(field != z3.BitVecVal(2047, 11), z3.Or(t < 0, fits_left), z3.ULT(value, z3.BitVecVal(1 << 63, w)))
    return z3.Concat(z3.Extract(63, 63, x), z3.Extract(63, 0, value)), ok


def has_floats(terms: list[z3.ExprRef]) -> bool:
    """Whether ``terms`` leave QF_AUFBV (z3's probe, a walk in C++): they
    hold floating-point terms."""
    if not terms:
        return False
    goal = z3.Goal()
    goal.add(*terms)
    return z3.Probe("is-qfaufbv")(goal) != 1.0


def solver_for_floats(scopes: list[list[z3.ExprRef]], seed: int) -> z3.Solver:
    """A QF_ABVFP solver holding ``scopes`` (the assertions of each push
    level, outermost first), pushed as they were."""
    solver = z3.SolverFor("QF_ABVFP")
    solver.set("random_seed", seed)
    for level, terms in enumerate(scopes):
        if level:
            solver.push()
        solver.add(*terms)
    return solver


def simplify_value(term: z3.ExprRef):
    """A closed term's value: an int (bit-vector) or a bool (tests, doctests)."""
    v = z3.simplify(term)
    return z3.is_true(v) if z3.is_bool(v) else v.as_long()
