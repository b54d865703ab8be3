"""What a batch shows: a progress bar with counts per outcome and the time
left, one line per finished job when standard error is not a terminal,
and the summary table at the end (rich)."""

from __future__ import annotations

import collections
import sys

from rich.console import Console
from rich.table import Table


def outcome_counts(records: list[dict]) -> list[tuple[str, int]]:
    """(outcome, number of jobs), most frequent first, then by name."""
    counts = collections.Counter(r["outcome"] for r in records)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _counts_text(records: list[dict]) -> str:
    return "  ".join(f"{k} {n}" for k, n in outcome_counts(records)) or "starting"


class BatchDisplay:
    """Progress of ``total`` jobs of which ``done`` (records) are finished
    already (resumed).  ``bar``: a live progress bar (else one line per job
    on standard error); ``quiet``: nothing at all."""

    def __init__(self, total: int, done: list[dict], bar: bool, quiet: bool):
        self.total, self.records, self.quiet = total, list(done), quiet
        self._progress = self._task = None
        if bar and not quiet:
            from rich.progress import (
                BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("[bold]batch"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TextColumn("eta"), TimeRemainingColumn(), TextColumn("{task.fields[counts]}"),
                console=Console(stderr=True), transient=False,
            )
            self._task = self._progress.add_task("batch", total=total, completed=len(done),
                                                 counts=_counts_text(done))
            self._progress.start()

    def finished(self, record: dict) -> None:
        """Count a finished job."""
        self.records.append(record)
        if self.quiet:
            return
        if self._progress is not None:
            self._progress.update(self._task, advance=1, counts=_counts_text(self.records))
            return
        repairs = f", {len(record['repairs'])} repairs" if record.get("repairs") else ""
        seconds = "" if record.get("seconds") is None else f" in {record['seconds']:.1f} s"
        print(f"[{len(self.records)}/{self.total}] {record['outcome']}{repairs}{seconds}: {record['id']}",
              file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def summary_table(records: list[dict], total: int, wall: float) -> Table:
    """The summary of a batch: jobs per outcome, repairs, seconds."""
    table = Table(title=f"{len(records)}/{total} jobs, {wall:.1f} s")
    for name, justify in (("outcome", "left"), ("jobs", "right"), ("repairs", "right"), ("job seconds", "right")):
        table.add_column(name, justify=justify)
    for outcome, n in outcome_counts(records):
        of = [r for r in records if r["outcome"] == outcome]
        table.add_row(outcome, str(n), str(sum(len(r.get("repairs") or ()) for r in of)),
                      f"{sum(r.get('seconds') or 0 for r in of):.1f}")
    table.add_row("[bold]all", str(len(records)), str(sum(len(r.get("repairs") or ()) for r in records)),
                  f"{sum(r.get('seconds') or 0 for r in records):.1f}")
    return table
