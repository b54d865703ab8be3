"""Semantic distance of a plausible patch from the original program, and
the diversity of the plausible patches (crepair issue 29, items 2 and 3).

Source: D'Antoni, Samanta, Singh, "QLOSE: Program Repair with
Quantitative Objectives", CAV'16: among the programs that satisfy the
tests, prefer the one whose runs differ least from the original's (a
semantic distance, next to the syntactic one).  crepair keeps f1x's
syntactic cost as the search order and measures the semantic distance on
standard output only (QLOSE compares whole execution traces):

    distance(P) = |{ x in I : the original runs normally on x and
                              out_P(x) != out_original(x) }|

where ``I`` is the standard inputs of the passing tests followed by up to
``GENERATED`` inputs mutated token by token from them
(:func:`crepair.oracle.inputs.mutate_inputs`, seed 0: deterministic).
Only the passing tests are mutated: near them the original is presumed
right (it passes them), as QLOSE presumes on the passing runs; near a
failing test the original is known wrong and a fix must change it.
Outputs are compared as the tests compare them (``Comparison``).  An
input on which the original crashes (killed by a signal) or runs out of
time says nothing about the intended behaviour and is skipped: it is not
*compared*.  A patch that crashes or times out where the original did not
differs there.  On the passing tests a plausible patch agrees with the
original by definition, so in practice the distance counts generated
inputs; they are listed in ``I`` so that the definition holds for any
comparison.

Two patches *disagree* (the diversity check) when their outputs differ on
some compared input: the tests then underdetermine the fix.

Only the folder form of tests (stdin/stdout pairs) has inputs to mutate;
with a driver (f1x's contract) there is no probe and patches keep the
cost order.

>>> probe = Probe.of(spec, passing, run)            # doctest: +SKIP
>>> probe.distance(probe.behaviour(env))            # doctest: +SKIP
Distance(differ=3, compared=205)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from crepair.oracle.inputs import mutate_inputs
from crepair.testsuite.spec import Comparison, FolderTests

GENERATED = 200  # mutated inputs per run (on top of the passing tests' own; 40 told few patches apart)
GIVE_UP = 10  # a patch that crashes or times out on this many inputs is not run on the rest (they differ)
SEED = 0

# the run of one program on one standard input: its output, normalized, or
# None when it crashed (signal) or ran out of time
Runner = Callable[[bytes, Mapping[str, str]], "bytes | None"]


@dataclass(frozen=True, slots=True)
class Behaviour:
    """The normalized outputs of one program on the probe's inputs, in
    order (None: a crash or a time-out on that input)."""

    outputs: tuple[bytes | None, ...]


@dataclass(frozen=True, slots=True)
class Distance:
    """``differ`` of the ``compared`` inputs give another output than the
    original's (the inputs where the original crashed or timed out are not
    compared)."""

    differ: int
    compared: int

    def describe(self) -> str:
        return f"distance {self.differ} (differs from the original on {self.differ} of {self.compared} inputs)"


@dataclass(frozen=True, slots=True)
class Probe:
    """The inputs ``inputs`` (the passing tests' first, then ``generated``
    mutants), how to run a program on one (``run``: input and
    environment to normalized output or None), and the original's
    ``original`` behaviour on them."""

    inputs: tuple[bytes, ...]
    generated: int
    run: Runner
    original: Behaviour

    @staticmethod
    def of(spec, passing: Sequence[str], run: Runner, original_env: Mapping[str, str],
           count: int | None = None) -> "Probe | None":
        """The probe of a folder-form ``spec``: the inputs of its
        ``passing`` test ids, then ``count`` (None: ``GENERATED``) mutants
        of them; the original's behaviour is read by running ``run`` with
        ``original_env``.  None for a driver-form ``spec`` (no inputs) or
        when no passing test's input can be read."""
        if not isinstance(spec, FolderTests):
            return None
        given: dict[str, bytes] = {}
        for t in spec.ids:
            try:
                given[t] = Path(spec.input_path(t)).read_bytes()
            except OSError:
                continue
        if not given:
            return None
        base = list(dict.fromkeys(given[t] for t in passing if t in given))
        if not base:
            return None
        mutants = mutate_inputs(base, count=GENERATED if count is None else count, seed=SEED)
        inputs = tuple(base + mutants)
        original = Behaviour(tuple(run(x, original_env) for x in inputs))
        return Probe(inputs, len(mutants), run, original)

    @property
    def compared(self) -> tuple[int, ...]:
        """Indices (0-based) of the inputs on which the original ran normally."""
        return tuple(i for i, out in enumerate(self.original.outputs) if out is not None)

    def behaviour(self, env: Mapping[str, str]) -> Behaviour:
        """The behaviour of the program ``run`` runs with ``env``, on the
        compared inputs (the others are not run: None); after ``GIVE_UP``
        crashes or time-outs the rest are not run either (None)."""
        keep, failed, out = set(self.compared), 0, []
        for i, x in enumerate(self.inputs):
            got = self.run(x, env) if i in keep and failed < GIVE_UP else None
            failed += i in keep and got is None
            out.append(got)
        return Behaviour(tuple(out))

    def distance(self, b: Behaviour) -> Distance:
        """How far ``b`` is from the original's behaviour (see the module)."""
        idx = self.compared
        return Distance(sum(1 for i in idx if b.outputs[i] != self.original.outputs[i]), len(idx))

    def disagree(self, a: Behaviour, b: Behaviour) -> bool:
        """Whether ``a`` and ``b`` differ on some compared input."""
        return any(a.outputs[i] != b.outputs[i] for i in self.compared)


def folder_runner(argv: Sequence[str], cwd: str, compare: Comparison, timeout_ms: int) -> Runner:
    """A :data:`Runner` of the built program ``argv`` in ``cwd`` (its
    standard output normalized by ``compare``; None after a signal or
    ``timeout_ms`` milliseconds)."""
    import os

    from crepair import toolchain

    def run(stdin: bytes, env: Mapping[str, str]) -> bytes | None:
        done = toolchain.run(list(argv), cwd=cwd, input=stdin, timeout=timeout_ms / 1000,
                             env={**os.environ, **env}, stderr=toolchain.DEVNULL)
        if done.timed_out or done.returncode is None or done.returncode < 0:
            return None
        return compare.normalize(done.stdout)

    return run
