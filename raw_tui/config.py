"""raw.json (docs/configuration.md): find it, parse it strictly, resolve every id it names.

Loading checks the whole configuration — tools, rules and their bindings to tool schemas,
hook manifests — and never runs a hook or a tool. Every error is a `ConfigError` naming the
file and the JSON path; commands exit 2 on it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from .protocol.errors import ConfigError, json_path
from .jsonstrict import convert, load_file, read_bounded
from .paths import config_home
from .protocol.redact import Redactor
from .tools.sandbox.env import register_key_names
from .tools.sandbox.settings import Resolved, SandboxConfig

if TYPE_CHECKING:
    from .hooks.load import HookSet
    from .policy.rules import RuleSet
    from .tools.ports import Tool
    from .tools.registry import ExposedTools

DEMO_DIR = Path(__file__).parent / "demo"
MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_SYSTEM_PROMPT_BYTES = 1024 * 1024  # system_prompt_file


class _Strict(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    pass


class ModelConfig(_Strict):
    """A `models.<alias>` entry. Its repr never shows `api_key`."""

    method: Literal["openai-chat-completions", "anthropic-messages", "scripted"]
    model_id: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key: str | None = None
    provider: str | None = None
    context_window_tokens: int | None = None
    script: str | None = None
    when_done: str | None = None  # scripted: the answer once the script has run out
    request_timeout_ms: int = 120000
    max_tokens: int | None = None
    tool_choice: Literal["auto", "required", "none"] | None = None  # None: not sent

    def __repr__(self) -> str:
        fields = {f: getattr(self, f) for f in self.__struct_fields__
                  if getattr(self, f) is not None}
        if "api_key" in fields:
            fields["api_key"] = "(set)"
        return "ModelConfig(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


class ToolsConfig(_Strict):
    use: list[str]
    rules: list[Any] = msgspec.field(default_factory=list)


class HooksConfig(_Strict):
    use: list[str] = msgspec.field(default_factory=list)


class CompactConfig(_Strict):
    trigger_tokens: int | None = None  # compact before a request when the context passes this
    keep_turns: int = 2  # recent turns kept as they are


class AgentConfig(_Strict):
    model: str
    tools: ToolsConfig
    hooks: HooksConfig = msgspec.field(default_factory=HooksConfig)
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    max_steps: int = 25
    max_output_bytes: int = 8192
    compact: CompactConfig | None = None
    sandbox: SandboxConfig | None = None  # bash's sandbox (docs/sandbox.md)


class UiConfig(_Strict):
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    cursor_blink: bool = False
    animations: bool = False
    max_chat_items: int = 100  # chat rows kept on screen; older ones stay readable (Ctrl+O)
    max_fps: Annotated[float, msgspec.Meta(gt=0, le=240)] = 60  # frames a second at most (docs/ui.md)
    detach: bool = True  # run the session in a host that survives the terminal (docs/host.md)
    detached_idle_timeout_s: Annotated[float, msgspec.Meta(gt=0)] = 86400  # a host with no client and no turn ends then
    checkpoint_bytes: Annotated[int, msgspec.Meta(ge=0)] = 1 << 30  # per session (docs/checkpoints.md)


class RawConfig(_Strict):
    models: dict[str, Any]
    agents: dict[str, Any]
    default_agent: str | None = None
    mcp: dict[str, Any] = msgspec.field(default_factory=dict)
    ui: UiConfig = msgspec.field(default_factory=UiConfig)


@dataclass
class Agent:
    """One agent, resolved: its model, exposed tools, rules bound to them, hooks loaded."""

    name: str
    config: AgentConfig
    model_alias: str
    model: ModelConfig
    tools: ExposedTools
    rules: RuleSet
    hooks: HookSet
    system_prompt: str | None = None
    config_file: Path | None = None  # the config in use (None: the demo); the gate's own files
    config_dir: Path | None = None
    # found once by bash's sandbox step (tools/sandbox): the gate's own files, the sandbox here
    sandbox_gate: list[str] | None = field(default=None, init=False, repr=False, compare=False)
    sandbox_resolved: Resolved | None = field(default=None, init=False, repr=False,
                                              compare=False)

    def model_tools(self) -> list[Tool]:
        """Tools the model may see: exposed and not denied outright, in tools.use order, then
        MCP tools sorted by alias (a stable prompt prefix). An MCP tool whose server has not
        started (yet), or has ended, is not among them."""
        tools = [t for t in self.tools.tools if self.rules.unconditional(t.identity)[0] != "deny"
                 and t.available]
        plain = [t for t in tools if not t.is_mcp]
        mcp = sorted((t for t in tools if t.is_mcp), key=lambda t: t.name)
        return plain + mcp

    def mcp_servers(self) -> list[str]:
        """The MCP servers this agent's tools use, in tools.use order."""
        return list(dict.fromkeys(t.server for t in self.tools.tools
                                  if t.is_mcp))


