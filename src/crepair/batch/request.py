"""What a batch worker runs: one API call, as a JSON-serialisable record.

The parent of a batch (``crepair batch``, ``crepair bench``) reads each
job's command-line words once, with the command line's own parser and
checks, into a :class:`Request` (:func:`crepair.cli.batch_cmd.request_of`);
the worker (:mod:`crepair.batch.worker`) calls the verb of the request's
:class:`Run` in :mod:`crepair.api` and renders its JSON report with
:mod:`crepair.report` (:mod:`crepair.batch.execute`), the document
``crepair COMMAND ... --json`` prints.  A job whose words the parser or
its checks refuse is a :class:`Refusal`: its record is made without a
worker.

>>> r = Request(Command.VERIFY, Run.VERIFY, "sum.c", timeout=5.0, options=(("unwind", 3),))
>>> Request.of(r.as_dict()) == r
True
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass

from crepair.options import ReferenceOptions
from crepair.specification import HeapStates, Specification, TestSuite


class Command(enum.Enum):
    """The command of a job."""

    VERIFY = "verify"
    LOCALIZE = "localize"
    REPAIR = "repair"


class Run(enum.Enum):
    """The API call of a request (:mod:`crepair.batch.execute`)."""

    VERIFY = "verify"  # crepair.verify
    LOCALIZE = "localize"  # crepair.localize: must location set or diagnoses
    SPECTRUM = "spectrum"  # crepair.localize_tests
    BOUNDED = "bounded"  # crepair.repair: mutation and template schemes, the default schedule
    TESTS = "tests"  # crepair.repair_tests: test-driven search (f1x)
    STAGED = "staged"  # crepair.repair_reference: a reference of main, with or without tests
    HEAP = "heap"  # crepair.repair_heap: Wolverine2 against heap states
    GRADIENT = "gradient"  # crepair.localize_gradient: Wolverine2's Algorithm 2 against heap states


@dataclass(frozen=True, slots=True)
class Request:
    """One API call: ``run`` of ``program`` (a path, as the job gives it)
    for the job's ``command``, checked against ``spec`` (a reference, a
    test suite, heap states; the program's assertions always).  ``timeout``: seconds
    of the whole run (None: none; the batch's default when the job sets
    none; for a run without a limit of its own, spectrum localization,
    only the worker's kill time); ``reproducible``: the limit is counted in z3 resource units
    (the wall clock stops the worker only at ``WALL_CLOCK_SAFETY`` times
    it); ``memory_mb``: the job's own ``--memory`` (None: none given);
    ``options``: the verb's further keyword arguments as (name, JSON
    value) pairs, sorted by name; ``more_files``: further files of a
    test-driven repair."""

    command: Command
    run: Run
    program: str
    spec: Specification = Specification()
    timeout: float | None = None
    reproducible: bool = False
    memory_mb: int | None = None
    options: tuple[tuple[str, object], ...] = ()
    more_files: tuple[str, ...] = ()

    @property
    def hard_stop(self) -> bool:
        """Whether the run's time limit is also enforced by the wall clock
        (the command line's last resort, ``HARD_STOP_GRACE`` seconds after
        it): the runs whose solver calls may overrun it, as ``crepair
        COMMAND`` decides (not with tests nor heap states: their clock starts
        later)."""
        return self.run in (Run.VERIFY, Run.LOCALIZE, Run.BOUNDED) or (self.run == Run.STAGED
                                                                         and self.spec.tests is None)

    def option(self, name: str, default=None):
        """The value of option ``name`` (``default`` when not set)."""
        return dict(self.options).get(name, default)

    def as_dict(self) -> dict:
        """The request as JSON values (:meth:`of` reads it back)."""
        spec = {k: v for k, v in (("reference", self.spec.reference), ("tests", self.spec.tests),
                                  ("states", self.spec.states)) if v is not None}
        return {"command": self.command.value, "run": self.run.value, "program": self.program,
                "spec": {k: asdict(v) for k, v in spec.items()}, "timeout": self.timeout,
                "reproducible": self.reproducible, "memory_mb": self.memory_mb,
                "options": dict(self.options), "more_files": list(self.more_files)}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)

    @staticmethod
    def of(data: dict) -> "Request":
        """The request of :meth:`as_dict`'s ``data``."""
        spec = data.get("spec") or {}
        ref, tests, states = spec.get("reference"), spec.get("tests"), spec.get("states")
        if ref is not None:
            ref = ReferenceOptions(ref["path"], tuple(ref["init"]), tuple(ref["assume"]), ref["input_bound"])
        if tests is not None:
            tests = TestSuite(**{**tests, "test_ids": tuple(tests["test_ids"])})
        if states is not None:
            states = HeapStates(**states)
        return Request(
            Command(data["command"]), Run(data["run"]), data["program"],
            Specification(reference=ref, tests=tests, states=states),
            data.get("timeout"), bool(data.get("reproducible")), data.get("memory_mb"),
            tuple(sorted((data.get("options") or {}).items())), tuple(data.get("more_files") or ()))


@dataclass(frozen=True, slots=True)
class Refusal:
    """A job the parent refused before running it: ``kind`` is the JSON
    error kind (usage, bad-input, missing-tool), ``message`` one line,
    ``exit_code`` the command line's code for it."""

    kind: str
    message: str
    exit_code: int

    def as_dict(self) -> dict:
        return {"refused": {"kind": self.kind, "message": self.message, "exit_code": self.exit_code}}


def request_or_refusal(data: dict | Request | Refusal) -> Request | Refusal:
    """A :class:`Request` or :class:`Refusal` from itself or its ``as_dict()``."""
    if isinstance(data, (Request, Refusal)):
        return data
    if "refused" in data:
        return Refusal(**data["refused"])
    return Request.of(data)


__all__ = ["Command", "Refusal", "Request", "Run", "request_or_refusal"]
