"""`hook.json` (protocol `raw.hook/2`), strict: every rule of docs/hooks.md.

Keys: `protocol_version` (2), `name` (the folder name, `^[a-z][a-z0-9_-]*$`, ≤64 bytes),
`events` (1–32 of `{name, match?, when?}`; `match`/`when` only on tool events), `command`
(a bare name looked up on PATH when the hook runs, or `./path` to an executable file inside the
folder; any other `/` is an error), `args` (≤64 strings; `./` ones resolve inside the folder),
`timeout_ms` (1–30000, default 5000). Unknown and duplicate keys are errors.

Errors are ConfigError naming the manifest file and the JSON path inside it:
`hooks/guard/hook.json: events[0].when.regex: not a valid RE2 pattern: ...`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, Mapping

import msgspec

from ..protocol.errors import ConfigError, json_path
from ..jsonstrict import loads
from ..policy import Glob, Predicate, compile_glob, parse_predicate
from .snapshot import SnapshotFile

PROTOCOL_VERSION = 2
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
)
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
GATE_EVENTS = frozenset({"UserPromptSubmit", "PreToolUse"})
NAME_RE = re.compile(r"[a-z][a-z0-9_-]*")
MAX_NAME_BYTES = 64
MAX_EVENTS = 32
MAX_ARGS = 64
MAX_TIMEOUT_MS = 30000
DEFAULT_TIMEOUT_MS = 5000


class _SubscriptionJson(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    match: str | msgspec.UnsetType = msgspec.UNSET
    when: Any = msgspec.UNSET


class _ManifestJson(msgspec.Struct, forbid_unknown_fields=True):
    protocol_version: int
    name: str
    events: list[_SubscriptionJson]
    command: str
    args: list[str] = []
    timeout_ms: int = DEFAULT_TIMEOUT_MS


@dataclass(frozen=True)
class Subscription:
    """One entry of `events`: the event name, and on tool events an optional glob and predicate."""

    index: int
    event: str
    match: Glob | None = None
    when: Predicate | None = None

    def covers(self, identity: str) -> bool:
        return self.match is None or self.match.matches(identity)


@dataclass(frozen=True)
class HookManifest:
    name: str
    subscriptions: tuple[Subscription, ...]
    command: str  # a bare name, or `./path` inside the folder
    args: tuple[str, ...]
    timeout_ms: int

    @property
    def events(self) -> frozenset[str]:
        return frozenset(s.event for s in self.subscriptions)

    def for_event(self, event: str) -> tuple[Subscription, ...]:
        return tuple(s for s in self.subscriptions if s.event == event)


def parse_manifest(
    data: bytes, *, folder_name: str, files: Mapping[str, SnapshotFile], file: str
) -> HookManifest:
    """Validate `hook.json` bytes; `files` is the folder snapshot (for `./command`)."""
    raw = _strict_json(data, file)
    try:
        doc = msgspec.convert(raw, _ManifestJson, strict=True)
    except msgspec.ValidationError as exc:
        raise _from_msgspec(exc, file) from None
    _check_protocol(doc.protocol_version, file)
    _check_name(doc.name, folder_name, file)
    subscriptions = _parse_events(doc.events, file)
    _check_command(doc.command, files, file)
    args = _check_args(doc.args, file)
    _check_timeout(doc.timeout_ms, file)
    return HookManifest(doc.name, subscriptions, doc.command, args, doc.timeout_ms)


def _error(detail: str, file: str, *path: str | int) -> ConfigError:
    return ConfigError(detail, file=file, path=json_path(list(path)))


def _strict_json(data: bytes, file: str) -> Any:
    """Strict JSON (jsonstrict: UTF-8, no NaN, no duplicate keys, bounded depth); the root
    must be an object."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8", file=file) from None
    value = loads(text, file=file)
    if not isinstance(value, dict):
        raise ConfigError("must be a JSON object", file=file)
    return value


_MSGSPEC_AT = re.compile(r"^(?P<detail>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<key>[^`]*)`$")
_MISSING = re.compile(r"^Object missing required field `(?P<key>[^`]*)`$")


