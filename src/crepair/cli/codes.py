"""The exit codes of the ``crepair`` command (documented in :mod:`crepair.cli`)."""

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
    PARTIAL_FAILURE = 9  # debug: a command of a scripted session failed; batch: a job crashed, was killed, could not run
    INTERNAL = 70
    INTERRUPTED = 130  # Ctrl-C (SIGINT), as a shell reports a process it interrupted
    NO_PATCH = 122  # test-driven: no plausible patch in the search space (f1x's code)
    NO_FAILING_TEST = 123  # test-driven: the original passes every test (f1x's code)
    BROKEN_PIPE = 141
