import os

import pytest

os.environ.pop("NO_COLOR", None)


@pytest.fixture
def session(tmp_path):
    from .fake_session import FakeSession

    return FakeSession(cwd=str(tmp_path))
