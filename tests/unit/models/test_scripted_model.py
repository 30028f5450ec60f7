import asyncio
import json

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.models import ModelSpec, make_provider
from raw_tui.models.base import (Done, TextDelta, ToolCallRequest, assistant_message,
                                 tool_message, user_message)
from raw_tui.models.scripted import ScriptedModel, load_script, words
from raw_tui.models.scripted import script_from_list as load_list
from tests.servers.provider_checks import collect, kinds, text_of

HELLO = [user_message("hi")]


def write_script(tmp_path, lines, name="script.jsonl"):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# streaming ------------------------------------------------------------------------------

async def test_text_streams_word_by_word_and_concatenates_exactly():
    text = "  Hello,  world!\nSecond line\tends here. "
    model = ScriptedModel.from_list([{"text": text}])
    items = await collect(model, HELLO)
    deltas = [item.text for item in items if isinstance(item, TextDelta)]
    assert "".join(deltas) == text
    assert deltas == ["  Hello,  ", "world!\n", "Second ", "line\t", "ends ", "here. "]
    assert items[-1] == Done("end_turn")


def test_words_of_whitespace_only_and_empty_text():
    assert words("") == []
    assert words("   ") == ["   "]


async def test_tool_calls_follow_the_text_and_get_call_ids_counted_over_the_script():
    model = ScriptedModel.from_list([
        {"text": "Reading.", "tool_calls": [
            {"name": "read_file", "arguments": {"path": "a.txt"}},
            {"name": "bash", "arguments": {"command": "ls"}, "id": "mine"},
        ]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "b.txt"}}]},
    ])
    first = await collect(model, HELLO)
    assert kinds(first) == ["TextDelta", "ToolCallRequest", "ToolCallRequest", "Done"]
    assert first[1] == ToolCallRequest(id="call_1", name="read_file", arguments={"path": "a.txt"})
    assert first[2] == ToolCallRequest(id="mine", name="bash", arguments={"command": "ls"})
    assert first[-1] == Done("tool_use")
    second = await collect(model, HELLO)
    assert second == [ToolCallRequest(id="call_3", name="read_file", arguments={"path": "b.txt"}), Done("tool_use")]


async def test_an_exhausted_script_answers_empty_text_and_ends_the_turn():
    model = ScriptedModel.from_list([{"text": "one"}])
    assert text_of(await collect(model, HELLO)) == "one"
    assert model.exhausted
    assert await collect(model, HELLO) == [Done("end_turn")]
    assert await collect(model, HELLO) == [Done("end_turn")]


async def test_an_empty_line_object_is_an_empty_answer():
    model = ScriptedModel.from_list([{}, {"text": "after"}])
    assert await collect(model, HELLO) == [Done("end_turn")]
    assert text_of(await collect(model, HELLO)) == "after"


async def test_arguments_as_json_text_parse_or_stay_raw_when_malformed():
    model = ScriptedModel.from_list([{"tool_calls": [
        {"name": "t", "arguments": '{"n": 1}'},
        {"name": "t", "arguments": '{"n": 1'},
        {"name": "t", "arguments": "[1, 2]"},
    ]}])
    good, broken, not_object, _ = await collect(model, HELLO)
    assert good == ToolCallRequest(id="call_1", name="t", arguments={"n": 1})
    assert broken == ToolCallRequest(id="call_2", name="t", arguments={}, raw_arguments='{"n": 1')
    assert not_object.arguments == {} and not_object.raw_arguments == "[1, 2]"


async def test_position_is_kept_across_turns_and_can_be_set_for_a_resume():
    lines = [{"text": "zero"}, {"text": "one", "tool_calls": [{"name": "t", "arguments": {}}]}, {"text": "two"}]
    model = ScriptedModel.from_list(lines)
    assert model.position == 0
    await collect(model, HELLO)
    assert model.position == 1

    resumed = ScriptedModel.from_list(lines)
    resumed.position = 1
    items = await collect(resumed, HELLO)
    assert text_of(items) == "one"
    assert items[1].id == "call_1"  # same id as in the first run: ids do not depend on position
    assert resumed.position == 2
    with pytest.raises(ValueError):
        resumed.position = 4
    resumed.position = 3
    assert resumed.exhausted


