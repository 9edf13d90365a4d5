"""toklane's vLLM plugin through vLLM 0.33's own OpenAI serving layer (``tests/integrations/vllm_harness.py``).

Requests go through ``OpenAIServingChat.create_chat_completion`` (parser chosen by name through
vLLM's ``ParserManager`` and toklane's plugin), the model replaced by a replay of fixed token ids
through vLLM's v1 ``OutputProcessor``: whole responses and SSE streams at 1, 3 and 16 tokens per
engine step, each compared with :func:`toklane.parse` of the whole output. Covered: every format's
documented examples (whole and streamed), ``tool_choice`` auto / none / required / named,
``include_reasoning=False``, ``enable_thinking=False``, the ``thinking_token_budget`` vLLM builds from
toklane's reasoning markers (through vLLM's ``InputProcessor``), and one run through vLLM's real
FastAPI app over loopback with the ``openai`` client.

Where the time goes: building a server (vLLM's renderer copies its tokenizer twice, toklane wraps
it) costs seconds per tokenizer, a replayed request milliseconds. So every request runs on few
servers: the examples run grouped by the tokenizer that serves them, one server at a time, and the
test families on DeepSeek-V4's vocabulary share servers where their outputs cannot meet each other's
added tokens (``serving_models.served_as``); the transformers tokenizers are built once and kept in
pytest's cache folder. About 1.5 minutes of CPU on a warm cache, 2 on a cold one.

Skipped where vLLM is not installed (``benchmarks/requirements-peers.txt`` installs it and the few
modules its serving code imports).
"""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
pytest.importorskip("vllm", reason="vLLM is not installed (pip install --no-deps -r benchmarks/requirements-peers.txt)")
pytest.importorskip("vllm.entrypoints.openai.chat_completion.serving", reason="vLLM's serving modules do not import")

import toklane

from ..parsing.helpers import tokenizer
from ..parsing.test_docs import examples
from . import vllm_harness as h
from .serving_cases import AUTO_OUTPUTS, CALL, QWEN, STEPS, THOUGHT, TOOLS, USER, blank
from .serving_models import served_as

REQUIRED = (
    THOUGHT + '[{"name": "get_weather", "parameters": {"city": "Paris"}}, {"name": "get_time", "parameters": {}}]'
)
NAMED = THOUGHT + '{"city": "Paris"}'


def ids(text: str, name: str = QWEN) -> list[int]:
    return tokenizer(name).encode(text)


def want(text: str, **formats: object) -> toklane.ParseResult:
    return toklane.parse(tokenizer(QWEN), text=text, **formats)  # type: ignore[arg-type]


def same(reply: h.Reply, result: toklane.ParseResult, *, reasoning: bool = True) -> None:
    assert (blank(reply.reasoning), blank(reply.content)) == (
        blank(result.reasoning) if reasoning else None,
        blank(result.content),
    )
    assert reply.calls == [(c.name, json.loads(c.arguments)) for c in result.tool_calls]


@pytest.fixture(scope="module", autouse=True)
def release_servers():
    """The servers' tokenizers go when the module ends (hundreds of MB each)."""
    yield
    h.release()


@pytest.fixture(scope="module")
def qwen():
    eng = h.engine(QWEN)
    return eng, h.serving_chat(eng, "qwen3", "hermes")


# --------------------------------------------------------------------------- tool_choice, Qwen3.6


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("case", list(AUTO_OUTPUTS))
def test_auto_streamed_and_whole_equal_toklane_parse(qwen, case: str, step: int) -> None:
    eng, serving = qwen
    text = AUTO_OUTPUTS[case]
    expected = want(text, reasoning="qwen3", tools="hermes", tools_schema=TOOLS, thinking=True)
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS}
    whole = h.run(serving, eng, body, ids(text))
    streamed = h.run(serving, eng, {**body, "stream": True}, ids(text), step)
    same(whole, expected)
    same(streamed, expected)
    assert whole.finish_reason == streamed.finish_reason == ("tool_calls" if expected.tool_calls else "stop")


@pytest.mark.parametrize("stream", [False, True])
def test_tool_choice_none_leaves_calls_as_content(qwen, stream: bool) -> None:
    eng, serving = qwen
    text = AUTO_OUTPUTS["two calls"]
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "tool_choice": "none", "stream": stream}
    reply = h.run(serving, eng, body, ids(text), 3)
    same(reply, want(text, reasoning="qwen3", thinking=True))
    assert reply.finish_reason == "stop"


@pytest.mark.parametrize("step", STEPS)
def test_required_streams_its_calls(qwen, step: int) -> None:
    """vLLM constrains the answer to a JSON array of {"name", "parameters"}: both calls, streamed and whole."""
    eng, serving = qwen
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "tool_choice": "required"}
    calls = [("get_weather", {"city": "Paris"}), ("get_time", {})]
    for reply in (
        h.run(serving, eng, body, ids(REQUIRED)),
        h.run(serving, eng, {**body, "stream": True}, ids(REQUIRED), step),
    ):
        assert reply.calls == calls
        assert blank(reply.reasoning) == "The user wants the weather in Paris and the time."
        assert blank(reply.content) is None
        assert reply.finish_reason == "tool_calls"
        assert len(set(reply.ids)) == 2
    request = eng.requests[-1]
    assert request.sampling_params.structured_outputs.json["type"] == "array"  # vLLM's constraint was set


