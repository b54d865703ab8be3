"""crepair batch --executor ray: the same jobs on a local Ray give the same records."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_batch import SRC, folder, results

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="ray is not installed (pip install 'crepair[ray]')")


def test_ray_gives_the_outcomes_and_repairs_of_the_process_pool(tmp_path):
    d = folder(tmp_path)
    manifest = tmp_path / "jobs.jsonl"
    programs = sorted(p for p in d.glob("*.c") if "clamp" not in p.name)
    manifest.write_text("".join(json.dumps({"program": str(p), "options": {"timeout": 60}}) + "\n" for p in programs)
                        + json.dumps({"program": str(programs[0]), "command": "verify", "id": "v"}) + "\n")
    env = dict(os.environ, PYTHONPATH=str(SRC), RAY_ADDRESS="")
    out = {}
    for executor in ("process", "ray"):
        out[executor] = tmp_path / f"{executor}.jsonl"
        cmd = [sys.executable, "-m", "crepair.cli", "batch", str(manifest), "--jobs", "2", "-o", str(out[executor]),
               "--executor", executor]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-2000:]
    ray_results = results(out["ray"])
    assert ray_results == results(out["process"])
    assert ray_results["v"] == ("violated", []) and len(ray_results) == 4
    assert sorted(o for o, _ in ray_results.values()) == ["bad-input", "original-correct", "repaired", "violated"]


def test_address_needs_the_ray_executor(tmp_path):
    from crepair.cli import main

    assert main(["batch", str(tmp_path), "--address", "auto"]) == 2
