"""Scratch folders (crepair.toolchain.scratch): where they are made and that they go."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from crepair.toolchain import scratch as scratch_module
from crepair.toolchain.scratch import live, memory_folder, scratch, scratch_folder


def test_a_with_block_scratch_folder_is_listed_while_it_lives_and_gone_after(tmp_path):
    with scratch("crepair-test-") as folder:
        (folder / "f").write_text("x")
        assert folder in live() and folder.name.startswith("crepair-test-")
    assert not folder.exists() and folder not in live()


def test_an_owned_scratch_folder_goes_when_its_owner_closes_it():
    class Owner:
        pass

    owner = Owner()
    folder, remove = scratch_folder(owner, "crepair-test-")
    assert folder.is_dir() and folder in live()
    remove()
    assert not folder.exists() and folder not in live()


@pytest.mark.skipif(not (os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK)), reason="no /dev/shm here")
def test_in_memory_scratch_is_on_dev_shm_unless_tmpdir_says_otherwise(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    assert memory_folder() == "/dev/shm"
    with scratch("crepair-test-", in_memory=True) as folder:
        assert folder.parent == Path("/dev/shm")
    assert not folder.exists()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # tempfile reads TMPDIR once
    assert memory_folder() is None
    with scratch("crepair-test-", in_memory=True) as folder:
        assert folder.parent == tmp_path


def test_without_a_memory_file_system_in_memory_scratch_is_the_usual_temporary_folder(monkeypatch):
    monkeypatch.setattr(scratch_module, "_SHM", "/nonexistent-crepair-shm")
    monkeypatch.delenv("TMPDIR", raising=False)
    assert memory_folder() is None
    with scratch("crepair-test-", in_memory=True) as folder:
        assert folder.parent == Path(tempfile.gettempdir())
