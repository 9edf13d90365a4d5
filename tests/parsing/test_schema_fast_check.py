"""The compiled fast paths of the tools_schema check: the fast accept (``toklane._json.schema_ok``), True
only where the walk (``schema._walk``) accepts, True wherever the walk accepts a schema of plain built-in
values, and every error still the walk's own; the compare with the schema found last
(``toklane._json.same_value``), type for type. Without them (a build with no C) the walk and the images
alone give the same answers."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.parsing.test_schema_errors import BAD, GOOD, _Model, _tools
from tests.profiles import examples
from toklane.errors import InvalidToolsSchemaError
from toklane.parsing import schema as module

try:
    from toklane._json import same_value, schema_ok
except ImportError:  # no compiler: test_the_compiled_check_is_built says so; the rest fail
    same_value = schema_ok = None


def _compiled(tools: Any) -> bool:
    return schema_ok(tools, module._C_KINDS, module.MAX_SCHEMA_DEPTH)


def _walk_error(tools: Any) -> str | None:
    """The walk's error message, or None where it accepts."""
    try:
        module._walk(tools)
    except InvalidToolsSchemaError as exc:
        return str(exc)
    return None


class _Dict(dict):
    pass


class _Str(str):
    pass


class _List(list):
    pass


_PLAIN = (dict, list, str, int, float, bool, type(None))
_PLAIN_KEYS = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    """Made of exact built-in values only (keys: str, int, float, bool, None)."""
    if type(value) is dict:
        return all(type(k) in _PLAIN_KEYS and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(map(_plain, value))
    return type(value) in _PLAIN


# --------------------------------------------------------------------------- random schema-like values

_KEYWORDS = sorted(module._C_KINDS)  # every keyword either reads, from the walk's own tables
_NAMES = st.sampled_from(["string", "integer", "object", "null"])
_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.floats(allow_nan=True)
    | _NAMES
    | st.sampled_from(_KEYWORDS)
    | st.text(max_size=3)
    | _NAMES.map(_Str)
)
_KEY = (
    st.sampled_from([*_KEYWORDS, "description", "name", "x"])
    | st.text(max_size=2)
    | st.integers(0, 2)
    | st.none()
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["type", "enum", "properties"]).map(_Str)
    | st.tuples(st.integers(0, 1))
)


def _mostly(valid: st.SearchStrategy[Any], other: st.SearchStrategy[Any], odds: int = 5) -> st.SearchStrategy[Any]:
    """`other` once in `odds`, else `valid` (so that a good share of whole schemas pass)."""
    return st.integers(1, odds).flatmap(lambda i: other if i == 1 else valid)


