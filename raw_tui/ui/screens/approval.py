"""The approval modal: the tool and its identity, the rule that asked, the intended effects
apart from the raw arguments (operation, absolute path, a warning when the path passes
through a symbolic link), the preview the engine computed (each file's diff or a note), then
the arguments as highlighted JSON. `a` approves this one call; `d` or Esc denies. Paths
under the session's working directory read relative to it; `p` shows them absolute."""

from __future__ import annotations

from typing import Callable

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...protocol.bus import ApprovalRequest
from ..neutral import json_text
from ..preview import effect_lines, preview_files, preview_text, relative_to, visible
from ..styles import stylesheet
from ..textual_private import ExactScreen


class ApprovalScreen(ExactScreen, ModalScreen[bool]):
    CSS_PATH = stylesheet("approval")
    HELP = "A tool call waits for your approval. **a** approves this call, **d** or **Esc** denies."
    BINDINGS = [
        Binding("a", "answer(True)", "Approve", id="approval.allow"),
        Binding("d,escape", "answer(False)", "Deny", id="approval.deny"),
        Binding("p", "toggle_paths", "Full paths", id="approval.paths"),
    ]

    def __init__(self, request: ApprovalRequest, *, waiting: int = 0) -> None:
        super().__init__()
        self.request = request
        self.waiting = waiting
        self.scrolls = False  # the body is taller than the dialog: say how to see the rest
        self.absolute = False  # `p`: paths as they are, not relative to the working directory
        self.shortened = False  # some path reads relative (the keys line offers `p`)

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical(id="approval-dialog"):
            title = Text("Approve ", style="bold")
            title.append(r.name, style="bold yellow")
            title.append("?")
            yield Static(title, id="approval-title")
            who = Text(r.identity, style="dim")
            who.append(f" · asked by tools.rules[{r.rule}]" if r.rule is not None
                       else " · asked by a rule", style="dim")
            yield Static(who, id="approval-identity")
            with VerticalScroll(id="approval-body"):
                yield from self._sections()
            yield Static(self._keys(), id="approval-keys")

    def shown(self) -> Callable[[str], str]:
        """How a path reads now: relative to the session's working directory, or (`p`) as
        it is."""
        cwd = self.app.info.cwd
        return str if self.absolute or not cwd else relative_to(cwd)

    def _sections(self) -> ComposeResult:
        r = self.request
        effects, preview, observed = r.effects, r.preview, r.observed
        shown = self.shown()
        relative = relative_to(self.app.info.cwd)
        paths = [e.path for e in effect_lines(effects, preview)] + [
            f.path for f in preview_files(preview)]
        self.shortened = any(relative(path) != path for path in paths)
        yield Static(Text("Intended effects", style="bold underline"), classes="section-title")
        lines = effect_lines(effects, preview)
        if lines:
            for effect in lines:
                line = Text(f"{effect.operation:<18}", style="bold yellow")
                line.append(shown(effect.path))
                yield Static(line, classes="effect")
                for link in effect.symlinks:
                    yield Static(Text(f"  ⚠ passes through a symbolic link: {link}",
                                      style="bold red"), classes="effect-warning")
        elif effects is not None:
            yield Static(Syntax(json_text(effects, indent=2), "json",
                                word_wrap=True, background_color="default"))
        elif observed is None:
            yield Static(Text("(this tool declares no effects)", style="dim"))
        if observed is not None or r.sandbox or r.reason:
            yield from observed_sections(r)
        diff = preview_text(preview, shown)
        if diff:
            title = "Observed in the sandbox (not applied)" if observed is not None \
                else "Preview (not written)"
            yield Static(Text(title, style="bold underline"), classes="section-title")
            yield Static(Syntax(diff, "diff", word_wrap=True, background_color="default"),
                         id="approval-diff")
        yield Static(Text("Arguments", style="bold underline"), classes="section-title")
        yield Static(Syntax(json_text(r.arguments, indent=2), "json",
                            word_wrap=True, background_color="default"), id="approval-args")

    def _keys(self) -> Text:
        keys = Text("a", style="bold green")
        keys.append(" approve this call   ")
        keys.append("d/Esc", style="bold red")
        keys.append(" deny")
        if self.waiting:
            keys.append(f"   · {self.waiting} more waiting", style="bold magenta")
        if self.scrolls:
            keys.append("   ↑↓ scroll", style="dim")
        paths = " relative paths" if self.absolute else " full paths"
        width = next((w.content_size.width for w in self.query("#approval-keys")), 0)
        if self.shortened and (not width or len(keys.plain) + 4 + len(paths) <= width):
            keys.append("   ")  # last, and only whole: on a narrow screen it is left out
            keys.append("p", style="bold")
            keys.append(paths)
        return keys

    def set_waiting(self, waiting: int) -> None:
        self.waiting = waiting
        for keys in self.query("#approval-keys"):
            keys.update(self._keys())

    def on_mount(self) -> None:
        self.query_one("#approval-keys", Static).update(self._keys())
        self.query_one("#approval-body").focus()
        self.call_after_refresh(self.check_scrolls)

    def on_resize(self) -> None:
        self.call_after_refresh(self.check_scrolls)

    def check_scrolls(self) -> None:
        self.scrolls = self.query_one("#approval-body").max_scroll_y > 0
        self.set_waiting(self.waiting)  # laid out: what fits on the keys line is known

    async def action_toggle_paths(self) -> None:
        """`p`: the paths absolute, or relative again (the body is drawn anew)."""
        if not self.shortened:
            return
        self.absolute = not self.absolute
        body = self.query_one("#approval-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(list(self._sections()))
        self.set_waiting(self.waiting)

    def action_answer(self, allow: bool) -> None:
        self.dismiss(allow)


def observed_sections(r: ApprovalRequest) -> ComposeResult:
    """A sandboxed bash call (docs/sandbox.md): why it asks, what its dry run changed in the
    layer (the files; their diff follows), what was thrown away, its output, the network;
    or, plainly, that it was not previewed."""
    if r.reason == "protected_path":
        yield Static(Text("⚠ asks because it touches raw-tui's own files (the config, its "
                          "tools/ or hooks/)", style="bold red"), classes="effect-warning")
    status, observed = r.sandbox, r.observed
    if observed is None:
        if status:
            style = "bold red" if status.startswith("sandbox off") else "dim"
            yield Static(Text(f"{status} · not previewed: approving runs the command as "
                              "shown", style=style), id="approval-sandbox")
        return
    if not observed.previewed:
        yield Static(Text("Not previewed: the dry run failed in the sandbox's layer (output "
                          "below). Approving runs the command for real, in mode workspace.",
                          style="bold red"), id="approval-not-previewed")
    net = "on" if observed.network else "off"
    yield Static(Text(f"dry run · network {net} · {len(observed.files)} change"
                      f"{'s' if len(observed.files) != 1 else ''} · {observed.bytes} bytes",
                      style="dim"), id="approval-sandbox")
    for f in observed.files:
        line = Text(f"{f.operation + ' ' + f.kind:<18}", style="bold yellow")
        line.append(visible(f.path))
        yield Static(line, classes="effect")
    if not observed.files:
        yield Static(Text("(no change to the workspace)", style="dim"), classes="effect")
    if observed.discarded:
        yield Static(Text("Discarded (HOME, /tmp): " + ", ".join(
            visible(p) for p in observed.discarded[:20]), style="dim"), classes="effect")
    if observed.output:
        yield Static(Text("Output of the dry run", style="bold underline"),
                     classes="section-title")
        yield Static(Text(visible(observed.output)), id="approval-output")
