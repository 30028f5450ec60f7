"""Helpers and fixtures for the base built-in tools' tests: load the tools as the registry
does, call them as dispatch would. (Not a conftest.py: test modules import what they use.)"""

from __future__ import annotations

import os

import pytest

from raw_tui.contract.schema import first_error
from raw_tui.frozen import freeze
from raw_tui.tools.context import ToolContext
from raw_tui.tools.registry import BUILTIN_DIR, load_tool


def tool_spec(name: str):
    return load_tool(f"builtin/{name}", BUILTIN_DIR / name)


@pytest.fixture(scope="session")
def write_file():
    return tool_spec("write_file")


@pytest.fixture(scope="session")
def read_file():
    return tool_spec("read_file")


@pytest.fixture(scope="session")
def bash():
    return tool_spec("bash")


def make_ctx(cwd, **kw) -> ToolContext:
    return ToolContext(cwd=str(cwd), tool_call_id="call_1", **kw)


def validation_error(spec, args):
    """What dispatch's validation step would say: validate_args first, then the schema."""
    return spec.module().validate_args(args) or first_error(spec.validator, args)


def effects_of(spec, args, cwd):
    """describe_effects with frozen arguments, checked against effects_schema."""
    assert validation_error(spec, args) is None
    value = spec.module().describe_effects(freeze(args), make_ctx(cwd))
    assert first_error(spec.effects_validator, value) is None
    return value["files"]


def call(spec, args, cwd, **kw):
    """Validate, then run the (plain) handler with frozen arguments, as dispatch does."""
    assert validation_error(spec, args) is None, validation_error(spec, args)
    return spec.module().handler(freeze(args), make_ctx(cwd, **kw))


async def acall(spec, args, cwd, **kw):
    """Validate, then await the (async) handler with frozen arguments."""
    assert validation_error(spec, args) is None, validation_error(spec, args)
    return await spec.module().handler(freeze(args), make_ctx(cwd, **kw))


def listing(path) -> list[str]:
    return sorted(os.listdir(path))
