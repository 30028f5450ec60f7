"""pytest fixtures for the protocol servers. Import them into a conftest:

    from tests.servers.fixtures import protocol_server  # noqa: F401
"""

from __future__ import annotations

from typing import Iterator

import pytest

from .http_server import ProtocolServer


@pytest.fixture
def protocol_server() -> Iterator[ProtocolServer]:
    """A started server (its own thread); enqueue replies, read `.requests`."""
    server = ProtocolServer().start()
    try:
        yield server
    finally:
        server.stop()
