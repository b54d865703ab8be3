"""The equivalence harness, as C text over the user's and the renamed
reference's definitions.

For an entry ``f`` with parameters ``p1 … pk``, uninitialized globals
``g1 … gm`` (inputs unless the entry is ``main``) and ``--init`` functions
``i1 … ij`` the harness reads (``H_``: the harness prefix, ``R_``: the
reference's)::

    void H_main(T1 p1, …, G1 g1, …) {        /* every input: a parameter */
        H_in_g1 = g1; …                       /* the globals' inputs, kept */
        H_load();                             /* g1 = R_g1 = H_in_g1; … */
        __VERIFIER_assume(EXPR); …            /* --assume, on the initial state */
        i1(); R_i1(); …                       /* --init */
        H_ret = f(p1, …);  H_ret_ref = R_f(p1, …);
        __crepair_equal(H_ret, H_ret_ref, "the value f returns");
        H_check();                            /* g == R_g for every global written */
    }

For entry ``main`` (a program reading stdin and writing stdout) the
harness has no inputs of its own: ``main`` gets ``argc`` 1 and an
``argv`` it must not use, both programs read the same stdin (the
reference reads it again from its first token) and the specification is
equal return values and equal outputs (:mod:`crepair.encode.stdio`)::

    void H_main(void) {
        H_ret = main(1, 0);  __crepair_rewind_stdio();  H_ret_ref = R_main(1, 0);
        __crepair_equal(H_ret, H_ret_ref, "the value main returns");  __crepair_same_output();
    }

Array inputs hold their first ``input_bound`` elements (global arrays: at
most their size; the rest keep their zero); an array parameter is copied
for the reference and both copies are compared afterwards.  ``nondet_*()``
calls of both programs go through a recorder: the user's k-th call of
``nondet_int`` returns a fresh input and records it, the reference's k-th
call returns the user's k-th value (the user's program runs first) or, if
the user called it fewer times, a fresh input of its own.
"""

from __future__ import annotations

from crepair.encode.stdio import EQUAL

import copy
from dataclasses import dataclass

from pycparser import c_ast, c_generator

from crepair.reference.names import declarator

NONDET_TYPES = {
    "int": "int", "uint": "unsigned int", "unsigned": "unsigned int", "char": "char", "uchar": "unsigned char",
    "short": "short", "ushort": "unsigned short", "long": "long", "ulong": "unsigned long",
    "bool": "_Bool", "_Bool": "_Bool",
}
NONDET_BUFFER = 1 << 16  # recorded values per nondet function


def nondet_type(name: str) -> str | None:
    """The C type a ``nondet_*``/``__VERIFIER_nondet_*`` function returns, None for another name."""
    if not (name.startswith("nondet_") or name.startswith("__VERIFIER_nondet_")):
        return None
    return NONDET_TYPES.get(name.split("nondet_", 1)[1])


def const_int(node: c_ast.Node | None) -> int | None:
    """The value of an integer constant expression of literals (``4``,
    ``100+5``), None for anything else."""
    match node:
        case c_ast.Constant(type="int", value=v):
            digits = v.rstrip("uUlL")
            octal = len(digits) > 1 and digits[0] == "0" and digits.isdigit()
            try:
                return int(digits, 8) if octal else int(digits, 0)
            except ValueError:
                return None
        case c_ast.UnaryOp(op="-", expr=e):
            v = const_int(e)
            return None if v is None else -v
        case c_ast.BinaryOp(op=op, left=l, right=r) if op in ("+", "-", "*"):
            a, b = const_int(l), const_int(r)
            if a is None or b is None:
                return None
            return a + b if op == "+" else a - b if op == "-" else a * b
    return None


