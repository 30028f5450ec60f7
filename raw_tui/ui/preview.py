"""What the approval modal shows besides the raw arguments, drawn from the `preview` the
engine put on `approval_request` (the tool's own preview, the code its handler runs): each
intended effect with the symbolic links its path passes through, and each file's diff or
note. Plain Python (no textual). It never reads a file and never looks at a tool's name."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

import msgspec


ESCAPES = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f"}


@dataclass(frozen=True)
class EffectLine:
    operation: str
    path: str
    symlinks: tuple[str, ...]  # prefixes of `path` that are symbolic links (from the engine)


def preview_files(preview: Any) -> list[Any]:
    """The `FilePreview`s of an event's preview (none when it has no preview)."""
    if preview is None or preview is msgspec.UNSET:
        return []
    return list(getattr(preview, "files", None) or ())


def effect_lines(effects: Any, preview: Any = None) -> list[EffectLine]:
    """`{files: [{path, operation}]}` as lines, with the preview's symlink warnings; other
    effect shapes give no lines."""
    if not isinstance(effects, dict):
        return []
    links = {f.path: tuple(f.symlinks) for f in preview_files(preview)}
    out = []
    for entry in effects.get("files") or ():
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            path = entry["path"]
            out.append(EffectLine(str(entry.get("operation", "?")), path, links.get(path, ())))
    return out


def preview_text(preview: Any) -> str:
    """Every file's diff, then a `! PATH: NOTE` line for each file that has none."""
    lines: list[str] = []
    for item in preview_files(preview):
        if item.diff:
            lines.append(visible(item.diff))
    for item in preview_files(preview):
        if item.note:
            lines.append(visible(f"! {item.path}: {item.note}" if item.path else f"! {item.note}"))
    return "\n".join(lines)


def visible(text: str) -> str:
    """`text` with every line break other than `\\n` and every control character but `\\t`
    shown as an escape (`\\u2028`, `\\r`): a line of the diff is a line the tool counts.
    A CRLF line ending is shown as a plain line end."""
    out = []
    for char in text.replace("\r\n", "\n"):
        if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(char)
        else:
            out.append(ESCAPES.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100
                                             else f"\\u{ord(char):04x}"))
    return "".join(out)
