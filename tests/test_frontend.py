import pytest
from pycparser import c_ast

from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend import load_program
from cprog import write_c


def _binops(node):
    out = []

    class V(c_ast.NodeVisitor):
        def visit_BinaryOp(self, n):
            out.append(n)
            self.generic_visit(n)

    V().visit(node)
    return out


def test_spans_are_exact_in_the_original_text_despite_macros(tmp_path):
    path = write_c(tmp_path, """
        #include <stdio.h>
        #define LIMIT   600   /* a comment */
        int f(int x, int y)
        {
            return ((x + LIMIT) >   (y));   // trailing comment
        }
    """)
    prog = load_program(path)
    ops = _binops(prog.functions["f"])
    texts = {prog.original[s.start:s.end] for s in (prog.spans.span(n) for n in ops)}
    assert texts == {"(x + LIMIT) >   (y)", "x + LIMIT"}
    gt = next(n for n in ops if n.op == ">")
    tok = prog.spans.token(prog.spans.op_index(gt))
    assert prog.original[tok.start:tok.end] == ">"
    assert (prog.spans.span(gt).line, prog.spans.point(gt.left.left).column) == (5, 14)


def test_macro_constant_maps_to_the_macro_name(tmp_path):
    path = write_c(tmp_path, """
        #define MINSEP 300
        int g(int a) { return a >= MINSEP; }
    """)
    prog = load_program(path)
    const = prog.functions["g"].body.block_items[0].expr.right
    tok = prog.spans.token(prog.spans.const_index(const))
    assert tok.from_macro and prog.original[tok.start:tok.end] == "MINSEP"


def test_knr_definition_with_implicit_int_is_accepted(tmp_path):
    path = write_c(tmp_path, """
        main(argc, argv)
        int argc;
        char *argv[];
        {
            int x = nondet_int();
            assert(x == x);
        }
    """)
    prog = load_program(path)
    assert "main" in prog.functions


@pytest.mark.parametrize(
    "body, construct, line, col",
    [
        ("int *p;", "pointer declaration", 2, 9),
        ("struct s { int a; } v;", "struct", 2, 12),
        ("double d = 1.5;", "floating-point type", 2, 5),
        ("int a = 1; int b = *(&a);", "pointer dereference", 2, 24),
    ],
)
def test_unsupported_constructs_name_file_line_col(tmp_path, body, construct, line, col):
    path = write_c(tmp_path, "int main(void) {\n    " + body + "\n    return 0;\n}\n")
    with pytest.raises(UnsupportedConstruct) as info:
        load_program(path)
    assert construct in str(info.value)
    assert (info.value.where.line, info.value.where.column) == (line, col)
    assert str(info.value).startswith(f"{path}:{line}:{col}:")


def test_syntax_error_names_the_position(tmp_path):
    path = write_c(tmp_path, "int main(void) {\n  int x = ;\n}\n")
    with pytest.raises(BadInput) as info:
        load_program(path)
    assert f"{path}:2:" in str(info.value)


def test_unknown_header_is_bad_input(tmp_path):
    path = write_c(tmp_path, "#include <pthread.h>\nint main(void) { return 0; }\n")
    with pytest.raises(BadInput) as info:
        load_program(path)
    assert "pthread.h" in str(info.value) and f"{path}:1:" in str(info.value)


def test_missing_file_is_bad_input(tmp_path):
    with pytest.raises(BadInput):
        load_program(tmp_path / "nope.c")
