"""The hand-written family formats (the bundled tokenizers' fast paths) equal the real templates they
stand for, rendered by transformers: Qwen3's (``qwen3``), Qwen3.5's (``qwen3.6``), Llama 3.1's
(``llama3``), on generated conversations with tools, tool results, reasoning, text parts, system
or not, generation prompt, ``enable_thinking``. Where the template refuses a conversation (an
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
}


def _kwargs_strategy(options: dict[str, list]) -> st.SearchStrategy:
    return st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in options.items()})


@pytest.mark.parametrize("model", sorted(FAST_PATHS))
@settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data(), gen=st.booleans())
def test_fast_path_equals_the_real_template(model, data, gen):
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
