"""Which ``goto`` statements the bounded engine follows: forward jumps out.

The encoder (:mod:`crepair.encode.statements`) ends a path at ``goto L``
and joins it where the walk meets ``L:`` later in the same function, as it
joins a ``break`` at the loop's exit.  That is C's meaning when the label
comes after the ``goto`` in the text and every statement enclosing the
label also encloses the ``goto`` (the jump leaves blocks, loops and
switches, never enters one); :func:`unsupported_jump` names the first jump
that is not so.

>>> from pycparser import c_parser
>>> ast = c_parser.CParser().parse("void f(int x){ while (x) { if (x) goto out; x--; } out: ; }")
>>> unsupported_jump(ast.ext[0]) is None
True
>>> ast = c_parser.CParser().parse("void f(int x){ back: x--; if (x) goto back; }")
>>> node, what = unsupported_jump(ast.ext[0]); what
"backward goto (a jump to the earlier label 'back')"
"""

from __future__ import annotations

from pycparser import c_ast


def _position(node: c_ast.Node) -> tuple[int, int]:
    coord = node.coord
    return (coord.line, coord.column or 0) if coord is not None else (0, 0)


def unsupported_jump(func: c_ast.FuncDef) -> tuple[c_ast.Node, str] | None:
    """The first ``goto`` or label of ``func`` the encoder does not follow,
    with what is wrong (one phrase), else None.  ``func`` is not changed."""
    labels: dict[str, tuple[c_ast.Label, tuple[int, ...]]] = {}
    gotos: list[tuple[c_ast.Goto, set[int]]] = []

    def walk(node: c_ast.Node, enclosing: tuple[int, ...]) -> tuple[c_ast.Node, str] | None:
        if isinstance(node, c_ast.Label):
            if node.name in labels:
                return node, f"label '{node.name}' defined twice"
            labels[node.name] = (node, enclosing)
        elif isinstance(node, c_ast.Goto):
            gotos.append((node, set(enclosing)))
        inner = enclosing + (id(node),) if not isinstance(node, c_ast.Label) else enclosing
        for _, child in node.children():
            found = walk(child, inner)
            if found is not None:
                return found
        return None

    found = walk(func.body, ())
    if found is not None:
        return found
    for goto, around in gotos:
        target = labels.get(goto.name)
        if target is None:
            return goto, f"goto to the label '{goto.name}', which is not defined in the function"
        label, enclosing = target
        if _position(label) <= _position(goto):
            return goto, f"backward goto (a jump to the earlier label '{goto.name}')"
        if not around.issuperset(enclosing):
            return goto, f"goto into a block, loop or switch (label '{goto.name}')"
    return None
