"""count_tokens / render_chat with tool definitions (issue 13, "Counting with tools").

The layouts are checked three ways: exact prompts for a fixed tool set (always), the
gpt-oss developer message equal to openai-harmony's own rendering for generated tool
sets (where openai-harmony is installed: the dev extra), and the Qwen / Llama prompts
equal to the models' real Jinja chat templates (``tests/chat/templates``) rendered by
transformers for generated tool sets.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.errors import InvalidArgumentError, InvalidMessagesError

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            },
            "required": ["city"],
        },
    },
}
NOW = {"type": "function", "function": {"name": "now", "description": 'Current time. Ünïcode "quoted"'}}
TOOLS = [WEATHER, NOW]
SYSTEM_USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Weather in Paris?"}]

QWEN3_TOOLS_BLOCK = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    + "\n".join(json.dumps(t, ensure_ascii=False) for t in TOOLS)
    + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
    "</tool_call>"
)


def test_qwen3_tools_system_block():
    prompt = toklane.render_chat(SYSTEM_USER, model="qwen3", tools=TOOLS, add_generation_prompt=True)
    assert prompt == (
        "<|im_start|>system\nYou are terse.\n\n" + QWEN3_TOOLS_BLOCK + "<|im_end|>\n"
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
    )
    # No system message: the block alone (Qwen3's template; Qwen2.5's adds its default system text).
    alone = toklane.render_chat(SYSTEM_USER[1:], model="qwen2.5", tools=TOOLS)
    assert alone.startswith("<|im_start|>system\n# Tools\n\n") and alone.count("<|im_start|>") == 2


def test_qwen3_6_tools_block_comes_before_the_system_text():
    prompt = toklane.render_chat(SYSTEM_USER, model="qwen3.6", tools=TOOLS)
    head = "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>\n"
    assert prompt.startswith(head + json.dumps(WEATHER, ensure_ascii=False) + "\n")
    assert "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n" in prompt
    assert prompt.endswith(
        "do not tell the user about function calls\n</IMPORTANT>\n\nYou are terse.<|im_end|>\n"
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
    )


def test_llama3_tools_in_the_first_user_message():
    prompt = toklane.render_chat(SYSTEM_USER, model="llama3", tools=TOOLS, add_generation_prompt=True)
    tools_json = "".join(json.dumps(t, ensure_ascii=False, indent=4) + "\n\n" for t in TOOLS)
    assert prompt == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
        "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"
        "You are terse.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
        "Given the following functions, please respond with a JSON for a function call with its proper arguments "
        "that best answers the given prompt.\n\n"
        'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'
        "Do not use variables.\n\n" + tools_json + "Weather in Paris?<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_harmony_developer_message():
    prompt = toklane.render_chat(SYSTEM_USER, model="gpt-oss", tools=TOOLS, add_generation_prompt=True)
    assert prompt == (
        "<|start|>developer<|message|># Instructions\n\nYou are terse.\n\n# Tools\n\n## functions\n\n"
        "namespace functions {\n\n"
        "// Get the weather for a city.\n"
        'type get_weather = (_: {\n// City name\ncity: string,\nunit?: "c" | "f", // default: c\n}) => any;\n\n'
        '// Current time. Ünïcode "quoted"\ntype now = () => any;\n\n'
        "} // namespace functions<|end|><|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant"
    )


@pytest.mark.parametrize("model", ["qwen3", "qwen3.6", "llama3", "o200k_harmony"])
@pytest.mark.parametrize("gen", [False, True])
def test_count_with_tools_is_the_encoded_prompt_length(model, gen):
    tok = toklane.load_tokenizer(model)
    prompt = toklane.render_chat(SYSTEM_USER, model=model, tools=TOOLS, add_generation_prompt=gen)
    count = toklane.count_tokens(SYSTEM_USER, model=model, tools=TOOLS, add_generation_prompt=gen)
    assert (
        count
        == len(tok.encode(prompt))
        == len(toklane.encode_chat(SYSTEM_USER, model, tools=TOOLS, add_generation_prompt=gen))
    )
    without = toklane.count_tokens(SYSTEM_USER, model=model, add_generation_prompt=gen)
    assert count > without + sum(tok.count(t["function"]["description"]) for t in TOOLS)


def test_bare_functions_and_empty_lists():
    bare = [t["function"] for t in TOOLS]
    for model in ("qwen3", "llama3", "gpt-oss"):
        assert toklane.render_chat(SYSTEM_USER, model=model, tools=bare) == toklane.render_chat(
            SYSTEM_USER, model=model, tools=TOOLS
        )
        assert toklane.count_tokens(SYSTEM_USER, model=model, tools=[]) == toklane.count_tokens(
            SYSTEM_USER, model=model
        )


def test_truncate_keeps_room_for_the_tools():
    convo = [SYSTEM_USER[0], {"role": "user", "content": "first " * 50}, {"role": "assistant", "content": "ok"}]
    convo.append({"role": "user", "content": "last question"})
    for model in ("qwen3", "llama3", "gpt-oss"):
        full = toklane.count_tokens(convo, model=model, tools=TOOLS)
        assert toklane.truncate_messages(convo, full, model=model, tools=TOOLS) == convo
        kept = toklane.truncate_messages(convo, full - 1, model=model, tools=TOOLS)
        assert kept[0] == convo[0] and kept[-1] == convo[-1] and len(kept) < len(convo)
        assert toklane.count_tokens(kept, model=model, tools=TOOLS) <= full - 1
    once = (t for t in TOOLS)  # any iterable, read once
    assert toklane.truncate_messages(convo, full - 1, model="gpt-oss", tools=once) == kept
    with pytest.raises(ValueError, match="tool definitions and the last user message alone take"):
        toklane.truncate_messages(convo, 50, model="llama3", tools=TOOLS)


@pytest.mark.parametrize(
    "model, family",
    [("gpt-4o", "'openai'"), ("cl100k_base", "'openai'")],
)
def test_families_without_a_tool_layout_say_so(model, family):
    with pytest.raises(InvalidArgumentError) as err:
        toklane.count_tokens(SYSTEM_USER, model=model, tools=TOOLS)
    message = str(err.value)
    assert (
        "\n" not in message
        and family in message
        and "chatml, qwen3.5 (Qwen), llama3, harmony (gpt-oss), deepseek-v4" in message
    )
    assert "chat_template=" in message
    assert toklane.count_tokens(SYSTEM_USER, model=model) > 0  # without tools it still counts


def _nested(depth: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(depth):
        node = {"type": "array", "items": node}
    return node


@pytest.mark.parametrize(
    "tools, field",
    [
        ({"name": "x"}, "tools must be a list"),
        (["x"], "tools[0] must be an OpenAI tool"),
        ([{"description": "no name"}], "tools[0] must be an OpenAI tool"),
        ([{"type": "code_interpreter", "function": {"name": "x"}}], "tools[0].type must be 'function'"),
        ([{"type": "function", "function": {"name": ""}}], "tools[0].function.name must be a non-empty string"),
        ([{"name": "x", "parameters": "{}"}], "tools[0].parameters must be an object, got string"),
        ([{"name": "x", "description": 3}], "tools[0].description must be a string, got integer"),
        ([{"name": "x", "parameters": {"default": {1, 2}}}], "tools[0] must be JSON-serialisable"),
        ([{"name": "x", "parameters": _nested(300)}], "tools[0] is nested more than 256 levels deep"),
    ],
)
def test_bad_tools_are_one_line_errors(tools, field):
    with pytest.raises(InvalidArgumentError) as err:
        toklane.count_tokens(SYSTEM_USER, model="qwen3", tools=tools)
    assert str(err.value).startswith(field) and "\n" not in str(err.value)


def test_deep_but_allowed_nesting_renders():
    for model in ("qwen3", "llama3", "gpt-oss"):
        tools = [{"name": "deep", "parameters": {"type": "object", "properties": {"x": _nested(250)}}}]
        assert toklane.count_tokens(SYSTEM_USER, model=model, tools=tools) > toklane.count_tokens(
            SYSTEM_USER, model=model
        )
    assert "x?: string" + "[]" * 250 + "," in toklane.render_chat(SYSTEM_USER, model="gpt-oss", tools=tools)


def test_other_misuses():
    with pytest.raises(InvalidArgumentError, match="pass messages, not a text"):
        toklane.count_tokens("just text", model="qwen3", tools=TOOLS)
    with pytest.raises(InvalidMessagesError, match="must have a message after the system message"):
        toklane.count_tokens(SYSTEM_USER[:1], model="llama3", tools=TOOLS)
    inexact = {"name": "f", "parameters": {"type": "object", "properties": {"x": {"default": 0.1 + 0.2}}}}
    with pytest.raises(InvalidArgumentError, match=r"x\.default holds the number 0\.30000000000000004, .* at most 15"):
        toklane.count_tokens(SYSTEM_USER, model="gpt-oss", tools=[inexact])


# --------------------------------------------------------------------------- generated tool sets

_text = st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=20)
_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
_scalar_default = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**9), 10**9),
    _text,
    st.sampled_from([0.5, 2.25, -1.0, 0.0, -0.0, 1e-5, 2.5e-7, 1e15, 1e16, 3.5e21, 123.456]),
)


def _leaf() -> st.SearchStrategy[dict]:
    kinds = st.sampled_from(["string", "number", "integer", "boolean", "null", ["string", "null"], "weird"])
    return st.fixed_dictionaries(
        {"type": kinds},
        optional={
            "description": _text,
            "default": _scalar_default,
            "nullable": st.booleans(),
            "title": _text,
            "examples": st.lists(_text, max_size=2),
        },
    )


def _with_enum(schema: dict) -> st.SearchStrategy[dict]:
    return st.one_of(st.just(schema), st.lists(_text, min_size=1, max_size=3).map(lambda e: {**schema, "enum": e}))


def _one_of(inner: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    """oneOf schemas, sometimes described as their first variant is (openai-harmony writes that once)."""
    base = st.fixed_dictionaries(
        {"oneOf": st.lists(inner, min_size=1, max_size=3)},
        optional={"description": _text, "default": _scalar_default, "nullable": st.booleans(), "enum": st.just(["e"])},
    )
    return st.one_of(
        base,
        base.filter(lambda s: isinstance(s["oneOf"][0], dict) and "description" in s["oneOf"][0]).map(
            lambda s: {**s, "description": s["oneOf"][0]["description"]}
        ),
    )


_schema = st.recursive(
    _leaf().flatmap(_with_enum),
    lambda inner: st.one_of(
        _one_of(inner),
        st.fixed_dictionaries({"type": st.just("array")}, optional={"items": inner, "description": _text}),
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(_name, inner, max_size=3)},
            optional={"description": _text, "required": st.lists(_name, max_size=2)},
        ),
    ),
    max_leaves=6,
)
_parameters = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(_name, _schema, max_size=4)},
    optional={"required": st.lists(_name, max_size=3)},
)
_function = st.fixed_dictionaries(
    {"name": _name}, optional={"description": _text, "parameters": st.one_of(_parameters, st.just({}))}
)
_tools = st.lists(_function.map(lambda f: {"type": "function", "function": f}), min_size=1, max_size=3)


@pytest.fixture(scope="module")
def harmony():
    """openai-harmony's gpt-oss encoding, its o200k vocabulary written from toklane's ranks (no download)."""
    oh = pytest.importorskip("openai_harmony")
    tok = toklane.load_tokenizer("o200k_harmony")
    folder = tempfile.mkdtemp(prefix="toklane-harmony-")
    added = {t.id for t in tok.added_tokens}
    with open(os.path.join(folder, "o200k_base.tiktoken"), "wb") as f:
        for i, data in enumerate(tok.token_bytes_table):
            if data is not None and i not in added:
                f.write(base64.b64encode(data) + b" " + str(i).encode() + b"\n")
    saved = {k: os.environ.get(k) for k in ("TIKTOKEN_ENCODINGS_BASE", "TIKTOKEN_RS_CACHE_DIR")}
    os.environ.update(dict.fromkeys(saved, folder))
    try:
        enc = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return oh, enc


def _harmony_reference(oh, enc, tools, system, user) -> list[int]:
    descs = [
        oh.ToolDescription.new(
            t["function"]["name"], t["function"].get("description", ""), parameters=t["function"].get("parameters")
        )
        for t in tools
    ]
    dev = oh.DeveloperContent.new()
    if system:
        dev = dev.with_instructions(system)
    msgs = [oh.Message.from_role_and_content(oh.Role.DEVELOPER, dev.with_function_tools(descs))]
    msgs.append(oh.Message.from_role_and_content(oh.Role.USER, user))
    return enc.render_conversation(oh.Conversation.from_messages(msgs))


def test_harmony_fixed_tools_equal_openai_harmony(harmony):
    oh, enc = harmony
    ours = toklane.encode_chat(SYSTEM_USER, "gpt-oss", tools=TOOLS)
    assert ours == _harmony_reference(oh, enc, TOOLS, SYSTEM_USER[0]["content"], SYSTEM_USER[1]["content"])


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=_tools, system=_text, user=_text)
def test_harmony_generated_tools_equal_openai_harmony(harmony, tools, system, user):
    oh, enc = harmony
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}] if system else []
    messages = messages or [{"role": "user", "content": user}]
    reference = _harmony_reference(oh, enc, tools, system, user)
    assert toklane.render_chat(messages, model="gpt-oss", tools=tools) == enc.decode(reference)
    ours = toklane.encode_chat(messages, "gpt-oss", tools=tools)
    assert toklane.count_tokens(messages, model="gpt-oss", tools=tools) == len(ours)
    if "<|" not in json.dumps(tools, ensure_ascii=False) + system + user:
        # (toklane, like HF templates, parses special-token strings inside message text; openai-harmony does not)
        assert ours == reference


# --------------------------------------------------------------------------- real Jinja templates

_TEMPLATES = Path(__file__).parent / "chat" / "templates"
_JINJA = {"qwen3": "qwen3.jinja", "qwen3.6": "qwen3.5.jinja", "llama3": "llama3.1.jinja"}


def _template(model: str) -> str:
    return (_TEMPLATES / _JINJA[model]).read_text(encoding="utf-8")


_plain = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cc", "Cs", "Zs", "Zl", "Zp"]), min_size=1, max_size=20
)


@pytest.mark.parametrize("model", sorted(_JINJA))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=_tools, system=_plain, user=_plain)
def test_prompt_equals_the_real_chat_template(model, tools, system, user):
    pytest.importorskip("transformers")
    from transformers.utils.chat_template_utils import render_jinja_template

    template = _template(model)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    (rendered,), _ = render_jinja_template(
        [messages], tools=tools, chat_template=template, bos_token="<|begin_of_text|>"
    )
    assert toklane.render_chat(messages, model=model, tools=tools) == rendered
    tok = toklane.load_tokenizer(model)
    assert toklane.count_tokens(messages, model=model, tools=tools) == len(tok.encode(rendered))
