"""Log: append every payload it receives, one JSON object a line, to $RAW_TUI_HOOK_LOG.

Without RAW_TUI_HOOK_LOG it does nothing. It never denies.
"""

import json
import os
import sys

payload = json.load(sys.stdin)
path = os.environ.get("RAW_TUI_HOOK_LOG")
if path:
    line = json.dumps(payload, separators=(",", ":"), ensure_ascii=False) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as log:
        log.write(line)
