"""A course batch summed up per assignment: counts, grouped repairs, heat.

The records of a course batch (:mod:`crepair.batch.course`; each carries
``meta.assignment``) are summed up per assignment, in the order the
assignments first appear:

* each submission's outcome falls in one :class:`Category`;
* the *first-ranked* repair of each repaired submission (the one a
  teacher would apply) is grouped with the identical ones: same
  :func:`normalized_diff`;
* those repairs' changed lines (the lines of their edits, 1-based, in the
  submission) are mapped to lines of the model solution
  (:func:`crepair.report.course_lines.line_map`) and counted: a model
  line's heat is the number of repairs with a changed line mapped to it.
"""

from __future__ import annotations

import collections
import enum
import statistics
from dataclasses import dataclass
from pathlib import Path

from crepair.report.course_lines import line_map, token_lines


class Category(enum.Enum):
    """What a submission's job came to (the report's columns, in order)."""

    REPAIRED = "repaired"
    NO_REPAIR = "no repair"  # the search space holds none (within its limits)
    UNKNOWN = "unknown"  # time or memory ran out, solver unknown, bound too small
    ERROR = "error"  # the job gave no answer: bad input, crash, internal, usage, missing tool
    CORRECT = "already correct"  # passes every test and the bounded check finds no difference


_CATEGORY = {
    "repaired": Category.REPAIRED,
    "no-repair": Category.NO_REPAIR, "exhausted": Category.NO_REPAIR, "vacuous-only": Category.NO_REPAIR,
    "unknown": Category.UNKNOWN, "stopped": Category.UNKNOWN, "bound-too-small": Category.UNKNOWN,
    "timeout": Category.UNKNOWN, "out-of-memory": Category.UNKNOWN,
    "original-correct": Category.CORRECT, "no-failing-test": Category.CORRECT,
}


def category(outcome: str) -> Category:
    """The category of a job's ``outcome`` (:mod:`crepair.batch.job`);
    any outcome not listed (bad-input, crash, internal, ...) is an error."""
    return _CATEGORY.get(outcome, Category.ERROR)


def normalized_diff(diff: str) -> str:
    """The removed and added lines of a unified ``diff``, in order, each as
    its C tokens (:func:`~crepair.report.course_lines.token_lines`) joined
    by one space: two repairs are identical when these are (layout,
    comments, file names, line numbers and context do not count)."""
    out = []
    for line in diff.split("\n"):
        if line.startswith(("--- ", "+++ ")) or not line.startswith(("-", "+")):
            continue
        out.append(line[0] + " ".join(t for tokens in token_lines(line[1:]) for t in tokens))
    return "\n".join(out)


def evidence_level(repair: dict) -> str:
    """``proof``, ``tests`` or ``plausible`` of a repair object (its
    ``evidence_level``; for a report without it, from its evidence kind)."""
    if repair.get("evidence_level"):
        return repair["evidence_level"]
    kind = (repair.get("evidence") or {}).get("kind", "")
    return {"proof": "proof", "bounded-proof": "proof", "tests": "plausible"}.get(kind, kind)


def changed_lines(repair: dict) -> list[int]:
    """The 1-based lines of the submission a repair object changes."""
    lines = {e["span"]["line"] for c in repair.get("changes", ()) for e in c.get("edits", ())}
    lines |= {c["location"]["line"] for c in repair.get("changes", ()) if not c.get("edits")}
    return sorted(x for x in lines if isinstance(x, int) and x > 0)


@dataclass(frozen=True, slots=True)
class RepairGroup:
    """Identical first-ranked repairs: ``diff`` is the first one's,
    ``submissions`` the records' ``meta.submission`` (or program)."""

    key: str
    diff: str
    submissions: tuple[str, ...]
    levels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Assignment:
    """One assignment of a course batch: its ``records`` in batch order,
    counts per :class:`Category`, the repair groups (most submissions
    first), ``heat`` (1-based model line -> repairs that change it),
    ``unmapped`` (repairs with a changed line that maps to no model line),
    ``model`` (the model solution's text, None when unreadable)."""

    name: str
    reference: str
    tests: str
    records: tuple[dict, ...]
    counts: tuple[tuple[Category, int], ...]
    groups: tuple[RepairGroup, ...]
    heat: tuple[tuple[int, int], ...]
    unmapped: int
    model: str | None

    def count(self, cat: Category) -> int:
        return dict(self.counts).get(cat, 0)

    def median_seconds(self) -> float | None:
        times = [r["seconds"] for r in self.records if isinstance(r.get("seconds"), (int, float))]
        return statistics.median(times) if times else None


def submission(record: dict) -> str:
    """How a course record names its submission."""
    return str((record.get("meta") or {}).get("submission") or record["program"])


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def is_course(records: list[dict]) -> bool:
    """Whether some record belongs to an assignment."""
    return any((r.get("meta") or {}).get("assignment") for r in records)


def assignments(records: list[dict]) -> list[Assignment]:
    """The records summed up per assignment (module docstring); records
    without an assignment form one named ``(none)``.  Reads the model
    solutions and the repaired submissions again (an unreadable file
    leaves its lines out of the heat map)."""
    by_name: dict[str, list[dict]] = collections.defaultdict(list)
    for r in records:
        by_name[str((r.get("meta") or {}).get("assignment") or "(none)")].append(r)
    return [_assignment(name, rs) for name, rs in by_name.items()]


def _assignment(name: str, records: list[dict]) -> Assignment:
    meta = records[0].get("meta") or {}
    reference, tests = str(meta.get("reference", "")), str(meta.get("tests", ""))
    model = _read(reference) if reference else None
    counts = collections.Counter(category(r["outcome"]) for r in records)
    groups: dict[str, list[tuple[dict, dict]]] = {}
    heat: collections.Counter = collections.Counter()
    unmapped = 0
    for r in records:
        if category(r["outcome"]) is not Category.REPAIRED or not r.get("repairs"):
            continue
        first = r["repairs"][0]
        groups.setdefault(normalized_diff(first.get("diff", "")), []).append((r, first))
        student = _read(r["program"]) if model is not None else None
        if student is None:
            continue
        mapping = line_map(student, model)
        lines = changed_lines(first)
        heat.update({mapping[x] for x in lines if x in mapping})
        unmapped += any(x not in mapping for x in lines)
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))  # stable: first seen first among equals
    return Assignment(
        name, reference, tests, tuple(records),
        tuple((c, counts.get(c, 0)) for c in Category),
        tuple(RepairGroup(key, members[0][1].get("diff", ""), tuple(submission(r) for r, _ in members),
                          tuple(evidence_level(rep) for _, rep in members)) for key, members in ordered),
        tuple(sorted(heat.items())), unmapped, model)


def assignment_table(records: list[dict]):
    """The terminal summary of a course batch (a rich ``Table``): one row
    per assignment with its counts per category and median seconds."""
    from rich import box
    from rich.table import Table

    summary = assignments(records)
    table = Table(title="per assignment", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
                  collapse_padding=True)  # fits 80 columns
    table.add_column("assignment", no_wrap=True, min_width=max(len(a.name) for a in summary))
    for header in [c.value.replace("already ", "") for c in Category] + ["groups", "median s"]:
        table.add_column(header, justify="right", min_width=len(header))
    for a in summary:
        median = a.median_seconds()
        table.add_row(a.name, *(str(a.count(c)) for c in Category), str(len(a.groups)),
                      "" if median is None else f"{median:.1f}")
    return table
