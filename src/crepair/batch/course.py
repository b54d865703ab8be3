"""A whole course at once: a course manifest, its jobs, and its generator.

A course has assignments; each has one model solution, one folder of
tests (``NAME.in``/``NAME.out`` or Codeflaws' ``input-X``/``output-X``)
and many student submissions.  A *course manifest* (YAML, or one JSON
object) says so::

    options: {compare: exact}          # optional: options of every job
    args: []                           # optional: further words of every job
    assignments:
      - name: lab02/ex01               # required, unique
        reference: reference_implementations/lab02/ex01.c
        tests: tests/lab02/ex01        # the folder of tests (--tests-dir)
        options: {timeout: 30}         # optional: over the course's options
        args: []                       # optional
        submissions:                   # a path or a glob, or a list of them
          - incorrect/*/lab02/ex01/*.c

Every path is relative to the manifest's folder (an absolute path stays
as it is).  Options are written as in a job manifest
(:func:`crepair.batch.manifest.option_args`).  Each submission is one job
``repair SUB.c --reference REF --tests-dir DIR OPTIONS ARGS`` (then the
batch's ``--options``), with the id ``NAME: SUB`` (``SUB`` as relative
to the manifest's folder, so that ``--resume`` finds it from anywhere)
and the meta ``{"assignment": NAME, "submission": SUB, "reference": REF,
"tests": DIR}`` that its record carries, in assignment order and, within
one, in natural name order.

:func:`course_manifest` writes such a manifest for a folder shaped like
C-Pack-IPAs (``reference_implementations/LAB/EX.c``, ``tests/LAB/EX/``,
submissions in ``.../LAB/EX/*.c`` anywhere else under the folder).
"""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

from crepair.batch.manifest import Job, natural, option_args
from crepair.errors import BadInput

#: the folders of a C-Pack-IPAs-shaped course (Orvalho et al., APR@ICSE 2024)
REFERENCES, TESTS = "reference_implementations", "tests"


def is_course(data) -> bool:
    """Whether a parsed manifest is a course manifest (an object with ``assignments``)."""
    return isinstance(data, dict) and "assignments" in data