def render(type_node: c_ast.Node, name: str, dim: int | None = None) -> str:
    """``type_node`` declared as ``name`` in C (``int x[4]``); ``dim``
    replaces the outermost array size.  ``type_node`` is not changed."""
    t = copy.deepcopy(type_node)
    if dim is not None and isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        t = c_ast.ArrayDecl(t.type, c_ast.Constant("int", str(dim)), [])
    inner = declarator(t) if not isinstance(t, c_ast.TypeDecl) else t
    if inner is not None:
        inner.declname = name
        inner.quals = [q for q in inner.quals if q != "const"]
    return c_generator.CGenerator().visit(c_ast.Decl(name, [], [], [], [], t, None, None))


def is_array(type_node: c_ast.Node) -> bool:
    return isinstance(type_node, (c_ast.ArrayDecl, c_ast.PtrDecl))


@dataclass(frozen=True, slots=True)
class Global:
    """A global named ``name`` in the user's program (``user``) and/or the
    reference (``ref``, its ``Decl`` after renaming); ``size``: elements
    that are inputs or compared, per program (None: a scalar)."""

    name: str
    user: c_ast.Decl | None
    ref: c_ast.Decl | None

    def size(self, decl: c_ast.Decl | None, bound: int) -> int | None:
        if decl is None or not is_array(decl.type):
            return None
        n = const_int(decl.type.dim) if isinstance(decl.type, c_ast.ArrayDecl) else None
        return bound if n is None else max(0, min(n, bound))


@dataclass(frozen=True, slots=True)
class Param:
    """An entry parameter: its ``name`` and the user's ``decl`` of it."""

    name: str
    decl: c_ast.Node


@dataclass(slots=True)
class Plan:
    """What the harness is made of (see the module docstring): ``H`` the
    harness prefix, ``ref_name`` maps a reference name to its new one."""

    H: str
    ref_name: dict[str, str]
    entry: str
    returns: c_ast.Node | None  # the user's return type (TypeDecl), None for void
    params: list[Param]
    inputs: list[Global]  # globals that are inputs
    written: list[Global]  # globals compared at the end (in both programs)
    init: tuple[str, ...]
    assume: tuple[str, ...]
    bound: int
    nondet: dict[str, str]  # nondet function -> its C type (calls renamed to H + "nd_user_"/"nd_ref_" + name)
    stdio: bool = False  # entry main: stdin shared, outputs compared, parameters not inputs
    ref_arity: int = 0  # with stdio: the number of parameters of the reference's main

    @property
    def main(self) -> str:
        return self.H + "main"


