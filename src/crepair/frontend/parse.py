"""C source -> checked pycparser AST with a span index.

Entry point: :func:`load_program`.  The program is preprocessed, parsed,
and checked for constructs crepair does not model; anything unsupported is
rejected with :class:`~crepair.errors.UnsupportedConstruct` naming
file:line:col and the construct, before any analysis starts.  Given the
entry function (``roots``), only the code it can reach is checked
(:mod:`crepair.frontend.reach`): a K&R ``main`` with ``argv`` and
``fprintf`` next to the function under test is no reason to refuse it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_parser

from crepair.errors import BadInput, InternalError, SourcePoint, UnsupportedConstruct
from crepair.frontend.diagnostics import check_depth, include_point, syntax_error, too_deep_for_the_parser
from crepair.frontend.enums import lower_enums
from crepair.frontend.preprocess import USER_FILE, Headers, Preprocessed, in_header, in_user_file, run_preprocessor
from crepair.frontend.jumps import unsupported_jump
from crepair.frontend.reach import needed, reachable
from crepair.frontend.source import check_source, encode, newline_of, read_source
from crepair.frontend.spans import SpanIndex

# calls whose arguments may be ``&x``/``&a[i]`` without a pointer model (crepair.encode.stdio, .strings)
@dataclass(slots=True)
class CProgram:
    """A parsed translation unit.

    ``original`` is the file's text as :mod:`crepair.frontend.source`
    decodes it (UTF-8, undecodable bytes as lone surrogates, line endings and
    BOM kept): spans are 0-based offsets into it, and
    ``source.encode(original)`` is the file's bytes.  A patched copy of
    ``original`` is written back with ``crepair.patch.apply_to_file``.
    ``functions`` maps each defined function's name to its ``FuncDef``;
    ``globals`` lists the file-scope variable declarations in order;
    ``typedefs`` maps typedef names to their type nodes.  When the program
    was loaded for ``roots`` (entry functions), ``globals`` lists only the
    variables the functions reachable from them use, and ``roots`` keeps
    them (None: the whole file).
    """

    path: str
    original: str
    ast: c_ast.FileAST
    spans: SpanIndex
    functions: dict[str, c_ast.FuncDef] = field(default_factory=dict)
    globals: list[c_ast.Decl] = field(default_factory=list)
    typedefs: dict[str, c_ast.Node] = field(default_factory=dict)
    roots: tuple[str, ...] | None = None

    def with_text(self, text: str) -> "CProgram":
        """The program loaded again (same roots) with ``text`` as the file's
        contents, e.g. a repair's patched text; raises as :func:`load_program`."""
        return load_program(self.path, text=text, roots=self.roots)

    @property
    def newline(self) -> str:
        """The line ending of most lines, ``"\\r\\n"`` or ``"\\n"``, for text that adds a line."""
        return newline_of(self.original)


def load_program(
    path: str | Path, *, text: str | None = None, real_c: bool = False, roots: tuple[str, ...] | None = None
) -> CProgram:
    """Read, preprocess, parse and check the C file at ``path``.

    By default the program is read as the bounded engine models it:
    crepair's own standard headers, and constructs the encoder does not
    model are rejected.  With ``real_c`` the whole C library's headers are
    read (``pycparser-fake-libc``) and nothing is rejected for the encoder:
    for schemes that only instrument the text and compile it with gcc (the
    test-driven scheme).  With ``text`` (e.g. a patched copy of a program's ``original``), that
    text is taken as the file's contents and the file is not read: errors
    name ``path``, and ``#include "x.h"`` is looked up next to ``path``.
    With ``roots`` (function names: the entry, then any ``--init``
    functions), only the functions they reach
    and the variables those use are checked and kept in ``globals``; a
    root that is not defined raises ``BadInput``.  Raises ``BadInput``
    (unreadable or binary file, preprocessor or syntax
    error, with file:line:col), ``UnsupportedConstruct`` and ``MissingTool``
    (no gcc for preprocessing).  The file is only read.
    """
    path = Path(path)
    original = read_source(path) if text is None else check_source(str(path), encode(text))
    pre = run_preprocessor(path, original, Headers.LIBC if real_c else Headers.CREPAIR)
    return parse_preprocessed(pre, check=not real_c, roots=roots)


