"""Preprocessing with the system C preprocessor, and the map back to the file.

The user's file goes through ``gcc -E`` with stand-ins for the standard
headers, so ``#define`` constants and ``#include <stdio.h>`` work as in a
compiler: crepair's own (``include/``: the C library's declarations with
gcc's x86-64 types and limits, and the verification built-ins) for the
bounded engine, other standard headers empty, or the
whole C library's declarations as pycparser can read them
(``pycparser-fake-libc``) for real programs that only gcc compiles
(:class:`Headers`).  Every preprocessed token is then aligned
with the tokens of its original line, so a span in the preprocessed text maps
to an exact character span of the user's file (a macro's expansion maps to
the macro's name).
"""

from __future__ import annotations

import difflib
import enum
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from crepair import toolchain
from crepair.errors import BadInput, SourcePoint, UnsupportedConstruct
from crepair.frontend.source import ENCODING, decode, encode, point_at
from crepair.frontend.tokens import Token, tokenize

_LINE_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:\\.|[^"\\])*)"')
_GCC_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.M)
_MISSING_HEADER = re.compile(r"(\S+): No such file or directory")
_LINE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:line\b|\d)", re.M)
USER_FILE = "<stdin>"  # the user's file as cpp (reading it from standard input) and pycparser name it


def in_user_file(node) -> bool:
    """Whether the pycparser ``node`` comes from the user's file (False without coordinates)."""
    return node.coord is not None and node.coord.file == USER_FILE


def in_header(node) -> bool:
    """Whether the pycparser ``node`` comes from an included header (False without coordinates)."""
    return node.coord is not None and node.coord.file != USER_FILE


_INCLUDED_FROM = re.compile(r"[Ii]n file included from <stdin>:(\d+)")


class Headers(enum.Enum):
    """Which stand-ins for the standard headers the preprocessor reads."""

    CREPAIR = "crepair"  # crepair's own: the verification built-ins, what the encoder models
    LIBC = "libc"  # the whole C library, declarations only (pycparser-fake-libc)


@dataclass(frozen=True, slots=True)
class MappedToken:
    """A preprocessed token of the main file.

    ``line`` is the 1-based line of the original file; ``pp_column`` the
    1-based column in the preprocessed line (what pycparser reports);
    ``start``/``end`` the 0-based character span in the original text;
    ``from_macro`` is true when the token came out of a macro expansion (its
    span is then the span of the macro's use); ``expansion_size`` is the
    number of preprocessed tokens that share that span (1 for plain tokens).
    """

    text: str
    line: int
    pp_column: int
    start: int
    end: int
    from_macro: bool
    expansion_size: int = 1


@dataclass(frozen=True, slots=True)
class Preprocessed:
    """The preprocessed text and its token map back to ``original``."""

    path: str
    original: str
    text: str
    tokens: tuple[MappedToken, ...]
    headers: Headers = Headers.CREPAIR


def _include_dir() -> Path:
    return Path(str(resources.files("crepair.frontend") / "include"))


def _header_flags(headers: Headers) -> list[str]:
    import pycparser_fake_libc

    if headers == Headers.CREPAIR:
        # crepair's own headers first; any other standard header is
        # pycparser-fake-libc's, emptied: its typedefs are all ``int``, which
        # would give ``time_t`` or ``uint64_t`` the wrong width
        return ["-I", str(_include_dir()), "-idirafter", pycparser_fake_libc.directory,
                "-D_FAKE_DEFINES_H", "-D_FAKE_TYPEDEFS_H"]

    # gcc's attributes and extension keywords, which the fake headers and
    # real programs use, mean nothing to the parser
    return ["-I", pycparser_fake_libc.directory, "-D__attribute__(x)=", "-D__extension__=",
            "-D__inline=inline", "-D__restrict=restrict", "-D__asm__(x)="]


def run_preprocessor(path: Path, original: str, headers: Headers = Headers.CREPAIR) -> Preprocessed:
    """Preprocess the file at ``path`` whose text is ``original`` (decoded as
    in :mod:`crepair.frontend.source`; the bytes gcc reads are exactly the
    file's).  ``#include "x.h"`` is looked up next to the file.

    Raises ``MissingTool`` when gcc is absent and ``BadInput`` (with
    file:line:col) when the preprocessor rejects the file, e.g. an include
    of a header crepair does not model or an ``#error``.
    """
    _reject_line_directives(str(path), original)
    proc = _gcc(["-E"], path, original, headers)
    if proc.returncode != 0:
        raise _preprocessor_error(str(path), original, proc.stderr.decode(ENCODING, "replace"))
    text = decode(proc.stdout)
    return Preprocessed(str(path), original, text, _map_tokens(original, text), headers)


def compiler_error(pre: Preprocessed) -> tuple[SourcePoint, str] | None:
    """gcc's own first error on the file, for a clearer message when the
    parser rejects it ("unknown type name 'FILE'" rather than "before '*'");
    None when gcc finds none in the file itself."""
    flags = ["-fsyntax-only", "-w", "-fpermissive"]
    proc = _gcc(flags, Path(pre.path), pre.original, pre.headers)
    m = next((m for m in _GCC_ERROR.finditer(proc.stderr.decode(ENCODING, "replace")) if m["file"] == USER_FILE), None)
    if m is None:
        return None
    line = int(m["line"])
    return SourcePoint(pre.path, line, _char_column(pre.original, line, int(m["col"]))), m["msg"]


