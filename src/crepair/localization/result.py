"""The result of ``crepair.localize``: where the bug can be."""

from __future__ import annotations

from dataclasses import dataclass, field

from crepair.bmc import VerifyOutcome

from crepair.counterexample import Counterexample
from crepair.localization.diagnosis import Diagnosis
from crepair.localization.must import Origin
from crepair.options import Method
from crepair.records import BoundReport


@dataclass(frozen=True, slots=True)
class LocalizeResult:
    """Where the bug can be.

    ``outcome`` is the verification outcome of the program (under unwinding
    assumptions); when VIOLATED, ``counterexample`` is the bug localized and
    ``locations`` its must location set outside the specification, in
    source order (method MUST), or ``diagnoses`` the minimal diagnoses
    found (method DIAGNOSIS; ``complete``: every one up to the size limit).
    ``in_specification`` counts must locations left out because they lie in
    the specification (``main``, ``AllRepair_correct_*``, ``no_mutate``).
    ``reason`` says why an UNKNOWN outcome (or an incomplete diagnosis) is
    unknown.  ``seconds``: wall-clock time; ``original``: the text of the
    file localized (spans index it).
    """

    path: str
    entry: str
    method: Method
    outcome: VerifyOutcome
    bound: BoundReport
    counterexample: Counterexample | None
    locations: tuple[Origin, ...]
    seconds: float
    diagnoses: tuple[Diagnosis, ...] = ()
    complete: bool = True
    in_specification: int = 0
    reason: str = ""
    original: str = field(default="", repr=False)