def parse_preprocessed(pre: Preprocessed, check: bool = True, roots: tuple[str, ...] | None = None) -> CProgram:
    """Parse an already preprocessed unit (see :func:`load_program`);
    ``check``: reject what the encoder does not model (with ``roots``: in
    the code they reach)."""
    parser = c_parser.CParser()
    spans = SpanIndex(pre)
    try:
        text, shifted = _implicit_int(pre.text)
        ast = parser.parse(text, filename=USER_FILE)
    except c_parser.ParseError as exc:
        raise syntax_error(str(exc), parser, pre, spans) from None
    except RecursionError:
        raise too_deep_for_the_parser(pre, spans) from None
    if not ast.ext:
        raise BadInput("no C code in the file (empty after preprocessing)", SourcePoint(pre.path, 1, 1))
    if shifted:
        _unshift(ast, shifted)
    unlowered = [e for e in lower_enums(ast) if in_user_file(e)]
    if check and unlowered:
        raise UnsupportedConstruct(spans.point(unlowered[0]), "enum whose values are not integer constant "
                                   "expressions crepair evaluates")
    program = CProgram(pre.path, pre.original, ast, spans, roots=None if roots is None else tuple(roots))
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            first = program.functions.get(ext.decl.name)
            if first is not None:  # gcc: "redefinition of 'f'"; the last one must not silently win
                raise BadInput(f"redefinition of function '{ext.decl.name}' (first defined at line "
                               f"{spans.point(first).line})", spans.point(ext))
            program.functions[ext.decl.name] = ext
        elif isinstance(ext, c_ast.Typedef):
            program.typedefs[ext.name] = ext.type
        elif isinstance(ext, c_ast.Decl) and not isinstance(ext.type, c_ast.FuncDecl) and ext.name is not None:
            program.globals.append(ext)
    check_depth(ast, spans)
    if roots is None:
        if check:
            _SupportChecker(program).visit(ast)
        return program
    for i, root in enumerate(roots):
        if root not in program.functions:
            if i:  # the roots after the entry are the --init functions (crepair.reference)
                raise BadInput(f"{pre.path}: --init function '{root}' is not defined")
            raise BadInput(f"{pre.path}: entry function '{root}' is not defined (use --entry)")
    reach = reachable(ast, roots)
    program.globals = [g for g in program.globals if g.name in reach.globals]
    if check:
        checker = _SupportChecker(program)
        for ext in ast.ext:
            if needed(ext, reach):
                checker.visit(ext)
    return program


_DEF_START = re.compile(r"^([A-Za-z_]\w*)\s*\(")
_NOT_A_NAME = {"int", "void", "char", "short", "long", "unsigned", "signed", "static", "extern",
               "const", "volatile", "_Bool", "typedef", "inline", "register", "auto"}


_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')
_INT = "int "


def _implicit_int(text: str) -> tuple[str, dict[tuple[str, int], int]]:
    """Spell out C89's implicit ``int`` of file-scope definitions such as
    K&R ``main(argc, argv)``, which pycparser does not accept.  Returns the
    text and, per (file, line) as pycparser's coordinates name them (after
    the line markers), the 1-based column where ``int `` was inserted: the
    tokens after it on that line are shifted (:func:`_unshift`)."""
    out: list[str] = []
    shifted: dict[tuple[str, int], int] = {}
    depth, after_decl = 0, True
    file, line_no = USER_FILE, 1
    for line in text.split("\n"):
        stripped = line.lstrip()
        marker = _MARKER.match(stripped)
        if marker:
            file, line_no = marker.group(2), int(marker.group(1))
            out.append(line)
            continue
        m = _DEF_START.match(stripped)
        if depth == 0 and after_decl and m and m.group(1) not in _NOT_A_NAME and not stripped.startswith("#"):
            column = len(line) - len(stripped) + 1
            line = line[: column - 1] + _INT + stripped
            shifted[(file, line_no)] = column
        if not stripped.startswith("#"):
            for ch in line:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
            body = line.strip()
            if body:
                after_decl = depth == 0 and body[-1] in ";}"
        out.append(line)
        line_no += 1
    return "\n".join(out), shifted


