"""A batch from jobs to the results file: resume, run, append."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from crepair.batch.manifest import Job
from crepair.batch.results import ResultsFile


def run_batch(
    jobs: list[Job],
    results: ResultsFile,
    execute: Callable[[list[Job]], Iterator[dict]],
    *,
    resume: bool = False,
    started: Callable[[list[dict], list[Job]], None] | None = None,
    finished: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run the ``jobs`` that have no record in ``results`` yet (all of
    them without ``resume``) with ``execute`` (an executor of
    :mod:`crepair.batch.executors` with its limits bound), appending each
    record as it comes; ``started(kept, todo)`` is called once before
    the first job with the records kept and the jobs to run,
    ``finished(record)`` after each.  Returns the records of ``jobs``
    (kept and new) in the order of ``jobs``; records of other ids stay in
    the file.  An interruption leaves the records written so far.
    Raises ``UsageError`` if ``results`` exists and ``resume`` is false."""
    kept = results.open(resume)
    try:
        todo = [job for job in jobs if job.id not in kept]
        if started is not None:
            started([kept[j.id] for j in jobs if j.id in kept], todo)
        new: dict[str, dict] = {}
        records = execute(todo)
        try:
            for record in records:
                results.append(record)
                new[record["id"]] = record
                if finished is not None:
                    finished(record)
        finally:
            records.close()
    finally:
        results.close()
    return [kept.get(j.id) or new[j.id] for j in jobs if j.id in kept or j.id in new]
