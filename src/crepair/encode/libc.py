"""Models of the C library functions that need no memory: terms, not C code.

A call to a modelled function evaluates each argument as an ARGUMENT
location converted to the parameter's type (as for a call of a defined
function, AllRepair FM'16, Sect. 3.1) and gives the function's result as
a term over them.  The results are glibc's on x86-64 (gcc links glibc):

* ``abs``, ``labs``, ``llabs``: ``x < 0 ? -x : x``; the most negative
  value is its own absolute value (undefined in C, what gcc's code gives).
* gcc's ``__builtin_popcount``, ``__builtin_popcountl`` and
  ``__builtin_popcountll``: the number of 1 bits.
* ``<ctype.h>`` in the C locale: glibc indexes a table defined for
  -128..255 (``EOF`` is -1); a class test gives the class's bit of glibc's
  table (``isdigit('5') == 2048``), not 1; outside -128..255 the call reads
  outside the table (undefined), so the result is left unconstrained.
  ``toupper``/``tolower`` map -128..-2 to the ``unsigned char`` of the
  same byte and return any other argument outside 'a'..'z' / 'A'..'Z'
  unchanged, as glibc does.

* ``fabs``, ``sqrt`` (and their ``float`` forms): the sign bit cleared,
  the correctly rounded square root (``sqrtsd``); ``pow`` where exact
  (:meth:`Library._pow`).

A call to another function of the C library is reported as a library
function that is not modelled (:data:`LIBRARY_FUNCTIONS`).

>>> sorted(CTYPE_CLASSES)[:3]
['isalnum', 'isalpha', 'isblank']
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.core import EncoderCore
from crepair.encode.formula import LocationKind, UnwindingCut
from crepair.encode.ops import Value, constant_value, convert
from crepair.encode.walk import Ctx
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import fp, smt

# (lo, hi) character ranges (inclusive) of each class in the C locale
_DIGIT = ((48, 57),)
_UPPER = ((65, 90),)
_LOWER = ((97, 122),)
_ALPHA = _UPPER + _LOWER
_SPACE = ((9, 13), (32, 32))
_PUNCT = ((33, 47), (58, 64), (91, 96), (123, 126))

#: class test -> (glibc's bit for the class, the class's character ranges)
CTYPE_CLASSES: dict[str, tuple[int, tuple[tuple[int, int], ...]]] = {
    "isupper": (0x100, _UPPER),
    "islower": (0x200, _LOWER),
    "isalpha": (0x400, _ALPHA),
    "isdigit": (0x800, _DIGIT),
    "isxdigit": (0x1000, _DIGIT + ((65, 70), (97, 102))),
    "isspace": (0x2000, _SPACE),
    "isprint": (0x4000, ((32, 126),)),
    "isgraph": (0x8000, ((33, 126),)),
    "isblank": (0x1, ((9, 9), (32, 32))),
    "iscntrl": (0x2, ((0, 31), (127, 127))),
    "ispunct": (0x4, _PUNCT),
    "isalnum": (0x8, _ALPHA + _DIGIT),
}

#: Functions of the C library a program may call (crepair's headers declare them);
#: those without a model here are reported, never treated as undefined user functions.
LIBRARY_FUNCTIONS = frozenset(
    """
    abs labs llabs atoi atol atoll strtol strtoul strtoll strtoull atof strtod rand srand malloc calloc
    realloc free atexit getenv system qsort bsearch div ldiv
    printf fprintf sprintf snprintf scanf fscanf sscanf getchar putchar puts gets fgets fgetc getc ungetc
    fputc putc fputs fflush fopen freopen fclose fread fwrite feof perror
    strlen strcpy strncpy strcat strncat strcmp strncmp strchr strrchr strstr strtok strdup strspn strcspn
    strpbrk memset memcpy memmove memcmp memchr strrev
    isalnum isalpha isblank iscntrl isdigit isgraph islower isprint ispunct isspace isupper isxdigit
    tolower toupper
    sqrt pow fabs floor ceil round log log2 log10 exp sin cos tan atan atan2 fmod hypot
    time clock
    """.split()
)


@dataclass(frozen=True, slots=True)
class Model:
    """A modelled function: parameter types, result type, and the result
    term of the converted argument terms (``fresh(type)`` gives an
    unconstrained value, for results C leaves undefined)."""

    params: tuple[ct.IntType, ...]
    result: ct.IntType
    term: Callable[[tuple[smt.Term, ...], Callable[[ct.IntType], smt.Term]], smt.Term]



def _absolute(bits: int):
    return lambda args, fresh: smt.If(args[0] < smt.bv(0, bits), -args[0], args[0])


def _within(c: smt.Term, ranges) -> smt.Term:
    return smt.disjunction(smt.And(c >= smt.bv(lo), c <= smt.bv(hi)) for lo, hi in ranges)


def _class_test(bit: int, ranges):
    def term(args, fresh):
        c = args[0]
        table = smt.If(_within(c, ranges), smt.bv(bit), smt.bv(0))
        return smt.If(_within(c, ((-128, 255),)), table, fresh(ct.INT))

    return term


def _case_map(ranges, delta: int):
    def term(args, fresh):
        c = args[0]
        mapped = smt.If(_within(c, ranges), c + smt.bv(delta), c)
        return smt.If(_within(c, ((-128, -2),)), c + smt.bv(256), mapped)

    return term


def _popcount(bits: int):
    def term(args, fresh):
        x = args[0]
        return sum((smt.ZeroExt(31, smt.Extract(i, i, x)) for i in range(1, bits)),
                   smt.ZeroExt(31, smt.Extract(0, 0, x)))

    return term


MODELS: dict[str, Model] = {
    "__builtin_popcount": Model((ct.UINT,), ct.INT, _popcount(32)),
    "__builtin_popcountl": Model((ct.ULONG,), ct.INT, _popcount(64)),
    "__builtin_popcountll": Model((ct.ULONG,), ct.INT, _popcount(64)),
    "abs": Model((ct.INT,), ct.INT, _absolute(32)),
    "labs": Model((ct.LONG,), ct.LONG, _absolute(64)),
    "llabs": Model((ct.LONG,), ct.LONG, _absolute(64)),
    "toupper": Model((ct.INT,), ct.INT, _case_map(_LOWER, -32)),
    "tolower": Model((ct.INT,), ct.INT, _case_map(_UPPER, 32)),
    **{name: Model((ct.INT,), ct.INT, _class_test(bit, ranges)) for name, (bit, ranges) in CTYPE_CLASSES.items()},
    "fabs": Model((ct.DOUBLE,), ct.DOUBLE, lambda args, fresh: fp.absolute(args[0], 64)),
    "fabsf": Model((ct.FLOAT,), ct.FLOAT, lambda args, fresh: fp.absolute(args[0], 32)),
    "sqrt": Model((ct.DOUBLE,), ct.DOUBLE, lambda args, fresh: fp.square_root(args[0], 64)),
    "sqrtf": Model((ct.FLOAT,), ct.FLOAT, lambda args, fresh: fp.square_root(args[0], 32)),
    "pow": Model((ct.DOUBLE, ct.DOUBLE), ct.DOUBLE, None),  # Library._pow
}
_POWERS = range(0, 5)  # the constant exponents of pow(x, k) computed exactly


class Library(EncoderCore):
    """Encodes calls of the modelled library functions (:data:`MODELS`)."""

    def _library_call(self, name: str, node: c_ast.FuncCall, args: list[c_ast.Node], ctx: Ctx) -> Value:
        """The value of ``name(args)`` for a name in :data:`MODELS`; raises
        ``BadInput`` on a wrong number of arguments."""
        model = MODELS[name]
        if len(args) != len(model.params):
            raise BadInput(
                f"call to '{name}' with {len(args)} arguments, expected {len(model.params)}", self._point(node)
            )
        terms = []
        for i, (arg, ptype) in enumerate(zip(args, model.params)):
            term, ctx.state = self._located(
                arg, ctx.state, LocationKind.ARGUMENT, ptype, name=f"{name}@{self._line(node)}::arg{i}"
            )
            terms.append(term)
        line = self._line(node)
        if name == "pow":
            return self._pow(node, args, terms[0], terms[1], ctx)
        result = model.term(tuple(terms), lambda t: self._fresh(f"{name}@{line}$undefined", t))
        return Value(result, model.result)

    def _pow(self, node: c_ast.FuncCall, args: list[c_ast.Node], x: smt.Term, y: smt.Term, ctx: Ctx) -> Value:
        """``pow(x, y)`` where its value is exact: ``x`` to a constant power
        0..4, or 2 to an integer power.  glibc's ``pow`` errs by less than
        one unit in the last place, so it returns a result that is a double
        exactly; a run where it is not (``pow(0.1, 2)``, ``pow(2, 0.5)``)
        is cut (an unwinding cut "pow": the verdict holds for the other
        runs).  Raises ``UnsupportedConstruct`` for other arguments."""
        base, k = (self._double_constant(a) for a in args)  # as written (a mutant's value is compared below)
        if k in _POWERS:
            result, exact = fp.power_exact(x, int(k), 64)
            exact = smt.And(exact, y == fp.from_decimal(str(int(k)), 64))
        elif base == 2:
            exact = smt.And(fp.is_integral(y, 64), fp.in_range(y, 64, 32, True), x == fp.from_decimal("2", 64))
            result = fp.power_of_two(fp.to_integer(y, 64, 32, True), 64)
        else:
            raise UnsupportedConstruct(self._point(node), "pow(x, y) other than x to a constant power 0..4 or 2 to "
                                       "an integer power (glibc's pow is modelled only where it is exact)")
        span = self._p.spans.span(node)
        inexact = smt.simplify(smt.And(ctx.state.guard, smt.Not(exact)))
        if not smt.is_false(inexact):
            self.formula.cuts.append(UnwindingCut(inexact, span, "pow"))
            self._assume(self.formula.unwinding_assumptions, smt.Not(inexact), span)
        return Value(result, ct.DOUBLE)

    def _double_constant(self, node: c_ast.Node) -> float | None:
        """The value of an integer or floating constant argument, else None."""
        if not isinstance(node, c_ast.Constant) or node.type == "string":
            return None
        value = smt.simplify(convert(constant_value(node, self._point(node)), ct.DOUBLE).term)
        return struct.unpack("<d", value.as_long().to_bytes(8, "little"))[0]
