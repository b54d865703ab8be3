"""The crepair the workers run, and the set-up a report names.

``--rev REV`` exports ``src/`` of a commit with ``git archive`` into the
run's scratch folder and puts it first on the workers' PYTHONPATH, so
edits to the working tree during a long run do not leak into it;
``--live`` runs the installed crepair (the working tree) instead.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def resolve_commit(rev: str) -> str:
    return subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout.strip()


def export_snapshot(rev: str, dest: Path) -> tuple[str, Path]:
    """Export ``rev``'s ``src/`` into ``dest`` (created); returns the full
    commit id and the exported ``src`` folder."""
    commit = resolve_commit(rev)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit, "src"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit, dest / "src"


def working_tree() -> str:
    """HEAD, and whether src/ has uncommitted changes."""
    try:
        head = resolve_commit("HEAD")
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=REPO, capture_output=True,
                               text=True).stdout.strip()
        return head + (" (with uncommitted changes under src/)" if dirty else "")
    except Exception:  # noqa: BLE001
        return "unknown"


class Crepair:
    """The crepair the workers import: ``src`` (the exported snapshot's
    ``src/``, None for the installed one), ``commit_id`` (the full commit,
    "" with ``--live``), ``described`` (for the report), and ``env``, the
    workers' environment."""

    def __init__(self, args, tmp: Path, recorded: str = ""):
        self.env = dict(os.environ)
        self.src: Path | None = None
        self.commit_id = ""
        if args.live:
            self.described = working_tree() + " — working tree (--live)"
            return
        rev = args.rev or recorded or "HEAD"
        self.commit_id, self.src = export_snapshot(rev, tmp / "crepair-snapshot")
        self.env["PYTHONPATH"] = os.pathsep.join([str(self.src)] + [p for p in [self.env.get("PYTHONPATH")] if p])
        self.described = self.commit_id + " (src/ exported with git archive; uncommitted edits not included)"
        if recorded and recorded != self.commit_id:
            print(f"warning: resuming runs of {recorded} with {self.commit_id}", file=sys.stderr)
        head = resolve_commit("HEAD")
        if head != self.commit_id:
            self.described += f"; HEAD at the start of this invocation: {head}"

    def imported_by(self, start: dict) -> bool:
        """Whether a worker (its ``start`` record) imported this crepair."""
        if self.src is None:
            return True
        return Path(start.get("crepair_file", "")).resolve().is_relative_to(self.src.resolve())


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo").splitlines()
                if line.startswith("model name")), "")
    return f"nproc {os.cpu_count()}" + (f", {cpu}" if cpu else "") + f", {platform.system()} {platform.release()}"


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def software() -> str:
    parts = [f"Python {platform.python_version()}"]
    for name in ("z3-solver", "python-sat", "pycparser"):
        try:
            parts.append(f"{name} {version(name)}")
        except Exception:  # noqa: BLE001
            pass
    return ", ".join(parts)


def setup_meta(crepair: Crepair, script: str, argv: list[str], old_meta: dict) -> dict:
    """The first fields of a report's ``meta``: the date (that of the
    resumed runs, else now), the crepair, machine, software (``machines``:
    each distinct machine and software of the invocations, this one last),
    the command line (``commands``: also those of the resumed invocations)."""
    command = f"python bench/{script} " + " ".join(argv)
    earlier = old_meta.get("commands") or [c for c in [old_meta.get("command")] if c]
    meta = {"date": old_meta.get("date") or utc_now(), "commit": crepair.described, "commit_id": crepair.commit_id,
            "machine": machine(), "software": software(), "command": command, "commands": earlier + [command],
            "load_start": f"{os.getloadavg()[0]:.2f}"}
    here = f"{meta['machine']}; {meta['software']}"
    seen = old_meta.get("machines") or ([f"{old_meta['machine']}; {old_meta['software']}"] if old_meta.get("machine")
                                        else [])
    meta["machines"] = [m for m in seen if m != here] + [here]
    if old_meta.get("date"):
        meta["resumed_at"] = utc_now()
    return meta


def stamp_meta(meta: dict, t_start: float, final: bool) -> None:
    """The wall time since ``t_start`` and, when final, the end time and load."""
    meta["wall"] = time.monotonic() - t_start
    if final:
        meta["finished"] = utc_now()
        meta["load_end"] = f"{os.getloadavg()[0]:.2f}"
