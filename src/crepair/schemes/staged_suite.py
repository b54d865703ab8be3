"""The tests of a staged run against a reference (:mod:`crepair.schemes.staged`):
the given ones, whose expected outputs are the test files', and inputs
generated from them token by token (:func:`crepair.oracle.mutate_inputs`),
whose expected outputs are the reference's (kept only where the reference
ends normally without undefined behaviour); and more generated inputs,
held back from the suite to confirm a patch that passes it.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from pycparser import c_ast

from crepair import toolchain
from crepair.errors import BadInput, MissingTool
from crepair.frontend.parse import load_program
from crepair.frontend.preprocess import in_user_file
from crepair.oracle import HeldBack, ReferenceProgram, mutate_inputs
from crepair.oracle.inputs import int_constants
from crepair.records import RepairOutcome, StopReason
from crepair.schemes.time_limit import Deadline
from crepair.testequiv.formats import output_literals
from crepair.testequiv.ctext import constant_value
from crepair.testequiv.verbatim import Verbatim
from crepair.testsuite.spec import Comparison, FolderTests, load_tests


MOST_CONSTANTS = 16  # integer constants of the programs whose neighbours generated numbers may take
GENERATION_SHARE = 0.2  # of the time left: the most the reference's runs on generated inputs may take


def given_tests(path: Path, tests_dir: str | Path | None, oracle: ReferenceProgram, compare: Comparison,
                notes: list[str]) -> list[tuple[str, bytes, bytes]]:
    """The tests of the folder ``tests_dir`` (none for None) as (id,
    standard input, expected output), in the folder's order; a test on which
    the reference prints something else than its expected output (under
    ``compare``) is kept as the file says and noted in ``notes``.  Raises
    ``UsageError``/``BadInput`` as :func:`crepair.testsuite.spec.load_tests`."""
    if tests_dir is None:
        return []
    spec = load_tests(path, tests_dir=tests_dir, compare=compare)
    assert isinstance(spec, FolderTests)
    inputs = [spec.input_path(t).read_bytes() for t in spec.ids]
    out, outputs = [], oracle.expected_all(inputs)
    invalid = [k for k, mine in enumerate(outputs) if mine is None]
    if invalid and oracle.rely_on_wrapping([inputs[k] for k in invalid]):
        notes.append("the reference's signed arithmetic overflows and wraps around on the given tests: an input on "
                     "which it overflows is not rejected for it (gcc -fwrapv)")
        for k, mine in zip(invalid, oracle.expected_all([inputs[k] for k in invalid])):
            outputs[k] = mine
    for t, stdin, mine in zip(spec.ids, inputs, outputs):
        expected = (spec.folder / spec.naming.files(t)[1]).read_bytes()
        if mine is None:
            notes.append(f"test {t}: the reference's own run on it is not valid (a crash, the time limit, undefined "
                         "behaviour or an output that depends on what memory held; the test's file is taken)")
        elif compare.normalize(mine) != compare.normalize(expected):
            notes.append(f"test {t}: the reference's output differs from the expected one (the test's file is taken)")
        out.append((t, stdin, expected))
    return out


def generated_tests(seeds: list[bytes], oracle: ReferenceProgram, count: int,
                    sources: tuple[str, ...] = ()) -> tuple[list[tuple[bytes, bytes]], int]:
    """Up to ``count`` inputs mutated from the standard inputs ``seeds``
    (deterministic; numbers also near the integer constants of the C texts
    ``sources``, the reference's and the program's: the boundaries they
    test), each with the reference's output, as (stdin, expected); and how
    many mutants the reference rejected (undefined behaviour, a time-out,
    an abnormal end) or had no time for: checking them takes at most
    :data:`GENERATION_SHARE` of the time the run has left (a reference
    that runs past its time limit on many of them took 120 s of a 300 s run
    and left the search none, Codeflaws 7-B)."""
    inputs = list(mutate_inputs(seeds, count=count, seed=0, constants=_constants(sources)))
    until = (oracle.deadline or Deadline()).share(GENERATION_SHARE).at
    kept, invalid = [], 0
    for stdin, expected in zip(inputs, oracle.expected_all(inputs, until)):
        if expected is None:
            invalid += 1
        else:
            kept.append((stdin, expected))
    return kept, invalid


def held_back(seeds: list[bytes], count: int, sources: tuple[str, ...], suite: list[bytes]) -> HeldBack:
    """Up to ``count`` more inputs mutated from ``seeds`` as
    :func:`generated_tests` does, with another seed, none of them an input
    of ``suite``; their expected outputs are computed when a patch first
    needs them (:meth:`~crepair.schemes.staged_checks.CandidateChecks.confirm`)."""
    if count <= 0:
        return HeldBack([])
    known = set(suite)
    inputs = mutate_inputs(seeds, count=count + len(known), seed=1, constants=_constants(sources))
    return HeldBack([i for i in inputs if i not in known][:count])


def reference_literals(path: str | Path, program_path: str | Path) -> tuple[
        tuple[str, ...], tuple[tuple[int, str], ...]]:
    """What the search space of the program at ``program_path`` takes from
    the reference at ``path``: the literals its output calls print
    (:func:`crepair.testequiv.formats.output_literals`), offered in place of
    the program's format literals, and the integer constants of its code as
    ``(value, spelling)``, most used first, at most ``MOST_CONSTANTS``,
    offered in place of the program's constants (``SpaceOptions.constants``).
    A macro keeps its name when the C preprocessor defines it, with the
    same value, for the program too (``EOF`` with ``<stdio.h>``), else it
    is spelled as its number.  Both empty when gcc or the parser cannot
    read the reference (its builds say why)."""
    try:
        program = load_program(path, real_c=True)
    except (BadInput, MissingTool):
        return (), ()
    theirs, mine = _macros(path), _macros(program_path)
    counts: Counter[tuple[int, str]] = Counter()
    verbatim = Verbatim(program)

    def count(value: int, text: str | None) -> None:  # text: a literal, or a macro's name
        ok = text is not None and (not text.isidentifier() or mine.get(text) == value)
        counts[value, text if ok else str(value)] += 1

    class _Constants(c_ast.NodeVisitor):
        def visit_Constant(self, node: c_ast.Node) -> None:
            value = constant_value(node)
            if value is not None and in_user_file(node):
                span = program.spans.span(node)
                text = program.original[span.start:span.end].strip() if verbatim.expression(node) is None else ""
                count(value, text or None)

        def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:  # -1
            if node.op == "-" and isinstance(node.expr, c_ast.Constant):
                self.visit_Constant(node)
            else:
                self.generic_visit(node)

        def visit_ID(self, node: c_ast.ID) -> None:  # a header's macro the parser's headers leave a name (EOF)
            if node.name in theirs and in_user_file(node):
                count(theirs[node.name], node.name)

    _Constants().visit(program.ast)
    constants: dict[int, str] = {}
    for value, spelling in sorted(counts, key=lambda c: (-counts[c], abs(c[0]))):
        constants.setdefault(value, spelling)  # one spelling per value
    return output_literals(program.ast), tuple(constants.items())[:MOST_CONSTANTS]


_DEFINE = re.compile(r"^#define (\w+) \(?(-?\d+)\)?$", re.M)


def _macros(path: str | Path) -> dict[str, int]:
    """The macros ``gcc -dM -E`` defines for the C file at ``path`` whose
    value is one integer (``EOF`` -1, ``INT_MAX``); {} when gcc fails."""
    gcc = toolchain.find("gcc", "gcc not found: install gcc (e.g. apt-get install gcc)")
    done = toolchain.run([gcc, "-dM", "-E", str(path)], timeout=10, text=True)
    return {} if done.returncode != 0 else {m[1]: int(m[2]) for m in _DEFINE.finditer(done.stdout)}


def no_failing_test(tests: int, repeated: bytes | None,
                    decided: bool = True) -> tuple[RepairOutcome, StopReason, str]:
    """How a staged run ends when the search finds no failing test among
    its ``tests`` and the bounded check no new one: (outcome, stop reason,
    reason).  ``repeated``: the standard input of a counterexample the
    suite already has, found again (None: the check found none) — the
    program's own build fails it and the search's instrumented build does
    not, so its output depends on undefined behaviour (an uninitialized
    read, say): unknown, not "passes every test".  ``decided``: the check
    answered (no difference within its bounds); else it was unknown (its
    time), and the reason says so rather than "no difference"."""
    if repeated is None:
        check = ("the bounded check found no difference from the reference" if decided else
                 "the bounded check did not decide in time whether it differs from the reference (unknown)")
        return (RepairOutcome.NO_FAILING_TEST, StopReason.NOT_STARTED,
                f"the program passes all {tests} tests and {check}")
    return (RepairOutcome.UNKNOWN, StopReason.NOT_STARTED,
            f"the program's own build fails the counterexample {repeated!r} of the bounded check, and the "
            "search's instrumented build passes it: its output depends on undefined behaviour (an uninitialized "
            "read?); no change was searched")


def _constants(sources: tuple[str, ...]) -> list[int]:
    return list(dict.fromkeys(c for text in sources for c in int_constants(text)))[:MOST_CONSTANTS]
