"""toklane's formats inside SGLang (``toklane.integrations.sglang``), driven through SGLang's own code.

For every documented example output (every format, on its real tokenizer), SGLang's own
``ReasoningParser("toklane_<r>", ...)`` and ``FunctionCallParser(tools, "toklane_<t>", ...)`` are
run the way SGLang's chat serving code runs them: the reasoning parser first, then the content it
leaves to the function-call parser (``has_tool_call`` then ``parse_non_stream`` on the whole
output; ``parse_stream_chunk`` on the text an incremental detokenizer releases, one token and
three tokens per chunk, then ``parse_stream_end``), and the result must be what
:func:`toklane.parse` gives.

Where the split cannot equal the joint parse: SGLang gives the tool-call parser only the text the
reasoning parser calls content, while :func:`toklane.parse` with both formats reads reasoning and
calls together. The two differ exactly where a call is written inside the reasoning (opened before
the end marker, or where reasoning has no end marker yet: the split reads it as reasoning) and in
channel formats (gpt-oss Harmony, Beam, Muse, Inkling's message blocks), whose calls live in
channels or blocks of their own whose framing the reasoning parser does not hand on as content.
Examples of both formats are therefore checked through the split where the reasoning parser alone
finds the same reasoning as the joint parse (no call inside the reasoning) and the format is no
channel format (``SPLIT``), as ``tests/integrations/test_vllm.py`` restricts its separate-parser
pairs; every example of one format alone is checked.

Skipped where SGLang is not installed (``benchmarks/requirements-peers.txt`` installs it).
"""

from __future__ import annotations

import hashlib
import json

import pytest

pytest.importorskip(
    "sglang.srt.function_call.function_call_parser",
    reason="SGLang is not installed (pip install --no-deps -r benchmarks/requirements-peers.txt)",
)

from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest, Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser

import toklane
from toklane.integrations import sglang as toklane_sglang

from ..parsing.helpers import tokenizer
from ..parsing.test_docs import examples

toklane_sglang.register()

# reasoning and calls in channels or message blocks of their own
CHANNELS = {"gpt_oss", "beam", "muse", "muse_glimmer", "inkling"}
CASES = [
    (o, out)
    for o, out, _ in examples()
    if set(o) <= {"tokenizer", "reasoning", "tools", "tools_schema", "thinking"} and o.get("thinking") is not False
]


def split_ok(opts: dict, output: str) -> bool:
    """Whether reasoning-then-tools can equal the joint parse (see the module docstring)."""
    if not (opts.get("reasoning") and opts.get("tools")):
        return True
    if opts["reasoning"] in CHANNELS or opts["tools"] in CHANNELS:
        return False
    tok = tokenizer(opts["tokenizer"])
    first = toklane.parse(tok, text=output, reasoning=opts["reasoning"], thinking=opts.get("thinking"))
    both = {k: opts.get(k) for k in ("reasoning", "tools", "tools_schema", "thinking")}
    joint = toklane.parse(tok, text=output, **both)
    return first.reasoning == joint.reasoning  # no call inside the reasoning


def split_key(opts: dict, output: str) -> tuple[str, str | None, str | None, str]:
    return opts["tokenizer"], opts.get("reasoning"), opts.get("tools"), hashlib.sha1(output.encode()).hexdigest()[:10]


# The examples split_ok refuses outside the channel formats (a call inside the reasoning), by split_key:
# split_ok itself loads every example's tokenizer (~35 s), so collection reads this record and
# test_the_split_is_where_split_ok_says checks it against split_ok when the tests run.
CALL_IN_REASONING = {("qwen3.6", "qwen3", "hermes", "926ebc1c21")}


def recorded_split_ok(opts: dict, output: str) -> bool:
    """split_ok as recorded: the channel formats left out, and the examples in CALL_IN_REASONING."""
    if opts.get("reasoning") and opts.get("tools") and CHANNELS & {opts["reasoning"], opts["tools"]}:
        return False
    return split_key(opts, output) not in CALL_IN_REASONING


