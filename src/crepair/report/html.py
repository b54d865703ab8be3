"""HTML reports: one self-contained file a person can read in a browser.

A report is built from the commands' JSON reports (:mod:`crepair.report.json_report`,
the same objects ``--json`` prints and ``crepair batch`` stores), so a
single run (``--html FILE`` on verify, localize, repair) and a batch
(``crepair batch --html``) are drawn by one template,
``templates/report.html.j2`` (Jinja2, autoescaped).  Each job shows

* the source, highlighted by Pygments, with a heat map per line: the must
  location set, the components of the diagnoses (shade: share of the
  diagnoses that blame the line), the spectrum ranking (shade: score over
  the highest), the lines the repairs change, and, lightly, the lines the
  counterexample runs;
* the counterexample as a table (violated check, inputs and their values);
* each repair as a side-by-side diff with its evidence (the bound of a
  bounded proof, the tests a plausible patch passes), its scheme and the
  stage of the schedule that found it;
* for a heap repair (``--states SPEC.json``), the specification's states
  as box-and-arrow pictures (:mod:`crepair.report.pictures`).

A batch report starts with the outcome counts and a table of every job
linking to its section.  The file has its styles inline and loads nothing
(no script, no font, no image from the network).
"""

from __future__ import annotations

import collections
import datetime
import re
from pathlib import Path

from crepair.version import __version__

_TEMPLATE = "report.html.j2"
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("crepair.report", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True, lstrip_blocks=True, undefined=jinja2.ChainableUndefined,  # optional JSON fields read as empty
    )


def highlighted_lines(source: str) -> list[str]:
    """The lines of C ``source`` as HTML (Pygments spans, escaped), one
    string per line (index 0 is line 1)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import CLexer

    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = highlight(source, CLexer(stripnl=False, ensurenl=False), HtmlFormatter(nowrap=True)).split("\n")
    out = (out + [""] * len(lines))[:len(lines)]
    return out


def style_defs() -> str:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style="default").get_style_defs(".src")


def heat(report: dict, command: str, repairs: list[dict]) -> tuple[dict[int, float], dict[int, list[str]]]:
    """(1-based line -> heat in 0..1, line -> why) of a job's report."""
    weight: dict[int, float] = collections.defaultdict(float)
    why: dict[int, list[str]] = collections.defaultdict(list)

    def mark(line, value, reason):
        if isinstance(line, int) and line > 0:
            weight[line] = max(weight[line], value)
            if reason not in why[line]:
                why[line].append(reason)

    cex = (report or {}).get("counterexample")
    if cex:
        for line in cex.get("lines", ()):
            mark(line, 0.12, "on the failing run")
        mark(cex["assertion"]["line"], 0.5, f"violated: {cex['violated']}")
    for loc in (report or {}).get("locations", ()):
        mark(loc["span"]["line"], 1.0, "must location")
    diagnoses = (report or {}).get("diagnoses", ())
    blamed = collections.Counter(line for d in diagnoses for line in {c["span"]["line"] for c in d["components"]})
    for line, n in blamed.items():
        mark(line, 0.25 + 0.75 * n / len(diagnoses), f"in {n} of {len(diagnoses)} diagnoses")
    ranking = (report or {}).get("ranking", ())
    scores = [r["score"] for r in ranking]
    top = max((s for s in scores if s != "inf"), default=1.0) or 1.0
    for r in ranking:
        value = 1.0 if r["score"] == "inf" else max(0.1, r["score"] / top)
        mark(r["line"], value, f"rank {r['rank']}, score {r['score']}")
    for i, rep in enumerate(repairs, start=1):
        for change in rep.get("changes", ()):
            mark(change["location"]["line"], 0.8, f"changed by repair {i}")
    return dict(weight), {k: v for k, v in why.items()}


