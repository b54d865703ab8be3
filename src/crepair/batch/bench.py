"""Benchmark suites: a batch manifest plus the tables of its results.

A suite is a YAML file (``bench/suites/NAME.yaml``)::

    title: TCAS mutation repair (crepair batch)
    about: a paragraph of markdown put under the header
    jobs:                       # batch manifest entries (crepair.batch.manifest) ...
      - program: ../../../shared/benchmarks/tcas/spec/tcas_v{version}.c
        each: {version: 1-41}   # ... each expanded over the values given
        options: {scheme: mutation, level: 1, max_size: 2, timeout: 600}
        meta: {level: 1}        # with the ``each`` values, copied into the record
    tables:
      - title: Level 1 (max_size 2)
        where: {level: 1}       # the records whose meta has these values
        row: v{version}         # the first column
        columns: [outcome, repairs, first_repair, covered_1, covered_2, checks, wall]
    totals:                     # repaired programs per group, against published results
      group: level
      published: {1: [1, 3], 2: [1, 3, 16]}
      source: AllRepair, FM'16, Table 2

Instead of ``jobs``, a suite may name ``course: DIR`` (relative to the
suite file): a folder shaped like C-Pack-IPAs, one job per submission
against its assignment's model solution and tests
(:func:`crepair.batch.course.course_manifest`, with the suite's
``options``, e.g. ``{compare: exact, timeout: 60}``); the records' meta
then has ``assignment`` and ``submission``.

A suite may also name ``output: PATH`` (relative to the suite file, without
extension: the tables go to PATH.md and the batch results to PATH.jsonl
instead of ``--results``/NAME.*) and ``printer: FILE.py`` (relative to the
suite file): a module whose ``tables(suite, jobs, records, output)`` returns
the markdown lines under the header instead of the ``tables`` above (for a
suite whose report needs more than the records, e.g. TCAS's check of each
repair on the SIR test universe).

``each`` values are lists or ranges ``A-B`` (inclusive); ``{name}`` in the
program, the id and string options is replaced by the value.  A column is
``outcome`` (with ``, time-out`` when a scheme stopped at its time limit),
``repairs`` (count, vacuous ones noted), ``first_repair`` (seconds),
``stages`` (the stages that found repairs), ``covered_K`` (seconds until
every candidate of size ≤ K was explored, first scheme), ``checks`` (SMT
checks of all schemes), ``wall`` (the job's seconds), ``stat:NAME`` (the
last scheme's statistic NAME) or ``meta:NAME``.  A ``pair`` table puts the
jobs that differ only in one meta key side by side (``pair: prune``,
``values: [none, must]``).
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

from crepair.batch.manifest import Job, job_of
from crepair.errors import BadInput

_RANGE = re.compile(r"^\s*(-?\d+)\s*-\s*(-?\d+)\s*$")


def _values(spec) -> list:
    if isinstance(spec, str) and _RANGE.match(spec):
        a, b = map(int, _RANGE.match(spec).groups())
        return list(range(a, b + 1))
    return list(spec) if isinstance(spec, list) else [spec]


def _fill(value, names: dict):
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, list):
        return [_fill(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, names) for k, v in value.items()}
    return value


def load_suite(path: str | Path) -> tuple[dict, list[Job]]:
    """The suite at ``path`` (its YAML as a dict) and its expanded jobs.
    Raises ``BadInput`` for a missing or malformed suite."""
    import yaml

    path = Path(path)
    try:
        suite = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BadInput(f"{path}: cannot read the suite: {str(exc).splitlines()[0]}") from None
    if isinstance(suite, dict) and isinstance(suite.get("course"), str):
        from crepair.batch.course import course_jobs, course_manifest

        options = suite.get("options") or {}
        if not isinstance(options, dict):
            raise BadInput(f"{path}: \"options\" is an object of option names to values")
        root = path.parent / suite["course"]  # ids relative to the course folder: the same from any checkout
        return suite, course_jobs(course_manifest(root, root, options), root / path.name)
    if not isinstance(suite, dict) or not isinstance(suite.get("jobs"), list):
        raise BadInput(f"{path}: a suite has a list of \"jobs\" (or a \"course\" folder)")
    jobs: list[Job] = []
    for i, entry in enumerate(suite["jobs"], start=1):
        entry = dict(entry)
        each = entry.pop("each", {}) or {}
        keys = list(each)
        for combo in itertools.product(*(_values(each[k]) for k in keys)):
            names = dict(zip(keys, combo))
            filled = _fill({k: v for k, v in entry.items() if k != "meta"}, names)
            filled["meta"] = {**names, **(entry.get("meta") or {})}
            jobs.append(job_of(filled, f"{path}: job {i}", path.parent, "repair", ()))
    seen = set()
    for job in jobs:
        if job.id in seen:
            raise BadInput(f"{path}: two jobs have the id {job.id!r}")
        seen.add(job.id)
    return suite, jobs


def suite_paths(path: Path, suite: dict, results_dir: Path) -> tuple[Path, Path]:
    """(the batch results ``.jsonl``, the tables ``.md``) of the suite at
    ``path``: its ``output`` (relative to the suite) or ``results_dir``/NAME."""
    stem = (path.parent / suite["output"]) if suite.get("output") else results_dir / path.stem
    return stem.with_name(stem.name + ".jsonl"), stem.with_name(stem.name + ".md")


def runs_path(stem: Path) -> Path:
    """STEM.runs.json: one entry per ``crepair bench`` invocation that ran
    jobs of the suite whose outputs are STEM.* (its commit, date, command,
    load), so that tables rewritten later (``--report-only``) name the
    commits that made the results, not the one checked out then."""
    return stem.with_name(stem.name + ".runs.json")


def read_runs(stem: Path) -> list[dict]:
    """The entries of :func:`runs_path` (oldest first; [] if none)."""
    import json

    path = runs_path(stem)
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise BadInput(f"{path}: cannot read the runs of the suite: {exc}") from None
    return runs if isinstance(runs, list) else []


def add_run(stem: Path, run: dict, *, replace_last: bool = False) -> None:
    """Append ``run`` to :func:`runs_path` (``replace_last``: in place of
    the last entry: the invocation recorded at its start, now finished)."""
    import json

    runs = read_runs(stem)
    runs = (runs[:-1] if replace_last and runs else runs) + [run]
    runs_path(stem).write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")


def printer_tables(path: Path, suite: dict, jobs: list[Job], records: dict[str, dict], output: Path) -> list[str]:
    """The lines of the suite's ``printer`` module (see the module
    docstring), or of :func:`tables` when it names none.  Raises
    ``BadInput`` when the printer cannot be loaded."""
    if not suite.get("printer"):
        return tables(suite, jobs, records)
    import importlib.util

    file = path.parent / suite["printer"]
    spec = importlib.util.spec_from_file_location(f"crepair_bench_printer_{file.stem}", file)
    if spec is None or not file.exists():
        raise BadInput(f"{path}: printer {file}: no such file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:  # e.g. the printer's sibling modules of bench/ are not beside it
        raise BadInput(f"{path}: printer {file}: cannot import {exc.name or exc}") from None
    if not hasattr(module, "tables"):
        raise BadInput(f"{path}: printer {file} defines no tables(suite, jobs, records, output)")
    return list(module.tables(suite, jobs, records, output))


def _s(value) -> str:
    return "—" if value is None else f"{value:.1f}"


def _schemes(record: dict) -> list[dict]:
    return list((record.get("report") or {}).get("schemes") or ())


def cell(record: dict | None, column: str) -> str:
    """The text of ``column`` (module docstring) for ``record`` (None: not run)."""
    if record is None:
        return "not run" if column == "outcome" else ""
    repairs = record.get("repairs") or []
    schemes = _schemes(record)
    if column == "outcome":
        timed_out = any(s.get("stopped") == "timeout" for s in schemes)
        return record["outcome"] + (", time-out" if timed_out and record["outcome"] != "timeout" else "")
    if column == "repairs":
        vacuous = sum(1 for r in repairs if r.get("vacuous"))
        return str(len(repairs) - vacuous) + (f" (+{vacuous} vacuous)" if vacuous else "")
    if column == "first_repair":
        return _s(next((r["seconds"] for r in repairs if not r.get("vacuous")), None))
    if column == "stages":
        return ", ".join(dict.fromkeys(r.get("stage") or r.get("scheme", "") for r in repairs)) or "—"
    if column.startswith("covered_"):
        covered = (schemes[0].get("covered") or {}) if schemes else {}
        return _s(covered.get(column.split("_", 1)[1]))
    if column == "checks":
        return str(sum(s.get("checks") or 0 for s in schemes)) if schemes else "—"
    if column == "wall":
        return _s(record.get("seconds"))
    if column.startswith("stat:"):
        value = schemes[-1].get(column[5:]) if schemes else None
        return "—" if value is None else str(value)
    if column.startswith("meta:"):
        return str((record.get("meta") or {}).get(column[5:], ""))
    raise BadInput(f"unknown column {column!r}")


def _matches(record_meta: dict, where: dict) -> bool:
    return all(str(record_meta.get(k)) == str(v) for k, v in where.items())


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def tables(suite: dict, jobs: list[Job], records: dict[str, dict]) -> list[str]:
    """The markdown lines of the suite's tables over ``records`` (by id)."""
    out: list[str] = []
    for spec in suite.get("tables") or ():
        chosen = [j for j in jobs if _matches(dict(j.meta), spec.get("where") or {})]
        columns = list(spec.get("columns") or ["outcome", "repairs", "wall"])
        out += [f"## {spec.get('title', '')}", ""]
        if "pair" in spec:
            key, values = spec["pair"], [str(v) for v in spec["values"]]
            groups: dict[str, dict[str, Job]] = {}
            for j in chosen:
                meta = dict(j.meta)
                groups.setdefault(spec.get("row", "{id}").format(id=j.id, **meta), {})[str(meta.get(key))] = j
            head = ["job"] + [f"{c} ({v})" for v in values for c in columns]
            rows = [[name] + [cell(records.get(js[v].id) if v in js else None, c) for v in values for c in columns]
                    for name, js in groups.items()]
        else:
            head = [spec.get("row_title", "job")] + columns
            rows = [[spec.get("row", "{id}").format(id=j.id, **dict(j.meta))] + [cell(records.get(j.id), c)
                                                                                 for c in columns] for j in chosen]
        out += _table(head, rows) + [""]
    totals = suite.get("totals")
    if totals:
        out += _totals(totals, jobs, records)
    return out


