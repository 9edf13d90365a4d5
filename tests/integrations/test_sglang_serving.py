"""toklane's SGLang plugin through SGLang 0.5.23's own OpenAI serving layer (``tests/integrations/sglang_harness.py``).

Requests go through ``OpenAIServingChat.handle_request`` with real ``ServerArgs`` (parsers chosen by
name: ``--reasoning-parser toklane_<r> --tool-call-parser toklane_<t>``) and ``TemplateManager``,
the model replaced by a stand-in ``TokenizerManager`` replaying fixed token ids through SGLang's
detokenizer code: whole responses and SSE streams at 1, 3 and 16 tokens per step, each compared
with :func:`toklane.parse` of the whole output. Covered: every format's documented examples (whole,
and streamed 3 tokens per step; 1/3/16 on the Qwen3.6 ones) where SGLang's two phases can equal
the joint parse (``tests/integrations/test_sglang.py`` says which), ``tool_choice`` auto / none /
required / named, ``separate_reasoning=False`` (SGLang's way of not separating reasoning),
``enable_thinking=False``.

SGLang reads ``tool_choice="required"`` and a named function with its own JSON-array parser (the
detectors build no structural tag): toklane's part there is the reasoning before the array.

Skipped where SGLang or a module its serving code imports is missing
(``benchmarks/requirements-peers.txt`` installs them; torchvision has a test-only stand-in).
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip(
    "sglang.srt.function_call.function_call_parser",
    reason="SGLang is not installed (pip install --no-deps -r benchmarks/requirements-peers.txt)",
)
try:
    from . import sglang_harness as h
except ImportError as exc:  # a module SGLang's serving code imports is missing
    pytest.skip(f"SGLang's serving modules do not import: {exc}", allow_module_level=True)

import toklane

from ..parsing.helpers import tokenizer
from .serving_cases import AUTO_OUTPUTS, BOTH_CALLS, CALL, QWEN, STEPS, THOUGHT, TOOLS, USER, blank
from .serving_models import served_as
from .test_sglang import CASES as SGLANG_CASES
from .test_sglang import recorded_split_ok, tools_for

# SGLang constrains a forced tool choice to a JSON array of {"name", "parameters"} (one element, of
# the named function, for a named choice).
REQUIRED = (
    THOUGHT + '[{"name": "get_weather", "parameters": {"city": "Paris"}}, {"name": "get_time", "parameters": {}}]'
)
NAMED = THOUGHT + '[{"name": "get_weather", "parameters": {"city": "Paris"}}]'
NAMED_CHOICE = {"type": "function", "function": {"name": "get_weather"}}


def ids(text: str) -> list[int]:
    return tokenizer(QWEN).encode(text)


def want(text: str, **formats: object) -> toklane.ParseResult:
    # SGLang drops calls of tools the request does not declare (SGLANG_FORWARD_UNKNOWN_TOOLS unset)
    return toklane.parse(tokenizer(QWEN), text=text, unknown_tools="drop", **formats)  # type: ignore[arg-type]


def same(reply: h.Reply, result: toklane.ParseResult) -> None:
    assert (blank(reply.reasoning), blank(reply.content)) == (blank(result.reasoning), blank(result.content))
    assert reply.calls == [(c.name, json.loads(c.arguments)) for c in result.tool_calls]


@pytest.fixture(scope="module", autouse=True)
def release_servers():
    """The servers' tokenizers go when the module ends (hundreds of MB each)."""
    yield
    h.release()


@pytest.fixture(scope="module")
def qwen() -> h.Server:
    return h.server("qwen3", "hermes")


