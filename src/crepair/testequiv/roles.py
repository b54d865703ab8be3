"""The roles of a site's expression that crepair's own anti-patterns read
(:mod:`crepair.testequiv.antipatterns`, rules C5–C8; issue 29).

One pass over each function of the user's file finds:

- the variable an expression is assigned to: ``e`` of ``v = e`` or of
  the declaration ``T v = e`` (C5: a candidate there must not start
  reading ``v``, the value the assignment replaces);
- the constant that starts a ``for`` loop's counter, ``for (i = c; ...)``
  or ``for (int i = c; ...)`` (C7: it may move by one, not skip a
  test-sized number of iterations);
- the operators of *uniform comparison chains*: three or more
  comparisons, all with one relational operator, joined by ``&&``/``||``
  (``b == a || b == c || c == d``: a list of cases; C6);
- the variables assigned inside a loop around the place (C9: a subscript
  or loop condition made to read none of them is loop-invariant);
- the function's local scalars that are not yet assigned at the place:
  declared without initializer and never assigned, incremented or
  passed by address before it in the text, nor anywhere in a loop
  around it (their value is indeterminate there; C8).

>>> Roles().assigned
''
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.errors import InternalError
from crepair.frontend.parse import CProgram
from crepair.frontend.preprocess import in_user_file
from crepair.testequiv.ctext import constant_value

_RELATIONAL = {"==", "!=", "<", "<=", ">", ">="}
CHAIN = 3  # comparisons in a chain before it counts as a list of cases


@dataclass(frozen=True, slots=True)
class Roles:
    """What one place plays: ``assigned``, the variable its value is
    assigned to (``""``: none); ``start``, the constant starting a ``for``
    counter when the place is that constant (None: not one); ``chains``,
    the spans (0-based offsets, end exclusive) of the operators of the
    uniform comparison chains inside the place; ``unassigned``, the
    locals not yet assigned there; ``varying``, the variables assigned in
    a loop around it."""

    assigned: str = ""
    start: int | None = None
    chains: tuple[tuple[int, int], ...] = ()
    unassigned: frozenset[str] = frozenset()
    varying: frozenset[str] = frozenset()


class _Facts(c_ast.NodeVisitor):
    def __init__(self, program: CProgram):
        self._spans = program.spans
        self.assigned: dict[int, str] = {}  # id(expression) -> the variable it is assigned to
        self.starts: dict[int, int] = {}  # id(constant) -> its value, for loop counters' start
        self.chains: list[tuple[int, int]] = []
        self.locals: set[str] = set()  # scalar locals declared without an initializer
        self.initialized: set[str] = set()
        self.writes: dict[str, list[int]] = {}  # variable -> the offsets where it is assigned
        self.loops: list[tuple[int, int]] = []
        self._inside: set[int] = set()  # && / || nodes already read as part of a chain

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if node.name and node.init is not None:
            self.initialized.add(node.name)
            if not isinstance(node.init, c_ast.InitList):
                self.assigned[id(node.init)] = node.name
        elif node.name and isinstance(node.type, c_ast.TypeDecl) and not set(node.storage or []) & {"static", "extern"}:
            self.locals.add(node.name)
        self.generic_visit(node)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        self._write(node, node.lvalue)
        if node.op == "=" and isinstance(node.lvalue, c_ast.ID):
            self.assigned[id(node.rvalue)] = node.lvalue.name
        self.generic_visit(node)

    def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        if node.op in ("++", "--", "p++", "p--", "&"):
            self._write(node, node.expr)
        self.generic_visit(node)

    def _write(self, node: c_ast.Node, lvalue: c_ast.Node) -> None:
        base = _base(lvalue)
        if base:
            self.writes.setdefault(base, []).append(self._start(node))

    def _start(self, node: c_ast.Node) -> int:
        try:
            return self._spans.span(node).start
        except (InternalError, IndexError):  # inside a macro's expansion: as if at the start
            return -1

    def _loop(self, node: c_ast.Node) -> None:
        """Record the loop's extent: from its first to its last name or
        constant (what a place or a write inside it lies between)."""
        starts, ends = [], []
        for leaf in _leaves(node):
            try:
                span = self._spans.span(leaf)
            except (InternalError, IndexError):  # inside a macro's expansion
                continue
            starts.append(span.start)
            ends.append(span.end)
        if starts:
            self.loops.append((min(starts), max(ends)))
        self.generic_visit(node)

    visit_While = visit_DoWhile = _loop

    def varying(self, start: int) -> frozenset[str]:
        """The variables assigned in a loop around offset ``start``."""
        around = [(a, b) for a, b in self.loops if a <= start < b]
        return frozenset(v for v, ws in self.writes.items() if any(a <= w < b for w in ws for a, b in around))

    def unassigned(self, start: int) -> frozenset[str]:
        """The locals not yet assigned at offset ``start``."""
        around = [(a, b) for a, b in self.loops if a <= start < b]
        return frozenset(v for v in self.locals - self.initialized
                         if not any(w < start or any(a <= w < b for a, b in around) for w in self.writes.get(v, ())))

    def visit_For(self, node: c_ast.For) -> None:
        inits = node.init.exprs if isinstance(node.init, c_ast.ExprList) else \
            node.init.decls if isinstance(node.init, c_ast.DeclList) else [node.init]
        for init in inits:
            value = init.rvalue if isinstance(init, c_ast.Assignment) and init.op == "=" else \
                init.init if isinstance(init, c_ast.Decl) else None
            if value is not None and constant_value(value) is not None:
                self.starts[id(value)] = constant_value(value)
        self._loop(node)

    def visit_BinaryOp(self, node: c_ast.BinaryOp) -> None:
        if node.op in ("&&", "||") and id(node) not in self._inside:
            leaves, stack = [], [node]
            while stack:
                n = stack.pop()
                if isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
                    self._inside.add(id(n))
                    stack += [n.right, n.left]
                else:
                    leaves.append(n)
            ops = {n.op if isinstance(n, c_ast.BinaryOp) else "" for n in leaves}
            if len(leaves) >= CHAIN and len(ops) == 1 and ops <= _RELATIONAL:
                try:
                    toks = [self._spans.token(self._spans.op_index(leaf)) for leaf in leaves]
                except (InternalError, IndexError):  # an operator of a macro's expansion: no chain
                    toks = []
                self.chains += [(t.start, t.end) for t in toks]
        self.generic_visit(node)


def _leaves(node: c_ast.Node):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (c_ast.ID, c_ast.Constant)):
            yield n
        stack.extend(c for _, c in n.children())


def _base(node: c_ast.Node) -> str:
    """The variable an lvalue (``x``, ``x[i]``, ``x.f``) belongs to."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
        node = node.name
    return node.name if isinstance(node, c_ast.ID) else ""


def annotate(program: CProgram, places: list) -> None:
    """Set ``roles`` of each place (:class:`~crepair.testequiv.sites.Place`,
    mutated) of ``program``'s functions."""
    facts: dict[str, _Facts] = {}
    for ext in program.ast.ext:
        if isinstance(ext, c_ast.FuncDef) and in_user_file(ext):
            f = _Facts(program)
            f.visit(ext.body)
            facts[ext.decl.name] = f
    for p in places:
        f = facts.get(p.function.name)
        if f is None:
            continue
        chains = tuple(c for c in f.chains if p.span.start <= c[0] and c[1] <= p.span.end)
        p.roles = Roles(f.assigned.get(id(p.node), ""), f.starts.get(id(p.node)), chains,
                        f.unassigned(p.span.start), f.varying(p.span.start))
