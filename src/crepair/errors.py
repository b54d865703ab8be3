"""The error hierarchy of crepair (STYLE.md, convention 9).

"No repair" and "unknown" are results, never exceptions; exceptions are for
input crepair cannot take, tools that are missing, and broken invariants.
"""

from __future__ import annotations

from dataclasses import dataclass


class CRepairError(Exception):
    """Root of every error crepair raises on purpose."""


@dataclass(frozen=True, slots=True)
class SourcePoint:
    """A point in a source file: ``line`` and ``column`` are 1-based."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class BadInput(CRepairError):
    """The input program cannot be read or parsed.

    ``where`` names file:line:col (1-based) when known.
    """

    def __init__(self, what: str, where: SourcePoint | None = None):
        self.what = what
        self.where = where
        super().__init__(f"{where}: {what}" if where else what)

    def __reduce__(self):
        """Pickled as its arguments (a forked child's error reaches the
        parent: crepair.toolchain.child), whatever the subclass's own."""
        return _rebuild, (type(self), self.__dict__, (self.what, self.where))


def _rebuild(kind: type, state: dict, args: tuple) -> BadInput:
    """A pickled :class:`BadInput` (of class ``kind``) again: made as a
    plain BadInput, then given its class and fields."""
    error = BadInput(*args)
    error.__class__ = kind
    error.__dict__.update(state)
    return error


class UnsupportedConstruct(BadInput):
    """The program uses C that crepair does not model (pointers, structs, ...)."""

    def __init__(self, where: SourcePoint | None, construct: str):
        super().__init__(f"unsupported construct: {construct}", where)
        self.construct = construct


class MissingTool(CRepairError):
    """An external tool (the C preprocessor) is not installed; says the remedy."""


class InternalError(CRepairError):
    """An invariant of crepair itself was violated: a bug in crepair."""


class UsageError(CRepairError):
    """An option has a value crepair cannot use (exit code 2): says which
    option and what it accepts."""


def out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` says the run ran out of memory: a ``MemoryError``, a
    thread that could not start, or z3's "out of memory" (a
    ``Z3Exception``).  The command line and the batch worker both report
    such a run as unknown (out of memory), never as a defect."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return "can't start new thread" in text or (type(exc).__name__ == "Z3Exception" and "memory" in text)