#: A value of each wrong kind for a keyword's slot (and lookalikes of the right ones).
_WRONG = st.sampled_from([None, True, 0, 1.5, "s", [], {}, [1], {"a": 1}, ("a",)]) | st.builds(_List) | st.builds(_Dict)
#: Keywords drawn for a schema: the common ones more often (each at most once per schema).
_SLOT_KEYS = st.sampled_from(
    ["type"] * 5 + ["enum", "required", "items", "properties", "anyOf"] * 3 + [*module._NESTING, "description"]
)


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A schema-shaped dict (each keyword slot holding a subschema, a list or map of them, or junk), or junk."""
    subs = st.lists(inner, max_size=3)
    maps = st.dictionaries(st.text(max_size=2), inner, max_size=3)
    slots = {
        **{k: inner for k in module._ONE},
        "items": _mostly(inner | subs, _WRONG | subs.map(_List)),
        **{k: _mostly(subs, _WRONG | inner) for k in module._LISTS},
        **{k: _mostly(maps, _WRONG | _KEY_MAP | maps.map(_Dict)) for k in module._MAPS},
        "type": _mostly(_NAMES | st.lists(_NAMES, min_size=1, max_size=2), _WRONG | st.lists(_LEAF, max_size=2)),
        "enum": _mostly(st.lists(_LEAF, max_size=2), _WRONG),
        "required": _mostly(st.lists(st.text(max_size=2), max_size=2), _WRONG | st.lists(_LEAF, max_size=2)),
        "description": _LEAF,
    }
    shaped = st.lists(_SLOT_KEYS, max_size=3, unique=True).flatmap(
        lambda keys: st.fixed_dictionaries({k: slots[k] for k in keys})
    )
    junk = (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=2).map(tuple)
        | st.dictionaries(_KEY, inner, max_size=3)
        | shaped.map(_Dict)
    )
    return _mostly(shaped, junk, 8)


_KEY_MAP = st.dictionaries(_KEY, st.just({}), min_size=1, max_size=2)  # a map with some non-string key
_SCHEMA = st.recursive(
    _mostly(st.booleans() | st.fixed_dictionaries({}, optional={"type": _NAMES, "enum": st.lists(_LEAF)}), _LEAF, 8),
    _extend,
    max_leaves=12,
)


def _link(key: str, node: Any) -> dict[str, Any]:
    """A schema holding `node` one level down, by `key` (anyOf: its list; properties: its map)."""
    if key == "anyOf":
        return {"anyOf": [node]}
    return {"properties": {"p": node}} if key == "properties" else {key: node}


@st.composite
def _deep(draw: Any) -> Any:
    """A chain of subschemas about MAX_SCHEMA_DEPTH deep, each link by some keyword, with some end."""
    depth = draw(st.integers(module.MAX_SCHEMA_DEPTH - 2, module.MAX_SCHEMA_DEPTH + 2))
    node = draw(st.sampled_from([True, False, {}, {"type": "string"}, None]) | _SCHEMA)
    for _ in range(depth):
        key = draw(st.sampled_from(["items", "not", "anyOf", "properties", "additionalProperties"]))
        node = _link(key, node)
    return node


_NAME = _mostly(st.sampled_from(["f", "g"]), st.sampled_from(["", None, 3, ["f"]]) | st.just(_Str("f")), 12)
_PARAMS = _mostly(_SCHEMA, _deep(), 4)
_FUNCTION = _mostly(
    st.fixed_dictionaries({"name": _NAME}, optional={"parameters": _PARAMS, "description": _LEAF}),
    st.fixed_dictionaries({}, optional={"name": _NAME, "parameters": _PARAMS | st.lists(_LEAF)}),
    12,
)
_TOOL = _mostly(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("function"), "function": _FUNCTION}),
        st.fixed_dictionaries({"function": _FUNCTION}),
        _FUNCTION,  # a bare function dict
        st.fixed_dictionaries({"type": st.just("function"), "name": _NAME}, optional={"parameters": _PARAMS}),
        st.fixed_dictionaries({"type": _LEAF | st.sampled_from(["web_search", "function", _Str("function")]) | _WRONG}),
    ),
    st.one_of(
        st.fixed_dictionaries({"function": _LEAF | _FUNCTION.map(_Dict) | st.lists(_LEAF)}),
        st.dictionaries(_KEY, _LEAF, max_size=2),
        _FUNCTION.map(lambda f: _Dict(type="function", function=f)),
        _LEAF,
    ),
    12,
)
_TOOLS = _mostly(st.lists(_TOOL, max_size=3), st.lists(_TOOL, max_size=2).map(tuple))


def _agree(tools: Any) -> None:
    """Compiled True implies the walk accepts; on plain values the walk accepting implies compiled True; and
    validate_tools_schema answers as the walk does."""
    accepted = _walk_error(tools) is None
    compiled = _compiled(tools)
    assert accepted or not compiled, tools
    if _plain(tools):
        assert compiled == accepted, tools
    expected = _walk_error(tools)
    module._forget_all()
    try:
        module.validate_tools_schema(tools)
    except InvalidToolsSchemaError as exc:
        assert str(exc) == expected
    else:
        assert expected is None


@settings(max_examples=examples(1000), deadline=None)
@given(tools=_TOOLS)
def test_the_compiled_check_and_the_walk_agree_on_tools(tools):
    _agree(tools)


@settings(max_examples=examples(1000), deadline=None)
@given(parameters=_SCHEMA | _deep())
def test_the_compiled_check_and_the_walk_agree_on_schemas(parameters):
    _agree([{"type": "function", "function": {"name": "f", "parameters": parameters}}])


# --------------------------------------------------------------------------- explicit cases


def _chain(depth: int, end: Any, key: str = "items") -> dict[str, Any]:
    """Parameters whose innermost subschema `end` sits at `depth` (the parameters are at depth 0)."""
    node = end
    for _ in range(depth):
        node = _link(key, node)
    return node


@pytest.mark.parametrize("key", ["items", "not", "anyOf", "properties", "additionalProperties"])
def test_the_depth_boundary(key):
    limit = module.MAX_SCHEMA_DEPTH
    for depth, end, ok in (
        (limit, {}, True),  # a schema object at the deepest level allowed
        (limit, {"type": "string", "required": ["a"]}, True),
        (limit + 1, {}, False),  # one level deeper
        (limit + 1, True, True),  # true / false are schemas at any depth
        (limit + 1, False, True),
        (limit + 2, True, False),  # its parent is too deep
        (limit - 1, {"items": {}}, True),
        (limit - 1, {"items": {"items": {}}}, False),
    ):
        tools = [{"name": "f", "parameters": _chain(depth, end, key)}]
        assert (_walk_error(tools) is None) is ok
        assert _compiled(tools) is ok


def test_the_depth_follows_max_schema_depth(monkeypatch):
    tools = [{"name": "f", "parameters": _chain(4, {})}]
    assert _compiled(tools) and module.validate_tools_schema(tools) is not None
    monkeypatch.setattr(module, "MAX_SCHEMA_DEPTH", 3)
    module._forget_all()
    assert not _compiled(tools)
    with pytest.raises(InvalidToolsSchemaError, match="deeper than 3 levels"):
        module.validate_tools_schema(tools)


def test_a_cycle_is_refused_not_followed():
    node: dict[str, Any] = {"type": "object"}
    node["properties"] = {"self": node}
    tools = [{"name": "f", "parameters": node}]
    assert not _compiled(tools)
    with pytest.raises(InvalidToolsSchemaError, match="deeper than"):
        module.validate_tools_schema(tools)


@pytest.mark.parametrize("keyword", _KEYWORDS)
def test_each_keyword_is_read_as_the_walk_reads_it(keyword):
    """The table the check reads is the walk's: each keyword with a good value, a wrong one, null."""
    kind = module._C_KINDS[keyword]
    good = {4: "string", 5: [1, "a"], 6: ["a"], module._MAP: {"a": {}}, module._ONE_SUB: {}}.get(kind, [{}])
    for value, ok in ((good, True), (5, False), ({"type": 5}, False), (None, kind != module._ONE_SUB)):
        tools = _tools({keyword: value})
        assert (_walk_error(tools) is None) is ok, value
        assert _compiled(tools) is ok, value
    assert _compiled(_tools({"description": 5, "title": [], "default": {1: 2}}))  # not keywords: not read


