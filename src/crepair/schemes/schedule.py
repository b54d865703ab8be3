"""Schedules: the order in which a repair run tries its schemes.

A :class:`Stage` is one scheme with the settings it overrides (mutation
level, largest size, pruning); a :class:`Schedule` is stages in order,
all under the run's one time budget (``RepairOptions.timeout``: the
stages share its deadline, so a later stage gets what the earlier ones
left).  ``--scheme A,B`` is the schedule of A then B, every stage run;
``crepair repair`` without ``--scheme`` runs :data:`DEFAULT_SCHEDULE`,
which *escalates*: the next stage runs only if the stages so far found no
(non-vacuous) repair, since each stage is costlier than the one before and
its search space covers it (mutation level 2 holds level 1's mutants):

1. mutation level 1, the run's largest size (AllRepair, FM'16, Sect. 5.1);
2. mutation level 2 with must-location pruning (FL-AllRepair, CAV'20,
   Sect. 6), size 1, as FM'16 ran level 2 (Table 2);
3. templates (Könighofer & Bloem, FMCAD'11, Sect. III).

Each repair records its stage (``Repair.stage``, e.g. ``"mutation level 2,
must pruning"``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crepair.mutation import MutationLevel
from crepair.options import Prune, RepairOptions
from crepair.records import Scheme


@dataclass(frozen=True, slots=True)
class Stage:
    """One scheme of a schedule; ``level``, ``max_size`` (≥ 1) and
    ``prune`` override the run's options for this stage (None: the run's)."""

    scheme: Scheme
    level: MutationLevel | None = None
    max_size: int | None = None
    prune: Prune | None = None

    def options(self, run: RepairOptions) -> RepairOptions:
        """The run's options with this stage's overrides (the same object
        when nothing changes, so the stage shares the run's encodings)."""
        changes = {k: v for k, v in (("level", self.level), ("max_size", self.max_size), ("prune", self.prune))
                   if v is not None and getattr(run, k) != v}
        return dataclasses.replace(run, **changes) if changes else run

    def label(self, run: RepairOptions) -> str:
        """The stage's name in reports: ``template``, ``mutation level 1``,
        ``mutation level 2, must pruning``."""
        if self.scheme != Scheme.MUTATION:
            return self.scheme.value
        o = self.options(run)
        text = f"mutation level {int(o.level)}"
        return text + ", must pruning" if self.prune == Prune.MUST else text


@dataclass(frozen=True, slots=True)
class Schedule:
    """``stages`` in order; ``escalate``: stop after the first stage that
    found a non-vacuous repair (else every stage runs)."""

    stages: tuple[Stage, ...]
    escalate: bool = False

    @staticmethod
    def of_schemes(schemes: tuple[Scheme, ...]) -> "Schedule":
        """The schedule of ``--scheme A,B``: each scheme with the run's options, all run."""
        return Schedule(tuple(Stage(s) for s in schemes))


DEFAULT_SCHEDULE = Schedule(
    (
        Stage(Scheme.MUTATION, level=MutationLevel.LEVEL_1),
        Stage(Scheme.MUTATION, level=MutationLevel.LEVEL_2, max_size=1, prune=Prune.MUST),
        Stage(Scheme.TEMPLATE),
    ),
    escalate=True,
)
