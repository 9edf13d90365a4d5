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
    # Leaves (no subschema keyword) are checked where their parent finds them: every keyword still checks them.
    ("non-string key, leaf value", _tools({"properties": {1: {"type": "string"}}}), f"{P}.properties.x.properties has"),
    ("items leaf, bad enum", _tools({"type": "array", "items": {"enum": 3}}), f"{P}.properties.x.items.enum must be"),
    ("anyOf leaf, bad type", _tools({"anyOf": [{"type": "null"}, {"type": 1}]}), f"{P}.properties.x.anyOf[1].type"),
    ("additionalProperties null", _tools({"additionalProperties": None}), "x.additionalProperties must be a schema"),
    ("not a number", _tools({"not": 1}), f"{P}.properties.x.not must be a schema object, got integer"),
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


def _typed(parser: Any) -> Any:
    """The value of x the parser reads from OUTPUT (5 as an integer, "5" as a string)."""
    calls = [*parser.feed(text=OUTPUT).tool_calls, *parser.finish().tool_calls]
    return json.loads("".join(c.arguments for c in calls))["x"]


def test_an_equal_schema_gets_the_same_validated_object():
    """Equal schemas (the same object again, or a fresh copy as the next request's JSON gives) share
    one ToolsSchema -- the result of one walk, with one index -- and parsers built from either read it.
    (Equal schemas built differently, a literal and parsed JSON, may each have their own: the marshal
    key records which strings are shared. Never one for a different value.)"""
    from toklane.parsing import schema as module
    from toklane.parsing.schema import ToolsSchema

    tools = json.loads(json.dumps(_tools({"type": "integer", "description": "an equal schema"})))
    first = module.validate_tools_schema(tools)
    assert type(first) is ToolsSchema and len(first) == 1 and list(first) == tools
    assert module.validate_tools_schema(tools) is first
    assert module.validate_tools_schema(json.loads(json.dumps(tools))) is first
    parsers = [toklane.get_parser(TOK, tools_schema=t, **FMT) for t in (tools, json.loads(json.dumps(tools)), first)]
    assert all(p._schema is first for p in parsers)
    assert [_typed(p) for p in parsers] == [5, 5, 5]
    assert first._index is not None  # built by the first parser that read it, then shared
    assert first.tools is first.tools and first.tools is not tools  # an owned copy, made once
    assert module.validate_tools_schema(first) is first  # taken as it is


def test_a_changed_schema_is_checked_again_and_parsers_keep_what_they_were_given():
    from toklane.parsing import schema as module

    tools = _tools({"type": "integer", "description": "changed later"})
    before = toklane.get_parser(TOK, tools_schema=tools, **FMT)
    remembered = module.validate_tools_schema(tools)
    tools[0]["function"]["parameters"]["properties"]["x"]["type"] = "string"  # same object, new value
    after = toklane.get_parser(TOK, tools_schema=tools, **FMT)
    assert after._schema is not remembered
    assert _typed(after) == "5"  # the new schema, not the remembered one
    assert _typed(before) == 5  # a parser keeps the schema as it was when it was built
    tools[0]["function"]["parameters"]["properties"]["x"]["type"] = "integer"
    assert module.validate_tools_schema(tools) is remembered  # the old value again: its old result


def test_an_invalid_schema_fails_every_time_and_is_not_remembered():
    from toklane.parsing import schema as module

    tools = _tools({"type": "string", "enum": "not a list"})
    image = __import__("marshal").dumps(tools, 4)
    for build in (
        lambda: module.validate_tools_schema(tools),
        lambda: toklane.get_parser(TOK, tools_schema=tools, **FMT),
        lambda: toklane.get_parser(TOK, tools_schema=json.loads(json.dumps(tools)), **FMT),
        lambda: toklane.parse(TOK, text=OUTPUT, tools_schema=tools, **FMT),
    ):
        with pytest.raises(InvalidToolsSchemaError, match=r"properties\.x\.enum must be a list"):
            build()
    assert image not in module._valid


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
        assert module.validate_tools_schema(tools) is None
        assert toklane.get_parser(TOK, tools_schema=tools, **FMT)._schema is tools  # kept as given
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
    assert module.validate_tools_schema(huge) is None  # checked, not kept
    assert __import__("marshal").dumps(huge, 4) not in module._valid


