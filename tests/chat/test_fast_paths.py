"""The hand-written family formats (the bundled tokenizers' fast paths) equal the real templates they
stand for, rendered by transformers: Qwen3's (``qwen3``), Qwen3.5's (``qwen3.6``), Llama 3.1's
(``llama3``), DeepSeek V4's (``deepseek-v4``), Mistral-7B-Instruct-v0.3's (``mistral-v3``),
Mistral-Nemo's (``mistral-tekken``) and Mistral-Small-3.2's (``mistral-v7``), on generated
conversations with tools, tool calls, tool results, reasoning, text parts, system or not,
generation prompt, and the template variables each format honours. Where the template refuses a conversation (an
assistant turn without content in Qwen3's, a developer turn), the fast path may render it: those
deliberate differences are listed in ``docs/chat-formats.md`` and checked here to be the only ones.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.chat.sources import BUNDLED_SPECIALS

from .helpers import conversations, outcome, reference, template, tool_sets

pytest.importorskip("transformers")

#: bundled tokenizer -> the template its family format stands for, and the variables it honours
FAST_PATHS = {
    "qwen3": ("qwen3", {"enable_thinking": [True, False]}),
    "qwen3.6": ("qwen3.5", {"enable_thinking": [True, False]}),
    "llama3": ("llama3.1", {"date_string": ["26 Jul 2024", "1 Jan 2030"]}),
    "deepseek-v4": (
        "deepseek-v4",
        {
            "thinking": [True, False],
            "enable_thinking": [True, False],
            "drop_thinking": [True, False],
            "reasoning_effort": ["max", "high"],
            "response_format": [{"type": "json_object"}, {"schema": {"name": "日本"}}],
        },
    ),
    "mistral-v3": ("mistral-v0.3", {}),
    "mistral-tekken": ("mistral-nemo", {}),
    "mistral-v7": ("mistral-small-3.2", {}),
}
_MISTRAL = ("mistral-v3", "mistral-tekken", "mistral-v7")


def _needs(model: str) -> None:
    if model in _MISTRAL:
        pytest.importorskip("mistral_common")


def _kwargs_strategy(options: dict[str, list]) -> st.SearchStrategy:
    return st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in options.items()})


@pytest.mark.parametrize("model", sorted(FAST_PATHS))
@settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data(), gen=st.booleans())
def test_fast_path_equals_the_real_template(model, data, gen):
    _needs(model)
    name, options = FAST_PATHS[model]
    messages = data.draw(conversations(parts=False))
    tools = data.draw(st.none() | tool_sets)
    kwargs = data.draw(_kwargs_strategy(options))
    specials = BUNDLED_SPECIALS[model]
    expected = outcome(
        lambda: reference(
            template(name), messages, tools=tools, add_generation_prompt=gen, special_tokens=specials, kwargs=kwargs
        )
    )
    got = outcome(
        lambda: toklane.render_chat(
            messages, model=model, tools=tools, add_generation_prompt=gen, chat_template_kwargs=kwargs
        )
    )
    if got[0] == "error":
        assert isinstance(got[1], toklane.ToklaneError), got[1]
    assume(expected[0] == "ok")
    assert got == expected
    # the count is the encoded prompt's length
    tok = toklane.load_tokenizer(model)
    count = toklane.count_tokens(
        messages, model=model, tools=tools, add_generation_prompt=gen, chat_template_kwargs=kwargs
    )
    assert count == len(tok.encode(got[1]))


@pytest.mark.parametrize("model", sorted(FAST_PATHS))
@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data(), gen=st.booleans())
def test_fast_path_equals_the_template_rendered_by_toklane(model, data, gen):
    """The same comparison through toklane's own template engine (``chat_template=`` on the bundled
    tokenizer), text parts included where the template reads them (Qwen3.5's; Qwen3's refuses a list
    and Llama 3.1's writes its Python repr, where the fast paths join the text parts)."""
    _needs(model)
    name, _ = FAST_PATHS[model]
    messages = data.draw(conversations(parts=model == "qwen3.6"))
    via_template = outcome(
        lambda: toklane.render_chat(messages, model=model, add_generation_prompt=gen, chat_template=template(name))
    )
    fast = outcome(lambda: toklane.render_chat(messages, model=model, add_generation_prompt=gen))
    assume(via_template[0] == "ok" and fast[0] == "ok")
    assert fast == via_template


def test_enable_thinking_on_the_fast_paths():
    msgs = [{"role": "user", "content": "hi"}]
    off = {"enable_thinking": False}
    assert toklane.render_chat(msgs, model="qwen3", add_generation_prompt=True, chat_template_kwargs=off).endswith(
        "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    )
    assert toklane.render_chat(msgs, model="qwen3", add_generation_prompt=True).endswith("<|im_start|>assistant\n")
    assert toklane.render_chat(msgs, model="qwen3.6", add_generation_prompt=True).endswith("assistant\n<think>\n")
    assert toklane.render_chat(msgs, model="qwen3.6", add_generation_prompt=True, chat_template_kwargs=off).endswith(
        "assistant\n<think>\n\n</think>\n\n"
    )
    with_off = toklane.count_tokens(msgs, model="qwen3", add_generation_prompt=True, chat_template_kwargs=off)
    assert with_off == toklane.count_tokens(msgs, model="qwen3", add_generation_prompt=True) + 4
    # a variable the format's template never reads is ignored, as the template ignores it
    assert toklane.render_chat(msgs, model="llama3", chat_template_kwargs=off) == toklane.render_chat(
        msgs, model="llama3"
    )


def test_a_variable_the_fast_path_cannot_render_is_an_error_naming_it():
    msgs = [{"role": "user", "content": "hi"}]
    with pytest.raises(toklane.InvalidArgumentError, match=r"chat_template_kwargs\.builtin_tools .* chat_template="):
        toklane.count_tokens(msgs, model="llama3", chat_template_kwargs={"builtin_tools": ["brave_search"]})
    # the model's template renders it
    got = toklane.render_chat(
        msgs, model="llama3", chat_template=template("llama3.1"), chat_template_kwargs={"builtin_tools": ["x"]}
    )
    assert "Tools: x" in got


def test_preserve_thinking_keeps_earlier_reasoning_on_qwen3_6():
    msgs = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b", "reasoning_content": "r1"},
        {"role": "user", "content": "c"},
    ]
    assert "r1" not in toklane.render_chat(msgs, model="qwen3.6")
    kept = toklane.render_chat(msgs, model="qwen3.6", chat_template_kwargs={"preserve_thinking": True})
    assert "<|im_start|>assistant\n<think>\nr1\n</think>\n\nb<|im_end|>" in kept


# --------------------------------------------------------------------------- DeepSeek V4 and Mistral: tools

_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": 'Weather "now" in a city',
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
_AGENT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "a1b2c3d4e",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "a1b2c3d4e", "content": "18 C, rain"},
    {"role": "assistant", "content": "18 C and rain."},
    {"role": "user", "content": "Tomorrow?"},
]
_LAYOUT = {
    "deepseek-v4": ("## Tools\n\n", '<｜DSML｜invoke name="get_weather">', "<tool_result>18 C, rain</tool_result>"),
    "mistral-v3": ("[AVAILABLE_TOOLS] [", '[TOOL_CALLS] [{"name": "get_weather"', '[TOOL_RESULTS] {"content": 18 C'),
    "mistral-tekken": ("[AVAILABLE_TOOLS][", '[TOOL_CALLS][{"name": "get_weather"', '[TOOL_RESULTS]{"content": 18 C'),
    "mistral-v7": ("[AVAILABLE_TOOLS][{", "[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]", "[TOOL_CONTENT]18 C"),
}


