"""The exit codes of crepair, one map for the command line and the batch
workers (README, "Exit codes"; :mod:`crepair.cli` lists them).

:class:`ExitCode` is every code; the maps below give the code of each
run's outcome, so that ``crepair COMMAND`` and a ``crepair batch`` job of
the same command end with the same code.  The maps are keyed by the
outcome's value (``VerifyOutcome``, ``RepairOutcome``: the ``"outcome"``
of the JSON report), so that this module loads nothing heavy (the command
line imports it before its stages, see :mod:`crepair.cli`).
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    VIOLATED = 1
    USAGE = 2
    BAD_INPUT = 3
    UNKNOWN = 4
    NO_REPAIR = 5
    ORIGINAL_CORRECT = 6
    MISSING_TOOL = 7
    BOUND_TOO_SMALL = 8
    # debug: a command of a scripted session failed; batch: a job crashed, was killed, could not run
    PARTIAL_FAILURE = 9
    INTERNAL = 70
    INTERRUPTED = 130  # Ctrl-C (SIGINT), as a shell reports a process it interrupted
    NO_PATCH = 122  # test-driven: no plausible patch in the search space (f1x's code)
    NO_FAILING_TEST = 123  # test-driven: the original passes every test (f1x's code)
    BROKEN_PIPE = 141
    TERMINATED = 143  # SIGTERM: stopped as by Ctrl-C, as a shell reports a terminated process


#: the ``kind`` of an error in a JSON report, by its exit code
ERROR_KINDS = {
    ExitCode.USAGE: "usage", ExitCode.BAD_INPUT: "bad-input", ExitCode.MISSING_TOOL: "missing-tool",
    ExitCode.INTERNAL: "internal", ExitCode.INTERRUPTED: "interrupted", ExitCode.UNKNOWN: "unknown",
    ExitCode.TERMINATED: "terminated",
}

#: ``verify``
VERIFY = {"verified": ExitCode.OK, "violated": ExitCode.VIOLATED,
          "unknown": ExitCode.UNKNOWN, "bound-too-small": ExitCode.BOUND_TOO_SMALL}

#: ``repair`` by the bounded schemes (mutation, template; the default schedule)
REPAIR = {
    "repaired": ExitCode.OK,
    "original-correct": ExitCode.ORIGINAL_CORRECT,
    "bound-too-small": ExitCode.BOUND_TOO_SMALL,
    "no-repair": ExitCode.NO_REPAIR,
    "exhausted": ExitCode.NO_REPAIR,
    "vacuous-only": ExitCode.NO_REPAIR,
}

#: test-driven ``repair`` (tests alone): f1x's codes
TEST_DRIVEN = {
    "repaired": ExitCode.OK,
    "exhausted": ExitCode.NO_PATCH,
    "no-repair": ExitCode.NO_PATCH,
    "no-failing-test": ExitCode.NO_FAILING_TEST,
}

#: ``repair`` against a reference of ``main`` (the staged run)
STAGED = {
    "repaired": ExitCode.OK,
    "exhausted": ExitCode.NO_REPAIR,
    "no-repair": ExitCode.NO_REPAIR,
    "no-failing-test": ExitCode.ORIGINAL_CORRECT,
    "original-correct": ExitCode.ORIGINAL_CORRECT,
}

#: ``repair --scheme heap``
HEAP = {"repaired": ExitCode.OK, "no-repair": ExitCode.NO_REPAIR,
        "original-correct": ExitCode.ORIGINAL_CORRECT}


def of_outcome(outcome: enum.Enum, codes: dict) -> ExitCode:
    """The code of a run's ``outcome`` (a ``VerifyOutcome`` or
    ``RepairOutcome``) in the map ``codes`` (one of the maps above); an
    outcome the map lacks (the time limit came first) is UNKNOWN."""
    return codes.get(outcome.value, ExitCode.UNKNOWN)


def of_localize(result) -> ExitCode:
    """``localize`` (must, diagnosis) of a
    :class:`~crepair.localization.result.LocalizeResult`: OK with
    locations; NO_REPAIR when the must set is empty; UNKNOWN,
    BOUND_TOO_SMALL, or ORIGINAL_CORRECT when no assertion fails."""
    from crepair.bmc import VerifyOutcome
    from crepair.options import Method

    if result.outcome == VerifyOutcome.VIOLATED:
        if result.method == Method.MUST and not result.locations:
            return ExitCode.NO_REPAIR
        return ExitCode.OK
    if result.outcome == VerifyOutcome.UNKNOWN:
        return ExitCode.UNKNOWN
    return ExitCode.BOUND_TOO_SMALL if result.outcome == VerifyOutcome.BOUND_TOO_SMALL else ExitCode.ORIGINAL_CORRECT


def of_spectrum(result) -> ExitCode:
    """``localize --method spectrum`` of a
    :class:`~crepair.localization.spectrum.SpectrumResult`: NO_FAILING_TEST
    (f1x's 123) when no test fails, OK with a ranking, else NO_REPAIR (the
    failing tests share no line)."""
    if not result.failing:
        return ExitCode.NO_FAILING_TEST
    return ExitCode.OK if result.ranking else ExitCode.NO_REPAIR
