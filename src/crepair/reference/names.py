"""Names in a C unit, with scopes: renaming the reference, finding what the
entry function writes.

A file-scope name (function, variable, typedef) is renamed only where it
refers to the file-scope definition: a parameter or local that shadows it
(from its declaration to the end of its block) keeps its name.  The
renaming changes only the ``name``/``declname``/``names`` fields of the
nodes, never their coordinates, so spans stay those of the reference file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pycparser import c_ast


class ScopedVisitor(c_ast.NodeVisitor):
    """Visits a unit tracking block scopes; calls :meth:`file_scope_id` for
    every ``ID`` that names a file-scope definition (no local shadows it)."""

    def __init__(self) -> None:
        self._locals: list[set[str]] = []

    def _shadowed(self, name: str) -> bool:
        return any(name in scope for scope in self._locals)

    def file_scope_id(self, node: c_ast.ID) -> None:  # pragma: no cover - overridden
        pass

    def visit_ID(self, node: c_ast.ID) -> None:
        if not self._shadowed(node.name):
            self.file_scope_id(node)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.function_name(node.decl)
        self._locals.append(set(_param_names(node)))
        self._type(node.decl.type)
        for decl in node.param_decls or []:
            self._type(decl.type)
        self.visit(node.body)
        self._locals.pop()

    def function_name(self, decl: c_ast.Decl) -> None:
        """Hook for the declarator of a function definition."""

    def visit_Compound(self, node: c_ast.Compound) -> None:
        self._locals.append(set())
        for item in node.block_items or []:
            self.visit(item)
        self._locals.pop()

    def visit_For(self, node: c_ast.For) -> None:
        self._locals.append(set())
        for child in (node.init, node.cond, node.next, node.stmt):
            if child is not None:
                self.visit(child)
        self._locals.pop()

    def visit_Decl(self, node: c_ast.Decl) -> None:
        self._type(node.type)
        if node.init is not None:
            self.visit(node.init)
        if self._locals and node.name:
            self._locals[-1].add(node.name)
        if node.bitsize is not None:
            self.visit(node.bitsize)

    def _type(self, node: c_ast.Node | None) -> None:
        """Visit the expressions inside a type (array sizes) and its type names."""
        while node is not None:
            if isinstance(node, c_ast.ArrayDecl) and node.dim is not None:
                self.visit(node.dim)
            if isinstance(node, c_ast.FuncDecl):
                self.visit_function_type(node)
            if isinstance(node, c_ast.IdentifierType):
                self.visit_IdentifierType(node)
                return
            node = getattr(node, "type", None)

    def visit_function_type(self, node: c_ast.FuncDecl) -> None:
        for p in node.args.params if node.args else ():
            if isinstance(p, (c_ast.Decl, c_ast.Typename)):
                self._type(p.type)

    def visit_StructRef(self, node: c_ast.StructRef) -> None:
        self.visit(node.name)  # the field is a member name, never a file-scope one

    def visit_Typename(self, node: c_ast.Typename) -> None:
        self._type(node.type)

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        pass


def _param_names(func: c_ast.FuncDef) -> list[str]:
    args = func.decl.type.args
    out = []
    for p in args.params if args else ():
        name = getattr(p, "name", None)
        if name:
            out.append(name)
    return out


def declarator(decl: c_ast.Node) -> c_ast.TypeDecl | None:
    """The ``TypeDecl`` holding the declared name under ``decl``'s type
    (through pointers, arrays and function types)."""
    node = decl.type if isinstance(decl, (c_ast.Decl, c_ast.Typedef, c_ast.Typename)) else decl
    while node is not None and not isinstance(node, c_ast.TypeDecl):
        node = getattr(node, "type", None)
    return node


class Renamer(ScopedVisitor):
    """Renames the file-scope names of ``table`` (old -> new) in place:
    definitions, declarations, uses, calls and typedef names in types."""

    def __init__(self, table: dict[str, str]):
        super().__init__()
        self._table = table

    def rename_unit(self, ast: c_ast.FileAST) -> None:
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                self.visit(ext)
            elif isinstance(ext, (c_ast.Decl, c_ast.Typedef)):
                self._rename_decl(ext)
                self._type(ext.type)
                if getattr(ext, "init", None) is not None:
                    self.visit(ext.init)

    def _rename_decl(self, decl: c_ast.Node) -> None:
        new = self._table.get(decl.name)
        if new is None:
            return
        decl.name = new
        inner = declarator(decl)
        if inner is not None:
            inner.declname = new

    def function_name(self, decl: c_ast.Decl) -> None:
        self._rename_decl(decl)

    def file_scope_id(self, node: c_ast.ID) -> None:
        new = self._table.get(node.name)
        if new is not None:
            node.name = new

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        node.names = [self._table.get(n, n) for n in node.names]


class Writes(ScopedVisitor):
    """File-scope variables written (assigned, incremented) under the
    visited nodes, by name (``written``)."""

    def __init__(self) -> None:
        super().__init__()
        self.written: set[str] = set()

    def _target(self, node: c_ast.Node) -> None:
        while isinstance(node, c_ast.ArrayRef):
            node = node.name
        if isinstance(node, c_ast.ID) and not self._shadowed(node.name):
            self.written.add(node.name)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        self._target(node.lvalue)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        if node.op in ("++", "--", "p++", "p--"):
            self._target(node.expr)
        self.generic_visit(node)


def calls(ast: c_ast.Node, pick: Callable[[str], bool]) -> Iterator[c_ast.FuncCall]:
    """The calls by name under ``ast`` whose callee name satisfies ``pick``, in source order."""
    stack = [ast]
    found = []
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and pick(node.name.name):
            found.append(node)
        stack.extend(child for _, child in reversed(node.children()))
    return iter(found)
