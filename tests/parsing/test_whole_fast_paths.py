"""Whole outputs take fast paths (one compiled marker scan, the C JSON decoder for whole call objects,
containers and strings); streaming a character at a time takes none of them. Both must give the same
result on every output, including the malformed ones the fast paths hand back to the scanner."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

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


@settings(max_examples=examples(300), deadline=None)
@given(objects=st.lists(call_object(), min_size=1, max_size=3), reason=st.text(max_size=30), tail=st.text(max_size=20))
def test_hermes_whole_equals_streaming_a_character_at_a_time(objects: list[str], reason: str, tail: str) -> None:
    fmt = {"reasoning": "qwen3", "tools": "hermes"}
    text = reason + "</think>\n\n" + "\n".join(f"<tool_call>\n{o}\n</tool_call>" for o in objects) + tail
    whole = norm(toklane.parse(QWEN, text=text, **fmt))
    assert whole == norm(stream(QWEN, fmt, list(text), False))
    assert whole == norm(toklane.parse_batch(QWEN, [text], **fmt)[0])


def test_call_values_json_decoder_refuses_but_json_allows_read_as_streaming_reads_them() -> None:
    """Whole call objects are checked where they end, not built (toklane._json): arguments nested
    deeper than Python's recursion limit or holding an integer past its digit limit are JSON, as the
    streaming scanner reads them -- the whole-output path gives the same call, and reads it itself."""
    from toklane.parsing import jsonscan

    deep = "[" * 3000 + "]" * 3000
    fmt = {"reasoning": "qwen3", "tools": "hermes"}
    for args, other, broken in (
        ('{"n": ' + "9" * 5000 + "}", "1", False),
        ('{"a": ' + deep + "}", "2", False),
        ('{"a": 1}', deep, False),
        ('{"a": ' + deep[:-1] + "}", "3", True),  # (one bracket short)
        ('{"a": 1.5e+3, "b": [true, null, "\\u00e9\\n"]}', '"x\\y"', True),  # (a bad escape elsewhere)
    ):
        text = f'r</think>\n\n<tool_call>\n{{"name": "f", "x": {other}, "arguments": {args}}}\n</tool_call>'
        expect = norm(stream(QWEN, fmt, [text[i : i + 7] for i in range(0, len(text), 7)], False))
        assert norm(toklane.parse(QWEN, text=text, **fmt)) == expect
        assert norm(toklane.parse(QWEN, token_ids=QWEN.encode(text), **fmt)) == expect
        assert expect[2] == ([] if broken else [("f", args)])
        parser = toklane.get_parser(QWEN, **fmt)
        fast = parser._whole_plain(text, parser._tables.text_automaton.find_all(text))
        if broken:
            assert fast is None
        elif jsonscan.NATIVE:
            assert fast is not None and norm(fast) == expect


@settings(max_examples=examples(200), deadline=None)
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


WS = st.text(alphabet=" \n\t\r", max_size=3)
PLAIN = st.text(alphabet=st.characters(exclude_characters="<"), max_size=30)


@st.composite
def plain_shaped(draw: Any) -> tuple[str, bool]:
    """Reasoning, its end marker, content, call blocks, trailing whitespace (the shape parse() reads
    without the machine), or the same with one twist the machine must read; and whether it is plain."""
    calls = [
        json.dumps({"name": draw(st.sampled_from(["f", "write_file"])), "arguments": {"a": draw(PLAIN)}})
        for _ in range(draw(st.integers(0, 3)))
    ]
    blocks = [f"<tool_call>{draw(WS)}{c}{draw(WS)}</tool_call>" for c in calls]
    twist = draw(st.sampled_from(["", "", "", "text after", "<|im_end|>", ", ", "<think>", '"arguments": "{}"']))
    if twist == '"arguments": "{}"' and blocks:
        blocks[-1] = '<tool_call>{"name": "f", "arguments": "{}"}</tool_call>'
    elif twist == ", " and blocks:
        blocks[-1] = (
            blocks[-1].replace("}</tool_call>", "},</tool_call>").replace("}\n</tool_call>", "},\n</tool_call>")
        )
    text = draw(PLAIN) + draw(WS) + "</think>" + draw(WS) + draw(PLAIN) + draw(WS)
    text += "".join(b + draw(WS) for b in blocks)
    if draw(st.integers(0, 5)) == 0:  # a call list in the content: a call for formats anchored at "["
        text = text.replace(
            "</think>", "</think>" + draw(st.sampled_from(["[f(a=1)]", '[{"name": "f", "arguments": {}}]'])), 1
        )
    if twist in ("text after", "<|im_end|>", "<think>"):
        text += twist
    return text, twist == ""


@settings(max_examples=examples(400), deadline=None)
@given(case=plain_shaped())
def test_plain_shape_read_without_the_machine_equals_streaming(case: tuple[str, bool]) -> None:
    text, plain = case
    fmt = {"reasoning": "qwen3", "tools": "hermes"}
    parser = toklane.get_parser(QWEN, **fmt)
    fast = parser._whole_plain(text, parser._tables.text_automaton.find_all(text))
    expect = norm(stream(QWEN, fmt, list(text), False))  # one character at a time: the machine
    assert norm(toklane.parse(QWEN, text=text, **fmt)) == expect
    if plain:  # the shape the fast path exists for is read by it, and gives the machine's result
        assert fast is not None and norm(fast) == expect
    for other in (
        {"reasoning": "qwen3"},
        {"tools": "hermes"},
        {"reasoning": "qwen3", "tools": "pythonic"},
        {"tools": "xlam"},
    ):
        assert norm(toklane.parse(QWEN, text=text, **other)) == norm(stream(QWEN, other, list(text), False))
    if plain:  # without a reasoning format: everything before the calls is content
        tools_only = text[text.index("</think>") + len("</think>") :]
        parser = toklane.get_parser(QWEN, tools="hermes")
        fast = parser._whole_plain(tools_only, parser._tables.text_automaton.find_all(tools_only))
        assert fast is not None and norm(fast) == norm(stream(QWEN, {"tools": "hermes"}, list(tools_only), False))


@settings(max_examples=examples(300))
@given(
    parts=st.lists(st.tuples(st.sampled_from([" ", "\n", "\t", "\r", "a", "é", "\u3000", " x "]), st.integers(0, 90))),
    cut=st.tuples(st.integers(0, 2000), st.integers(0, 2000)),
)
def test_stripping_a_span_with_one_copy_equals_slicing_then_stripping(parts: list[tuple[str, int]], cut: Any) -> None:
    from toklane.parsing.block import WS
    from toklane.parsing.machine import _stripped

    text = "".join(p * n for p, n in parts)
    start, end = sorted(min(c, len(text)) for c in cut)
    assert _stripped(text, start, end) == text[start:end].strip(WS)
    assert _stripped(text, start, end, right=False) == text[start:end].lstrip(WS)


HARMONY = toklane.load_tokenizer("o200k_harmony")
HARMONY_FORMATS = [
    {"reasoning": "gpt_oss", "tools": "gpt_oss"},
    {"reasoning": "gpt_oss"},
    {"tools": "gpt_oss"},
    {"reasoning": "gpt_oss", "tools": "gpt_oss", "tools_schema": [{"type": "function", "function": {"name": "f"}}]},
]
BODY = st.text(alphabet=st.characters(exclude_characters="<"), max_size=24) | st.sampled_from(["", " \n ", "a<b"])


@st.composite
def harmony_message(draw: Any) -> tuple[str, bool]:
    """One message in the token form, and whether it has the shape read without the machine (a
    message in four has a twist the machine must read: a header, a body or an end out of shape)."""
    odd = draw(st.integers(0, 3)) == 0

    def pick(usual: list[str], twists: list[str]) -> str:
        return draw(st.sampled_from(usual + twists if odd else usual))

    start = pick(["<|start|>assistant", ""], ["<|start|>user", "<|start|> assistant"])
    if draw(st.booleans()):  # a call
        recipient = pick(["functions.f", "functions.write_file"], ["functions.", "browser.search", "python"])
        channel = pick(["commentary", "analysis", "final"], []) + f" to={recipient}"
        channel = pick([channel, channel + " "], [channel.replace(" ", "  ")])
        args = json.dumps({"a": draw(PLAIN), "n": draw(st.integers())})
        body = pick([args, f" {args}\n", "{}"], [args[:-1], args + " x", "[1]", "NaN", args + args])
        shaped = recipient.startswith("functions.") and recipient != "functions." and body.strip(" \n") in (args, "{}")
    else:
        channel = pick(["analysis", "final", "commentary", "analysis "], ["other", "final json", ""])
        body = draw(BODY)
        shaped = channel.strip() in ("analysis", "final", "commentary")
    constrain = pick(["", "<|constrain|>json", "<|constrain|> json"], ["<|constrain|>code"])
    end = pick(["<|end|>", "<|call|>", "<|return|>"], ["", "<|message|>"])
    shaped &= start in ("<|start|>assistant", "") and constrain != "<|constrain|>code"
    shaped &= end not in ("", "<|message|>")
    return f"{start}<|channel|>{channel}{constrain}<|message|>{body}{end}", shaped


@settings(max_examples=examples(500), deadline=None)
@given(
    messages=st.lists(harmony_message(), min_size=1, max_size=4),
    gaps=st.lists(st.sampled_from(["", "", "", "", "\n", " x ", "analysis", "<"]), min_size=5, max_size=5),
    unended=st.booleans(),
)
def test_harmony_whole_equals_streaming_a_character_at_a_time(
    messages: list[tuple[str, bool]], gaps: list[str], unended: bool
) -> None:
    """gpt-oss whole outputs in the token form: read without the machine where they have the plain
    shape (well-formed headers, a JSON object per call, whitespace between messages), by the machine
    otherwise; the same result either way as streaming them a character at a time."""
    texts = [m for m, _ in messages]
    tail = "" if unended else gaps[-1]  # (gaps before each message, and one after the last)
    plain = all(p for _, p in messages) and all(not g.strip() for g in [*gaps[: len(messages)], tail])
    if unended:  # the last message runs to the end of the output (a length-capped output)
        for end in ("<|end|>", "<|call|>", "<|return|>"):
            if texts[-1].endswith(end):
                texts[-1] = texts[-1][: -len(end)]
                break
    text = "".join(g + m for g, m in zip(gaps, texts, strict=False)) + tail
    for fmt in HARMONY_FORMATS:
        parser = toklane.get_parser(HARMONY, **fmt)
        fast = parser._whole_plain(text, parser._tables.text_automaton.find_all(text))
        expect = norm(stream(HARMONY, fmt, list(text), False))
        assert norm(toklane.parse(HARMONY, text=text, **fmt)) == expect
        assert norm(toklane.parse_batch(HARMONY, [text, text], **fmt)[1]) == expect
        if fast is not None:
            assert norm(fast) == expect
        elif plain and "tools_schema" not in fmt and (fmt.get("tools") or "to=" not in text):
            raise AssertionError(f"the plain shape was not read without the machine: {text!r}")
