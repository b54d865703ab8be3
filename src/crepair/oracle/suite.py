"""One folder of tests from three sources: the given tests, inputs
generated from them with the reference's outputs, and counterexamples of
the bounded check (each turned into a test when it is found).

The folder uses Codeflaws' naming (``input-X``/``output-X``), ids
``given-ID``, ``gen-K`` (1-based) and ``cex-K`` (1-based), so that the
test-driven scheme reads it as any folder of tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(slots=True)
class Suite:
    """The tests in ``folder`` by source (ids in order)."""

    folder: Path
    given: list[str] = field(default_factory=list)
    generated: list[str] = field(default_factory=list)
    counterexamples: list[str] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return self.given + self.generated + self.counterexamples

    def add(self, kind: str, stdin: bytes, expected: bytes, name: str | None = None) -> str:
        """Write one test of ``kind`` (given, generated, counterexample);
        returns its id."""
        ids = {"given": self.given, "generated": self.generated, "counterexample": self.counterexamples}[kind]
        prefix = {"given": "given-", "generated": "gen-", "counterexample": "cex-"}[kind]
        test_id = prefix + (name if name is not None else str(len(ids) + 1))
        (self.folder / f"input-{test_id}").write_bytes(stdin)
        (self.folder / f"output-{test_id}").write_bytes(expected)
        ids.append(test_id)
        return test_id

    def stdin(self, test_id: str) -> bytes:
        return (self.folder / f"input-{test_id}").read_bytes()

    def expected(self, test_id: str) -> bytes:
        return (self.folder / f"output-{test_id}").read_bytes()


@dataclass(slots=True)
class HeldBack:
    """Generated inputs held back from the suite: a patch that passes the
    whole suite runs on them too, and the first valid one it answers
    differently from the reference joins the suite
    (:meth:`crepair.schemes.staged_checks.CandidateChecks.confirm`).
    ``outputs``: the reference's outputs from its plain build, one per input
    (None until first needed; an entry is None where that run did not end
    normally); ``dropped``: indices (0-based) of inputs no longer run (not
    valid tests, or already in the suite)."""

    inputs: list[bytes]
    outputs: list[bytes | None] | None = None
    dropped: set[int] = field(default_factory=set)

    def live(self) -> list[int]:
        """Indices (0-based) of the inputs a patch runs on, in order."""
        outputs = self.outputs or []
        return [i for i, out in enumerate(outputs) if out is not None and i not in self.dropped]


def write_suite(folder: Path, given: Sequence[tuple[str, bytes, bytes]],
                generated: Sequence[tuple[bytes, bytes]]) -> Suite:
    """A :class:`Suite` in the empty folder ``folder``: ``given`` as
    (id, stdin, expected output), ``generated`` as (stdin, expected)."""
    suite = Suite(folder)
    for name, stdin, expected in given:
        suite.add("given", stdin, expected, name)
    for stdin, expected in generated:
        suite.add("generated", stdin, expected)
    return suite
