"""Which definitions of a translation unit a run can reach.

The bounded engine encodes a program from its entry function: a function
that no call chain from the entry reaches never runs, and a file-scope
variable that no reached function (or reached variable's initializer)
names is never read.  :func:`reachable` computes both sets over the call
graph (direct calls by name; crepair does not model calls through
pointers), so the front-end checks — and the encoder sees — only what can
run.  Names are matched without regard to scopes: a local that shadows a
global keeps the global in the set, which is safe (a superset).

>>> from pycparser import c_parser
>>> ast = c_parser.CParser().parse("int g, h; int f(void){return g;} "
...                                  "int main(void){return f();} int u(void){return h;}")
>>> r = reachable(ast, ("main",))
>>> sorted(r.functions), sorted(r.globals)
(['f', 'main'], ['g'])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pycparser import c_ast


@dataclass(frozen=True, slots=True)
class Reach:
    """Names of the defined functions and of the file-scope variables (and
    typedefs) reachable from the roots; each a frozenset of strings."""

    functions: frozenset[str]
    globals: frozenset[str]
    typedefs: frozenset[str]


class _Names(c_ast.NodeVisitor):
    """Identifiers, called names and type names used under a node."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.types: set[str] = set()

    def visit_ID(self, node: c_ast.ID) -> None:
        self.ids.add(node.name)

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        self.types.update(node.names)


def _names(node: c_ast.Node) -> _Names:
    names = _Names()
    names.visit(node)
    return names


def reachable(ast: c_ast.FileAST, roots: Iterable[str]) -> Reach:
    """The functions defined in ``ast`` that a call chain from one of
    ``roots`` reaches (roots included when defined), the file-scope
    variables those functions (or the initializers of reached variables)
    name, and the typedef names their types use (transitively).  ``ast`` is
    not changed."""
    functions: dict[str, c_ast.FuncDef] = {}
    variables: dict[str, list[c_ast.Decl]] = {}
    typedefs: dict[str, c_ast.Typedef] = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            functions[ext.decl.name] = ext
        elif isinstance(ext, c_ast.Typedef):
            typedefs[ext.name] = ext
        elif isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl):
            variables.setdefault(ext.name, []).append(ext)
    seen_f: set[str] = set()
    seen_g: set[str] = set()
    seen_t: set[str] = set()
    work: list[c_ast.Node] = []
    for root in roots:
        if root in functions and root not in seen_f:
            seen_f.add(root)
            work.append(functions[root])
    while work:
        names = _names(work.pop())
        for name in sorted(names.ids):
            if name in functions and name not in seen_f:
                seen_f.add(name)
                work.append(functions[name])
            elif name in variables and name not in seen_g:
                seen_g.add(name)
                work.extend(variables[name])
        for name in sorted(names.types):
            if name in typedefs and name not in seen_t:
                seen_t.add(name)
                work.append(typedefs[name])
    return Reach(frozenset(seen_f), frozenset(seen_g), frozenset(seen_t))


def needed(ext: c_ast.Node, reach: Reach) -> bool:
    """Whether the file-scope definition ``ext`` belongs to ``reach``
    (prototypes count with their function, declarations with their
    variable)."""
    if isinstance(ext, c_ast.FuncDef):
        return ext.decl.name in reach.functions
    if isinstance(ext, c_ast.Typedef):
        return ext.name in reach.typedefs
    if isinstance(ext, c_ast.Decl):
        if isinstance(ext.type, c_ast.FuncDecl):
            return ext.name in reach.functions
        return ext.name in reach.globals
    return False
