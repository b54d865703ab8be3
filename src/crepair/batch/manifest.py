"""The jobs of a batch: read from a folder, a glob or a manifest.

ITEMS (the argument of ``crepair batch``) is one of

* a folder: every ``*.c`` file directly in it, in name order (natural
  order: ``v2`` before ``v10``), each one job of the batch's ``command``
  with the batch's options;
* a glob (``'progs/**/*.c'``, quoted so that crepair expands it): the
  matching ``.c`` files, likewise;
* a manifest, ``*.jsonl`` (one JSON object a line; blank lines and lines
  starting with ``#`` are skipped) or ``*.yaml``/``*.yml`` (a list of
  objects, or an object whose ``jobs`` is one).  Each object has
  ``program`` (required), ``command`` (``verify``, ``localize`` or
  ``repair``; default: the batch's), ``options`` (an object: option name
  without the dashes, ``_`` or ``-`` alike, to value; ``true`` gives a
  switch, a list repeats the option, ``test_ids`` takes its list at once),
  ``args`` (further command-line words, as given), ``id`` (default: the
  command line) and ``meta`` (an object copied into the job's record, e.g.
  ``{"version": 3, "level": 2}`` for the tables of ``crepair bench``).  Relative paths (``program``, and the options
  ``reference``, ``tests``, ``tests_dir``, ``project``, ``files``) are
  relative to the manifest's folder.
* a course manifest (``.yaml``/``.yml``/``.json``, an object with
  ``assignments``: a model solution, a tests folder and submissions each;
  :mod:`crepair.batch.course`): one ``repair`` job per submission.

A job's ``id`` names it in the results file (``--resume`` skips the ids
already there), so ids are unique within a batch (``UsageError`` if not).
"""

from __future__ import annotations

import glob
import json
import re
from dataclasses import dataclass
from pathlib import Path

from crepair.errors import BadInput, UsageError

COMMANDS = ("verify", "localize", "repair")
_PATH_OPTIONS = frozenset({"reference", "tests", "tests_dir", "project", "files"})
_LIST_AT_ONCE = frozenset({"test_ids", "files"})  # nargs="+" options: one flag, every value


@dataclass(frozen=True, slots=True)
class Job:
    """One crepair run: ``command`` on ``program`` with command-line
    ``args`` (options only; the worker adds ``--json``); ``id`` is unique
    within its batch; ``meta``: (key, value) pairs the record carries."""

    id: str
    program: str
    command: str
    args: tuple[str, ...] = ()
    meta: tuple[tuple[str, object], ...] = ()

    def argv(self) -> list[str]:
        """The command line after ``crepair`` (without ``--json``)."""
        return [self.command, self.program, *self.args]

    def as_dict(self) -> dict:
        out = {"id": self.id, "program": self.program, "command": self.command, "args": list(self.args)}
        if self.meta:
            out["meta"] = dict(self.meta)
        return out

    @staticmethod
    def of(data: dict) -> "Job":
        return Job(data["id"], data["program"], data["command"], tuple(data.get("args", ())),
                   tuple(data.get("meta", {}).items()))


