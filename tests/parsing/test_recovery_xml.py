"""A closing ``</parameter>`` written inside a value (Qwen3-Coder's XML functions and the XML invokes).

The tag ends the value only when what follows it (after whitespace) continues
the call -- another marker of the grammar, or the end of the output; text
after it keeps it in the value. Streaming must agree with ``parse()``.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toklane.parsing.bodies.xml_functions import CLOSE_HOLD
from toklane.parsing.bodies.xml_invoke import CLOSE_HOLD as INVOKE_HOLD

from .cases import deepseek_minimax_step, glm_kv  # noqa: F401  (registers the test tokenizers)
from .helpers import every_way, parsed, tokenizer
from .test_linear import WHOLE_TIMED_FROM, _parse_and_stream

QWEN = {"tools": "qwen3_coder"}
CLOSE = "</parameter>"


def coder(*params: tuple[str, str], name: str = "write_file") -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def minimax(*params: tuple[str, str], name: str = "write_file") -> str:
    body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in params)
    return f'<minimax:tool_call>\n<invoke name="{name}">\n{body}</invoke>\n</minimax:tool_call>'


# ---------------------------------------------------------------- Qwen3-Coder family
def test_closer_followed_by_text_stays_in_the_value() -> None:
    code = 'def f():\n    return "</parameter>"'
    out = coder(("path", "/tmp/a.py"), ("content", code))
    assert parsed("qwen3.6", out, **QWEN) == (None, None, [("write_file", {"path": "/tmp/a.py", "content": code})])


def test_closer_on_its_own_line_inside_code() -> None:
    out = coder(("content", "line one\n</parameter>\nline two"))
    assert parsed("qwen3.6", out, **QWEN)[2] == [("write_file", {"content": "line one\n</parameter>\nline two"})]


def test_closer_then_an_opener_inside_code_still_splits() -> None:
    """``</parameter>`` then ``<parameter=`` continues the call: the value ends there (as the peers read it)."""
    out = coder(("content", "a\n</parameter>\n<parameter=b>\nc"))
    assert parsed("qwen3.6", out, **QWEN)[2] == [("write_file", {"content": "a", "b": "c"})]


def test_two_closers_in_a_row_the_first_is_text() -> None:
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</parameter>\n</parameter>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a\n</parameter>"})]


def test_closer_then_next_parameter_ends_the_value() -> None:
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</parameter>\n\n  <parameter=y>\nb\n</parameter>\n"
    out += "</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a", "y": "b"})]


def test_closer_then_function_or_call_end() -> None:
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</parameter></function></tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a"})]
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</parameter>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a"})]


def test_closer_at_the_end_of_the_output_ends_the_value_and_the_call_stands() -> None:
    # Only the closers are missing after a complete parameter: vLLM and SGLang return the call too.
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</parameter>\n"
    assert parsed("qwen3.6", out, **QWEN) == (None, None, [("f", {"x": "a"})])
    cut = "<tool_call>\n<function=f>\n<parameter=x>\na\n</parameter>\n<parameter=y>\nb"
    assert parsed("qwen3.6", cut, **QWEN) == (None, cut, [])


def test_long_whitespace_after_a_closer_ends_the_value() -> None:
    ws = " " * CLOSE_HOLD
    out = f"<tool_call>\n<function=f>\n<parameter=x>\na</parameter>{ws}b</parameter>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a"})]
    ws = " " * (CLOSE_HOLD - 1)
    out = f"<tool_call>\n<function=f>\n<parameter=x>\na</parameter>{ws}b</parameter>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": f"a</parameter>{ws}b"})]


def test_typed_value_with_a_closer_inside_falls_back_to_text() -> None:
    schema = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}}]
    out = "<tool_call>\n<function=f>\n<parameter=n>\n5</parameter>x\n</parameter>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, tools_schema=schema, **QWEN)[2] == [("f", {"n": "5</parameter>x"})]
    out = "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, tools_schema=schema, **QWEN)[2] == [("f", {"n": 5})]


def test_content_after_the_call_is_kept() -> None:
    out = coder(("content", "a</parameter>b")) + "\nDone."
    assert parsed("qwen3.6", out, **QWEN) == (None, "Done.", [("write_file", {"content": "a</parameter>b"})])


def test_mimo_keeps_whitespace_around_an_inner_closer() -> None:
    out = "<tool_call>\n<function=f>\n<parameter=x> a\n</parameter> b </parameter>\n</function>\n</tool_call>"
    got = parsed("qwen3", out, reasoning="mimo", tools="mimo")
    assert got[2] == [("f", {"x": " a\n</parameter> b "})]


def test_seed_oss_and_step_formats() -> None:
    value = "<b>bold</b> then </parameter> literal"
    seed = coder(("html", value)).replace("tool_call>", "seed:tool_call>")
    assert parsed("seed-oss-test", seed, tools="seed_oss", thinking=False)[2] == [("write_file", {"html": value})]
    for fmt in ("step3p5", "step5"):
        got = parsed("cl100k_base", "</think>\n" + coder(("html", value)), reasoning=fmt, tools=fmt)
        assert got[2] == [("write_file", {"html": value})], fmt


def test_function_closer_followed_by_text_stays_in_the_value() -> None:
    doc = "Close with `</parameter>` then `</function>`.\nDone."
    out = coder(("path", "SPEC.md"), ("content", doc))
    assert parsed("qwen3.6", out, **QWEN)[2] == [("write_file", {"path": "SPEC.md", "content": doc})]


def test_function_closer_then_call_end_or_next_function_ends_the_call() -> None:
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a"})]
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</function>\n<function=g>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a"}), ("g", {})]
    out = "<tool_call>\n<function=f>\n<parameter=x>\na\n</function>"  # the end of the output
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a"})]


def test_function_closer_then_a_parameter_closer_is_value_text() -> None:
    out = "<tool_call>\n<function=f>\n<parameter=x>\na</function>\n</parameter>\n</function>\n</tool_call>"
    assert parsed("qwen3.6", out, **QWEN)[2] == [("f", {"x": "a</function>"})]


def test_function_closer_without_the_wrapper_ends_the_call_at_once() -> None:
    out = "<function=f>\n<parameter=x>\na\n</function>\nThat was the call."
    assert parsed("qwen3.6", out, **QWEN) == (None, "That was the call.", [("f", {"x": "a"})])


def test_long_whitespace_after_a_function_closer_ends_the_call() -> None:
    ws = "\n" * CLOSE_HOLD
    out = f"<tool_call>\n<function=f>\n<parameter=x>\na\n</function>{ws}Then text.</tool_call>"
    assert parsed("qwen3.6", out, **QWEN) == (None, "Then text.", [("f", {"x": "a"})])


# ---------------------------------------------------------------- XML invokes
def test_minimax_closer_followed_by_text_stays_in_the_value() -> None:
    code = 'print("</parameter>")'
    out = minimax(("path", "a.py"), ("content", code))
    got = parsed("minimax-m2-test", out, tools="minimax_m2")
    assert got[2] == [("write_file", {"path": "a.py", "content": code})]


def test_minimax_closer_then_markers_or_end() -> None:
    head = '<minimax:tool_call>\n<invoke name="f">\n'
    out = head + '<parameter name="x">a</parameter>\n</parameter>\n</invoke>\n</minimax:tool_call>'
    assert parsed("minimax-m2-test", out, tools="minimax_m2")[2] == [("f", {"x": "a</parameter>"})]
    out = head + '<parameter name="x">a</parameter> <parameter name="y">b</parameter></invoke></minimax:tool_call>'
    assert parsed("minimax-m2-test", out, tools="minimax_m2")[2] == [("f", {"x": "a", "y": "b"})]
    out = head + '<parameter name="x">a</parameter>'
    assert parsed("minimax-m2-test", out, tools="minimax_m2") == (None, out, [])
    ws = "\n" * INVOKE_HOLD
    out = head + f'<parameter name="x">a</parameter>{ws}b</invoke></minimax:tool_call>'
    assert parsed("minimax-m2-test", out, tools="minimax_m2")[2] == [("f", {"x": "a"})]


# ---------------------------------------------------------------- properties
SEGMENT = st.text("abcxyz =;\"'()\n\t中🚀", min_size=1, max_size=12)
GAP = st.sampled_from(["", " ", "\n", "\n\n", "\t "])


@st.composite
def values_with_closers(draw: st.DrawFn, functions: bool = False) -> str:
    """A value holding literal closers (``</function>`` too with ``functions``), each followed by text."""
    parts = [draw(SEGMENT)]
    for _ in range(draw(st.integers(0, 3))):
        tag = draw(st.sampled_from([CLOSE, "</function>"])) if functions else CLOSE
        parts.append(tag + draw(GAP) + draw(SEGMENT).lstrip(" \n\t") + "x")
    return "".join(parts).strip(" \n\t") or "v"


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values_with_closers(functions=True), min_size=1, max_size=3), st.integers(0, 2**32))
def test_property_qwen3_coder_values_keep_inner_closers(values: list[str], seed: int) -> None:
    params = [(f"p{i}", v) for i, v in enumerate(values)]
    out = "Writing it.\n\n" + coder(*params)
    got = every_way(tokenizer("qwen3.6"), dict(QWEN), out, random.Random(seed))
    assert got[:2] == (None, "Writing it.")
    assert [(n, json.loads(a)) for n, a in got[2]] == [("write_file", dict(params))]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values_with_closers(), min_size=1, max_size=3), st.integers(0, 2**32))
def test_property_minimax_values_keep_inner_closers(values: list[str], seed: int) -> None:
    params = [(f"p{i}", v) for i, v in enumerate(values)]
    got = every_way(tokenizer("minimax-m2-test"), {"tools": "minimax_m2"}, minimax(*params), random.Random(seed))
    assert got[:2] == (None, None)
    assert [(n, json.loads(a)) for n, a in got[2]] == [("write_file", dict(params))]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(["a", " ", "\n", CLOSE, "<parameter=k>", "</function>", "</tool_call>", "b\n"]), max_size=14
    ),
    st.integers(0, 2**32),
)
def test_property_any_mix_of_closers_streams_as_whole(pieces: list[str], seed: int) -> None:
    """Closers, whitespace, text and markers in any order: every feeding agrees with ``parse()``, never raises."""
    out = "<tool_call>\n<function=f>\n<parameter=x>\n" + "".join(pieces)
    every_way(tokenizer("qwen3.6"), dict(QWEN), out, random.Random(seed))
    out = '<minimax:tool_call><invoke name="f"><parameter name="x">' + "".join(pieces).replace(
        "<parameter=k>", "<parameter name=k>"
    )
    every_way(tokenizer("minimax-m2-test"), {"tools": "minimax_m2"}, out, random.Random(seed))


# ---------------------------------------------------------------- linear time
def _closers(n: int, unit: str) -> str:
    return unit * (n // len(unit))


LINEAR = [
    ("qwen3_coder closers", "qwen3.6", QWEN, "<tool_call>\n<function=f>\n<parameter=x>\n", CLOSE + " " * 40 + "x"),
    ("qwen3_coder function closers", "qwen3.6", QWEN, "<tool_call>\n<function=f>\n<parameter=x>\n", "</function>\n y"),
    (
        "minimax closers",
        "minimax-m2-test",
        {"tools": "minimax_m2"},
        '<invoke name="f"><parameter name="x">',
        CLOSE + "\nx",
    ),
]


@pytest.mark.usefixtures("frozen_heap")
@pytest.mark.parametrize("case", LINEAR, ids=[c[0] for c in LINEAR])
def test_many_inner_closers_are_linear(case: tuple) -> None:
    """Candidate closers held and released over and over: 8x the output takes about 8x the time."""
    _, name, fmt, head, unit = case
    tok = tokenizer(name)
    small, big = head + _closers(32 * 1024, unit), head + _closers(256 * 1024, unit)
    _parse_and_stream(tok, fmt, head + unit, 1)  # (the format's first use builds its tables: ~50 ms, not timed)
    (whole_big, both_big), (whole_small, both_small) = (
        _parse_and_stream(tok, fmt, big, 2),  # (best of two: one preempted run on a busy machine read 24.6x)
        _parse_and_stream(tok, fmt, small, 3),
    )
    ratio = both_big / both_small
    assert ratio < 24.0, f"8x the input took {ratio:.1f}x the time"
    if whole_big >= WHOLE_TIMED_FROM:
        ratio = whole_big / whole_small
        assert ratio < 24.0, f"8x the input took {ratio:.1f}x the time to parse whole"
