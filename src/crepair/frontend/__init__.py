"""Front-end: C source -> checked AST with exact source spans."""

from crepair.frontend.parse import CProgram, load_program
from crepair.frontend.spans import Span

__all__ = ["CProgram", "Span", "load_program"]
