"""Binding a predicate path to a schema (docs/gate.md).

Can the path reach a `type: "string"` field? Followed: local `$ref` (`#/...`, cycle-safe),
`allOf`/`anyOf`/`oneOf`, `properties`, `additionalProperties` (a schema, used when the name is
not in `properties`; `true` says nothing about the type, so it does not reach a string),
`items`/`prefixItems` for `[*]` (and draft-07's array-form `items` / `additionalItems`).
"""

from __future__ import annotations

from typing import Any, Iterable
from urllib.parse import unquote

from raw_tui.protocol.errors import ConfigError, json_path

from .predicate import Predicate, Segment

_BRANCHES = ("allOf", "anyOf", "oneOf")


def reaches_string(schema: dict, segments: Iterable[Segment]) -> bool:
    """True if the path can reach a field whose schema has `type: "string"` (or a list with it)."""
    return unreachable_reason(schema, segments) is None


def unreachable_reason(schema: dict, segments: Iterable[Segment]) -> str | None:
    """None if the path reaches a string field, else a short reason (which step failed)."""
    if not isinstance(schema, dict):
        return "no schema"
    level = _expand(schema, [schema])
    walked = ""
    for name, is_array in segments:
        following = _children(schema, level, name)
        walked = f"{walked}.{name}" if walked else name
        if not following:
            return f'no field "{walked}"'
        if is_array:
            following = _items(schema, following)
            walked += "[*]"
            if not following:
                return f'"{walked[:-3]}" is not an array'
        level = following
    if any(_is_string(node) for node in level):
        return None
    return f'"{walked}" is not a string' if walked else "not a string"


def _expand(root: dict, nodes: list[Any]) -> list[dict]:
    """Every schema node a value at this position must also satisfy or may satisfy."""
    out: list[dict] = []
    seen: set[int] = set()
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = _resolve(root, ref)
            if target is not None:
                stack.append(target)
        for key in _BRANCHES:
            branches = node.get(key)
            if isinstance(branches, list):
                stack.extend(reversed(branches))
    return out


def _resolve(root: dict, ref: str) -> Any:
    """Resolve a local JSON pointer `#/a/b~1c`; None if it is not local or does not exist."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for token in ref[2:].split("/"):
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _children(root: dict, level: list[dict], name: str) -> list[dict]:
    found: list[Any] = []
    for node in level:
        properties = node.get("properties")
        if isinstance(properties, dict) and name in properties:
            found.append(properties[name])
            continue
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            found.append(extra)
    return _expand(root, found)


def _items(root: dict, level: list[dict]) -> list[dict]:
    found: list[Any] = []
    for node in level:
        items = node.get("items")
        if isinstance(items, dict):
            found.append(items)
        elif isinstance(items, list):  # draft-07 tuple form
            found.extend(items)
        prefix = node.get("prefixItems")
        if isinstance(prefix, list):
            found.extend(prefix)
        extra = node.get("additionalItems")
        if isinstance(extra, dict):
            found.append(extra)
    return _expand(root, found)


def _is_string(node: dict) -> bool:
    kind = node.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def check_binding(
    predicate: Predicate,
    tool: Any,
    *,
    where: list,
    file: str | None = None,
) -> None:
    """Check one predicate (at JSON path `where`, the `when` object) against one tool.

    `tool` has `.identity`, `.condition_sources`, `.input_schema`, `.effects_schema`.
    Raises ConfigError naming the path (hence the rule or subscription) and the tool.
    """
    identity = tool.identity
    if predicate.source == "observed":
        _check_observed(predicate, identity, where=where, file=file)
        return
    sources = tuple(tool.condition_sources)
    if predicate.source not in sources:
        listed = ", ".join(f'"{s}"' for s in sources)
        raise ConfigError(
            f'"{predicate.source}" is not a condition source of {identity} '
            f"(condition_sources: [{listed}])",
            file=file,
            path=json_path([*where, "source"]),
        )
    if predicate.source == "effects":
        schema, schema_name = tool.effects_schema, "effects_schema"
    else:
        schema, schema_name = tool.input_schema, "input_schema"
    if not isinstance(schema, dict):
        raise ConfigError(
            f"{identity} has no {schema_name}", file=file, path=json_path([*where, "source"])
        )
    if not reaches_string(schema, predicate.segments):
        raise ConfigError(
            f'"{predicate.any}" does not reach a string field of {identity} {schema_name}',
            file=file,
            path=json_path([*where, "any"]),
        )


OBSERVED_SCHEMA = {"type": "object", "properties": {
    "files": {"type": "array", "items": {"type": "object", "properties": {
        "path": {"type": "string"}, "operation": {"type": "string"},
        "kind": {"type": "string"}}}},
    "discarded": {"type": "array", "items": {"type": "string"}},
    "diff": {"type": "string"}}}


def _check_observed(predicate: Predicate, identity: str, *, where: list,
                    file: str | None) -> None:
    """`observed` conditions: builtin/bash only, over the observed effects' fields."""
    if identity != "builtin/bash":
        raise ConfigError(f'"observed" is a condition source of builtin/bash only, not of '
                          f'{identity}', file=file, path=json_path([*where, "source"]))
    if not reaches_string(OBSERVED_SCHEMA, predicate.segments):
        raise ConfigError(f'"{predicate.any}" does not reach a string field of the observed '
                          'effects (files[*].path, files[*].operation, files[*].kind, '
                          'discarded[*], diff)', file=file, path=json_path([*where, "any"]))
