"""Options of the verbs: frozen records with Enum fields (STYLE.md, 8).

Times are seconds (``None``: no limit; the command line's ``0`` means
none too); ``unwind`` is the unwinding bound B (a loop body runs at most B
times); sizes count changed locations.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from crepair.encode.formula import Checks, Unwinding
from crepair.errors import UsageError
from crepair.mutation import MutationLevel
from crepair.records import Scheme

DEFAULT_UNWIND = 8
DEFAULT_MAX_SIZE = 2
DEFAULT_TIMEOUT = 600.0  # seconds: the default schedule's template stage needs minutes on TCAS (README)
DEFAULT_INPUT_BOUND = 8

AUTO_SOLVER = "auto"
#: ``--solver``: auto, and the values of crepair.solver.Backend (not imported here: it loads z3)
SOLVERS = (AUTO_SOLVER, "z3", "bitwuzla", "portfolio", "sat")


def solver_of(name, equivalence: bool) -> str:
    """The solver that decides a run's checks: ``name`` (one of
    :data:`SOLVERS`, or a ``Backend``), :data:`AUTO_SOLVER` chosen by the
    kind of check — ``"bitwuzla"`` for one-shot checks of equivalence with
    a reference (``equivalence``: verify, localize, the staged run's
    proofs; Bitwuzla decided 10 of 12 Codeflaws problems z3 left unknown at
    60 s, bench/results/solvers.md), ``"z3"`` for a program's own
    assertions and the repair schemes' many incremental checks.  Raises
    ``UsageError`` for another name."""
    value = getattr(name, "value", name)
    if value not in SOLVERS:
        raise UsageError(f"--solver {value}: not one of {', '.join(SOLVERS)}")
    if value != AUTO_SOLVER:
        return value
    return "bitwuzla" if equivalence else "z3"


class Component(enum.Enum):
    """What may be a component in model-based diagnosis."""

    RHS = "rhs"  # right-hand sides, returned expressions, arguments
    COND = "cond"  # branch and loop conditions


class Prune(enum.Enum):
    """Pruning of the mutation search when a candidate is buggy."""

    NONE = "none"  # block only the candidate (AllRepair, FM'16)
    MUST = "must"  # block every candidate equal on its must location set (FL-AllRepair, CAV'20)


class Method(enum.Enum):
    """Fault-localization methods."""

    MUST = "must"  # must location set (FOSFL, CAV'20)
    DIAGNOSIS = "diagnosis"  # minimal diagnoses (model-based diagnosis, FMCAD'11)
    SPECTRUM = "spectrum"  # lines ranked by test coverage (Ochiai/Tarantula/DStar), tests required


def at_least(name: str, value: int | None, low: int) -> None:
    """Raise ``UsageError`` unless ``value`` is None or at least ``low``."""
    if value is not None and value < low:
        raise UsageError(f"{name} must be at least {low} (got {value})")


def positive_seconds(name: str, value: float | None) -> None:
    """Raise ``UsageError`` unless ``value`` is None or a positive number of seconds."""
    if value is not None and not value > 0:
        raise UsageError(f"{name} must be a positive number of seconds, or 0 for none (got {value:g})")


@dataclass(frozen=True, slots=True)
class ReferenceOptions:
    """Equivalence with a reference implementation (``--reference``).

    ``path``: the reference C file; ``init``: functions (no parameters)
    both programs run, in order, after the inputs are set and before the
    entry function (e.g. TCAS's ``initialize``); ``assume``: C expressions
    over the entry's parameters and the globals, each assumed on the
    initial state; ``input_bound``: elements of an array input (array
    parameters, global arrays) that are inputs and compared (≥ 1).
    :meth:`check` raises ``UsageError``.
    """

    path: str
    init: tuple[str, ...] = ()
    assume: tuple[str, ...] = ()
    input_bound: int = DEFAULT_INPUT_BOUND

    def check(self) -> "ReferenceOptions":
        """Raise ``UsageError`` for a value out of range; return self."""
        at_least("--input-bound", self.input_bound, 1)
        for expr in self.assume:
            if not expr.strip():
                raise UsageError("--assume needs a C expression (got an empty one)")
        return self

    @staticmethod
    def of(reference: "str | ReferenceOptions | None", init=(), assume=(), input_bound: int | None = None,
           ) -> "ReferenceOptions | None":
        """The options of a ``reference`` path (or as given); None without a
        reference, when ``init``, ``assume`` and ``input_bound`` must be
        unset (else ``UsageError``)."""
        if reference is None:
            if init or assume or input_bound is not None:
                raise UsageError("--init, --assume and --input-bound need --reference REF.c")
            return None
        if isinstance(reference, ReferenceOptions):
            return reference.check()
        bound = DEFAULT_INPUT_BOUND if input_bound is None else input_bound
        return ReferenceOptions(str(reference), tuple(init), tuple(assume), bound).check()


@dataclass(frozen=True, slots=True)
class RepairOptions:
    """Options of a repair run.

    ``schemes`` run in order; ``unwind``: unwinding bound B (≥ 0);
    ``unwinding``: ASSERTIONS (default: a candidate whose runs the bound cuts
    off is not a repair) or ASSUMPTIONS (AllRepair FM'16: such repairs are
    reported, labelled vacuous, ranked last and never applied);
    ``max_size``: largest repair size (≥ 1); ``timeout``: seconds for the
    whole run (None: none); ``max_repairs``: stop after that many (None:
    all); ``no_mutate``: extra specification functions, never mutated;
    ``mutate_main``: let ``main``'s code (not its assertions) change.
    Template scheme: ``components`` that may be abnormal, ``inputs`` (|J|)
    for diagnosis, ``max_refinements`` and ``repairs_per_diagnosis`` of the
    refinement loop, ``max_terms`` (most parameters of a candidate outside
    the simple range: a non-zero coefficient or a constant beyond ±1000),
    ``max_diagnoses`` tried, ``diagnosis_timeout`` seconds spent on the
    templates of one diagnosis.  ``rlimit``: z3 resource units per check
    (deterministic; None: none).  ``reproducible``: count ``timeout`` and
    ``diagnosis_timeout`` in z3 resource units
    (:data:`crepair.solver.UNITS_PER_SECOND` a second), so that the run's
    repairs do not depend on machine speed or load.  ``checks``: the checks of undefined
    behaviour that are part of the specification (all by default).
    ``reference``: repair towards equivalence with a reference
    implementation (None: the assertions of the program).  :meth:`check`
    raises ``UsageError``.
    """

    schemes: tuple[Scheme, ...] = (Scheme.MUTATION,)
    level: MutationLevel = MutationLevel.LEVEL_1
    unwind: int = DEFAULT_UNWIND
    unwinding: Unwinding = Unwinding.ASSERTIONS
    entry: str = "main"
    max_size: int = DEFAULT_MAX_SIZE
    timeout: float | None = DEFAULT_TIMEOUT
    max_repairs: int | None = None
    no_mutate: frozenset[str] = frozenset()
    mutate_main: bool = False
    prune: Prune = Prune.MUST
    components: frozenset[Component] = frozenset({Component.RHS, Component.COND})
    inputs: int = 2
    max_refinements: int = 10
    repairs_per_diagnosis: int = 5
    max_terms: int = 3
    max_diagnoses: int | None = 10
    diagnosis_timeout: float = 60.0
    rlimit: int | None = None
    reproducible: bool = False
    checks: Checks = Checks()
    reference: ReferenceOptions | None = None
    #: the SMT solver of the checks: "z3", "bitwuzla" or "portfolio" (crepair.solver.Backend's values; checks
    #: under assumptions, unsat cores and reproducible budgets stay with z3); "auto": z3 (:func:`solver_of`)
    solver: str = AUTO_SOLVER
    #: the ``time.monotonic()`` instant ``timeout`` counts from (None: when the run starts; the command
    #: line gives its own start, so that loading the program counts too)
    started: float | None = None

    def check(self) -> "RepairOptions":
        """Raise ``UsageError`` for a value out of range; return self."""
        if not self.schemes:
            raise UsageError("--scheme needs at least one scheme")
        at_least("--unwind", self.unwind, 0)
        at_least("--max-size", self.max_size, 1)
        at_least("--max-repairs", self.max_repairs, 1)
        at_least("--inputs", self.inputs, 1)
        at_least("--max-refinements", self.max_refinements, 1)
        at_least("--repairs-per-diagnosis", self.repairs_per_diagnosis, 1)
        at_least("--max-terms", self.max_terms, 1)
        at_least("--max-diagnoses", self.max_diagnoses, 1)
        positive_seconds("--timeout", self.timeout)
        positive_seconds("diagnosis_timeout", self.diagnosis_timeout)
        at_least("rlimit", self.rlimit, 1)
        solver_of(self.solver, equivalence=False)
        if not self.components:
            raise UsageError("--components needs at least one of rhs, cond")
        if self.reference is not None:
            self.reference.check()
        return self

    @staticmethod
    def of(options: "RepairOptions | None" = None, **overrides) -> "RepairOptions":
        """``options`` (default: the defaults) with keyword ``overrides``,
        accepting plain values for Enum fields (``level=2``,
        ``scheme="template"``, ``prune="none"``, ``unwinding="assumptions"``)."""
        options = options or RepairOptions()
        if not overrides:
            return options
        if "scheme" in overrides:
            overrides["schemes"] = overrides.pop("scheme")
        fields = {f.name for f in dataclasses.fields(RepairOptions)}
        unknown = set(overrides) - fields
        if unknown:
            raise TypeError(f"unknown repair option(s): {', '.join(sorted(unknown))}")
        conv = {
            "level": MutationLevel, "prune": Prune, "unwinding": Unwinding,
        }
        for name, kind in conv.items():
            if name in overrides:
                overrides[name] = _enum(kind, overrides[name], name)
        if "schemes" in overrides:
            value = overrides["schemes"]
            value = (value,) if isinstance(value, (str, Scheme)) else value
            overrides["schemes"] = tuple(_enum(Scheme, x, "scheme") for x in value)
        if "components" in overrides:
            overrides["components"] = frozenset(_enum(Component, x, "components") for x in overrides["components"])
        if isinstance(overrides.get("reference"), (str, bytes)) or hasattr(overrides.get("reference"), "__fspath__"):
            overrides["reference"] = ReferenceOptions.of(str(overrides["reference"]))
        if "no_mutate" in overrides:
            overrides["no_mutate"] = frozenset(overrides["no_mutate"])
        if overrides.get("timeout") == 0:  # 0 means no limit, as on the command line
            overrides["timeout"] = None
        return dataclasses.replace(options, **overrides)


def _enum(kind: type[enum.Enum], value, name: str):
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(m.value) for m in kind)
        raise UsageError(f"unknown {name} {value!r}: use {choices}") from None
