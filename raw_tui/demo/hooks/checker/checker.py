"""The demo's hook: looks at every bash call before it runs, and says when a turn ends."""

import json
import sys

event = json.load(sys.stdin)
if event["event"] == "PreToolUse":
    commands = [c.get("command", "") for c in event["tool"]["arguments"].get("commands", [])]
    print(json.dumps({"decision": "continue",
                      "message": f"checked {len(commands)} command(s) before they ran"}))
else:
    print(json.dumps({"message": f"turn finished: {event.get('run', {}).get('status')}"}))
