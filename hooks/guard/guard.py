"""Guard: deny bash commands that run `rm`; report bash failures.

hook.json selects the calls (its `when` regex); this script answers for them.
"""

import json
import sys

request = json.load(sys.stdin)
if request["event"] == "PreToolUse":
    print(json.dumps({"decision": "deny", "reason": "Review removal commands first"}))
else:
    print(json.dumps({"message": "Bash command failed"}))
