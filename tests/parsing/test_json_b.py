"""InternLM / Intern-S1, GigaChat 3 and Apertus, and the peer names that are aliases of other formats.

Outputs are written as the families' chat templates and model cards write them; each is
parsed in every way (text, ids, every chunking) and must give exactly the expected result.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toklane

from .cases.json_b import APERTUS, GIGACHAT, INTERNLM
from .helpers import parsed, register_tokenizer, tokenizer

#: Nanbeige4: <think>, </think>, <tool_call>, </tool_call> are added tokens (ids 166103-166106).
NANBEIGE = register_tokenizer(
    "nanbeige-test",
    [
        "<unk>",
        "<s>",
        "</s>",
        "<|im_start|>",
        "<|im_end|>",
        "<|endoftext|>",
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
    ],
)

#: Ling 3 (inclusionAI): the reasoning and GLM-style tool tags are added tokens (vLLM matches them by id).
LING3 = register_tokenizer(
    "ling3-test",
    ["<think>", "</think>", "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
)

Call = tuple[str, dict[str, Any]]


def check(tok_name: str, text: str, fmt: dict[str, Any], reasoning: str | None, content: str | None, calls: list[Call]):
    """``text`` parses to exactly these parts, in every way it can be fed."""
    assert parsed(tok_name, text, **fmt) == (reasoning, content, calls)


# --------------------------------------------------------------------------- internlm

IL = {"tools": "internlm"}
WEATHER = ("get_current_weather", {"location": "Shanghai"})


def test_internlm_chat_format_example() -> None:
    text = (
        "Sure, I will search for the weather of Shanghai.<|action_start|><|plugin|>\n"
        '{"name": "get_current_weather", "parameters": {"location": "Shanghai"}}<|action_end|><|im_end|>'
    )
    check(INTERNLM, text, IL, None, "Sure, I will search for the weather of Shanghai.", [WEATHER])


def test_internlm_variants_of_the_block() -> None:
    # A detokenizer that spaces special tokens; "arguments" for "parameters"; no <|action_end|> (a stop token).
    text = '<|action_start|> <|plugin|>\n{"name": "get_current_weather", "arguments": {"location": "Shanghai"}}'
    check(INTERNLM, text, IL, None, None, [WEATHER])
    # Pretty-printed JSON, as Intern-S1's prompt shows it, and no <|plugin|> at all.
    text = '<|action_start|>\n{\n    "name": "f",\n    "parameters": {\n        "x": [1, 2]\n    }\n}\n<|action_end|>'
    check(INTERNLM, text, IL, None, None, [("f", {"x": [1, 2]})])


def test_internlm_sequential_calls_and_text_after() -> None:
    text = (
        'Two lookups.\n<|action_start|><|plugin|>\n{"name": "a", "parameters": {}}<|action_end|>\n'
        '<|action_start|><|plugin|>\n{"name": "b", "parameters": {"k": "ü🚀"}}<|action_end|>\nDone.'
    )
    check(INTERNLM, text, IL, None, "Two lookups.\nDone.", [("a", {}), ("b", {"k": "ü🚀"})])


def test_internlm_interpreter_block_is_content_verbatim() -> None:
    text = "I processed it.\n\n<|action_start|><|interpreter|>\n```python\nprint(1)\n```<|action_end|>\n"
    check(INTERNLM, text, IL, None, text, [])


@pytest.mark.parametrize(
    "text",
    [
        '<|action_start|><|plugin|>\n{"name": "f", "parameters": {"city": "Par',  # cut off
        "<|action_start|><|plugin|>\n{'name': 'f', 'parameters': {}}<|action_end|>",  # Python, not JSON
        '<|action_start|><|plugin|>\n{"parameters": {"a": 1}}<|action_end|>',  # no name
        '<|action_start|><|plugin|>\n{"name": "f", "parameters": [1]}<|action_end|>',  # arguments no object
    ],
)
def test_internlm_broken_calls_are_content_verbatim(text: str) -> None:
    check(INTERNLM, text, IL, None, text, [])


def test_intern_s1_reasoning_and_calls_on_a_qwen3_vocabulary() -> None:
    # Intern-S1 is prompted to write the InternLM tags, which its Qwen3 vocabulary spells as ordinary text.
    text = (
        "<think>\nThe user wants the weather.\n</think>\n\nI will check.\n\n<|action_start|><|plugin|>\n"
        '{\n    "name": "get_weather",\n    "parameters": {\n        "city": "Paris"\n    }\n}\n<|action_end|>'
    )
    want = ("The user wants the weather.", "I will check.", [("get_weather", {"city": "Paris"})])
    check("qwen3", text, {"reasoning": "interns1", "tools": "interns1"}, *want)
    check("qwen3", text, {"reasoning": "qwen3", "tools": "internlm"}, *want)


# --------------------------------------------------------------------------- gigachat3

GC = {"tools": "gigachat3"}
MEMORY = ("manage_user_memory", {"action": "create", "id": "preferences"})
MEMORY_JSON = '{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences"}}'


def test_gigachat3_function_call_turn() -> None:
    text = f"I'll remember that.<|message_sep|>\n\nfunction call<|role_sep|>\n{MEMORY_JSON}</s>"
    check(GIGACHAT, text, GC, None, "I'll remember that.", [MEMORY])
    check(
        GIGACHAT,
        f"<|message_sep|>\n\nfunction call<|role_sep|>\n{MEMORY_JSON}<|message_sep|>",
        GC,
        None,
        None,
        [MEMORY],
    )


def test_gigachat3_nested_arguments_and_two_turns() -> None:
    args = {"action": "create", "content": {"likes": ["short", "clear"], "emoji": False}, "n": 2.5}
    one = json.dumps({"name": "manage_user_memory", "arguments": args}, ensure_ascii=False)
    text = (
        f"Запомню.<|message_sep|>\n\nfunction call<|role_sep|>\n{one}<|message_sep|>\n\nfunction call<|role_sep|>\n{{}}"
    )
    # The second turn's object has no name: its raw text is content.
    check(GIGACHAT, text, GC, None, "Запомню.\n\nfunction call<|role_sep|>\n{}", [("manage_user_memory", args)])


def test_gigachat3_phrase_inside_arguments_is_text() -> None:
    args = {"query": "what is a function call?", "note": "function call\\n"}
    text = "function call<|role_sep|>\n" + json.dumps({"name": "search", "arguments": args})
    check(GIGACHAT, text, GC, None, None, [("search", args)])


def test_gigachat31_function_call_token() -> None:
    text = 'Checking.<|function_call|>{"name": "get_weather", "arguments": {"city": "Moscow"}}'
    check(GIGACHAT, text, GC, None, "Checking.", [("get_weather", {"city": "Moscow"})])


def test_gigachat3_call_without_arguments_has_none() -> None:
    check(
        GIGACHAT,
        "function call<|role_sep|>\n" + '{"name": "manage_user_memory"}',
        GC,
        None,
        None,
        [("manage_user_memory", {})],
    )


def test_gigachat3_without_the_role_separator() -> None:
    # A server that skipped special tokens hands over "function call{...}".
    check(GIGACHAT, f"Ok.\nfunction call\n{MEMORY_JSON}", GC, None, "Ok.", [MEMORY])


@pytest.mark.parametrize(
    "text",
    [
        "A function call is how I reach my tools.",
        "function call<|role_sep|>\n" + '{"name": "manage_user_memory", "arguments": {invalid json}}',
        "function call<|role_sep|>\n" + '{"arguments": {"action": "create"}}',  # no name
        "function call<|role_sep|>\n" + '{"name": "manage_user_memory", "arguments": "string_args"}',
        "function call<|role_sep|>\n" + '{"name": "get_weather", "arguments": {"city": "London"',  # cut off
    ],
)
def test_gigachat3_prose_and_broken_calls_are_content_verbatim(text: str) -> None:
    check(GIGACHAT, text, GC, None, text, [])


# --------------------------------------------------------------------------- apertus

AP = {"reasoning": "apertus", "tools": "apertus"}


def test_apertus_reasoning_then_parallel_calls() -> None:
    text = (
        "<|inner_prefix|>I need the weather and the time.<|inner_suffix|>Let me check.<|tools_prefix|>"
        '[{"get_weather": {"city": "Paris"}}, {"get_time": {"tz": "Europe/Paris"}}]<|tools_suffix|>'
    )
    calls = [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "Europe/Paris"})]
    check(APERTUS, text, AP, "I need the weather and the time.", "Let me check.", calls)


def test_apertus_text_around_blocks() -> None:
    text = 'before<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"now": {}}]<|tools_suffix|>after'
    check(APERTUS, text, AP, None, "beforeafter", [("get_weather", {"city": "Paris"}), ("now", {})])
    text = '<|tools_prefix|>[{"a": {}}]<|tools_suffix|>middle<|tools_prefix|>[{"b": {"x": 1}}]  <|tools_suffix|>'
    check(APERTUS, text, AP, None, "middle", [("a", {}), ("b", {"x": 1})])


def test_apertus_recoveries() -> None:
    # A bare object without the array, no <|tools_suffix|> at the end, opened inside the reasoning.
    text = '<|inner_prefix|>Search first.<|tools_prefix|>{"search": {"query": "Apertus"}}'
    check(APERTUS, text, AP, "Search first.", None, [("search", {"query": "Apertus"})])
    # Cut off after a complete call, before the array closes: the call stands.
    check(
        APERTUS,
        '<|tools_prefix|>[{"get_weather": {"city": "Paris"}}',
        AP,
        None,
        None,
        [("get_weather", {"city": "Paris"})],
    )
    # The template pre-filled <|inner_prefix|>.
    text = 'Thinking.<|inner_suffix|>\n<|tools_prefix|>[{"f": {"a": [1, {"b": null}]}}]<|tools_suffix|>'
    check(APERTUS, text, {**AP, "thinking": True}, "Thinking.", None, [("f", {"a": [1, {"b": None}]})])


@pytest.mark.parametrize(
    "text",
    [
        '<|tools_prefix|>[{"get_weather": {"city": "Par',  # cut off inside the arguments
        "<|tools_prefix|>[invalid json <|tools_suffix|>",
        '<|tools_prefix|>[{"get_weather": "Paris"}]<|tools_suffix|>',  # arguments no object
        '<|tools_prefix|>[{"name": "f", "arguments": {}, "x": 1}]<|tools_suffix|>',  # two members: not a mapping
    ],
)
def test_apertus_broken_blocks_are_content_verbatim(text: str) -> None:
    check(APERTUS, text, AP, None, text, [])


def test_apertus_reasoning_alone() -> None:
    check(
        APERTUS,
        "<|inner_prefix|>Short.<|inner_suffix|>The answer is 4.",
        {"reasoning": "apertus"},
        "Short.",
        "The answer is 4.",
        [],
    )
    check(APERTUS, "The answer is 4.", {"reasoning": "apertus"}, None, "The answer is 4.", [])


# --------------------------------------------------------------------------- peer names

ALIASES = [
    ("tools", "interns1", "internlm"),
    ("reasoning", "interns1", "qwen3"),
    ("tools", "apertus2509", "apertus"),
    ("reasoning", "apertus2509", "apertus"),
    ("tools", "nanbeige", "qwen3_coder"),
    ("reasoning", "nanbeige", "qwen3"),
    ("tools", "trinity", "hermes"),
    ("tools", "ling3", "glm47"),
    ("reasoning", "ling3", "glm47"),
]


@pytest.mark.parametrize("kind, alias, name", ALIASES)
def test_peer_names_resolve_to_their_formats(kind: str, alias: str, name: str) -> None:
    catalog = toklane.parsing.api.format_catalog()
    assert alias in next(row for row in catalog[kind] if row["name"] == name)["aliases"]


@pytest.mark.parametrize(
    "tok, fmt, canonical, text",
    [
        (
            INTERNLM,
            {"tools": "interns1"},
            {"tools": "internlm"},
            '<|action_start|><|plugin|>\n{"name": "f", "parameters": {}}',
        ),
        (
            APERTUS,
            {"reasoning": "apertus2509", "tools": "apertus2509"},
            AP,
            '<|inner_prefix|>r<|inner_suffix|>c<|tools_prefix|>[{"f": {"a": 1}}]<|tools_suffix|>',
        ),
        (
            NANBEIGE,
            {"reasoning": "nanbeige", "tools": "nanbeige"},
            {"reasoning": "qwen3", "tools": "qwen3_coder"},
            "Plan.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "</function>\n</tool_call>",
        ),
        (
            "qwen3",
            {"reasoning": "deepseek_r1", "tools": "trinity"},
            {"reasoning": "deepseek_r1", "tools": "hermes"},
            'Look it up.\n<tool_call>\n{"name": "search", "arguments": {"q": "x"}}\n</tool_call>',
        ),
    ],
)
def test_aliases_parse_like_their_formats(tok: str, fmt: dict, canonical: dict, text: str) -> None:
    t = tokenizer(tok)
    alias = toklane.parse(t, text=text, **fmt)
    assert alias.tool_calls and [(c.name, c.arguments) for c in alias.tool_calls] == [
        (c.name, c.arguments) for c in toklane.parse(t, text=text, **canonical).tool_calls
    ]
    assert (alias.reasoning, alias.content) == (lambda r: (r.reasoning, r.content))(
        toklane.parse(t, text=text, **canonical)
    )


def test_nanbeige_output() -> None:
    text = (
        "The user asks for the weather.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
        "</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    schema = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
            },
        }
    ]
    fmt = {"reasoning": "nanbeige", "tools": "nanbeige", "tools_schema": schema}
    check(NANBEIGE, text, fmt, "The user asks for the weather.", None, [("get_weather", {"city": "Paris", "days": 3})])


def test_ling3_output() -> None:
    # Thinking is on by default: the output starts inside reasoning; a call ends it, with or without </think>.
    text = (
        "The user wants the weather.</think>Let me check.<tool_call>get_weather<arg_key>city</arg_key>"
        "<arg_value>Paris</arg_value></tool_call><tool_call>now</tool_call>"
    )
    calls = [("get_weather", {"city": "Paris"}), ("now", {})]
    check(LING3, text, {"reasoning": "ling3", "tools": "ling3"}, "The user wants the weather.", "Let me check.", calls)
    text = "Need data.\n<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>ling</arg_value>\n</tool_call>"
    check(LING3, text, {"reasoning": "ling3", "tools": "ling3"}, "Need data.", None, [("search", {"q": "ling"})])
    check(LING3, "Hello.", {"reasoning": "ling3", "tools": "ling3", "thinking": False}, None, "Hello.", [])
