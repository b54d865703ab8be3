"""The HTML report of a course batch: an index and one page per assignment.

``crepair batch COURSE.yaml --html FILE`` writes, in FILE's folder,

* ``FILE``: the index, one row per assignment with its counts
  (:class:`~crepair.report.course.Category`), evidence levels, median time
  and a link to its page;
* ``STEM-ASSIGNMENT.html`` per assignment (STEM is FILE's name without
  ``.html``; the assignment's name with every run of characters other
  than letters, digits, ``.``, ``_``, ``-`` as one ``-``): the counts,
  every submission's outcome, evidence level and time, the identical
  repairs grouped (:func:`~crepair.report.course.normalized_diff`; one
  row per group with its count, submissions and diff), and the heat map
  of the repairs over the model solution's lines
  (:mod:`crepair.report.course_lines`);
* ``STEM-jobs.html``: every job in detail (:func:`crepair.report.html.render_batch`),
  which the submissions link to.

Jinja2 templates ``course_index.html.j2`` and ``course_assignment.html.j2``
(autoescaped); styles inline, nothing loaded from the network.  A batch
whose records have no assignment gets the one-page report of
:func:`crepair.report.html.write_batch_html` instead.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from crepair.report import html
from crepair.report.course import Assignment, Category, assignments, category, evidence_level, is_course, submission
from crepair.version import __version__

LEVELS = ("proof", "tests", "plausible")


def page_names(stem: str, names: list[str]) -> dict[str, str]:
    """Assignment name -> its page's file name (unique; see the module docstring)."""
    out: dict[str, str] = {}
    for name in names:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "assignment"
        candidate, k = f"{stem}-{slug}.html", 2
        while candidate in out.values() or candidate == f"{stem}-jobs.html":
            candidate, k = f"{stem}-{slug}-{k}.html", k + 1
        out[name] = candidate
    return out


def _render(template: str, **context) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return html._environment().get_template(template).render(
        version=__version__, created=now, categories=[c.value for c in Category], levels=LEVELS,
        styles=html.style_defs(), **context)


def _levels(a: Assignment) -> dict[str, int]:
    counts = dict.fromkeys(LEVELS, 0)
    for r in a.records:
        if r.get("repairs") and r["outcome"] == "repaired":
            level = evidence_level(r["repairs"][0])
            counts[level] = counts.get(level, 0) + 1
    return counts


def _model_lines(a: Assignment) -> list[dict]:
    if a.model is None:
        return []
    heat = dict(a.heat)
    top = max(heat.values(), default=0) or 1
    return [{"no": no, "code": code, "count": heat.get(no, 0), "heat": round(heat.get(no, 0) / top, 2),
             "tint": round(heat.get(no, 0) / top * html.MAX_TINT, 3)}
            for no, code in enumerate(html.highlighted_lines(a.model), start=1)]


def assignment_page(a: Assignment, title: str, index: str, jobs_page: str, anchors: dict[str, str]) -> str:
    """The page of one assignment; ``anchors``: record id -> its section in ``jobs_page``."""
    group_of = {s: k for k, g in enumerate(a.groups, start=1) for s in g.submissions}
    rows = []
    for r in a.records:
        first = (r.get("repairs") or [None])[0]
        name = submission(r)
        rows.append({"submission": name, "outcome": r["outcome"], "category": category(r["outcome"]).value,
                     "css": category(r["outcome"]).name.lower().replace("_", "-"),
                     "level": evidence_level(first) if first and r["outcome"] == "repaired" else "",
                     "seconds": r.get("seconds"), "message": r.get("message", ""),
                     "group": group_of.get(name) if r["outcome"] == "repaired" else None,
                     "link": f"{jobs_page}#{anchors[r['id']]}" if r["id"] in anchors else ""})
    groups = [{"number": k, "count": len(g.submissions), "submissions": g.submissions,
               "levels": ", ".join(f"{lv} {g.levels.count(lv)}" for lv in dict.fromkeys(g.levels)),
               "rows": html.side_by_side(g.diff)} for k, g in enumerate(a.groups, start=1)]
    return _render("course_assignment.html.j2", title=f"{title}: {a.name}", a=a, index=index, rows=rows,
                   groups=groups, counts={c.value: n for c, n in a.counts}, levels_count=_levels(a),
                   lines=_model_lines(a), heat_rgb=",".join(map(str, html.HEAT_RGB)),
                   median=a.median_seconds(), jobs_page=jobs_page)


def render_course(records: list[dict], title: str, index: str) -> dict[str, str]:
    """File name -> HTML of every page of a course batch's ``records``;
    ``index`` is the index page's file name (the others are named after
    its stem, module docstring)."""
    stem = index[:-5] if index.endswith(".html") else index
    summary = assignments(records)
    names = page_names(stem, [a.name for a in summary])
    jobs_page = f"{stem}-jobs.html"
    anchors = {r["id"]: f"job-{i}" for i, r in enumerate(records, start=1)}  # as render_batch numbers them
    pages = {index: _render("course_index.html.j2", title=title, jobs_page=jobs_page, rows=[
        {"name": a.name, "page": names[a.name], "total": len(a.records), "counts": {c.value: n for c, n in a.counts},
         "levels": _levels(a), "groups": len(a.groups), "median": a.median_seconds()} for a in summary])}
    for a in summary:
        pages[names[a.name]] = assignment_page(a, title, index, jobs_page, anchors)
    pages[jobs_page] = html.render_batch(records, f"{title}: every job")
    return pages


def write_html(path: str | Path, records: list[dict], title: str) -> list[Path]:
    """Write the HTML report of a batch to ``path``: the course pages
    (module docstring) when the records belong to assignments, else the
    one-page batch report.  Returns the files written, the index first."""
    path = Path(path)
    if not is_course(records):
        html.write_batch_html(path, records, title)
        return [path]
    out = []
    for name, text in render_course(records, title, path.name).items():  # the index first
        target = path.parent / name
        target.write_text(text, encoding="utf-8")
        out.append(target)
    return out