#: The heat map's colour (RGB) and the most its tint covers a code line:
#: at 0.15 over white, the darkest text (#1b1f24) keeps a contrast above 7
#: and Pygments' green keywords above 4.5 (WCAG AA); the heat itself shows
#: at full strength in the bar left of the line.
HEAT_RGB = (255, 140, 0)
MAX_TINT = 0.15


def within_line(old: str, new: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """The two lines of a changed pair cut into (text, changed) parts, by
    difflib's ``SequenceMatcher`` (the parts of each side, joined, give the
    line back)."""
    import difflib

    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    left = [(old[i1:i2], tag != "equal") for tag, i1, i2, _, _ in ops if i2 > i1]
    right = [(new[j1:j2], tag != "equal") for tag, _, _, j1, j2 in ops if j2 > j1]
    return left, right


def side_by_side(diff: str) -> list[dict]:
    """The rows of a unified ``diff`` side by side: each row has ``kind``
    (``hunk``, ``same``, ``change``), and for the two sides the 1-based
    line numbers ``old_no``/``new_no`` (None on an empty side) and texts
    ``old``/``new``; the removed and added lines of one block pair up, and
    a change row with both sides also has ``old_parts``/``new_parts``
    (:func:`within_line`)."""
    rows: list[dict] = []
    old_no = new_no = 0
    removed: list[str] = []
    added: list[str] = []

    def flush():
        nonlocal old_no, new_no
        for k in range(max(len(removed), len(added))):
            o = removed[k] if k < len(removed) else None
            n = added[k] if k < len(added) else None
            row = {"kind": "change", "old_no": old_no + 1 if o is not None else None, "old": o or "",
                   "new_no": new_no + 1 if n is not None else None, "new": n or ""}
            if o is not None and n is not None:
                row["old_parts"], row["new_parts"] = within_line(o, n)
            rows.append(row)
            old_no += o is not None
            new_no += n is not None
        removed.clear()
        added.clear()

    for line in diff.split("\n"):
        if line.startswith(("--- ", "+++ ")) and not rows and not removed and not added:
            continue
        m = _HUNK.match(line)
        if m:
            flush()
            old_no, new_no = int(m.group(1)) - 1, int(m.group(2)) - 1
            rows.append({"kind": "hunk", "old_no": None, "new_no": None, "old": line, "new": ""})
        elif line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
        elif line.startswith(" "):
            flush()
            old_no += 1
            new_no += 1
            rows.append({"kind": "same", "old_no": old_no, "old": line[1:], "new_no": new_no, "new": line[1:]})
        elif line.startswith("\\"):
            continue
    flush()
    return rows


def _value(value) -> str:
    if isinstance(value, dict) and "entries" in value:
        cells = ", ".join(f"[{k}] = {v}" for k, v in value["entries"].items())
        return f"{{{cells}}} (others {value.get('default')})"
    return str(value)


def job_context(command: str, report: dict | None, repairs: list[dict], source: str | None, *, anchor: str,
                title: str, outcome: str, seconds: float | None = None, message: str = "",
                states=None) -> dict:
    """What the template draws of one job: ``report`` is its JSON report
    (None if the job failed before one), ``repairs`` its repair objects,
    ``source`` the program's text (None: not readable), ``states`` the
    specification file of a heap repair (drawn as pictures)."""
    report = dict(report or {})
    if not isinstance(report.get("locations"), list):  # the heap scheme's count of locations, not a must set
        report.pop("locations", None)
    weights, why = heat(report, command, repairs)
    lines = []
    if source is not None:
        for number, code in enumerate(highlighted_lines(source), start=1):
            w = weights.get(number, 0.0)
            lines.append({"no": number, "code": code, "heat": round(w, 2), "tint": round(w * MAX_TINT, 3),
                          "why": "; ".join(why.get(number, ()))})
    cex = (report or {}).get("counterexample")
    # the inputs the run reads, named by the variable they are assigned to
    read = [i for i in (cex or {}).get("inputs", ()) if i.get("executed", True)]
    inputs = [{"name": i.get("variable") or i["label"], "call": i["label"] if i.get("variable") else "",
               "line": i["line"], "value": _value(i["value"])} for i in read]
    unread = len((cex or {}).get("inputs", ())) - len(read)
    return {
        "anchor": anchor, "title": title, "command": command, "outcome": outcome, "message": message,
        "seconds": seconds, "report": report or {}, "lines": lines, "counterexample": cex, "inputs": inputs,
        "unread": unread, "heat_rgb": ",".join(map(str, HEAT_RGB)),
        "repairs": [dict(r, rows=side_by_side(r.get("diff", "")), number=i)
                    for i, r in enumerate(repairs, start=1)],
        **_pictures(states),
    }


def _pictures(states) -> dict:
    if states is None or states == "":
        return {"pictures": [], "pictures_note": ""}
    from crepair.report.pictures import state_pictures

    pictures, note = state_pictures(states)
    return {"pictures": pictures, "pictures_note": note}


def _states_of(args: list[str], program: str) -> str | None:
    """The ``--states`` file of a batch job's arguments (relative to the
    program's folder when the job named it relatively), or None."""
    for i, word in enumerate(args):
        value = args[i + 1] if word == "--states" and i + 1 < len(args) else (
            word.split("=", 1)[1] if word.startswith("--states=") else None)
        if value:
            return value if Path(value).exists() else str(Path(program).parent / value)
    return None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _page(title: str, jobs: list[dict], batch: list[dict] | None, counts: list) -> str:
    template = _environment().get_template(_TEMPLATE)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return template.render(title=title, jobs=jobs, batch=batch, counts=counts, styles=style_defs(),
                           version=__version__, created=now)


def render_report(command: str, report: dict, source: str | None, title: str | None = None,
                  states=None) -> str:
    """The HTML page of one run: ``report`` is the command's JSON report
    (a dict; for repair with its ``repairs``), ``source`` the program,
    ``states`` the specification file of a heap repair."""
    repairs = list(report.get("repairs", ()))
    rest = {k: v for k, v in report.items() if k != "repairs"}
    name = title or f"crepair {command} {report.get('file', '')}"
    job = job_context(command, rest, repairs, source, anchor="job-1", title=name,
                      outcome=str(report.get("outcome", "")), seconds=report.get("seconds"), states=states)
    return _page(name, [job], None, [])


def write_report(path: str | Path, command: str, report: dict, source: str | None, states=None) -> None:
    """Write :func:`render_report` to ``path`` (UTF-8)."""
    Path(path).write_text(render_report(command, report, source, states=states), encoding="utf-8")


def render_batch(records: list[dict], title: str) -> str:
    """The HTML page of a batch: its job ``records`` (``crepair.batch.job``),
    a table of them and one section per job; each program is read again
    for its source."""
    jobs, rows = [], []
    for i, r in enumerate(records, start=1):
        anchor = f"job-{i}"
        jobs.append(job_context(r["command"], r.get("report"), list(r.get("repairs") or ()), _read(r["program"]),
                                anchor=anchor, title=r["id"], outcome=r["outcome"], seconds=r.get("seconds"),
                                message=r.get("message", ""), states=_states_of(list(r.get("args") or ()),
                                                                                  r["program"])))
        rows.append({"anchor": anchor, "id": r["id"], "program": r["program"], "command": r["command"],
                     "outcome": r["outcome"], "repairs": len(r.get("repairs") or ()), "seconds": r.get("seconds"),
                     "found_by": ", ".join(dict.fromkeys(x.get("stage") or x.get("scheme", "")
                                                         for x in r.get("repairs") or ()))})
    counts = sorted(collections.Counter(r["outcome"] for r in records).items(), key=lambda kv: (-kv[1], kv[0]))
    return _page(title, jobs, rows, counts)


def write_batch_html(path: str | Path, records: list[dict], title: str) -> None:
    """Write :func:`render_batch` to ``path`` (UTF-8)."""
    Path(path).write_text(render_batch(records, title), encoding="utf-8")