def _from_msgspec(exc: msgspec.ValidationError, file: str) -> ConfigError:
    """`Expected `int`, got `str` - at `$.events[0].name`` → path `events[0].name`."""
    found = _MSGSPEC_AT.match(str(exc))
    detail = found.group("detail") if found else str(exc)
    path = (found.group("path") or "").lstrip(".") if found else ""
    if unknown := _UNKNOWN.match(detail):
        key = unknown.group("key")
        return ConfigError("unknown key", file=file, path=f"{path}.{key}" if path else key)
    if missing := _MISSING.match(detail):
        detail = f'missing key "{missing.group("key")}"'
    return ConfigError(detail, file=file, path=path)


def _check_protocol(version: int, file: str) -> None:
    if version != PROTOCOL_VERSION:
        raise _error(f"must be {PROTOCOL_VERSION}", file, "protocol_version")


def _check_name(name: str, folder_name: str, file: str) -> None:
    if not NAME_RE.fullmatch(name):
        raise _error("must match ^[a-z][a-z0-9_-]*$", file, "name")
    if len(name.encode()) > MAX_NAME_BYTES:
        raise _error(f"at most {MAX_NAME_BYTES} bytes", file, "name")
    if name != folder_name:
        raise _error(f'must equal the folder name "{folder_name}"', file, "name")


def _parse_events(events: list[_SubscriptionJson], file: str) -> tuple[Subscription, ...]:
    if not 1 <= len(events) <= MAX_EVENTS:
        raise _error(f"must hold 1 to {MAX_EVENTS} subscriptions (got {len(events)})", file, "events")
    return tuple(_parse_subscription(i, sub, file) for i, sub in enumerate(events))


def _parse_subscription(index: int, sub: _SubscriptionJson, file: str) -> Subscription:
    if sub.name not in EVENTS:
        raise _error(f"unknown event; one of {', '.join(EVENTS)}", file, "events", index, "name")
    tool_event = sub.name in TOOL_EVENTS
    match = None
    if sub.match is not msgspec.UNSET:
        if not tool_event:
            raise _error("match is allowed only on tool events", file, "events", index, "match")
        try:
            match = compile_glob(sub.match)
        except ValueError as exc:
            raise _error(str(exc), file, "events", index, "match") from None
    when = None
    if sub.when is not msgspec.UNSET:
        if not tool_event:
            raise _error("when is allowed only on tool events", file, "events", index, "when")
        when = parse_predicate(sub.when, where=["events", index, "when"], file=file)
    return Subscription(index, sub.name, match, when)


def inside_path(value: str) -> str | None:
    """`./a/b` → `a/b` (normalised); None if it leaves the folder or names the folder itself."""
    rel = posixpath.normpath(value[2:]) if value.startswith("./") else None
    if rel is None or rel in (".", "") or rel == ".." or rel.startswith("../") or rel.startswith("/"):
        return None
    return rel


def _check_command(command: str, files: Mapping[str, SnapshotFile], file: str) -> None:
    if not command:
        raise _error("must not be empty", file, "command")
    if command.startswith("./"):
        rel = inside_path(command)
        if rel is None:
            raise _error("must stay inside the hook folder", file, "command")
        entry = files.get(rel)
        if entry is None:
            raise _error(f"no file {command} in the hook folder", file, "command")
        if not entry.mode & 0o111:
            raise _error(f"{command} is not executable (chmod +x)", file, "command")
    elif "/" in command:
        raise _error("must be a bare name on PATH or a ./path inside the hook folder", file, "command")
    if "\0" in command:
        raise _error("must not contain NUL", file, "command")


def _check_args(args: list[str], file: str) -> tuple[str, ...]:
    if len(args) > MAX_ARGS:
        raise _error(f"at most {MAX_ARGS} arguments (got {len(args)})", file, "args")
    for index, arg in enumerate(args):
        if "\0" in arg:
            raise _error("must not contain NUL", file, "args", index)
        if arg.startswith("./") and inside_path(arg) is None:
            raise _error("must stay inside the hook folder", file, "args", index)
    return tuple(args)


def _check_timeout(timeout_ms: int, file: str) -> None:
    if not 1 <= timeout_ms <= MAX_TIMEOUT_MS:
        raise _error(f"must be 1 to {MAX_TIMEOUT_MS}", file, "timeout_ms")
