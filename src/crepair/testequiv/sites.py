"""Where candidates differ: the sites of the user's functions.

Walks the function bodies of the user's file, never a header's code, with
the variables in scope, and finds (f1x, TOSEM'18, §5; Fig. 10's
locations):

- EXPR sites: if/while/do/for conditions, ``?:`` conditions and each
  operand of ``&&``/``||`` (conditions); right-hand sides of assignments,
  ``return`` expressions, call arguments (not string literals), array
  subscripts and initializers of local, non-``static`` declarations, when
  integer or pointer valued; the side-effect-free operand of a comparison
  whose other operand has side effects (``'\\n'`` in ``(c = getchar()) !=
  '\\n'``, whose condition as a whole the meta-program cannot evaluate
  twice); the string-literal format of ``printf`` and
  ``fprintf(stdout, ...)`` and the text of ``puts`` (FORMAT sites,
  :mod:`crepair.testequiv.formats`);
- STMT sites: expression statements, ``return``, ``break``, ``continue``;
  in a loop body also ``if``, loop and ``switch`` statements, for an
  output call written before them only (:attr:`Place.output_only`);
- DECL sites: local integer variables declared without an initializer.

Never sites: file-scope and ``static`` initializers, ``case`` labels, array
sizes, ``sizeof`` operands.  Places that could be sites but are not (a
floating-point value, a macro expansion, a directive inside) are noted as
``(file:line:col, why)``.
"""

from __future__ import annotations

from collections import Counter

from pycparser import c_ast

from crepair.errors import InternalError
from crepair.frontend.parse import CProgram
from crepair.frontend.preprocess import in_user_file
from crepair.testequiv.candidates import SiteKind
from crepair.testequiv.ctext import constant_value, is_expression, operand_context
from crepair.testequiv.effects import effects, side_effect_free
from crepair.testequiv.exprs import RELATIONAL
from crepair.testequiv.formats import FormatArgument, FormatCall, format_argument
from crepair.testequiv.membership import membership_constants
from crepair.testequiv.place import Place
from crepair.testequiv.roles import annotate
from crepair.testequiv.scope import Function, Var, VarKind, why_not_a_site
from crepair.testequiv.verbatim import Verbatim
from crepair.typed.infer import Types
from crepair.typed.model import CHAR, INT, VOID, CType, decay, pointer_to


def collect(program: CProgram, types: Types) -> tuple[list[Place], list[tuple[str, str]]]:
    """The places of every function of the user's file, in source order,
    and the notes on what was left out."""
    walker = _Walker(program, types)
    globals_: dict[str, Var] = {}
    for ext in program.ast.ext:
        user = in_user_file(ext)
        if isinstance(ext, c_ast.FuncDef) and user:
            walker.function(ext, dict(globals_))
        elif isinstance(ext, c_ast.Decl) and user and ext.name and not isinstance(ext.type, c_ast.FuncDecl):
            globals_[ext.name] = Var(ext.name, types.resolve(ext.type), VarKind.GLOBAL)
            if ext.init is not None:
                walker.note(ext, "file-scope initializer (not a site)")
    for p in walker.places:
        p.members = tuple(m for m in walker.members if p.span.start <= m[0] and m[1] <= p.span.end)
    annotate(program, walker.places)
    return walker.places, walker.notes


_STATEMENT_PARENTS = (c_ast.Compound, c_ast.Case, c_ast.Default)
_LOOPS = (c_ast.While, c_ast.DoWhile, c_ast.For)