@pytest.mark.parametrize("step", STEPS)
def test_named_function_streams_its_call(qwen, step: int) -> None:
    eng, serving = qwen
    body = {
        "model": h.MODEL,
        "messages": USER,
        "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    }
    for reply in (
        h.run(serving, eng, body, ids(NAMED)),
        h.run(serving, eng, {**body, "stream": True}, ids(NAMED), step),
    ):
        assert reply.calls == [("get_weather", {"city": "Paris"})]
        assert blank(reply.content) is None
        assert reply.finish_reason == "stop"  # OpenAI reports "stop" for a named tool choice


@pytest.mark.parametrize("output", ['{"city": "Par', "I will not call it."])
@pytest.mark.parametrize("stream", [False, True])
def test_named_function_malformed_answer_is_content(qwen, output: str, stream: bool) -> None:
    """An arguments object cut off, or no object: content, never a call with invalid JSON."""
    eng, serving = qwen
    body = {
        "model": h.MODEL,
        "messages": USER,
        "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "stream": stream,
    }
    reply = h.run(serving, eng, body, ids(THOUGHT + output), 3)
    assert reply.calls == []
    assert reply.content == output


@pytest.mark.parametrize("stream", [False, True])
def test_include_reasoning_false(qwen, stream: bool) -> None:
    eng, serving = qwen
    text = AUTO_OUTPUTS["content then a call"]
    body = {"model": h.MODEL, "messages": USER, "tools": TOOLS, "include_reasoning": False, "stream": stream}
    reply = h.run(serving, eng, body, ids(text), 3)
    same(reply, want(text, reasoning="qwen3", tools="hermes", tools_schema=TOOLS, thinking=True), reasoning=False)


@pytest.mark.parametrize("stream", [False, True])
def test_enable_thinking_false_reads_the_answer_as_content(qwen, stream: bool) -> None:
    """The template closes reasoning in the prompt: the output is the answer (a call in it is read)."""
    eng, serving = qwen
    text = "Sure.\n" + CALL.format("get_weather", '{"city": "Paris"}')
    body = {
        "model": h.MODEL,
        "messages": USER,
        "tools": TOOLS,
        "chat_template_kwargs": {"enable_thinking": False},
        "stream": stream,
    }
    reply = h.run(serving, eng, body, ids(text), 3)
    same(reply, want(text, reasoning="qwen3", tools="hermes", tools_schema=TOOLS, thinking=False))
    assert reply.reasoning is None


# --------------------------------------------------------------------------- thinking budget


def test_thinking_token_budget_works_with_a_toklane_reasoning_parser(qwen) -> None:
    """vLLM builds its ReasoningConfig from the parser's marker strings; with them set, a request with
    thinking_token_budget passes vLLM's InputProcessor (it was refused without them)."""
    eng, serving = qwen
    config = eng.vllm_config.reasoning_config
    tok = tokenizer(QWEN)
    assert config.enabled
    assert config.reasoning_start_token_ids == [tok.token_to_id("<think>")]
    assert config.reasoning_end_token_ids == [tok.token_to_id("</think>")]
    body = {"model": h.MODEL, "messages": USER, "thinking_token_budget": 8}
    reply = h.run(serving, eng, body, ids(AUTO_OUTPUTS["no call"]))
    assert reply.content == "It is sunny in Paris."
    assert eng.requests[-1].sampling_params.thinking_token_budget == 8


def test_every_reasoning_format_tells_vllm_its_markers() -> None:
    from vllm.reasoning import ReasoningParserManager

    from toklane.reasoning_markers import markers_for

    for name in ("qwen3", "deepseek_r1", "gpt_oss", "mistral"):
        tok = tokenizer({"gpt_oss": "o200k_harmony", "mistral": "magistral"}.get(name, QWEN))
        parser = ReasoningParserManager.get_reasoning_parser(f"toklane_{name}")(tok)
        markers = markers_for(name)
        assert (parser.reasoning_start_str, parser.reasoning_end_str) == (markers.start, markers.budget_end)


# --------------------------------------------------------------------------- every format's examples

# gpt-oss: vLLM reads it through its own Harmony path whatever the flags say. Tekken (Mistral): vLLM
# serves it with mistral-common's tokenizer, which this harness does not build (its control tokens
# come first in the vocabulary); tests/integrations/test_vllm.py covers those formats.
SKIP_TOKENIZERS = ("mistral-tekken", "magistral")
CASES = [
    (o, out)
    for o, out, _ in examples()
    if set(o) <= {"tokenizer", "reasoning", "tools", "tools_schema"}
    and "gpt_oss" not in (o.get("tools"), o.get("reasoning"))
    and o["tokenizer"] not in SKIP_TOKENIZERS
]
CASES.sort(key=lambda case: (case[0]["tokenizer"] != QWEN, served_as(case[0]["tokenizer"])))  # grouped by server


def example_tools(opts: dict) -> list[dict] | None:
    if not opts.get("tools"):
        return None
    return opts.get("tools_schema") or [
        {"type": "function", "function": {"name": "any_tool", "parameters": {"type": "object"}}}
    ]


class Servings:
    """One replay engine per served tokenizer (``serving_models.served_as``: test families on
    DeepSeek-V4's vocabulary share one where their outputs cannot meet each other's added tokens),
    the latest only (examples run grouped by it, so each engine is built once; dropping the previous
    one bounds memory), and one ``OpenAIServingChat`` per flag pair on it."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.engine: h.ReplayEngine | None = None
        self.tok: toklane.Tokenizer | None = None
        self.servings: dict[tuple, object] = {}

    def get(self, opts: dict) -> tuple[h.ReplayEngine, object, toklane.Tokenizer]:
        name = opts["tokenizer"]
        if served_as(name) != self.name:
            self.servings.clear()
            self.engine = h.engine(QWEN) if name == QWEN else h.new_engine(name)
            self.tok, self.name = h.toklane_tokenizer(self.engine), served_as(name)
        assert self.engine is not None and self.tok is not None
        key = (opts.get("reasoning"), opts.get("tools"))
        if key not in self.servings:
            template = None if name == QWEN else h.NEUTRAL_TEMPLATE
            self.servings[key] = h.serving_chat(self.engine, *key, template)
        return self.engine, self.servings[key], self.tok


@pytest.fixture(scope="module")
def servings() -> Servings:
    return Servings()


@pytest.mark.parametrize(
    ("opts", "output"),
    CASES,
    ids=[f"{o['tokenizer']}-{o.get('reasoning')}-{o.get('tools')}-{i}" for i, (o, _) in enumerate(CASES)],
)
def test_documented_example_through_vllm_serving(servings: Servings, opts: dict, output: str) -> None:
    """Whole, and streamed 3 tokens per step (1 and 16 on the Qwen3.6 examples), through vLLM's
    server, on the tokenizer its renderer holds (toklane's view of it encodes the output and gives
    the expected parse)."""
    eng, serving, tok = servings.get(opts)
    tools = example_tools(opts)
    thinking = True if opts["tokenizer"] == QWEN and opts.get("reasoning") else None  # the template opened it
    if thinking and output.lstrip().startswith("<think>"):
        thinking = None
    expected = toklane.parse(
        tok,
        text=output,
        reasoning=opts.get("reasoning"),
        tools=opts.get("tools"),
        tools_schema=tools,
        thinking=thinking,
    )
    body = {"model": h.MODEL, "messages": USER, "tools": tools}
    out = tok.encode(output)
    same(h.run(serving, eng, body, out), expected)
    for step in STEPS if opts["tokenizer"] == QWEN else [3]:
        same(h.run(serving, eng, {**body, "stream": True}, out, step), expected)


# --------------------------------------------------------------------------- the real FastAPI app


def test_real_fastapi_app_over_loopback_with_the_openai_client(qwen) -> None:
    """``build_app`` + ``init_app_state`` from parsed ``vllm serve`` arguments, served by uvicorn on
    127.0.0.1, queried with the openai client: required tool choice streamed, and auto whole."""
    import asyncio
    import socket
    import threading

    import uvicorn
    from openai import OpenAI
    from vllm.entrypoints.openai.api_server import build_app, init_app_state

    eng, _ = qwen
    args = h.serve_args(
        "--reasoning-parser", "toklane_qwen3", "--tool-call-parser", "toklane_hermes", "--enable-auto-tool-choice"
    )
    app = build_app(args, ("generate",), eng.model_config)
    asyncio.run(init_app_state(eng, app.state, args, ("generate",)))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started and thread.is_alive():
            thread.join(0.05)
        client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none", timeout=60, max_retries=0)
        eng.output, eng.step = ids(REQUIRED), 1
        calls: dict[int, list[str]] = {}
        finish = None
        for chunk in client.chat.completions.create(
            model=h.MODEL, messages=USER, tools=TOOLS, tool_choice="required", stream=True
        ):
            for choice in chunk.choices:
                for call in choice.delta.tool_calls or ():
                    got = calls.setdefault(call.index, ["", ""])
                    got[0] += call.function.name or ""
                    got[1] += call.function.arguments or ""
                finish = choice.finish_reason or finish
        assert [(n, json.loads(a)) for n, a in calls.values()] == [("get_weather", {"city": "Paris"}), ("get_time", {})]
        assert finish == "tool_calls"
        eng.output = ids(AUTO_OUTPUTS["two calls"])
        message = client.chat.completions.create(model=h.MODEL, messages=USER, tools=TOOLS).choices[0].message
        assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == [
            ("get_weather", {"city": "Paris"}),
            ("get_time", {}),
        ]
    finally:
        server.should_exit = True
        thread.join(10)
