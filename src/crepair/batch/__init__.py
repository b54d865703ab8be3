"""Many crepair runs at once: ``crepair batch`` and ``crepair bench``.

A *job* (:class:`~crepair.batch.manifest.Job`) is one crepair command line
(``verify``, ``localize`` or ``repair`` of one program, with its options
and specification).  :func:`~crepair.batch.manifest.read_jobs` reads them
from a folder, a glob or a JSON-lines/YAML manifest; an executor runs each
job in its own worker process with a time and memory limit
(:mod:`crepair.batch.job`: on this machine's cores, or on a Ray cluster,
:mod:`crepair.batch.executors`); :mod:`crepair.batch.results` appends one
JSON object per finished job to the results file, which ``--resume``
reads back.  The parent reads each job's words once, with the command
line's parser and checks, into a :class:`~crepair.batch.request.Request`
(:func:`crepair.cli.batch_cmd.plan`); the worker calls the API
(:mod:`crepair.batch.execute`), so a batch result is the JSON report
``crepair COMMAND PROGRAM OPTIONS --json`` prints, plus the job's outcome
and time.
"""

from crepair.batch.job import JobLimits, run_job
from crepair.batch.manifest import Job, read_jobs
from crepair.batch.results import ResultsFile

__all__ = ["Job", "JobLimits", "ResultsFile", "read_jobs", "run_job"]
