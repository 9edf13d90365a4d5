"""toklane's formats inside vLLM (``toklane.integrations.vllm``), driven through vLLM's own code.

For every documented example output (every format, on its real tokenizer), the parser vLLM's
``ParserManager`` composes for ``--reasoning-parser toklane_<r> --tool-call-parser toklane_<t>``
is run the way vLLM's serving layer runs it -- ``parse()`` on the whole text, and
``parse_delta()`` on the text an incremental detokenizer releases, one token and three tokens per
step -- and must give what :func:`toklane.parse` gives. The separate reasoning adapters answer
vLLM's token-id questions (``is_reasoning_end``, ``extract_content_ids``) like a reference scan.
Skipped where vLLM is not installed (``benchmarks/requirements-peers.txt`` installs it).
"""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
pytest.importorskip("vllm", reason="vLLM is not installed (pip install --no-deps -r benchmarks/requirements-peers.txt)")

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.parser.parser_manager import ParserManager
from vllm.reasoning import ReasoningParserManager
from vllm.tool_parsers import ToolParserManager

import toklane
from toklane.integrations import vllm as toklane_vllm

from ..parsing.helpers import tokenizer
from ..parsing.test_docs import examples

toklane_vllm.register()

CASES = [(o, out) for o, out, _ in examples() if set(o) <= {"tokenizer", "reasoning", "tools", "tools_schema"}]
IDS = [f"{o['tokenizer']}-{o.get('reasoning')}-{o.get('tools')}-{i}" for i, (o, _) in enumerate(CASES)]


def request_for(opts: dict) -> ChatCompletionRequest:
    tools = opts.get("tools_schema")
    if opts.get("tools") and not tools:
        tools = [{"type": "function", "function": {"name": "any_tool", "parameters": {"type": "object"}}}]
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, tool_choice="auto" if tools else None
    )


def parser_for(opts: dict, tok: toklane.Tokenizer):
    cls = ParserManager.get_parser(
        tool_parser_name=f"toklane_{opts['tools']}" if opts.get("tools") else None,
        reasoning_parser_name=f"toklane_{opts['reasoning']}" if opts.get("reasoning") else None,
        enable_auto_tools=True,
        tokenizer=tok,
    )
    assert issubclass(cls, toklane_vllm.ToklaneParser)
    request = request_for(opts)
    return cls(tok, request.tools), request


def expected(opts: dict, tok: toklane.Tokenizer, output: str, request: ChatCompletionRequest) -> toklane.ParseResult:
    schema = [t.model_dump(mode="json", exclude_none=True) for t in request.tools or ()] or None
    formats = {"reasoning": opts.get("reasoning"), "tools": opts.get("tools")}
    return toklane.parse(tok, text=output, tools_schema=schema, **formats)


def calls_of(result: toklane.ParseResult) -> list[tuple[str, object]]:
    return [(c.name, json.loads(c.arguments)) for c in result.tool_calls]


def stream_through(parser, tok: toklane.Tokenizer, output: str, request, step: int) -> tuple[str, str, list]:
    """``parse_delta`` as vLLM's serving layer calls it, ``step`` tokens at a time, on the text an
    incremental detokenizer releases (special tokens kept); the deltas folded into (reasoning,
    content, [(name, arguments)])."""
    ids = tok.encode(output)
    detok = toklane.IncrementalDetokenizer(tok)
    reasoning, content, calls = "", "", {}
    for at in range(0, len(ids), step):
        piece = ids[at : at + step]
        finished = at + step >= len(ids)
        text = detok.step(piece) + (detok.flush() if finished else "")
        delta = parser.parse_delta(text, piece, request, tok.encode("hi"), finished=finished)
        if delta is None:
            continue
        reasoning += delta.reasoning or ""
        content += delta.content or ""
        for call in delta.tool_calls:
            name, args = calls.get(call.index, ("", ""))
            calls[call.index] = (name + (call.function.name or ""), args + (call.function.arguments or ""))
    return reasoning, content, [(n, json.loads(a)) for _, (n, a) in sorted(calls.items())]


def assert_same(got: tuple[str, str, list], want: toklane.ParseResult) -> None:
    assert got == (want.reasoning or "", want.content or "", calls_of(want))


@pytest.mark.parametrize(("opts", "output"), CASES, ids=IDS)
def test_whole_output_through_vllm_parse(opts: dict, output: str) -> None:
    tok = tokenizer(opts["tokenizer"])
    parser, request = parser_for(opts, tok)
    want = expected(opts, tok, output, request)
    parser.set_prompt_token_ids(tok.encode("hi"))
    reasoning, content, calls = parser.parse(output, request, enable_auto_tools=True, model_output_token_ids=())
    assert reasoning == want.reasoning
    assert content == (want.content if want.content and want.content.strip() else None)
    assert [(c.name, json.loads(c.arguments)) for c in calls or ()] == calls_of(want)


@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize(("opts", "output"), CASES, ids=IDS)
def test_stream_through_vllm_parse_delta(opts: dict, output: str, step: int) -> None:
    tok = tokenizer(opts["tokenizer"])
    parser, request = parser_for(opts, tok)
    want = expected(opts, tok, output, request)
    assert_same(stream_through(parser, tok, output, request, step), want)


def test_every_format_is_registered_with_vllm() -> None:
    tools = set(ToolParserManager.list_registered())
    reasoning = set(ReasoningParserManager.list_registered())
    assert {f"toklane_{f}" for f in toklane.tool_formats()} <= tools
    assert {f"toklane_{f}" for f in toklane.reasoning_formats()} <= reasoning