SPLIT = [(o, out) for o, out in CASES if recorded_split_ok(o, out)]
IDS = [f"{o['tokenizer']}-{o.get('reasoning')}-{o.get('tools')}-{i}" for i, (o, _) in enumerate(SPLIT)]


def tools_for(opts: dict, tok: toklane.Tokenizer, output: str) -> list[Tool]:
    """The request's tools: the documented schema, plus every tool the output calls (SGLang drops
    calls of undeclared tools, so each call the example makes is declared)."""
    schema = list(opts.get("tools_schema") or [])
    declared = {t["function"]["name"] for t in schema}
    for call in toklane.parse(tok, text=output, tools=opts["tools"]).tool_calls:
        if call.name not in declared:
            declared.add(call.name)
            schema.append({"type": "function", "function": {"name": call.name, "parameters": {"type": "object"}}})
    if not schema:  # SGLang reads calls only for a request that declares tools
        schema = [{"type": "function", "function": {"name": "any_tool", "parameters": {"type": "object"}}}]
    return [Tool.model_validate(t) for t in schema]


def setup(opts: dict, output: str, *, stream: bool):
    tok = tokenizer(opts["tokenizer"])
    tools = tools_for(opts, tok, output) if opts.get("tools") else None
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, tool_choice="auto" if tools else "none"
    )
    reasoning = None
    if opts.get("reasoning"):
        name = f"toklane_{opts['reasoning']}"
        # serving_chat's force_reasoning, where SGLang reads no thinking switch in the chat template:
        # the detector's reasoning_default ("always": forced), else the request's thinking
        default = ReasoningParser(name, tokenizer=tok).detector.reasoning_default
        reasoning = ReasoningParser(
            name,
            stream_reasoning=stream,
            force_reasoning=bool(opts.get("thinking")) or default == "always",
            request=request,
            tokenizer=tok,
            tool_call_parser_active=bool(tools),
        )
    calls = FunctionCallParser(tools, f"toklane_{opts['tools']}", tokenizer=tok, tool_choice="auto") if tools else None
    schema = [t.model_dump(mode="json", exclude_none=True) for t in tools or ()] or None
    want = toklane.parse(
        tok,
        text=output,
        reasoning=opts.get("reasoning"),
        tools=opts.get("tools"),
        tools_schema=schema,
        thinking=opts.get("thinking"),
        unknown_tools="drop",
    )
    return tok, reasoning, calls, want


def calls_of(result: toklane.ParseResult) -> list[tuple[str, object]]:
    return [(c.name, json.loads(c.arguments)) for c in result.tool_calls]


@pytest.mark.parametrize(("opts", "output"), SPLIT, ids=IDS)
def test_whole_output_through_sglang(opts: dict, output: str) -> None:
    _, reasoning_parser, call_parser, want = setup(opts, output, stream=False)
    reasoning, text, calls = None, output, []
    if reasoning_parser is not None:
        reasoning, text = reasoning_parser.parse_non_stream(text)
    if call_parser is not None and call_parser.has_tool_call(text):  # as _process_tool_calls does
        text, calls = call_parser.parse_non_stream(text)
    assert (reasoning or None) == want.reasoning
    assert (text or None) == want.content
    assert [(c.name, json.loads(c.parameters)) for c in calls] == calls_of(want)
    names = [t.function.name for t in call_parser.tools] if call_parser else []
    assert [c.tool_index for c in calls] == [names.index(c.name) for c in calls]  # the tool's position


