"""Models' own chat templates render exactly as transformers' ``apply_chat_template`` renders them.

Every template under ``tests/chat/templates`` (real templates of the families toklane parses; see
``SOURCES.md`` there) is rendered by toklane and by transformers on generated conversations --
system or not, text parts, reasoning, tool calls with arguments as objects or JSON text, tool
results, tool definitions, generation prompt, ``enable_thinking`` -- and the prompts are equal, or
both renderers refuse the conversation. The ids are transformers' too, on the bundled vocabularies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.chat.messages import template_messages

from .helpers import conversations, hf_tokenizer, outcome, reference, specials, template, template_names, tool_sets

pytest.importorskip("transformers")

_HOST = "deepseek-v4"  # a bundled tokenizer whose family format is not a template: chat_template= is what renders


def _ours(name: str, messages, **options):
    return toklane.render_chat(messages, model=_HOST, chat_template=template(name), **options)


@pytest.mark.parametrize("name", template_names())
@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    messages=conversations(),
    tools=st.none() | tool_sets,
    gen=st.booleans(),
    thinking=st.sampled_from([None, True, False]),
)
def test_render_equals_transformers(name, messages, tools, gen, thinking):
    kwargs = {} if thinking is None else {"enable_thinking": thinking}
    text = template(name)
    sp = specials(name)
    expected = outcome(
        lambda: reference(text, messages, tools=tools, add_generation_prompt=gen, special_tokens=sp, kwargs=kwargs)
    )
    from toklane.chat.templates import compile_template, render_template

    got = outcome(
        lambda: render_template(
            compile_template(text),
            template_messages(messages),
            tools=tools,
            add_generation_prompt=gen,
            special_tokens=sp,
            kwargs=kwargs,
        )
    )
    assert got[0] == expected[0], (got, expected)
    if got[0] == "ok":
        assert got[1] == expected[1]
    else:
        assert isinstance(got[1], toklane.ToklaneError)


FIXED = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call12345",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call12345", "content": '{"temp_c": 21}'},
    {"role": "assistant", "content": "It is 21 °C in Paris."},
    {"role": "user", "content": "Thanks! And tomorrow?"},
]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _host_specials() -> dict[str, str]:
    from toklane.chat.sources import BUNDLED_SPECIALS

    return BUNDLED_SPECIALS[_HOST]


@pytest.mark.parametrize("name", template_names())
def test_continue_final_message_equals_transformers(name):
    messages = [*FIXED[:2], {"role": "assistant", "content": "The weather in Paris is"}]
    sp = _host_specials()
    expected = outcome(lambda: reference(template(name), messages, continue_final_message=True, special_tokens=sp))
    got = outcome(lambda: _ours(name, messages, continue_final_message=True))
    assert got[0] == expected[0], (got, expected)
    if got[0] == "ok":
        assert got[1] == expected[1]
        assert got[1].endswith("The weather in Paris is")


def test_documents_and_extra_variables_reach_the_template():
    text = "{% for d in documents %}[{{ d.title }}: {{ d.text }}]{% endfor %}{{ greeting }} {{ bos_token }}"
    docs = [{"title": "A", "text": "alpha"}, {"title": "B", "text": "beta"}]
    got = toklane.render_chat(
        FIXED[:2], model=_HOST, chat_template=text, documents=docs, chat_template_kwargs={"greeting": "hi"}
    )
    assert got == "[A: alpha][B: beta]hi <｜begin▁of▁sentence｜>"
    # kwargs win over the special tokens, as in transformers
    assert (
        toklane.render_chat(
            FIXED[:1], model=_HOST, chat_template="{{ bos_token }}", chat_template_kwargs={"bos_token": "X"}
        )
        == "X"
    )


# --------------------------------------------------------------------------- ids


@pytest.fixture(scope="module")
def hf():
    yield hf_tokenizer
    hf_tokenizer.cache_clear()


IDS_CASES = [  # (template, bundled vocabulary that has its markers)
    ("qwen3", "qwen3"),
    ("qwen2.5", "qwen3"),
    ("qwen3.5", "qwen3.6"),
    ("qwen3-coder", "qwen3.6"),
    ("llama3.1", "llama3"),
    ("llama3.2", "llama3"),
    ("deepseek-v3.1", "deepseek-v4"),
    ("deepseek-r1", "deepseek-v4"),
    ("deepseek-v4", "deepseek-v4"),
    ("glm-4.6", "deepseek-v4"),
    ("kimi-k2", "deepseek-v4"),
]


@pytest.mark.parametrize("name, vocab", IDS_CASES)
@pytest.mark.parametrize("gen", [False, True])
def test_ids_equal_transformers(name, vocab, gen, hf):
    """encode_chat / count_tokens / apply_chat_template give transformers' ids for the same template."""
    hf_tok = hf(vocab)
    sp = specials(name)
    messages = [{k: v for k, v in m.items() if v is not None} for m in template_messages(FIXED)]
    for tools in (None, [WEATHER]):
        rendered = outcome(
            lambda tools=tools: reference(
                template(name), FIXED, tools=tools, add_generation_prompt=gen, special_tokens=sp
            )
        )
        if rendered[0] != "ok":
            continue
        expected = hf_tok.apply_chat_template(
            messages, tools=tools, chat_template=template(name), add_generation_prompt=gen, return_dict=False, **sp
        )
        tok = toklane.load_tokenizer(vocab)
        options = {
            "tools": tools,
            "add_generation_prompt": gen,
            "chat_template": template(name),
            "chat_template_kwargs": sp,
        }
        assert toklane.encode_chat(FIXED, vocab, **options) == expected
        assert toklane.count_tokens(FIXED, vocab, **options) == len(expected)
        got = tok.apply_chat_template(
            FIXED, tools=tools, chat_template=template(name), add_generation_prompt=gen, return_dict=False, **sp
        )
        assert got == expected


def test_sources_note_names_every_template():
    note = (Path(__file__).parent / "templates" / "SOURCES.md").read_text(encoding="utf-8")
    for name in template_names():
        assert f"`{name}.jinja`" in note, name


def test_named_template_json_round_trip():
    """A tokenizer_config.json's list of named templates, as transformers saves it, is read back."""
    from toklane.chat.sources import named_templates

    listed = [{"name": "default", "template": "{{ 1 }}"}, {"name": "tool_use", "template": "{{ 2 }}"}]
    assert named_templates(json.loads(json.dumps(listed)), "x") == {"default": "{{ 1 }}", "tool_use": "{{ 2 }}"}
