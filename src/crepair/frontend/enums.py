"""Enumerations lowered to integers, as gcc compiles them on x86-64.

An enumeration constant is an ``int`` with its value (C11 6.7.2.2p3: the
first is 0 unless given, each next one the previous plus one), and an
enumerated type is ``unsigned int`` when none of its constants is
negative, else ``int`` (gcc's choice without ``-fshort-enums``; C11
6.7.2.2p4 leaves it to the implementation).  :func:`lower_enums` rewrites
the AST in place before anything else reads it: each use of a constant
becomes its value (the node keeps the name's coordinates, so spans still
show the name), each enumerated type its integer type, and a declaration
that only defines an enumeration disappears.  Constants follow C's scopes
(a block's local of the same name hides one, and the other way round).

>>> from pycparser import c_parser, c_generator
>>> ast = c_parser.CParser().parse(
...     "enum c { R, G = 5, B }; int main(void) { enum c x = B; return x - G; }")
>>> lower_enums(ast)  # nothing left as it is
[]
>>> print(c_generator.CGenerator().visit(ast).strip())
int main(void)
{
  unsigned int x = 6;
  return x - 5;
}
"""

from __future__ import annotations

import operator

from pycparser import c_ast

#: binary operators of constant expressions an enumerator's value may use
_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "<<": operator.lshift, ">>": operator.rshift,
    "|": operator.or_, "&": operator.and_, "^": operator.xor,
    "/": lambda a, b: int(a / b), "%": lambda a, b: a - b * int(a / b),  # C truncates towards zero
}
_BINARY.update({op: (lambda f: lambda a, b: int(f(a, b)))(f) for op, f in (
    ("<", operator.lt), (">", operator.gt), ("<=", operator.le), (">=", operator.ge), ("==", operator.eq),
    ("!=", operator.ne), ("&&", lambda a, b: a and b), ("||", lambda a, b: a or b))})
_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "!": lambda a: int(not a)}
_HIDDEN = None  # a scope's entry for a name that is not an enumeration constant there


def lower_enums(ast: c_ast.FileAST) -> list[c_ast.Enum]:
    """Rewrite the enumerations of ``ast`` in place (see the module
    docstring); returns those left as they are, whose values are not
    integer constant expressions crepair evaluates (``sizeof``, casts)."""
    lowering = _Lowering()
    lowering.file(ast)
    return lowering.unlowered


