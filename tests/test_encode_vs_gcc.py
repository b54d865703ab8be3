"""Differential tests: crepair's program formula against gcc (x86-64).

Every case is a function ``T f(T1 a, T2 b, T3 c)`` and concrete inputs.

1. gcc: ``main`` calls ``f`` on the inputs and prints the result; the program
   is compiled with ``gcc -O0 -w`` and run, which gives the expected value.
2. crepair: ``main`` reads each input with ``nondet_*()``, pins it with
   ``__CPROVER_assume(x == value)``, calls ``f`` and asserts
   ``r == expected``: the bounded check must say VERIFIED, with a bound that
   is large enough (``bound.too_small`` false).
3. crepair again with ``assert(r != expected)``: must be VIOLATED (so the
   formula is not vacuous), and the counterexample must report the inputs.

Random programs come from hypothesis; they are free of undefined behaviour
by construction in their "safe" rendering (signed ``+ - *``, unary minus and
``++``/``--`` are computed in ``unsigned long`` and cast back, divisors are
guarded against 0 and -1, shift amounts are masked with ``& 15`` and only
unsigned (or ``unsigned char``) values are shifted left).  When gcc's
UndefinedBehaviorSanitizer is available, the plain rendering (real signed
``a + b`` etc.) is tried first and kept if the sanitizer finds no undefined
behaviour on the drawn inputs; otherwise the safe rendering is used.
"""

from __future__ import annotations

import functools
import signal
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import crepair

GCC = shutil.which("gcc")

pytestmark = pytest.mark.skipif(GCC is None, reason="gcc is not installed")

UNWIND = 4
SAN_FLAGS = ["-fsanitize=undefined", "-fno-sanitize-recover=undefined"]


# --------------------------------------------------------------------- types
@dataclass(frozen=True)
class CType:
    name: str
    bits: int
    signed: bool
    nondet: str
    suffix: str = ""

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, v: int) -> int:
        v &= (1 << self.bits) - 1
        return v - (1 << self.bits) if self.signed and v > self.max else v


INT = CType("int", 32, True, "nondet_int")
UINT = CType("unsigned", 32, False, "nondet_uint", "U")
CHAR = CType("char", 8, True, "nondet_char")
UCHAR = CType("unsigned char", 8, False, "nondet_uchar")
SHORT = CType("short", 16, True, "nondet_short")
LONG = CType("long", 64, True, "nondet_long", "L")
ULONG = CType("unsigned long", 64, False, "nondet_ulong", "UL")
LLONG = CType("long long", 64, True, "nondet_longlong", "LL")
ULLONG = CType("unsigned long long", 64, False, "nondet_ulonglong", "ULL")
USHORT = CType("unsigned short", 16, False, "nondet_ushort")
TYPES = [INT, UINT, CHAR, UCHAR, SHORT, LONG, ULONG, LLONG, ULLONG]
CAST_TYPES = [CHAR, UCHAR, SHORT, UINT, LONG, ULONG, INT, LLONG, ULLONG, USHORT]


def promote(t: CType) -> CType:
    return INT if t.bits < 32 else t


