"""Hypothesis properties for every format, on real tokenizers.

* Well-formed outputs (generated from parts, spelled as each family spells
  them) parse to exactly their parts -- and identically for every chunking:
  whole text, whole ids, ids and text, one token at a time, random id
  chunks, every byte as its own token (splits inside every marker and UTF-8
  character), one character at a time, random text chunks, per-token text.
* Malformed outputs (truncated, with characters deleted, junk or markers
  inserted) never raise, parse identically for every chunking, and never
  yield a call whose arguments are not a JSON object.
* ``stream_arguments=True`` streams the same reasoning and content, and the
  same calls plus any that broke after they started streaming.
"""

from __future__ import annotations

import functools
import json
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.streammatch import Automaton

from .cases import all_cases
from .helpers import Case, Output, chunks, every_way, norm, stream, tokenizer

CASES = all_cases()

ALPHABET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    " \n\t.,:;!?'\"\\/(){}[]<>-_=+*&^%$#@~`|"
    "éßñüΩжक中日本語🚀🔥👍"
)
IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
TEXT = st.text(ALPHABET, max_size=30).map(lambda s: s.strip(" \n\t"))
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(ALPHABET, max_size=16)
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(IDENT, inner, max_size=3), max_leaves=6
)
ARGS = st.dictionaries(IDENT, VALUES, max_size=4)
LAYOUT = st.tuples(*[st.sampled_from(["", "\n", "\n\n", " "])] * 3)
JUNK = [
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "{",
    "}",
    "[",
    "]",
    '"',
    "\\",
    ",",
    ":",
    "<function=",
    "</parameter>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<|channel|>",
    "<|message|>",
    "<|call|>",
    "<escape>",
    "<end_function_call>",
    "(",
    ")",
    "=",
    "'",
    "ü",
    "🚀",
]
# The example counts scale with the hypothesis profile (tests/profiles.py: --hypothesis-profile=soak).
EXAMPLES = examples(60)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def forbidden(case: Case) -> Automaton[str]:
    """Strings that must not occur inside generated text: every marker and added token."""
    tok = tokenizer(case.tokenizer)
    words = set(tok.special_tokens) | set(case.forbid) | marker_texts(case)
    for name in (case.reasoning, case.tools):
        if name is None:
            continue
        words |= {"<think>", "</think>", "[THINK]", "[/THINK]", "<|python_start|>", "<|python_end|>", "[ARGS]"}
        words |= {"[CALL_ID]", "<function=", "</function>", "<parameter=", "</parameter>", "```"}
    return Automaton(sorted(words))


def marker_texts(case: Case) -> set[str]:
    """Every marker of the case's formats."""
    from toklane.parsing import reasoning_format, tool_format

    out: set[str] = set()
    if case.reasoning:
        fmt = reasoning_format(case.reasoning)
        out |= {m.text for m in fmt.marker_list()}
        out |= {m for m in (fmt.markers.start, fmt.markers.end) if m}
    if case.tools:
        out |= {m.text for m in tool_format(case.tools).markers}
    return out


def clean(case: Case, *texts: str) -> bool:
    auto = forbidden(case)
    return all(auto.matcher().search(t) is None for t in texts)


def strings_of(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in strings_of(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings_of(v))]
    return []


@st.composite
def outputs(draw: st.DrawFn, case: Case) -> Output:
    calls = draw(st.lists(st.tuples(IDENT, ARGS), max_size=3, unique_by=lambda c: c[0]))
    o = Output(
        reasoning=draw(TEXT) if case.reasoning else "",
        content=draw(TEXT),
        calls=calls if case.tools else [],
        tail=draw(TEXT),
        layout=draw(LAYOUT),
    )
    if not o.calls and not case.harmony:
        o.tail = ""
    if case.anchored and o.calls:
        o.content = ""
    if case.anchored:
        assume(not o.content.startswith(("{", "[")))
        assume(not o.tail.startswith((";", "{", ",")))
    if case.tools == "mistral":
        assume(not o.tail.startswith("["))
    assume(clean(case, o.reasoning, o.content, o.tail, *(s for c in o.calls for s in strings_of(c[1]))))
    if case.tools == "qwen3_coder":
        # Coder values are raw text: a string that reads "null" is null, by the format's rule.
        assume(all(s.lower() != "null" for c in o.calls for s in strings_of(c[1])))
    if case.tools == "functiongemma":
        assume(all("<escape>" not in s for c in o.calls for s in strings_of(c[1])))
    if case.valid is not None:
        assume(case.valid(o))
    return o