@dataclass
class Config:
    file: Path | None  # None for the built-in demo
    dir: Path  # where agent/ tools and hooks resolve
    raw: RawConfig
    agents: dict[str, Agent] = field(default_factory=dict)
    models: dict[str, ModelConfig] = field(default_factory=dict)  # by alias, paths resolved
    is_demo: bool = False
    redactor: Redactor = field(default_factory=Redactor)  # every secret value configured
    mcp: Any = None  # mcp.config.McpServers
    # `raw-tui acp`: a selected mcp/<server>/<tool> may name a server an ACP client supplies
    # in session/new (not in mcp.servers); it stays pending until then (docs/acp.md)
    client_mcp: bool = False

    def mcp_warnings(self) -> list[str]:
        return list(self.mcp.warnings) if self.mcp is not None else []

    @property
    def label(self) -> str:
        return str(self.file) if self.file else "(built-in demo)"

    def agent(self, name: str | None = None) -> Agent:
        name = name or self.raw.default_agent or next(iter(self.agents), None)
        if name is None or name not in self.agents:
            known = ", ".join(self.agents) or "none"
            raise ConfigError(f"unknown agent {name!r} (agents: {known})", file=self.label,
                              path="default_agent")
        return self.agents[name]


def find_config(explicit: str | None, cwd: Path) -> tuple[Path | None, bool]:
    """(path, is_demo): --config, ./raw.json, $XDG_CONFIG_HOME/raw/config.json, the demo."""
    if explicit:
        path = Path(explicit)
        if not path.is_absolute():
            path = cwd / path
        if not path.is_file():
            raise ConfigError("no such config file", file=str(path))
        return path, False
    for path in (cwd / "raw.json", config_home() / "config.json"):
        if path.is_file():
            return path, False
    return DEMO_DIR / "raw.json", True


def load_config(explicit: str | None = None, *, cwd: Path | None = None,
                model_override: str | None = None, client_mcp: bool = False) -> Config:
    cwd = cwd or Path.cwd()
    path, is_demo = find_config(explicit, cwd)
    label = "(built-in demo)" if is_demo else str(path)
    data = load_file(path, max_bytes=MAX_CONFIG_BYTES, label=label)
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", file=label)
    raw = convert(data, RawConfig, where=[], file=label)
    config = Config(file=None if is_demo else path, dir=path.parent, raw=raw, is_demo=is_demo,
                    client_mcp=client_mcp)
    config.mcp = _mcp(raw.mcp, label)
    _register_mcp_secrets(config)
    models = {alias: _model(alias, value, label) for alias, value in raw.models.items()}
    register_key_names(model.api_key_env for model in models.values())
    for model in models.values():
        config.redactor.register(model.api_key)
        if model.api_key_env:
            config.redactor.register(os.environ.get(model.api_key_env))
    try:  # an error quoting a value (a bad regex, an alias) must not show a key either
        if is_demo:
            _prepare_demo(models)
        if model_override and model_override.startswith("scripted:"):
            script = str((cwd / model_override[len("scripted:"):]).resolve())
            models[model_override] = ModelConfig(method="scripted", script=script)
        elif model_override and model_override not in models:
            raise ConfigError(f"--model {model_override!r}: not a model alias of this config",
                              file=label, path="models")
        from .tools.registry import ToolCache

        config.models = {alias: _resolved(model, config) for alias, model in models.items()}
        cache = ToolCache()
        for name, value in raw.agents.items():
            config.agents[name] = _agent(name, value, models, config, cache, model_override)
        if raw.default_agent is not None and raw.default_agent not in config.agents:
            raise ConfigError(f"unknown agent {raw.default_agent!r}", file=label,
                              path="default_agent")
    except ConfigError as err:
        raise ConfigError(config.redactor.text(err.detail), file=err.file,
                          path=config.redactor.text(err.path)) from None
    return config


