"""A malformed tools_schema fails when the parser is built, naming the field path;
a well-formed one (in every shape peers accept) never makes parsing raise."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from toklane.errors import InvalidToolsSchemaError, ToklaneError

TOK = "qwen3.6"
FMT = {"tools": "qwen3_coder"}
OUTPUT = "<tool_call>\n<function=f>\n<parameter=x>\n5\n</parameter>\n</function>\n</tool_call>"


def _tools(x_schema: Any) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"x": x_schema}}}}
    ]


P = "tools_schema[0].function.parameters"

BAD: list[tuple[str, Any, str]] = [
    ("not a list", {"anyOf": 5}, "tools_schema must be a list of tools"),
    ("a string", "tools", "tools_schema must be a list of tools"),
    ("tool not an object", ["f"], "tools_schema[0] must be an object"),
    ("function not an object", [{"type": "function", "function": 3}], "tools_schema[0].function must be an object"),
    ("name missing", [{"type": "function", "function": {"parameters": {}}}], "tools_schema[0].function.name must be"),
    ("name not a string", [{"function": {"name": 7}}], "tools_schema[0].function.name must be a non-empty string"),
    ("parameters a list", [{"function": {"name": "f", "parameters": []}}], f"{P} must be an object"),
    ("anyOf an int", _tools({"anyOf": 5}), f"{P}.properties.x.anyOf must be a list of schemas, got integer"),
    ("oneOf a dict", _tools({"oneOf": {"type": "string"}}), f"{P}.properties.x.oneOf must be a list"),
    ("anyOf junk inside", _tools({"anyOf": [{"type": "string"}, 3]}), f"{P}.properties.x.anyOf[1] must be a schema"),
    ("properties a list", [{"function": {"name": "f", "parameters": {"properties": [1]}}}], f"{P}.properties must be"),
    ("property not a schema", _tools("string"), f"{P}.properties.x must be a schema object, got string"),
    ("type an int", _tools({"type": 5}), f"{P}.properties.x.type must be a string or a non-empty list"),
    ("type a list of ints", _tools({"type": ["string", 1]}), f"{P}.properties.x.type must be a string or a non-empty"),
    ("type an empty list", _tools({"type": []}), f"{P}.properties.x.type must be a string or a non-empty list"),
    ("enum a string", _tools({"enum": "abc"}), f"{P}.properties.x.enum must be a list, got string"),
    ("required a string", [{"function": {"name": "f", "parameters": {"required": "x"}}}], f"{P}.required must be a"),
    ("items junk", _tools({"type": "array", "items": 4}), f"{P}.properties.x.items must be a schema object"),
    (
        "nested junk",
        _tools({"properties": {"y": {"items": {"anyOf": [{"enum": 1}]}}}}),
        "x.properties.y.items.anyOf[0].enum",
    ),
    ("odd key", _tools({"properties": {"a b": {"type": {}}}}), f'{P}.properties.x.properties["a b"].type must be'),
    ("too deep", _tools(json.loads('{"items": ' * 80 + "{}" + "}" * 80)), "nests subschemas deeper than 64 levels"),
]


@pytest.mark.parametrize("schema, expected", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_malformed_schema_fails_at_construction_naming_the_field(schema, expected):
    for build in (
        lambda: toklane.get_parser(TOK, tools_schema=schema, **FMT),
        lambda: toklane.parse(TOK, text=OUTPUT, tools_schema=schema, **FMT),
        lambda: toklane.get_parser(TOK, reasoning="qwen3", tools="hermes", tools_schema=schema),
    ):
        with pytest.raises(InvalidToolsSchemaError) as info:
            build()
        assert expected in str(info.value), str(info.value)
        assert isinstance(info.value, ValueError) and isinstance(info.value, ToklaneError)


class _Model:
    """A pydantic-style tool object (vLLM passes these)."""

    def __init__(self, data: dict[str, Any]):
        self._data = data

    def model_dump(self) -> dict[str, Any]:
        return self._data


GOOD: list[tuple[str, Any, Any]] = [
    ("integer", _tools({"type": "integer"}), 5),
    ("type list", _tools({"type": ["integer", "null"]}), 5),
    ("anyOf", _tools({"anyOf": [{"type": "integer"}, {"type": "null"}]}), 5),
    ("boolean schema", _tools(True), "5"),
    ("enum", _tools({"enum": ["5", "6"]}), "5"),
    ("bare function dicts", [{"name": "f", "parameters": {"properties": {"x": {"type": "number"}}}}], 5),
    ("pydantic objects", [_Model(_tools({"type": "integer"})[0])], 5),
    ("plain objects", [SimpleNamespace(type="function", function=_tools({"type": "integer"})[0]["function"])], 5),
    ("a built-in tool beside", [{"type": "web_search_preview"}, *_tools({"type": "integer"})], 5),
    ("no parameters", [{"type": "function", "function": {"name": "f"}}], "5"),
    ("empty list", [], "5"),
    ("tuple items", _tools({"type": "array", "items": [{"type": "string"}]}), "5"),
]


@pytest.mark.parametrize("schema, value", [c[1:] for c in GOOD], ids=[c[0] for c in GOOD])
def test_well_formed_schemas_still_type_values(schema, value):
    result = toklane.parse(TOK, text=OUTPUT, tools_schema=schema, **FMT)
    assert [(c.name, json.loads(c.arguments)) for c in result.tool_calls] == [("f", {"x": value})]


_JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.text(max_size=5)
    | st.sampled_from(["string", "integer", "object"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "anyOf", "oneOf", "items", "properties", "enum", "x", "required", "not"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(x_schema=_JUNK)
def test_any_schema_fails_at_construction_or_never(x_schema):
    schema = _tools(x_schema)
    try:
        parser = toklane.get_parser(TOK, tools_schema=schema, **FMT)
    except InvalidToolsSchemaError:
        return
    for k in range(0, len(OUTPUT), 7):
        parser.feed(text=OUTPUT[k : k + 7])
    parser.finish()
