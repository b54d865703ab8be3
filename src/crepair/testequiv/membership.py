"""Membership tests ``x == c1 || x == c2 ...`` (or ``x != c1 && x != c2
...``): the constants an anti-pattern keeps unchanged
(:mod:`crepair.testequiv.antipatterns`, rule C2) — replacing one of them
by whatever constant the tests allow (Codeflaws 110-A: ``a == 4`` ->
``a == 3``) is almost never the fix."""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from crepair.frontend.spans import Span
from crepair.testequiv.ctext import constant_value


def membership_constants(node: c_ast.BinaryOp, spelling: Callable[[c_ast.Node], str | None],
                         span: Callable[[c_ast.Node], Span]) -> list[tuple[int, int]]:
    """The spans (0-based offsets, end exclusive) of the constants of the
    membership tests in ``node`` (an ``||`` or ``&&``): two or more tests
    of one subject (``spelling`` gives the user's text of a node, None
    inside a macro expansion) against constants."""
    test = "==" if node.op == "||" else "!="
    leaves: list[c_ast.Node] = []
    stack: list[c_ast.Node] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.BinaryOp) and n.op == node.op:
            stack += [n.right, n.left]
        else:
            leaves.append(n)
    by_subject: dict[str, list[c_ast.Node]] = {}
    for leaf in leaves:
        if isinstance(leaf, c_ast.BinaryOp) and leaf.op == test:
            for subject, constant in ((leaf.left, leaf.right), (leaf.right, leaf.left)):
                if constant_value(constant) is not None and constant_value(subject) is None:
                    text = spelling(subject)
                    if text is not None:
                        by_subject.setdefault(text, []).append(constant)
    out = []
    for constants in by_subject.values():
        if len(constants) >= 2:
            for c in constants:
                if spelling(c) is not None:
                    s = span(c)
                    out.append((s.start, s.end))
    return out
