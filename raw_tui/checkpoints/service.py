"""One undo as every surface runs it (the CLI, the session command, ACP): the turn named by
its number, the report `{files, unobserved_turns}`, the `undo` event.

Turn numbers count the session's prompts from 1 in history order (each `> ` line of
`sessions show --output text`). Calls whose changes raw-tui could not observe make a turn
"not undoable" in the report: bash outside the overlay (the ledger's `unobserved`), MCP
tools, hooks that ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..protocol import bus as ev
from . import undo
from .store import Store

EXIT_DONE, EXIT_NOTHING, EXIT_CONFLICTS = 0, 1, 3


@dataclass
class Outcome:
    code: int
    files: list[dict[str, str]] = field(default_factory=list)
    unobserved_turns: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # "not undoable: turn 3 ran ..."
    message: str | None = None  # why there is nothing to undo
    turn: int | None = None
    turn_id: str | None = None
    diffs: list[dict[str, str]] = field(default_factory=list)  # a dry run's preview

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"files": self.files, "unobserved_turns": self.unobserved_turns}
        if self.turn is not None:
            out["turn"] = self.turn
        if self.notes:
            out["notes"] = self.notes
        if self.message:
            out["message"] = self.message
        return out


def prompt_turns(history: list[ev.Event]) -> list[str]:
    return list(dict.fromkeys(e.turn_id for e in history if isinstance(e, ev.UserMessage)
                              and isinstance(e.turn_id, str)))


def unobserved(store: Store, history: list[ev.Event], turns: list[str]) -> dict[str, list[str]]:
    """turn id -> what it ran that raw-tui could not observe."""
    wanted = set(turns)
    counts: dict[str, dict[str, int]] = {}

    def add(turn: Any, what: str, n: int = 1) -> None:
        if turn in wanted:
            counts.setdefault(turn, {}).setdefault(what, 0)
            counts[turn][what] += n

    for u in store.unobserved:
        add(u.turn, "command", u.count)
    for e in history:
        if isinstance(e, ev.ToolCall) and e.identity.startswith("mcp/"):
            add(e.turn_id, "MCP call")
        elif isinstance(e, ev.HookEvent):
            add(e.turn_id, "hook")
    out: dict[str, list[str]] = {}
    for turn, kinds in counts.items():
        words = []
        for what, n in kinds.items():
            plural = "s" if n > 1 else ""
            if what == "command":
                words.append(f"{n} command{plural} outside the overlay")
            else:
                words.append(f"{n} {what}{plural}")
        out[turn] = words
    return out


def run(store: Store, history: list[ev.Event], *, turn: int | None = None,
        dry_run: bool = False, overwrite: bool = False, with_diffs: bool = False,
        publish: Callable[[ev.Event], None] | None = None) -> Outcome:
    store.settle_all()  # content still raw (deferred, or a killed process's): hashed now
    turns = prompt_turns(history)
    if turn is None:
        changed = set(undo.turns_with_changes(store))
        latest = [t for t in turns if t in changed]
        if not latest:
            return Outcome(EXIT_NOTHING, message="nothing to undo: no turn changed files")
        index = turns.index(latest[-1])
    else:
        if not 1 <= turn <= len(turns):
            return Outcome(EXIT_NOTHING, message=f"no turn {turn} (the session has "
                           f"{len(turns)} turn{'s' if len(turns) != 1 else ''})")
        index = turn - 1
    tail = turns[index:]
    number = {t: i + 1 for i, t in enumerate(turns)}
    outcome = Outcome(EXIT_DONE, turn=index + 1, turn_id=tail[0])
    hidden = unobserved(store, history, tail)
    outcome.unobserved_turns = sorted(number[t] for t in hidden)
    outcome.notes = [f"not undoable: turn {number[t]} ran {', '.join(w)}"
                     for t, w in sorted(hidden.items(), key=lambda kv: number[kv[0]])]
    dropped = [c for c in store.checkpoints if c.dropped and c.turn in set(tail)]
    p = undo.run(store, tail, dry_run=True, overwrite=overwrite)
    if not p.checkpoints:
        outcome.code = EXIT_NOTHING
        outcome.message = (f"nothing to undo: the checkpoints of turn {index + 1} were dropped "
                           "(ui.checkpoint_bytes)" if dropped else
                           f"nothing to undo: turn {index + 1} and later changed no files"
                           " (or were undone)")
        return outcome
    if with_diffs:
        outcome.diffs = diffs(store, p)
    if not dry_run:
        p = undo.run(store, tail, overwrite=overwrite)
        if publish is not None:
            publish(ev.TurnUndo(files=[ev.UndoneFile(**f) for f in p.report()],
                            turn_id=tail[0]))
    outcome.files = p.report()
    if p.conflicts:
        outcome.code = EXIT_CONFLICTS
    return outcome


def diffs(store: Store, p: undo.UndoPlan) -> list[dict[str, str]]:
    """Each path's change as a unified diff (text files), from now to what undo writes."""
    import difflib

    out = []
    for e in p.entries:
        text = ""
        if e.action != "conflict" and e.write:
            before = _text(e.path, e.current, store, now=True)
            after = _text(e.path, e.target, store, now=False)
            if before is not None and after is not None:
                text = "".join(difflib.unified_diff(
                    before.splitlines(keepends=True), after.splitlines(keepends=True),
                    fromfile=e.path, tofile=e.path))
            else:
                text = f"{e.current['kind']} -> {e.target['kind']}\n"
        out.append({"path": e.path, "action": e.action, "diff": text})
    return out


def _text(path: str, s: dict, store: Store, *, now: bool) -> str | None:
    if s["kind"] == "absent":
        return ""
    if s["kind"] != "file" or s.get("size", 0) > 1 << 20:
        return None
    try:
        if now:
            with open(path, "rb") as f:
                data = f.read()
        else:
            data = store.content(s)
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
