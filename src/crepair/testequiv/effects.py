"""What an expression may read and write, for the dependency relation.

f1x's dependency-based test-equivalence (TOSEM'18, §3.4) needs the
variables a statement reads and writes; a call or an access through a
pointer may touch any memory, written ``"*"``.  Conservative: a name is
listed when the statement may touch it.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.testequiv.scope import Var
from crepair.typed.model import TypeKind


def side_effect_free(node: c_ast.Node) -> bool:
    """No assignment, ``++``/``--`` or call inside ``node``."""
    stack = [node]
    while stack:
        n = stack.pop()
        match n:
            case c_ast.Assignment() | c_ast.FuncCall():
                return False
            case c_ast.UnaryOp(op="sizeof"):
                continue
            case c_ast.UnaryOp(op=op) if op in ("++", "--", "p++", "p--"):
                return False
        stack.extend(c for _, c in n.children())
    return True



def effects(expr: c_ast.Node, scope: dict[str, Var]) -> tuple[set[str], set[str]]:
    """Names a statement may read and write; ``"*"`` is any memory (a
    call, a write or read through a pointer)."""
    reads: set[str] = set()
    writes: set[str] = set()

    def target(lv: c_ast.Node) -> None:
        match lv:
            case c_ast.ID(name=name):
                writes.add(name)
            case c_ast.ArrayRef(name=base, subscript=s):
                visit(s)
                named = (isinstance(base, c_ast.ID) and base.name in scope
                         and scope[base.name].type.kind == TypeKind.ARRAY)
                if named:
                    writes.add(base.name)
                else:
                    writes.add("*")
                    visit(base)
            case c_ast.StructRef(name=base, type="."):
                target(base)
            case _:
                writes.add("*")
                visit(lv)

    def visit(n: c_ast.Node | None) -> None:
        match n:
            case None:
                return
            case c_ast.ID(name=name) if name in scope:
                reads.add(name)
            case c_ast.Assignment(op=op, lvalue=l, rvalue=r):
                target(l)
                if op != "=":
                    visit(l)
                visit(r)
            case c_ast.UnaryOp(op=op, expr=e) if op in ("++", "--", "p++", "p--"):
                target(e)
                visit(e)
            case c_ast.UnaryOp(op="sizeof"):
                return
            case c_ast.FuncCall(args=args):
                reads.add("*")
                writes.add("*")
                visit(args)
            case c_ast.UnaryOp(op="*", expr=e) | c_ast.StructRef(type="->", name=e):
                reads.add("*")
                visit(e)
            case c_ast.ArrayRef(name=base, subscript=s):
                if not (isinstance(base, c_ast.ID) and base.name in scope
                        and scope[base.name].type.kind == TypeKind.ARRAY):
                    reads.add("*")
                visit(base)
                visit(s)
            case _:
                for _, child in n.children():
                    visit(child)

    visit(expr)
    return reads, writes
