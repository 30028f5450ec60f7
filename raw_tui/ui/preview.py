"""What the approval modal shows besides the raw arguments, drawn from the `preview` the
engine put on `approval_request` (the tool's own preview, the code its handler runs): each
intended effect with the symbolic links its path passes through, and each file's diff or
note. Plain Python (no textual). It never reads a file and never looks at a tool's name."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Callable


ESCAPES = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f"}


@dataclass(frozen=True)
class EffectLine:
    operation: str
    path: str
    symlinks: tuple[str, ...]  # prefixes of `path` that are symbolic links (from the engine)


def preview_files(preview: Any) -> list[Any]:
    """The `FilePreview`s of an event's preview (none when it has no preview)."""
    if preview is None:
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


NO_CHANGE = "no change (the file already holds this content)"


def preview_text(preview: Any, shown: Callable[[str], str] = str) -> str:
    """Every file's diff, then a `! PATH: NOTE` line for each file that has none: the
    engine's note, or `no change` when the call leaves the file as it is (a diff with no
    line). `shown` is how a path reads (relative to the working directory, say): in the
    diff's `---`/`+++` lines and the notes."""
    lines: list[str] = []
    for item in preview_files(preview):
        if item.diff:
            lines.append(visible(diff_with_paths(item.diff, item.path, shown)))
    for item in preview_files(preview):
        note = item.note or ("" if item.diff else NO_CHANGE)
        if note:
            lines.append(visible(f"! {shown(item.path)}: {note}" if item.path else f"! {note}"))
    return "\n".join(lines)


def diff_with_paths(diff: str, path: str, shown: Callable[[str], str]) -> str:
    """`diff` with its `--- PATH` / `+++ PATH` header lines naming `path` as `shown` says."""
    if shown is str or not path:
        return diff
    lines = diff.split("\n")
    for index, line in enumerate(lines[:2]):
        if line[4:] == path and line[:4] in ("--- ", "+++ "):
            lines[index] = line[:4] + shown(path)
    return "\n".join(lines)


def relative_to(cwd: str) -> Callable[[str], str]:
    """How a path reads in the modal: relative when it is under `cwd`, else as it is."""
    base = cwd.rstrip("/") + "/"

    def shown(path: str) -> str:
        return path[len(base):] if cwd and path.startswith(base) and path != base else path

    return shown


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
