"""Test suites of C projects: specifications, project copies, builds, test
runs and per-test coverage (the inputs of test-driven repair, f1x TOSEM'18,
and of spectrum-based fault localization).

Pipeline: :func:`load_tests` (a :class:`TestSpec`) -> :class:`Workspace`
(copy, patch, build) -> :func:`run_test` (a :class:`TestRun`) ->
:func:`collect_spectrum` (a :class:`Spectrum`).  The user's project
directory is only ever read.
"""

from crepair.testsuite.coverage import Spectrum, TestCoverage, collect_spectrum
from crepair.testsuite.runner import (
    DEFAULT_TEST_TIMEOUT_MS, TestCounter, TestOutcome, TestRun, output_distance, run_test, run_tests,
)
from crepair.testsuite.spec import (
    BuildKind, BuildRecipe, DriverTests, FolderTests, Invocation, TestSpec, load_tests, normalize_output,
)
from crepair.testsuite.workspace import BuildResult, Workspace

__all__ = [
    "DEFAULT_TEST_TIMEOUT_MS", "BuildKind", "BuildRecipe", "BuildResult", "DriverTests", "FolderTests", "Invocation",
    "Spectrum", "TestCounter", "TestCoverage", "TestOutcome", "TestRun", "TestSpec", "Workspace", "collect_spectrum",
    "load_tests", "normalize_output", "output_distance", "run_test", "run_tests",
]
