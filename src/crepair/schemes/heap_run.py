"""A heap repair run: the heap scheme, widened while it finds no repair.

Wolverine2 (Verma & Roy, Algorithm 1) takes the number N of statements a
repair may insert as given.  A run tries the counts of ``slots`` in order
(by default 0, 1, ... :data:`AUTO_SLOTS`): a count that ends in no repair
has ruled out every repair with it, so the next count is tried, within
the one time limit, sharing the specification (recorded once) and the
re-checks of patched texts.  Iterate a :class:`HeapRun` for its checked
repairs; :meth:`HeapRun.record` is what the renderers read
(:mod:`crepair.report.heap`).  Used by :func:`crepair.api.repair_heap`
and so by ``crepair repair --scheme heap`` and ``crepair batch``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

from crepair.frontend import load_program
from crepair.records import Repair, RepairOutcome, StopReason
from crepair.run_record import HeapRunRecord
from crepair.schemes.heap import HeapOptions, HeapScheme

AUTO_SLOTS = 2  # insertion slots tried at most when none are given (0, 1, 2: as the debug shell's repair)

#: called with (slots of the attempt that found nothing, slots of the next attempt) before each widening
WidenFn = Callable[[int, int], None]


class HeapRun:
    """The heap repair of the C file at ``path`` (loaded with ``real_c``)
    under ``options``, trying ``slots`` insertion slots in order (None:
    ``options.insert_slots`` alone); ``on_widen`` is told of each
    widening.  The constructor reads the specification (a states file, or
    the correct program's run under gdb): it raises ``UsageError``,
    ``BadInput``, ``MissingTool`` as :class:`~crepair.schemes.heap.HeapScheme`
    does.  Iterating yields each checked :class:`~crepair.records.Repair`
    once, ``seconds`` on the clock of the first attempt; ``outcome`` is
    final when the iteration ends."""

    def __init__(self, path: str | Path, options: HeapOptions, slots: tuple[int, ...] | None = None,
                 on_widen: WidenFn | None = None):
        self.path = str(path)
        self.slots = tuple(slots) if slots else (options.insert_slots,)
        self.options = dataclasses.replace(options, insert_slots=self.slots[0])
        self.on_widen = on_widen
        self.program = load_program(path, real_c=True)
        self.scheme = HeapScheme(self.program, self.options)
        self.deadline = self.scheme.deadline  # every attempt shares it (--timeout from the command's start)
        self.spec = self.scheme.spec
        self.repairs: list[Repair] = []
        self._checks = self._rejected = 0
        self._seconds = 0.0
        self._ran = False
        self._cut = False  # the time limit came before a widening: nothing is known of more slots

    @property
    def outcome(self) -> RepairOutcome:
        """The outcome of the run so far (UNKNOWN before it)."""
        return RepairOutcome.UNKNOWN if self._cut else self.scheme.stats.outcome

    def __iter__(self) -> Iterator[Repair]:
        if self._ran:
            yield from self.repairs
            return
        self._ran = True
        for k, n in enumerate(self.slots):
            if k:  # the last count found nothing and ruled out every repair with it: widen (Algorithm 1's N)
                if self.deadline.passed():
                    self._cut = True
                    break
                if self.on_widen is not None:
                    self.on_widen(self.slots[k - 1], n)
                self.scheme = HeapScheme(self.program, dataclasses.replace(self.options, insert_slots=n),
                                         spec=self.spec, rechecks=self.scheme.rechecks)
            st = self.scheme.stats
            for rep in self.scheme.repairs():
                rep = dataclasses.replace(rep, seconds=self._seconds + rep.seconds)  # the first attempt's clock
                self.repairs.append(rep)
                yield rep
            self._checks += st.checks
            self._rejected += st.rejected
            self._seconds += st.seconds  # the scheme's own clock, which its repairs' times are on
            if st.outcome != RepairOutcome.NO_REPAIR:
                break

    def record(self) -> HeapRunRecord:
        """The run as the renderers see it now (before iterating: the header's fields)."""
        st = self.scheme.stats
        stopped, reason = (StopReason.TIMEOUT, "time-out before widening") if self._cut else (st.stopped, st.reason)
        return HeapRunRecord(
            path=self.path, function=self.options.function, calls=len(self.spec.traces), events=self.spec.events,
            slots=self.slots, localization=self.options.localization, insert_slots=self.scheme.options.insert_slots,
            locations=st.locations, suspicious=None if st.suspicious is None else tuple(st.suspicious),
            widenings=st.widenings, tau=tuple(st.tau), rejected=self._rejected, checks=self._checks,
            found=len(self.repairs), outcome=self.outcome, stopped=stopped, reason=reason,
            seconds=self._seconds)
