"""A counterexample: the inputs, executed lines and violated check of a
failing run, read from a model of the program formula (Clarke, Kroening,
Lerda, TACAS'04; AllRepair FM'16, Sect. 3.1), and how its values print."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from crepair.encode import ProgramFormula
from crepair.encode.formula import Assertion, Violation
from crepair.frontend import Span
from crepair.solver import smt

@dataclass(frozen=True, slots=True)
class ArrayValue:
    """The value of an array input of unknown size: ``entries`` (index ->
    value) where it differs from ``default``; every other element is
    ``default``.  Together they give every element."""

    entries: dict[int, int]
    default: int

    def __str__(self) -> str:
        items = [f"[{i}] = {v}" for i, v in sorted(self.entries.items())]
        return "{" + ", ".join(items + [f"every other element = {self.default}"]) + "}"


@dataclass(frozen=True, slots=True)
class InputValue:
    """The value of one input in a counterexample; ``line`` is 1-based;
    ``value`` is an int, a list of every element of a sized array (index
    0 first), or an :class:`ArrayValue` for an array of unknown size.
    Inputs come in the order a run reads them; ``executed`` is false for
    one on a path the run does not take."""

    label: str
    line: int
    value: "int | list[int] | ArrayValue"
    executed: bool = True  # the run reads this input (inputs in skipped branches: False)
    chars: bool = False  # an array of char (a string input: stdin %s, argv, a char array parameter)
    variable: str | None = None  # what the input call's value is assigned to (``x = nondet_int()``: x)
    floating: int = 0  # 32/64: ``value`` is the bit pattern of a float/double, printed as the number


    def text(self) -> str:
        """The value as printed: a char array also as a C string literal
        (up to its first NUL), e.g. ``"ab" [97, 98, 0]``; an array's last
        ``REPEAT_SHOWN`` or more equal elements as one, e.g.
        ``[7, 0, 998 × 0]`` (:func:`array_text`)."""
        if self.chars and isinstance(self.value, list):
            data = bytes(v & 0xFF for v in self.value).split(b"\0")[0]
            literal = "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\' else f"\\x{b:02x}" for b in data)
            return f'"{literal}" {array_text(self.value)}'
        if self.floating in (32, 64) and isinstance(self.value, int):
            return float_text(self.value, self.floating)
        return array_text(self.value) if isinstance(self.value, list) else str(self.value)


REPEAT_SHOWN = 8  # an array's trailing run of equal elements at least this long is printed as "N × v"


def array_text(values: list) -> str:
    """``values`` as a Python list, its trailing run of ``REPEAT_SHOWN`` or
    more equal elements (after the first) written ``N × v``: a 1,000-char
    buffer holding "ab" is ``[97, 98, 998 × 0]``."""
    run = 0
    while run < len(values) - 1 and values[-1 - run] == values[-1]:
        run += 1
    if run < REPEAT_SHOWN:
        return str(values)
    head = ", ".join(str(v) for v in values[:len(values) - run])
    return f"[{head}, {run} × {values[-1]}]"


def float_text(bits: int, width: int) -> str:
    """The ``float`` (``width`` 32) or ``double`` (64) whose IEEE-754 bit
    pattern is ``bits`` (signed or not), in the fewest digits that read
    back as the same value: ``2.0000000000000004``, ``0.1``, ``-0``,
    ``inf``, ``nan``."""
    fmt = "<f" if width == 32 else "<d"
    raw = (bits & ((1 << width) - 1)).to_bytes(width // 8, "little")
    value = struct.unpack(fmt, raw)[0]
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if value != value or struct.pack(fmt, float(text)) == raw:
            return text
    return repr(value)


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A failing run: what it violates, every input, executed lines.

    ``assertion`` is the span of the violated assertion, of the loop or
    recursive call the bound cuts (``violated`` UNWINDING_ASSERTION), or
    of the expression whose behaviour is undefined (the other kinds);
    ``detail`` then says what is undefined with the run's values, e.g.
    ``a[4] (size 4)``; ``lines`` are 1-based.
    """

    assertion: Span
    inputs: tuple[InputValue, ...]
    lines: tuple[int, ...]
    violated: Violation = Violation.ASSERTION
    detail: str = ""


def _array_value(model: smt.Model, inp, signed: bool) -> "list[int] | ArrayValue":
    if inp.size is not None:
        n = inp.size if isinstance(inp.size, int) else model.eval_int(inp.size, signed=True)
        if 0 <= n <= 1 << 16:
            return [model.eval_int(smt.Select(inp.term, smt.BitVecVal(i, 32)), signed) for i in range(n)]
    entries, default = smt.array_entries(model, inp.term, signed)
    return ArrayValue(entries, default)


def counterexample_of(formula: ProgramFormula, model: smt.Model) -> Counterexample:
    """Read what is violated, the inputs and the executed lines of ``model``."""
    used = smt.constant_names(formula.hard() + formula.original_copies() + [formula.violation()])
    inputs = []
    for inp in formula.inputs:
        if str(inp.term) not in used and not smt.constant_names([inp.term]) & used:
            continue  # an input the formula does not read (a term such as the low bits of a token: its constant)
        chars = False
        if inp.is_array:
            value: int | list[int] | ArrayValue = _array_value(model, inp, inp.signed)
            chars = smt.width(smt.Select(inp.term, smt.BitVecVal(0, 32))) == 8
        else:
            value = model.eval_int(inp.term, inp.signed)
        inputs.append(InputValue(inp.label, inp.line, value, inp.guard is None or model.eval_bool(inp.guard), chars,
                                 inp.variable, inp.floating))
    lines = formula.executed_lines(model)
    cut = formula.failed_cut(model)
    if cut is not None:
        return Counterexample(cut.span, tuple(inputs), tuple(lines), Violation.UNWINDING_ASSERTION)
    failed = next(
        (a for a in formula.assertions if model.eval_bool(smt.And(a.guard, smt.Not(a.cond)))),
        formula.assertions[0],
    )
    return Counterexample(failed.span, tuple(inputs), tuple(lines), failed.kind, describe(failed, model))


def describe(assertion: Assertion, model: smt.Model) -> str:
    """What a failed check of undefined behaviour does in the run of
    ``model``: ``a[4] (size 4)``, ``7 / m (divisor 0)``, ``x / y
    (-2147483648 / -1)``, ``x << n (shift by 32, width 32)``; "" for a
    user assertion."""
    values = [model.eval_int(t, assertion.signed) for t in assertion.operands]
    kind, subject = assertion.kind, assertion.subject
    if kind == Violation.ARRAY_BOUNDS:
        return f"{subject}[{values[0]}] (size {values[1]})"
    if kind == Violation.DIVISION_BY_ZERO:
        return f"{subject} (divisor 0)"
    if kind == Violation.NULL_DEREFERENCE:
        return f"{subject} (null pointer)"
    if kind == Violation.POINTER_BOUNDS:
        return (f"{subject} (offset {values[0]}, size {values[1]})" if values[1] >= 0
                else f"{subject} (offset {values[0]}, no live object it points into)")
    if kind == Violation.NOT_EQUIVALENT:
        if len(values) == 2:
            return f"{subject}: {values[0]}, the reference's: {values[1]}"
        return subject
    if kind == Violation.INVALID_FREE:
        return f"free({subject}) (offset {values[0]}: not the start of a live allocated object)"
    if kind == Violation.DIVISION_OVERFLOW:
        return f"{subject} ({values[0]} / {values[1]})"
    if kind == Violation.SHIFT:
        return f"{subject} (shift by {values[0]}, width {values[1]})"
    return ""