def _lines(plan: Plan, input_names: dict[str, str]) -> list[str]:
    H, R, b = plan.H, plan.ref_name, plan.bound
    out: list[str] = []
    for name, ctype in sorted(plan.nondet.items()):
        buf, nu, nr = f"{H}nd_{name}", f"{H}nd_{name}_n", f"{H}nd_{name}_m"
        out += [f"{ctype} {buf}[{NONDET_BUFFER}];", f"int {nu};", f"int {nr};",
                f"{ctype} {H}nd_user_{name}(void) {{ {ctype} v = {name}(); {buf}[{nu}] = v; {nu} = {nu} + 1; "
                f"return v; }}",
                f"{ctype} {H}nd_ref_{name}(void) {{ {ctype} v; if ({nr} < {nu}) v = {buf}[{nr}]; "
                f"else v = {name}(); {nr} = {nr} + 1; return v; }}"]
    load: list[str] = []
    for g in plan.inputs:
        decl = g.user or g.ref
        n_user, n_ref = g.size(g.user, b), g.size(g.ref, b)
        if n_user is None and n_ref is None:
            out.append(render(decl.type, f"{H}in_{g.name}") + ";")
            load += [f"{t} = {H}in_{g.name};" for t in (g.user and g.name, g.ref and R[g.name]) if t]
        else:
            n = max(n_user or 0, n_ref or 0)
            out.append(render(decl.type, f"{H}in_{g.name}", max(n, 1)) + ";")
            for t, k in ((g.user and g.name, n_user), (g.ref and R[g.name], n_ref)):
                if t:
                    load += [f"{t}[{i}] = {H}in_{g.name}[{i}];" for i in range(k or 0)]
    out.append(f"void {H}load(void) {{ {' '.join(load)} }}")
    check: list[str] = []
    for g in plan.written:
        n_user, n_ref = g.size(g.user, b), g.size(g.ref, b)
        if n_user is None and n_ref is None:
            check.append(f'{EQUAL}({g.name}, {R[g.name]}, "global {g.name}");')
        elif n_user is not None and n_ref is not None:
            check += [f'{EQUAL}({g.name}[{i}], {R[g.name]}[{i}], "global {g.name}[{i}]");'
                      for i in range(min(n_user, n_ref))]
    out.append(f"void {H}check(void) {{ {' '.join(check)} }}")
    if plan.returns is not None:
        out += [render(plan.returns, f"{H}ret") + ";", render(plan.returns, f"{H}ret_ref") + ";"]
    copies = []
    for p in plan.params:
        if is_array(p.decl.type) and not plan.stdio:
            out.append(render(p.decl.type, f"{H}arg_{p.name}", b) + ";")
            copies.append(p)
    # the harness function: the inputs are its parameters
    formals = [] if plan.stdio else [render(p.decl.type, p.name, b if is_array(p.decl.type) else None)
                                     for p in plan.params]
    for g in plan.inputs:
        decl = g.user or g.ref
        n = max(g.size(g.user, b) or 0, g.size(g.ref, b) or 0)
        formals.append(render(decl.type, input_names[g.name], max(n, 1) if is_array(decl.type) else None))
    body = []
    for g in plan.inputs:
        if is_array((g.user or g.ref).type):
            n = max(g.size(g.user, b) or 0, g.size(g.ref, b) or 0)
            body += [f"{H}in_{g.name}[{i}] = {input_names[g.name]}[{i}];" for i in range(n)]
        else:
            body.append(f"{H}in_{g.name} = {input_names[g.name]};")
    body.append(f"{H}load();")
    body += [f"__VERIFIER_assume({expr});" for expr in plan.assume]
    for p in copies:
        body += [f"{H}arg_{p.name}[{i}] = {p.name}[{i}];" for i in range(b)]
    for f in plan.init:
        body += [f"{f}();", f"{R[f]}();"]
    args = ", ".join(p.name for p in plan.params)
    ref_args = ", ".join(f"{H}arg_{p.name}" if p in copies else p.name for p in plan.params)
    between, after = [], []
    if plan.stdio:
        args, ref_args = (", ".join("1" if i == 0 else "0" for i in range(n))
                          for n in (len(plan.params), plan.ref_arity))
        between, after = ["__crepair_rewind_stdio();"], ["__crepair_same_output();"]
    if plan.returns is not None:
        body += [f"{H}ret = {plan.entry}({args});", *between, f"{H}ret_ref = {R[plan.entry]}({ref_args});",
                 f'{EQUAL}({H}ret, {H}ret_ref, "the value {plan.entry} returns");', *after]
    else:
        body += [f"{plan.entry}({args});", *between, f"{R[plan.entry]}({ref_args});", *after]
    for p in copies:
        body += [f'{EQUAL}({p.name}[{i}], {H}arg_{p.name}[{i}], "{p.name}[{i}] after the call");'
                 for i in range(b)]
    body.append(f"{H}check();")
    out.append(f"void {plan.main}({', '.join(formals) or 'void'}) {{")
    out += ["    " + line for line in body]
    out.append("}")
    return out


def input_names(plan: Plan) -> dict[str, str]:
    """The harness parameter named after each global input: its own name,
    or ``global_<name>`` when an entry parameter has that name."""
    taken = {p.name for p in plan.params}
    out = {}
    for g in plan.inputs:
        name = g.name if g.name not in taken else f"global_{g.name}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        out[g.name] = name
    return out


def harness_source(plan: Plan) -> str:
    """The harness as C text (no preprocessor directives; the typedefs it
    uses must be declared before it)."""
    return "\n".join(_lines(plan, input_names(plan))) + "\n"
