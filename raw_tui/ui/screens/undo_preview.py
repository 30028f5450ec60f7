"""The undo preview (docs/checkpoints.md, "Undo"), shown before any file is put back, as an
approval is: the files the undo restores or removes with each one's diff, the conflicts
(changed since raw-tui wrote them: left as they are unless `o` overwrites them), and the
turns whose changes raw-tui could not observe ("not undoable: turn 3 ran 2 commands outside
the overlay"). `Enter` restores, `Esc` changes nothing.

Opened from a retry or an edit (`rewind`), it asks whether the files go back with the
conversation: `Enter` restores them and then retries (or resends), `k` keeps the files as
they are and only retries, `Esc` does neither."""

from __future__ import annotations

from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..preview import relative_to, visible
from ..styles import stylesheet
from ..textual_private import ExactScreen

RESTORE, OVERWRITE, KEEP = "restore", "overwrite", "keep"
REWIND_VERB = {"retry": "retry", "edit": "resend"}  # what the conversation side does
ACTION_WORD = {"restored": "restore", "removed": "remove"}


class UndoPreview(ExactScreen, ModalScreen[str | None]):
    CSS_PATH = stylesheet("undo_preview")
    HELP = ("What an undo would put back. **Enter** restores these files, **o** also "
            "overwrites the conflicts, **Esc** changes nothing. From a retry or an edit, "
            "**k** keeps the files as they are.")
    BINDINGS = [
        Binding("enter", "choose('restore')", "Restore", id="undo.confirm"),
        Binding("o", "choose('overwrite')", "Overwrite conflicts too", id="undo.overwrite"),
        Binding("k", "choose('keep')", "Keep the files", id="undo.keep"),
        Binding("escape", "choose(None)", "Cancel", id="undo.cancel"),
    ]

    def __init__(self, report: dict[str, Any], *, prompt: str = "",
                 rewind: str | None = None) -> None:
        """`report`: a dry run's (the session command `Undo`); `prompt`: the undone turn's
        prompt, as the chat shows it; `rewind`: "retry" or "edit" when the undo goes with
        one."""
        super().__init__()
        self.report = report
        self.prompt = prompt
        self.rewind = rewind
        files = [f for f in report.get("files") or () if isinstance(f, dict)]
        self.files = [f for f in files if f.get("action") != "conflict"]
        self.conflicts = [f for f in files if f.get("action") == "conflict"]

    def compose(self) -> ComposeResult:
        turn = self.report.get("turn")
        name = f"turn {turn}" if turn is not None else "the latest turn"
        with Vertical(id="undo-dialog"):
            if self.rewind:
                title = Text(f"{REWIND_VERB[self.rewind].capitalize()} {name}: restore its "
                             "files too?", style="bold")
            else:
                title = Text(f"Undo the changes of {name} and later?", style="bold")
            yield Static(title, id="undo-title")
            what = f"the files as they were before {name}"
            if self.prompt:
                what += f" (› {self.prompt.splitlines()[0][:60]})"
            yield Static(Text(what, style="dim"), id="undo-subtitle")
            with VerticalScroll(id="undo-body"):
                yield from self._sections()
            yield Static(self._keys(), id="undo-keys")

    def _sections(self) -> ComposeResult:
        shown = relative_to(self.app.info.cwd)
        notes = [n for n in self.report.get("notes") or () if isinstance(n, str)]
        if notes:
            yield Static(Text("Not undoable", style="bold underline"), classes="section-title")
            for note in notes:
                yield Static(Text(f"⚠ {visible(note)} (changes raw-tui did not see stay as "
                                  "they are)", style="bold yellow"), classes="undo-unobserved")
        yield Static(Text("Restores", style="bold underline"), classes="section-title")
        for f in self.files:
            action = ACTION_WORD.get(str(f.get("action")), str(f.get("action")))
            line = Text(f"{action:<9}", style="bold green" if action == "restore" else "bold red")
            line.append(visible(shown(str(f.get("path", "")))))
            if not f.get("diff") and "diff" in f:
                line.append("  (already as it was)", style="dim")
            yield Static(line, classes="undo-file")
        if not self.files:
            yield Static(Text("(nothing but the conflicts below)", style="dim"))
        if self.conflicts:
            yield Static(Text("Conflicts: changed since raw-tui wrote them, left as they are "
                              "(o overwrites them)", style="bold underline"),
                         classes="section-title")
            for f in self.conflicts:
                line = Text(f"{'conflict':<9}", style="bold magenta")
                line.append(visible(shown(str(f.get("path", "")))))
                yield Static(line, classes="undo-conflict")
        diff = "".join(visible(str(f.get("diff") or "")) for f in self.files)
        if diff.strip():
            yield Static(Text("Diff (now → after the undo)", style="bold underline"),
                         classes="section-title")
            yield Static(Syntax(diff, "diff", word_wrap=True, background_color="default"),
                         id="undo-diff")

    def _keys(self) -> Text:
        verb = REWIND_VERB.get(self.rewind or "")
        keys = Text("Enter", style="bold green")
        keys.append(f" {verb} and restore files   " if verb else " restore these files   ")
        if verb:
            keys.append("k", style="bold")
            keys.append(f" {verb}, keep files   ")
        if self.conflicts:
            keys.append("o", style="bold magenta")
            keys.append(" overwrite conflicts too   ")
        keys.append("Esc", style="bold red")
        keys.append(" cancel")
        return keys

    def on_mount(self) -> None:
        self.query_one("#undo-body").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters:
            if parameters[0] == KEEP and not self.rewind:
                return False
            if parameters[0] == OVERWRITE and not self.conflicts:
                return False
        return True

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)
