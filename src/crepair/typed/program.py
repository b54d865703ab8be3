"""The typed, immutable form of a program's functions.

:func:`typed_functions` walks each function definition once, following
C's scopes (file scope, parameters, blocks, a ``for`` statement's
declarations; an identifier's scope starts at its declarator, C11 6.2.1p7),
and records every expression — every operand of every operator, every
argument, condition, initializer and returned value — with its type
(:meth:`crepair.typed.infer.Types.of`) and its span.  Not expressions: a
call's argument list as a whole, a member's name, a type name, a label.

>>> from pycparser import c_parser
>>> ast = c_parser.CParser().parse("long f(char c) { return c + 1L; }")
>>> [(e.text, e.type.text) for e in typed_functions(ast)["f"].expressions]
[('c + 1L', 'long'), ('c', 'char'), ('1L', 'long')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from crepair.typed.infer import Types
from crepair.typed.model import OTHER, CType, decay

_EXPRESSIONS = (c_ast.Constant, c_ast.ID, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.Assignment, c_ast.TernaryOp,
                c_ast.Cast, c_ast.FuncCall, c_ast.ArrayRef, c_ast.StructRef, c_ast.ExprList, c_ast.CompoundLiteral)


@dataclass(frozen=True, slots=True)
class TypedExpr:
    """One expression: its C ``text`` (as pycparser's generator prints
    it), its ``type``, its ``span`` (None without a span index) and the
    pycparser ``node`` it was read from (not compared)."""

    text: str
    type: CType
    span: object
    node: c_ast.Node = field(compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TypedFunction:
    """A function definition: ``name``, its return type, its parameters
    (name, type: an array or function parameter adjusted to a pointer) and every expression of its body in pre-order (an
    operator before its operands)."""

    name: str
    returns: CType
    params: tuple[tuple[str, CType], ...]
    expressions: tuple[TypedExpr, ...]
    _by_node: dict[int, CType] = field(default_factory=dict, compare=False, repr=False)

    def type_of(self, node: c_ast.Node) -> CType:
        """The type of expression ``node`` of this function (``OTHER`` for a
        node that is not one of its expressions)."""
        if not self._by_node:
            self._by_node.update((id(e.node), e.type) for e in self.expressions)
        return self._by_node.get(id(node), OTHER)


def typed_functions(ast: c_ast.FileAST, span: Callable[[c_ast.Node], object] | None = None,
                    types: Types | None = None) -> dict[str, TypedFunction]:
    """The typed form of every function defined in ``ast``, by name.
    ``span`` gives a node's span (e.g. ``CProgram.spans.span``); ``types``
    defaults to ``Types(ast)``."""
    types = types or Types(ast)
    walk = _Walk(types, span or (lambda node: None))
    out = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            out[ext.decl.name] = walk.function(ext)
        elif isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl):
            walk.scopes[0][ext.name] = types.resolve(ext.type)
    return out


class _Walk:
    def __init__(self, types: Types, span: Callable[[c_ast.Node], object]):
        self.types, self.span = types, span
        self.scopes: list[dict[str, CType]] = [{}]
        self.found: list[TypedExpr] = []
        self.text = c_generator.CGenerator().visit

    def visible(self) -> dict[str, CType]:
        out: dict[str, CType] = {}
        for scope in self.scopes:
            out.update(scope)
        return out

    def function(self, fn: c_ast.FuncDef) -> TypedFunction:
        ftype = fn.decl.type
        params = []
        for p in getattr(ftype.args, "params", None) or []:
            if isinstance(p, c_ast.Decl) and p.name:
                params.append((p.name, decay(self.types.resolve(p.type))))  # adjusted (C11 6.7.6.3p7-8)
        self.scopes.append(dict(params))
        self.found = []
        self.statement(fn.body)
        self.scopes.pop()
        return TypedFunction(fn.decl.name, self.types.resolve(ftype.type), tuple(params), tuple(self.found))

    def statement(self, node: c_ast.Node | None) -> None:
        if node is None or isinstance(node, c_ast.Typedef):  # (a local typedef declares no variable)
            return
        if isinstance(node, _EXPRESSIONS):
            self.expression(node)
            return
        if isinstance(node, c_ast.Decl):
            if node.name and not isinstance(node.type, c_ast.FuncDecl):
                self.scopes[-1][node.name] = self.types.resolve(node.type)
            self.initializer(node.init)
            return
        opens = isinstance(node, (c_ast.Compound, c_ast.For))
        if opens:
            self.scopes.append({})
        for name, child in node.children():
            if isinstance(node, c_ast.Case) and name == "expr":
                self.expression(child)
            elif isinstance(node, (c_ast.Goto, c_ast.Label)) and name != "stmt":
                continue
            else:
                self.statement(child)
        if opens:
            self.scopes.pop()

    def initializer(self, init: c_ast.Node | None) -> None:
        if isinstance(init, c_ast.InitList):
            for item in init.exprs:
                self.initializer(item.expr if isinstance(item, c_ast.NamedInitializer) else item)
        elif init is not None:
            self.expression(init)

    def expression(self, node: c_ast.Node) -> None:
        scope = self.visible()
        for e in _preorder(node):
            self.found.append(TypedExpr(self.text(e), self.types.of(e, scope), self.span(e), e))


def _preorder(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """``node`` and its subexpressions, an operator before its operands
    (not a call's argument list, a member's name, a type name, the
    operand of ``sizeof`` that is a type)."""
    stack = [node]
    while stack:
        e = stack.pop()
        if not isinstance(e, _EXPRESSIONS):
            continue
        yield e
        match e:
            case c_ast.FuncCall(name=callee, args=args):
                children = [callee] + list(args.exprs if args is not None else [])
            case c_ast.StructRef(name=base):
                children = [base]
            case c_ast.Cast(expr=operand):
                children = [operand]
            case c_ast.CompoundLiteral():
                children = []
            case _:
                children = [child for _, child in e.children()]
        stack.extend(reversed(children))
