"""``crepair localize --method gradient``: Wolverine2's Algorithm 2
(Verma & Roy, §5) on a heap program against program states; the engine is
:mod:`crepair.heap.localize`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crepair.frontend.spans import Span


@dataclass(frozen=True, slots=True)
class GradientResult:
    """The suspicious ``locations`` (span, IR text) of ``function`` in
    ``path``, of ``total`` locations, in source order."""

    path: str
    function: str
    locations: tuple[tuple[Span, str], ...]
    total: int

    def render(self) -> str:
        out = [f"{self.path}: function {self.function}: {len(self.locations)} of {self.total} locations suspicious "
               "(gradient of forward/backward state differences, Wolverine2 Algorithm 2)"]
        out += [f"  {span.file}:{span.line}:{span.column}: {text}" for span, text in self.locations]
        return "\n".join(out)

    def as_json(self) -> dict:
        return {"file": self.path, "method": "gradient", "outcome": "localized", "function": self.function,
                "total": self.total,
                "locations": [{"file": s.file, "line": s.line, "column": s.column, "end_line": s.end_line,
                               "end_column": s.end_column, "text": t} for s, t in self.locations]}


def localize_gradient(path: str | Path, options) -> GradientResult:
    """Algorithm 2 on ``options.function`` of the program at ``path``
    (``options``: a :class:`~crepair.schemes.heap.HeapOptions` giving the
    states or the reference).  Raises ``BadInput``/``UsageError`` as the
    heap scheme does."""
    from crepair.frontend import load_program
    from crepair.heap.build import build_function
    from crepair.heap.localize import suspicious
    from crepair.heap.reference import specification

    options.check()
    program = load_program(path, real_c=True)
    fn = build_function(program, options.function)
    found = suspicious(fn, specification(program, fn, options.states, options.states_from, options.loop_states))
    locs = tuple((i.span, i.text()) for i in fn.instrs if i.index in found)
    return GradientResult(str(path), fn.name, locs, len(fn.instrs))
