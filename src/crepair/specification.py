"""What a repair must satisfy: one record for every kind of specification.

A :class:`Specification` holds any of: the program's own assertions
(always, with the checks of undefined behaviour), a reference
implementation (:class:`~crepair.options.ReferenceOptions`), a test suite
(:class:`TestSuite`: f1x's driver contract, or a folder of stdin/stdout
pairs) and heap states (:class:`HeapStates`, Wolverine2).  Reference and
tests together are the teacher's case (a model solution and the course's
tests); heap states stand alone.  :func:`crepair.api.repair` with
``spec=`` runs the scheme that can check it (:meth:`Specification.runner`).

>>> Specification(reference=ReferenceOptions("model.c"),       # doctest: +SKIP
...               tests=TestSuite(tests_dir="tests", compare="exact"))
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from crepair.errors import UsageError
from crepair.options import ReferenceOptions


class Runner(enum.Enum):
    """Which run checks a specification (see :meth:`Specification.runner`)."""

    BOUNDED = "bounded"  # the schedule of mutation and template schemes: assertions, or a reference (any entry)
    TESTS = "tests"  # test-driven search (f1x): the tests alone
    STAGED = "staged"  # test-driven space against a reference (main): given and generated tests, proof last
    HEAP = "heap"  # Wolverine2 against heap states


@dataclass(frozen=True, slots=True)
class TestSuite:
    """A test suite: ``tests_dir`` (a folder of ``input-X``/``output-X`` or
    ``X.in``/``X.out`` pairs, outputs compared as ``compare`` says: exact,
    trailing-whitespace, lines, tokens) or ``driver`` with ``test_ids`` (f1x's
    contract: ``DRIVER ID`` exits 0 on a pass); ``build``, ``project`` as
    for :func:`crepair.testsuite.load_tests`."""

    __test__ = False  # not a pytest class

    tests_dir: str | None = None
    driver: str | None = None
    test_ids: tuple[str, ...] = ()
    compare: str = "trailing-whitespace"
    build: str | None = None
    project: str | None = None


@dataclass(frozen=True, slots=True)
class HeapStates:
    """Expected memory graphs of ``function``: a states file ``states``, or
    the run of the correct program ``states_from`` under gdb (``loops``:
    its states at every loop head too)."""

    function: str | None = None
    states: str | None = None
    states_from: str | None = None
    loops: bool = False


@dataclass(frozen=True, slots=True)
class Specification:
    """The program's assertions (always) and any of ``reference``,
    ``tests``, ``states``."""

    reference: ReferenceOptions | None = None
    tests: TestSuite | None = None
    states: HeapStates | None = None

    def runner(self, entry: str = "main") -> Runner:
        """The run that checks this specification: heap states the heap
        scheme; tests alone the test-driven search; a reference of ``main``
        (with or without a folder of tests) the staged run; a reference of
        another entry, or assertions only, the bounded schedule.  Raises
        ``UsageError`` for a combination no run checks."""
        if self.states is not None:
            if self.reference is not None or self.tests is not None:
                raise UsageError("heap states are a specification of their own: not with a reference or tests")
            return Runner.HEAP
        if self.reference is not None:
            if entry != "main":
                if self.tests is not None:
                    raise UsageError(f"a reference with tests: the concrete runs start at main (entry {entry})")
                return Runner.BOUNDED
            if self.tests is not None and self.tests.tests_dir is None:
                raise UsageError("a reference with tests: the tests must be a folder of input/output pairs")
            return Runner.STAGED
        return Runner.TESTS if self.tests is not None else Runner.BOUNDED
