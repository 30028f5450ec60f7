"""Binding a predicate path to the schema of its source."""

import pytest

from raw_tui.policy import reaches_string, unreachable_reason
from raw_tui.policy.predicate import parse_path

WRITE_EFFECTS = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {"$ref": "#/$defs/file"},
        }
    },
    "required": ["files"],
    "$defs": {
        "file": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "operation": {"enum": ["write", "delete", "rename_source", "rename_destination"]},
            },
        }
    },
}


def reach(schema, path):
    return reaches_string(schema, parse_path(path))


def test_plain_properties():
    schema = {"type": "object", "properties": {"command": {"type": "string"}, "n": {"type": "integer"}}}
    assert reach(schema, "command")
    assert not reach(schema, "n")
    assert not reach(schema, "missing")
    assert not reach(schema, "command.deeper")


def test_ref_and_items():
    assert reach(WRITE_EFFECTS, "files[*].path")
    assert not reach(WRITE_EFFECTS, "files[*].operation")  # enum without type: string
    assert not reach(WRITE_EFFECTS, "files[*].nope")
    assert not reach(WRITE_EFFECTS, "files.path")  # an array needs [*]
    assert not reach(WRITE_EFFECTS, "files[*]")  # items are objects, not strings


def test_star_requires_an_array_step():
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert not reach(schema, "name[*]")
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}
    assert reach(schema, "tags[*]")
    assert not reach(schema, "tags")


def test_prefix_items():
    schema = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False}
        },
    }
    assert reach(schema, "pair[*]")
    only_ints = {"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "integer"}]}}}
    assert not reach(only_ints, "pair[*]")


def test_draft07_tuple_items_and_additional_items():
    schema = {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}}}
    assert reach(schema, "t[*]")
    schema = {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "string"}}}}
    assert reach(schema, "t[*]")


def test_nested_arrays():
    schema = {
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"cells": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}}}},
                },
            }
        },
    }
    assert reach(schema, "rows[*].cells[*].text")
    assert not reach(schema, "rows[*].cells.text")
    assert not reach(schema, "rows[*].cells[*].txt")


@pytest.mark.parametrize("keyword", ["allOf", "anyOf", "oneOf"])
def test_combinators(keyword):
    schema = {
        "type": "object",
        keyword: [
            {"properties": {"a": {"type": "integer"}}},
            {"properties": {"b": {"$ref": "#/$defs/s"}}},
        ],
        "$defs": {"s": {keyword: [{"type": "null"}, {"type": "string"}]}},
    }
    assert reach(schema, "b")
    assert not reach(schema, "a")
    assert not reach(schema, "c")


def test_combinator_at_the_leaf_and_type_in_sibling():
    schema = {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"maxLength": 3}]}}}
    assert reach(schema, "x")


def test_type_lists():
    schema = {"type": "object", "properties": {"x": {"type": ["null", "string"]}, "y": {"type": ["null", "integer"]}}}
    assert reach(schema, "x")
    assert not reach(schema, "y")


def test_additional_properties():
    follow = {"type": "object", "additionalProperties": {"type": "string"}}
    assert reach(follow, "anything")
    unknown = {"type": "object", "additionalProperties": True}
    assert not reach(unknown, "anything")  # true says nothing about the type
    assert not reach({"type": "object"}, "anything")
    # the name in properties wins over additionalProperties
    mixed = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    assert not reach(mixed, "n")
    assert reach(mixed, "other")
    nested = {"type": "object", "additionalProperties": {"$ref": "#/$defs/entry"},
              "$defs": {"entry": {"type": "object", "properties": {"v": {"type": "string"}}}}}
    assert reach(nested, "k.v")


def test_ref_pointer_escapes_and_root():
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a~1b"}, "p": {"$ref": "#/$defs/per%25cent"}, "self": {"$ref": "#"}, "s": {"type": "string"}},
        "$defs": {"a/b": {"type": "string"}, "per%cent": {"type": "string"}},
    }
    assert reach(schema, "a")
    assert reach(schema, "p")
    assert reach(schema, "self.self.s")  # recursion through the root


def test_ref_into_array_index_and_definitions():
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "#/definitions/list/1"}},
        "definitions": {"list": [{"type": "integer"}, {"type": "string"}]},
    }
    assert reach(schema, "x")


def test_ref_cycles_terminate():
    schema = {
        "type": "object",
        "properties": {"loop": {"$ref": "#/$defs/a"}, "tree": {"$ref": "#/$defs/node"}},
        "$defs": {
            "a": {"$ref": "#/$defs/b"},
            "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"allOf": [{"$ref": "#/$defs/b"}]}]},
            "node": {"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}},
        },
    }
    assert not reach(schema, "loop")
    assert reach(schema, "tree.kids[*].kids[*].name")
    assert not reach(schema, "tree.kids[*].kids[*].nope")


def test_dangling_or_remote_refs_do_not_reach():
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/none"}, "b": {"$ref": "other.json#/x"}, "c": {"$ref": "#/$defs/s/deeper"}},
              "$defs": {"s": {"type": "string"}}}
    assert not reach(schema, "a")
    assert not reach(schema, "b")
    assert not reach(schema, "c")


def test_boolean_and_non_dict_schemas_do_not_reach():
    assert not reach({"type": "object", "properties": {"a": True}}, "a")
    assert not reach({"type": "object", "properties": {"a": False}}, "a")
    assert not reaches_string(True, parse_path("a"))  # type: ignore[arg-type]


def test_reasons():
    assert unreachable_reason(WRITE_EFFECTS, parse_path("files[*].path")) is None
    assert unreachable_reason(WRITE_EFFECTS, parse_path("files[*].nope")) == 'no field "files[*].nope"'
    assert unreachable_reason(WRITE_EFFECTS, parse_path("files")) == '"files" is not a string'
    schema = {"type": "object", "properties": {"s": {"type": "string"}}}
    assert unreachable_reason(schema, parse_path("s[*]")) == '"s" is not an array'