def _totals(spec: dict, jobs: list[Job], records: dict[str, dict]) -> list[str]:
    key, name = spec["group"], spec.get("item", "version")
    published = {str(k): {int(x) for x in v} for k, v in (spec.get("published") or {}).items()}
    groups: dict[str, set] = {}
    for j in jobs:
        meta = dict(j.meta)
        groups.setdefault(str(meta.get(key)), set())
        r = records.get(j.id)
        if r is not None and any(not x.get("vacuous") for x in r.get("repairs") or ()):
            groups[str(meta.get(key))].add(int(meta[name]))
    run = {int(dict(j.meta)[name]) for j in jobs if j.id in records}
    fmt = lambda s: " ".join(f"v{v}" for v in sorted(s)) or "—"  # noqa: E731
    out = ["## Totals", ""] + [f"* {key} {g}: {len(s)}/{len({int(dict(j.meta)[name]) for j in jobs})} "
                               f"repaired: {fmt(s)}"
                               for g, s in groups.items()]
    if published:
        out += ["", f"Compared with {spec.get('source', 'the published results')} (restricted to the programs run):",
                ""]
        rows = []
        for g, ours in groups.items():
            pub = published.get(g, set()) & run
            rows.append([g, str(len(pub)), str(len(ours)), str(len(pub & ours)), fmt(ours - pub), fmt(pub - ours)])
        out += _table([key, "published", "crepair", "both", "only crepair", "only published"], rows)
    return out + [""]
