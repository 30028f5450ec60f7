import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # `tests.servers` importable however pytest is started
    sys.path.insert(0, str(ROOT))

from tests.servers.fixtures import protocol_server  # noqa: E402,F401
