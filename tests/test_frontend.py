from pathlib import Path

import pytest
from pycparser import c_ast

from crepair import verify
from crepair.bmc import VerifyOutcome
from crepair.cli import main
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend import load_program
from crepair.frontend.source import decode, encode
from crepair.frontend.tokens import tokenize
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
        ("int **p;", "pointer to pointer", 2, 10),
        ("int x; end: x = 1; goto end;", "backward goto", 2, 24),
        ("long double d = 1.5;", "floating-point type 'long double'", 2, 5),
        ("int (*f)(int);", "function pointer", 2, 10),
    ],
)
def test_unsupported_constructs_name_file_line_col(tmp_path, body, construct, line, col):
    path = write_c(tmp_path, "int main(void) {\n    " + body + "\n    return 0;\n}\n")
    with pytest.raises(UnsupportedConstruct) as info:
        load_program(path)
    assert construct in str(info.value)
    assert (info.value.where.line, info.value.where.column) == (line, col)
    assert str(info.value).startswith(f"{path}:{line}:{col}:")


def test_a_header_node_keeps_the_headers_position_never_a_line_of_the_users_file(tmp_path):
    path = write_c(tmp_path, "#include <stdio.h>\nint main(void) { return 0; }\n" + "\n" * 40)
    prog = load_program(path)
    where = prog.spans.point(prog.typedefs["FILE"])
    assert where.file.endswith("_crepair_types.h") and where.file != str(path)
    assert prog.spans.point(prog.functions["main"]).file == str(path)


def test_syntax_error_names_the_position(tmp_path):
    path = write_c(tmp_path, "int main(void) {\n  int x = ;\n}\n")
    with pytest.raises(BadInput) as info:
        load_program(path)
    assert f"{path}:2:" in str(info.value)


def test_unknown_header_is_bad_input(tmp_path):
    path = write_c(tmp_path, "#include <bits/stdc++.h>\nint main(void) { return 0; }\n")
    with pytest.raises(BadInput) as info:
        load_program(path)
    assert "bits/stdc++.h" in str(info.value) and f"{path}:1:" in str(info.value)


def test_other_standard_headers_are_empty(tmp_path):
    # pycparser-fake-libc's headers, without their typedefs (all int): a type they would declare is unknown
    path = write_c(tmp_path, "#include <pthread.h>\n#include <time.h>\nint main(void) { return 0; }\n")
    assert load_program(path).typedefs == {}


def test_missing_file_is_bad_input(tmp_path):
    with pytest.raises(BadInput):
        load_program(tmp_path / "nope.c")


# -- the user's bytes: Latin-1, CR LF, BOM ----------------------------------

CLAMP = (
    b"/* caf\xe9 (Latin-1) */\n"
    b"#define LIMIT 5\n"
    b"int clamp(int x)\n"
    b"{\n"
    b"    if (x >  LIMIT) /* \xe9t\xe9 */ x = LIMIT;\n"
    b"    return x;\n"
    b"}\n"
    b"int main(void) { int x = nondet_int(); assert(clamp(x) < LIMIT); return 0; }\n"
)


def _ops(prog):
    return [(n.op, prog.spans.span(n)) for n in _binops(prog.ast)]


def test_latin1_comment_is_read_byte_exactly(tmp_path):
    (tmp_path / "p.c").write_bytes(CLAMP)
    prog = load_program(tmp_path / "p.c")
    assert encode(prog.original) == CLAMP
    gt = next(s for op, s in _ops(prog) if op == ">")
    assert prog.original[gt.start:gt.end] == "x >  LIMIT"
    assert (gt.line, gt.column, gt.end_column) == (5, 9, 18)
    assert verify(str(tmp_path / "p.c")).outcome == VerifyOutcome.VIOLATED


@pytest.mark.parametrize("newline", [b"\r\n", b"mixed"])
def test_crlf_keeps_lines_and_columns_of_the_lf_file(tmp_path, newline):
    lines = CLAMP.split(b"\n")
    if newline == b"mixed":
        data = b"\n".join(line + (b"\r" if i % 2 and line else b"") for i, line in enumerate(lines))
    else:
        data = CLAMP.replace(b"\n", newline)
    (tmp_path / "lf.c").write_bytes(CLAMP)
    (tmp_path / "crlf.c").write_bytes(data)
    lf, crlf = load_program(tmp_path / "lf.c"), load_program(tmp_path / "crlf.c")
    assert encode(crlf.original) == data and "\r\n" in crlf.original
    where = lambda p: [(op, s.line, s.column, s.end_line, s.end_column, p.original[s.start:s.end]) for op, s in _ops(p)]
    assert where(crlf) == where(lf)
    if_stmt = crlf.functions["clamp"].body.block_items[0]
    line = crlf.spans.line_span(if_stmt)
    assert crlf.original[line.start:line.end] == "if (x >  LIMIT) /* \udce9t\udce9 */ x = LIMIT;"


