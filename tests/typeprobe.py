"""gcc's types of a program's expressions, asked with compile-time probes.

For every expression of every function of a C file that
:func:`crepair.typed.program.typed_functions` types, the probe program
asserts, in the expression's own scope, that gcc gives it the same type:
``_Static_assert(__builtin_types_compatible_p(__typeof__(e), T_k), "k")``
with ``typedef ... T_k;`` the typed layer's answer (``__typeof__`` does not
evaluate ``e``; compatibility ignores top-level qualifiers and tells
``char``, ``signed char``, ``long`` and ``long long`` apart).  A probe
stands before the statement that holds the expression, in a block of its
own (for a ``for`` statement's clauses, at the start of its body, where
its declarations are visible; for a declaration's initializer, right
after the declaration, whose name it may use).  :func:`disagreements` compiles it with ``gcc
-fsyntax-only`` and returns the expressions whose types differ.
"""

from __future__ import annotations

import copy
import re
import subprocess
from pathlib import Path

from pycparser import c_ast, c_generator

from crepair.frontend.parse import load_program
from crepair.typed.model import CType, TypeKind
from crepair.typed.program import typed_functions

PRELUDE = ("#define __PROBE(T, k, ...) _Static_assert(__builtin_types_compatible_p(__typeof__(__VA_ARGS__), T), k)\n")


def declarator(t: CType, name: str) -> str | None:
    """``typedef`` text naming ``t`` as ``name``, or None (no simple C name)."""
    if t.kind == TypeKind.ARRAY:  # T name[][n1][n2]: only the outermost length may be left out
        dims, elem = "[]", t.target
        while elem is not None and elem.kind == TypeKind.ARRAY:
            if elem.length is None:
                return None
            dims, elem = dims + f"[{elem.length}]", elem.target
        return f"typedef {elem.text} {name}{dims};" if elem is not None and elem.text else None
    if t.kind in (TypeKind.INTEGER, TypeKind.FLOAT, TypeKind.POINTER, TypeKind.RECORD) and t.text:
        return f"typedef {t.text} {name};"
    return None


class _Probes:
    def __init__(self, function):
        self.function = function
        self.typedefs: list[str] = []
        self.expressions: list[tuple[str, CType]] = []  # probe k -> (expression text, the typed layer's type)
        self.skipped: list[tuple[str, CType]] = []

    def probes(self, owned: list[c_ast.Node]) -> list[c_ast.Node]:
        out = []
        for root in owned:
            for e in [x for x in self.function.expressions if _within(x.node, root)]:
                decl = declarator(e.type, f"__T{len(self.expressions)}")
                if decl is None:
                    self.skipped.append((e.text, e.type))
                    continue
                k = len(self.expressions)
                self.typedefs.append(decl)
                self.expressions.append((e.text, e.type))
                args = [c_ast.ID(f"__T{k}"), c_ast.Constant("string", f'"{k}"'), copy.deepcopy(e.node)]
                out.append(c_ast.FuncCall(c_ast.ID("__PROBE"), c_ast.ExprList(args)))
        return out

    def statement(self, s: c_ast.Node) -> c_ast.Node:
        """``s`` with probes before it (in a new block) and inside it."""
        match s:
            case c_ast.Compound():
                s.block_items = self.block(s.block_items or [])
                return s
            case c_ast.For():
                owned = [x for x in (s.cond, s.next) if x is not None]
                if isinstance(s.init, c_ast.DeclList):
                    owned += [d.init for d in s.init.decls if d.init is not None]
                elif s.init is not None:
                    owned.append(s.init)
                s.stmt = c_ast.Compound(self.probes(owned) + [self.statement(s.stmt)])
                return s
            case c_ast.If() | c_ast.While() | c_ast.DoWhile() | c_ast.Switch():
                probes = self.probes([s.cond])
                for attr in ("iftrue", "iffalse", "stmt"):
                    if getattr(s, attr, None) is not None:
                        setattr(s, attr, self.statement(getattr(s, attr)))
                return c_ast.Compound(probes + [s]) if probes else s
            case c_ast.Case() | c_ast.Default():
                s.stmts = self.block(s.stmts or [])
                return s
            case c_ast.Label():
                s.stmt = self.statement(s.stmt)
                return s
            case c_ast.Return(expr=e) if e is not None:
                return c_ast.Compound(self.probes([e]) + [s])
            case c_ast.Break() | c_ast.Continue() | c_ast.Goto() | c_ast.EmptyStatement() | c_ast.Return():
                return s
        return c_ast.Compound(self.probes([s]) + [s])  # an expression statement

    def block(self, items: list[c_ast.Node]) -> list[c_ast.Node]:
        out = []
        for item in items:
            if isinstance(item, c_ast.Decl):  # after it: its initializer may name it (``p = malloc(sizeof *p)``)
                out.append(item)
                out += self.probes([item.init] if item.init is not None and not isinstance(item.init, c_ast.InitList)
                                   else [])
            else:
                out.append(self.statement(item))
        return out


def _within(node: c_ast.Node, root: c_ast.Node) -> bool:
    stack = [root]
    while stack:
        x = stack.pop()
        if x is node:
            return True
        if isinstance(x, (c_ast.Compound,)):
            continue
        stack.extend(child for _, child in x.children())
    return False


def disagreements(path: Path, gcc: str) -> tuple[list[tuple[str, str, str]], int, list]:
    """``(mismatches, probed, skipped)`` for the C file at ``path``: each
    mismatch is (expression, the typed layer's type, "gcc differs");
    ``probed`` counts the expressions checked, ``skipped`` those whose type
    has no simple C name.  Raises AssertionError when the probe program
    does not compile for another reason."""
    program = load_program(path)
    functions = typed_functions(program.ast)
    ast = program.ast
    table, skipped, chunks = [], [], [PRELUDE]
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.decl.name in functions:
            probe = _Probes(functions[ext.decl.name])
            base = len(table)
            ext.body.block_items = probe.block(ext.body.block_items or [])
            # this function's probes are numbered after the earlier functions', its typedefs stand before it
            chunks += [probe.typedefs[k].replace(f"__T{k}", f"__T{base + k}") + "\n"
                       for k in range(len(probe.expressions))]
            _renumber(ext.body, base)
            table += probe.expressions
            skipped += probe.skipped
        chunks.append(c_generator.CGenerator().visit(c_ast.FileAST([ext])))
    text = "".join(chunks)
    out = path.with_suffix(".probe.c")
    out.write_text(text)
    proc = subprocess.run([gcc, "-fsyntax-only", "-w", "-std=gnu11", str(out)], capture_output=True, text=True)
    failed = sorted({int(k) for k in re.findall(r'static assertion failed: "(\d+)"', proc.stderr)})
    other = [line for line in proc.stderr.splitlines() if "error" in line and "static assertion failed" not in line]
    assert not other, f"the probe program of {path} does not compile:\n{proc.stderr[:3000]}\n{text[:3000]}"
    return [(table[k][0], table[k][1].text or table[k][1].kind.value, "gcc differs") for k in failed], len(table), \
        skipped


def _renumber(body: c_ast.Node, base: int) -> None:
    if base == 0:
        return
    stack = [body]
    while stack:
        x = stack.pop()
        if isinstance(x, c_ast.FuncCall) and isinstance(x.name, c_ast.ID) and x.name.name == "__PROBE":
            t, k = x.args.exprs[0], x.args.exprs[1]
            n = int(t.name[3:])
            t.name, k.value = f"__T{base + n}", f'"{base + n}"'
            continue
        stack.extend(child for _, child in x.children())