def test_the_least_recently_used_schema_goes_first():
    from toklane.parsing import schema as module

    def schema(i: int) -> list[dict[str, Any]]:
        return _tools({"type": "string", "description": f"lru {i}"})

    kept = module.validate_tools_schema(schema(0))
    for i in range(1, module.MAX_REMEMBERED + 50):
        assert module.validate_tools_schema(schema(0)) is kept  # used again and again: stays
        module.validate_tools_schema(schema(i))
    assert len(module._valid) == module.MAX_REMEMBERED
    assert module.validate_tools_schema(schema(0)) is kept
    assert __import__("marshal").dumps(schema(1), 4) not in module._valid  # the oldest unused went
    assert __import__("marshal").dumps(schema(0), 4) in module._valid  # (found as the last one: used too)


class _Fn:
    def __init__(self, name: Any, parameters: Any = None, description: str | None = None):
        self.name, self.parameters, self.description = name, parameters, description


class _Tool:
    """The shape of vLLM's ChatCompletionToolsParam and SGLang's Tool: fields read, model_dump counted."""

    dumps = 0

    def __init__(self, function: _Fn, type: str = "function"):
        self.type, self.function = type, function

    def model_dump(self, mode: str = "python", exclude_none: bool = False) -> dict[str, Any]:
        _Tool.dumps += 1
        fn = {k: v for k, v in vars(self.function).items() if v is not None or not exclude_none}
        return {"type": self.type, "function": fn}


def test_a_requests_tool_models_are_read_by_field_and_found_by_value():
    from toklane.parsing.schema import request_tools_schema, validate_tools_schema

    params = '{"type": "object", "properties": {"x": {"type": "integer"}}}'
    _Tool.dumps = 0
    first = request_tools_schema([_Tool(_Fn("f", json.loads(params), "a tool"))])
    again = request_tools_schema([_Tool(_Fn("f", json.loads(params), "described otherwise"))])  # the next request
    assert first is again and _Tool.dumps == 0
    assert validate_tools_schema(first) is first
    assert list(first) == [{"type": "function", "function": {"name": "f", "parameters": json.loads(params)}}]
    assert _typed(toklane.get_parser(TOK, tools_schema=first, **FMT)) == 5
    assert request_tools_schema(None) is None and request_tools_schema([]) is None


def test_a_requests_tools_that_do_not_read_by_field_go_through_model_dump():
    from toklane.parsing.schema import request_tools_schema

    _Tool.dumps = 0
    bad = [_Tool(_Fn("f", {"type": "object", "properties": {"x": {"enum": "ab"}}}))]
    dumped = request_tools_schema(bad)
    assert _Tool.dumps == 1 and dumped == [bad[0].model_dump(exclude_none=True)]
    with pytest.raises(InvalidToolsSchemaError, match=r"properties\.x\.enum must be a list"):
        toklane.get_parser(TOK, tools_schema=dumped, **FMT)  # the error it always gave
    assert request_tools_schema([_Tool(_Fn(None))]) == [{"type": "function", "function": {}}]