class _Walker:
    def __init__(self, program: CProgram, types: Types):
        self._program = program
        self._spans = program.spans
        self._types = types
        self._verbatim = Verbatim(program)
        self.places: list[Place] = []
        self.notes: list[tuple[str, str]] = []
        self._scopes: list[dict[str, Var]] = []
        self._seen: set[int] = set()
        self._fn = Function("")
        self._counts: Counter[int] = Counter()
        self._spellings: list[tuple[int, str]] = []
        self._bound = 0
        self._loops: list[tuple[str, ...]] = []
        self._next_if: tuple[str, ...] = ()
        self._follows: tuple[c_ast.Node | None, c_ast.Node | None] = (None, None)  # (a block's item, loop before it)
        self.members: list[tuple[int, int]] = []

    def note(self, node: c_ast.Node, why: str) -> None:
        try:
            point = str(self._spans.span(node))
        except (InternalError, IndexError):
            point = str(self._spans.point(node))
        self.notes.append((point, why))

    # -- functions and scopes ---------------------------------------------------
    def function(self, fdef: c_ast.FuncDef, globals_: dict[str, Var]) -> None:
        self._fn = Function(fdef.decl.name)
        self._counts = Counter()
        self._spellings = []
        params: dict[str, Var] = {}
        ftype = fdef.decl.type
        args = ftype.args.params if isinstance(ftype, c_ast.FuncDecl) and ftype.args else []
        knr = {d.name: d for d in fdef.param_decls or []}
        for p in args:
            decl = knr.get(getattr(p, "name", None), p)
            if isinstance(decl, c_ast.Decl) and decl.name:
                params[decl.name] = Var(decl.name, self._types.resolve(decl.type), VarKind.PARAM)
            elif isinstance(p, c_ast.ID):
                params[p.name] = Var(p.name, INT, VarKind.PARAM)
        self._scopes = [globals_, params]
        self._stmt(fdef.body, fdef)
        first = {}
        for value, spelling in self._spellings:
            first.setdefault(value, spelling)
        self._fn.constants.update(
            (v, first[v]) for v, _ in sorted(self._counts.items(), key=lambda kv: (-kv[1], abs(kv[0]), kv[0]))
        )

    def _visible(self) -> dict[str, Var]:
        out: dict[str, Var] = {}
        for scope in self._scopes:
            out.update(scope)
        return out

    def _type_scope(self) -> dict[str, CType]:
        return {name: var.type for name, var in self._visible().items()}

    # -- statements -------------------------------------------------------------
    def _stmt(self, node: c_ast.Node | None, parent: c_ast.Node, dangling: bool = False) -> None:
        if node is None:
            return
        match node:
            case c_ast.Compound(block_items=items):
                self._scopes.append({})
                items = items or []
                for k, item in enumerate(items):
                    after = items[k + 1] if k + 1 < len(items) else None
                    self._next_if = self._reads(after.cond) if isinstance(after, c_ast.If) else ()
                    self._follows = (item, items[k - 1] if k and isinstance(items[k - 1], _LOOPS) else None)
                    self._stmt(item, node)
                self._scopes.pop()
            case c_ast.Decl():
                self._decl(node)
            case c_ast.DeclList(decls=decls):
                for d in decls:
                    self._decl(d)
            case c_ast.If(cond=c, iftrue=t, iffalse=f):
                self._compound(node, parent, dangling)
                self._condition(c, node)
                self._stmt(t, node, dangling=f is not None)
                self._stmt(f, node)
            case c_ast.While(cond=c, stmt=body) | c_ast.DoWhile(cond=c, stmt=body):
                self._compound(node, parent, dangling)
                self._bounded(lambda: self._condition(c, node))
                self._loops.append(self._reads(c))
                self._stmt(body, node)
                self._loops.pop()
            case c_ast.For(init=i, cond=c, next=n, stmt=body):
                self._compound(node, parent, dangling)
                self._scopes.append({})
                if isinstance(i, c_ast.DeclList):
                    self._stmt(i, node)
                elif i is not None:
                    self._expr(i)
                if c is not None:
                    self._bounded(lambda: self._condition(c, node))
                if n is not None:
                    self._expr(n)
                self._loops.append(self._reads(c) if c is not None else ())
                self._stmt(body, node)
                self._loops.pop()
                self._scopes.pop()
            case c_ast.Switch(cond=c, stmt=body):
                self._compound(node, parent, dangling)
                self._expr(c)
                self._stmt(body, node)
            case c_ast.Case(expr=label, stmts=stmts):
                self._constants_of(label)
                for s in stmts or []:
                    self._stmt(s, node)
            case c_ast.Default(stmts=stmts):
                for s in stmts or []:
                    self._stmt(s, node)
            case c_ast.Label(stmt=s):
                self._stmt(s, node)
            case c_ast.Return(expr=e):
                self._simple(node, e, parent, dangling)
                if e is not None:
                    self._site(e, node, keywords=(node,))
                    self._expr(e)
            case c_ast.Break() | c_ast.Continue():
                self._simple(node, None, parent, dangling)
            case c_ast.Goto() | c_ast.EmptyStatement() | c_ast.Pragma() | c_ast.Typedef():
                pass
            case c_ast.StaticAssert():
                pass
            case _ if is_expression(node):
                self._simple(node, node, parent, dangling)
                self._expr(node)
            case _:
                self.note(node, f"statement {type(node).__name__} not handled (no sites inside)")

    def _decl(self, decl: c_ast.Decl) -> None:
        if not decl.name:
            return
        var = Var(decl.name, self._types.resolve(decl.type), VarKind.LOCAL)
        storage = set(decl.storage or [])
        if decl.init is not None:
            if storage & {"static", "extern"}:
                self.note(decl.init, "initializer of a static local (not a site)")
            elif not isinstance(decl.init, c_ast.InitList):
                self._site(decl.init, decl, keywords=(decl,))
                self._expr(decl.init)
        elif var.integer and not storage & {"static", "extern"} and not var.type.const:
            self._decl_site(decl, var)
        self._scopes[-1][decl.name] = var

    def _decl_site(self, decl: c_ast.Decl, var: Var) -> None:
        spans = self._spans
        try:
            i = spans.token_at(decl)
            after = spans.token(i + 1).text
        except (InternalError, IndexError):
            return
        name = spans.token(i)
        if after not in (",", ";") or not self._verbatim.clean(i, i + 1) or name.text != decl.name:
            self.note(decl, "declaration inside a macro expansion")
            return
        span = spans.make_span(name.start, name.end)
        self.places.append(Place(SiteKind.DECL, decl, span, self._fn, var.type, self._visible(), writes=(decl.name,)))

    def _simple(self, node: c_ast.Node, expr: c_ast.Node | None, parent: c_ast.Node, dangling: bool) -> None:
        why = self._verbatim.statement(node)
        if why is not None:
            self.note(node, f"statement not a site: {why}")
            return
        reads, writes = effects(expr, self._visible()) if expr is not None else (set(), set())
        block = not isinstance(parent, _STATEMENT_PARENTS)
        alone = block or (isinstance(parent, c_ast.Compound) and len(parent.block_items or []) == 1)
        self.places.append(Place(
            SiteKind.STMT, node, self._spans.statement_span(node), self._fn, VOID,
            self._visible(), side_effect_free=expr is None or side_effect_free(expr),
            reads=tuple(sorted(reads)), writes=tuple(sorted(writes)), block=block, dangling=dangling and block,
            alone=alone, before_if=self._next_if if isinstance(parent, c_ast.Compound) else (),
            loop_reads=tuple(sorted({n for names in self._loops for n in names})), after_loop=self._after_loop(node),
        ))

    def _after_loop(self, node: c_ast.Node) -> tuple[int, int] | None:
        item, loop = self._follows
        if item is not node or loop is None or self._verbatim.compound(loop) is not None:
            return None
        span = self._spans.compound_span(loop)
        return span.start, span.end

    def _compound(self, node: c_ast.Node, parent: c_ast.Node, dangling: bool) -> None:
        """A compound statement in a loop body: a place where an output
        call may be written before it (OUTPUT only; reads and writes
        anything, as far as the dependency relation knows)."""
        if not self._loops or self._verbatim.compound(node) is not None:
            return
        block = not isinstance(parent, _STATEMENT_PARENTS)
        self.places.append(Place(
            SiteKind.STMT, node, self._spans.compound_span(node), self._fn, VOID, self._visible(),
            side_effect_free=False, reads=("*",), writes=("*",), block=block, dangling=dangling and block,
            loop_reads=tuple(sorted({n for names in self._loops for n in names})), output_only=True,
        ))

    # -- expressions ------------------------------------------------------------
    def _condition(self, cond: c_ast.Node, keyword: c_ast.Node) -> None:
        self._site(cond, keyword, condition=True, keywords=(keyword,))
        self._expr(cond)

    def _expr(self, node: c_ast.Node | None) -> None:
        """Find the sites inside expression ``node`` and record its names
        and constants."""
        match node:
            case None:
                return
            case c_ast.Assignment(lvalue=l, rvalue=r):
                self._expr(l)
                self._site(r, node, keywords=(node,))
                self._expr(r)
            case c_ast.BinaryOp(op=op, left=l, right=r):
                if op in ("||", "&&"):
                    self._membership(node)
                for operand in (l, r):
                    if op in ("&&", "||"):
                        self._site(operand, node, condition=True, keywords=(node,))
                    elif op in RELATIONAL and not side_effect_free(node) and side_effect_free(operand):
                        self._site(operand, node)  # ``(c = getchar()) != '\n'``: its plain side changes alone
                    self._expr(operand)
            case c_ast.TernaryOp(cond=c, iftrue=t, iffalse=f):
                self._site(c, node, condition=True)
                for e in (c, t, f):
                    self._expr(e)
            case c_ast.FuncCall(name=callee, args=args):
                self._expr(callee)
                fmt = format_argument(node)
                for k, a in enumerate(args.exprs if args is not None else []):
                    if fmt is not None and k == fmt.index:
                        self._format_site(a, fmt)
                    elif not (isinstance(a, c_ast.Constant) and a.type == "string"):
                        self._site(a, node)
                    self._expr(a)
            case c_ast.ArrayRef(name=n, subscript=s):
                self._expr(n)
                self._bound += 1
                self._site(s, node)
                self._expr(s)
                self._bound -= 1
            case c_ast.UnaryOp(op=op) if op in ("sizeof", "_Alignof"):
                return
            case c_ast.UnaryOp(op="-", expr=c_ast.Constant()):
                self._constant(node)
            case c_ast.UnaryOp(expr=e) | c_ast.Cast(expr=e):
                self._expr(e)
            case c_ast.StructRef(name=n):
                self._expr(n)
            case c_ast.ExprList(exprs=es):
                for e in es:
                    self._expr(e)
            case c_ast.Constant():
                self._constant(node)
            case c_ast.ID(name=name):
                self._counts_use(name, node)

    def _site(self, node: c_ast.Node, parent: c_ast.Node, condition: bool = False,
              keywords: tuple[c_ast.Node, ...] = ()) -> None:
        if id(node) in self._seen:
            return
        self._seen.add(id(node))
        if condition:
            value = INT
        else:
            value = decay(self._types.of(node, self._type_scope()))
            if not value.scalar:
                self.note(node, why_not_a_site(value))
                return
        why = self._verbatim.site(node, *keywords)
        if why is not None:
            self.note(node, f"expression not a site: {why}")
            return
        self.places.append(Place(
            SiteKind.EXPR, node, self._spans.span(node), self._fn, value, self._visible(),
            condition=condition, side_effect_free=side_effect_free(node), context=operand_context(parent, node),
            bound=self._bound > 0,
        ))

    # -- what the anti-patterns read ----------------------------------------------------
    def _bounded(self, walk) -> None:
        self._bound += 1
        try:
            walk()
        finally:
            self._bound -= 1

    def _reads(self, node: c_ast.Node | None) -> tuple[str, ...]:
        if node is None:
            return ()
        reads, _ = effects(node, self._visible())
        return tuple(sorted(reads))

    def _membership(self, node: c_ast.BinaryOp) -> None:
        """Record the constants of ``x == c1 || x == c2 ...`` (``!=`` with ``&&``)."""
        self.members += membership_constants(node, self.spelling, self._spans.span)

    def _format_site(self, node: c_ast.Node, fmt: FormatArgument) -> None:
        why = self._verbatim.site(node)
        if why is not None:
            self.note(node, f"format string not a site: {why}")
            return
        scope = self._type_scope()
        types = None
        if fmt.call is FormatCall.PRINTF:
            types = tuple(self._types.of(a, scope) for a in fmt.rest)
        pure = 0  # the last arguments free of side effects
        while pure < len(fmt.rest) and side_effect_free(fmt.rest[-1 - pure]):
            pure += 1
        self.places.append(Place(
            SiteKind.EXPR, node, self._spans.span(node), self._fn, pointer_to(CHAR), self._visible(),
            literal=True, format_types=types, loop_reads=tuple(sorted({n for names in self._loops for n in names})),
            format_ends=tuple(self._spans.span(n).end for n in (node, *fmt.rest)), format_pure=pure,
        ))

    # -- what a function uses ---------------------------------------------------------
    def _counts_use(self, name: str, node: c_ast.Node) -> None:
        if node.coord is not None:
            self._fn.uses.setdefault(name, []).append(node.coord.line)

    def _constants_of(self, node: c_ast.Node | None) -> None:
        if isinstance(node, c_ast.Constant) or (isinstance(node, c_ast.UnaryOp) and node.op == "-"):
            self._constant(node)

    def _constant(self, node: c_ast.Node) -> None:
        value = constant_value(node)
        text = self.spelling(node) if value is not None else None
        if text is not None:
            self._counts[value] += 1
            self._spellings.append((value, text))

    def spelling(self, node: c_ast.Node) -> str | None:
        """The user's text of a constant: its literal, or the macro it came from."""
        if self._verbatim.expression(node) is not None:
            return None
        span = self._spans.span(node)
        return self._program.original[span.start:span.end]