@pytest.mark.parametrize("model", sorted(_LAYOUT))
def test_tools_calls_and_results_render_on_deepseek_and_mistral(model):
    """The agent case renders (it raised 'tools are not rendered' before): text equal to the real template
    through transformers, ids and count equal to the encoded text, with and without the generation prompt."""
    _needs(model)
    name, _ = FAST_PATHS[model]
    tok = toklane.load_tokenizer(model)
    for gen in (False, True):
        got = toklane.render_chat(_AGENT, model, tools=_TOOLS, add_generation_prompt=gen)
        assert got == reference(
            template(name), _AGENT, tools=_TOOLS, add_generation_prompt=gen, special_tokens=BUNDLED_SPECIALS[model]
        )
        for piece in _LAYOUT[model]:
            assert piece in got
        ids = toklane.encode_chat(_AGENT, model, tools=_TOOLS, add_generation_prompt=gen)
        assert ids == tok.encode(got)
        assert toklane.count_tokens(_AGENT, model, tools=_TOOLS, add_generation_prompt=gen) == len(ids)
    # the same through the template itself (chat_template=) on the bundled tokenizer
    assert toklane.render_chat(_AGENT, model, tools=_TOOLS) == toklane.render_chat(
        _AGENT, model, tools=_TOOLS, chat_template=template(name)
    )


@pytest.mark.parametrize("model", list(_MISTRAL))
def test_a_mistral_call_or_result_without_an_id_is_one_clear_error(model):
    _needs(model)
    call = {"type": "function", "function": {"name": "f", "arguments": "{}"}}
    no_call_id = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
    with pytest.raises(toklane.InvalidMessagesError, match=r"messages\[1\]\.tool_calls\[0\]\.id must be given"):
        toklane.count_tokens(no_call_id, model)
    no_result_id = [{"role": "user", "content": "a"}, {"role": "tool", "content": "r"}]
    with pytest.raises(toklane.InvalidMessagesError, match=r"messages\[1\]\.tool_call_id must be given"):
        toklane.render_chat(no_result_id, model)


def test_mistral_v7_without_a_system_message_has_small_3_2s_default_dated_today():
    pytest.importorskip("mistral_common")
    import time

    got = toklane.render_chat([{"role": "user", "content": "hi"}], "mistral-v7")
    assert got.startswith("<s>[SYSTEM_PROMPT]You are Mistral Small 3,")
    assert f"The current date is {time.strftime('%Y-%m-%d')}." in got
    assert got.endswith("[/SYSTEM_PROMPT][INST]hi[/INST]")


def test_deepseek_v4_thinking_switches():
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "reasoning_content": "r"}]
    assert toklane.render_chat(msgs, "deepseek-v4", add_generation_prompt=True).endswith(
        "<｜User｜>q<｜Assistant｜></think>a<｜end▁of▁sentence｜><｜Assistant｜></think>"
    )
    on = toklane.render_chat(msgs, "deepseek-v4", add_generation_prompt=True, chat_template_kwargs={"thinking": True})
    assert on.endswith("<｜Assistant｜><think>r</think>a<｜end▁of▁sentence｜><｜Assistant｜><think>")
    # a variable that is not JSON is one error naming it
    with pytest.raises(toklane.InvalidArgumentError, match=r"chat_template_kwargs\.response_format"):
        toklane.render_chat(msgs, "deepseek-v4", chat_template_kwargs={"response_format": {1j}})
