"""The compiled cut of a reasoning-only whole output (``toklane._trie.split_plain``, bound per parser as
``_split``): markers found, reasoning and content cut and stripped in one call. It must give exactly what
``_whole_plain`` gives from the hits -- which tests elsewhere hold to the machine's reading -- and the
machine's own reading, a character at a time; decline (None) every shape it does not read; and be set up
only for the parsers whose whole-output reading it is."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane import ParseResult, streammatch
from toklane.parsing import machine, reasoning_format, reasoning_formats
from toklane.parsing.machine import ThinkToolsParser

from .helpers import _with_specials, norm, stream

QWEN = toklane.load_tokenizer("qwen3.6")
NATIVE = streammatch._native_split_plain is not None
needs_native = pytest.mark.skipif(not NATIVE, reason="the compiled scan is not built (TOKLANE_PURE_PYTHON)")

FORMATS: list[dict[str, Any]] = [
    {"reasoning": "qwen3"},
    {"reasoning": "qwen3", "thinking": False},
    {"reasoning": "deepseek_r1"},
    {"reasoning": "deepseek_r1", "thinking": False},
]
# Whitespace the parsers strip, and characters that look like it but are not stripped; text of every
# str width (Latin-1, the BMP, beyond it) so the cut reads each kind of str.
WS = st.text(alphabet=" \n\t\r", max_size=3)
ODD = st.sampled_from(["", "\x0b", "\x0c", "\u3000", "\xa0", "\x85"])
PLAIN = st.text(
    alphabet=st.one_of(
        st.characters(exclude_characters="<", exclude_categories=["Cs"], max_codepoint=0xFF),
        st.characters(exclude_characters="<", exclude_categories=["Cs"]),
    ),
    max_size=20,
)
MARKERS = ["<think>", "</think>", "<tool_call>", "<|im_end|>", "<think"]


@st.composite
def outputs(draw: Any) -> str:
    """Whole outputs around the reasoning markers: usual shapes and every twist the cut must decline."""
    text = draw(st.sampled_from(["", draw(WS), draw(PLAIN) + "x"])) + draw(ODD)
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
        text += "<think>" + draw(st.sampled_from(["", draw(WS), draw(PLAIN)]))
    text += draw(WS) + draw(ODD) + draw(PLAIN) + draw(ODD) + draw(WS)
    if draw(st.integers(0, 4)):  # else cut short in its reasoning
        text += "</think>" + draw(WS) + draw(ODD) + draw(PLAIN) + draw(ODD) + draw(WS)
    for _ in range(draw(st.integers(0, 3)) // 2):  # now and then another marker, anywhere after
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(MARKERS)) + text[at:]
    return text


@needs_native
@settings(max_examples=examples(500), deadline=None)
@given(text=outputs())
def test_cut_equals_the_reading_from_hits_and_the_machines(text: str) -> None:
    for fmt in FORMATS:
        parser = toklane.get_parser(QWEN, **fmt)
        assert parser._split is not None, fmt
        cut = parser._split(text)
        from_hits = parser._whole_plain(text, parser._tables.text_automaton.find_all(text))
        expect = norm(stream(QWEN, fmt, list(text), False))  # one character at a time: the machine
        assert norm(toklane.parse(QWEN, text=text, **fmt)) == expect, fmt
        assert norm(toklane.get_parser(QWEN, **fmt).parse_whole(text)) == expect, fmt
        if cut is not None:
            assert cut == from_hits, (fmt, text)  # (exactly: an empty part is None in both)
            assert norm(cut) == expect, (fmt, text)
        # It reads every shape the reading from hits reads, but text or a second start marker before
        # the reasoning's own start marker (those it leaves to that reading).
        opened = text.lstrip(" \t\n\r").startswith("<think>")
        if from_hits is not None and text.count("<think>") <= 1 and (opened or "<think>" not in text):
            assert cut is not None, (fmt, text)


@needs_native
@pytest.mark.parametrize(
    ("fmt", "text", "expect"),
    [
        ({"reasoning": "qwen3"}, "", (None, None)),
        ({"reasoning": "qwen3"}, " why \n</think>\n\n answer \n", ("why", "answer \n")),
        ({"reasoning": "qwen3"}, "<think>\nwhy</think>answer", ("why", "answer")),
        ({"reasoning": "qwen3"}, "\n <think>why</think>", ("why", None)),
        ({"reasoning": "qwen3"}, "<think> cut short ", ("cut short", None)),
        ({"reasoning": "qwen3"}, "no end marker", ("no end marker", None)),
        ({"reasoning": "qwen3"}, "\u3000why\x0b</think>\xa0answer", ("\u3000why\x0b", "\xa0answer")),
        ({"reasoning": "qwen3"}, "why</think>a</think>b", "declined"),
        ({"reasoning": "qwen3"}, "why</think>a<|im_end|>", "declined"),
        ({"reasoning": "qwen3"}, "x<think>why</think>a", "declined"),  # (reasoning before it too)
        ({"reasoning": "qwen3"}, "<think>a<think>b</think>c", "declined"),  # (start marker repeated)
        ({"reasoning": "qwen3"}, "<think>why<tool_call>", ("why<tool_call>", None)),  # (no marker here)
        ({"reasoning": "qwen3", "thinking": False}, " just content ", (None, " just content ")),
        ({"reasoning": "qwen3", "thinking": False}, "\n<think>why</think> a", ("why", "a")),
        ({"reasoning": "qwen3", "thinking": False}, "text<think>why</think>a", "declined"),
        ({"reasoning": "qwen3", "thinking": False}, "text</think>a", "declined"),
        ({"reasoning": "deepseek_r1"}, "why 𝔘</think>𝔘", ("why 𝔘", "𝔘")),
    ],
)
def test_cut_shapes(fmt: dict[str, Any], text: str, expect: Any) -> None:
    parser = toklane.get_parser(QWEN, **fmt)
    got = parser._split(text)
    if expect == "declined":
        assert got is None
    else:
        assert got == ParseResult(*expect, [])
    assert norm(toklane.parse(QWEN, text=text, **fmt)) == norm(stream(QWEN, fmt, list(text), False))


@needs_native
def test_the_cut_is_set_up_only_where_it_is_the_whole_output_reading() -> None:
    """Reasoning-only parsers that start with nothing pre-filled and no role label get the cut; a tool
    format, a role label (Gemma 4's), a pre-filled start marker (append-think formats) or a format that
    is not start/end markers (Harmony) read whole outputs as before."""
    names = reasoning_formats()
    specials = {m.text for name in names for m in reasoning_format(name).marker_list() if m.token}
    tok = _with_specials(tuple(sorted(specials)))
    seen = {True: 0, False: 0}
    for name in names:
        fmt = reasoning_format(name)
        for thinking in (None, True, False):
            parser = toklane.get_parser(tok, reasoning=name, thinking=thinking)
            inside = fmt.implicit_start if thinking is None else thinking
            expected = (
                isinstance(parser, ThinkToolsParser)
                and not (inside and fmt.label)  # (the label is dropped from the reasoning's start)
                and not (inside and fmt.in_content and fmt.markers.start)  # (pre-filled: it goes back in front)
            )
            assert (parser._split is not None) == expected, (name, thinking)
            seen[expected] += 1
    assert toklane.get_parser(QWEN, reasoning="qwen3", tools="hermes")._split is None
    assert seen[True] > 20 and seen[False] > 0, seen  # (both kinds are there to compare)


@needs_native
def test_an_unknown_tools_policy_without_tools_reads_the_same() -> None:
    """``unknown_tools`` needs a tool format to act on; a reasoning-only parser given one (with a schema)
    still cuts, and reads as the machine does."""
    schema = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    text = "<think>why</think>answer"
    for policy in ("drop", "content"):
        fmt = {"reasoning": "qwen3", "tools_schema": schema, "unknown_tools": policy}
        assert norm(toklane.parse(QWEN, text=text, **fmt)) == norm(stream(QWEN, fmt, list(text), False))
        assert norm(toklane.parse(QWEN, text=text, **fmt)) == ("why", "answer", [])


@needs_native
@settings(max_examples=examples(300), deadline=None)
@given(text=outputs(), spelled=st.booleans())
def test_ids_cut_equals_the_machines_reading_token_by_token(text: str, spelled: bool) -> None:
    """From ids (up to _CUT_IDS of them), the output's joined text is cut where its markers are
    exactly its marker ids; ordinary tokens that spell a marker (text, from ids) make it decline."""
    ids = QWEN.encode(text)
    if spelled:  # "<think>" and "</think>" spelled by ordinary tokens somewhere
        at = len(ids) // 2
        ids = ids[:at] + QWEN.encode("<") + QWEN.encode("think>") + ids[at:]
    assert len(ids) <= machine._CUT_IDS
    for fmt in FORMATS:
        parser = toklane.get_parser(QWEN, **fmt)
        expect = norm(stream(QWEN, fmt, [[i] for i in ids], True))  # one token at a time: the machine
        assert norm(toklane.parse(QWEN, token_ids=ids, **fmt)) == expect, fmt
        assert norm(toklane.parse_batch(QWEN, [ids, ids], **fmt)[1]) == expect, fmt
        cut = parser._ids_cut(ids)
        if cut is not None:
            assert norm(cut) == expect, (fmt, text)
        if spelled:
            assert cut is None, (fmt, text)


@needs_native
def test_ids_cut_reads_the_usual_shape_and_hands_long_outputs_to_the_runs() -> None:
    text = "<think>\nwhy é 𝔘\n</think>\n\nanswer"
    ids = QWEN.encode(text)
    parser = toklane.get_parser(QWEN, reasoning="qwen3")
    assert norm(parser._ids_cut(ids)) == ("why é 𝔘", "answer", [])
    long_ids = QWEN.encode(text.replace("why", "why " * machine._CUT_IDS))
    assert len(long_ids) > machine._CUT_IDS
    reads = []
    original = machine.StreamParser._ids_cut

    def spy(self: Any, token_ids: Any) -> Any:
        reads.append(len(token_ids))
        return original(self, token_ids)

    try:
        machine.StreamParser._ids_cut = spy  # type: ignore[method-assign]
        assert toklane.parse(QWEN, token_ids=ids, reasoning="qwen3").content == "answer"
        assert toklane.parse(QWEN, token_ids=long_ids, reasoning="qwen3").content == "answer"
    finally:
        machine.StreamParser._ids_cut = original  # type: ignore[method-assign]
    assert reads == [len(ids)]  # (the long output: read as runs)
