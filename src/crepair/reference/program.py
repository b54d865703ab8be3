"""The user's program, the renamed reference and the harness as one program.

Both files go through the usual front-end (each checked only where its
entry and ``--init`` functions reach).  Every file-scope name of the
reference (functions, variables, typedefs) gets the prefix
``AllRepair_correct_ref_`` — the specification prefix, so no scheme ever
mutates, blames or reports it — and the harness's own definitions the
prefix ``AllRepair_correct_harness_`` (a digit is added to both when a name
of either file already starts with them).  The harness
(:mod:`crepair.reference.harness`) is generated as C text and parsed.
The result is a :class:`ReferenceProgram`: its AST holds the three units'
definitions, ``path``/``original`` are the user's file (its text is never
changed, and the span index of its nodes stays exact), and
:class:`CombinedSpans` answers for the reference's nodes with the
reference's own spans (errors there name the reference file) and for the
harness's nodes with the span of the entry function's name in the user's
file (where a violated equality is reported, and the line the inputs show).

Why a combined AST rather than a combined text: the user's spans, and so
every diff, stay those of the untouched file, and the reference keeps its
own positions for its error messages.  Why ``--init`` exists: an entry
other than ``main`` starts in an arbitrary state (its uninitialized globals
are inputs), so set-up code such as TCAS's ``initialize()`` — which fills a
table the entry reads, and may itself be faulty — is never reached from the
entry; naming it runs it in both programs, after the inputs and before the
entry, and makes it repairable.  With entry ``main`` the globals start as C
starts them (zero or their initializer), as a run of the program does,
both programs read the same stdin, and the specification is an equal
return value of ``main`` and an equal output (not the final globals: a
program's result is what it prints and its exit status).
A violated equality is a NOT_EQUIVALENT violation naming what differs
(``the value f returns: 3, the reference's: 4``, ``global g``, ``the
output``); an uninitialized local of the reference is an input labelled
with the reference's file and line.  The counterexample's executed lines
are the user's (the reference's and the harness's statements are not
listed: their line numbers are another file's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast, c_parser

from crepair.errors import BadInput, InternalError, SourcePoint, UsageError
from crepair.frontend.parse import CProgram, load_program
from crepair.frontend.preprocess import in_header
from crepair.frontend.reach import reachable
from crepair.frontend.spans import Span
from crepair.options import ReferenceOptions
from crepair.reference.harness import Global, Param, Plan, harness_source, nondet_type, render
from crepair.reference.names import Renamer, Writes, calls
from crepair.typed.infer import Types
from crepair.typed.model import canonical

REF_PREFIX = "AllRepair_correct_ref"
HARNESS_PREFIX = "AllRepair_correct_harness"


class CombinedSpans:
    """The span index of a combined program: the user's for the user's
    nodes, the reference's for the reference's (by node identity), and
    ``anchor`` (a user span) for the harness's nodes."""

    def __init__(self, user, ref, ref_nodes: set[int], harness_nodes: set[int], anchor: Span):
        self._user, self._ref = user, ref
        self._ref_nodes, self._harness_nodes = ref_nodes, harness_nodes
        self._anchor = anchor

    def in_user_file(self, node: c_ast.Node) -> bool:
        """Whether ``node`` is the user's (not the reference's or the harness's)."""
        return id(node) not in self._harness_nodes and id(node) not in self._ref_nodes

    def point(self, node: c_ast.Node) -> SourcePoint:
        if id(node) in self._harness_nodes:
            return self._anchor.point
        return (self._ref if id(node) in self._ref_nodes else self._user).point(node)

    def span(self, node: c_ast.Node) -> Span:
        if id(node) in self._harness_nodes:
            return self._anchor
        return (self._ref if id(node) in self._ref_nodes else self._user).span(node)

    def line_span(self, node: c_ast.Node) -> Span:
        if id(node) in self._harness_nodes:
            return self._anchor
        return (self._ref if id(node) in self._ref_nodes else self._user).line_span(node)

    def statement_span(self, node: c_ast.Node) -> Span:
        if id(node) in self._harness_nodes:
            return self._anchor
        return (self._ref if id(node) in self._ref_nodes else self._user).statement_span(node)

    def __getattr__(self, name: str):
        return getattr(self._user, name)  # token-level queries: only ever asked about the user's nodes


@dataclass(slots=True)
class ReferenceProgram(CProgram):
    """A :class:`CProgram` whose encoder entry ``harness`` checks the user's
    ``entry`` against the ``reference`` (see the module docstring);
    ``options`` as given; ``inputs`` name the globals that are inputs."""

    reference: CProgram | None = None
    options: ReferenceOptions | None = None
    entry: str = "main"
    harness: str = ""
    inputs: tuple[str, ...] = field(default=())

    def with_text(self, text: str) -> "ReferenceProgram":
        """The combined program of ``text`` as the user's file (a patched copy)."""
        return load_with_reference(self.path, self.options, entry=self.entry, text=text)


def _all_names(ast: c_ast.FileAST) -> set[str]:
    out: set[str] = set()
    for _, node in _walk(ast):
        for attr in ("name", "declname"):
            value = getattr(node, attr, None)
            if isinstance(value, str):
                out.add(value)
        if isinstance(node, c_ast.IdentifierType):
            out.update(node.names)
    return out