def demo_scratch() -> Path:
    """The demo writes only here."""
    from .paths import state_home

    return state_home() / "demo-scratch"


def _prepare_demo(models: dict[str, ModelConfig]) -> None:
    """Point the demo's script at its own scratch directory (`{{scratch}}` in demo.jsonl)."""
    scratch = demo_scratch()
    scratch.mkdir(parents=True, exist_ok=True)
    for alias, model in models.items():
        if model.method == "scripted" and model.script:
            text = (DEMO_DIR / model.script).read_text(encoding="utf-8")
            script = scratch / Path(model.script).name
            inside_json = json.dumps(str(scratch))[1:-1]  # the script is JSON lines
            script.write_text(text.replace("{{scratch}}", inside_json), encoding="utf-8")
            models[alias] = msgspec.structs.replace(model, script=str(script))


def _mcp(value: Any, file: str):
    """`mcp.servers`; the module is small and imports no SDK (an empty `mcp` skips it)."""
    if not value:
        return None
    from .mcp.config import parse_mcp

    return parse_mcp(value, file=file)


def _register_mcp_secrets(config: Config) -> None:
    """MCP `env`/`headers` values (expanded) and urls are credentials: the config's redactor
    takes them out of everything that leaves raw-tui."""
    if config.mcp is None:
        return
    from .mcp.config import secret_values

    for server in config.mcp.servers.values():
        for value in secret_values(server):
            config.redactor.register(value)


def _mcp_tool(identity: str, config: Config, at: str, file: str):
    """A selected `mcp/<server>/<tool>`: pending until its server starts (docs/mcp.md)."""
    from .mcp.config import split_identity
    from .mcp.tool import McpTool

    parts = split_identity(identity)
    if parts is None:
        raise ConfigError(f"invalid tool id {identity!r}: expected mcp/<server>/<tool>",
                          file=file, path=at)
    server, tool = parts
    if config.client_mcp and (config.mcp is None or server not in config.mcp.servers):
        return McpTool.pending_from(identity, [])  # a client's server: no declared panels
    if config.mcp is None or server not in config.mcp.servers:
        raise ConfigError(f"{identity}: no MCP server {server!r} in mcp.servers", file=file,
                          path=at)
    return McpTool.pending_from(identity, config.mcp.declarations[server].get(tool, []))


def _model(alias: str, value: Any, file: str) -> ModelConfig:
    where = ["models", alias]
    model = convert(value, ModelConfig, where=where, file=file)
    if model.method == "scripted" and not model.script:
        raise ConfigError("scripted models need a script", file=file,
                          path=json_path(where + ["script"]))
    if model.method != "scripted" and not model.model_id:
        raise ConfigError(f"{model.method} models need model_id", file=file,
                          path=json_path(where + ["model_id"]))
    if model.request_timeout_ms <= 0:
        raise ConfigError("must be positive", file=file,
                          path=json_path(where + ["request_timeout_ms"]))
    return model


def _resolved(model: ModelConfig, config: Config) -> ModelConfig:
    """A scripted model's script relative to the config's folder."""
    if model.method == "scripted" and model.script and not os.path.isabs(model.script):
        return msgspec.structs.replace(model, script=str(config.dir / model.script))
    return model