def test_other_parsers_are_composed_by_vllm_as_before() -> None:
    cls = ParserManager.get_parser(tool_parser_name="hermes", reasoning_parser_name="qwen3", enable_auto_tools=True)
    assert not issubclass(cls, toklane_vllm.ToklaneParser)


@pytest.mark.parametrize("name", ["qwen3.6", "cl100k_base"])
def test_reasoning_end_on_token_ids(name: str) -> None:
    """vLLM's structured-output engine asks on ids; a text marker split over tokens counts."""
    tok = tokenizer(name)
    parser = ReasoningParserManager.get_reasoning_parser("toklane_qwen3")(tok)
    prompt = tok.encode("<|im_start|>assistant\n<think>\n")
    closed = tok.encode("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert not parser.is_reasoning_end(prompt)
    assert parser.is_reasoning_end(closed)
    thought = tok.encode("Hmm, 2+2.")
    end = tok.encode("</think>\n\nIt is 4.")
    out = thought + end
    assert not parser.is_reasoning_end(thought)
    assert parser.is_reasoning_end(out)
    content = parser.extract_content_ids(out)
    assert tok.decode(content).strip() == "It is 4."
    for cut in range(1, len(out) + 1):  # the step in which the marker completes says so, and only it
        done_before = "</think>" in tok.decode(out[: cut - 1])
        done_now = "</think>" in tok.decode(out[:cut])
        assert parser.is_reasoning_end_streaming(out[:cut], out[cut - 1 : cut]) == (done_now and not done_before)


# Reasoning closed by its end marker, then the answer: what a pair of separate parsers can read (a call
# opened inside reasoning needs both formats at once, which ToklaneParser has and a pair has not).
SPLIT = [
    (o, out)
    for o, out in CASES
    if o.get("reasoning") == "qwen3" and o.get("tools") in ("hermes", "qwen3_coder") and "</think>" in out
]


@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize(("opts", "output"), SPLIT, ids=[f"{o['tools']}-{i}" for i, (o, _) in enumerate(SPLIT)])
def test_separate_adapters_under_vllms_delegating_parser(opts: dict, output: str, step: int) -> None:
    """Our reasoning and tool adapters composed by vLLM's own DelegatingParser (phase by phase, as
    vLLM runs a pair of separate parsers): for reasoning first, then content and calls, the same
    result as toklane.parse."""
    from vllm.parser.abstract_parser import DelegatingParser

    class Pair(DelegatingParser):
        reasoning_parser_cls = ReasoningParserManager.get_reasoning_parser(f"toklane_{opts['reasoning']}")
        tool_parser_cls = ToolParserManager.get_tool_parser(f"toklane_{opts['tools']}")

    tok = tokenizer(opts["tokenizer"])
    request = request_for(opts)
    want = expected(opts, tok, output, request)
    parser = Pair(tok, request.tools)
    assert_same(stream_through(parser, tok, output, request, step), want)


def test_vllm_finds_the_plugin_by_entry_point_and_by_file() -> None:
    """Installed toklane declares the vllm.general_plugins entry point vLLM loads; the plugin file
    registers the names when vLLM imports it (--tool-parser-plugin)."""
    import importlib.metadata
    import importlib.util

    from vllm.plugins import load_plugins_by_group

    (entry,) = [e for e in importlib.metadata.entry_points(group="vllm.general_plugins") if e.name == "toklane"]
    assert entry.value == "toklane.integrations.vllm:register"
    assert load_plugins_by_group("vllm.general_plugins")["toklane"] is toklane_vllm.register
    ToolParserManager.import_tool_parser(importlib.util.find_spec("toklane.integrations.vllm_plugin").origin)
    assert ToolParserManager.get_tool_parser("toklane_qwen25").tools_format == "hermes"


SINGLE = [(o, out) for o, out in CASES if bool(o.get("reasoning")) != bool(o.get("tools"))]


@pytest.mark.parametrize("step", [0, 1, 3])  # 0: the whole output through Parser.parse
@pytest.mark.parametrize(("opts", "output"), SINGLE, ids=[f"{o['tokenizer']}-{i}" for i, (o, _) in enumerate(SINGLE)])
def test_each_adapter_alone_under_vllms_delegating_parser(opts: dict, output: str, step: int) -> None:
    """A reasoning-only or tools-only example through vLLM's own DelegatingParser holding just our
    adapter for that format (what vLLM builds when our parser is paired with none): its
    extract_reasoning(_streaming) or extract_tool_calls(_streaming) give toklane.parse's result."""
    from vllm.parser.abstract_parser import DelegatingParser

    class One(DelegatingParser):
        reasoning_parser_cls = (
            ReasoningParserManager.get_reasoning_parser(f"toklane_{opts['reasoning']}")
            if opts.get("reasoning")
            else None
        )
        tool_parser_cls = ToolParserManager.get_tool_parser(f"toklane_{opts['tools']}") if opts.get("tools") else None

    tok = tokenizer(opts["tokenizer"])
    request = request_for(opts)
    want = expected(opts, tok, output, request)
    parser = One(tok, request.tools)
    if step:
        assert_same(stream_through(parser, tok, output, request, step), want)
        return
    reasoning, content, calls = parser.parse(output, request, enable_auto_tools=True)
    assert reasoning == want.reasoning
    assert (content or None) == (want.content or None)
    assert [(c.name, json.loads(c.arguments)) for c in calls or ()] == calls_of(want)