def _paths(value, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return value
    raise BadInput(f"{where}: \"submissions\" is a path or a glob, or a list of them")


def _submissions(patterns: list[str], base: Path, where: str) -> list[str]:
    """The ``.c`` files the ``patterns`` name, relative to ``base`` (as
    written when absolute), each once, in natural order per pattern."""
    out: list[str] = []
    for pattern in patterns:
        absolute = Path(pattern).is_absolute()
        found = glob.glob(pattern, recursive=True) if absolute else glob.glob(pattern, root_dir=base, recursive=True)
        found = [f for f in found if (Path(f) if absolute else base / f).is_file()]
        if not found:
            raise BadInput(f"{where}: submissions: no file matches {pattern!r} (relative to {base})")
        out += [f for f in sorted(found, key=natural) if f not in out]
    return out


def _resolved(value, base: Path, where: str, what: str, kind) -> str:
    if not isinstance(value, str) or not value:
        raise BadInput(f"{where}: \"{what}\" is required (a path relative to the manifest's folder)")
    path = Path(value) if Path(value).is_absolute() else base / value
    if not kind(path):
        raise BadInput(f"{where}: {what} {value!r}: no such {'file' if kind is Path.is_file else 'folder'} "
                       f"(relative to {base})")
    return str(path)


def _object(data, where: str, key: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise BadInput(f"{where}: \"{key}\" is an object of option names to values")
    return value


def _words(data, where: str) -> list[str]:
    args = data.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise BadInput(f"{where}: \"args\" is a list of strings")
    return args


def course_jobs(data: dict, path: Path, extra: tuple[str, ...] = ()) -> list[Job]:
    """The jobs of the course manifest ``data`` read from ``path`` (module
    docstring); ``extra`` words end every job.  Raises ``BadInput`` naming
    the manifest and the assignment (1-based) for a malformed entry, a
    missing reference or tests folder, or submissions that match nothing."""
    base = path.parent
    assignments = data.get("assignments")
    if not isinstance(assignments, list) or not assignments:
        raise BadInput(f"{path}: \"assignments\" is a list of assignments")
    shared, shared_args = _object(data, str(path), "options"), _words(data, str(path))
    jobs: list[Job] = []
    names: set[str] = set()
    for number, a in enumerate(assignments, start=1):
        where = f"{path}: assignment {number}"
        if not isinstance(a, dict) or not isinstance(a.get("name"), str) or not a["name"]:
            raise BadInput(f"{where}: an assignment is an object with a \"name\"")
        name = a["name"]
        where = f"{path}: assignment {number} ({name})"
        if name in names:
            raise BadInput(f"{where}: two assignments are named {name!r}")
        names.add(name)
        reference = _resolved(a.get("reference"), base, where, "reference", Path.is_file)
        tests = _resolved(a.get("tests"), base, where, "tests", Path.is_dir)
        options = {**shared, **_object(a, where, "options")}
        words = ("--reference", reference, "--tests-dir", tests, *option_args(options, base),
                 *shared_args, *_words(a, where), *extra)
        meta = {"assignment": name, "reference": reference, "tests": tests}
        for sub in _submissions(_paths(a.get("submissions"), where), base, where):
            program = sub if Path(sub).is_absolute() else str(base / sub)
            jobs.append(Job(f"{name}: {sub}", program, "repair", words,
                            tuple({**meta, "submission": sub}.items())))
    return jobs


def _relative(path: Path, start: Path) -> str:
    """``path`` relative to the folder ``start`` when the two share a folder
    below ``/`` (else absolute, rather than a climb to the root)."""
    path, start = path.resolve(), start.resolve()
    if os.path.commonpath([path, start]) == path.anchor:
        return path.as_posix()
    return Path(os.path.relpath(path, start)).as_posix()


def course_manifest(root: str | Path, where: str | Path, options: dict | None = None) -> dict:
    """The course manifest (as data, module docstring) of the C-Pack-IPAs-
    shaped folder ``root``, with paths relative to the folder ``where``
    the manifest is written; ``options`` are the course's (default
    ``{"compare": "exact"}``: such courses judge outputs exactly).  One
    assignment per model solution ``reference_implementations/LAB/EX.c``
    that has a tests folder ``tests/LAB/EX`` and submissions: ``.c``
    files under ``root`` (outside those two folders) whose folder ends
    with ``LAB/EX``, as one glob per folder.  Raises ``BadInput`` when
    ``root`` has no such assignment."""
    root, where = Path(root), Path(where)
    refs = root / REFERENCES
    if not refs.is_dir():
        raise BadInput(f"{root}: not a course folder: no {REFERENCES}/ (shaped like C-Pack-IPAs: "
                       f"{REFERENCES}/LAB/EX.c, {TESTS}/LAB/EX/, submissions in .../LAB/EX/*.c)")
    folders: dict[tuple[str, ...], list[Path]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort(key=natural)
        here = Path(dirpath)
        if here == root:
            dirnames[:] = [d for d in dirnames if d not in (REFERENCES, TESTS)]
        if any(f.endswith(".c") for f in filenames):
            folders.setdefault(here.relative_to(root).parts, []).append(here)
    assignments = []
    for ref in sorted(refs.rglob("*.c"), key=lambda p: natural(p.as_posix())):
        parts = ref.relative_to(refs).with_suffix("").parts
        tests = root / TESTS / Path(*parts)
        subs = [d for key, ds in folders.items() if key[-len(parts):] == parts for d in ds]
        if not tests.is_dir() or not subs:
            continue
        assignments.append({
            "name": "/".join(parts), "reference": _relative(ref, where), "tests": _relative(tests, where),
            "submissions": [_relative(d, where) + "/*.c" for d in sorted(subs, key=lambda d: natural(d.as_posix()))],
        })
    if not assignments:
        raise BadInput(f"{root}: no assignment with a model solution in {REFERENCES}/, tests in {TESTS}/ "
                       f"and submissions")
    return {"options": dict(options) if options is not None else {"compare": "exact"}, "assignments": assignments}


def write_course_manifest(root: str | Path, path: str | Path, options: dict | None = None) -> dict:
    """Write :func:`course_manifest` of ``root`` to the YAML file ``path``
    (its paths relative to ``path``'s folder) and return it."""
    import yaml

    path = Path(path)
    data = course_manifest(root, path.parent, options)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# crepair course manifest (crepair.batch.course), written from " + json.dumps(str(root))
                    + "\n" + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return data


def manifest_beside(results: str | Path) -> Path:
    """Where ``crepair batch ROOT --course -o RESULTS`` writes the course
    manifest: ``RESULTS`` with the suffix ``.course.yaml``."""
    return Path(results).with_suffix(".course.yaml")
