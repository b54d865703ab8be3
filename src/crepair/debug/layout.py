"""Where the statements of a program are, for statement-level ``next``
(Wolverine2 §2.1, Table 1: "next: executes next statement"; §3, the
location map Λ from source lines to statements).

gdb steps by source line; a statement-level ``next`` needs two facts the
line table does not give, taken here from the parsed program (pycparser
coordinates, lines 1-based):

* ``multi``: lines holding several call statements (``push(2); push(4);``
  on one line, as in the paper's Fig. 1): each ``next`` runs one call;
* ``skip``: lines of the function under repair that hold no statement of
  its heap IR — declarations whose initializers are constants, and the
  closing brace — which ``next`` runs through without stopping (the paper's
  ``step`` into ``reverse`` shows ``current = head;`` first).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.frontend import CProgram


def _items(block) -> list:
    """The statements of a compound block and of the blocks nested in its
    statements' bodies, in source order."""
    out = []
    for item in (block.block_items or []) if isinstance(block, c_ast.Compound) else []:
        out.append(item)
        for child in ("stmt", "iftrue", "iffalse"):
            sub = getattr(item, child, None)
            if isinstance(sub, c_ast.Compound):
                out.extend(_items(sub))
    return out


def _constant(init) -> bool:
    while isinstance(init, c_ast.Cast):
        init = init.expr
    return init is None or isinstance(init, (c_ast.Constant, c_ast.ID))


def _closing_line(text: str, open_line: int) -> int | None:
    """The line (1-based) of the brace closing the block that opens on
    ``open_line`` (brace matching; braces in comments or strings are not
    expected in the function bodies handled)."""
    lines = text.splitlines()
    depth, seen = 0, False
    for no in range(open_line, len(lines) + 1):
        for ch in lines[no - 1]:
            if ch == "{":
                depth, seen = depth + 1, True
            elif ch == "}":
                depth -= 1
                if seen and depth == 0:
                    return no
    return None


def layout(program: CProgram, text: str, function: str) -> dict:
    """``{"multi": {line: calls}, "skip": [line, ...]}`` for ``text`` (the
    program's current text, already parsed as ``program``) and the function
    under repair ``function``; line keys are strings (JSON)."""
    multi: dict[str, int] = {}
    for fn in program.functions.values():
        per_line: dict[int, list] = {}
        for item in _items(fn.body):
            if item.coord is not None:
                per_line.setdefault(item.coord.line, []).append(item)
        for line, items in per_line.items():
            if len(items) > 1 and all(isinstance(i, c_ast.FuncCall) for i in items):
                multi[str(line)] = len(items)
    skip: set[int] = set()
    fn = program.functions.get(function)
    if fn is not None and fn.body.coord is not None:
        per_line = {}
        for item in _items(fn.body):
            if item.coord is not None:
                per_line.setdefault(item.coord.line, []).append(item)
        for line, items in per_line.items():
            if all(isinstance(i, c_ast.Decl) and _constant(i.init) for i in items):
                skip.add(line)
        end = _closing_line(text, fn.body.coord.line)
        if end is not None:
            skip.add(end)
    return {"multi": multi, "skip": sorted(skip)}
