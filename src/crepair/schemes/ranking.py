"""The ranking of the checked repairs of a bounded run (issue 14).

Every repair of a bounded run is correct up to the bound; the ranking says
which one a user (or a benchmark) should look at first.  Repairs are
ordered by, in turn:

1. non-vacuous before vacuous (a vacuous repair is correct only because
   the bound cuts off runs);
2. no *new input read* first: a repair that makes a function read an
   input variable (a variable the entry function assigns from a
   ``nondet_*()`` call) that the function did not read before is ranked
   after every repair that does not.  Such a repair depends on the order
   in which the harness sets the inputs and calls the code (TCAS: the
   spec's ``main`` reads the inputs before ``initialize()``, SIR's after:
   a repair of ``initialize()`` reading them is spec-correct but fails the
   SIR tests);
3. size (the number of changed locations), smallest first;
4. the number of distinct variables the new expressions use, fewest first;
5. the constants in the new expressions, smallest sum of magnitudes first;
6. the order in which the run found them.

The keys read only the repair's text changes and the program's syntax
tree, so the ranking is the same for every scheme.
"""

from __future__ import annotations

from collections.abc import Iterable

from pycparser import c_ast

from crepair.frontend.parse import CProgram
from crepair.frontend.tokens import C_KEYWORDS, tokenize
from crepair.records import Repair

_NONDET_PREFIXES = ("nondet_", "__VERIFIER_nondet")


class _Names(c_ast.NodeVisitor):
    def __init__(self):
        self.names: set[str] = set()

    def visit_ID(self, node: c_ast.ID) -> None:
        self.names.add(node.name)


def _names(node: c_ast.Node | None) -> set[str]:
    v = _Names()
    if node is not None:
        v.visit(node)
    return v.names


class RepairRanking:
    """Ranking keys of the repairs of ``program`` run from ``entry``.

    ``inputs`` are the variables the entry function assigns from a
    ``nondet_*()`` call; ``reads[f]`` the identifiers function ``f``
    names in its body.
    """

    def __init__(self, program: CProgram, entry: str = "main"):
        self.inputs: set[str] = set()
        self.reads: dict[str, set[str]] = {}
        for node in program.ast.ext:
            if not isinstance(node, c_ast.FuncDef):
                continue
            self.reads[node.decl.name] = _names(node.body)
            if node.decl.name == entry:
                self.inputs |= _nondet_targets(node.body)

    def new_input_reads(self, repair: Repair) -> set[str]:
        """Input variables the repair's new expressions read in a function
        whose original body does not name them."""
        out: set[str] = set()
        for change in repair.changes:
            if change.function is None or change.function not in self.reads:
                continue
            out |= (_identifiers(change.after) & self.inputs) - self.reads[change.function]
        return out

    def key(self, repair: Repair, order: int = 0) -> tuple:
        """The sort key of ``repair`` (the ``order`` it was found in last)."""
        new = [e.new for c in repair.changes for e in c.edits]
        after = " ".join(c.after for c in repair.changes)
        variables = len(_identifiers(after))
        constants = sum(abs(v) for text in new for v in _constants(text))
        return (repair.vacuous, bool(self.new_input_reads(repair)), len(repair.changes), variables, constants, order)

    def rank(self, repairs: Iterable[Repair]) -> list[Repair]:
        """``repairs`` (in the order found) sorted by :meth:`key`."""
        indexed = list(enumerate(repairs))
        return [r for _, r in sorted(indexed, key=lambda ir: self.key(ir[1], ir[0]))]


def _nondet_targets(body: c_ast.Node) -> set[str]:
    """Variables ``x`` of ``x = nondet_*()`` statements in ``body``."""
    out: set[str] = set()

    class Visitor(c_ast.NodeVisitor):
        def visit_Assignment(self, node: c_ast.Assignment) -> None:
            call = node.rvalue
            while isinstance(call, c_ast.Cast):
                call = call.expr
            if (
                node.op == "=" and isinstance(node.lvalue, c_ast.ID) and isinstance(call, c_ast.FuncCall)
                and isinstance(call.name, c_ast.ID) and call.name.name.startswith(_NONDET_PREFIXES)
            ):
                out.add(node.lvalue.name)
            self.generic_visit(node)

    Visitor().visit(body)
    return out


def _identifiers(text: str) -> set[str]:
    return {
        t.text for t in tokenize(text, skip_directives=False)
        if (t.text[0].isalpha() or t.text[0] == "_") and t.text not in C_KEYWORDS
    }


def _constants(text: str) -> list[int]:
    out = []
    for t in tokenize(text, skip_directives=False):
        if t.text[0].isdigit():
            digits = t.text.rstrip("uUlL")
            try:
                out.append(int(digits, 0) if not digits.startswith("0") or digits == "0" or digits[1:2] in "xX"
                           else int(digits, 8))
            except ValueError:
                continue
    return out
