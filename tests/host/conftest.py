"""Host tests: a short runtime directory of their own (socket paths stay well under the
108-byte limit), 0700 as a runtime directory must be to be used."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest


@pytest.fixture(autouse=True)
def runtime_dir(monkeypatch):
    folder = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    os.chmod(folder, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
