"""Granite, Hunyuan-A13B, Jamba, xLAM, Phi-4-mini, LongCat and ERNIE 4.5: realistic outputs, the malformed
shapes the peers recover, truncation, aliases -- and the options of the JSON call grammar itself."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toklane
from toklane.errors import MissingTokenError
from toklane.parsing.block import ENDED, FAILED, OPEN
from toklane.parsing.bodies.json_calls import JsonCalls

from .cases.json_a import ERNIE, GRANITE3, GRANITE4, GRANITE20B, HUNYUAN, JAMBA, LONGCAT
from .helpers import parsed, tokenizer

parse = parsed


WEATHER = ("get_weather", {"city": "Tokyo"})


# --------------------------------------------------------------------------- granite (3.x)


def test_granite_list_after_the_token() -> None:
    text = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]'
    assert parse(GRANITE3, text, tools="granite") == (None, None, [WEATHER])


def test_granite_parallel_calls_and_text_marker() -> None:
    text = """<tool_call> [
  {"name": "get_weather", "arguments": {"city": "Tokyo"}},
  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}
]"""
    assert parse(GRANITE3, text, tools="granite") == (
        None,
        None,
        [WEATHER, ("get_time", {"timezone": "Asia/Tokyo"})],
    )


def test_granite_arguments_before_name() -> None:
    text = '<|tool_call|>[{"arguments": {"x": 42}, "name": "a"}, {"arguments": {"y": 7}, "name": "b"}]'
    assert parse(GRANITE3, text, tools="granite") == (None, None, [("a", {"x": 42}), ("b", {"y": 7})])


def test_granite_text_around_the_list_is_content() -> None:
    text = (
        "Let me check the weather for you.\n"
        '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\n'
        "I'll get that information."
    )
    assert parse(GRANITE3, text, tools="granite") == (
        None,
        "Let me check the weather for you.\nI'll get that information.",
        [WEATHER],
    )


def test_granite_single_object_is_accepted() -> None:
    text = '<|tool_call|> {"name": "func", "arguments": {}}'
    assert parse(GRANITE3, text, tools="granite") == (None, None, [("func", {})])


def test_granite_call_without_arguments_is_a_call_with_none() -> None:
    assert parse(GRANITE3, '<|tool_call|>[{"name": "func"}]', tools="granite") == (None, None, [("func", {})])


@pytest.mark.parametrize(
    "text",
    [
        '<|tool_call|> [{"name": "func", "arguments": {',  # truncated
        '<|tool_call|>[{"name": "func", "arguments": "not a dict"}]',
        'Some text [{"name": "func", "arguments": {}}]',  # no marker
    ],
)
def test_granite_broken_calls_are_content(text: str) -> None:
    assert parse(GRANITE3, text, tools="granite") == (None, text, [])


def test_granite_tool_call_token_is_required() -> None:
    with pytest.raises(MissingTokenError):
        toklane.get_parser(toklane.load_tokenizer("llama3"), tools="granite")


def test_granite_reasoning_headings() -> None:
    text = (
        "Here is my thought process:\nThe user asks for Tokyo's weather.\nHere is my response:\nIt is sunny in Tokyo."
    )
    assert parse(GRANITE3, text, reasoning="granite") == (
        "The user asks for Tokyo's weather.",
        "It is sunny in Tokyo.",
        [],
    )
    quantized = "Here's my thought process:\nShort.\nHere's my response:\nDone."
    assert parse("cl100k_base", quantized, reasoning="granite") == ("Short.", "Done.", [])


def test_granite_reasoning_then_call() -> None:
    text = (
        "Here is my thought process:\nI need the weather tool.\nHere is my response:\n"
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]'
    )
    assert parse(GRANITE3, text, reasoning="granite", tools="granite") == ("I need the weather tool.", None, [WEATHER])


def test_granite_reasoning_is_not_prefilled_and_may_be_cut_off() -> None:
    assert parse(GRANITE3, "Hello! How can I help?", reasoning="granite") == (None, "Hello! How can I help?", [])
    assert parse(GRANITE3, "Here is my thought process:\nStill", reasoning="granite") == ("Still", None, [])


# --------------------------------------------------------------------------- granite4, granite_thinking


def test_granite4_calls_and_text_between() -> None:
    text = (
        "I'll look both up.\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>'
    )
    assert parse(GRANITE4, text, tools="granite4") == (
        None,
        "I'll look both up.",
        [WEATHER, ("get_time", {"timezone": "Asia/Tokyo"})],
    )


def test_granite4_missing_end_tag_and_truncation() -> None:
    complete = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
    assert parse(GRANITE4, complete, tools="granite4") == (None, None, [WEATHER])
    cut = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "To'
    assert parse(GRANITE4, cut, tools="granite4") == (None, cut, [])


def test_granite_thinking_with_calls() -> None:
    text = (
        "The user wants the weather.\n</think>\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>'
    )
    assert parse(GRANITE4, text, reasoning="granite_thinking", tools="granite4") == (
        "The user wants the weather.",
        None,
        [WEATHER],
    )
    # A call opened inside reasoning ends it.
    opened = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>'
    assert parse(GRANITE4, opened, reasoning="granite_thinking", tools="granite4") == ("Checking.", None, [WEATHER])


def test_granite_thinking_content_and_thinking_off() -> None:
    assert parse(GRANITE4, "Short.\n</think>\nHello!", reasoning="granite_thinking") == ("Short.", "Hello!", [])
    assert parse(GRANITE4, "Hello!", reasoning="granite_thinking", thinking=False) == (None, "Hello!", [])


# --------------------------------------------------------------------------- granite_20b_fc


def test_granite_20b_fc_calls() -> None:
    text = (
        '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
        '<function_call> {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}'
    )
    assert parse(GRANITE20B, text, tools="granite_20b_fc") == (
        None,
        None,
        [WEATHER, ("get_time", {"timezone": "Asia/Tokyo"})],
    )


def test_granite_20b_fc_content_and_truncated_second_call() -> None:
    text = (
        "Sure.\n"
        '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
        '<function_call> {"name": "get_time", "arguments": {"timez'
    )
    assert parse(GRANITE20B, text, tools="granite_20b_fc") == (
        None,
        'Sure.\n<function_call> {"name": "get_time", "arguments": {"timez',
        [WEATHER],
    )


def test_granite_20b_fc_text_after_a_call_is_content() -> None:
    text = 'Sure.\n<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\nDone.'
    assert parse(GRANITE20B, text, tools="granite_20b_fc") == (None, "Sure.\nDone.", [WEATHER])


# --------------------------------------------------------------------------- hunyuan_a13b


def test_hunyuan_thinking_and_answer() -> None:
    text = "<think>\nThe user greets me.\n</think>\n<answer>\nHello! How can I help?\n</answer>"
    assert parse(HUNYUAN, text, reasoning="hunyuan_a13b") == ("The user greets me.", "Hello! How can I help?", [])


def test_hunyuan_thinking_disabled() -> None:
    # enable_thinking=False: the prompt ends with "<think>\n\n</think>\n"; the output is the answer.
    assert parse(HUNYUAN, "<answer>\nHello!\n</answer>", reasoning="hunyuan_a13b") == (None, "Hello!", [])


def test_hunyuan_tool_calls_in_the_answer() -> None:
    text = (
        "<think>\n用户想知道北京的天气。\n</think>\n<answer>\n"
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "北京"}}, '
        '{"name": "get_time", "arguments": {}}]</tool_calls>\n</answer>'
    )
    assert parse(HUNYUAN, text, reasoning="hunyuan_a13b", tools="hunyuan_a13b") == (
        "用户想知道北京的天气。",
        None,
        [("get_weather", {"city": "北京"}), ("get_time", {})],
    )


def test_hunyuan_missing_closers_and_truncation() -> None:
    text = '<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]'
    assert parse(HUNYUAN, text, reasoning="hunyuan_a13b", tools="hunyuan_a13b") == (None, None, [WEATHER])
    cut = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get'
    # The call that broke is content from the end of the last complete one.
    assert parse(HUNYUAN, "<answer>\n" + cut, reasoning="hunyuan_a13b", tools="hunyuan_a13b") == (
        None,
        ', {"name": "get',
        [WEATHER],
    )


def test_hunyuan_tool_calls_inside_reasoning_end_it() -> None:
    text = (
        '<think>\nI will call it.\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]</tool_calls>'
    )
    assert parse(HUNYUAN, text, reasoning="hunyuan_a13b", tools="hunyuan_a13b") == ("I will call it.", None, [WEATHER])


def test_hunyuan_alias() -> None:
    text = "<think>\nHi.\n</think>\n<answer>\nHello.\n</answer>"
    assert parse(HUNYUAN, text, reasoning="hunyuan") == parse(HUNYUAN, text, reasoning="hunyuan_a13b")


# --------------------------------------------------------------------------- jamba


def test_jamba_calls() -> None:
    text = (
        "Let me check.\n<tool_calls>["
        '{"name": "get_weather", "arguments": {"city": "Tokyo"}}, '
        '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}]</tool_calls>'
    )
    assert parse(JAMBA, text, tools="jamba") == (
        None,
        "Let me check.",
        [WEATHER, ("get_time", {"timezone": "Asia/Tokyo"})],
    )


def test_jamba_missing_end_token_and_broken_list() -> None:
    text = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]'
    assert parse(JAMBA, text, tools="jamba") == (None, None, [WEATHER])
    no_comma = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}} {"name": "x"}]</tool_calls>'
    assert parse(JAMBA, no_comma, tools="jamba") == (None, None, [WEATHER, ("x", {})])
    broken = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}} "x"]</tool_calls>'
    assert parse(JAMBA, broken, tools="jamba") == (None, '"x"]</tool_calls>', [WEATHER])


def test_jamba_tokens_are_required() -> None:
    with pytest.raises(MissingTokenError):
        toklane.get_parser(toklane.load_tokenizer("llama3"), tools="jamba")


# --------------------------------------------------------------------------- xlam

XLAM_CALL = '[{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX"}}]'
DALLAS = ("get_current_weather", {"city": "Dallas", "state": "TX"})


@pytest.mark.parametrize(
    "text, content",
    [
        (XLAM_CALL, None),
        (f"```json\n{XLAM_CALL}\n```", None),
        (f"I'll check the weather for you.[TOOL_CALLS]{XLAM_CALL}", "I'll check the weather for you."),
        (f"I'll help you check the weather.<tool_call>{XLAM_CALL}</tool_call>", "I'll help you check the weather."),
        (f"[TOOL_CALLS]```json\n{XLAM_CALL}\n```", None),
        (f"<tool_call>{XLAM_CALL[1:-1]}</tool_call>", None),  # one object, no list
    ],
)
def test_xlam_shapes(text: str, content: str | None) -> None:
    assert parse("llama3", text, tools="xlam") == (None, content, [DALLAS])


def test_xlam_parallel_calls_after_reasoning() -> None:
    text = (
        "<think>I'll help you with that.</think>"
        '[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "```"}}]'
    )
    assert parse("qwen3", text, reasoning="qwen3", tools="xlam") == (
        "I'll help you with that.",
        None,
        [("a", {"x": 1}), ("b", {"y": "```"})],
    )


def test_xlam_plain_text_and_markdown_stay_content() -> None:
    for text in ("This is a test", "`code` and [a link]", "```python\nprint(1)\n```"):
        assert parse("llama3", text, tools="xlam") == (None, text, [])


def test_xlam_fence_after_text_is_not_read() -> None:
    # Known gap: a fenced list after other text stays content (the fence is read only where a block starts).
    text = f"I'll help you with that.\n```json\n{XLAM_CALL}\n```"
    assert parse("llama3", text, tools="xlam") == (None, text, [])


# --------------------------------------------------------------------------- phi4_mini_json


def test_phi4_mini_calls() -> None:
    text = 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "f", "parameters": {"a": "]"}}]'
    assert parse("o200k_base", text, tools="phi4_mini_json") == (None, None, [WEATHER, ("f", {"a": "]"})])


def test_phi4_mini_functools_in_prose_is_content() -> None:
    text = "Use functools.partial from the functools module."
    assert parse("o200k_base", text, tools="phi4_mini_json") == (None, text, [])


# --------------------------------------------------------------------------- longcat


def test_longcat_calls() -> None:
    text = (
        "Checking.\n<longcat_tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</longcat_tool_call>\n'
        '<longcat_tool_call>\n{"name": "get_time", "arguments": {}}'
    )
    assert parse(LONGCAT, text, tools="longcat") == (None, "Checking.", [WEATHER, ("get_time", {})])


# --------------------------------------------------------------------------- ernie45


def test_ernie_reasoning_and_response() -> None:
    text = "The user greets me.\n</think>\n\n<response>\nHello!\n</response>\n"
    assert parse(ERNIE, text, reasoning="ernie45") == ("The user greets me.", "Hello!", [])
    assert parse(ERNIE, "abc</think>def", reasoning="ernie45") == ("abc", "def", [])
    assert parse(ERNIE, "abc\nABC</think>def\nDEF", reasoning="ernie45") == ("abc\nABC", "def\nDEF", [])
    assert parse(ERNIE, "abc", reasoning="ernie45") == ("abc", None, [])


def test_ernie_reasoning_then_calls() -> None:
    text = (
        "I need to call two tools to handle these two issues separately.\n</think>\n\n"
        '<tool_call>\n{"name": "get_current_temperature", "arguments": {"location": "Beijing"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_temperature_unit", "arguments": {"location": "Guangzhou", "unit": "c"}}\n'
        "</tool_call>\n"
    )
    assert parse(ERNIE, text, reasoning="ernie45", tools="ernie45") == (
        "I need to call two tools to handle these two issues separately.",
        None,
        [
            ("get_current_temperature", {"location": "Beijing"}),
            ("get_temperature_unit", {"location": "Guangzhou", "unit": "c"}),
        ],
    )


def test_ernie_think_tokens_are_required() -> None:
    with pytest.raises(MissingTokenError):
        toklane.get_parser(toklane.load_tokenizer("llama3"), reasoning="ernie45")


# --------------------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    "tok, kind, alias, name, text",
    [
        (GRANITE20B, "tools", "granite-20b-fc", "granite_20b_fc", '<function_call> {"name": "f", "arguments": {}}'),
        (GRANITE4, "reasoning", "granite_thinking_parser", "granite_thinking", "Hmm.</think>Hi."),
        (HUNYUAN, "reasoning", "hunyuan", "hunyuan_a13b", "<think>\nHmm.\n</think>\n<answer>\nHi.\n</answer>"),
    ],
)
def test_aliases(tok: str, kind: str, alias: str, name: str, text: str) -> None:
    assert parse(tok, text, **{kind: alias}) == parse(tok, text, **{kind: name})


def test_argument_streaming_of_a_list() -> None:
    tok = tokenizer(GRANITE3)
    text = '<|tool_call|>[{"name": "a", "arguments": {"s": "x y z"}}, {"name": "b", "arguments": {}}]'
    parser = toklane.get_parser(tok, tools="granite", stream_arguments=True)
    deltas = [parser.feed(token_ids=[i]) for i in tok.encode(text)] + [parser.finish()]
    pieces = [c for d in deltas for c in d.tool_calls]
    assert [p.name for p in pieces if p.name] == ["a", "b"]
    assert len([p for p in pieces if p.index == 0]) > 2  # the first call's arguments came in pieces
    args = {0: "", 1: ""}
    for p in pieces:
        args[p.index] += p.arguments
    assert {k: json.loads(v) for k, v in args.items()} == {0: {"s": "x y z"}, 1: {}}


# --------------------------------------------------------------------------- the grammar's options


class Sink:
    """Records what a body reports."""

    def __init__(self) -> None:
        self.calls: list[list[Any]] = []
        self.junked: list[str] = []

    def call_open(self) -> None:
        self.calls.append(["", []])

    def call_name(self, name: str, call_id: str | None = None) -> None:
        self.calls[-1][0] = name

    def call_args(self, fragment: str) -> None:
        self.calls[-1][1].append(fragment)

    def call_done(self) -> None:
        self.calls[-1].append("done")

    def call_fail(self) -> None:
        pass

    def junk(self, text: str) -> None:
        self.junked.append(text)

    def param_types(self, function: str, param: str) -> list[str] | None:
        return None


def run(pieces: list[str | tuple[str]], **options: Any) -> tuple[int, list[tuple[str, Any]], str]:
    """Feed text pieces (and markers, as 1-tuples of their role) to a JsonCalls body; finish at the end.
    Returns the status, the completed calls and the text left unread when the block ended."""
    sink = Sink()
    body = JsonCalls(sink, None, **options)  # type: ignore[arg-type]
    rest = ""
    for piece in pieces:
        if body.status != OPEN:
            rest += piece if isinstance(piece, str) else f"<{piece[0]}>"
            continue
        if isinstance(piece, tuple):
            if not body.marker(piece[0], ""):
                rest += f"<{piece[0]}>"
            continue
        i = 0
        while i < len(piece) and body.status == OPEN:
            i = body.text(piece, i)
            body.checkpoint = False
        rest += piece[i:]
    if body.status == OPEN:
        body.finish()
    done = [(c[0], json.loads("".join(c[1]))) for c in sink.calls if c[-1] == "done"]
    return body.status, done, rest


def test_option_array() -> None:
    assert run(['[{"name": "a", "arguments": {}}] tail'], array=True) == (ENDED, [("a", {})], " tail")
    assert run(['{"name": "a", "arguments": {}}'], array=True)[0] == FAILED
    assert run(['{"name": "a", "arguments": {}}'], array=None) == (ENDED, [("a", {})], "")
    assert run(['[{"name": "a", "arguments": {}}]'], array=False)[0] == FAILED


def test_option_end_role_after_a_list() -> None:
    calls = '[{"name": "a", "arguments": {}}]'
    assert run([calls, " \n", ("end",), "tail"], array=True, end_role="end") == (ENDED, [("a", {})], "tail")
    assert run([calls, " \n"], array=True, end_role="end") == (ENDED, [("a", {})], "")  # end marker missing
    assert run([calls, "x"], array=True, end_role="end") == (ENDED, [("a", {})], "x")


def test_option_keys_and_mapping() -> None:
    cohere = '[{"tool_call_id": "0", "tool_name": "a", "parameters": {"q": 1}}]'
    assert run([cohere], array=True, name_keys=("tool_name",), args_keys=("parameters",))[1] == [("a", {"q": 1})]
    assert run([cohere], array=True)[0] == FAILED  # no "name"
    mapped = '[{"a": {"q": 1}}, {"b": {}}]'
    assert run([mapped], array=True, mapping=True)[1] == [("a", {"q": 1}), ("b", {})]
    assert run(['[{"a": {}, "b": {}}]'], array=True, mapping=True)[0] == FAILED  # one member per call
    assert run(['[{"": {}}]'], array=True, mapping=True)[0] == FAILED


def test_option_lead() -> None:
    assert run([("plugin",), '{"name": "a", "arguments": {}}'], lead=("plugin",))[1] == [("a", {})]
    assert run([("other",), '{"name": "a", "arguments": {}}'], lead=("plugin",))[0] == FAILED


@pytest.mark.parametrize(
    "pieces, result",
    [
        (["```json\n", '[{"name": "a", "arguments": {}}]', "\n```", "tail"], (ENDED, [("a", {})], "tail")),
        (["`", "``", "js", "on", '{"name": "a", "arguments": {}}', "`", "``"], (ENDED, [("a", {})], "")),
        (['```\n[{"name": "a", "arguments": {"s": "```"}}]\n```'], (ENDED, [("a", {"s": "```"})], "")),
        (['```json\n[{"name": "a", "arguments": {}}]'], (ENDED, [("a", {})], "")),  # closing fence missing
        (['```json\n[{"name": "a", "arguments": {}}]\n``x'], (ENDED, [("a", {})], "x")),
        (["``x"], (FAILED, [], "x")),
        (["```python\nprint(1)\n```"], (FAILED, [], "print(1)\n```")),
    ],
)
def test_option_fence(pieces: list[str], result: tuple) -> None:
    assert run(pieces, array=None, fence=True) == result


def test_broken_closing_fence_backticks_are_content() -> None:
    sink = Sink()
    body = JsonCalls(sink, None, array=True, fence=True)  # type: ignore[arg-type]
    text = '```json\n[{"name": "a", "arguments": {}}]\n``x'
    i = 0
    while body.status == OPEN:
        i = body.text(text, i)
    assert body.status == ENDED and sink.junked == ["``"]


def test_self_terminating_call_leaves_the_whitespace_after_it() -> None:
    assert run(['{"name": "a", "arguments": {}}\nDone']) == (ENDED, [("a", {})], "\nDone")
    assert run(['{"name": "a", "arguments": {}}{"name": "b", "arguments": {}}'])[1] == [("a", {}), ("b", {})]
    assert run(['{"name": "a", "arguments": {}} ; {"name": "b", "arguments": {}}'], seps=";")[1] == [
        ("a", {}),
        ("b", {}),
    ]
