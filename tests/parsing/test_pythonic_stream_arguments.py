"""Pythonic lists opened by a bare ``[`` with ``stream_arguments=True``: streaming equals the whole parse.

A ``[`` in the content may be prose (``see [Smith (2020)]``, a trailing ``[A(`` the output ends on), and a
call's header once sent cannot be taken back. So a call in such a list is sent once its ``)`` closes, as
without ``stream_arguments`` (``ToolFormat.hold_anchored``); lists opened by ``<|python_start|>`` and
OLMo 3's ``<function_calls>`` still stream name and arguments early. The property test that found it:
``test_argument_streaming_equals_whole_calls_on_well_formed_output`` drew ``[_()]`` with the tail ``[A(``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import toklane

from .helpers import _token_texts, byte_ids, chunks, every_way, norm, stream, tokenizer

OLMO3_PY = {"reasoning": "olmo3", "tools": "pythonic"}
PY = {"tools": "pythonic"}


def streamed_with_arguments(fmt: dict[str, Any], text: str) -> tuple[Any, ...]:
    """``text`` on llama3 streamed with ``stream_arguments=True`` in every chunking; asserts each equals the
    whole parse (without it) and that every call's first piece, and only it, carries id and name."""
    tok = tokenizer("llama3")
    expect = every_way(tok, fmt, text, random.Random(0))  # the whole parse, equal for every chunking
    sfmt = {**fmt, "stream_arguments": True}
    ids = tok.encode(text)
    ways: dict[str, list[Any]] = {
        "one token at a time": [[i] for i in ids],
        "every byte a token": [[i] for i in byte_ids(tok, text)],
        "one character at a time": list(text),
        "per-token text": _token_texts(tok, ids),
    }
    for seed in range(8):
        rnd = random.Random(seed)
        ways[f"id chunks {seed}"] = chunks(ids, rnd)
        ways[f"text chunks {seed}"] = chunks(text, rnd, 12)
    for name, pieces in ways.items():
        is_ids = bool(pieces) and isinstance(pieces[0], list)
        got = norm(stream(tok, sfmt, pieces, is_ids))
        assert got == expect, f"{name}: {got!r} != parse() {expect!r}"
    parser = toklane.get_parser(tok, **sfmt)
    deltas = [parser.feed(token_ids=[i]) for i in ids] + [parser.finish()]
    seen: set[int] = set()
    for d in deltas:
        for piece in d.tool_calls:
            first = piece.index not in seen
            seen.add(piece.index)
            assert (piece.id is not None) == first and (piece.name is not None) == first, piece
    return expect


@pytest.mark.parametrize(
    "text, content, calls",
    [
        # The output the property test drew, and variants: a list that opens after calls or prose and is
        # cut short is content, verbatim -- streamed, no header of its call was sent.
        ("</think>[_()] [A(", "[A(", [("_", {})]),
        ("</think>[_()]\n[A(x=1", "[A(x=1", [("_", {})]),
        ("</think>[_()] [A(), B(", ", B(", [("_", {}), ("A", {})]),
        ("</think>[_()] [A(x=1), B(y=", ", B(y=", [("_", {}), ("A", {"x": 1})]),
        ("</think>[_()] [A(x)", "[A(x)", [("_", {})]),
        ("</think>[_()] [A(s='a b c", "[A(s='a b c", [("_", {})]),
        ("</think>[A(", "[A(", []),
        ("</think>[A(x=1", "[A(x=1", []),
        ("</think>[A(), B(", ", B(", [("A", {})]),
        ("</think>[A(x=1, y=[1, 2", "[A(x=1, y=[1, 2", []),
        ("</think>hi [A(x=1", "hi [A(x=1", []),
        ("</think>see [Smith (2020)] for details", "see [Smith (2020)] for details", []),
        ("</think>[Smith (2020)] showed it", "[Smith (2020)] showed it", []),
        # Complete calls are still found, and arrive whole.
        (
            "</think>[f(a='x y z', b=[1, 2]), g()] done [h(c=None)]",
            "done",
            [
                ("f", {"a": "x y z", "b": [1, 2]}),
                ("g", {}),
                ("h", {"c": None}),
            ],
        ),
    ],
)
def test_anchored_list_streams_as_parsed_whole(text: str, content: str | None, calls: list) -> None:
    reasoning, got_content, got_calls = streamed_with_arguments(OLMO3_PY, text)
    assert reasoning is None
    assert (got_content, [(n, json.loads(a)) for n, a in got_calls]) == (content, calls)


@pytest.mark.parametrize("text", ["[_()] [A(", "x [A(y=1", "[A(), B(", "[f(a=1)] [Note (see above)] [g("])
def test_anchored_list_without_reasoning(text: str) -> None:
    streamed_with_arguments(PY, text)


def test_marker_opened_lists_still_stream_arguments_early() -> None:
    """The hold applies to a bare ``[`` only: after ``<|python_start|>`` (or OLMo 3's ``<function_calls>``)
    the model has opened a call block, so name and arguments stream as they are read."""
    tok = tokenizer("llama3")
    for fmt, head in (
        (PY, '<|python_start|>[get_weather(city="Paris'),
        ({"tools": "olmo3"}, '<function_calls>get_weather(city="Paris'),
    ):
        parser = toklane.get_parser(tok, **fmt, stream_arguments=True)
        early = [parser.feed(token_ids=[i]) for i in tok.encode(head)]
        pieces = [c for d in early for c in d.tool_calls]
        assert pieces and pieces[0].name == "get_weather", fmt
        assert "".join(c.arguments for c in pieces).startswith('{"city": "Par'), fmt


def test_anchored_list_sends_each_call_when_it_closes() -> None:
    tok = tokenizer("llama3")
    parser = toklane.get_parser(tok, tools="pythonic", stream_arguments=True)
    sent = []
    for piece in ["[get_weather(", 'city="Pa', 'ris")', ", get_time(tz=", '"UTC")', "]"]:
        sent.append([(c.name, c.arguments) for c in parser.feed(text=piece).tool_calls])
    sent.append([(c.name, c.arguments) for c in parser.finish().tool_calls])
    assert sent == [
        [],
        [],
        [("get_weather", '{"city": "Paris"}')],
        [],
        [("get_time", '{"tz": "UTC"}')],
        [],
        [],
    ]