def common(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions (LP64)."""
    a, b = promote(a), promote(b)
    if (a.bits, a.signed) == (b.bits, b.signed):
        return max(a, b, key=lambda t: len(t.name))  # long long outranks long
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    u, s = (a, b) if not a.signed else (b, a)
    return u if u.bits >= s.bits else s


def literal(v: int, t: CType) -> str:
    """A C expression of value ``v`` and of type ``t`` (or ``int`` for the
    types narrower than ``int``), with no out-of-range literal."""
    assert t.min <= v <= t.max, (v, t)
    if v >= 0:
        return f"{v}{t.suffix}"
    if -v <= t.max or t.bits < 32:
        return f"(-{-v}{t.suffix})"
    return f"(-{-v - 1}{t.suffix}-1{t.suffix})"


def printf_of(t: CType, expr: str) -> str:
    if t.signed:
        return f'printf("%lld\\n", (long long)({expr}));'
    return f'printf("%llu\\n", (unsigned long long)({expr}));'


# ---------------------------------------------------------- expression AST
class Expr:
    t: CType

    def render(self, safe: bool) -> str:
        raise NotImplementedError


@dataclass
class Var(Expr):
    name: str
    t: CType

    def render(self, safe: bool) -> str:
        return self.name


@dataclass
class Const(Expr):
    text: str
    t: CType

    def render(self, safe: bool) -> str:
        return self.text


def wrapped(t: CType, op: str, left: str, right: str) -> str:
    """``left op right`` computed modulo 2^64 and converted to ``t``."""
    return f"(({t.name})((unsigned long)({left}) {op} (unsigned long)({right})))"


@dataclass
class Arith(Expr):  # + - *
    op: str
    left: Expr
    right: Expr

    @property
    def t(self) -> CType:
        return common(self.left.t, self.right.t)

    def render(self, safe: bool) -> str:
        lhs, rhs = self.left.render(safe), self.right.render(safe)
        if safe and self.t.signed:
            return wrapped(self.t, self.op, lhs, rhs)
        return f"({lhs} {self.op} {rhs})"


@dataclass
class Plain(Expr):  # & | ^ and comparisons, && ||: never undefined
    op: str
    left: Expr
    right: Expr

    @property
    def t(self) -> CType:
        if self.op in ("&", "|", "^"):
            return common(self.left.t, self.right.t)
        return INT

    def render(self, safe: bool) -> str:
        return f"({self.left.render(safe)} {self.op} {self.right.render(safe)})"


def guarded_divisor(dividend: CType, d: Expr, safe: bool) -> tuple[str, CType]:
    """A divisor that is neither 0 nor -1 (when the division is signed)."""
    r = d.render(safe)
    t = common(INT, d.t)
    if not common(dividend, t).signed:
        return f"({r} == 0 ? 1 : {r})", t
    return f"(({r} == 0 || {r} == -1) ? 7 : {r})", t


@dataclass
class Div(Expr):  # / %
    op: str
    left: Expr
    right: Expr

    @property
    def t(self) -> CType:
        return common(self.left.t, common(INT, self.right.t))

    def render(self, safe: bool) -> str:
        divisor, _ = guarded_divisor(self.left.t, self.right, safe)
        return f"({self.left.render(safe)} {self.op} {divisor})"


@dataclass
class Shl(Expr):
    cast: CType  # unsigned, unsigned long or unsigned char
    left: Expr
    right: Expr

    @property
    def t(self) -> CType:
        return promote(self.cast)

    def render(self, safe: bool) -> str:
        return f"(({self.cast.name})({self.left.render(safe)}) << ({self.right.render(safe)} & 15))"


@dataclass
class Shr(Expr):
    left: Expr
    right: Expr

    @property
    def t(self) -> CType:
        return promote(self.left.t)

    def render(self, safe: bool) -> str:
        return f"({self.left.render(safe)} >> ({self.right.render(safe)} & 15))"


@dataclass
class Unary(Expr):  # - ~ !
    op: str
    operand: Expr

    @property
    def t(self) -> CType:
        return INT if self.op == "!" else promote(self.operand.t)

    def render(self, safe: bool) -> str:
        e = self.operand.render(safe)
        if self.op == "-" and safe and self.t.signed:
            return wrapped(self.t, "-", "0", e)
        return f"({self.op}{e})"


@dataclass
class Cast(Expr):
    t: CType
    operand: Expr

    def render(self, safe: bool) -> str:
        return f"(({self.t.name}){self.operand.render(safe)})"


@dataclass
class Cond(Expr):
    cond: Expr
    then: Expr
    other: Expr

    @property
    def t(self) -> CType:
        return common(self.then.t, self.other.t)

    def render(self, safe: bool) -> str:
        return f"({self.cond.render(safe)} ? {self.then.render(safe)} : {self.other.render(safe)})"


# ----------------------------------------------------------- statement AST
class Stmt:
    def render(self, safe: bool, indent: str) -> list[str]:
        raise NotImplementedError


@dataclass
class Assign(Stmt):
    var: Var
    value: Expr

    def render(self, safe, indent):
        return [f"{indent}{self.var.name} = {self.value.render(safe)};"]


@dataclass
class Compound(Stmt):
    var: Var
    op: str  # + - * / % & | ^ << >>
    value: Expr

    def render(self, safe, indent):
        v, e = self.var.name, self.value.render(safe)
        if self.op in "+-*":
            if safe and common(self.var.t, self.value.t).signed:
                return [f"{indent}{v} = {wrapped(self.var.t, self.op, v, e)};"]
            return [f"{indent}{v} {self.op}= {e};"]
        if self.op in "/%":
            divisor, _ = guarded_divisor(self.var.t, self.value, safe)
            return [f"{indent}{v} {self.op}= {divisor};"]
        if self.op in ("<<", ">>"):
            assert self.op == ">>" or not self.var.t.signed
            return [f"{indent}{v} {self.op}= ({e} & 15);"]
        return [f"{indent}{v} {self.op}= {e};"]


@dataclass
class IncDec(Stmt):
    var: Var
    op: str  # "++" or "--"
    prefix: bool
    target: Var | None  # target = var++ etc.

    def render(self, safe, indent):
        v = self.var.name
        if safe and self.var.t.signed and self.var.t.bits >= 32:
            step = f"{indent}{v} = {wrapped(self.var.t, self.op[0], v, '1')};"
            if self.target is None:
                return [step]
            copy = f"{indent}{self.target.name} = {v};"
            return [step, copy] if self.prefix else [copy, step]
        expr = f"{self.op}{v}" if self.prefix else f"{v}{self.op}"
        if self.target is None:
            return [f"{indent}{expr};"]
        return [f"{indent}{self.target.name} = {expr};"]


@dataclass
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    other: list[Stmt] | None

    def render(self, safe, indent):
        out = [f"{indent}if ({self.cond.render(safe)}) {{"]
        for s in self.then:
            out += s.render(safe, indent + "    ")
        if self.other is not None:
            out.append(f"{indent}}} else {{")
            for s in self.other:
                out += s.render(safe, indent + "    ")
        out.append(f"{indent}}}")
        return out


@dataclass
class Jump(Stmt):  # if (cond) break; / if (cond) continue;
    cond: Expr
    kind: str

    def render(self, safe, indent):
        return [f"{indent}if ({self.cond.render(safe)}) {self.kind};"]


@dataclass
class For(Stmt):
    var: str
    trips: int
    down: bool
    body: list[Stmt]

    def render(self, safe, indent):
        i, n = self.var, self.trips
        head = f"for (int {i} = {n}; {i} > 0; {i}--)" if self.down else f"for (int {i} = 0; {i} < {n}; {i}++)"
        out = [f"{indent}{head} {{"]
        for s in self.body:
            out += s.render(safe, indent + "    ")
        out.append(f"{indent}}}")
        return out


@dataclass
class Switch(Stmt):
    """``switch ((selector) % 5)`` with arms ``(label or None for default,
    statements, ends with break)``; labels are distinct, in -4..4."""

    selector: Expr
    arms: list[tuple[int | None, list[Stmt], bool]]

    def render(self, safe, indent):
        out = [f"{indent}switch (({self.selector.render(safe)}) % 5) {{"]
        for label, stmts, brk in self.arms:
            out.append(f"{indent}case {label}:" if label is not None else f"{indent}default:")
            for st_ in stmts:
                out += st_.render(safe, indent + "    ")
            if brk:
                out.append(f"{indent}    break;")
        out.append(f"{indent}}}")
        return out


@dataclass
class Table:
    """A local array with an initializer: a list (``size`` None: the size
    comes from it, else the rest is zero) or a string literal."""

    name: str
    t: CType
    values: list[str]
    size: int | None
    string: str | None = None

    def render(self) -> str:
        init = self.string if self.string is not None else "{" + ", ".join(self.values) + "}"
        return f"{self.t.name} {self.name}[{'' if self.size is None else self.size}] = {init};"


@dataclass
class Index(Expr):  # tab[(e) & 3]: every table has at least 4 elements
    table: Table
    index: Expr

    @property
    def t(self) -> CType:
        return self.table.t

    def render(self, safe: bool) -> str:
        return f"{self.table.name}[({self.index.render(safe)}) & 3]"


@dataclass
class Program:
    ret: CType
    params: list[Var]
    locals: list[tuple[Var, Expr]]
    body: list[Stmt]
    result: Expr
    inputs: list[int]
    prefer_safe: bool = False  # test the safe rendering even if the plain one is well defined
    tables: list[Table] = field(default_factory=list)

    def function(self, safe: bool) -> str:
        params = ", ".join(f"{p.t.name} {p.name}" for p in self.params)
        out = [f"{self.ret.name} f({params}) {{"]
        out += [f"    {t.render()}" for t in self.tables]
        for var, init in self.locals:
            out.append(f"    {var.t.name} {var.name} = {init.render(safe)};")
        for s in self.body:
            out += s.render(safe, "    ")
        out.append(f"    return {self.result.render(safe)};")
        out.append("}")
        return "\n".join(out) + "\n"

    def case(self, safe: bool) -> "Case":
        return Case(self.function(safe), self.ret, [(p.t, v) for p, v in zip(self.params, self.inputs)])


# ----------------------------------------------------------------- harness
@dataclass
class Case:
    """``source`` defines ``f`` (and whatever it needs); ``args`` are the
    typed inputs of ``f``."""

    source: str
    ret: CType
    args: list[tuple[CType, int]]
    unwind: int = UNWIND


NAMES = "abcdefgh"


def gcc_program(case: Case) -> str:
    lines = ["#include <stdio.h>", case.source, "int main(void) {"]
    for name, (t, v) in zip(NAMES, case.args):
        lines.append(f"    {t.name} {name} = {literal(v, t)};")
    call = ", ".join(NAMES[: len(case.args)])
    lines.append(f"    {case.ret.name} r = f({call});")
    lines.append(f"    {printf_of(case.ret, 'r')}")
    lines.append("    return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def crepair_program(case: Case, expected: int, relation: str) -> str:
    lines = [case.source, "int main(void) {"]
    for name, (t, v) in zip(NAMES, case.args):
        lines.append(f"    {t.name} {name} = {t.nondet}();")
        lines.append(f"    __CPROVER_assume({name} == {literal(v, t)});")
    call = ", ".join(NAMES[: len(case.args)])
    lines.append(f"    {case.ret.name} r = f({call});")
    lines.append(f"    assert(r {relation} {literal(expected, case.ret)});")
    lines.append("    return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


@functools.cache
def have_ubsan() -> bool:
    if GCC is None:
        return False
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        src = Path(d, "t.c")
        src.write_text("int main(void) { return 0; }\n")
        proc = subprocess.run([GCC, "-O0", "-w", *SAN_FLAGS, str(src), "-o", str(Path(d, "t"))], capture_output=True)
        if proc.returncode != 0:
            return False
        return subprocess.run([str(Path(d, "t"))], capture_output=True).returncode == 0


class UndefinedBehaviour(Exception):
    pass


def run_gcc(case: Case, tmp: Path, *, sanitize: bool = False) -> int:
    """Compile the gcc version of ``case`` with ``gcc -O0 -w`` and run it.

    With ``sanitize`` the build is instrumented by UBSan (which does not
    change the meaning of programs without undefined behaviour) and
    ``UndefinedBehaviour`` is raised when the run hits some.
    """
    src = tmp / "gcc_prog.c"
    exe = tmp / "gcc_prog"
    src.write_text(gcc_program(case))
    flags = SAN_FLAGS if sanitize else []
    comp = subprocess.run([GCC, "-O0", "-w", *flags, str(src), "-o", str(exe)], capture_output=True, text=True)
    assert comp.returncode == 0, f"gcc rejected the program:\n{src.read_text()}\n{comp.stderr}"
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=20)
    if sanitize and "runtime error" in proc.stderr:
        raise UndefinedBehaviour(proc.stderr)
    assert proc.returncode == 0, f"program failed:\n{src.read_text()}\n{proc.stderr}"
    value = int(proc.stdout.strip())
    assert case.ret.min <= value <= case.ret.max
    return value


def check_crepair(case: Case, expected: int, tmp: Path) -> None:
    """crepair must prove ``r == expected`` and refute ``r != expected``."""
    good = tmp / "crepair_eq.c"
    good.write_text(crepair_program(case, expected, "=="))
    res = crepair.verify(good, unwind=case.unwind)
    detail = f"\n--- program ---\n{good.read_text()}"
    if res.counterexample is not None:
        detail += f"\n--- counterexample ---\n{res.counterexample}"
    assert res.outcome == crepair.VerifyOutcome.VERIFIED, f"gcc says f(...) == {expected}; crepair disagrees{detail}"
    assert res.bound.too_small is False, f"unwinding bound too small: {res.bound.message()}{detail}"

    bad = tmp / "crepair_ne.c"
    bad.write_text(crepair_program(case, expected, "!="))
    res = crepair.verify(bad, unwind=case.unwind)
    detail = f"\n--- program ---\n{bad.read_text()}"
    assert res.outcome == crepair.VerifyOutcome.VIOLATED, f"assert(r != {expected}) not violated{detail}"
    cex = res.counterexample
    assert cex is not None
    reported = [(i.label, i.value) for i in cex.inputs if i.label.startswith("nondet_")]
    assert reported == [(f"{t.nondet}()", v) for t, v in case.args], f"counterexample inputs {reported}{detail}"


# ------------------------------------------------------ random programs
SPECIAL_CONSTS = [
    # (text, type) -- including literals whose type is not int
    ("0", INT), ("1", INT), ("2", INT), ("3", INT), ("7", INT), ("(-1)", INT), ("(-3)", INT), ("(-8)", INT),
    ("127", INT), ("128", INT), ("255", INT), ("256", INT), ("300", INT), ("32767", INT), ("65535", INT),
    ("2147483647", INT), ("2147483648", LONG), ("4294967295", LONG), ("4294967295U", UINT),
    ("0xFFFFFFFF", UINT), ("0x80000000", UINT), ("0x7FFFFFFF", INT), ("0xFF", INT),
    ("3U", UINT), ("5L", LONG), ("(-5L)", LONG), ("9UL", ULONG), ("0xFFFFFFFFFFFFFFFF", ULONG),
    ("0x8000000000000000", ULONG), ("9223372036854775807", LONG), ("'A'", INT), ("'\\n'", INT),
    ("5LL", LLONG), ("(-7LL)", LLONG), ("0xFFFFFFFFFFFFFFFFULL", ULLONG), ("3ull", ULLONG), ("'\\377'", INT),
]


def input_values(t: CType) -> st.SearchStrategy[int]:
    small = st.integers(max(t.min, -20), min(t.max, 20))
    edges = st.sampled_from(sorted({t.min, t.min + 1, t.max, t.max - 1, max(t.min, -1), 0, 1}))
    return st.one_of(small, small, edges, st.integers(t.min, t.max))


class Gen:
    """Draws a random program with ``draw``."""

    def __init__(self, draw, depth: int = 2, size: int = 4):
        self.draw = draw
        self.depth = depth  # depth of expressions (assignments get one more)
        self.size = size  # most statements in the function body
        self.tables: list[Table] = []

    def pick(self, seq):
        return self.draw(st.sampled_from(seq))

    def leaf(self, readable: list[Var]) -> Expr:
        if readable and self.draw(st.integers(0, 3)) > 0:
            return self.pick(readable)
        if self.draw(st.booleans()):
            return Const(str(self.draw(st.integers(0, 12))), INT)
        text, t = self.pick(SPECIAL_CONSTS)
        return Const(text, t)

    def expr(self, readable: list[Var], depth: int) -> Expr:
        if depth <= 0 or self.draw(st.integers(0, 4)) == 0:
            return self.leaf(readable)
        kinds = ["arith", "arith", "bit", "cmp", "logic", "div", "shl", "shr", "unary", "cast", "cast", "cond"]
        kind = self.pick(kinds + (["index"] if self.tables else []))
        sub = lambda: self.expr(readable, depth - 1)  # noqa: E731
        if kind == "index":
            return Index(self.pick(self.tables), sub())
        if kind == "arith":
            return Arith(self.pick(["+", "-", "*"]), sub(), sub())
        if kind == "bit":
            return Plain(self.pick(["&", "|", "^"]), sub(), sub())
        if kind == "cmp":
            return Plain(self.pick(["<", "<=", ">", ">=", "==", "!="]), sub(), sub())
        if kind == "logic":
            return Plain(self.pick(["&&", "||"]), sub(), sub())
        if kind == "div":
            return Div(self.pick(["/", "%"]), sub(), sub())
        if kind == "shl":
            return Shl(self.pick([UINT, ULONG, UCHAR]), sub(), sub())
        if kind == "shr":
            return Shr(sub(), sub())
        if kind == "unary":
            return Unary(self.pick(["-", "-", "~", "!"]), sub())
        if kind == "cast":
            return Cast(self.pick(CAST_TYPES), sub())
        return Cond(sub(), sub(), sub())

    def simple(self, readable: list[Var], writable: list[Var]) -> Stmt:
        var = self.pick(writable)
        kind = self.pick(["assign", "compound", "compound", "incdec"])
        if kind == "assign":
            return Assign(var, self.expr(readable, self.depth + 1))
        if kind == "compound":
            ops = ["+", "-", "*", "/", "%", "&", "|", "^", ">>"] + ([] if var.t.signed else ["<<"])
            return Compound(var, self.pick(ops), self.expr(readable, self.depth))
        others = [w for w in writable if w.name != var.name]
        target = self.pick(others) if others and self.draw(st.booleans()) else None
        return IncDec(var, self.pick(["++", "--"]), self.draw(st.booleans()), target)

    def block(self, readable, writable, *, loops: int, level: int, size: int) -> list[Stmt]:
        """``size`` statements; ``loops`` enclosing loops, ``level`` enclosing
        if/for statements (ifs and loops nest at most two deep)."""
        out: list[Stmt] = []
        for _ in range(size):
            kinds = ["simple", "simple"]
            if level < 2:
                kinds += ["if", "for", "switch"] if loops < 2 else ["if", "switch"]
            if loops:
                kinds.append("jump")
            kind = self.pick(kinds)
            if kind == "simple":
                out.append(self.simple(readable, writable))
            elif kind == "jump":
                out.append(Jump(self.expr(readable, self.depth), self.pick(["break", "continue"])))
            elif kind == "switch":
                labels = self.draw(st.lists(st.integers(-4, 4), min_size=1, max_size=4, unique=True))
                arms: list = [(v, self.block(readable, writable, loops=loops, level=level + 1,
                                             size=self.draw(st.integers(0, 1))), self.draw(st.booleans()))
                              for v in labels]
                if self.draw(st.booleans()):
                    at = self.draw(st.integers(0, len(arms)))
                    arms.insert(at, (None, [self.simple(readable, writable)], self.draw(st.booleans())))
                out.append(Switch(self.expr(readable, self.depth), arms))
            elif kind == "if":
                inner = dict(loops=loops, level=level + 1)
                then = self.block(readable, writable, **inner, size=self.draw(st.integers(1, 2)))
                other = None
                if self.draw(st.booleans()):
                    other = self.block(readable, writable, **inner, size=self.draw(st.integers(1, 2)))
                out.append(If(self.expr(readable, self.depth), then, other))
            else:
                i = Var("ij"[loops], INT)  # the loop counter is read, never written, by the body
                size = self.draw(st.integers(1, 3))
                body = self.block(readable + [i], writable, loops=loops + 1, level=level + 1, size=size)
                out.append(For(i.name, self.draw(st.integers(0, 3)), self.draw(st.booleans()), body))
        return out

    def table(self, name: str) -> Table:
        t = self.pick([INT, CHAR, UCHAR, LONG, ULLONG, SHORT])
        if t == CHAR and self.draw(st.booleans()):
            text = self.draw(st.text(alphabet="az09 ~", min_size=3, max_size=6))
            escape = self.pick(["", "\\n", "\\0", "\\377", "\\x7f", "\\t"])
            return Table(name, t, [], None, f'"{text}{escape}"')
        n = self.draw(st.integers(1, 4))
        values = [literal(self.draw(input_values(t)), t) for _ in range(n)]
        size = None if n == 4 and self.draw(st.booleans()) else self.draw(st.integers(4, 6))
        return Table(name, t, values, size)

    def program(self) -> Program:
        params = [Var(n, self.pick(TYPES)) for n in "abc"]
        self.tables = [self.table(n) for n in ("tab", "tbl")[: self.draw(st.integers(0, 2))]]
        readable = list(params)
        local_list = []
        for name in "xyz"[: self.draw(st.integers(1, 3))]:
            var = Var(name, self.pick(TYPES))
            local_list.append((var, self.expr(readable, self.depth)))
            readable.append(var)
        writable = list(readable)
        body = self.block(readable, writable, loops=0, level=0, size=self.draw(st.integers(1, self.size)))
        result = self.expr(readable, self.depth)
        ret = self.pick(TYPES)
        inputs = [self.draw(input_values(p.t)) for p in params]
        prefer_safe = self.draw(st.integers(0, 4)) == 0
        return Program(ret, params, local_list, body, result, inputs, prefer_safe, self.tables)


@st.composite
def programs(draw, depth: int = 2, size: int = 4) -> Program:
    return Gen(draw, depth, size).program()


def expected_and_case(prog: Program, tmp: Path) -> tuple[Case, int]:
    """The rendering to test (plain if it is free of undefined behaviour on
    the inputs, else safe) and gcc's value for it."""
    if have_ubsan():
        if not prog.prefer_safe:
            case = prog.case(safe=False)
            try:
                value = run_gcc(case, tmp, sanitize=True)
                event("plain rendering")
                return case, value
            except UndefinedBehaviour:
                event("plain rendering has undefined behaviour: safe rendering")
        else:
            event("safe rendering (drawn)")
        case = prog.case(safe=True)
        try:
            return case, run_gcc(case, tmp, sanitize=True)
        except UndefinedBehaviour as exc:  # the safe rendering must never have any
            pytest.fail(f"generator produced undefined behaviour:\n{case.source}\n{exc}")
    event("safe rendering (no UBSan)")
    case = prog.case(safe=True)
    return case, run_gcc(case, tmp)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(prog=programs())
def test_random_program_agrees_with_gcc(prog: Program, tmp_path: Path) -> None:
    case, expected = expected_and_case(prog, tmp_path)
    check_crepair(case, expected, tmp_path)


# ---------------------------------------------------- targeted semantics
def targeted(source: str, ret: CType, args: list[tuple[CType, int]], expected: int, unwind: int = UNWIND):
    """A hand-written case: ``expected`` is what C (gcc x86-64) must give."""
    return Case(source, ret, args, unwind), expected


TARGETED = {
    # signed division truncates toward zero; % takes the sign of the dividend
    "sdiv_neg": targeted("int f(int a, int b) { return a / b; }", INT, [(INT, -7), (INT, 2)], -3),
    "srem_neg_dividend": targeted("int f(int a, int b) { return a % b; }", INT, [(INT, -7), (INT, 2)], -1),
    "srem_neg_divisor": targeted("int f(int a, int b) { return a % b; }", INT, [(INT, 7), (INT, -2)], 1),
    "sdiv_neg_both": targeted("int f(int a, int b) { return a / b * 10 + a % b; }", INT, [(INT, -7), (INT, -2)], 29),
    "sdiv_literals": targeted("int f(void) { return (-7 / 2) * 100 + (-7 % 2) * 10 + 7 % -2; }", INT, [], -309),
    "ldiv_neg": targeted("long f(long a, long b) { return a / b + a % b; }", LONG, [(LONG, -10000000007), (LONG, 10)], -1000000007),
    "udiv_of_neg_int": targeted("unsigned f(int a) { return (unsigned)a / 2; }", UINT, [(INT, -7)], 2147483644),
    "udiv_by_neg_int": targeted("unsigned f(unsigned a, int b) { return a / b; }", UINT, [(UINT, 10), (INT, -3)], 0),
    # >> of a negative signed value is arithmetic, of unsigned logical
    "ashr_neg_int": targeted("int f(int a) { return a >> 2; }", INT, [(INT, -7)], -2),
    "ashr_neg_one": targeted("int f(int a) { return a >> 31; }", INT, [(INT, -1)], -1),
    "ashr_neg_char": targeted("int f(char a) { return a >> 1; }", INT, [(CHAR, -128)], -64),
    "ashr_neg_long": targeted("long f(long a) { return a >> 40; }", LONG, [(LONG, -(1 << 62))], -(1 << 22)),
    "lshr_unsigned": targeted("unsigned f(int a) { return (unsigned)a >> 1; }", UINT, [(INT, -8)], 2147483644),
    "shl_unsigned_wraps": targeted("unsigned f(unsigned a) { return a << 4; }", UINT, [(UINT, 0xF0000001)], 0x10),
    "shl_uchar_promotes": targeted("int f(unsigned char a) { return a << 8; }", INT, [(UCHAR, 255)], 65280),
    "shl_assign_uchar": targeted("int f(unsigned char a) { a <<= 4; return a; }", INT, [(UCHAR, 255)], 240),
    # unsigned comparisons and int/unsigned mixing
    "unsigned_minus_one_gt_one": targeted("int f(int a) { return (unsigned)a > 1; }", INT, [(INT, -1)], 1),
    "unsigned_literal_cmp": targeted("int f(void) { return (unsigned)-1 > 1; }", INT, [], 1),
    "neg_one_lt_one_u": targeted("int f(void) { return -1 < 1u; }", INT, [], 0),
    "neg_one_lt_one_u_vars": targeted("int f(int a, unsigned b) { return a < b; }", INT, [(INT, -1), (UINT, 1)], 0),
    "neg_one_long_lt_one_u": targeted("int f(long a, unsigned b) { return a < b; }", INT, [(LONG, -1), (UINT, 1)], 1),
    "neg_one_long_lt_one_ul": targeted("int f(long a, unsigned long b) { return a < b; }", INT, [(LONG, -1), (ULONG, 1)], 0),
    "int_plus_unsigned": targeted("long f(int a, unsigned b) { return a + b; }", LONG, [(INT, -3), (UINT, 1)], 4294967294),
    "hex_literal_unsigned": targeted("int f(void) { return (-1 == 0xFFFFFFFF) * 10 + (-1L == 0xFFFFFFFF); }", INT, [], 10),
    "decimal_literal_long": targeted("long f(void) { return 2147483648 - 1; }", LONG, [], 2147483647),
    # conversions
    "char_of_200": targeted("int f(void) { return (char)200; }", INT, [], -56),
    "char_of_200_var": targeted("int f(int a) { char c = (char)a; return c; }", INT, [(INT, 200)], -56),
    "uchar_of_minus_one": targeted("int f(void) { return (unsigned char)-1; }", INT, [], 255),
    "uchar_of_minus_one_var": targeted("int f(int a) { return (unsigned char)a; }", INT, [(INT, -1)], 255),
    "short_of_40000": targeted("int f(int a) { return (short)a; }", INT, [(INT, 40000)], -25536),
    "ulong_of_neg_int": targeted("unsigned long f(int a) { return (unsigned long)a; }", ULONG, [(INT, -1)], (1 << 64) - 1),
    "ulong_of_unsigned_of_neg": targeted("unsigned long f(int a) { return (unsigned long)(unsigned)a; }", ULONG, [(INT, -1)], 4294967295),
    "long_to_int_truncates": targeted("int f(long a) { return (int)a; }", INT, [(LONG, 0x1_8000_0005)], -2147483643),
    "bitnot_uchar_promotes": targeted("int f(unsigned char a) { return ~a; }", INT, [(UCHAR, 0)], -1),
    "bitnot_unsigned": targeted("unsigned f(void) { return ~0u; }", UINT, [], 4294967295),
    "char_sum_promotes": targeted("int f(char a, char b) { return a + b; }", INT, [(CHAR, 100), (CHAR, 100)], 200),
    "not_and_logic_values": targeted("int f(int a, int b) { return !a * 100 + (a || b) * 10 + (a && b); }", INT, [(INT, 0), (INT, 5)], 110),
    # 64-bit multiplication
    "long_mul": targeted("long f(int a, int b) { return (long)a * b; }", LONG, [(INT, 100000), (INT, 300000)], 30000000000),
    "long_mul_neg": targeted("long f(int a, int b) { return (long)a * b; }", LONG, [(INT, -100000), (INT, 99999)], -9999900000),
    "unsigned_mul_wraps": targeted("unsigned f(unsigned a, unsigned b) { return a * b; }", UINT, [(UINT, 100000), (UINT, 100000)], (10**10) % (1 << 32)),
    # short circuit skips a call with a side effect on a global
    "and_skips_call": targeted(
        "int g;\nint bump(void) { g = g + 1; return 1; }\n"
        "int f(int a) { int t = (a > 0) && bump(); return g * 10 + t; }",
        INT, [(INT, -1)], 0,
    ),
    "and_makes_call": targeted(
        "int g;\nint bump(void) { g = g + 1; return 1; }\n"
        "int f(int a) { int t = (a > 0) && bump(); return g * 10 + t; }",
        INT, [(INT, 1)], 11,
    ),
    "or_skips_call": targeted(
        "int g = 5;\nint bump(void) { g = g * 2; return 0; }\n"
        "int f(int a) { int t = (a > 0) || bump(); t = t + ((a < 0) || bump()); return g * 10 + t; }",
        INT, [(INT, 1)], 101,
    ),
    "ternary_skips_call": targeted(
        "int g;\nint bump(void) { g++; return 7; }\n"
        "int f(int a) { int t = a ? 1 : bump(); return g * 10 + t; }",
        INT, [(INT, 3)], 1,
    ),
    # ?: with mixed types: the usual arithmetic conversions apply
    "ternary_int_unsigned": targeted("long f(int a, unsigned b) { return a < 0 ? a : b; }", LONG, [(INT, -1), (UINT, 5)], 4294967295),
    "ternary_int_long": targeted("long f(int a, long b) { return a < 0 ? a : b; }", LONG, [(INT, -1), (LONG, 5)], -1),
    "ternary_int_ulong_literal": targeted("int f(int a) { return (a ? -1 : 1UL) > 0; }", INT, [(INT, 1)], 1),
    "ternary_chars_promote": targeted("int f(char a, unsigned char b) { return (a > 0 ? a : b) + 1; }", INT, [(CHAR, -1), (UCHAR, 255)], 256),
    # x++ vs ++x
    "post_pre_increment": targeted("int f(int a) { int x = a; int y = x++; int z = ++x; return y * 100 + z * 10 + x; }", INT, [(INT, 1)], 133),
    "post_pre_decrement": targeted("int f(int a) { int x = a; int y = x--; int z = --x; return y * 100 + z * 10 + x; }", INT, [(INT, 5)], 533),
    "uchar_increment_wraps": targeted("int f(unsigned char a) { int y = a++; return y * 1000 + a; }", INT, [(UCHAR, 255)], 255000),
    "char_decrement_wraps": targeted("int f(char a) { --a; return a; }", INT, [(CHAR, -128)], 127),
    # compound assignment converts back to the variable's type
    "char_plus_assign_wraps": targeted("int f(char c) { c += 300; return c; }", INT, [(CHAR, 100)], -112),
    "char_plus_assign_small": targeted("int f(char c) { c += 300; return c; }", INT, [(CHAR, 10)], 54),
    "uchar_minus_assign": targeted("int f(unsigned char c) { c -= 1; return c; }", INT, [(UCHAR, 0)], 255),
    "short_mul_assign": targeted("int f(short s) { s *= 3; return s; }", INT, [(SHORT, 20000)], -5536),
    "unsigned_div_assign_neg": targeted("unsigned f(unsigned u) { u /= -1; return u; }", UINT, [(UINT, 7)], 0),
    "int_div_assign_long": targeted("int f(int x, long d) { x /= d; return x; }", INT, [(INT, -9), (LONG, 4)], -2),
    # loops with break and continue
    "loop_break_continue": targeted(
        "int f(int a) { int s = 0;\n"
        "  for (int i = 0; i < 10; i++) { if (i % 2 == 0) continue; if (i > a) break; s += i; }\n"
        "  return s; }",
        INT, [(INT, 5)], 9, unwind=11,
    ),
    "while_break": targeted(
        "int f(int a) { int n = 0; while (1) { n++; if (n >= a) break; } return n; }",
        INT, [(INT, 3)], 3,
    ),
    "do_while_continue": targeted(
        "int f(int a) { int i = 0, s = 0; do { i++; if (i == 2) continue; s += i; } while (i < a); return s; }",
        INT, [(INT, 3)], 4,
    ),
    "nested_loops_break": targeted(
        "int f(int a) { int s = 0;\n"
        "  for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) { if (j > i) break; s = s * 10 + j; }\n"
        "  return s; }",
        INT, [(INT, 0)], 1012, unwind=4,
    ),
    "early_return_in_loop": targeted(
        "int g(int a) { for (int i = 0; i < 3; i++) if (i == a) return i * 10; return -1; }\n"
        "int f(int a) { return g(a) + g(a + 5); }",
        INT, [(INT, 2)], 19,
    ),
    "comma_operator": targeted("int f(int a) { int b = (a++, a * 2); return a * 100 + b; }", INT, [(INT, 4)], 510),
    # conversions at calls and returns
    "argument_converted": targeted("int h(char c) { return c; }\nint f(int a) { return h(a); }", INT, [(INT, 200)], -56),
    "return_converted": targeted("unsigned char h(int a) { return a; }\nint f(int a) { return h(a); }", INT, [(INT, -2)], 254),
    # _Bool: conversion compares with 0; b-- toggles
    "bool_of_256": targeted("int f(int a) { _Bool b = a; return b; }", INT, [(INT, 256)], 1),
    "bool_of_wide_long": targeted("int f(long a) { _Bool b = a; return b; }", INT, [(LONG, 1 << 40)], 1),
    "bool_decrement_toggles": targeted("int f(int a) { _Bool b = a; b--; int r = b; b--; return r * 10 + b; }", INT, [(INT, 1)], 1),
    # arrays (global ones start zeroed); element stores convert to the element type
    "global_array": targeted(
        "int g[3];\nint f(int a) { g[a] = 7; return g[0] * 100 + g[1] * 10 + g[2]; }", INT, [(INT, 1)], 70
    ),
    "char_array_wraps": targeted(
        "int f(int a) { char arr[2]; arr[0] = a; arr[1] = 5; arr[1] += 200; return arr[0] * 1000 + arr[1]; }",
        INT, [(INT, 300)], 43949,
    ),
    "array_loop_incdec": targeted(
        "int f(int a) { int arr[4]; for (int i = 0; i < 4; i++) arr[i] = i * a; arr[2]++; --arr[3];\n"
        "  return arr[2] + arr[3] * 100; }",
        INT, [(INT, 3)], 807, unwind=5,
    ),
    # character constants are ints holding the value of a (signed) char
    "char_constant_ascii": targeted("int f(void) { return 'A' * 1000 + '\\n'; }", INT, [], 65010),
    "char_constant_octal_high": targeted("int f(void) { return '\\377'; }", INT, [], -1),
    "char_constant_hex": targeted("int f(void) { return '\\x41' + '\\xff'; }", INT, [], 64),
    # switch: fall-through, default in the middle, no default, in loops, promoted selector, converted labels
    "switch_fall_through": targeted(
        "int f(int a) { int r = 1;\n"
        "  switch (a) { case 1: r += 10; case 2: r *= 3; break; default: r = -r; case 4: r += 1000; }\n"
        "  return r; }",
        INT, [(INT, 1)], 33,
    ),
    "switch_default_falls_into_case": targeted(
        "int f(int a) { int r = 1;\n"
        "  switch (a) { case 1: r += 10; case 2: r *= 3; break; default: r = -r; case 4: r += 1000; }\n"
        "  return r; }",
        INT, [(INT, 9)], 999,
    ),
    "switch_no_match_no_default": targeted(
        "int f(int a) { int r = 5; switch (a) { case 1: r = 6; break; case -1: r = 7; } return r; }",
        INT, [(INT, 2)], 5,
    ),
    "switch_negative_label": targeted(
        "int f(int a) { int r = 5; switch (a) { case 1: r = 6; break; case -1: r = 7; } return r; }",
        INT, [(INT, -1)], 7,
    ),
    "switch_char_selector_char_labels": targeted(
        "int f(char c) { switch (c) { case 'a': return 1; case '\\377': return 2; case 255: return 3; } return 0; }",
        INT, [(CHAR, -1)], 2,
    ),
    "switch_unsigned_label_converted": targeted(
        "int f(unsigned u) { switch (u) { case -1: return 1; case 4294967297L: return 2; } return 0; }",
        INT, [(UINT, 4294967295)], 1,
    ),
    "switch_label_conversion_wraps": targeted(
        "int f(unsigned u) { switch (u) { case -1: return 1; case 4294967297L: return 2; } return 0; }",
        INT, [(UINT, 1)], 2,
    ),
    "switch_long_selector": targeted(
        "int f(long v) { switch (v) { case 5000000000L: return 1; case 705032704: return 2; } return 0; }",
        INT, [(LONG, 5000000000)], 1,
    ),
    "switch_in_loop_continue_break": targeted(
        "int f(int n) { int s = 0;\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    switch (i % 4) { case 1: continue; case 2: s += 100; break; case 3: if (s > 0) break; s = -1; default: s += 1; }\n"
        "    s += 1000; }\n"
        "  return s; }",
        INT, [(INT, 6)], 4102, unwind=7,
    ),
    "switch_nested": targeted(
        "int f(int a, int b) { int r = 0;\n"
        "  switch (a) { case 0: switch (b) { case 0: r = 1; break; default: r = 2; } r += 10; break; case 1: r = 3; }\n"
        "  return r; }",
        INT, [(INT, 0), (INT, 5)], 12,
    ),
    "switch_selector_side_effect": targeted(
        "int f(int a) { switch (a++) { case 3: a *= 10; } return a; }", INT, [(INT, 3)], 40,
    ),
    "switch_break_in_while": targeted(
        "int f(int a) { int n = 0; while (n < 10) { n++; switch (n) { case 3: break; default: continue; } if (n >= a) break; } return n; }",
        INT, [(INT, 2)], 3, unwind=11,
    ),
    # initializers: the rest is zero; sizes from the list; strings with their NUL
    "init_list_rest_zero": targeted(
        "int f(int i) { int a[6] = {7, -2, 3}; return a[i] * 10 + a[i + 3]; }", INT, [(INT, 1)], -20,
    ),
    "init_zero": targeted("long f(int i) { long a[5] = {0}; a[1] = 4; return a[i] + a[4]; }", LONG, [(INT, 0)], 0),
    "init_unsized": targeted("int f(int i) { short a[] = {40000, -1, 2}; return a[i] + a[2]; }", INT, [(INT, 0)], -25534),
    "init_char_string": targeted(
        'int f(int i) { char s[] = "a\\tb\\377"; return s[i] * 1000 + s[4]; }', INT, [(INT, 3)], -1000,
    ),
    "init_char_string_padded": targeted(
        'int f(int i) { unsigned char s[8] = "\\x80z"; return s[i] + s[7] + s[1]; }', INT, [(INT, 0)], 250,
    ),
    "init_char_string_no_nul": targeted(
        'int f(int i) { char s[3] = "xyz"; char t[4] = "ab"; return s[i] + t[3]; }', INT, [(INT, 2)], 122,
    ),
    "init_elements_converted": targeted(
        "int f(int i) { unsigned char a[3] = {300, -1, 'A'}; return a[i]; }", INT, [(INT, 1)], 255,
    ),
    "init_expressions": targeted(
        "int f(int x) { int a[3] = {x + 1, x * 2}; return a[0] * 100 + a[1] * 10 + a[2]; }", INT, [(INT, 3)], 460,
    ),
    "init_global_arrays": targeted(
        'int g[4] = {1, 2};\nchar msg[] = "hi";\nlong big[2] = {5000000000L};\n'
        "long f(int i) { g[i] += 5; return g[0] + g[1] * 10 + g[3] + msg[1] + msg[2] + big[0] + big[1]; }",
        LONG, [(INT, 1)], 5000000176,
    ),
    "init_scalar_braces": targeted("int f(int a) { int x = {a + 1}; return x; }", INT, [(INT, 4)], 5),
    # long long and unsigned long long (64 bits, LL/ULL literals)
    "llong_arith": targeted(
        "long long f(long long a, int b) { return a * b + 3000000000LL; }", LLONG, [(LLONG, -4000000000), (INT, 3)], -9000000000,
    ),
    "ullong_wraps": targeted(
        "unsigned long long f(unsigned long long a) { return a + 2ULL; }", ULLONG, [(ULLONG, (1 << 64) - 1)], 1,
    ),
    "llong_vs_unsigned": targeted("int f(long long a, unsigned b) { return a < b; }", INT, [(LLONG, -1), (UINT, 1)], 1),
    "llong_vs_ulong": targeted("int f(long long a, unsigned long b) { return a < b; }", INT, [(LLONG, -1), (ULONG, 1)], 0),
    "llong_shift": targeted("long long f(int a) { return (long long)a << 40; }", LLONG, [(INT, 3)], 3 << 40),
    "ullong_to_int": targeted("int f(unsigned long long a) { return (int)a; }", INT, [(ULLONG, 0xFFFFFFFF80000001)], -2147483647),
    "llong_literal_types": targeted("int f(void) { return (-1LL < 0) * 10 + (-1ULL > 0); }", INT, [], 11),
    "int64_typedefs": targeted(
        "#include <stdint.h>\nint64_t f(int32_t a, uint8_t b) { uint64_t u = (uint64_t)a; return (int64_t)(u >> 1) - b; }",
        LONG, [(INT, -2), (UCHAR, 200)], 9223372036854775607,
    ),
    # the library models: glibc's values in the C locale
    "ctype_classes": targeted(
        "#include <ctype.h>\nint f(int c) { return isdigit(c) + isalpha(c) + isalnum(c) + isspace(c) + isupper(c) + islower(c)"
        " + isxdigit(c) + ispunct(c) + isprint(c) + isgraph(c) + iscntrl(c) + isblank(c); }",
        INT, [(INT, ord("F"))], 0x100 + 0x400 + 0x8 + 0x1000 + 0x4000 + 0x8000,
    ),
    "ctype_digit": targeted(
        "#include <ctype.h>\nint f(int c) { return isdigit(c) + isalnum(c) + isxdigit(c) + isgraph(c); }",
        INT, [(INT, ord("7"))], 0x800 + 0x8 + 0x1000 + 0x8000,
    ),
    "ctype_space_cntrl": targeted(
        "#include <ctype.h>\nint f(int c) { return isspace(c) + iscntrl(c) + isblank(c) + isprint(c); }",
        INT, [(INT, 9)], 0x2000 + 0x2 + 0x1,
    ),
    "ctype_negative_char": targeted(
        "#include <ctype.h>\nint f(char c) { return isalpha(c) * 1000 + toupper(c) + tolower(c); }", INT, [(CHAR, -56)], 400,
    ),
    "ctype_eof": targeted("#include <ctype.h>\nint f(int c) { return isdigit(c) + toupper(c) * 10 + tolower(c); }", INT, [(INT, -1)], -11),
    "ctype_case_maps": targeted(
        "#include <ctype.h>\nint f(int a, int b) { return toupper(a) * 1000 + tolower(b); }",
        INT, [(INT, ord("q")), (INT, ord("Z"))], 81122,
    ),
    "popcount_models": targeted(
        "int f(unsigned a, long b) { return __builtin_popcount(a) * 100 + __builtin_popcountl(b) + __builtin_popcountll(b); }",
        INT, [(UINT, 0xF0F0F0F1), (LONG, -2)], 1826,
    ),
    # <string.h> over arrays (crepair.encode.strings): glibc's results on x86-64
    "strcmp_glibc_difference": targeted(
        '#include <string.h>\nint f(int a) { char s[4] = "ab"; char t[4] = "ab"; t[1] = a; return strcmp(s, t); }',
        INT, [(INT, 122)], -24,
    ),
    "strncmp_count": targeted(
        '#include <string.h>\nint f(int a, int n) { char s[6] = "abcd"; char t[6] = "abXd"; t[2] = a;'
        ' return strncmp(s, t, n) * 100 + strncmp(t, s, 2); }',
        INT, [(INT, ord("Z")), (INT, 3)], 900,
    ),
    "strcat_strcpy_strlen": targeted(
        '#include <string.h>\nint f(int a) { char s[10] = "ab"; char t[4] = "xy"; t[1] = a; strcat(s, t);'
        ' strcpy(t, "q"); return strlen(s) * 1000 + s[3] * 10 + strlen(t); }',
        INT, [(INT, ord("z"))], 5221,
    ),
    "strncpy_pads_with_nul": targeted(
        '#include <string.h>\nint f(int a) { char d[6] = "zzzzz"; char s[4] = "ab"; s[1] = a; strncpy(d, s, 4);'
        ' return d[1] * 1000 + d[2] * 100 + d[3] * 10 + d[4]; }',
        INT, [(INT, ord("c"))], 99122,
    ),
    "memset_sizeof_bytes": targeted(
        "#include <string.h>\nint f(int a) { int v[4]; memset(v, a, sizeof(v)); return v[3]; }",
        INT, [(INT, 0x181)], -2122219135,
    ),
    "memcpy_whole_array": targeted(
        "#include <string.h>\nint f(int a) { int x[3] = {1, 2, 3}; int y[3]; memcpy(y, x, sizeof(x)); y[0] = a;"
        " return y[0] * 100 + y[2] + x[0]; }",
        INT, [(INT, 5)], 504,
    ),
    "abs_models": targeted(
        "#include <stdlib.h>\nlong f(int a, long b) { return abs(a) + labs(b) + llabs(-3LL); }",
        LONG, [(INT, -7), (LONG, -5000000000)], 5000000010,
    ),
}

# pointers (object, offset) and structs by value (crepair.encode.memory, crepair.encode.structs)
_STRUCT_P = "struct P { short x; unsigned char y; long z; };\n"
_STRUCT_S = "struct S { int n; int v[3]; };\nvoid push(struct S *s, int x) { s->v[s->n] = x; s->n++; }\n"
TARGETED.update({
    "ptr_swap": targeted(
        "void sw(int *p, int *q) { int t = *p; *p = *q; *q = t; }\nint f(int a, int b) { sw(&a, &b); return a * 100 + b; }",
        INT, [(INT, 7), (INT, 3)], 307,
    ),
    "ptr_walk_array": targeted(
        "int f(int a, int b) { int x[4] = {a, b, a + b, a - b}; int s = 0;\n"
        "  for (int *p = x; p < x + 4; p++) s = s * 10 + *p; return s; }",
        INT, [(INT, 1), (INT, 2)], 1229, unwind=5,
    ),
    "ptr_difference_and_order": targeted(
        "long f(int a) { int x[5]; int *p = &x[a]; int *q = x + 1; return (p - q) * 100 + (p > q) * 10 + (p == q); }",
        LONG, [(INT, 3)], 210,
    ),
    "ptr_char_elements": targeted(
        "int f(char a) { char s[3] = {a, 2, 3}; char *p = s; p[1] += a; return *p + p[1] * 1000; }",
        INT, [(CHAR, -5)], -3005,
    ),
    "ptr_null_or_local": targeted(
        "int f(int a) { int x = a; int *p = 0; if (a > 0) p = &x; return (p == 0) * 10 + (p != 0) + (p ? *p : 0) * 100; }",
        INT, [(INT, 5)], 501,
    ),
    "ptr_null_taken": targeted(
        "int f(int a) { int x = a; int *p = 0; if (a > 0) p = &x; return (p == 0) * 10 + (p != 0) + (p ? *p : 0) * 100; }",
        INT, [(INT, -2)], 10,
    ),
    "struct_by_value_copy": targeted(
        _STRUCT_P + "struct P mk(int a) { struct P p; p.x = a; p.y = a; p.z = (long)a * a; return p; }\n"
        "long f(int a) { struct P p = mk(a), q; q = p; q.x++; return p.x + q.x * 10 + q.y * 100 + q.z; }",
        LONG, [(INT, 70000)], 4900060314,
    ),
    "struct_through_pointer": targeted(
        _STRUCT_S + "int f(int a, int b) { struct S s; s.n = 0; push(&s, a); push(&s, b);\n"
        "  return s.v[0] * 10 + s.v[1] + s.n * 1000; }",
        INT, [(INT, 4), (INT, 5)], 2045,
    ),
    "struct_initializer_list": targeted(
        "struct Q { char c; int v[2]; unsigned u; };\nstruct Q gq = {-1, 2};\n"
        "long f(int a) { struct Q q = {a, a * 2, 3}; return q.c * 100000L + q.v[0] * 1000 + q.v[1] * 10 + q.u + gq.c + gq.v[0] + gq.u; }",
        LONG, [(INT, 300)], 44 * 100000 + 600 * 1000 + 30 + 0 - 1 + 2 + 0,
    ),
    "union_low_order_bytes": targeted(
        "union U { unsigned i; signed char b[4]; short s; };\n"
        "int f(unsigned a) { union U u; u.i = a; u.b[2] = -3; return u.b[0] * 100000 + u.s + (int)(u.i >> 16); }",
        INT, [(UINT, 0x12345678)], 0x78 * 100000 + 0x5678 + 0x12FD,
    ),
})

# the bounded heap and sizeof (crepair.encode.allocation)
_LIST = ("#include <stdlib.h>\nstruct N { int v; struct N *next; };\n"
         "struct N *push(struct N *h, int v) { struct N *x = malloc(sizeof *x); x->v = v; x->next = h; return x; }\n")
TARGETED.update({
    "heap_list_build_walk_free": targeted(
        _LIST + "int f(int a, int b) { struct N *h = NULL; for (int i = 0; i < a; i++) h = push(h, i * b);\n"
        "  int s = 0; while (h != NULL) { struct N *n = h->next; s = s * 10 + h->v; free(h); h = n; } return s; }",
        INT, [(INT, 3), (INT, 2)], 420,
    ),
    "heap_calloc_zeroed_then_filled": targeted(
        "#include <stdlib.h>\nint f(int a) { int *p = calloc(a, sizeof(int)); int s = 0;\n"
        "  for (int i = 1; i < a; i += 2) p[i] = i; for (int i = 0; i < a; i++) s = s * 10 + p[i]; free(p); return s; }",
        INT, [(INT, 4)], 103,
    ),
    "heap_struct_elements_cast": targeted(
        "#include <stdlib.h>\n" + _STRUCT_P + "long f(int a) { struct P *p = (struct P *)malloc(a * sizeof(struct P));\n"
        "  for (int i = 0; i < a; i++) { p[i].x = i; p[i].y = 200 + i; p[i].z = -i; }\n"
        "  long r = p[a - 1].x * 1000 + p[1].y + p[a - 1].z; free(p); return r; }",
        LONG, [(INT, 3)], 2199,
    ),
    "heap_returned_array": targeted(
        "#include <stdlib.h>\nint *mk(int n) { int *p = malloc(n * sizeof *p); for (int i = 0; i < n; i++) p[i] = n - i; return p; }\n"
        "int f(int a) { int *q = mk(a); int r = q[0] * 10 + q[a - 1]; free(q); return r; }",
        INT, [(INT, 5)], 51, unwind=6,
    ),
    "sizeof_gcc_layouts": targeted(
        "struct A { char c; int i; };\nstruct B { char c; long l; char d; };\nstruct C { char x[3]; short s; };\n"
        "union U { char c; long l; int i; };\nstruct N { int v; struct N *next; };\n"
        "long f(int a) { int arr[7]; struct B b; return sizeof(struct A) + 100 * sizeof b + 10000 * sizeof(struct C)\n"
        "  + 1000000 * sizeof(union U) + 100000000L * sizeof(struct N) + a * sizeof arr + sizeof(b.l) * sizeof(char *); }",
        LONG, [(INT, 1000)], 1608090472,
    ),
})


# atoi/atol (glibc's strtol: white space, sign, digits, saturation; crepair.encode.strings)
TARGETED.update({
    "atoi_space_sign_stop": targeted(
        "#include <stdlib.h>\nint f(int a) { char s[8] = \" \\t-42x7\"; char t[4] = \"+7\"; char u[3] = \"-\";\n"
        "  return atoi(s) * 1000 + atoi(t) * a + atoi(u); }",
        INT, [(INT, 10)], -41930,
    ),
    "atoi_truncates_beyond_int": targeted(
        "#include <stdlib.h>\nint f(int a) { char s[12] = \"2147483648\"; return atoi(s) + a; }",
        INT, [(INT, 0)], -2147483648,
    ),
    "atol_saturates": targeted(
        "#include <stdlib.h>\nlong f(int a) { char s[24] = \"99999999999999999999\"; char t[24] = \"-9223372036854775809\";\n"
        "  return a ? atol(s) : atol(t); }",
        LONG, [(INT, 1)], 9223372036854775807, unwind=22,
    ),
    "atol_saturates_negative": targeted(
        "#include <stdlib.h>\nlong f(int a) { char s[24] = \"99999999999999999999\"; char t[24] = \"-9223372036854775809\";\n"
        "  return a ? atol(s) : atol(t); }",
        LONG, [(INT, 0)], -9223372036854775808, unwind=22,
    ),
})


# multi-dimensional arrays: flat, row-major (crepair.encode.dimensions)
TARGETED.update({
    "md_row_major_rows_and_sizeof": targeted(
        "long f(int a) { int m[3][4]; for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) m[i][j] = i * 10 + j;\n"
        "  int *r = m[a]; m[a][0] += 5; return m[2][3] * 10000 + r[1] * 100 + m[a][0] + sizeof m + sizeof m[0]; }",
        LONG, [(INT, 1)], 231179,
    ),
    "md_initializers_braces_elision_strings": targeted(
        "int f(int a) { int m[2][3] = {{1, 2}, {4, 5, 6}}; int k[][2] = {1, 2, 3, 4, 5}; char s[2][4] = {\"ab\", \"xyz\"};\n"
        "  return m[0][2] * 1000000 + m[a][1] * 100000 + k[2][0] * 10000 + k[2][1] * 1000 + (int)(sizeof k) + s[1][2] + s[0][2]; }",
        INT, [(INT, 1)], 550146,
    ),
    "md_parameter_and_three_dimensions": targeted(
        "int sum(int a[2][3]) { int s = 0; for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) s = s * 2 + a[i][j]; return s; }\n"
        "int f(int a) { int t[2][2][2] = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}; int m[2][3] = {{a, 0, 1}, {1, 1, 0}};\n"
        "  return sum(m) * 100 + t[1][0][1] * 10 + t[0][a][1]; }",
        INT, [(INT, 1)], 4664,
    ),
})


# pointers to struct members and nested struct initializers (crepair.encode.fields)
_STRUCT_M = "struct M { int x; char c; int v[3]; long z; };\nvoid inc(int *p) { (*p)++; }\n"
TARGETED.update({
    "member_pointers": targeted(
        _STRUCT_M + "long f(int a) { struct M s = {a, 'a', {10, 20, 30}, 5}; struct M arr[2];\n"
        "  arr[1].x = 7; arr[1].v[2] = 9; inc(&s.x); inc(&s.v[1]); inc(&arr[1].x);\n"
        "  int *q = &s.v[0]; q[2] += 100; struct M *p = &arr[1]; int *r = &p->v[2]; *r = *r * 2;\n"
        "  long *lz = &s.z; *lz += 50; char *pc = &s.c; *pc += 1;\n"
        "  return s.x * 1000000L + s.v[1] * 10000L + s.v[2] * 10 + arr[1].x + arr[1].v[2] * 100 + s.z + s.c; }",
        LONG, [(INT, 4)], 5213261,
    ),
    "nested_struct_initializer": targeted(
        _STRUCT_M + "struct Q { int a; struct M m; int w[2]; };\n"
        "int f(int a) { struct Q q = {1, {a, 'b', {3, 4}, 6}, {7}}; struct Q r = {2, {0}, 8, 9};\n"
        "  return q.a + q.m.x * 10 + q.m.v[1] * 100 + q.m.v[2] * 1000 + (int)q.m.z * 10000 + q.w[0] * 100000\n"
        "    + q.w[1] + r.w[0] * 1000000 + r.w[1] * 10000000 + q.m.c; }",
        INT, [(INT, 5)], 98760549,
    ),
})

TARGETED.update({
    # strchr: the first match, the NUL for c == 0, NULL past the end; (char) c compared
    "strchr_positions": targeted(
        '#include <string.h>\nint f(int a) { char s[8] = "abcab"; s[1] = a; char *p = strchr(s, \'b\');\n'
        '  char *z = strchr(s, 0); char *n = strchr(s, \'x\'); char *w = strchr(s, a + 256);\n'
        '  return (int)(p - s) * 1000 + (int)(z - s) * 100 + (n == 0) * 10 + (w == s + 1); }',
        INT, [(INT, ord("c"))], 4511,
    ),
    # the string argument is evaluated once (its side effect too)
    "strchr_argument_side_effect": targeted(
        '#include <string.h>\nint f(int a) { char s[8] = "abcab"; int i = a; char *p = strchr(s + i++, \'a\');\n'
        '  return (int)(p - s) * 10 + i; }',
        INT, [(INT, 1)], 32,
    ),
})


#: Cases on which crepair disagrees with gcc (bugs in crepair, to be fixed in src/).
KNOWN_BUGS: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[n])) if n in KNOWN_BUGS else n
        for n in sorted(TARGETED)
    ],
)
def test_targeted_semantics(name: str, tmp_path: Path) -> None:
    case, c_value = TARGETED[name]
    expected = run_gcc(case, tmp_path)
    assert expected == c_value, f"gcc gives {expected}, the test expects {c_value} (test bug?)"
    check_crepair(case, expected, tmp_path)