def decoded(result: tuple) -> tuple:
    reasoning, content, calls = result
    return reasoning, content, [(name, json.loads(args)) for name, args in calls]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@SETTINGS
@given(data=st.data())
def test_well_formed_outputs_parse_to_their_parts_for_every_chunking(case: Case, data: st.DataObject) -> None:
    tok = tokenizer(case.tokenizer)
    o = data.draw(outputs(case))
    text = case.render(o)
    assume(tok.decode(tok.encode(text)) == text)
    fmt = case.fmt(o)
    got = every_way(tok, fmt, text, random.Random(data.draw(st.integers(0, 2**32))))
    assert decoded(got) == case.expected(o), text


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@SETTINGS
@given(data=st.data())
def test_malformed_outputs_never_raise_and_agree_for_every_chunking(case: Case, data: st.DataObject) -> None:
    tok = tokenizer(case.tokenizer)
    o = data.draw(outputs(case))
    text = case.render(o)
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["truncate", "delete", "insert", "duplicate"]))
        at = data.draw(st.integers(0, len(text)))
        if kind == "truncate":
            text = text[:at]
        elif kind == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 4)) :]
        elif kind == "insert":
            text = text[:at] + data.draw(st.sampled_from(JUNK)) + text[at:]
        else:
            end = data.draw(st.integers(at, len(text)))
            text = text[:end] + text[at:end] + text[end:]
    assume(tok.decode(tok.encode(text)) == text)
    fmt = case.fmt(o)
    reasoning, content, calls = every_way(tok, fmt, text, random.Random(data.draw(st.integers(0, 2**32))))
    for _name, args in calls:
        assert isinstance(json.loads(args), dict)
    # Argument streaming: same text, and the same calls in order, plus any that broke after starting.
    rnd = random.Random(data.draw(st.integers(0, 2**32)))
    ids = tok.encode(text)
    streamed = norm(stream(tok, {**fmt, "stream_arguments": True}, chunks(ids, rnd), True))
    again = norm(stream(tok, {**fmt, "stream_arguments": True}, [[i] for i in ids], True))
    assert streamed == again
    assert streamed[:2] == (reasoning, content)
    it = iter(streamed[2])
    assert all(call in it for call in calls), (streamed[2], calls)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None)
@given(data=st.data())
def test_argument_streaming_equals_whole_calls_on_well_formed_output(case: Case, data: st.DataObject) -> None:
    tok = tokenizer(case.tokenizer)
    o = data.draw(outputs(case))
    text = case.render(o)
    assume(tok.decode(tok.encode(text)) == text)
    fmt = case.fmt(o)
    whole = norm(toklane.parse(tok, text=text, **fmt))
    ids = tok.encode(text)
    parser = toklane.get_parser(tok, **fmt, stream_arguments=True)
    deltas = [parser.feed(token_ids=[i]) for i in ids] + [parser.finish()]
    assert norm(toklane.ParseResult.from_deltas(deltas)) == whole
    # OpenAI stream shape: each call's first piece carries id and name, later pieces only arguments.
    seen: set[int] = set()
    for d in deltas:
        for piece in d.tool_calls:
            first = piece.index not in seen
            seen.add(piece.index)
            assert (piece.id is not None) == first and (piece.name is not None) == first
    assert sorted(seen) == list(range(len(whole[2])))


def test_every_format_has_a_property_case() -> None:
    from toklane.parsing import reasoning_format, tool_format

    tools = {tool_format(c.tools).name for c in CASES if c.tools}
    reasoning = {reasoning_format(c.reasoning).name for c in CASES if c.reasoning}
    assert set(toklane.tool_formats()) - tools == set(), "tool formats without a property-test case"
    assert set(toklane.reasoning_formats()) - reasoning == set(), "reasoning formats without a property-test case"
