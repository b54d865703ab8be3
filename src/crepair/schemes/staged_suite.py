"""The tests of a staged run against a reference (:mod:`crepair.schemes.staged`):
the given ones, whose expected outputs are the test files', and inputs
generated from them token by token (:func:`crepair.oracle.mutate_inputs`),
whose expected outputs are the reference's (kept only where the reference
ends normally without undefined behaviour); and more generated inputs,
held back from the suite to confirm a patch that passes it.
"""

from __future__ import annotations

from pathlib import Path

from crepair.errors import BadInput, MissingTool
from crepair.frontend.parse import load_program
from crepair.oracle import HeldBack, ReferenceProgram, mutate_inputs
from crepair.oracle.inputs import int_constants
from crepair.records import RepairOutcome, StopReason
from crepair.schemes.time_limit import Deadline
from crepair.testequiv.formats import output_literals
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


def reference_literals(path: str | Path) -> tuple[str, ...]:
    """The literals the reference's output calls print
    (:func:`crepair.testequiv.formats.output_literals`), offered in place of
    the program's format literals; () when gcc or the parser cannot read
    the reference (its builds say why)."""
    try:
        return output_literals(load_program(path, real_c=True).ast)
    except (BadInput, MissingTool):
        return ()


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
        return RepairOutcome.NO_FAILING_TEST, StopReason.NOT_STARTED, f"the program passes all {tests} tests and {check}"
    return (RepairOutcome.UNKNOWN, StopReason.NOT_STARTED,
            f"the program's own build fails the counterexample {repeated!r} of the bounded check, and the "
            "search's instrumented build passes it: its output depends on undefined behaviour (an uninitialized "
            "read?); no change was searched")


def _constants(sources: tuple[str, ...]) -> list[int]:
    return list(dict.fromkeys(c for text in sources for c in int_constants(text)))[:MOST_CONSTANTS]