def test_list_members_are_checked_one_by_one():
    for schema in ({"required": ["a", 1]}, {"type": ["string", None]}, {"anyOf": [{}, 1]}, {"items": [{}, "s"]}):
        assert _walk_error(_tools(schema)) is not None
        assert not _compiled(_tools(schema))
        assert _compiled(_tools({k: v[:1] for k, v in schema.items()}))


@pytest.mark.parametrize("schema, expected", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_every_error_is_still_the_walks(schema, expected):
    assert not _compiled(schema)
    module._forget_all()
    with pytest.raises(InvalidToolsSchemaError) as info:
        module.validate_tools_schema(schema)
    assert expected in str(info.value) and str(info.value) == _walk_error(schema)


@pytest.mark.parametrize("schema", [c[1] for c in GOOD], ids=[c[0] for c in GOOD])
def test_good_schemas_pass_where_plain(schema):
    assert _compiled(schema) is _plain(schema)


def test_lookalikes_are_left_to_the_walk():
    tool = _tools({"type": "integer"})[0]
    for tools in (
        [_Dict(tool)],
        [{"type": "function", "function": _Dict(tool["function"])}],
        [_Model(tool)],
        [SimpleNamespace(**tool)],
        tuple([tool]),
        _tools(_Dict(type="integer")),
        _tools({"type": _Str("integer")}),
        _tools({"type": "array", "items": _List([{"type": "string"}])}),
        _tools({"enum": _List(["a"]), "required": _List(["a"])}),
        _tools({"type": _List(["string"])}),
        [{"type": "function", "function": {"name": _Str("f")}}],
        [{("a",): 1, "name": "f"}],
    ):
        assert not _compiled(tools)
        assert _walk_error(tools) is None  # all of them valid: the walk says so


def test_a_tool_type_is_compared_as_the_walk_compares_it():
    """A tool without "function" is a built-in tool unless its type equals "function" (a str subclass may)."""
    for kind in ("web_search", 3, None, [], {}, 1.5, True):
        assert _compiled([{"type": kind}]) and _walk_error([{"type": kind}]) is None
    for tool in ({"type": "function"}, {"type": _Str("function")}, {}):
        assert not _compiled([tool]) and _walk_error([tool]) is not None  # a function tool without a name


def test_the_arguments_are_checked():
    with pytest.raises(TypeError):
        schema_ok([], list(module._C_KINDS), 64)
    with pytest.raises(ValueError):
        schema_ok([], module._C_KINDS, 10_000)
    assert schema_ok("tools", module._C_KINDS, 64) is False


# --------------------------------------------------------------------------- without the compiled check


def test_without_the_compiled_check_the_walk_alone_answers(monkeypatch):
    monkeypatch.setattr(module, "_schema_ok", None)
    monkeypatch.setattr(module, "_same_value", None)
    module._forget_all()
    for _, schema, expected in BAD:
        with pytest.raises(InvalidToolsSchemaError, match=None) as info:
            module.validate_tools_schema(schema)
        assert expected in str(info.value)
    tools = json.loads(json.dumps(_tools({"type": "integer", "description": "no C"})))
    checked = module.validate_tools_schema(tools)
    assert checked is not None and list(checked) == tools
    for _ in range(2):  # (found by its image each time: no copy to compare with)
        assert module.validate_tools_schema(json.loads(json.dumps(tools))) is checked
    assert module._last is None and module._valid[module.marshal.dumps(tools, 4)][0] is None
    assert module.validate_tools_schema([_Model(tools[0])]) is None  # walked, not kept


def test_the_compiled_check_is_built_and_the_switch_turns_it_off():
    """The dev install compiles it (a silent fallback would leave it untested); TOKLANE_PURE_PYTHON=1 leaves
    the walk alone, which still validates and remembers."""
    assert schema_ok is not None, "toklane._json did not build: is a C compiler installed? (pip install -e .)"
    assert module._schema_ok is schema_ok and module._same_value is same_value
    code = (
        "import json; from toklane.parsing import schema as s; assert s._schema_ok is s._same_value is None\n"
        'tools = \'[{"type": "function", "function": {"name": "f", "parameters": {}}}]\'\n'
        "first = s.validate_tools_schema(json.loads(tools))\n"
        "assert first is s.validate_tools_schema(json.loads(tools)) is s.validate_tools_schema(json.loads(tools))\n"
        "assert first is not None and s._last is None\n"
        "try:\n    s.validate_tools_schema([{'name': 'f', 'parameters': {'enum': 1}}])\n"
        "except s.InvalidToolsSchemaError as e:\n    print(e)"
    )
    env = {**os.environ, "TOKLANE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "tools_schema[0].parameters.enum must be a list, got integer"


# --------------------------------------------------------------------------- the schema found last


def _same_reference(a: Any, b: Any) -> bool:
    """same_value's promise, written plainly: the same types everywhere, dicts' items in the same order,
    floats with the same bits; nothing but exact built-in values."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return struct.pack("<d", a) == struct.pack("<d", b)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(map(_same_reference, a, b))
    if type(a) is dict:
        if len(a) != len(b):
            return False
        pairs = zip(a.items(), b.items(), strict=True)
        return all(_same_reference(ka, kb) and _same_reference(va, vb) for (ka, va), (kb, vb) in pairs)
    return type(a) in (str, int, bool, type(None)) and a == b


_SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.text(max_size=3).map(_Str)
)
_KEY = st.none() | st.booleans() | st.integers(-2, 2) | st.floats(allow_nan=False) | st.text(max_size=6)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_KEY, inner, max_size=4)
        | st.dictionaries(_KEY, inner, max_size=2).map(_Dict)
    ),
    max_leaves=24,
)


def _twin(value: Any, draw: Any) -> Any:
    """A fresh copy of ``value`` (new containers, new strs), with a change here and there: a lookalike
    (1 for True, -0.0 for 0.0, a tuple for a list, a subclass, items reordered) or another value."""
    change = draw(st.integers(0, 15))
    kind = type(value)
    if kind in (dict, _Dict):
        items = [(_twin(k, draw), _twin(v, draw)) for k, v in value.items()]
        if change == 0:
            items.reverse()
        return (_Dict if (kind is dict) == (change == 1) else dict)(items)
    if kind in (list, tuple):
        items = [_twin(v, draw) for v in value]
        return (tuple if kind is list else list)(items) if change == 0 else kind(items)
    if change == 0:
        if kind is bool:
            return int(value)
        if kind is int:
            return bool(value) if value in (0, 1) else value + 1
        if kind is float:
            return -value if value == 0 else value * 2
        if kind in (str, _Str):
            return _Str(value) if kind is str else str(value) + "x"
        return 0  # (for None)
    return "".join(value) if kind is str else value  # (a str: another object where it is not one character)


@settings(max_examples=examples(1000), deadline=None)
@given(value=_VALUE, data=st.data())
def test_same_value_is_equality_type_for_type(value, data):
    """Against the plain reference, on a value and its twin (a fresh copy with lookalikes and changes):
    True exactly where both are made of the same exact built-in values, in the same order."""
    twin = _twin(value, data.draw)
    assert same_value(value, twin) is _same_reference(value, twin)
    assert same_value(twin, value) is _same_reference(twin, value)
    assert same_value(value, value) is _same_reference(value, value)


def test_same_value_reads_bits_and_types_not_equality():
    for a, b in ((1, True), (0, False), (0.0, -0.0), (1, 1.0), ([], ()), ({}, []), ("a", _Str("a")), (None, 0)):
        assert not same_value(a, b) and not same_value([a], [b]) and not same_value({"k": a}, {"k": b})
    nan = float("nan")
    assert same_value(nan, float("nan")) and not same_value(nan, -nan)  # (bits: a NaN is itself)
    assert not same_value({"a": 1, "b": 2}, {"b": 2, "a": 1})  # (items in order, as an image writes them)
    assert same_value({1: [2.5, None, "é"], "k": (True,)}, {1: [2.5, None, "é"], "k": (True,)})
    assert same_value(10**40, 10**40) and not same_value(10**40, 10**40 + 1)


def test_same_value_stops_at_its_depth_and_at_cycles():
    looped: list[Any] = []
    looped.append(looped)
    assert same_value(looped, looped) is False
    deep, deeper = [], []
    for _ in range(500):
        deep, deeper = [deep], [deeper]
    assert same_value(deep, deeper)
    for _ in range(20):
        deep, deeper = [deep], [deeper]
    assert not same_value(deep, deeper)  # (past its depth: not found by it, never an error)
    with pytest.raises(TypeError):
        same_value([])


@pytest.mark.parametrize(
    "good, lookalike, error",
    [
        ({"not": True}, {"not": 1}, "not must be a schema object, got integer"),
        ({"enum": ["a"]}, {"enum": ("a",)}, "enum must be a list, got tuple"),
        ({"required": ["a"], "type": "object"}, {"required": ("a",), "type": "object"}, "required must be a list"),
        ({"items": False}, {"items": 0}, "items must be a schema object, got integer"),
    ],
)
def test_the_schema_found_last_is_compared_type_for_type(good, lookalike, error, monkeypatch):
    """A schema found again is the one compared first with the next: an equal copy is found without an
    image, and a lookalike of it (1 for True, a tuple for a list) is checked, with the walk's error."""
    module._forget_all()
    tools = json.loads(json.dumps(_tools(good)))  # (as a request's JSON gives it: images equal)
    first = module.validate_tools_schema(tools)
    assert module.validate_tools_schema(json.loads(json.dumps(tools))) is first  # (by its image: now the last)
    assert module._last is not None and module._last[1] is first and same_value(module._last[0], tools)
    with monkeypatch.context() as m:
        m.setattr(module, "marshal", None)  # (no image can be written or read)
        assert module.validate_tools_schema(json.loads(json.dumps(tools))) is first
    with pytest.raises(InvalidToolsSchemaError, match=error):
        module.validate_tools_schema(_tools(lookalike))
    assert module._last[1] is first
    assert module.validate_tools_schema([_Dict(tools[0])]) is None  # a subclass: walked, not found
    module._forget_all()
