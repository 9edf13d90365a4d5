"""count_tokens, render_chat and truncate_messages."""

from __future__ import annotations

import pytest

import toklane

CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21}'},
    {"role": "assistant", "content": [{"type": "text", "text": "It is 21 °C in Paris."}]},
    {"role": "user", "content": "Thanks! And tomorrow?"},
]

MARKER_FORMATS = ["qwen3.6", "qwen3", "llama3", "deepseek-v4", "o200k_harmony", "mistral-tekken"]


def test_text_count_is_encode_length():
    for name in ("qwen3.6", "cl100k_base", "deepseek-v4"):
        text = "Counting 日本語 tokens <think> works 🚀"
        assert toklane.count_tokens(text, model=name) == len(toklane.load_tokenizer(name).encode(text))
    assert toklane.count_tokens("hello") == toklane.load_tokenizer("qwen3.6").count("hello")  # default model


@pytest.mark.parametrize("name", MARKER_FORMATS)
@pytest.mark.parametrize("gen", [False, True])
def test_message_count_equals_encoding_the_rendered_prompt(name, gen):
    if name == "mistral-tekken":
        pytest.importorskip("mistral_common")
    tok = toklane.load_tokenizer(name)
    prompt = toklane.render_chat(CONVERSATION, model=name, add_generation_prompt=gen)
    assert toklane.count_tokens(CONVERSATION, model=name, add_generation_prompt=gen) == len(tok.encode(prompt))


def test_chatml_layout():
    prompt = toklane.render_chat(CONVERSATION[:4], model="qwen3", add_generation_prompt=True)
    assert prompt == (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
        "<|im_end|>\n"
        '<|im_start|>user\n<tool_response>\n{"temp_c": 21}\n</tool_response><|im_end|>\n'
        "<|im_start|>assistant\n"
    )


def test_llama3_and_harmony_layouts():
    short = [{"role": "system", "content": "S"}, {"role": "user", "content": " hi "}]
    assert toklane.render_chat(short, model="llama3", add_generation_prompt=True) == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
        "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nS<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    assert toklane.render_chat(short, model="gpt-oss", add_generation_prompt=True) == (
        "<|start|>system<|message|>S<|end|><|start|>user<|message|> hi <|end|><|start|>assistant"
    )


def test_openai_models_count_three_marker_tokens_per_message():
    """cl100k/o200k have no chat markers in their vocabularies: each counts as one token."""
    for name in ("cl100k_base", "o200k_base"):
        tok = toklane.load_tokenizer(name)
        msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there!"}]
        expected = sum(3 + tok.count(m["role"]) + tok.count(m["content"]) for m in msgs) + 3
        assert toklane.count_tokens(msgs, model=name, add_generation_prompt=True) == expected


def test_truncate_keeps_system_and_newest_turns():
    name = "qwen3"
    full = toklane.count_tokens(CONVERSATION, model=name)
    assert toklane.truncate_messages(CONVERSATION, full, model=name) == CONVERSATION
    kept = toklane.truncate_messages(CONVERSATION, full - 1, model=name)
    assert kept[0] == CONVERSATION[0] and kept[-1] == CONVERSATION[-1]
    assert len(kept) < len(CONVERSATION)
    assert toklane.count_tokens(kept, model=name) <= full - 1
    assert kept[1]["role"] != "tool"  # never a tool result without its call
    # It is the longest fitting tail: starting at the previous valid message does not fit.
    rest = CONVERSATION[1:]
    start = len(rest) - (len(kept) - 1)
    previous = max(i for i in range(start) if rest[i]["role"] != "tool")
    assert toklane.count_tokens([CONVERSATION[0], *rest[previous:]], model=name) > full - 1
    minimal = toklane.truncate_messages(CONVERSATION, toklane.count_tokens(CONVERSATION[:1], model=name), model=name)
    assert minimal == CONVERSATION[:1]


def test_truncate_drops_orphan_tool_results():
    name = "llama3"
    budget = toklane.count_tokens([CONVERSATION[0], *CONVERSATION[3:]], model=name)
    kept = toklane.truncate_messages(CONVERSATION, budget, model=name)
    assert [m["role"] for m in kept] == ["system", "assistant", "user"]


def test_truncate_errors():
    with pytest.raises(ValueError, match="system messages alone"):
        toklane.truncate_messages(CONVERSATION, 3, model="qwen3")
    with pytest.raises(ValueError, match="max_tokens"):
        toklane.truncate_messages(CONVERSATION, -1, model="qwen3")


@pytest.mark.parametrize(
    "messages, error",
    [
        ([{"role": "wizard", "content": "x"}], "role must be one of"),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], "only text parts"),
        ([{"role": "user", "content": 42}], "content must be"),
        ([{"role": "assistant", "tool_calls": [{"function": {}}]}], "function.name"),
        (["not a mapping"], "must be a mapping"),
        ("just a string is text, not messages", None),
    ],
)
def test_bad_messages_are_clear_errors(messages, error):
    if error is None:
        assert toklane.count_tokens(messages, model="qwen3") > 0
        return
    with pytest.raises((ValueError, TypeError), match=error):
        toklane.count_tokens(messages, model="qwen3")


def test_chat_format_override_and_unknown_format():
    msgs = [{"role": "user", "content": "hi"}]
    assert toklane.render_chat(msgs, model="qwen3", chat_format="llama3").startswith("<|begin_of_text|>")
    with pytest.raises(ValueError, match="unknown chat format"):
        toklane.render_chat(msgs, model="qwen3", chat_format="nope")