class _Lowering:
    def __init__(self) -> None:
        self.scopes: list[dict[str, int | None]] = [{}]
        self.tags: dict[str, list[int]] = {}  # an enumeration's tag -> its constants' values
        self.unlowered: list[c_ast.Enum] = []

    # ------------------------------------------------------------ scopes
    def lookup(self, name: str) -> int | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def file(self, ast: c_ast.FileAST) -> None:
        ast.ext = [e for e in ast.ext if not self.declaration(e)]

    def declaration(self, node: c_ast.Node) -> bool:
        """Lower one external declaration or block item; True when it only
        defined an enumeration (and is to be removed)."""
        if isinstance(node, c_ast.FuncDef):
            self.lower_type(node.decl)
            self.scopes[-1][node.decl.name] = _HIDDEN
            self.scopes.append({})
            params = getattr(node.decl.type, "args", None)
            for p in getattr(params, "params", None) or []:
                if getattr(p, "name", None):
                    self.scopes[-1][p.name] = _HIDDEN
            self.block(node.body, new_scope=False)
            self.scopes.pop()
            return False
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.Enum):
            return self.define(node.type) and node.name is None
        if isinstance(node, (c_ast.Decl, c_ast.Typedef)):
            self.lower_type(node)
            if isinstance(node, c_ast.Decl) and node.init is not None:
                node.init = self.expr(node.init)
            if node.name:
                self.scopes[-1][node.name] = _HIDDEN
            return False
        if isinstance(node, c_ast.DeclList):
            for d in node.decls:
                self.declaration(d)
            return False
        self.statement(node)
        return False

    def define(self, enum: c_ast.Enum) -> bool:
        """Enter the constants of ``enum``'s definition into the current
        scope; False when a value is not a constant expression crepair
        evaluates (the enumeration then stays)."""
        if enum.values is None:
            return True
        values, nxt = {}, 0
        for item in enum.values.enumerators:
            if item.value is not None:
                value = self.value(item.value, values)
                if value is None:
                    self.unlowered.append(enum)
                    return False
                nxt = value
            values[item.name] = nxt
            nxt += 1
        self.scopes[-1].update(values)
        if enum.name:
            self.tags[enum.name] = list(values.values())
        return True

    def value(self, node: c_ast.Node, local: dict[str, int]) -> int | None:
        """The value of an integer constant expression (None: not one)."""
        match node:
            case c_ast.Constant(type="int", value=text):
                digits = text.rstrip("uUlL")
                base = 16 if digits[:2].lower() == "0x" else 8 if digits.startswith("0") and len(digits) > 1 else 10
                try:
                    return int(digits, base)
                except ValueError:
                    return None
            case c_ast.Constant(type="char", value=text):  # 'a', '\n', '\0', '\x41'
                try:
                    chars = text[1:-1].encode("latin-1").decode("unicode_escape")
                except (UnicodeError, ValueError):
                    return None
                return ord(chars) if len(chars) == 1 else None
            case c_ast.ID(name=name):
                return local.get(name, self.lookup(name))
            case c_ast.UnaryOp(op=op, expr=e) if op in _UNARY:
                v = self.value(e, local)
                return None if v is None else _UNARY[op](v)
            case c_ast.TernaryOp(cond=c, iftrue=a, iffalse=b):
                test = self.value(c, local)
                return None if test is None else self.value(a if test else b, local)
            case c_ast.BinaryOp(op=op, left=a, right=b) if op in _BINARY:
                x, y = self.value(a, local), self.value(b, local)
                if x is None or y is None or (op in "/%" and y == 0):
                    return None
                return _BINARY[op](x, y)
        return None

    # ------------------------------------------------------------- types
    def lower_type(self, node: c_ast.Node) -> None:
        """Replace the enumerated types under a declaration's type by their
        integer types (defining the constants of an enumeration defined
        there, e.g. ``enum e {A, B} x;``)."""
        holder = node
        while hasattr(holder, "type"):
            inner = holder.type
            if isinstance(inner, c_ast.Enum):
                self.define(inner)
                holder.type = c_ast.IdentifierType(self.integer_type(inner), coord=inner.coord)
                return
            if isinstance(inner, c_ast.FuncDecl) and inner.args is not None:
                for p in inner.args.params:
                    self.lower_type(p)
            if isinstance(inner, c_ast.ArrayDecl) and inner.dim is not None and self.names_constant(inner.dim):
                value = self.value(inner.dim, {})  # int a[LAST + 1]: the dimension folded, as sizeof needs
                inner.dim = self.expr(inner.dim) if value is None else _constant(value, inner.dim.coord)
            if isinstance(inner, (c_ast.Struct, c_ast.Union)):
                for member in inner.decls or []:
                    self.lower_type(member)
                return
            holder = inner

    def names_constant(self, node: c_ast.Node) -> bool:
        """Whether expression ``node`` names an enumeration constant."""
        if isinstance(node, c_ast.ID):
            return self.lookup(node.name) is not None
        return any(self.names_constant(child) for _, child in node.children())

    def integer_type(self, enum: c_ast.Enum) -> list[str]:
        """gcc's type of ``enum``: ``unsigned int`` unless a constant is negative."""
        values = self.tags.get(enum.name, []) if enum.values is None else \
            [self.lookup(e.name) for e in enum.values.enumerators]
        return ["int"] if any(v is not None and v < 0 for v in values) else ["unsigned", "int"]

    # -------------------------------------------------------- statements
    def block(self, node: c_ast.Compound, new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append({})
        node.block_items = [i for i in node.block_items or [] if not self.declaration(i)] or None
        if new_scope:
            self.scopes.pop()

    def statement(self, node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Compound):
            self.block(node)
            return
        if isinstance(node, c_ast.For):
            self.scopes.append({})
            if isinstance(node.init, c_ast.DeclList):
                self.declaration(node.init)
            elif node.init is not None:
                node.init = self.expr(node.init)
            node.cond = None if node.cond is None else self.expr(node.cond)
            node.next = None if node.next is None else self.expr(node.next)
            self.statement(node.stmt)
            self.scopes.pop()
            return
        for name, child in node.children():
            if _is_statement(node, name):
                self.declaration(child)  # a block item: a declaration or a statement
            else:
                _set_child(node, name, self.expr(child))

    def expr(self, node: c_ast.Node) -> c_ast.Node:
        """``node`` with each enumeration constant it names replaced by its value."""
        if isinstance(node, c_ast.ID):
            value = self.lookup(node.name)
            return node if value is None else _constant(value, node.coord)
        if isinstance(node, (c_ast.Typename, c_ast.Decl)):
            self.lower_type(node)
            return node
        if isinstance(node, c_ast.StructRef):  # s.f: the member's name is no constant
            node.name = self.expr(node.name)
            return node
        for name, child in node.children():
            _set_child(node, name, self.expr(child))
        return node


def _is_statement(parent: c_ast.Node, name: str) -> bool:
    """Whether ``parent``'s child ``name`` is a statement (not an expression)."""
    return (isinstance(parent, c_ast.If) and name in ("iftrue", "iffalse")) \
        or (isinstance(parent, (c_ast.While, c_ast.DoWhile, c_ast.Label, c_ast.Switch)) and name == "stmt") \
        or (isinstance(parent, (c_ast.Case, c_ast.Default)) and name.startswith("stmts"))


def _set_child(node: c_ast.Node, name: str, value: c_ast.Node) -> None:
    """Set ``node``'s child named as by ``children()`` (``left``, ``exprs[2]``)."""
    if "[" in name:
        attr, index = name[:-1].split("[")
        getattr(node, attr)[int(index)] = value
    else:
        setattr(node, name, value)


def _constant(value: int, coord) -> c_ast.Node:
    literal = c_ast.Constant("int", str(abs(value)), coord=coord)
    return c_ast.UnaryOp("-", literal, coord=coord) if value < 0 else literal