# --------------------------------------------------------------------------- tool_choice, Qwen3.6


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("case", list(AUTO_OUTPUTS))
def test_auto_streamed_and_whole_equal_toklane_parse(qwen: h.Server, case: str, step: int) -> None:
    text = AUTO_OUTPUTS[case]
    expected = want(text, reasoning="qwen3", tools="hermes", tools_schema=TOOLS, thinking=True)
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS}
    whole = h.run(qwen, body, ids(text))
    streamed = h.run(qwen, {**body, "stream": True}, ids(text), step)
    same(whole, expected)
    same(streamed, expected)
    assert whole.finish_reason == streamed.finish_reason == ("tool_calls" if expected.tool_calls else "stop")
    assert len(set(whole.ids)) == len(set(streamed.ids)) == len(expected.tool_calls)


@pytest.mark.parametrize("stream", [False, True])
def test_tool_choice_none_leaves_calls_as_content(qwen: h.Server, stream: bool) -> None:
    text = AUTO_OUTPUTS["two calls"]
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "tool_choice": "none", "stream": stream}
    reply = h.run(qwen, body, ids(text), 3)
    same(reply, want(text, reasoning="qwen3", thinking=True))
    assert reply.finish_reason == "stop"


@pytest.mark.parametrize("step", STEPS)
def test_required_reads_the_array_after_toklanes_reasoning(qwen: h.Server, step: int) -> None:
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "tool_choice": "required"}
    for reply in (h.run(qwen, body, ids(REQUIRED)), h.run(qwen, {**body, "stream": True}, ids(REQUIRED), step)):
        assert reply.calls == BOTH_CALLS
        assert blank(reply.reasoning) == "The user wants the weather in Paris and the time."
        assert blank(reply.content) is None
        assert reply.finish_reason == "tool_calls"
        assert len(set(reply.ids)) == 2
    schema = json.loads(qwen.manager.requests[-1].sampling_params["json_schema"])
    assert schema["type"] == "array"  # SGLang's constraint was set


@pytest.mark.parametrize("step", STEPS)
def test_named_function_reads_its_call(qwen: h.Server, step: int) -> None:
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "tool_choice": NAMED_CHOICE}
    for reply in (h.run(qwen, body, ids(NAMED)), h.run(qwen, {**body, "stream": True}, ids(NAMED), step)):
        assert reply.calls == [("get_weather", {"city": "Paris"})]
        assert blank(reply.reasoning) == "The user wants the weather in Paris and the time."
        assert blank(reply.content) is None
        assert reply.finish_reason == "tool_calls"
    schema = json.loads(qwen.manager.requests[-1].sampling_params["json_schema"])
    assert schema["items"]["properties"]["name"]["enum"] == ["get_weather"]


@pytest.mark.parametrize("stream", [False, True])
def test_separate_reasoning_false_reads_the_output_with_the_tool_format_alone(qwen: h.Server, stream: bool) -> None:
    """SGLang's ``separate_reasoning=False`` runs no reasoning parser: the reasoning stays in the text
    the tool-call parser reads."""
    text = AUTO_OUTPUTS["content then a call"]
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "separate_reasoning": False, "stream": stream}
    reply = h.run(qwen, body, ids(text), 3)
    same(reply, want(text, tools="hermes", tools_schema=TOOLS))
    assert reply.reasoning is None


@pytest.mark.parametrize("stream", [False, True])
def test_enable_thinking_false_reads_the_answer_as_content(qwen: h.Server, stream: bool) -> None:
    """The template closes reasoning in the prompt: the output is the answer (a call in it is read)."""
    text = "Sure.\n" + CALL.format("get_weather", '{"city": "Paris"}')
    body = {
        "model": h.MODEL,
        "messages": USER,
        "tools": TOOLS,
        "chat_template_kwargs": {"enable_thinking": False},
        "stream": stream,
    }
    reply = h.run(qwen, body, ids(text), 3)
    same(reply, want(text, reasoning="qwen3", tools="hermes", tools_schema=TOOLS, thinking=False))
    assert reply.reasoning is None


