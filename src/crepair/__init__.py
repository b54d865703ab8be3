"""crepair: find and fix bugs in C programs.

Bounded verification (SSA + SMT), must fault localization, model-based
diagnosis, and all minimal verified repairs (AllRepair FM'16, FL-AllRepair
CAV'20, FMCAD'11 templates).  Python API::

    import crepair
    result = crepair.verify("prog.c", unwind=8)
    for r in crepair.repair("prog.c", level=1, max_size=2):
        print(r.diff)
"""

import importlib

from crepair.version import __version__

# The public names, imported on first use (PEP 562): ``import crepair.bmc``
# or ``crepair.verify(...)`` loads only the stages they need.
_WHERE = {
    "localize": "crepair.api", "repair": "crepair.api", "verify": "crepair.api",
    "localize_tests": "crepair.api", "repair_tests": "crepair.api", "repair_reference": "crepair.api",
    "repair_heap": "crepair.api", "localize_gradient": "crepair.api",
    "PassesTests": "crepair.records", "PassesSuite": "crepair.records", "EquivalenceProof": "crepair.records",
    "Counterexample": "crepair.bmc", "VerifyOutcome": "crepair.bmc", "VerifyResult": "crepair.bmc",
    "Unwinding": "crepair.encode.formula", "Checks": "crepair.encode.formula", "NO_CHECKS": "crepair.encode.formula",
    "Violation": "crepair.encode.formula",
    "BadInput": "crepair.errors", "CRepairError": "crepair.errors", "MissingTool": "crepair.errors",
    "UnsupportedConstruct": "crepair.errors", "UsageError": "crepair.errors",
    "LocalizeResult": "crepair.localization.result",
    "MutationLevel": "crepair.mutation",
    "Component": "crepair.options", "Method": "crepair.options", "Prune": "crepair.options",
    "ReferenceOptions": "crepair.options", "RepairOptions": "crepair.options",
    "BoundedProof": "crepair.records", "Change": "crepair.records", "Edit": "crepair.records",
    "Evidence": "crepair.records", "Repair": "crepair.records", "RepairOutcome": "crepair.records",
    "Scheme": "crepair.records", "StopReason": "crepair.records",
    "RepairRun": "crepair.schemes.run",
    "Specification": "crepair.specification", "TestSuite": "crepair.specification",
    "HeapStates": "crepair.specification",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'crepair' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "__version__",
    "BadInput",
    "BoundedProof",
    "CRepairError",
    "Change",
    "Checks",
    "Component",
    "Counterexample",
    "Edit",
    "Evidence",
    "LocalizeResult",
    "Method",
    "MissingTool",
    "MutationLevel",
    "NO_CHECKS",
    "Prune",
    "ReferenceOptions",
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
    "Violation",
    "localize",
    "localize_tests",
    "repair",
    "repair_tests",
    "repair_reference",
    "repair_heap",
    "localize_gradient",
    "verify",
    "PassesTests",
    "PassesSuite",
    "EquivalenceProof",
    "Specification",
    "TestSuite",
    "HeapStates",
]