def _unshift(ast: c_ast.Node, shifted: dict[tuple[str, int], int]) -> None:
    """Move the coordinates of the tokens after an inserted ``int `` back
    to their columns in the preprocessed text, which the token map
    (:class:`~crepair.frontend.spans.SpanIndex`) is keyed by.  Mutates the
    nodes' ``coord`` (the tree was just parsed)."""
    stack = [ast]
    while stack:
        node = stack.pop()
        coord = node.coord
        if coord is not None:
            column = shifted.get((coord.file, coord.line))
            if column is not None and coord.column >= column + len(_INT):
                node.coord = type(coord)(coord.file, coord.line, coord.column - len(_INT))
        stack.extend(child for _, child in node.children())


class _SupportChecker(c_ast.NodeVisitor):
    """Rejects what the encoder does not model, with the exact position."""

    def __init__(self, program: CProgram):
        self._program = program
        self._in_params = 0

    def _reject(self, node: c_ast.Node, what: str) -> None:
        spans = self._program.spans
        try:
            where = spans.span(node).point
        except InternalError:
            where = spans.point(node) if node.coord else SourcePoint(self._program.path, 1, 1)
        raise UnsupportedConstruct(where, what)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        header = node.coord.file if node.coord else USER_FILE
        if header != USER_FILE:
            raise UnsupportedConstruct(
                include_point(self._program.path, self._program.original, self._program.spans, header),
                f"function {node.decl.name} defined in the included file {header} "
                "(crepair analyses one file: move the definition into it)",
            )
        if node.param_decls:
            self._in_params += 1
            for p in node.param_decls:
                self.visit(p)
            self._in_params -= 1
        self.visit(node.decl)
        jump = unsupported_jump(node)
        if jump is not None:
            self._reject(*jump)
        self.visit(node.body)

    def visit_ParamList(self, node: c_ast.ParamList) -> None:
        self._in_params += 1
        self.generic_visit(node)
        self._in_params -= 1

    def visit_PtrDecl(self, node: c_ast.PtrDecl) -> None:
        # a parameter ``char **argv`` is rejected where it is used (the encoder's parameter types)
        if not self._in_params:
            if isinstance(node.type, c_ast.PtrDecl):
                self._reject(node, "pointer to pointer")
            if isinstance(node.type, c_ast.FuncDecl):
                self._reject(node, "function pointer")
        self.generic_visit(node)

    def visit_Enum(self, node: c_ast.Node) -> None:
        self._reject(node, "enum whose values are not integer constant expressions crepair evaluates")

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        if "double" in node.names and "long" in node.names:
            self._reject(node, "floating-point type 'long double' (float and double are supported)")

    def visit_CompoundLiteral(self, node: c_ast.Node) -> None:
        self._reject(node, "compound literal")

    def visit_InitList(self, node: c_ast.InitList) -> None:
        for item in node.exprs:
            if isinstance(item, c_ast.NamedInitializer):
                self._reject(item, "designated initializer")
        self.generic_visit(node)

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if not in_header(node):  # a header's declarations are checked where the program uses them
            self.generic_visit(node)

    def visit_Typedef(self, node: c_ast.Typedef) -> None:
        if not in_header(node):
            self.generic_visit(node)