@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize(("opts", "output"), SPLIT, ids=IDS)
def test_stream_through_sglang(opts: dict, output: str, step: int) -> None:
    tok, reasoning_parser, call_parser, want = setup(opts, output, stream=True)
    ids = tok.encode(output)
    detok = toklane.IncrementalDetokenizer(tok)  # what SGLang's detokenizer releases, special tokens kept
    reasoning, content, calls = "", "", {}
    for at in range(0, len(ids), step):
        finished = at + step >= len(ids)
        delta = detok.step(ids[at : at + step]) + (detok.flush() if finished else "")
        # _process_reasoning_stream, then _process_tool_call_stream (serving_chat.py)
        if reasoning_parser is not None:
            r, delta = reasoning_parser.parse_stream_chunk(delta)
            if finished:
                end_r, end_n = reasoning_parser.parse_stream_end()
                r, delta = (r or "") + (end_r or ""), (delta or "") + (end_n or "")
            reasoning += r or ""
        items = []
        if call_parser is not None:
            delta, items = call_parser.parse_stream_chunk(delta)
            if finished:
                end_text, end_items = call_parser.parse_stream_end()
                delta, items = (delta or "") + end_text, [*items, *end_items]
        content += delta or ""
        for item in items:
            name, args = calls.get(item.tool_index, (None, ""))
            assert (item.name is not None) == (name is None), "the name comes first, once"
            calls[item.tool_index] = (name or item.name, args + item.parameters)
    assert reasoning == (want.reasoning or "")
    assert content == (want.content or "")
    assert [(n, json.loads(a)) for _, (n, a) in sorted(calls.items())] == calls_of(want)
    assert sorted(calls) == list(range(len(calls)))  # tool_index: the call's ordinal in the response


def test_every_format_is_registered_with_sglang() -> None:
    assert {f"toklane_{f}" for f in toklane.tool_formats()} <= set(FunctionCallParser.ToolCallParserEnum)
    assert {f"toklane_{f}" for f in toklane.reasoning_formats()} <= set(ReasoningParser.DetectorMap)
    assert FunctionCallParser.ToolCallParserEnum["hermes"].__module__.startswith("sglang.")  # SGLang's own stay
    toklane_sglang.register()  # idempotent
    assert FunctionCallParser.ToolCallParserEnum["toklane_qwen25"].tools_format == "hermes"  # aliases resolve


def test_split_restriction_is_small() -> None:
    """Most examples of two formats go through the split; those left out are the documented cases."""
    both = [(o, out) for o, out in CASES if o.get("reasoning") and o.get("tools")]
    left = [(o, out) for o, out in both if (o, out) not in SPLIT]
    assert len(left) < len(both) / 2


def test_the_split_is_where_split_ok_says() -> None:
    """The record collection reads (recorded_split_ok) gives split_ok's answer for every example: none is
    left out that the split can check, none checked through the split that it cannot."""
    wrong = [split_key(o, out) for o, out in CASES if recorded_split_ok(o, out) != split_ok(o, out)]
    assert wrong == [], "update CALL_IN_REASONING: split_ok differs on these examples"


def qwen_pair(stream_reasoning: bool = True, **kwargs: object):
    tok = tokenizer("qwen3.6")
    return tok, ReasoningParser("toklane_qwen3", stream_reasoning=stream_reasoning, tokenizer=tok, **kwargs)


def test_stream_reasoning_false_holds_reasoning_until_it_ends() -> None:
    """SGLang's stream_reasoning=False: the reasoning comes in one piece, when it ends (or at the end)."""
    _, parser = qwen_pair(stream_reasoning=False)
    output = "<think>First this, then that.</think>\n\nThe answer."
    pieces = [parser.parse_stream_chunk(output[i : i + 2]) for i in range(0, len(output), 2)]
    pieces.append(parser.parse_stream_end())
    assert [r for r, _ in pieces if r] == ["First this, then that."]
    assert "".join(n for _, n in pieces) == "The answer."
    _, cut = qwen_pair(stream_reasoning=False)
    held = [cut.parse_stream_chunk(c) for c in ("<think>Unfinished ", "thought")]
    assert [r for r, _ in held] == ["", ""]
    assert cut.parse_stream_end() == ("Unfinished thought", "")


def test_force_reasoning_and_force_nonempty_content() -> None:
    """force_reasoning is toklane's thinking, as SGLang's own Qwen3 detector reads it."""
    tok, forced = qwen_pair(force_reasoning=True)
    assert forced.parse_non_stream("Pre-filled thought.</think>Answer.") == ("Pre-filled thought.", "Answer.")
    output = "The answer is 42."  # enable_thinking=False: the template closed reasoning in the prompt
    for force in (False, True):
        sglang_own = ReasoningParser("qwen3", force_reasoning=force, tokenizer=tok).parse_non_stream(output)
        assert qwen_pair(force_reasoning=force)[1].parse_non_stream(output) == sglang_own
    assert qwen_pair()[1].parse_non_stream(output) == (output, "")  # not given: Qwen3.6's pre-filled <think>
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], chat_template_kwargs={"force_nonempty_content": True}
    )
    _, nonempty = qwen_pair(request=request)
    assert nonempty.parse_non_stream("<think>Only a thought.</think>") == ("", "Only a thought.")


