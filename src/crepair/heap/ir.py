"""The heap IR: a function as guarded statements over pointers and integers.

Wolverine2 (Verma & Roy, "Debug-Localize-Repair: A Symbiotic Construction
for Heap Manipulations", §3) keeps a program as a sequence of guarded
statements ⟨π, ω⟩ with a location map Λ from source lines to IR
instructions.  Here each *location* (1-based ``index``) is one source
statement or one branch/loop condition; the structure (blocks, ``if`` and
``while``) is kept so that an execution can be encoded along the loop
iterations a trace took (:mod:`crepair.heap.encode`).

A statement is ``lhs = rhs`` where each side is an :class:`Operand`
(variable, field ``v->f``, ``NULL``, integer constant; the right side may be
``a + b`` / ``a - b`` of integers), an allocation ``x = malloc(..)``,
``free(x)`` or ``return [e]``.  A guard is a tree of comparisons
(:class:`Atom`) under ``&&``, ``||`` and ``!``.  Types (Υ of the paper) are
``"int"`` or ``"ptr:<struct tag>"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crepair.frontend.spans import Span

INT = "int"


def ptr(tag: str) -> str:
    """The IR type of a pointer to ``struct tag``."""
    return f"ptr:{tag}"


@dataclass(frozen=True, slots=True)
class Operand:
    """A value read or written: ``kind`` is "var" (``name``), "field"
    (``name->field``), "null" or "const" (``value``).  ``type`` is the IR
    type of the value; ``base_type`` the pointer type of ``name`` for a
    field.  ``name_span``/``field_span``: the tokens a repair replaces."""

    kind: str
    type: str
    name: str = ""
    field: str = ""
    value: int = 0
    base_type: str = ""
    name_span: Span | None = None
    field_span: Span | None = None

    def text(self) -> str:
        if self.kind == "var":
            return self.name
        if self.kind == "field":
            return f"{self.name}->{self.field}"
        return "NULL" if self.kind == "null" else str(self.value)


@dataclass(frozen=True, slots=True)
class Stmt:
    """``kind``: "assign" (``lhs = rhs[0]`` or ``lhs = rhs[0] op rhs[1]``),
    "alloc" (``lhs = malloc``), "free" (``free(rhs[0])``), "return"
    (``return rhs[0]`` or bare)."""

    kind: str
    lhs: Operand | None = None
    rhs: tuple[Operand, ...] = ()
    op: str = ""

    def text(self) -> str:
        if self.kind == "assign":
            right = f" {self.op} ".join(o.text() for o in self.rhs)
            return f"{self.lhs.text()} = {right};"
        if self.kind == "alloc":
            return f"{self.lhs.text()} = malloc(..);"
        if self.kind == "free":
            return f"free({self.rhs[0].text()});"
        return f"return {self.rhs[0].text()};" if self.rhs else "return;"


@dataclass(frozen=True, slots=True)
class Atom:
    """A comparison ``left op right`` (``op_span``: the operator token;
    a bare pointer or integer ``e`` is read as ``e != 0``, ``op_span`` None)."""

    op: str
    left: Operand
    right: Operand
    op_span: Span | None = None

    def text(self) -> str:
        return f"{self.left.text()} {self.op} {self.right.text()}"


@dataclass(frozen=True, slots=True)
class BoolOp:
    """``op`` is "&&", "||" or "!" (then ``right`` is None)."""

    op: str
    left: "Cond"
    right: "Cond | None" = None

    def text(self) -> str:
        if self.op == "!":
            return f"!({self.left.text()})"
        return f"({self.left.text()}) {self.op} ({self.right.text()})"


Cond = Atom | BoolOp


def atoms(cond: Cond) -> list[Atom]:
    """The comparisons of ``cond``, left to right."""
    if isinstance(cond, Atom):
        return [cond]
    return atoms(cond.left) + (atoms(cond.right) if cond.right is not None else [])


@dataclass(frozen=True, slots=True)
class Instr:
    """One location: a statement (``stmt``) or a condition (``cond``) of an
    ``if`` or a loop.  ``index`` is 1-based, in source order; ``span`` the
    statement (with its ``;``) or the condition; ``line`` its first line."""

    index: int
    span: Span
    stmt: Stmt | None = None
    cond: Cond | None = None

    @property
    def line(self) -> int:
        return self.span.line

    def text(self) -> str:
        return self.stmt.text() if self.stmt is not None else f"({self.cond.text()})"


@dataclass(frozen=True, slots=True)
class Gap:
    """Where an insertion slot may go: before node ``position`` of a block
    (``position`` = the block's length: at its end).  ``offset``: the
    0-based offset of the text insertion point, ``line_start``: whether it
    is the start of a line (else the text goes inline), ``indent``: the
    indentation to use.  ``offset`` -1: no statement may go here (between
    two declarators of one declaration)."""

    index: int
    offset: int
    line_start: bool
    indent: str


@dataclass(frozen=True, slots=True)
class Seq:
    """The nodes of a compound statement and its gaps (``gaps[k]`` comes
    before ``nodes[k]``; ``gaps[-1]`` at the end); ``gaps`` is empty for a
    body that is not a compound statement."""

    nodes: tuple["Node", ...]
    gaps: tuple[Gap, ...] = ()


@dataclass(frozen=True, slots=True)
class Branch:
    """``if (cond) then else orelse``; ``cond`` is location ``instr``."""

    instr: Instr
    then: Seq
    orelse: Seq


@dataclass(frozen=True, slots=True)
class Loop:
    """``while (cond) body`` (a ``for`` is its init statement, then this);
    ``line``: the line of the loop keyword (the trace names loops by it)."""

    instr: Instr
    body: Seq
    line: int


Node = Instr | Branch | Loop


@dataclass(slots=True)
class Function:
    """The IR of the function under repair: ``instrs`` (location ``i`` is
    ``instrs[i - 1]``), the ``body``, the variables and their types
    (``params``, ``locals``, ``globals``: name -> IR type), the struct
    fields (tag -> field -> IR type), the ``gaps`` for insertion slots,
    ``returns``: the IR type of the return value (None for void) and
    ``uninit``: (offset after the name, IR type) of each local declared
    without an initializer (the harness gives it a known value)."""

    name: str
    path: str
    instrs: list[Instr]
    body: Seq
    params: dict[str, str]
    locals: dict[str, str]
    globals: dict[str, str]
    structs: dict[str, dict[str, str]]
    gaps: list[Gap] = field(default_factory=list)
    returns: str | None = None
    uninit: list[tuple[int, str]] = field(default_factory=list)

    @property
    def variables(self) -> dict[str, str]:
        """Every variable the function sees (locals shadow globals), in a
        fixed order: globals, params, locals."""
        out = dict(self.globals)
        out.update(self.params)
        out.update(self.locals)
        return out

    def loops(self) -> list[Loop]:
        out: list[Loop] = []

        def walk(seq: Seq) -> None:
            for n in seq.nodes:
                if isinstance(n, Loop):
                    out.append(n)
                    walk(n.body)
                elif isinstance(n, Branch):
                    walk(n.then)
                    walk(n.orelse)

        walk(self.body)
        return out


def loop_lines(seq: Seq) -> set[int]:
    """Lines of the loops inside ``seq`` (at any depth)."""
    out: set[int] = set()
    for n in seq.nodes:
        if isinstance(n, Loop):
            out.add(n.line)
            out |= loop_lines(n.body)
        elif isinstance(n, Branch):
            out |= loop_lines(n.then) | loop_lines(n.orelse)
    return out
