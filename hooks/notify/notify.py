"""Notify: one message when a turn finishes (it cannot change anything)."""

import json
import sys

event = json.load(sys.stdin)
status = event.get("run", {}).get("status", "unknown")
print(json.dumps({"message": f"Turn {event.get('turn_id', 'unknown')} finished: {status}"}))
