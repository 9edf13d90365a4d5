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
from tests.profiles import examples
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


@settings(max_examples=examples(200), deadline=None)
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


# --------------------------------------------------------------------------- schemas remembered by value

_JUNK_WITH_TUPLES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.sampled_from(["string", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(
            st.sampled_from(["type", "anyOf", "items", "properties", "enum", "required"]), inner, max_size=3
        )
    ),
    max_leaves=10,
)


def _outcome(check: Any, schema: Any) -> str | None:
    try:
        check(schema)
    except InvalidToolsSchemaError as exc:
        return str(exc)
    return None


@settings(max_examples=examples(300), deadline=None)
@given(x_schema=_JUNK_WITH_TUPLES, other=_JUNK_WITH_TUPLES)
def test_a_remembered_schema_answers_as_the_walk_does(x_schema, other):
    """Validated twice (the second time from memory where the first passed), and after a lookalike
    (the same JSON with tuples for lists) was remembered: always the walk's own answer."""
    from toklane.parsing import schema as module

    for s in (_tools(other), _tools(x_schema)):
        expected = _outcome(module._walk, s)
        assert _outcome(module.validate_tools_schema, s) == expected
        assert _outcome(module.validate_tools_schema, s) == expected
        as_json = json.loads(json.dumps(s))  # tuples read back as lists: a different value, maybe valid
        assert _outcome(module.validate_tools_schema, as_json) == _outcome(module._walk, as_json)
        assert _outcome(module.validate_tools_schema, s) == expected


def test_a_schema_is_remembered_once_valid_and_never_trusted_after_a_change():
    from toklane.parsing import schema as module

    tools = _tools({"type": "string", "enum": ["a", "b"]})
    module.validate_tools_schema(tools)
    assert __import__("marshal").dumps(tools, 4) in module._valid
    tools[0]["function"]["parameters"]["properties"]["x"]["enum"] = "ab"  # the same object, now malformed
    with pytest.raises(InvalidToolsSchemaError, match="enum must be a list"):
        toklane.get_parser(TOK, tools_schema=tools, **FMT)
    bad = _tools({"enum": ("a", "b")})  # a tuple: as JSON it equals the remembered schema's enum
    with pytest.raises(InvalidToolsSchemaError, match="enum must be a list"):
        module.validate_tools_schema(bad)


class _DictSubclass(dict):
    pass


def test_only_plain_values_are_remembered():
    from toklane.parsing import schema as module

    before = len(module._valid)
    for tools in (
        [_DictSubclass(_tools({"type": "number"})[0])],
        [_Model(_tools({"type": "number"})[0])],
        tuple(_tools({"type": "number", "title": "tuple"})),
    ):
        module.validate_tools_schema(tools)
    assert len(module._valid) == before


def test_the_memory_is_bounded_in_count_and_bytes_under_threads():
    import threading

    from toklane.parsing import schema as module

    def work(k: int) -> None:
        for i in range(400):
            module.validate_tools_schema(_tools({"type": "string", "description": f"{k}-{i}" * (i % 50)}))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(module._valid) <= module.MAX_REMEMBERED
    assert module._valid_bytes == sum(map(len, module._valid)) <= module.MAX_REMEMBERED_BYTES
    huge = _tools({"type": "string", "description": "d" * (module.MAX_REMEMBERED_BYTES // 2)})
    module.validate_tools_schema(huge)
    assert __import__("marshal").dumps(huge, 4) not in module._valid