def test_special_tokens_are_kept_for_a_toklane_reasoning_parser(qwen: h.Server) -> None:
    """SGLang detokenizes with skip_special_tokens=True when no tool-call parser runs; toklane's hook
    (registered by register()) keeps special tokens for a toklane reasoning parser, so markers that
    are special tokens reach it. SGLang's own qwen3 parser is left as SGLang sets it."""
    body = {"model": h.MODEL, "messages": USER}  # no tools: no tool-call parser runs
    text = AUTO_OUTPUTS["no call"]
    same(h.run(qwen, body, ids(text)), want(text, reasoning="qwen3", thinking=True))
    assert qwen.manager.requests[-1].sampling_params["skip_special_tokens"] is False
    builtin = h.server("qwen3", None, prefix="")
    h.run(builtin, body, ids(text))
    assert builtin.manager.requests[-1].sampling_params["skip_special_tokens"] is True


# --------------------------------------------------------------------------- every format's examples

# Tekken (Mistral): SGLang serves it with mistral-common's tokenizer, which this harness does not
# build. An example that sets `thinking` on another tokenizer than Qwen3.6: the neutral chat template
# of those servers cannot open reasoning in the prompt (SGLang reads that from the template). Both
# are covered through SGLang's parsers, given force_reasoning directly, by tests/integrations/test_sglang.py.
SKIP_TOKENIZERS = ("mistral-tekken", "magistral")
CASES = [
    (o, out)
    for o, out in SGLANG_CASES
    if o["tokenizer"] not in SKIP_TOKENIZERS
    and (o.get("thinking") is None or o["tokenizer"] == QWEN)
    and recorded_split_ok(o, out)  # (split_ok, recorded: test_sglang.py checks the record)
]
CASES.sort(key=lambda case: (case[0]["tokenizer"] != QWEN, served_as(case[0]["tokenizer"])))  # grouped by server


class Servers:
    """One SGLang server per flag pair on the tokenizer that serves an example (``served_as``), kept
    for the tokenizer's examples only (they run grouped by it)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.servers: dict[tuple, h.Server] = {}

    def get(self, opts: dict) -> h.Server:
        if served_as(opts["tokenizer"]) != self.key:
            self.servers.clear()
            self.key = served_as(opts["tokenizer"])
        pair = (opts.get("reasoning"), opts.get("tools"))
        if pair not in self.servers:
            self.servers[pair] = h.server(*pair, opts["tokenizer"])
        return self.servers[pair]


@pytest.fixture(scope="module")
def servers() -> Servers:
    return Servers()


@pytest.mark.parametrize(
    ("opts", "output"),
    CASES,
    ids=[f"{o['tokenizer']}-{o.get('reasoning')}-{o.get('tools')}-{i}" for i, (o, _) in enumerate(CASES)],
)
def test_documented_example_through_sglang_serving(servers: Servers, opts: dict, output: str) -> None:
    """Whole, and streamed 3 tokens per step (1 and 16 on the Qwen3.6 examples), through SGLang's
    server; expected: toklane.parse with reasoning started as SGLang's serving decides it (the chat
    template's thinking switch, else the detector's default)."""
    srv = servers.get(opts)
    tok = toklane.load_tokenizer(srv.manager.tokenizer)  # the tokenizer the server holds, as toklane sees it
    tools = (
        [t.model_dump(mode="json", exclude_none=True) for t in tools_for(opts, tok, output)]
        if opts.get("tools")
        else None
    )
    body = {"model": h.MODEL, "messages": USER, "tools": tools}
    thinking = srv.chat.template_manager.force_reasoning or srv.chat._get_reasoning_from_request(
        h.ChatCompletionRequest.model_validate(body)
    )
    expected = toklane.parse(
        tok,
        text=output,
        reasoning=opts.get("reasoning"),
        tools=opts.get("tools"),
        tools_schema=tools,
        thinking=thinking if opts.get("reasoning") else None,
        unknown_tools="drop",
    )
    out = tok.encode(output)
    same(h.run(srv, body, out), expected)
    for step in STEPS if opts["tokenizer"] == QWEN else [3]:
        same(h.run(srv, {**body, "stream": True}, out, step), expected)
