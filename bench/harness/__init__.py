"""The harness the benchmark scripts of bench/ share.

A benchmark is a list of jobs; each job runs in its own worker process
(the suite script started again with ``--_worker``) that writes JSON lines,
so a killed worker keeps the repairs it had found.  The parent runs the
jobs in a pool, rewrites the markdown report and the raw JSON after each
one, and can resume an interrupted benchmark or rewrite the report from
the raw JSON alone.

* :mod:`harness.records`: the worker side (the records of a
  ``crepair.repair`` run) and reading them back, old formats included;
* :mod:`harness.runner`: jobs, the worker processes, the pool, resuming,
  the command line (:class:`harness.runner.Benchmark`, :func:`harness.runner.main`);
* :mod:`harness.setup`: the crepair the workers run (``--rev``, ``--live``)
  and the set-up a report names;
* :mod:`harness.markdown`: table cells and the report header.

A suite script subclasses :class:`harness.runner.Benchmark` with its
jobs, its worker body, its report and its progress line.
"""
