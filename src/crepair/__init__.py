"""crepair: find and fix bugs in C programs.

Bounded verification (SSA + SMT), must fault localization, model-based
diagnosis, and all minimal verified repairs (AllRepair FM'16, FL-AllRepair
CAV'20, FMCAD'11 templates).  Python API::

    import crepair
    result = crepair.verify("prog.c", unwind=8)
    for r in crepair.repair("prog.c", level=1, max_size=2):
        print(r.diff)
"""

from crepair.api import localize, repair, verify
from crepair.bmc import Counterexample, VerifyOutcome, VerifyResult
from crepair.encode.formula import Unwinding
from crepair.errors import BadInput, CRepairError, MissingTool, UnsupportedConstruct, UsageError
from crepair.localization.result import LocalizeResult
from crepair.mutation import MutationLevel
from crepair.options import Component, Method, Prune, RepairOptions
from crepair.records import BoundedProof, Change, Edit, Evidence, Repair, RepairOutcome, Scheme, StopReason
from crepair.schemes.run import RepairRun

from crepair.version import __version__

__all__ = [
    "BadInput",
    "BoundedProof",
    "CRepairError",
    "Change",
    "Component",
    "Counterexample",
    "Edit",
    "Evidence",
    "LocalizeResult",
    "Method",
    "MissingTool",
    "MutationLevel",
    "Prune",
    "Repair",
    "RepairOptions",
    "RepairOutcome",
    "RepairRun",
    "Scheme",
    "StopReason",
    "Unwinding",
    "UnsupportedConstruct",
    "UsageError",
    "VerifyOutcome",
    "VerifyResult",
    "localize",
    "repair",
    "verify",
]
