"""crepair: find and fix bugs in C programs.

Bounded verification (SSA + SMT), all minimal mutation-based repairs
(AllRepair, FM'16).  Python API::

    import crepair
    result = crepair.verify("prog.c", unwind=8)
    for r in crepair.repair("prog.c", level=1, max_size=2):
        print(r.diff)
"""

from crepair.api import LocalizeResult, Method, Prune, RepairOptions, RepairRun, Scheme, localize, repair
from crepair.errors import BadInput, CRepairError, MissingTool, UnsupportedConstruct
from crepair.mutation import MutationLevel
from crepair.schemes import Change, Repair, RepairOutcome
from crepair.bmc import Counterexample, VerifyOutcome, VerifyResult, verify

__version__ = "0.1.0"

__all__ = [
    "BadInput",
    "CRepairError",
    "Change",
    "Counterexample",
    "LocalizeResult",
    "Method",
    "Prune",
    "MissingTool",
    "MutationLevel",
    "Repair",
    "RepairOptions",
    "RepairOutcome",
    "RepairRun",
    "Scheme",
    "UnsupportedConstruct",
    "VerifyOutcome",
    "VerifyResult",
    "localize",
    "repair",
    "verify",
]
