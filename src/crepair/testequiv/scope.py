"""Variables and functions for the search space.

Which variables a candidate of the search space may read at a place
(:class:`Var`), and what a function's candidates draw on
(:class:`Function`).  Their types are the typed C layer's
(:mod:`crepair.typed`: the C type model of gcc on x86-64 and the type of
an expression).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from crepair.typed.model import CType, TypeKind


class VarKind(enum.Enum):
    GLOBAL = "global"
    PARAM = "parameter"
    LOCAL = "local"


@dataclass(frozen=True, slots=True)
class Var:
    """A variable visible at a site: ``name``, its declared ``type``
    (arrays not decayed) and where it is declared."""

    name: str
    type: CType
    kind: VarKind

    @property
    def integer(self) -> bool:
        return self.type.kind == TypeKind.INTEGER

    @property
    def pointer(self) -> bool:
        return self.type.kind == TypeKind.POINTER and bool(self.type.text)


def why_not_a_site(t: CType) -> str:
    """Why a value of type ``t`` is not an EXPR site (a note of the search space)."""
    match t.kind:
        case TypeKind.FLOAT:
            return "floating-point value (not a site)"
        case TypeKind.RECORD:
            return "struct or union value (not a site)"
        case TypeKind.VOID:
            return "void value (not a site)"
        case TypeKind.POINTER:
            return "pointer whose type has no simple C name (not a site)"
    return "value of a type not understood (not a site)"


@dataclass(slots=True)
class Function:
    """What the candidates of one function draw on: its integer constants
    (value -> spelling, most frequent first) and the lines where each
    name is used."""

    name: str
    constants: dict[int, str] = field(default_factory=dict)
    uses: dict[str, list[int]] = field(default_factory=dict)
