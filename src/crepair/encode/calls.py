"""Functions: the entry, globals, parameters and calls (inlining).

AllRepair FM'16, Sect. 3.1: calls are inlined, recursive ones up to depth
B (the unwinding bound); a deeper call is cut (an unwinding assumption, or
with unwinding assertions a violation).  Each actual argument is a
location assigned to the parameter's fresh SSA variable.  Calls the
verification harness knows are modelled instead: inputs (``nondet()``,
``nondet_*()``, ``__VERIFIER_nondet_*()`` and undefined ``nondet...()``,
each a fresh value of its declared return type), ``assert``/``assume``
(S_demand), ``__VERIFIER_error``, ``abort``/``exit``, output functions
whose result is unconstrained, stdin and stdout
(:mod:`crepair.encode.stdio`: ``scanf``, ``getchar``, ``printf``,
``puts``, ``putchar``), the string functions of
:mod:`crepair.encode.strings`, ``qsort`` (:mod:`crepair.encode.sorting`),
``sprintf`` (:mod:`crepair.encode.sprintf`) and the library functions of
:mod:`crepair.encode.libc`; a call of another library function is
reported as not modelled.  A function the program defines is called even
when a library function has its name.  When outputs are compared
(``--reference`` from ``main``), ``exit(e)`` returns ``e`` from the
``main`` the harness called (the program ends: the reference runs next).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode import libc
from crepair.encode.env import Env
from crepair.encode.formula import Assertion, Constraint, Input, LocationKind, ProgramFormula, UnwindingCut, Violation
from crepair.frontend.preprocess import in_header
from crepair.encode.ops import Value, convert, string_bytes, to_bool
from crepair.encode.initializers import Initializers
from crepair.encode.allocation import ALLOCATORS, Allocation
from crepair.encode.argv import Arguments, is_argv
from crepair.encode.libc import Library
from crepair.encode.sorting import Sorting
from crepair.encode.sprintf import Sprintf
from crepair.encode.stdio import EQUAL, REWIND, SAME_OUTPUT, Stdio
from crepair.encode.strings import STRING_FUNCTIONS, Strings
from crepair.encode.walk import Ctx, Frame, State, Var
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt

#: the type of an undeclared ``nondet_<suffix>()`` / ``__VERIFIER_nondet_<suffix>()`` (SV-COMP's names)
_NONDET_TYPES = {
    "int": ct.INT, "uint": ct.UINT, "unsigned": ct.UINT, "unsigned_int": ct.UINT, "char": ct.CHAR,
    "uchar": ct.UCHAR, "unsigned_char": ct.UCHAR, "short": ct.SHORT, "ushort": ct.USHORT, "long": ct.LONG,
    "ulong": ct.ULONG, "longlong": ct.LONG, "ulonglong": ct.ULONG, "long_long": ct.LONG,
    "unsigned_long_long": ct.ULONG, "size_t": ct.ULONG, "bool": ct.BOOL, "_Bool": ct.BOOL,
    "s8": ct.CHAR, "u8": ct.UCHAR, "s16": ct.SHORT, "u16": ct.USHORT, "s32": ct.INT, "u32": ct.UINT,
    "s64": ct.LONG, "u64": ct.ULONG,
}
_NOT_INTEGER_INPUTS = {"float", "double", "pointer", "charp", "int128", "uint128"}
_ASSERTS = {"assert", "__VERIFIER_assert", "__CPROVER_assert", "__assert"}
_ASSUMES = {"assume", "__VERIFIER_assume", "__CPROVER_assume"}
_ERRORS = {"__VERIFIER_error", "reach_error"}
_IGNORED_CALLS = {"fflush"}
_STDIO = {"scanf": "_scanf", "fscanf": "_scanf", "printf": "_printf", "fprintf": "_printf", "puts": "_puts",
          "fputs": "_puts", "putchar": "_putchar", "fputc": "_putchar", "putc": "_putchar", "gets": "_gets",
          "fgets": "_gets", "fgetc": "_fgetc", "getc": "_fgetc"}


class Calls(Strings, Stdio, Sprintf, Library, Sorting, Allocation, Arguments, Initializers):
    """Encodes the entry function, globals and calls."""

    # --------------------------------------------------------------- inputs
    def _is_input_function(self, name: str) -> bool:
        """``nondet()``, ``nondet_*()``, ``__VERIFIER_nondet_*()``, and any
        other function named ``nondet...`` that the program does not define."""
        if name == "nondet" or name.startswith(("nondet_", "__VERIFIER_nondet_")):
            return True
        return name.startswith("nondet") and name not in self._p.functions

    def _input_type(self, name: str, node: c_ast.FuncCall) -> ct.IntType:
        """The declared return type of input function ``name``; undeclared,
        the type its suffix names (``nondet_uchar``), else ``int``."""
        decl = self._function_declarations().get(name)
        if decl is not None:
            try:
                ctype = self._type(decl.type.type)
            except UnsupportedConstruct as exc:
                raise UnsupportedConstruct(self._point(node), f"input function '{name}' of {exc.construct}") from None
            if isinstance(ctype, ct.ArrayType) or ctype == ct.VOID:
                raise UnsupportedConstruct(self._point(node), f"input function '{name}' that returns no integer")
            return ctype
        suffix = name.split("nondet_", 1)[1] if "nondet_" in name else ""
        if suffix in _NOT_INTEGER_INPUTS:
            raise UnsupportedConstruct(self._point(node), f"input function '{name}' of a type that is not an integer")
        return _NONDET_TYPES.get(suffix, ct.INT)

    def _function_declarations(self) -> dict[str, c_ast.Decl]:
        """The file-scope function declarations (prototypes), the last one of each name."""
        if self._declarations is None:
            self._declarations = {
                ext.name: ext for ext in self._p.ast.ext
                if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl)
            }
        return self._declarations

    def _declared_in_header(self, name: str) -> bool:
        decl = self._function_declarations().get(name)
        return decl is not None and in_header(decl)

    # ------------------------------------------------------------------ api
    def run(self) -> ProgramFormula:
        state = State(smt.BoolVal(True), Env(self._keys))
        compared = getattr(self._p, "harness", None) == self._entry and getattr(self._p, "entry", "") == "main"
        self._stdio_begin(state, compared)
        for decl in self._p.globals:
            state = self._global(decl, state)
        func = self._p.functions[self._entry]
        frame = self._enter(func, state)
        params = self._params(func)
        decls = {p.name: p for p in (func.decl.type.args.params if func.decl.type.args else ()) if hasattr(p, "name")}
        decls.update({d.name: d for d in (func.param_decls or [])})
        for i, (name, var) in enumerate(params):
            if var.unusable and i == 1 and is_argv(decls.get(name)) and params[0][1].ctype == ct.INT:
                var = self._argv_input(var, params[0][1], func, state)
                self._declare(name, var)
                continue
            self._declare(name, var)
            if isinstance(var.ctype, ct.ArrayType):
                self._nondet_array(var, name, func, state)
            elif isinstance(var.ctype, ct.PointerType):
                self._pointer_input(var, name, func, state)
            else:
                term = self._fresh(var.key, var.ctype)
                self.formula.inputs.append(Input(name, self._line(func), term, var.ctype.signed, guard=state.guard,
                                                 floating=ct.float_bits(var.ctype)))
                state.env[var.key] = term
        state = self._leave(func, frame, self._exec(func.body, state))
        return self.formula


    # -------------------------------------------------------------- globals
    def _global(self, decl: c_ast.Decl, state: State) -> State:
        init = decl.init
        if init is None and decl.name in self._scopes[0]:  # ``extern int g;`` or ``int g;`` again: no new value
            return state
        ctype = self._type(decl.type)
        if isinstance(ctype, ct.ArrayType) and init is not None:
            ctype, term, state = self._initialized_array(decl.name, ctype, init, state, located=False)
            self._declare(decl.name, Var(decl.name, ctype))
            self._arrays[decl.name] = term
            return state
        var = Var(f"{decl.name}", ctype)
        self._declare(decl.name, var)  # the file scope: no function entered yet
        if isinstance(init, c_ast.InitList) and not isinstance(ctype, (ct.ArrayType, ct.StructType)):
            init = self._scalar_initializer(decl.name, init)
        if isinstance(ctype, ct.StructType) and init is not None:
            state.env[var.key], state = self._struct_initializer(init, ctype, state, located=False)
        elif isinstance(ctype, ct.ArrayType):  # static storage starts zeroed
            self._arrays[var.key] = smt.K(smt.BitVecSort(32), smt.BitVecVal(0, ctype.elem.bits))
        elif init is not None:
            ctx = Ctx(state, {}, {}, True)
            state.env[var.key] = convert(self._expr(init, ctx), ctype).term
        else:
            state.env[var.key] = smt.BitVecVal(0, ctype.bits)
        return state

    # ------------------------------------------------------------ functions
    def _params(self, func: c_ast.FuncDef) -> list[tuple[str, Var]]:
        args = func.decl.type.args
        if args is None:
            return []
        knr = {d.name: d for d in (func.param_decls or [])}
        inst = next(self._instances)
        out = []
        for p in args.params:
            if isinstance(p, c_ast.ID):  # K&R: the type is in param_decls
                name, decl = p.name, knr.get(p.name)
            elif isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and p.type.declname is None:
                if self._type(p) == ct.VOID:
                    return []
                raise UnsupportedConstruct(self._point(p), "unnamed parameter")
            elif isinstance(p, c_ast.EllipsisParam):
                raise UnsupportedConstruct(self._point(p), "variadic function")
            else:
                name, decl = p.name, p
            key = f"{func.decl.name}@{inst}::{name}"
            try:
                ptype = self._type(decl) if decl is not None else ct.INT
            except UnsupportedConstruct as exc:
                out.append((name, Var(key, ct.INT, f"parameter '{name}': {exc.construct}")))
                continue
            out.append((name, Var(key, ptype)))
        return out

    def _enter(self, func: c_ast.FuncDef, state: State) -> Frame:
        name = func.decl.name
        rtype_node = func.decl.type.type
        rtype = self._type(rtype_node)
        if isinstance(rtype, ct.ArrayType):
            raise UnsupportedConstruct(self._point(func), "function returning a pointer")
        ret_key = None if rtype == ct.VOID else f"{name}@{next(self._instances)}::$return"
        if ret_key:
            state.env[ret_key] = self._fresh(ret_key, rtype)
        frame = Frame(name, ret_key, rtype)
        self._frames.append(frame)
        self._call_stack.append(name)
        self._saved_scopes.append(self._scopes)
        self._scopes = [self._scopes[0], {}]
        self._chain = None
        return frame

    def _leave(self, func: c_ast.FuncDef, frame: Frame, state: State) -> State:
        merged = self._merge(frame.returns + [state])
        self._frames.pop()
        self._call_stack.pop()
        self._scopes = self._saved_scopes.pop()
        self._chain = None
        return merged

    def _assigned_name(self, call: c_ast.FuncCall) -> str | None:
        """What the value of ``call`` is stored in, as written: ``x`` for
        ``int x = call;`` or ``x = call;`` (also ``a[i]``, ``s.f``, through a
        cast), else None.  The map of the whole file is built once."""
        names = getattr(self, "_assigned_names", None)
        if names is None:
            names = self._assigned_names = {}
            original = self._p.original

            def strip(node):
                return strip(node.expr) if isinstance(node, c_ast.Cast) else node

            class Visitor(c_ast.NodeVisitor):
                def visit_Decl(self, node):
                    if isinstance(strip(node.init), c_ast.FuncCall) and node.name:
                        names[strip(node.init)] = node.name
                    self.generic_visit(node)

                def visit_Assignment(inner, node):
                    if node.op == "=" and isinstance(strip(node.rvalue), c_ast.FuncCall):
                        span = self._p.spans.span(node.lvalue)
                        names[strip(node.rvalue)] = original[span.start:span.end]
                    inner.generic_visit(node)

            Visitor().visit(self._p.ast)
        return names.get(call)

    def _call(self, node: c_ast.FuncCall, ctx: Ctx) -> Value:
        if not isinstance(node.name, c_ast.ID):
            raise UnsupportedConstruct(self._point(node), "call through an expression")
        name = node.name.name
        args = node.args.exprs if node.args is not None else []
        state = ctx.state
        if self._is_input_function(name):
            ctype = self._input_type(name, node)
            term = self._fresh(f"{name}@{self._line(node)}", ctype)
            self.formula.inputs.append(Input(f"{name}()", self._line(node), term, ctype.signed, guard=state.guard,
                                             variable=self._assigned_name(node), floating=ct.float_bits(ctype)))
            return Value(term, ctype)
        if name in _ASSERTS or name in _ASSUMES:
            if not args:
                raise BadInput(f"{name} needs an argument", self._point(node))
            cond = to_bool(self._expr(args[0], ctx))
            span = self._p.spans.span(node)
            if name in _ASSERTS:
                self.formula.assertions.append(Assertion(ctx.state.guard, cond, span))
            else:
                self._assume(self.formula.assumptions, smt.Implies(ctx.state.guard, cond), span)
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if name in _ERRORS:
            self.formula.assertions.append(Assertion(state.guard, smt.BoolVal(False), self._p.spans.span(node)))
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if name == REWIND:
            return self._rewind_stdio(ctx)
        if name == SAME_OUTPUT:
            return self._same_output(node, ctx)
        if name == EQUAL:
            return self._equal(node, args, ctx)
        func = self._p.functions.get(name)
        if func is None and name in ("abort", "exit"):
            if name == "exit" and self._stdio.recorded and len(self._frames) > 1:
                return self._exit_main(node, args, ctx)
            self._assume(self.formula.assumptions, smt.Not(state.guard), self._p.spans.span(node))
            state.alive, state.guard = False, smt.BoolVal(False)
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        if func is None:
            if name in ALLOCATORS:
                return self._allocate(name, node, args, ctx)
            if name == "free":
                return self._free(node, args, ctx)
            if name in _IGNORED_CALLS:
                return self._unrecorded(name, node, args, ctx)
            if name in _STDIO:
                return getattr(self, _STDIO[name])(name, node, args, ctx)
            if name == "getchar" and not args:
                return self._getchar(node, ctx)
            if name in STRING_FUNCTIONS:
                return self._string_call(name, node, args, ctx)
            if name in libc.MODELS:
                return self._library_call(name, node, args, ctx)
            if name == "qsort":
                return self._qsort(node, args, ctx)
            if name == "sprintf":
                return self._sprintf(node, args, ctx)
            if name in libc.LIBRARY_FUNCTIONS or name.startswith("__builtin_") or self._declared_in_header(name):
                raise UnsupportedConstruct(self._point(node), f"call to '{name}': library function not modelled")
            raise UnsupportedConstruct(self._point(node), f"call to '{name}', which has no definition")
        if self._call_stack.count(name) >= self._bound and name in self._call_stack:
            span = self._p.spans.span(node)
            self.formula.cuts.append(UnwindingCut(state.guard, span, "recursion"))
            self._assume(self.formula.unwinding_assumptions, smt.Not(state.guard), span)
            rtype = self._type(func.decl.type.type)
            return Value(self._fresh(f"{name}$cut", rtype if isinstance(rtype, ct.IntType) else ct.INT), rtype)
        params = self._params(func)
        if len(params) != len(args):
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {len(params)}", self._point(node))
        bound: list[tuple[str, Var, smt.Term]] = []
        for (pname, var), arg in zip(params, args):
            if var.unusable and isinstance(arg, c_ast.Constant):  # main(1, 0) from a harness: argv unused
                bound.append((pname, var, None))
                continue
            if isinstance(var.ctype, ct.ArrayType) or var.unusable:
                if not isinstance(arg, c_ast.ID):
                    raise UnsupportedConstruct(self._point(arg), "array argument that is not an array variable")
                target = self._lookup(arg)
                bound.append((pname, Var(target.key, target.ctype), None))
                continue
            self._note_allocation(arg, var.ctype)
            term, ctx.state = self._located(arg, ctx.state, LocationKind.ARGUMENT, var.ctype, name=var.key)
            bound.append((pname, var, term))
        frame = self._enter(func, ctx.state)
        for pname, var, term in bound:
            self._declare(pname, var)
            if term is not None:
                ctx.state.env[var.key] = term
        escapes = self._escapes  # the callee's returns rejoin the caller
        ctx.state = self._leave(func, frame, self._exec(func.body, ctx.state))
        self._escapes = escapes
        if frame.ret_key is None:
            return Value(smt.BitVecVal(0, 32), ct.VOID)
        return Value(ctx.state.env[frame.ret_key], frame.ret_type)


    def _equal(self, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``__crepair_equal(a, b, "what")`` of the ``--reference`` harness:
        assert ``a == b`` as a NOT_EQUIVALENT check naming ``what``."""
        a, b = self._expr(args[0], ctx), self._expr(args[1], ctx)
        what = string_bytes(args[2].value, self._point(args[2])).decode("utf-8", "replace")
        if isinstance(a.ctype, ct.IntType) and isinstance(b.ctype, ct.IntType):
            common = ct.common(ct.promote(a.ctype), ct.promote(b.ctype))
            x, y = convert(a, common).term, convert(b, common).term
            signed = common.signed
        else:
            x, y, signed = a.term, b.term, False
        self.formula.assertions.append(Assertion(ctx.state.guard, x == y, self._p.spans.span(node),
                                                 Violation.NOT_EQUIVALENT, what, (x, y), signed))
        return Value(smt.BitVecVal(0, 32), ct.VOID)

    def _exit_main(self, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``exit(e)`` while outputs are compared: ``main`` (the function the
        harness called) returns ``e`` on this path."""
        frame = self._frames[1]
        state = ctx.state
        if len(args) != 1:
            raise BadInput(f"call to 'exit' with {len(args)} arguments, expected 1", self._point(node))
        code = convert(self._expr(args[0], ctx), ct.INT)
        left = State(state.guard, state.env.copy(), True)
        if frame.ret_key is not None:
            left.env[frame.ret_key] = convert(code, frame.ret_type).term
        frame.returns.append(left)
        self._escapes += 1
        state.alive, state.guard = False, smt.BoolVal(False)
        return Value(smt.BitVecVal(0, 32), ct.VOID)
