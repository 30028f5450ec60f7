"""Local protocol servers for model-provider tests: real HTTP on 127.0.0.1 speaking the
OpenAI Chat Completions and Anthropic Messages streaming wire formats.

    from tests.servers.fixtures import protocol_server      # pytest fixture
    from tests.servers import openai_wire, anthropic_wire   # replies to enqueue
"""