# ------------------------------------------- checks of undefined behaviour
# gcc's side: a division by zero or ``MIN / -1`` traps (SIGFPE, x86-64
# ``idiv``/``div``); UBSan's shift-exponent and bounds checks report a shift
# by a negative amount or by the promoted width or more, and an array index
# out of bounds.  crepair's side: the same run is a violation of that kind,
# and a run without undefined behaviour computes gcc's value (check_crepair).
UB_SAN_FLAGS = ["-fsanitize=shift-exponent,bounds", "-fno-sanitize-recover=all"]
UB_KINDS = {"/": {"trap"}, "%": {"trap"}, "<<": {"shift"}, ">>": {"shift"}, "[]": {"bounds"}}


def run_gcc_ub(case: Case, tmp: Path) -> "int | str":
    """gcc's value of ``case``, or "trap" (SIGFPE), "shift" or "bounds" (UBSan)."""
    src, exe = tmp / "gcc_ub.c", tmp / "gcc_ub"
    src.write_text(gcc_program(case))
    comp = subprocess.run([GCC, "-O0", "-w", *UB_SAN_FLAGS, str(src), "-o", str(exe)], capture_output=True, text=True)
    assert comp.returncode == 0, comp.stderr
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=20)
    if proc.returncode == -signal.SIGFPE:
        return "trap"
    if "runtime error: shift exponent" in proc.stderr:
        return "shift"
    if "runtime error: index" in proc.stderr:
        return "bounds"
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.strip())