def _walk(node: c_ast.Node):
    stack = [("", node)]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(item[1].children())


def _prefixes(names: set[str]) -> tuple[str, str]:
    k = 0
    while True:
        ref, har = (REF_PREFIX, HARNESS_PREFIX) if k == 0 else (f"{REF_PREFIX}{k}", f"{HARNESS_PREFIX}{k}")
        if not any(n.startswith(ref) or n.startswith(har) for n in names):
            return ref + "_", har + "_"
        k += 1


def _params(func: c_ast.FuncDef) -> list[Param]:
    args = func.decl.type.args
    knr = {d.name: d for d in (func.param_decls or [])}
    out = []
    for p in args.params if args else ():
        if isinstance(p, c_ast.ID):
            decl = knr.get(p.name) or c_ast.Decl(p.name, [], [], [], [], c_ast.TypeDecl(
                p.name, [], None, c_ast.IdentifierType(["int"])), None, None)
            out.append(Param(p.name, decl))
        elif isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and p.type.declname is None:
            continue  # (void)
        elif isinstance(p, c_ast.Decl) and p.name:
            out.append(Param(p.name, p))
    return out


def _signature(program: CProgram, func: c_ast.FuncDef) -> str:
    """The entry's signature, e.g. ``int(int, int *)``, for comparing the
    two programs': the types as the typed C layer resolves them
    (:func:`crepair.typed.model.canonical`: typedefs resolved, an array or
    pointer parameter as ``T *``)."""
    types = Types(program.ast)
    params = ", ".join(canonical(types.resolve(p.decl.type)) for p in _params(func))
    return f"{canonical(types.resolve(func.decl.type.type))}({params})"


def load_with_reference(path, options: ReferenceOptions, *, entry: str = "main",
                        text: str | None = None) -> ReferenceProgram:
    """The user's C file at ``path`` (or ``text`` as its contents) combined
    with the reference of ``options`` for entry function ``entry``.

    Raises ``BadInput`` for an unreadable or unsupported file (naming it),
    an entry or ``--init`` function either file does not define, or entry
    functions whose signatures differ (for ``main``: whose return types
    differ; ``main(void)`` and ``main(int argc, char *argv[])`` compare); ``UsageError`` for an ``--assume``
    that is not a C expression over the entry's parameters and the
    globals.  Neither file is written.
    """
    roots = (entry, *options.init)
    user = load_program(path, text=text, roots=roots)
    ref_path = options.path
    ref = load_program(ref_path, roots=())
    missing = [f for f in roots if f not in ref.functions]
    if missing:
        raise BadInput(f"{ref_path}: the reference does not define '{missing[0]}' "
                       f"({'the entry function' if missing[0] == entry else 'an --init function'})")
    ref = load_program(ref_path, roots=roots)
    sig_user, sig_ref = _signature(user, user.functions[entry]), _signature(ref, ref.functions[entry])
    if sig_user != sig_ref and not (entry == "main" and sig_user.split("(")[0] == sig_ref.split("(")[0]):
        raise BadInput(f"entry function '{entry}' is {sig_user} in {user.path} but {sig_ref} in the reference",
                       ref.spans.point(ref.functions[entry].decl))
    R, H = _prefixes(_all_names(user.ast) | _all_names(ref.ast))
    return _combine(user, ref, options, entry, R, H)


