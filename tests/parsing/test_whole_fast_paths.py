"""Whole outputs take fast paths (one compiled marker scan, the C JSON decoder for whole call objects,
containers and strings); streaming a character at a time takes none of them. Both must give the same
result on every output, including the malformed ones the fast paths hand back to the scanner."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import toklane

from .helpers import norm, stream

QWEN = toklane.load_tokenizer("qwen3.6")
KEYS = st.sampled_from(["name", "arguments", "parameters", "id", "type", "x"])
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=40) | st.sampled_from(["", "write_file", "f"])
VALUES = st.recursive(SCALARS, lambda inner: st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)
RAW = st.sampled_from(["NaN", "Infinity", '"\x01"', '"\\x"', "01", "[1,]", "{", '"open', "tru", "-"])


@st.composite
def call_object(draw: Any) -> str:
    """A call-shaped JSON object: usual or not (duplicate, missing or odd members), sometimes broken."""
    members = [
        (k, json.dumps(v, ensure_ascii=draw(st.booleans())))
        for k, v in draw(st.lists(st.tuples(KEYS, VALUES), max_size=4))
    ]
    if draw(st.booleans()):
        members.insert(0, ("name", json.dumps(draw(st.sampled_from(["write_file", "get_weather"])))))
        members.append(("arguments", json.dumps({"path": draw(st.text(max_size=60)), "n": draw(st.integers())})))
    if draw(st.integers(0, 4)) == 0:  # a value the decoder refuses
        k = draw(st.integers(0, max(0, len(members) - 1)))
        if members:
            members[k] = (members[k][0], draw(RAW))
    sep = draw(st.sampled_from([", ", ",", ",\n  "]))
    return "{" + sep.join(f'"{k}": {v}' for k, v in members) + "}"


@settings(max_examples=300, deadline=None)
@given(objects=st.lists(call_object(), min_size=1, max_size=3), reason=st.text(max_size=30), tail=st.text(max_size=20))
def test_hermes_whole_equals_streaming_a_character_at_a_time(objects: list[str], reason: str, tail: str) -> None:
    fmt = {"reasoning": "qwen3", "tools": "hermes"}
    text = reason + "</think>\n\n" + "\n".join(f"<tool_call>\n{o}\n</tool_call>" for o in objects) + tail
    whole = norm(toklane.parse(QWEN, text=text, **fmt))
    assert whole == norm(stream(QWEN, fmt, list(text), False))
    assert whole == norm(toklane.parse_batch(QWEN, [text], **fmt)[0])


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(["<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>", "<", "</", "think>"])
        | st.text(alphabet="<>/|ab \n{}", max_size=50),
        max_size=12,
    )
)
def test_marker_scan_of_whole_text_equals_streaming(parts: list[str]) -> None:
    text = "".join(parts)
    for fmt in ({"reasoning": "qwen3"}, {"reasoning": "qwen3", "tools": "hermes"}, {"tools": "qwen3_coder"}):
        assert norm(toklane.parse(QWEN, text=text, **fmt)) == norm(stream(QWEN, fmt, list(text), False))
