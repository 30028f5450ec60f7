"""Tool folders that misbehave at each step of dispatch, for the gate's tests."""

from __future__ import annotations

from pathlib import Path

from tests.config_kit import write_tool

EFFECTS_SCHEMA = {
    "type": "object",
    "properties": {"files": {"type": "array", "items": {
        "type": "object", "properties": {"path": {"type": "string"},
                                         "operation": {"type": "string"}},
        "required": ["path", "operation"], "additionalProperties": False}}},
    "required": ["files"], "additionalProperties": False,
}

TEXT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}},
               "required": ["text"], "additionalProperties": False}


def write_all(cfg: Path) -> list[str]:
    """Every misbehaving tool; returns their identities for `tools.use`."""
    write_tool(cfg, "noop", '''
        def handler(args, ctx):
            return "ok: " + args["text"]
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "mutator", '''
        def handler(args, ctx):
            args["text"] = "changed"
            return "mutated"
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "validated", '''
        def validate_args(args):
            if args.get("text") == "bad":
                return "text must not be bad"
            return None
        def handler(args, ctx):
            return "valid"
    ''', schema=TEXT_SCHEMA)
    effects = {
        "fx_ok": 'return {"files": [{"path": "/tmp/x/" + args["text"], "operation": "write"}]}',
        "fx_async": None,
        "fx_raise": 'raise ValueError("no can do")',
        "fx_notjson": 'return {"files": {1, 2}}',
        "fx_big": 'return {"files": [{"path": "x" * 70000, "operation": "write"}]}',
        "fx_schema": 'return {"files": [{"path": 5, "operation": "write"}]}',
        "fx_surrogate": 'return {"files": [{"path": "/tmp/x/\\udcff", "operation": "write"}]}',
    }
    for tool_id, body in effects.items():
        if body is None:
            describe = "async def describe_effects(args, ctx):\n    return {'files': []}\n"
        else:
            describe = f"def describe_effects(args, ctx):\n    {body}\n"
        write_tool(cfg, tool_id, describe + "def handler(args, ctx):\n    return 'ran'\n",
                   schema=TEXT_SCHEMA, effects_schema=EFFECTS_SCHEMA,
                   condition_sources=["arguments", "effects"])
    write_tool(cfg, "crash", '''
        def handler(args, ctx):
            raise RuntimeError("boom")
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "slow", '''
        import asyncio
        async def handler(args, ctx):
            await asyncio.sleep(30)
            return "late"
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "denied", '''
        def handler(args, ctx):
            return "never"
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "big", '''
        def handler(args, ctx):
            return "x" * 20000
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "panelled", '''
        def handler(args, ctx):
            return {"content": [{"type": "text", "text": "visible"},
                                {"type": "panel", "panel": "p", "op": "close"}]}
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "badblock", '''
        def handler(args, ctx):
            return {"content": [{"type": "text", "text": 5}]}
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "imageblock", '''
        def handler(args, ctx):
            return {"content": [{"type": "image", "data": "x" * 5000}]}
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "emptyerror", '''
        def validate_args(args):
            return ""
        def handler(args, ctx):
            return "ran"
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "tryvalidated", '''
        try:
            from no_such_module import validate_args
        except ImportError:
            def validate_args(args):
                return "checked by the fallback validator"
        def handler(args, ctx):
            return "ran"
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "anything", '''
        def handler(args, ctx):
            return "ran"
    ''', schema={"type": "object"})
    return [f"agent/{name}" for name in (
        "noop", "mutator", "validated", *effects, "crash", "slow", "denied", "big", "panelled",
        "badblock", "imageblock", "emptyerror", "tryvalidated", "anything")]


RULES = [
    {"match": "agent/denied", "effect": "deny"},
    {"match": "agent/noop", "effect": "ask", "when": {
        "source": "arguments", "any": "text", "regex": "secret"}},
    {"match": "agent/fx_ok", "effect": "ask", "when": {
        "source": "effects", "any": "files[*].path", "regex": "/protected/"}},
]
