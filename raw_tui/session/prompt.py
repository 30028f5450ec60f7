"""The default system prompt: short, because every token is paid on every request."""

DEFAULT_SYSTEM_PROMPT = "You are a coding agent. Use the tools; be brief."


def system_prompt(agent, cwd: str) -> str:
    if agent.system_prompt is not None:
        return agent.system_prompt
    return DEFAULT_SYSTEM_PROMPT