def _gcc(mode: list[str], path: Path, original: str, headers: Headers) -> toolchain.Completed:
    gcc = toolchain.find("gcc", "crepair needs a C preprocessor: install gcc (apt-get install gcc)", "cc")
    data = encode(original)
    cmd = [gcc, *mode, "-x", "c", "-nostdinc", "-undef", *_header_flags(headers), "-"]
    proc = _run(cmd[:1] + ["-fdiagnostics-column-unit=byte"] + cmd[1:], data, path)
    if proc.returncode != 0 and b"column-unit" in proc.stderr:  # gcc < 11, clang
        proc = _run(cmd, data, path)
    return proc


def _reject_line_directives(path: str, original: str) -> None:
    """``#line`` (and its GNU form ``# 12``) renumbers lines, and the token
    map aligns by the file's own lines."""
    if not _LINE_DIRECTIVE.search(original):
        return
    tokens = tokenize(original, skip_directives=False)
    for i, tok in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        first_on_line = i == 0 or tokens[i - 1].line < tok.line
        if tok.text == "#" and first_on_line and nxt.line == tok.line and (nxt.text == "line" or nxt.text[0].isdigit()):
            raise UnsupportedConstruct(point_at(path, original, tok.start), "#line directive")


#: the preprocessor's limits: seconds, and bytes of address space (``#include </dev/zero>`` never ends)
PREPROCESS_SECONDS = 20
PREPROCESS_MEMORY = 1 << 30


def _run(cmd: list[str], data: bytes, path: Path) -> toolchain.Completed:
    done = toolchain.run(cmd, input=data, cwd=path.parent, env={**os.environ, "LC_ALL": "C"},
                         timeout=PREPROCESS_SECONDS, memory=PREPROCESS_MEMORY,
                         remedy="the C preprocessor; install gcc (apt-get install gcc)")
    if done.timed_out:
        raise BadInput(f"the preprocessor did not finish within {PREPROCESS_SECONDS} s (an #include of a device, "
                       f"a FIFO or a huge file?)", SourcePoint(str(path), 1, 1))
    return done


def _preprocessor_error(path: str, original: str, stderr: str) -> BadInput:
    m = _GCC_ERROR.search(stderr)
    if m is None:
        first = stderr.strip().splitlines()[0] if stderr.strip() else "no message"
        return BadInput(f"preprocessor failed: {first}", SourcePoint(path, 1, 1))
    if m["file"] != USER_FILE:  # inside an included file: point at the #include
        included = _INCLUDED_FROM.search(stderr)
        line = int(included[1]) if included else 1
        name_at = original.split("\n")[line - 1].find(Path(m["file"]).name) if included else -1
        where = SourcePoint(path, line, name_at + 1 if name_at >= 0 else 1)
        return BadInput(f"in the included file {m['file']}:{m['line']}:{m['col']}: {m['msg']}", where)
    line = int(m["line"])
    where = SourcePoint(path, line, _char_column(original, line, int(m["col"])))
    missing = _MISSING_HEADER.match(m["msg"])
    if missing is None:
        return BadInput(f"preprocessor: {m['msg']}", where)
    name = missing[1]
    if f'"{name}"' in original.split("\n")[line - 1]:
        return BadInput(
            f"header {name} not found next to {Path(path).name} nor among crepair's standard headers "
            f"{', '.join(_shipped_headers())}",
            where,
        )
    return BadInput(
        f"header {name} not found: crepair provides only the standard headers "
        f"{', '.join(_shipped_headers())}; remove the #include and declare what the program uses",
        where,
    )


def _char_column(original: str, line: int, byte_column: int) -> int:
    """gcc counts columns in bytes; crepair in characters of ``original``."""
    lines = original.split("\n")
    if not 0 < line <= len(lines):
        return byte_column
    return len(decode(encode(lines[line - 1])[: byte_column - 1])) + 1


def _shipped_headers() -> list[str]:
    return sorted(p.name for p in _include_dir().iterdir() if p.suffix == ".h" and not p.name.startswith("_"))


def _map_tokens(original: str, pp_text: str) -> tuple[MappedToken, ...]:
    by_line: dict[int, list[Token]] = {}
    for tok in tokenize(original, skip_directives=True):
        by_line.setdefault(tok.line, []).append(tok)

    pp_by_line: dict[int, list[tuple[str, int]]] = {}
    line, in_main = 1, True
    for raw in pp_text.split("\n"):
        m = _LINE_MARKER.match(raw)
        if m:
            line, in_main = int(m.group(1)), m.group(2) == USER_FILE
            continue
        if in_main and raw.strip():
            for tok in tokenize(raw, skip_directives=False):
                pp_by_line.setdefault(line, []).append((tok.text, tok.column))
        line += 1

    mapped: list[MappedToken] = []
    for line in sorted(pp_by_line):
        pp_toks = pp_by_line[line]
        orig_toks = by_line.get(line, [])
        if [t.text for t in orig_toks] == [t for t, _ in pp_toks]:  # no macro on this line
            mapped.extend(
                MappedToken(o.text, line, col, o.start, o.end, False) for o, (_, col) in zip(orig_toks, pp_toks)
            )
            continue
        matcher = difflib.SequenceMatcher(
            None, [t.text for t in orig_toks], [t for t, _ in pp_toks], autojunk=False
        )
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            for j in range(j1, j2):
                text, col = pp_toks[j]
                if op == "equal":
                    o = orig_toks[i1 + (j - j1)]
                    mapped.append(MappedToken(text, line, col, o.start, o.end, False))
                elif i2 > i1:
                    mapped.append(
                        MappedToken(text, line, col, orig_toks[i1].start, orig_toks[i2 - 1].end, True, j2 - j1)
                    )
                else:
                    anchor = orig_toks[min(i1, len(orig_toks) - 1)] if orig_toks else None
                    pos = anchor.start if anchor else 0
                    mapped.append(MappedToken(text, line, col, pos, pos, True, j2 - j1))
    return tuple(mapped)