def check_crepair_ub(case: Case, kind: str, tmp: Path) -> None:
    """crepair must report the undefined behaviour gcc met, of that kind."""
    path = tmp / "crepair_ub.c"
    path.write_text(crepair_program(case, 0, "=="))
    res = crepair.verify(path, unwind=case.unwind)
    cex = res.counterexample
    assert cex is not None, f"gcc: {kind}; crepair: {res.outcome.value}\n{path.read_text()}"
    expected = {"trap": {crepair.Violation.DIVISION_BY_ZERO, crepair.Violation.DIVISION_OVERFLOW},
                "shift": {crepair.Violation.SHIFT}, "bounds": {crepair.Violation.ARRAY_BOUNDS}}[kind]
    assert cex.violated in expected, f"gcc: {kind}; crepair: {cex.violated.value} {cex.detail}\n{path.read_text()}"


def ub_values(t: CType) -> st.SearchStrategy[int]:
    special = [v for v in (0, -1, 1, 3, 4, 31, 32, 63, 64, -2, t.min, t.max) if t.min <= v <= t.max]
    return st.one_of(st.sampled_from(sorted(set(special))), input_values(t))


@st.composite
def ub_cases(draw) -> tuple[Case, str]:
    """``a OP b`` for a division, remainder or shift, or ``g[b] = a`` on
    an ``int g[4]``, with operand types and values near the edges."""
    ta, tb = draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))
    op = draw(st.sampled_from(sorted(UB_KINDS)))
    if op == "[]":
        source = f"int g[4];\nint f({ta.name} a, {tb.name} b) {{ g[b] = a; return g[0] + g[1] + g[2] + g[3]; }}"
        ret = INT
    else:
        ret = promote(ta) if op in ("<<", ">>") else common(promote(ta), promote(tb))
        source = f"{ret.name} f({ta.name} a, {tb.name} b) {{ return a {op} b; }}"
    near = st.integers(max(tb.min, -1), 4) if op == "[]" else st.integers(max(tb.min, -1), ta.bits)
    return Case(source, ret, [(ta, draw(ub_values(ta))), (tb, draw(st.one_of(near, ub_values(tb))))]), op


