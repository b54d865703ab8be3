"""Front-end: C source -> checked AST with exact source spans.

The user's file is read as bytes and held as one text everywhere
(:mod:`crepair.frontend.source`): UTF-8 with ``errors="surrogateescape"``,
no newline translation, so ``encode(program.original)`` is the file's bytes.
"""

from crepair.frontend.parse import CProgram, load_program
from crepair.frontend.source import decode, encode
from crepair.frontend.spans import Span

__all__ = ["CProgram", "Span", "decode", "encode", "load_program"]