def natural(text: str) -> list:
    """Sort key of natural order (``v2`` before ``v10``)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def option_args(options: dict, base: Path | None = None) -> list[str]:
    """The command-line words of an ``options`` object (see the module
    docstring); paths are made relative to ``base`` when given.  Raises
    ``BadInput`` for a value of the wrong type."""
    out: list[str] = []
    for key, value in options.items():
        name = key.replace("-", "_")
        flag = "--" + name.replace("_", "-")
        values = value if isinstance(value, list) else [value]
        if name in _PATH_OPTIONS and base is not None:
            values = [str(base / v) if isinstance(v, str) and not Path(v).is_absolute() else v for v in values]
        if value is True:
            out.append(flag)
        elif value is False or value is None:
            continue
        elif name in _LIST_AT_ONCE:
            out += [flag, *(str(v) for v in values)]
        else:
            for v in values:
                if isinstance(v, (dict, list, bool)):
                    raise BadInput(f"option {key!r}: expected a number or a string, got {json.dumps(v)}")
                out += [flag, ",".join(map(str, v)) if isinstance(v, tuple) else str(v)]
    return out


def job_of(data, where: str, base: Path, command: str, extra: tuple[str, ...]) -> Job:
    """The job of one manifest entry ``data`` (``where`` names it in errors;
    relative paths are relative to ``base``; ``command`` is the default
    command, ``extra`` words are appended).  Raises ``BadInput``."""
    if not isinstance(data, dict) or not isinstance(data.get("program"), str):
        raise BadInput(f"{where}: a job is an object with a \"program\" (got {json.dumps(data)[:80]})")
    cmd = data.get("command", command)
    if cmd not in COMMANDS:
        raise BadInput(f"{where}: unknown command {cmd!r}: use {', '.join(COMMANDS)}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadInput(f"{where}: \"options\" is an object of option names to values")
    args = data.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise BadInput(f"{where}: \"args\" is a list of strings")
    program = data["program"] if Path(data["program"]).is_absolute() else str(base / data["program"])
    words = (*option_args(options, base), *args, *extra)
    job_id = data.get("id") or " ".join([cmd, program, *words])
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise BadInput(f"{where}: \"meta\" is an object")
    meta = json.loads(json.dumps(meta, default=str))  # YAML dates and times as ISO strings, as the record has them
    return Job(str(job_id), program, cmd, tuple(words), tuple(meta.items()))


def _manifest(path: Path, command: str, extra: tuple[str, ...]) -> list[Job]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read the manifest: {exc}") from None
    from crepair.batch.course import course_jobs, is_course

    base = path.parent
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise BadInput(f"{path}: not YAML: {str(exc).splitlines()[0]}") from None
        if is_course(data):
            return course_jobs(data, path, extra)
        if isinstance(data, dict):
            data = data.get("jobs")
        if not isinstance(data, list):
            raise BadInput(f"{path}: a YAML manifest is a list of jobs (or an object with a list \"jobs\")")
        return [job_of(d, f"{path}: job {i + 1}", base, command, extra) for i, d in enumerate(data)]
    if path.suffix == ".json" and text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # JSON lines, read below
        if is_course(data):
            return course_jobs(data, path, extra)
    jobs = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path}:{number}: not JSON: {exc.msg}") from None
        jobs.append(job_of(data, f"{path}:{number}", base, command, extra))
    return jobs


def read_jobs(items: str, command: str = "repair", args: tuple[str, ...] | list[str] = ()) -> list[Job]:
    """The jobs of ``items`` (a folder, a glob or a manifest, see the module
    docstring); ``command`` and ``args`` apply to every program of a folder
    or a glob and are the default command and extra words of a manifest's
    jobs.  Raises ``BadInput`` for a missing or malformed input (nothing
    matched, a bad manifest line), ``UsageError`` for duplicate ids."""
    if command not in COMMANDS:
        raise UsageError(f"unknown command {command!r}: use {', '.join(COMMANDS)}")
    extra = tuple(args)
    path = Path(items)
    if path.is_dir():
        programs = sorted((str(p) for p in path.glob("*.c")), key=natural)
        if not programs:
            raise BadInput(f"{items}: no .c file in this folder")
    elif path.is_file() and path.suffix in (".jsonl", ".json", ".yaml", ".yml"):
        jobs = _manifest(path, command, extra)
        _check_unique(jobs)
        return jobs
    elif path.is_file():
        programs = [items]
    else:
        programs = sorted(glob.glob(items, recursive=True), key=natural)
        if not programs:
            raise BadInput(f"{items}: no such file or folder, and no file matches it as a glob")
    jobs = [Job(" ".join([command, p, *extra]), p, command, extra) for p in programs]
    _check_unique(jobs)
    return jobs


def _check_unique(jobs: list[Job]) -> None:
    seen: set[str] = set()
    for job in jobs:
        if job.id in seen:
            raise UsageError(f"two jobs have the id {job.id!r}: give each an \"id\"")
        seen.add(job.id)
