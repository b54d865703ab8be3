"""The exit codes of the ``crepair`` command (documented in :mod:`crepair.cli`):
:mod:`crepair.exit_codes`, which the batch workers use too."""

from __future__ import annotations

from crepair.exit_codes import ExitCode

__all__ = ["ExitCode"]
