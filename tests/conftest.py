"""Every test starts with an empty crepair cache: the command line keeps a
reference's answers in ``$XDG_CACHE_HOME/crepair`` between runs
(:mod:`crepair.oracle.cache`), and one test's answers must not change what
another measures (its bounded checks, its time)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
