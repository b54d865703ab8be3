"""Markdown for the reports: cells, tables, the header every report has."""

from __future__ import annotations


def fmt_s(x) -> str:
    return "—" if x is None else f"{x:.1f}"


def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def vs(versions) -> str:
    """TCAS versions as ``v1 v3 v10`` (or "none")."""
    return " ".join(f"v{v}" for v in sorted(versions)) or "none"


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table (cells escaped)."""
    return (["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
            + ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows])


def outcome_text(job) -> str:
    """A job's outcome, then its error if it has one."""
    if not job.error:
        return job.outcome or ""
    return (job.outcome + "; " if job.outcome else "") + "error: " + job.error


def header(title: str, meta: dict, jobs: dict, final: bool, what: str = "runs") -> list[str]:
    """The title, the PARTIAL mark, and the date, commit, machine and
    command lines of a report."""
    out = [f"# {title}", ""]
    if not final:
        out += ["**PARTIAL RESULTS** — the benchmark was not finished when this file was written "
                "(complete it with `--resume`).", ""]
    done = sum(1 for j in jobs.values() if j.status in ("done", "error"))
    resumed = sum(1 for j in jobs.values() if j.resumed)
    commits = sorted({j.commit for j in jobs.values() if j.commit})
    load = meta.get("load_start")
    out += [
        f"* Date: {meta['date']} (finished {meta.get('finished', 'n/a')}; wall time of this invocation "
        f"{meta.get('wall', 0) / 60:.1f} min; {done}/{len(jobs)} {what} done"
        + (f", {resumed} of them taken over from an earlier invocation with --resume" if resumed else "") + ")",
        f"* crepair commit: {meta['commit']}"
        + (f" — **runs used several commits**: {', '.join(commits)}" if len(commits) > 1 else ""),
    ]
    machines = meta.get("machines") or [f"{meta['machine']}; {meta['software']}"]
    out.append(f"* Machine: {machines[0]}" if len(machines) == 1 else
               "* Machines (the invocations ran on several; this one last): " + " | ".join(machines))
    if load:
        out.append(f"* Load average (1 min) at the start: {load}"
                   + (f", at the end: {meta['load_end']}" if meta.get("load_end") else "")
                   + " (other benchmarks may have run at the same time; times are wall-clock)")
    commands = meta.get("commands") or [meta["command"]]
    out.append(f"* Command: `{commands[0]}`" if len(commands) == 1 else "* Commands (in order; the later ones "
               "resumed the earlier): " + "; ".join(f"`{c}`" for c in commands))
    return out


def is_vacuous(repair: dict) -> bool:
    """Whether the unwinding bound cut off runs of the repaired program (or
    that was unknown); False for records that did not say."""
    return "vacuous" in repair and repair["vacuous"] is not False


def repairs_cell(job) -> str:
    """A job's number of repairs, and how many of them are vacuous."""
    if job is None or job.status == "pending":
        return ""
    vacuous = sum(1 for r in job.repairs if is_vacuous(r))
    return str(len(job.repairs)) + (f" ({vacuous} vacuous)" if vacuous else "")