def test_directive_continued_before_a_crlf_yields_no_tokens():
    toks = tokenize("#define ADD(a, b) \\\r\n   ((a) + (b))\r\nint x;\r\n", skip_directives=True)
    assert [t.text for t in toks] == ["int", "x", ";"] and toks[0].line == 3


def test_utf8_bom_is_kept_and_ignored(tmp_path):
    data = b"\xef\xbb\xbf" + CLAMP
    (tmp_path / "p.c").write_bytes(data)
    prog = load_program(tmp_path / "p.c")
    assert prog.original.startswith("\ufeff") and encode(prog.original) == data
    assert verify(str(tmp_path / "p.c")).outcome == VerifyOutcome.VIOLATED


def test_decode_encode_round_trip_every_byte():
    data = bytes(range(256)) + "é€😀".encode() + b"\xed\xa0\x80"  # the last is an encoded surrogate
    assert encode(decode(data)) == data


def test_a_very_long_line_is_fine(tmp_path):
    body = "x = x + 1; " * 5000
    path = write_c(tmp_path, f"int main(void) {{ int x = 0; {body}assert(x == 5000); return 0; }}\n")
    assert verify(str(path)).outcome == VerifyOutcome.VERIFIED


def test_preprocessor_columns_count_characters_not_bytes(tmp_path):
    path = tmp_path / "p.c"
    path.write_bytes("int main(void) { /* été */ int b = @; return 0; }\n".encode())
    with pytest.raises(BadInput) as info:
        load_program(path)
    assert str(info.value).startswith(f"{path}:1:36: ")  # '@' is the 36th character, the 39th byte


def test_syntax_error_column_is_the_users_despite_macros(tmp_path):
    path = write_c(tmp_path, "#define LIMIT 1000\nint main(void) { int x = LIMIT; int y = x x; }\n")
    with pytest.raises(BadInput) as info:
        load_program(path)
    assert str(info.value) == f"{path}:2:43: expected ',' or ';' before 'x'"  # column 42 in the preprocessed line


# -- bad input through the command line: one line, file:line:col, exit 3 -----

ELF = b"\x7fELF\x02\x01\x01" + bytes(57) + b"\x03\x00\x3e\x00" + bytes(200)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("binary", bytes(range(256)) * 4, "{p}:1:1: not a C source file (binary data)"),
        ("elf", ELF, "{p}:1:1: not a C source file (binary data)"),
        ("utf16", "int main(void) { return 0; }\n".encode("utf-16"), "{p}:1:1: not a C source file crepair can read (UTF-16"),
        ("nul", b"int main(void) { /* a\0b */ return 0; }\n", "{p}:1:22: NUL byte in the source"),
        ("cr", b"int main(void)\r{ return 0; }\r", "{p}:1:15: line ending CR without LF is not supported"),
        ("empty", b"", "{p}:1:1: no C code in the file"),
        ("comments only", b"/* nothing */\n// here\n", "{p}:1:1: no C code in the file"),
        ("stdc++", b"#include <bits/stdc++.h>\nint main(void) { return 0; }\n", "{p}:1:10: header bits/stdc++.h not found: crepair provides only the standard headers assert.h,"),
        ("own header", b'#include "mine.h"\nint main(void) { return 0; }\n', "{p}:1:10: header mine.h not found"),
        ("eof", b"int main(void) {\n  int x = 1;\n", "{p}:1:16: syntax error at end of file: this '{' is never closed"),
        ("eof decl", b"int main(void) { return 0; }\nint y =", "{p}:2:8: syntax error: Invalid expression at end of file"),
        ("#error", b"#if 1\n#error crepair cannot take this\n#endif\n", "{p}:2:2: preprocessor: #error crepair cannot take this"),
        ("stray", b"int main(void) { return 0 @; }\n", "{p}:1:27: syntax error: Illegal character '@'"),
        ("#line", b'int a;\n  # line 100 "other.c"\nint main(void) { return 0; }\n', "{p}:2:3: unsupported construct: #line directive"),
        ("non-ASCII name", "int main(void) { int café = 0; return café; }\n".encode(), "{p}:1:22: unsupported construct: identifier with non-ASCII characters 'café'"),
        ("Latin-1 in code", b"int main(void) { int caf\xe9 = 0; return 0; }\n", "{p}:1:25: syntax error: byte 0xE9 that is not UTF-8"),
        ("deep brackets", b"int main(void) { return " + b"(" * 200 + b"0" + b")" * 200 + b"; }\n", "{p}:1:224: unsupported construct: brackets nested 201 deep"),
        ("deep expression", b"int main(void) { return " + b" + ".join([b"1"] * 400) + b"; }\n", "{p}:1:441: unsupported construct: expression or statement nested more than 300 levels deep"),
        ("time_t", b"#include <time.h>\nint main(void) { time_t t = 0; return 0; }\n", "{p}:2:18: unknown type name 'time_t'"),
        ("unterminated comment", b"int main(void) { return 0; } /* no end\n", "{p}:1:30: preprocessor: unterminated comment"),
    ],
)
def test_bad_input_is_one_line_with_position_and_exit_3(tmp_path, capsys, name, content, message):
    path = tmp_path / "p.c"
    path.write_bytes(content)
    for command in ("verify", "localize", "repair"):
        assert main([command, str(path)]) == 3
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith("crepair: error: " + message.replace("{p}", str(path))), err


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.c", "cannot read {p}: No such file or directory"),
    (lambda d: (d / "dir.c").mkdir() or d / "dir.c", "cannot read {p}: not a regular file"),
    (lambda d: Path("/dev/zero"), "cannot read {p}: a device, not a file"),
])
def test_unreadable_paths_are_one_line_and_exit_3(tmp_path, capsys, make, message):
    path = make(tmp_path)
    assert main(["verify", "--json", str(path)]) == 3
    err = capsys.readouterr().err
    assert err == f"crepair: error: {message.format(p=path)}\n"