async def test_a_replayed_call_is_not_changed_by_what_the_consumer_did_with_it():
    model = ScriptedModel.from_list([{"tool_calls": [{"name": "t", "arguments": {"k": [1]}}]}])
    first = await collect(model, HELLO)
    first[0].arguments["k"].append(2)
    model.position = 0
    again = await collect(model, HELLO)
    assert again[0].arguments == {"k": [1]}


async def test_cancel_mid_stream_stops_it_and_the_line_stays_consumed():
    model = ScriptedModel.from_list([{"text": "a b c d e f g h"}, {"text": "next"}], delay_ms=50)
    seen = []

    async def consume():
        async for item in model.stream(HELLO, []):
            seen.append(item)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.12)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 1 <= len(seen) < 8 and not any(isinstance(item, Done) for item in seen)
    model.delay_ms = 0
    assert text_of(await collect(model, HELLO)) == "next"


# loading --------------------------------------------------------------------------------

def test_load_script_reads_jsonl_and_skips_blank_lines(tmp_path):
    path = write_script(tmp_path, [
        json.dumps({"text": "hello"}),
        "",
        "   ",
        json.dumps({"tool_calls": [{"name": "t", "arguments": {"a": 1}}]}),
    ])
    steps = load_script(path)
    assert [step.text for step in steps] == ["hello", ""]
    assert steps[1].tool_calls == (ToolCallRequest(id="call_1", name="t", arguments={"a": 1}),)


@pytest.mark.parametrize(
    "bad_line, expected",
    [
        ('{"text": "oops"', ":3: not valid JSON: Expecting ',' delimiter at column 16"),
        ("not json", ":3: not valid JSON: Expecting value at column 1"),
        ('{"text": "a", "text": "b"}', ":3: duplicate key 'text'"),
        ('{"text": "a", "bogus": 1}', ":3: Object contains unknown field `bogus`"),
        ('{"tool_calls": [{"name": "t", "arguments": {}, "extra": 1}]}',
         ":3: tool_calls[0]: Object contains unknown field `extra`"),
        ('{"tool_calls": [{"arguments": {}}]}', ":3: tool_calls[0]: Object missing required field `name`"),
        ('{"tool_calls": [{"name": "t"}]}', ":3: tool_calls[0]: Object missing required field `arguments`"),
        ('{"tool_calls": [{"name": "t", "arguments": 5}]}',
         ":3: tool_calls[0].arguments: arguments must be an object (or a string of JSON text)"),
        ('{"text": 5}', ":3: text: Expected `str`, got `int`"),
        ("[1]", ":3: a script line must be a JSON object"),
    ],
)
def test_a_bad_line_is_a_config_error_naming_file_and_line(tmp_path, bad_line, expected):
    path = write_script(tmp_path, ['{"text": "fine"}', '{"text": "fine too"}', bad_line])
    with pytest.raises(ConfigError) as info:
        load_script(path)
    message = str(info.value)
    assert message == f"{path}{expected}", message
    assert "\n" not in message


def test_a_missing_script_file_is_a_config_error(tmp_path):
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(ConfigError) as info:
        load_script(missing)
    assert str(info.value) == f"{missing}: cannot read script: No such file or directory"


def test_an_inline_script_is_checked_the_same_way():
    with pytest.raises(ConfigError) as info:
        ScriptedModel.from_list([{"text": "ok"}, {"txt": "typo"}])
    assert str(info.value) == "<script>:2: Object contains unknown field `txt`"


# factory --------------------------------------------------------------------------------