def _agent(name: str, value: Any, models: dict[str, ModelConfig], config: Config, cache,
           model_override: str | None) -> Agent:
    from .hooks.load import load_hooks
    from .policy import RuleSet
    from .tools.registry import ExposedTools, tool_folder

    file = config.label
    where: list[str | int] = ["agents", name]
    agent = convert(value, AgentConfig, where=where, file=file)
    if agent.model not in models:
        raise ConfigError(f"unknown model alias {agent.model!r}", file=file,
                          path=json_path(where + ["model"]))
    alias = model_override or agent.model
    if agent.max_steps < 1:
        raise ConfigError("must be at least 1", file=file, path=json_path(where + ["max_steps"]))
    if agent.max_output_bytes < 256:
        raise ConfigError("must be at least 256", file=file,
                          path=json_path(where + ["max_output_bytes"]))
    if agent.system_prompt is not None and agent.system_prompt_file is not None:
        raise ConfigError("system_prompt and system_prompt_file exclude each other", file=file,
                          path=json_path(where + ["system_prompt_file"]))
    tools = []
    seen_names: dict[str, str] = {}
    for i, identity in enumerate(agent.tools.use):
        at = json_path(where + ["tools", "use", i])
        if identity in (t.identity for t in tools):
            raise ConfigError(f"duplicate tool {identity!r}", file=file, path=at)
        if identity.startswith("mcp/"):
            spec = _mcp_tool(identity, config, at, file)
        else:
            folder = tool_folder(identity, config_dir=config.dir, where=at, file=file)
            spec = cache.get(identity, folder)
        if spec.name in seen_names:
            raise ConfigError(f"{identity} and {seen_names[spec.name]} have the same name "
                              f"{spec.name!r}", file=file, path=at)
        seen_names[spec.name] = identity
        tools.append(spec)
    exposed = ExposedTools(tools)
    if agent.sandbox is not None:
        from .tools.sandbox.settings import check as check_sandbox

        check_sandbox(agent.sandbox, where=where, file=file)
    rules = RuleSet.parse(agent.tools.rules, where=where + ["tools", "rules"], file=file)
    _check_observed_rules(rules, agent, where=where, file=file)
    # MCP tools are bound once their server lists them (their schema is unknown until then)
    loaded = {t.identity: t for t in tools if not t.is_mcp}
    mcp_tools = [t for t in tools if t.is_mcp]
    rules.bind(loaded, where=where + ["tools", "rules"], file=file)
    if mcp_tools:
        from .mcp.manager import check_effects_predicates

        check_effects_predicates(rules, mcp_tools, where=where + ["tools", "rules"], file=file)
    hooks = load_hooks(agent.hooks.use, config_dir=config.dir, tools=loaded,
                       where=where + ["hooks", "use"], file=file)
    system_prompt = agent.system_prompt
    if agent.system_prompt_file is not None:
        prompt_path = config.dir / agent.system_prompt_file
        at = json_path(where + ["system_prompt_file"])
        try:
            system_prompt = read_bounded(prompt_path, MAX_SYSTEM_PROMPT_BYTES).decode("utf-8")
        except ConfigError as err:  # a FIFO, /dev/zero, a huge file: read no further
            raise ConfigError(err.line(), file=file, path=at) from None
        except UnicodeDecodeError as err:
            raise ConfigError(f"cannot read {prompt_path}: {err}", file=file, path=at) from None
    return Agent(name=name, config=agent, model_alias=alias, model=config.models[alias],
                 tools=exposed,
                 rules=rules, hooks=hooks, system_prompt=system_prompt,
                 config_file=config.file, config_dir=config.dir)


def _check_observed_rules(rules, agent: AgentConfig, *, where: list, file: str) -> None:
    """A rule on what a command did needs the overlay mode (docs/sandbox.md)."""
    mode = agent.sandbox.mode if agent.sandbox is not None else None
    if mode in (None, "overlay"):
        return
    for rule in rules.rules:
        if rule.when is not None and rule.when.source == "observed":
            raise ConfigError(f'an "observed" condition needs sandbox.mode "overlay" (this '
                              f'agent\'s is "{mode}")', file=file,
                              path=json_path(where + ["tools", "rules", rule.index, "when",
                                                      "source"]))
