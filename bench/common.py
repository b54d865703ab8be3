"""Helpers shared by the benchmark scripts in bench/.

The scripts are run as ``python bench/NAME.py`` from the repository root,
so ``bench/`` is on ``sys.path`` and they import this module as ``common``.

* :func:`export_snapshot` exports ``src/`` of a git commit with
  ``git archive``; workers then import crepair from there (``pythonpath_env``),
  so edits to the working tree during a long run do not leak into it.
* :func:`run_worker` runs one worker process that writes JSON lines
  (:func:`emit`), with a hard time limit; a crash or a kill is returned as
  text and the lines written so far are kept.
* :func:`machine`, :func:`versions_info`, :func:`git_commit` describe the
  set-up for report headers; :func:`fmt_s` and :func:`md_escape` format
  markdown table cells.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------


def emit(fh, record: dict) -> None:
    """Write one JSON line and flush it (a killed worker keeps what it wrote)."""
    fh.write(json.dumps(record) + "\n")
    fh.flush()


def read_records(path: Path) -> list[dict]:
    """The JSON lines of a worker's output file (a torn last line is dropped)."""
    records = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return records


def run_worker(cmd: list[str], hard: float, cwd: Path, env: dict) -> str:
    """Run a worker command; return "" if it exited with 0 or 1 (1: the
    worker recorded an error itself), else a description of the crash."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=hard, cwd=cwd, env=env)
        if p.returncode not in (0, 1):
            tail = " | ".join(p.stderr.strip().splitlines()[-2:])
            return f"worker exited with {p.returncode}" + (f": {tail}" if tail else "")
    except subprocess.TimeoutExpired:
        return f"killed after the hard limit of {hard:.0f} s"
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    return ""


def imported_from_snapshot(start_record: dict, snapshot_src: Path | None) -> bool:
    """Whether a worker imported crepair from the snapshot (always true
    when no snapshot is used)."""
    if snapshot_src is None:
        return True
    return Path(start_record.get("crepair_file", "")).resolve().is_relative_to(snapshot_src.resolve())


# ---------------------------------------------------------------------------
# Pinning crepair to a commit
# ---------------------------------------------------------------------------


def resolve_commit(rev: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()


def export_snapshot(rev: str, dest: Path) -> tuple[str, Path]:
    """Export ``rev``'s ``src/`` with ``git archive`` into ``dest`` (created).
    Returns (full commit id, path of the exported ``src``)."""
    commit = resolve_commit(rev)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit, "src"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit, dest / "src"


def pythonpath_env(env: dict, src: Path) -> dict:
    """A copy of ``env`` whose PYTHONPATH starts with ``src``."""
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join([str(src)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


# ---------------------------------------------------------------------------
# Describing the set-up
# ---------------------------------------------------------------------------


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        return head + (" (with uncommitted changes under src/)" if dirty else "")
    except Exception:  # noqa: BLE001
        return "unknown"


def nproc() -> str:
    try:
        return subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return str(os.cpu_count())


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"nproc {nproc()}" + (f", {cpu}" if cpu else "") + f", {platform.system()} {platform.release()}"


def versions_info() -> str:
    parts = [f"Python {platform.python_version()}"]
    for mod in ("z3", "pysat", "pycparser"):
        try:
            from importlib.metadata import version

            name = {"z3": "z3-solver", "pysat": "python-sat"}.get(mod, mod)
            parts.append(f"{name} {version(name)}")
        except Exception:  # noqa: BLE001
            pass
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


def fmt_s(x) -> str:
    return "—" if x is None else f"{x:.1f}"


def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