def test_special_tokens_reach_the_tool_parser() -> None:
    """With a tool-call parser after it, the reasoning parser keeps special tokens in the content it
    hands on (Magistral's [TOOL_CALLS] is one); without one, it drops them as toklane.parse does."""
    tok = tokenizer("magistral")
    output = '[THINK]Look.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    active = ReasoningParser("toklane_mistral", tokenizer=tok, tool_call_parser_active=True)
    assert active.parse_non_stream(output) == ("Look.", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}')
    alone = ReasoningParser("toklane_mistral", tokenizer=tok)
    assert alone.parse_non_stream(output) == toklane_sglang_pair(tok, output)


def toklane_sglang_pair(tok: toklane.Tokenizer, output: str) -> tuple[str, str]:
    want = toklane.parse(tok, text=output, reasoning="mistral")
    return want.reasoning or "", want.content or ""


def test_without_a_tokenizer_the_error_names_the_argument() -> None:
    tools = [Tool.model_validate({"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}})]
    with pytest.raises(ValueError, match=r"^tokenizer is required by toklane_hermes: pass .*tokenizer=") as e:
        FunctionCallParser(tools, "toklane_hermes")
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match=r"^tokenizer is required by toklane_qwen3: "):
        ReasoningParser("toklane_qwen3")


def test_forced_tool_choice_takes_sglangs_json_schema_path() -> None:
    """No structural tag: tool_choice "required" is constrained by SGLang's JSON schema, whose output
    SGLang reads with its own JsonArrayParser; "auto" is left unconstrained, read by toklane."""
    tok = tokenizer("qwen3.6")
    tools = [Tool.model_validate({"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}})]
    parser = FunctionCallParser(tools, "toklane_hermes", tokenizer=tok)
    assert not parser.owns_tool_format()
    assert parser.get_structure_constraint("required")[0] == "json_schema"
    assert parser.get_structure_constraint("auto") is None
    with pytest.raises(NotImplementedError, match="tool_choice 'auto'"):
        parser.detector.structure_info()


def test_end_of_stream_check_finds_nothing_unsent() -> None:
    """SGLang's serving code (OpenAIServingChat._check_for_unstreamed_tool_args, not importable here
    without torchvision) sends, at the end of a stream, what ``prev_tool_call_arr[-1]["arguments"]``
    holds beyond ``streamed_args_for_tool[-1]``: every call was streamed whole, so nothing."""
    tok = tokenizer("qwen3.6")
    tools = [Tool.model_validate({"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}})]
    parser = FunctionCallParser(tools, "toklane_hermes", tokenizer=tok)
    call = '<tool_call>\n{{"name": "f", "arguments": {}}}\n</tool_call>'
    output = call.format('{"a": [1, 2]}') + call.format('{"b": "x"}')
    streamed = [item.parameters for c in output for item in parser.parse_stream_chunk(c)[1] if item.parameters]
    assert [json.loads(a) for a in streamed] == [{"a": [1, 2]}, {"b": "x"}]
    detector = parser.detector
    assert detector.streamed_args_for_tool == streamed
    assert [c["arguments"] for c in detector.prev_tool_call_arr] == streamed  # str: compared as is


def test_sglang_finds_the_plugin_by_entry_point() -> None:
    """Installed toklane declares the sglang.srt.plugins entry point that SGLang loads in its processes."""
    from sglang.srt.plugins import GENERAL_PLUGINS_GROUP, load_plugins_by_group

    func, dist = load_plugins_by_group(GENERAL_PLUGINS_GROUP)["toklane"]
    assert func is toklane_sglang.register and dist == "toklane"