@pytest.mark.skipif(not have_ubsan(), reason="gcc's UndefinedBehaviorSanitizer is not available")
@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(drawn=ub_cases())
def test_checks_of_undefined_behaviour_agree_with_gcc(drawn, tmp_path: Path) -> None:
    case, op = drawn
    outcome = run_gcc_ub(case, tmp_path)
    if isinstance(outcome, int):
        event(f"{op}: defined")
        check_crepair(case, outcome, tmp_path)
    else:
        event(f"{op}: {outcome}")
        assert outcome in UB_KINDS[op]
        check_crepair_ub(case, outcome, tmp_path)


UB_TARGETED = {
    "int_min_div_minus_one": ("int f(int a, int b) { return a / b; }", INT, [(INT, INT.min), (INT, -1)], "trap"),
    "long_min_rem_minus_one": ("long f(long a, long b) { return a % b; }", LONG, [(LONG, LONG.min), (LONG, -1)], "trap"),
    "unsigned_div_assign_zero": ("unsigned f(unsigned a, unsigned b) { a /= b; return a; }", UINT,
                                 [(UINT, 7), (UINT, 0)], "trap"),
    "char_rem_assign_zero": ("int f(char a, char b) { a %= b; return a; }", INT, [(CHAR, 7), (CHAR, 0)], "trap"),
    "uchar_shift_by_32": ("int f(unsigned char a, int b) { return a << b; }", INT, [(UCHAR, 1), (INT, 32)], "shift"),
    "long_shift_by_minus_one": ("long f(long a, int b) { return a >> b; }", LONG, [(LONG, 8), (INT, -1)], "shift"),
    "shift_assign_by_64": ("unsigned long f(unsigned long a, int b) { a <<= b; return a; }", ULONG,
                           [(ULONG, 1), (INT, 64)], "shift"),
    "local_array_write": ("int f(int a, int b) { int l[3]; l[b] = a; return a; }", INT, [(INT, 1), (INT, 3)], "bounds"),
    "local_array_read_negative": ("int f(int a, int b) { int l[3]; l[0] = a; return l[b]; }", INT,
                                  [(INT, 1), (INT, -1)], "bounds"),
    "vla_write": ("int f(int a, int b) { int v[a]; v[b] = 1; return a; }", INT, [(INT, 2), (INT, 2)], "bounds"),
    "inner_dimension_out_of_bounds": ("int g[3][4];\nint f(int a, int b) { g[a][b] = 1; return a; }", INT,
                                      [(INT, 1), (INT, 4)], "bounds"),
    "global_array_in_loop": ("int g[3];\nint f(int a, int b) { for (int i = 0; i <= a; i++) g[i] = b; return b; }", INT,
                             [(INT, 3), (INT, 5)], "bounds"),
}


@pytest.mark.skipif(not have_ubsan(), reason="gcc's UndefinedBehaviorSanitizer is not available")
@pytest.mark.parametrize("name", sorted(UB_TARGETED))
def test_targeted_undefined_behaviour(name: str, tmp_path: Path) -> None:
    source, ret, args, kind = UB_TARGETED[name]
    case = Case(source, ret, args)
    assert run_gcc_ub(case, tmp_path) == kind, "gcc does not meet the undefined behaviour (test bug?)"
    check_crepair_ub(case, kind, tmp_path)
