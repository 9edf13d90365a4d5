"""JSON-call recovery: Llama 3 JSON calls anywhere in the content, after prose and after a malformed
object; braces that open no call stay content, decided early; Hermes string arguments, lists and commas
between objects in one block."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

from .helpers import parsed, tokenizer

LLAMA = {"tools": "llama3_json"}
HERMES = {"tools": "hermes"}


def call(name: str, args: dict) -> str:
    return json.dumps({"name": name, "parameters": args}, ensure_ascii=False)


# ----------------------------------------------------------------------------- Llama 3 JSON


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # a call after prose; the prose stays content
        ('Sure! {"name": "f", "parameters": {"x": 1}}', "Sure!", [("f", {"x": 1})]),
        ('Step 1:\n\n{"name": "f", "parameters": {}}\nDone.', "Step 1:\nDone.", [("f", {})]),
        # after a malformed object, later calls are found; the broken text is content, verbatim
        (
            '{"name": "f", "parameters": {"x": }}; {"name": "g", "parameters": {"y": 2}}',
            '{"name": "f", "parameters": {"x": }};',
            [("g", {"y": 2})],
        ),
        (
            '{"name": "f", "parameters": [1]} {"name": "g", "parameters": {}}',
            '{"name": "f", "parameters": [1]}',
            [("g", {})],
        ),
        ('{"name": "f"} then {"name": "g", "parameters": {}}', '{"name": "f"} then', [("g", {})]),
        # prose and code braces: content, verbatim
        (
            'f"{name}" and {x} and {} and { "a" } and {"city": "Paris"}',
            'f"{name}" and {x} and {} and { "a" } and {"city": "Paris"}',
            [],
        ),
        ("\\frac{a}{b} and function() { return 1; }", "\\frac{a}{b} and function() { return 1; }", []),
        # an object with a member other than name / parameters / type / id is no call
        ('{"name": "Ada", "parameters": {}, "age": 36}', '{"name": "Ada", "parameters": {}, "age": 36}', []),
        # ... but "type" and "id" are allowed, in any order
        ('{"parameters": {"q": "x"}, "id": "1", "type": "function", "name": "s"}', None, [("s", {"q": "x"})]),
        # a call object nested in a non-call object is read where the outer one broke
        ('{"call": {"name": "f", "parameters": {}}}', '{"call":}', [("f", {})]),
        # arguments as a JSON string holding an object: decoded once
        ('{"name": "f", "arguments": "{\\"x\\": [1, 2]}"}', None, [("f", {"x": [1, 2]})]),
        ('{"name": "f", "arguments": "[1, 2]"}', '{"name": "f", "arguments": "[1, 2]"}', []),
        # several calls in prose, each its own block
        ('A {"name": "f", "parameters": {}} B {"name": "g", "parameters": {}} C', "A B C", [("f", {}), ("g", {})]),
    ],
)
def test_llama3_recovery(text: str, content: str | None, calls: list) -> None:
    assert parsed("llama3", text, **LLAMA) == (None, content, calls)


def test_llama3_python_tag_block_keeps_other_members() -> None:
    # after <|python_tag|> the call is no longer guessed from prose: other members are ignored
    text = '<|python_tag|>{"name": "f", "parameters": {"x": 1}, "note": "n"}'
    assert parsed("llama3", text, **LLAMA) == (None, None, [("f", {"x": 1})])


def _content_deltas(fmt: dict, pieces: list[str]) -> list[str]:
    parser = toklane.get_parser(tokenizer("llama3"), **fmt)
    return [parser.feed(text=p).content for p in pieces]


def test_llama3_prose_braces_are_decided_early() -> None:
    # each piece that cannot open a call is content as soon as it is read (not held to the end)
    out = _content_deltas(LLAMA, ['Write f"{', "name", '}" and {"city"', ": ", '"Paris", "', "zip", '": 1}'])
    assert "".join(out[:2]) == 'Write f"{name'
    assert "".join(out[:4]) == 'Write f"{name}" and {"city":'
    # a possible call is held while it may still be one
    assert _content_deltas(LLAMA, ['ok {"name": "f", "param'])[0] == "ok"


# ----------------------------------------------------------------------------- Hermes


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        ('<tool_call>\n{"name": "f", "arguments": "{\\"x\\": 1}"}\n</tool_call>', None, [("f", {"x": 1})]),
        ('<tool_call>{"name": "f", "arguments": "{}"}</tool_call>', None, [("f", {})]),
        # a string that holds no object fails the call (decoded once only)
        (
            '<tool_call>{"name": "f", "arguments": "\\"{}\\""}</tool_call>',
            '<tool_call>{"name": "f", "arguments": "\\"{}\\""}</tool_call>',
            [],
        ),
        # the comma between objects is not content
        (
            '<tool_call>\n{"name": "f", "arguments": {}},\n{"name": "g", "arguments": {}}\n</tool_call>',
            None,
            [("f", {}), ("g", {})],
        ),
        (
            '<tool_call>{"name": "f", "arguments": {}} , {"name": "g", "arguments": {}},</tool_call>',
            None,
            [("f", {}), ("g", {})],
        ),
        # only one comma is dropped; other text between objects is content
        (
            '<tool_call>{"name": "f", "arguments": {}},, x {"name": "g", "arguments": {}}</tool_call>',
            ", x",
            [("f", {}), ("g", {})],
        ),
        # a JSON list in one block
        (
            '<tool_call>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"y": 1}}]</tool_call>',
            None,
            [("f", {}), ("g", {"y": 1})],
        ),
        # a broken second object after the comma: its text is content, verbatim
        (
            '<tool_call>{"name": "f", "arguments": {}},\n{"name": "g", "arguments": {}</tool_call>',
            '{"name": "g", "arguments": {}</tool_call>',
            [("f", {})],
        ),
        # a broken block does not stop the next one
        (
            '<tool_call>{"name": "f", "arguments": {x}}</tool_call>\n'
            '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
            '<tool_call>{"name": "f", "arguments": {x}}</tool_call>',
            [("g", {})],
        ),
    ],
)
def test_hermes_recovery(text: str, content: str | None, calls: list) -> None:
    assert parsed("qwen3.6", text, **HERMES) == (None, content, calls)


# ----------------------------------------------------------------------------- properties

ALPHA = "abc xyz{}[]\":,;'\\\n0123éš中🚀f"
NAMES = st.sampled_from(["f", "get_weather", "search"])
ARGS = st.dictionaries(st.sampled_from(["a", "city", "q"]), st.integers(-5, 5) | st.text(ALPHA, max_size=6), max_size=3)
PROSE = st.text(ALPHA, max_size=20)
PIECE = st.one_of(
    PROSE,
    st.builds(call, NAMES, ARGS),
    st.builds(lambda n, a: call(n, a)[:-3], NAMES, ARGS),  # truncated / broken
    st.builds(lambda a: json.dumps(a), ARGS),  # a JSON object that is no call
    st.sampled_from(["; ", "{", "}", '{"name": ', '"parameters": {}', "<|python_tag|>"]),
)
SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(PIECE, max_size=6).map("".join))
def test_llama3_streaming_equals_whole(text: str) -> None:
    reasoning, _, calls = parsed("llama3", text, **LLAMA)  # every chunking agrees with parse()
    assert reasoning is None
    for _, args in calls:
        assert isinstance(args, dict)


@SETTINGS
@given(st.lists(st.tuples(PROSE, NAMES, ARGS), min_size=1, max_size=3))
def test_llama3_calls_in_prose_are_found(parts: list) -> None:
    text = " ".join(f"{p.replace('{', '(').replace('}', ')')} {call(n, a)}" for p, n, a in parts)
    _, _, calls = parsed("llama3", text, **LLAMA)
    assert calls == [(n, a) for _, n, a in parts]


HERMES_OBJ = st.one_of(
    st.builds(lambda n, a: json.dumps({"name": n, "arguments": a}, ensure_ascii=False), NAMES, ARGS),
    st.builds(lambda n, a: json.dumps({"name": n, "arguments": json.dumps(a)}, ensure_ascii=False), NAMES, ARGS),
    st.builds(lambda n, a: json.dumps({"name": n, "arguments": a})[:-2], NAMES, ARGS),
)


@SETTINGS
@given(
    st.lists(st.lists(HERMES_OBJ, min_size=1, max_size=3), max_size=3),
    st.sampled_from([",\n", ", ", "\n", ",", " x "]),
    PROSE,
)
def test_hermes_streaming_equals_whole(blocks: list, sep: str, prose: str) -> None:
    text = prose.replace("<", "(") + "".join(f"<tool_call>\n{sep.join(b)}\n</tool_call>" for b in blocks)
    _, _, calls = parsed("qwen3.6", text, **HERMES)
    for _, args in calls:
        assert isinstance(args, dict)


@pytest.mark.parametrize(
    ("tok", "fmt", "output", "expected"),
    [
        # A tool without parameters written without them (SGLang's JSON detectors default them to {}).
        (
            "qwen3.6",
            {"tools": "hermes"},
            '<tool_call>\n{"name": "get_time"}\n</tool_call>',
            (None, None, [("get_time", {})]),
        ),
        (
            "cohere-command3-test",
            {"tools": "cohere_command"},
            '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time"}]<|END_ACTION|>',
            (None, None, [("get_time", {})]),
        ),
        ("llama3", {"tools": "llama3_json"}, '<|python_tag|>{"name": "get_time"}', (None, None, [("get_time", {})])),
        # ... but a brace in prose needs its arguments to be a call.
        ("llama3", {"tools": "llama3_json"}, 'Hi {"name": "Alice"} there', (None, 'Hi {"name": "Alice"} there', [])),
        # A trailing comma in a call list.
        (
            "cohere-command3-test",
            {"tools": "cohere_command"},
            '<|START_ACTION|>[\n  {"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}},\n]<|END_ACTION|>',
            (None, None, [("f", {"a": 1})]),
        ),
    ],
)
def test_json_calls_without_arguments_and_trailing_commas(tok: str, fmt: dict, output: str, expected: tuple) -> None:
    assert parsed(tok, output, **fmt) == expected
