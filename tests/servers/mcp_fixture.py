"""A hand-written newline-JSON MCP server (no `mcp` import: starts in ~25 ms) for failure cases.

Environment: MCP_LABEL (text in echoes), MCP_COUNT (hidden tools, default 2), MCP_MODE
(`crash` exits at start, `hang` never answers, `garbage` prints garbage instead of answering,
`cycle` repeats a list cursor, `duplicate` lists a name twice, `badschema` gives one tool an
invalid schema), MCP_PID_FILE (its pid is written there), MCP_CHILDREN=N (it starts `sleep N`
and `setsid sleep N`, left running when it exits), MCP_IGNORE_EOF (it outlives its stdin and ignores
SIGTERM), MCP_EVENTS (a file where requests and
notifications are appended, one method a line). Tools: `echo {value}`, `hidden_N`, and `sleepy`
(a schema with a number); the list comes in two pages.

`echo`'s `value` picks what it does: progress (10 progress notifications 100 ms apart, then an
answer), slow (250 ms), hang (no answer), image, jpeg, badimage, structured, panel, panels
(two updates), error, resource, audio, big (20 MiB of text), crash (exits mid-call), exitlater (answers, then exits 7 while idle, its last stderr line
holding $MCP_LAST_WORDS),
env:NAME (that variable's value), envcheck:NAME=VALUE (match or differ), cwd, stderr (writes to stderr); anything else echoes
`LABEL:echo:VALUE`.
"""

import json
import os
import sys
import threading
import time

LABEL = os.environ.get("MCP_LABEL", "fx")
MODE = os.environ.get("MCP_MODE", "")
COUNT = int(os.environ.get("MCP_COUNT", "2"))
EVENTS = os.environ.get("MCP_EVENTS")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA="
lock = threading.Lock()

if os.environ.get("MCP_PID_FILE"):
    with open(os.environ["MCP_PID_FILE"], "w") as f:
        f.write(str(os.getpid()))
if os.environ.get("MCP_CHILDREN"):  # leaves `sleep N` running: in its group, and setsid'd
    import subprocess

    for argv in (["sleep", os.environ["MCP_CHILDREN"]],
                 ["setsid", "sleep", os.environ["MCP_CHILDREN"]]):
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
sys.stderr.write(f"fixture {LABEL} starting: THIS-IS-SERVER-STDERR\n")
sys.stderr.flush()
if MODE == "crash":
    sys.exit(3)


def send(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def note(method):
    if EVENTS:
        with open(EVENTS, "a") as f:
            f.write(method + "\n")


def tools():
    echo = {"name": "echo", "description": "Echo a value",
            "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}},
                            "required": ["value"]}}
    sleepy = {"name": "sleepy", "inputSchema": {
        "type": "object", "properties": {"seconds": {"type": "number"}}}}
    hidden = [{"name": f"hidden_{i}", "description": "hidden",
               "inputSchema": {"type": "object"}} for i in range(COUNT)]
    if MODE == "badschema":
        hidden[0]["inputSchema"] = {"type": "object", "properties": {"x": {"type": 7}}}
    listed = [echo, *hidden, sleepy]
    if MODE == "duplicate":
        listed.append(dict(echo))
    return listed


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(msg_id, name, args, meta):
    value = args.get("value", "")
    token = (meta or {}).get("progressToken")
    if name == "sleepy":
        time.sleep(float(args.get("seconds", 0)))
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text("slept")})
    if value == "hang":
        return
    if value == "crash":
        os._exit(4)
    if value == "progress":
        for i in range(10):
            time.sleep(0.1)
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": i + 1, "total": 10,
                                 "message": f"step {i + 1}"}})
        result = text("done after progress")
    elif value == "slow":
        time.sleep(0.25)
        result = text("slow done")
    elif value == "image":
        result = {"content": [{"type": "image", "mimeType": "image/png", "data": PNG}]}
    elif value == "jpeg":
        result = {"content": [{"type": "text", "text": "a picture:"},
                              {"type": "image", "mimeType": "image/jpeg", "data": JPEG}]}
    elif value == "badimage":
        result = {"content": [{"type": "image", "mimeType": "image/png", "data": "@@not base64"}]}
    elif value == "structured":
        data = {"answer": 42, "items": ["a", "b"]}
        result = {"content": [{"type": "text", "text": json.dumps(data, indent=1)}],
                  "structuredContent": data}
    elif value == "panel" or value == "panels":
        doc = {"title": "Fixture", "blocks": [{"id": "c", "kind": "checklist", "items": [
            {"id": "a", "label": "first", "status": "done"}]}]}
        update = {"panel": "fxpanel", "op": "replace", "document": doc}
        meta_panel = update if value == "panel" else [update, {"panel": "other", "op": "replace",
                                                               "document": {"title": "Other"}}]
        result = {"content": [{"type": "text", "text": "panel sent"}],
                  "_meta": {"raw/panel": meta_panel, "vendor/x": 1}}
    elif value == "error":
        result = {"content": [{"type": "text", "text": "the server says no"}], "isError": True}
    elif value == "resource":
        result = {"content": [{"type": "resource_link", "uri": "file:///etc/passwd",
                               "name": "passwd"}]}
    elif value == "audio":
        result = {"content": [{"type": "audio", "mimeType": "audio/wav", "data": "AAAA"}]}
    elif value == "big":
        result = text("x" * (20 * 1024 * 1024))
    elif value.startswith("env:"):
        result = text(os.environ.get(value[4:], "(unset)"))
    elif value.startswith("envcheck:"):  # envcheck:NAME=EXPECTED, without echoing a secret
        name, _, expected = value[9:].partition("=")
        result = text("match" if os.environ.get(name) == expected else "differ")
    elif value.startswith("exitlater"):  # answer, then, idle, write a last line and exit 7
        def later():
            time.sleep(0.3)
            words = os.environ.get("MCP_LAST_WORDS", "THE-LAST-WORDS")
            sys.stderr.write(f"fixture giving up: {words}\n")
            sys.stderr.flush()
            os._exit(7)
        threading.Thread(target=later, daemon=True).start()
        result = text("will exit")
    elif value == "cwd":
        result = text(os.getcwd())
    elif value == "stderr":
        sys.stderr.write("THIS-IS-SERVER-STDERR during a call\n")
        sys.stderr.flush()
        result = text("wrote to stderr")
    else:
        result = text(f"{LABEL}:{name}:{value}")
    send({"jsonrpc": "2.0", "id": msg_id, "result": result})


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        method = msg.get("method")
        note(method or "response")
        if MODE == "hang":
            continue
        if MODE == "garbage":
            sys.stdout.write("this is not JSON-RPC {{{\n")
            sys.stdout.flush()
            continue
        if "id" not in msg:
            continue  # notifications (initialized, cancelled)
        params = msg.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": LABEL, "version": "1"}}})
        elif method == "tools/list":
            listed = tools()
            cursor = params.get("cursor")
            half = len(listed) // 2
            if cursor is None:
                page = {"tools": listed[:half], "nextCursor": "page2"}
            elif MODE == "cycle":
                page = {"tools": [], "nextCursor": "page2"}
            else:
                page = {"tools": listed[half:]}
            send({"jsonrpc": "2.0", "id": msg["id"], "result": page})
        elif method == "tools/call":
            threading.Thread(target=call, args=(msg["id"], params.get("name"),
                                                params.get("arguments") or {},
                                                params.get("_meta")), daemon=True).start()
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": msg["id"],
                  "error": {"code": -32601, "message": "Method not found"}})


main()
if os.environ.get("MCP_IGNORE_EOF"):  # a stubborn server: lives on after its stdin closed
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(1)