async def test_make_provider_builds_a_scripted_model_from_a_path(tmp_path):
    path = write_script(tmp_path, [json.dumps({"text": "from file"})])
    model = make_provider(ModelSpec(method="scripted", script=str(path)))
    assert isinstance(model, ScriptedModel)
    assert text_of(await collect(model, HELLO)) == "from file"


def test_make_provider_reports_a_bad_script_at_load_time(tmp_path):
    path = write_script(tmp_path, ["{broken"])
    with pytest.raises(ConfigError) as info:
        make_provider(ModelSpec(method="scripted", script=path))
    assert str(info.value).startswith(f"{path}:1: not valid JSON")


def test_make_provider_needs_a_script():
    with pytest.raises(ConfigError) as info:
        make_provider(ModelSpec(method="scripted", alias="demo"))
    assert str(info.value) == "models.demo.script: script is required for method scripted"


async def test_when_done_replays_the_script_on_any_prompt_after_its_end():
    model = make_provider(ModelSpec(method="scripted", script=[{"text": "one"}, {"text": "two"}],
                                    when_done="From the top."))
    assert text_of(await collect(model, HELLO)) == "one"
    assert text_of(await collect(model, HELLO)) == "two"
    assert await collect(model, []) == [Done("end_turn")]  # answering tool results: silent
    for prompt in ("thanks", "what else?"):
        assert text_of(await collect(model, [user_message(prompt)])) == "From the top.\n\none"
        assert text_of(await collect(model, HELLO)) == "two"


async def test_answer_lines_match_the_prompt_anywhere_and_keep_the_place():
    model = ScriptedModel.from_list([
        {"text": "one"},
        {"prompt": "(?i)explain", "text": "An explanation."},
        {"text": "two"}])
    assert text_of(await collect(model, HELLO)) == "one"
    notes = "The user ran something.\n\nPlease EXPLAIN it"
    assert text_of(await collect(model, [user_message(notes)])) == "An explanation."
    assert text_of(await collect(model, HELLO)) == "two"
    assert model.exhausted


async def test_after_error_is_said_when_a_result_of_the_last_calls_failed():
    lines = [{"tool_calls": [{"name": "write_file", "arguments": {}}]},
             {"text": "written", "after_error": {"text": "not written", "tool_calls": [
                 {"name": "todo", "arguments": {"todos": []}}]}}]
    call = ToolCallRequest(id="call_1", name="write_file")
    asked = [user_message("go"), assistant_message("", [call])]
    for failed, said in ((False, "written"), (True, "not written")):
        model = ScriptedModel.from_list(lines)
        await collect(model, [user_message("go")])
        items = await collect(model, asked + [tool_message("call_1", "x", is_error=failed)])
        assert text_of(items) == said
        assert [i.name for i in items if isinstance(i, ToolCallRequest)] == \
            (["todo"] if failed else [])
    # a prompt after the failed calls (a headless run continued) reads them too
    model = ScriptedModel.from_list(lines)
    await collect(model, [user_message("go")])
    later = asked + [tool_message("call_1", "x", is_error=True), user_message("go on")]
    assert text_of(await collect(model, later)) == "not written"


def test_a_prompt_that_re2_cannot_compile_names_its_line(tmp_path):
    path = write_script(tmp_path, ['{"text": "a"}', '{"prompt": "(?<=x)y", "text": "b"}'])
    with pytest.raises(ConfigError) as info:
        load_script(path)
    assert str(info.value).startswith(f"{path}:2: prompt: not a valid RE2 pattern")


def test_replay_stands_where_the_requests_left_the_script():
    lines = [{"text": "one"}, {"prompt": "explain", "text": "E"}, {"text": "two"}]
    model = ScriptedModel(load_list(lines), when_done="again")
    model.replay(["hi", "explain it", "more"])
    assert model.exhausted
    model.replay(["hi", "more", "once more"])  # the end, then a replay from the top
    assert model.position == 1