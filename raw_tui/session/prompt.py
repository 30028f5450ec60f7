"""The default system prompt: short, because every token is paid on every request (9 tokens
in o200k_base; with the three base tools the context starts under Raw's 175, see
tests/bench/test_bench_session.py). The model learns its tools from their definitions."""

DEFAULT_SYSTEM_PROMPT = "You are a coding agent. Be brief."


def system_prompt(agent, cwd: str) -> str:
    if agent.system_prompt is not None:
        return agent.system_prompt
    return DEFAULT_SYSTEM_PROMPT
