"""Whole outputs that open with the reasoning start marker (``<think>...</think>answer``, as original
Qwen3 and DeepSeek-R1 write it: the template did not pre-fill it) take the whole-output fast paths --
from text (:meth:`_whole_plain`) and from ids (:meth:`_ids_reasoning_only` for a reasoning-only
format) -- and must read exactly as streaming reads them: a character at a time from text, one
token at a time from ids. Twists: whitespace before the marker, the marker twice, no end marker (an
output cut short), empty reasoning, text before the marker (the machine reads that where the output
starts outside reasoning), calls after the reasoning, no marker at all."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane import gather

from .helpers import norm, stream

QWEN = toklane.load_tokenizer("qwen3.6")
DEEPSEEK = toklane.load_tokenizer("deepseek-v4")
WS = st.text(alphabet=" \n\t\r", max_size=3)
PLAIN = st.text(alphabet=st.characters(exclude_characters="<", exclude_categories=["Cs"]), max_size=30)
FORMATS: list[dict[str, Any]] = [
    {"reasoning": "qwen3"},
    {"reasoning": "qwen3", "tools": "hermes"},
    {"reasoning": "qwen3", "thinking": False},
    {"reasoning": "qwen3", "tools": "hermes", "thinking": False},
    {"reasoning": "deepseek_r1"},
]


@st.composite
def leading_marker(draw: Any) -> tuple[str, bool]:
    """An output that opens with the start marker (or, now and then, with none), with twists; and
    whether only whitespace precedes its first start marker (the shape the fast paths read)."""
    starts = draw(st.sampled_from([1, 1, 1, 2, 3, 0]))
    before = draw(st.sampled_from(["ws", "ws", "ws", "text"]))
    text = draw(WS) if before == "ws" else draw(PLAIN) + "x" + draw(WS)
    for _ in range(starts):  # a repeated start marker may have reasoning or whitespace before it
        text += "<think>" + draw(st.sampled_from(["", "", draw(WS), draw(PLAIN)]))
    text += draw(st.sampled_from(["", draw(WS), draw(PLAIN)])) + draw(WS)  # (empty reasoning now and then)
    if draw(st.integers(0, 4)):  # else no end marker: the output was cut short in its reasoning
        text += "</think>" + draw(WS) + draw(PLAIN) + draw(WS)
        for _ in range(draw(st.integers(0, 2))):
            call = json.dumps({"name": draw(st.sampled_from(["f", "write_file"])), "arguments": {"a": draw(PLAIN)}})
            text += f"<tool_call>{draw(WS)}{call}{draw(WS)}</tool_call>" + draw(WS)
    return text, before == "ws" and starts > 0


@settings(max_examples=examples(400), deadline=None)
@given(case=leading_marker())
def test_leading_start_marker_text_whole_equals_streaming(case: tuple[str, bool]) -> None:
    text, plain = case
    for fmt in FORMATS:
        expect = norm(stream(QWEN, fmt, list(text), False))  # one character at a time: the machine
        assert norm(toklane.parse(QWEN, text=text, **fmt)) == expect, fmt
        assert norm(toklane.parse_batch(QWEN, [text, text], **fmt)[1]) == expect, fmt
        parser = toklane.get_parser(QWEN, **fmt)
        fast = parser._whole_plain(text, parser._tables.text_automaton.find_all(text))
        if fast is not None:
            assert norm(fast) == expect, fmt
        calls = "<tool_call>" in text
        if plain and (not calls or "tools" in fmt):
            # the shape read without the machine, whichever side of the reasoning the output starts
            assert fast is not None, (fmt, text)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=leading_marker(), filler=st.booleans())
def test_leading_start_marker_ids_whole_equals_streaming(case: tuple[str, bool], filler: bool) -> None:
    text, plain = case
    if filler:  # (long enough for the bulk reader without the compiled one too)
        text = text.replace("</think>", " word" * 300 + "</think>", 1) if "</think>" in text else text + " word" * 300
    for tok, fmts in ((QWEN, FORMATS), (DEEPSEEK, [{"reasoning": "deepseek_r1"}, {"reasoning": "qwen3"}])):
        ids = tok.encode(text)
        spelled = tok.decode(ids)  # (the text the ids hold: Qwen's NFC, e.g. U+2F800 as U+4E3D 丽)
        for fmt in fmts:
            expect = norm(stream(tok, fmt, [[i] for i in ids], True))  # one token at a time
            assert norm(toklane.parse(tok, token_ids=ids, **fmt)) == expect, fmt
            assert norm(toklane.parse(tok, text=spelled, **fmt)) == expect, fmt
            assert norm(toklane.parse_batch(tok, [ids, ids], **fmt)[1]) == expect, fmt
            parser = toklane.get_parser(tok, **fmt)
            fast = parser._ids_reasoning_only(ids) if "tools" not in fmt else None
            if fast is not None:
                assert norm(fast) == expect, fmt
            if plain and "tools" not in fmt and "<tool_call>" not in text and gather.NATIVE:
                # read as runs, no joined text to cut
                assert fast is not None, (fmt, text)


def test_leading_start_marker_shapes() -> None:
    """The shapes by name, from text and ids, beside streaming (and what they read as)."""
    cases = {
        "<think>\nr\n</think>\n\nanswer": ("r", "answer"),
        " \n<think>r</think>answer ": ("r", "answer "),
        "<think><think>r</think>answer": ("r", "answer"),
        "<think>\n r <think> s </think>answer": ("r  s", "answer"),
        "<think>r": ("r", None),
        "<think>": (None, None),
        "<think></think>answer": (None, "answer"),
        "<think>\n\n</think>\n\nanswer": (None, "answer"),
    }
    for text, (reasoning, content) in cases.items():
        ids = QWEN.encode(text)
        for fmt in FORMATS[:3]:
            got = norm(toklane.parse(QWEN, text=text, **fmt))
            assert got == (reasoning, content, []), (text, fmt)
            assert norm(toklane.parse(QWEN, token_ids=ids, **fmt)) == got
            assert norm(stream(QWEN, fmt, list(text), False)) == got
            assert norm(stream(QWEN, fmt, [[i] for i in ids], True)) == got
            parser = toklane.get_parser(QWEN, **fmt)
            assert parser._whole_plain(text, parser._tables.text_automaton.find_all(text)) is not None
            if "tools" not in fmt and gather.NATIVE:
                assert parser._ids_reasoning_only(ids) is not None
    # text before the marker: reasoning where the output starts inside it, content where it does not
    for fmt, expect in (
        ({"reasoning": "qwen3"}, ("xr", "a", [])),
        ({"reasoning": "qwen3", "thinking": False}, ("r", "xa", [])),
    ):
        assert norm(toklane.parse(QWEN, text="x<think>r</think>a", **fmt)) == expect
        assert norm(toklane.parse(QWEN, token_ids=QWEN.encode("x<think>r</think>a"), **fmt)) == expect
