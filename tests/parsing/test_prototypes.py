"""get_parser's prototypes: a warm ``get_parser`` copies the starting state of a parser built with the
same arguments into a blank parser (and gives it the request's ``tools_schema``, if any). Checked on
every format of the conformance corpus: the copy starts equal to a parser built from scratch, keeps no
state in common with any other parser, and parsers copied from one prototype read interleaved streams
as separate parsers do."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

import toklane
from tests.conformance.test_conformance import SUITES
from tests.parsing.helpers import chunks, norm, tokenizer
from toklane import ParseResult
from toklane.parsing.api import _keep_prototype, format_combo
from toklane.parsing.cache import prototypes_for

FORMATS = sorted({(s.tokenizer, s.reasoning or "", s.tools or "") for s in SUITES})
ARGS = [(thinking, stream) for thinking in (None, True, False) for stream in (False, True)]
SCHEMA = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]


def _none(name: str) -> str | None:
    return name or None


@pytest.mark.parametrize(("tok_name", "reasoning", "tools"), FORMATS)
def test_every_format_copies_a_prototype_equal_to_a_built_parser(tok_name: str, reasoning: str, tools: str) -> None:
    tok = tokenizer(tok_name)
    r, t = _none(reasoning), _none(tools)
    combo = format_combo(r, t)
    for thinking, stream in ARGS:
        first = toklane.get_parser(tok, r, t, thinking=thinking, stream_arguments=stream)
        assert (r, t, thinking, stream, "keep") in prototypes_for(tok), "this format is always built"
        copy = toklane.get_parser(tok, r, t, thinking=thinking, stream_arguments=stream)
        built = combo.cls.build(tok, first._tables, combo.rfmt, combo.tfmt, None, thinking, stream)
        assert type(copy) is type(built)
        assert copy.__dict__ == built.__dict__
        assert copy.__dict__ is not first.__dict__
        for unknown in ("keep", "drop"):  # a request's schema: a copy, checked and given the schema
            opts = {"thinking": thinking, "stream_arguments": stream, "unknown_tools": unknown}
            got = toklane.get_parser(tok, r, t, SCHEMA, **opts)
            want = combo.cls.build(tok, first._tables, combo.rfmt, combo.tfmt, SCHEMA, thinking, stream, unknown)
            assert type(got) is type(want)
            assert got.__dict__ == want.__dict__


def _deltas_to_result(deltas: list[Any]) -> tuple[Any, ...]:
    return norm(ParseResult.from_deltas(deltas))


@pytest.mark.parametrize("suite", SUITES, ids=[s.id for s in SUITES])
def test_parsers_copied_from_one_prototype_share_nothing(suite: Any) -> None:
    """Two copies fed in turns (one output each, random chunks) give what each output parses to alone."""
    tok = tokenizer(suite.tokenizer)
    rnd = random.Random(suite.id)
    samples = [s for s in suite.samples if not s.options]
    for a, b in itertools.pairwise(samples):
        fmt = suite.fmt(a)
        toklane.get_parser(tok, **fmt)  # the prototype exists from here on
        parsers = [toklane.get_parser(tok, **fmt), toklane.get_parser(tok, **fmt)]
        feeds = [chunks(a.output, rnd, 6), chunks(b.output, rnd, 6)]
        deltas: list[list[Any]] = [[], []]
        for i in range(max(map(len, feeds))):
            for k in (0, 1):
                if i < len(feeds[k]):
                    deltas[k].append(parsers[k].feed(text=feeds[k][i]))
        for k in (0, 1):
            deltas[k].append(parsers[k].finish())
        for k, sample in enumerate((a, b)):
            assert _deltas_to_result(deltas[k]) == norm(toklane.parse(tok, text=sample.output, **fmt))


def test_arguments_that_are_not_copied() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    schema = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    toklane.get_parser(tok, tools="hermes", tools_schema=schema)
    toklane.get_parser(tok, tools="hermes", thinking="yes")  # type: ignore[arg-type]  # truthy, not a bool
    toklane.get_parser(tok, reasoning="qwen3", stream_arguments=1)  # type: ignore[arg-type]
    kept = prototypes_for(tok)
    assert not [key for key in kept if key[2] not in (None, True, False) or key[3] not in (True, False)]
    # A request's schema is checked per request: a bad one fails even after a warm parser exists.
    with pytest.raises(toklane.InvalidToolsSchemaError):
        toklane.get_parser(tok, tools="hermes", tools_schema=[{"anyOf": 5}])
    # Unhashable or unknown arguments after warm-up still get the cold path's errors.
    with pytest.raises(TypeError):
        toklane.get_parser(tok, tools=["hermes"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown_tools"):
        toklane.get_parser(tok, tools="hermes", unknown_tools="nope")


def test_a_parser_holding_mutable_state_is_never_a_prototype() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    parser = toklane.get_parser(tok, tools="hermes")
    key = ("mutable test", None, None, False, "keep")
    parser._held_list = []  # type: ignore[attr-defined]
    _keep_prototype(tok, key, parser)
    assert key not in prototypes_for(tok)
    del parser._held_list  # type: ignore[attr-defined]
    _keep_prototype(tok, key, parser)
    assert key in prototypes_for(tok)
    del prototypes_for(tok)[key]


def test_parse_batch_with_a_schema_equals_parse_per_output() -> None:
    """parse_batch copies its first parser's state (schema checked once) into every other output's parser."""
    tok = toklane.load_tokenizer("qwen3.6")
    schema = [{"type": "function", "function": {"name": "known", "parameters": {"type": "object", "properties": {}}}}]
    call = '<tool_call>\n{{"name": "{}", "arguments": {{"x": {}}}}}\n</tool_call>'
    outputs = [f"<think>plan {i}</think>text {i}\n" + call.format("known" if i % 2 else "unknown", i) for i in range(6)]
    for unknown in ("keep", "drop", "content"):
        fmt: dict[str, Any] = {"reasoning": "qwen3", "tools": "hermes", "unknown_tools": unknown}
        expect = [norm(toklane.parse(tok, text=out, tools_schema=schema, **fmt)) for out in outputs]
        assert len({len(e[2]) for e in expect}) == (1 if unknown == "keep" else 2)  # the policy applies
        got = toklane.parse_batch(tok, [*outputs[:3], *map(tok.encode, outputs[3:])], tools_schema=schema, **fmt)
        assert [norm(r) for r in got] == expect
    with pytest.raises(toklane.InvalidToolsSchemaError):
        toklane.parse_batch(tok, outputs, tools="hermes", tools_schema=[{"anyOf": 5}])


def test_parse_reads_through_the_prototype_and_changes_nothing() -> None:
    """A warm parse() reads each output through the prototype's reader (no copy unless the machine must
    read it): whatever route an output takes, the kept state and the reader stay as they were, and each
    result equals a fresh parser's."""
    tok = toklane.load_tokenizer("qwen3.6")
    fmt: dict[str, Any] = {"reasoning": "qwen3", "tools": "hermes"}
    call = '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    outputs = [
        "plan</think>answer",  # plain: no machine
        "plan</think>text " + call,  # plain, with a call
        "plan</think>text " + call + " trailing prose",  # the machine reads it
        "plan</think>" + call.replace("}}", "}"),  # a broken call: the machine reports it
        "no end marker at all",
    ]
    toklane.get_parser(tok, **fmt)
    key = ("qwen3", "hermes", None, False, "keep")
    _, state, reader = prototypes_for(tok)[key]
    before = dict(state)
    assert reader.__dict__ == before and reader.__dict__ is not state
    for out in outputs:
        fresh = toklane.get_parser(tok, **fmt).parse_whole(text=out)
        for result in (toklane.parse(tok, text=out, **fmt), toklane.parse(tok, token_ids=tok.encode(out), **fmt)):
            assert norm(result) == norm(fresh)
        assert state == before and reader.__dict__ == before
        assert prototypes_for(tok)[key][2] is reader