def test_file_that_is_unchanged_by_crepair(tmp_path):
    # reading never writes: not even for a file crepair rejects
    path = tmp_path / "p.c"
    path.write_bytes(b"int main(void) { return 0 @; }\r\n")
    main(["repair", "--quiet", "--apply", str(path)])
    assert path.read_bytes() == b"int main(void) { return 0 @; }\r\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.c"]


def test_an_expression_just_below_the_depth_limit_goes_through_every_stage(tmp_path):
    # 290 terms: 294 levels, under MAX_DEPTH; the later stages' recursive walkers must cope
    path = write_c(tmp_path, "int f(int x) { return " + " + ".join(["x"] * 290) + "; }\n"
                   "int main(void) { int x = nondet_int(); __CPROVER_assume(x > 0 && x < 3); "
                   "assert(f(x) < 3); return 0; }\n")
    assert verify(str(path)).outcome == VerifyOutcome.VIOLATED
    assert main(["localize", str(path)]) == 0


def test_quoted_include_is_found_next_to_the_file_from_any_directory(tmp_path, monkeypatch):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "k.h").write_text("int K = 3;\n")
    (tmp_path / "lib" / "p.c").write_bytes(b'#include "k.h"\r\nint main(void) { assert(K == 3); return 0; }\r\n')
    monkeypatch.chdir(tmp_path)
    assert verify("lib/p.c").outcome == VerifyOutcome.VERIFIED


def test_load_program_from_a_patched_text_reads_no_file(tmp_path):
    (tmp_path / "k.h").write_text("int K = 3;\n")
    path = tmp_path / "p.c"
    path.write_bytes(b'#include "k.h"\r\nint main(void) { return K + 1; } /* caf\xe9 */\r\n')
    prog = load_program(path)
    patched = prog.original.replace("K + 1", "K - 1")
    again = load_program(path, text=patched)
    assert again.original == patched and encode(again.original).endswith(b"/* caf\xe9 */\r\n")
    with pytest.raises(BadInput) as info:
        load_program(path, text=patched.replace("K - 1", "K -"))
    assert str(info.value).startswith(f"{path}:2:")
    with pytest.raises(BadInput, match="NUL byte"):
        load_program(path, text=patched.replace("caf", "c\0f"))


def test_a_function_defined_in_an_included_file_is_bad_input(tmp_path, capsys):
    (tmp_path / "f.h").write_text("int f(int x) { return x + 1; }\n")
    path = tmp_path / "p.c"
    path.write_text('/* one file */\n#include "f.h"\nint main(void) { assert(f(1) == 2); return 0; }\n')
    assert main(["repair", str(path)]) == 3
    err = capsys.readouterr().err
    assert err == (f"crepair: error: {path}:2:11: unsupported construct: function f defined in the included "
                   "file f.h (crepair analyses one file: move the definition into it)\n")


@pytest.mark.parametrize("header, message", [
    ("#error in a header\n", "{p}:2:11: in the included file e.h:1:2: #error in a header"),
    ("int x = ;\n", "{p}:2:11: in the included file e.h:1:9: syntax error: Invalid expression before ';'"),
    (None, "{p}:2:10: header e.h not found next to p.c nor among crepair's standard headers assert.h, ctype.h, "
           "float.h, inttypes.h, limits.h, math.h, stdbool.h, stddef.h, stdint.h, stdio.h, stdlib.h, string.h, values.h"),
])
def test_errors_in_an_included_file_name_it_and_point_at_the_include(tmp_path, capsys, header, message):
    if header is not None:
        (tmp_path / "e.h").write_text(header)
    path = tmp_path / "p.c"
    path.write_text('/* one file */\n#include "e.h"\nint main(void) { return 0; }\n')
    assert main(["verify", str(path)]) == 3
    assert capsys.readouterr().err == "crepair: error: " + message.replace("{p}", str(path)) + "\n"


def test_cli_quotes_the_assertion_of_a_crlf_file(tmp_path, capsys):
    path = tmp_path / "p.c"
    path.write_bytes(CLAMP.replace(b"\n", b"\r\n").replace(b"\xe9", b"e"))
    assert main(["verify", str(path)]) == 1
    assert f"assertion violated: {path}:8: assert(clamp(x) < LIMIT)\n" in capsys.readouterr().out
