"""C (pycparser AST of :func:`crepair.frontend.load_program`) -> heap IR.

The C-to-IR generator of Wolverine2 (§2.2, §3): one location per source
statement or condition, each with its exact span, so a repaired IR prints as
a diff of the user's file.  Anything outside the heap subset raises
:class:`~crepair.errors.UnsupportedConstruct` with file:line:col.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend import CProgram
from crepair.heap.ir import INT, Atom, BoolOp, Branch, Cond, Function, Gap, Instr, Loop, Operand, Seq, Stmt, ptr
from crepair.typed.infer import Types, from_fake_libc
from crepair.typed.model import TypeKind

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


def struct_fields(program: CProgram) -> dict[str, dict[str, str]]:
    """Every struct with a body (but the C library's): tag -> field -> IR
    type (file order)."""
    out: dict[str, dict[str, str]] = {}
    types = Types(program.ast)

    class V(c_ast.NodeVisitor):
        def visit_Struct(self, node: c_ast.Struct) -> None:
            if node.decls is not None and node.name and not from_fake_libc(node):  # not the C library's
                out[node.name] = {}
                for d in node.decls:
                    out[node.name][d.name] = _type(program, d.type, d, types)
            self.generic_visit(node)

    V().visit(program.ast)
    return out


def _type(program: CProgram, t: c_ast.Node, where: c_ast.Node, types: Types) -> str:
    """The IR type of declared type ``t`` (:data:`INT` or a struct
    pointer), as the typed C layer (``types``, the program's) resolves it
    (typedefs followed).  Raises ``UnsupportedConstruct`` at ``where`` for
    any other type."""
    ctype = types.resolve(t)
    if ctype.kind == TypeKind.INTEGER:
        return INT
    if ctype.kind == TypeKind.POINTER:
        target = ctype.target
        if target is not None and target.kind == TypeKind.RECORD and target.record.startswith("struct ") \
                and "#" not in target.record:  # (an anonymous struct has no tag to name it by)
            return ptr(target.record.split(" ", 1)[1])
        raise UnsupportedConstruct(program.spans.point(where), "a pointer that is not to a struct")
    raise UnsupportedConstruct(program.spans.point(where), "a variable that is neither an integer nor a struct pointer")


class _Builder:
    def __init__(self, program: CProgram, name: str):
        self.p = program
        self.sp = program.spans
        self.text = program.original
        self.starts = [0] + [i + 1 for i, ch in enumerate(self.text) if ch == "\n"]
        self.instrs: list[Instr] = []
        self.gaps: list[Gap] = []
        self.structs = struct_fields(program)
        self.types = Types(program.ast)
        self.globals: dict[str, str] = {}
        for g in program.globals:
            if not isinstance(g.type, c_ast.FuncDecl):
                try:
                    self.globals[g.name] = _type(program, g.type, g, self.types)
                except UnsupportedConstruct:
                    pass  # a global the function never names
        self.params: dict[str, str] = {}
        self.locals: dict[str, str] = {}
        self.uninit: list[tuple[int, str]] = []
        self.name = name

    # -- positions -----------------------------------------------------------
    def point(self, node: c_ast.Node):
        return self.sp.point(node)

    def reject(self, node: c_ast.Node, what: str):
        raise UnsupportedConstruct(self.point(node), f"{what} (heap scheme)")

    def offset(self, node: c_ast.Node) -> int:
        pt = self.point(node)
        return self.starts[pt.line - 1] + pt.column - 1

    def gap_before(self, node: c_ast.Node) -> Gap:
        off = self.offset(node)
        line_start = self.starts[self.point(node).line - 1]
        prefix = self.text[line_start:off]
        if prefix.strip() == "":
            return Gap(len(self.gaps), line_start, True, prefix)
        return Gap(len(self.gaps), off, False, "")

    def gap_at_end(self, compound: c_ast.Compound, indent: str) -> Gap:
        close = _closing_brace(self.text, self.offset(compound))
        line_start = self.text.rfind("\n", 0, close) + 1
        if self.text[line_start:close].strip() == "":
            return Gap(len(self.gaps), line_start, True, indent)
        return Gap(len(self.gaps), close, False, "")

    # -- function ------------------------------------------------------------
    def function(self) -> Function:
        fdef = self.p.functions.get(self.name)
        if fdef is None:
            raise BadInput(f"{self.p.path}: function '{self.name}' is not defined (use --function)")
        ftype = fdef.decl.type
        if ftype.args is not None:
            for prm in ftype.args.params:
                if isinstance(prm, c_ast.EllipsisParam):
                    self.reject(prm, "a variadic function")
                if prm.name is None:
                    continue  # (void)
                self.params[prm.name] = _type(self.p, prm.type, prm, self.types)
        ret = ftype.type
        returns = None
        if not (isinstance(ret, c_ast.TypeDecl) and isinstance(ret.type, c_ast.IdentifierType)
                and ret.type.names == ["void"]):
            returns = _type(self.p, ret, fdef.decl, self.types)
        body = self.seq(fdef.body)
        return Function(self.name, self.p.path, self.instrs, body, self.params, self.locals, self.globals,
                        self.structs, self.gaps, returns, self.uninit)

    def seq(self, stmt: c_ast.Node | None) -> Seq:
        if stmt is None:
            return Seq(())
        if not isinstance(stmt, c_ast.Compound):
            return Seq(tuple(self.node(stmt)))
        nodes, gaps = [], []
        indent = "    "
        for item in stmt.block_items or ():
            made = self.node(item)
            for k, n in enumerate(made):
                g = self.gap_before(item) if k == 0 else Gap(len(self.gaps), -1, False, "")
                if isinstance(item, c_ast.Decl) and not g.line_start:
                    g = Gap(g.index, -1, False, "")  # not between two declarators
                if g.line_start:
                    indent = g.indent
                self.gaps.append(g)
                gaps.append(g)
                nodes.append(n)
        end = self.gap_at_end(stmt, indent)
        self.gaps.append(end)
        gaps.append(end)
        return Seq(tuple(nodes), tuple(gaps))

    def node(self, s: c_ast.Node) -> list:
        match s:
            case c_ast.Decl():
                if s.name is None or isinstance(s.type, c_ast.FuncDecl):
                    self.reject(s, "a declaration that is not a variable")
                self.locals[s.name] = _type(self.p, s.type, s, self.types)
                if s.init is None:
                    at = self.text.find(s.name, self.offset(s))
                    if at >= 0:
                        self.uninit.append((at + len(s.name), self.locals[s.name]))
                    return []
                lhs = Operand("var", self.locals[s.name], s.name)  # the declared name is never changed
                return [self.instr(s, self.assign(lhs, s.init, s), self.decl_span(s))]
            case c_ast.Assignment() | c_ast.UnaryOp() | c_ast.FuncCall():
                return [self.instr(s, self.expression_stmt(s), self.sp.statement_span(s))]
            case c_ast.Return():
                rhs = () if s.expr is None else (self.operand(s.expr),)
                return [self.instr(s, Stmt("return", rhs=rhs), self.sp.statement_span(s))]
            case c_ast.If():
                cond = self.new_cond(s.cond)
                return [Branch(cond, self.seq(s.iftrue), self.seq(s.iffalse))]
            case c_ast.While():
                cond = self.new_cond(s.cond)
                return [Loop(cond, self.seq(s.stmt), self.point(s).line)]
            case c_ast.For():
                out = []
                if s.init is not None:
                    if isinstance(s.init, c_ast.DeclList):
                        for d in s.init.decls:
                            out += self.node(d)
                    else:
                        out.append(self.instr(s.init, self.expression_stmt(s.init), self.sp.span(s.init)))
                if s.cond is None:
                    self.reject(s, "a for loop without a condition")
                cond = self.new_cond(s.cond)
                body = self.seq(s.stmt)
                if s.next is not None:
                    nxt = self.instr(s.next, self.expression_stmt(s.next), self.sp.span(s.next))
                    body = Seq(body.nodes + (nxt,), body.gaps)
                return out + [Loop(cond, body, self.point(s).line)]
            case c_ast.Compound():
                inner = self.seq(s)
                return list(inner.nodes)
            case c_ast.EmptyStatement():
                return []
        self.reject(s, f"a {type(s).__name__} statement")

    def decl_span(self, d: c_ast.Decl):
        start = self.offset(d)
        return self.sp.make_span(start, self.sp.span(d.init).end)

    def instr(self, node: c_ast.Node, stmt: Stmt, span) -> Instr:
        ins = Instr(len(self.instrs) + 1, span, stmt=stmt)
        self.instrs.append(ins)
        return ins

    def new_cond(self, e: c_ast.Node) -> Instr:
        cond = self.cond(e)
        ins = Instr(len(self.instrs) + 1, self.sp.span(e), cond=cond)
        self.instrs.append(ins)
        return ins

    # -- statements ----------------------------------------------------------
    def expression_stmt(self, e: c_ast.Node) -> Stmt:
        match e:
            case c_ast.Assignment(op="="):
                return self.assign(self.operand(e.lvalue, lvalue=True), e.rvalue, e)
            case c_ast.Assignment(op="+=" | "-="):
                lhs = self.operand(e.lvalue, lvalue=True)
                return Stmt("assign", lhs, (_fixed(lhs), self.operand(e.rvalue)), e.op[0])
            case c_ast.UnaryOp(op="p++" | "++" | "p--" | "--"):
                lhs = self.operand(e.expr, lvalue=True)
                if lhs.type != INT:
                    self.reject(e, "pointer arithmetic")
                return Stmt("assign", lhs, (_fixed(lhs), Operand("const", INT, value=1)), "+" if "+" in e.op else "-")
            case c_ast.FuncCall(name=c_ast.ID(name="free")):
                args = e.args.exprs if e.args else []
                if len(args) != 1:
                    self.reject(e, "free without one argument")
                return Stmt("free", rhs=(self.operand(args[0]),))
        self.reject(e, "this kind of statement")

    def assign(self, lhs: Operand, rhs: c_ast.Node, where: c_ast.Node) -> Stmt:
        r = rhs.expr if isinstance(rhs, c_ast.Cast) and _is_malloc(rhs.expr) else rhs
        if _is_malloc(r):
            if not lhs.type.startswith("ptr:"):
                self.reject(where, "malloc into a non-pointer")
            return Stmt("alloc", lhs, op=r.name.name if r.name.name == "calloc" else "")
        if isinstance(r, c_ast.BinaryOp) and r.op in ("+", "-"):
            a, b = self.operand(r.left), self.operand(r.right)
            if a.type != INT or b.type != INT:
                self.reject(r, "pointer arithmetic")
            return Stmt("assign", lhs, (a, b), r.op)
        right = self.operand(r, expect=lhs.type)
        if right.type != lhs.type:
            self.reject(where, f"an assignment of {right.type} to {lhs.type}")
        return Stmt("assign", lhs, (right,))

    # -- expressions ---------------------------------------------------------
    def var_type(self, node: c_ast.ID) -> str:
        for scope in (self.locals, self.params, self.globals):
            if node.name in scope:
                return scope[node.name]
        self.reject(node, f"the name '{node.name}' (not a variable of the heap subset)")

    def operand(self, e: c_ast.Node, lvalue: bool = False, expect: str | None = None) -> Operand:
        match e:
            case c_ast.ID(name="NULL"):
                return Operand("null", expect or "ptr:")
            case c_ast.ID():
                return Operand("var", self.var_type(e), e.name, name_span=self.sp.span(e))
            case c_ast.StructRef(type="->", name=c_ast.ID() as base):
                btype = self.var_type(base)
                tag = btype[4:] if btype.startswith("ptr:") else None
                fields = self.structs.get(tag or "", {})
                if e.field.name not in fields:
                    self.reject(e, f"the field '{e.field.name}'")
                return Operand("field", fields[e.field.name], base.name, e.field.name, base_type=btype,
                               name_span=self.sp.span(base), field_span=self.sp.span(e.field))
            case c_ast.StructRef(type="->"):
                self.reject(e, "a field of an expression (use a variable: t = a->f; t->g)")
            case c_ast.Constant(type="int") if not lvalue:
                value = int(e.value.rstrip("uUlL"), 0)
                if value == 0 and expect is not None and expect.startswith("ptr:"):
                    return Operand("null", expect)
                return Operand("const", INT, value=value)
            case c_ast.Cast(expr=c_ast.Constant(value="0")) if not lvalue:
                return Operand("null", expect or "ptr:")
            case c_ast.UnaryOp(op="-", expr=c_ast.Constant(type="int")) if not lvalue:
                return Operand("const", INT, value=-int(e.expr.value.rstrip("uUlL"), 0))
        self.reject(e, "this expression")

    def cond(self, e: c_ast.Node) -> Cond:
        match e:
            case c_ast.BinaryOp(op="&&" | "||"):
                return BoolOp(e.op, self.cond(e.left), self.cond(e.right))
            case c_ast.UnaryOp(op="!"):
                return BoolOp("!", self.cond(e.expr))
            case c_ast.BinaryOp(op=op) if op in _COMPARE:
                left = self.operand(e.left)
                right = self.operand(e.right, expect=left.type)
                if left.kind == "null":
                    left = Operand("null", right.type)
                if left.type != right.type:
                    self.reject(e, f"a comparison of {left.type} with {right.type}")
                if left.type != INT and op not in ("==", "!="):
                    self.reject(e, "an ordered comparison of pointers")
                tok = self.sp.token(self.sp.op_index(e))
                return Atom(op, left, right, self.sp.make_span(tok.start, tok.end))
        left = self.operand(e)
        zero = Operand("const", INT, value=0) if left.type == INT else Operand("null", left.type)
        return Atom("!=", left, zero)


def _fixed(o: Operand) -> Operand:
    """``o`` read again for ``x += e``: the same variable, never changed alone."""
    return Operand(o.kind, o.type, o.name, o.field, o.value, o.base_type)


def _is_malloc(e: c_ast.Node) -> bool:
    return isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and e.name.name in ("malloc", "calloc")


def _closing_brace(text: str, open_at: int) -> int:
    """Offset of the ``}`` matching the ``{`` at ``open_at`` (comments,
    strings and character constants skipped)."""
    depth, i, n = 0, open_at, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


def build_function(program: CProgram, name: str) -> Function:
    """The heap IR of function ``name`` of ``program`` (loaded with
    ``real_c=True``).  Raises ``BadInput`` when it is not defined and
    ``UnsupportedConstruct`` (file:line:col) for C outside the subset."""
    return _Builder(program, name).function()