def _combine(user: CProgram, ref: CProgram, options: ReferenceOptions, entry: str, R: str, H: str):
    roots = (entry, *options.init)
    user_reach, ref_reach = reachable(user.ast, roots), reachable(ref.ast, roots)
    ref_nodes = {id(n) for _, n in _walk(ref.ast)}
    file_scope = set(ref.functions) | set(ref.typedefs) | {
        e.name for e in ref.ast.ext if isinstance(e, c_ast.Decl) and e.name and not _library(e)}
    table = {name: R + name for name in file_scope}
    # the nondet calls of both programs go through the harness's recorders
    nondet: dict[str, str] = {}
    for program, reach, side in ((user, user_reach, "user"), (ref, ref_reach, "ref")):
        for fname in sorted(reach.functions):
            for call in calls(program.functions[fname], lambda n: n not in program.functions and nondet_type(n)):
                nondet[call.name.name] = nondet_type(call.name.name)
                call.name.name = f"{H}nd_{side}_{call.name.name}"
    Renamer(table).rename_unit(ref.ast)
    ref_globals = {_old(decl.name, R): decl for decl in ref.globals}
    assumed = {n.name for expr in options.assume for _, n in _walk(_expression(expr)) if isinstance(n, c_ast.ID)}
    for decl in user.ast.ext:  # a global only an --assume names is still a global of the harness
        if isinstance(decl, c_ast.Decl) and decl.name in assumed - {g.name for g in user.globals} \
                and not isinstance(decl.type, c_ast.FuncDecl):
            user.globals.append(decl)
    user_globals = {decl.name: decl for decl in user.globals}
    writes_user, writes_ref = Writes(), Writes()
    for fname in sorted(user_reach.functions):
        writes_user.visit(user.functions[fname])
    for fname in sorted(ref_reach.functions):
        writes_ref.visit(ref.functions[fname])
    written_ref = {_old(n, R) for n in writes_ref.written}
    names = sorted(set(user_globals) | set(ref_globals))
    both = [Global(n, user_globals.get(n), ref_globals.get(n)) for n in names]
    inputs = [] if entry == "main" else [
        g for g in both if all(d is None or d.init is None for d in (g.user, g.ref))
        and "extern" not in ((g.user or g.ref).storage or [])]
    written = [] if entry == "main" else [  # a program's result is its output and exit status
        g for g in both if g.user is not None and g.ref is not None
        and (g.name in writes_user.written or g.name in written_ref)]
    func = user.functions[entry]
    returns = func.decl.type.type
    void = isinstance(returns, c_ast.TypeDecl) and isinstance(returns.type, c_ast.IdentifierType) \
        and returns.type.names == ["void"]
    plan = Plan(H, table, entry, None if void else returns,
                _params(func), inputs, written, options.init, options.assume, options.input_bound, nondet,
                stdio=entry == "main", ref_arity=len(_params(ref.functions[entry])))
    _check_assumes(user, plan)
    harness_ast = _parse_harness(user, ref, plan)
    harness_nodes = {id(n) for _, n in _walk(harness_ast)}
    anchor = _anchor(user, func)
    ext = list(user.ast.ext) + list(ref.ast.ext) + list(harness_ast.ext)
    combined = ReferenceProgram(
        user.path, user.original, c_ast.FileAST(ext), CombinedSpans(user.spans, ref.spans, ref_nodes,
                                                                    harness_nodes, anchor),
        roots=user.roots, reference=ref, options=options, entry=entry, harness=plan.main,
        inputs=tuple(g.name for g in inputs))
    for unit in (user.ast, ref.ast, harness_ast):
        for e in unit.ext:
            if isinstance(e, c_ast.FuncDef):
                combined.functions.setdefault(e.decl.name, e)
            elif isinstance(e, c_ast.Typedef):
                combined.typedefs.setdefault(e.name, e.type)
    combined.globals = list(user.globals) + list(ref.globals) + [
        e for e in harness_ast.ext if isinstance(e, c_ast.Decl) and not isinstance(e.type, c_ast.FuncDecl)]
    return combined


def _library(decl: c_ast.Decl) -> bool:
    """A function a header declares (the C library's: never renamed)."""
    return in_header(decl) and isinstance(decl.type, c_ast.FuncDecl)


def _old(name: str, R: str) -> str:
    return name[len(R):] if name.startswith(R) else name


def _anchor(user: CProgram, func: c_ast.FuncDef) -> Span:
    try:
        tok = user.spans.token(user.spans.token_at(func.decl))
        return user.spans.make_span(tok.start, tok.end)
    except InternalError:
        return user.spans.line_span(func)


def _typedef_prelude(user: CProgram, ref: CProgram) -> list[str]:
    return ["typedef " + render(e.type, e.name) + ";"
            for program in (user, ref) for e in program.ast.ext if isinstance(e, c_ast.Typedef)]


def _parse_harness(user: CProgram, ref: CProgram, plan: Plan) -> c_ast.FileAST:
    prelude = _typedef_prelude(user, ref)
    text = "\n".join(prelude) + "\n" + harness_source(plan)
    try:
        ast = c_parser.CParser().parse(text, filename="<crepair harness>")
    except c_parser.ParseError as exc:
        raise InternalError(f"the generated harness does not parse: {exc}\n{text}") from None
    ast.ext = ast.ext[len(prelude):]
    return ast


def _check_assumes(user: CProgram, plan: Plan) -> None:
    """Each ``--assume`` parses as one C expression over the entry's
    parameters and the user's globals (else ``UsageError``)."""
    known = {p.name for p in plan.params} | {d.name for d in user.ast.ext if isinstance(d, c_ast.Decl) and d.name}
    for expr in plan.assume:
        for _, node in _walk(_expression(expr)):
            if isinstance(node, c_ast.FuncCall):
                raise UsageError(f"--assume {expr!r}: calls are not allowed in an assumption")
            if isinstance(node, c_ast.Assignment) or (
                isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--")
            ):
                raise UsageError(f"--assume {expr!r}: assignments are not allowed in an assumption "
                                 "(compare with ==)")
            if isinstance(node, c_ast.ID) and node.name not in known:
                raise UsageError(f"--assume {expr!r}: '{node.name}' is neither a parameter of {plan.entry} "
                                 f"nor a global of {user.path}")


def _expression(expr: str) -> c_ast.Node:
    """The AST of an ``--assume`` expression; ``UsageError`` if it is not one C expression."""
    try:
        ast = c_parser.CParser().parse(f"void f(void) {{ ({expr}); }}", filename="<assume>")
        body = ast.ext[0].body.block_items
    except c_parser.ParseError:
        body = None
    if not body or len(body) != 1:
        raise UsageError(f"--assume {expr!r}: not a C expression")
    return body[0]