def test_a_list_changed_in_place_after_a_warm_hit_is_checked_again():
    """get_parser's warm path (a Tokenizer object, a prototype copied) takes the schema without the
    parser's own call: the same list changed in place is checked again, a ToolsSchema is taken as it
    is, and unknown_tools still applies."""
    from toklane.parsing import schema as module

    tok = toklane.load_tokenizer(TOK)
    toklane.get_parser(tok, **FMT)
    toklane.get_parser(tok, unknown_tools="drop", **FMT)  # the prototypes exist from here on
    tools = _tools({"type": "integer", "description": "warm hit"})
    first = toklane.get_parser(tok, tools_schema=tools, **FMT)
    handle = first._schema
    assert type(handle) is module.ToolsSchema and toklane.get_parser(tok, tools_schema=tools, **FMT)._schema is handle
    x = tools[0]["function"]["parameters"]["properties"]["x"]
    x["enum"] = "12"  # the same list, now malformed
    with pytest.raises(InvalidToolsSchemaError, match=r"properties\.x\.enum must be a list"):
        toklane.get_parser(tok, tools_schema=tools, **FMT)
    del x["enum"]
    x["type"] = "string"  # valid again, with another value
    after = toklane.get_parser(tok, tools_schema=tools, **FMT)
    assert after._schema is not handle and (_typed(after), _typed(first)) == ("5", 5)
    dropping = toklane.get_parser(tok, tools_schema=handle, unknown_tools="drop", **FMT)
    assert dropping._schema is handle and dropping._unknown == "drop"


def _fields_keys() -> set[bytes]:
    """The keys remembered for a request's tool models (a tuple's image: never a tools list's)."""
    from toklane.parsing import schema as module

    return {k for k in list(module._valid) if type(__import__("marshal").loads(k)) is tuple}


def test_tool_models_changed_after_a_hit_are_checked_again():
    """A request's tool models are found by their fields' value: a model changed in place (its parameters,
    its name) is not the remembered schema any more -- read again, and checked."""
    from toklane.parsing.schema import request_tools_schema

    params = {"type": "object", "properties": {"x": {"type": "integer"}}}
    tools = [_Tool(_Fn("f", params))]
    _Tool.dumps = 0
    first = request_tools_schema(tools)
    assert request_tools_schema(tools) is first and _Tool.dumps == 0
    assert any(__import__("marshal").loads(k) == (("function", "f", params),) for k in _fields_keys())
    params["properties"]["x"]["type"] = "string"  # changed in place
    changed = request_tools_schema(tools)
    assert changed is not first and _typed(toklane.get_parser(TOK, tools_schema=changed, **FMT)) == "5"
    params["properties"]["x"]["enum"] = "ab"  # now malformed: model_dump, and the parser's own error
    kept = _fields_keys()
    dumped = request_tools_schema(tools)
    assert _Tool.dumps == 1 and type(dumped) is list
    with pytest.raises(InvalidToolsSchemaError, match=r"properties\.x\.enum must be a list"):
        toklane.get_parser(TOK, tools_schema=dumped, **FMT)
    assert _fields_keys() == kept  # an invalid schema's fields are never kept
    del params["properties"]["x"]["enum"]
    tools[0].function.name = "g"
    renamed = request_tools_schema(tools)
    assert renamed is not changed and [t["function"]["name"] for t in renamed] == ["g"]
    params["properties"]["x"]["type"] = "integer"
    tools[0].function.name = "f"
    assert request_tools_schema(tools) is first  # the first value again: its first result


def test_tool_models_that_marshal_cannot_key_are_read_as_before():
    """Dict tools among models, or a parameters value marshal does not write: no fields key, the same result."""
    from toklane.parsing.schema import request_tools_schema

    before = _fields_keys()
    plain = _tools({"type": "integer"})[0]
    mixed = request_tools_schema([plain, _Tool(_Fn("g", {"type": "object"}))])
    assert [t["function"]["name"] for t in mixed] == ["f", "g"]
    odd = request_tools_schema([_Tool(_Fn("h", _DictSubclass(type="object")))])
    assert type(odd) is list and odd[0]["function"]["name"] == "h"  # walked as given (model_dump), not kept
    assert _fields_keys() == before


def test_tool_models_keys_share_the_bounds():
    from toklane.parsing import schema as module
    from toklane.parsing.schema import request_tools_schema

    for i in range(module.MAX_REMEMBERED + 20):
        request_tools_schema([_Tool(_Fn(f"bound_{i}", {"type": "object", "description": "b" * i}))])
    assert len(module._valid) == module.MAX_REMEMBERED
    assert module._valid_bytes == sum(map(len, module._valid)) <= module.MAX_REMEMBERED_BYTES
