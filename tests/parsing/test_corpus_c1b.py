"""Regressions found by the c1b corpus: Beam's JSON-object call body, Inkling's name-only JSON call."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

from .cases.muse_beam_inkling import INKLING
from .helpers import norm, parsed, stream, tokenizer

BEAM = {"reasoning": "beam", "tools": "beam"}
INK = {"reasoning": "inkling", "tools": "inkling"}
THINK = "<|channel|>analysis<|message|>Weather.<|end|>"


def beam_head(name: str, constrain: str = "xml") -> str:
    return f"<|start|>assistant to={name}<|channel|>analysis <|constrain|>{constrain}<|message|>"


# --------------------------------------------------------------------------- Beam: a JSON-object body


def test_beam_json_body_holds_the_arguments() -> None:
    # Before: text before the first parameter tag was ignored: get_weather({}) -- the arguments lost.
    for tok in ("o200k_harmony", "cl100k_base"):
        for constrain in ("xml", "json"):
            text = (
                THINK + beam_head("get_weather", constrain) + '\n{"city": "Paris", "days": [1, {"a": null}]}\n<|call|>'
            )
            assert parsed(tok, text, **BEAM) == (
                "Weather.",
                None,
                [("get_weather", {"city": "Paris", "days": [1, {"a": None}]})],
            )


def test_beam_json_body_then_more_messages() -> None:
    text = (
        THINK
        + beam_head("get_weather")
        + '{"city": "Oslo"}<|end|>'
        + beam_head("get_time")
        + "{}<|call|><|start|>assistant<|channel|>final<|message|>ok<|return|>"
    )
    assert parsed("o200k_harmony", text, **BEAM) == (
        "Weather.",
        "ok",
        [("get_weather", {"city": "Oslo"}), ("get_time", {})],
    )


def test_beam_json_body_text_after_is_ignored_and_stop_may_be_cut() -> None:
    assert parsed("o200k_harmony", THINK + beam_head("f") + '{"a": 1} done<|call|>', **BEAM) == (
        "Weather.",
        None,
        [("f", {"a": 1})],
    )
    assert parsed("o200k_harmony", THINK + beam_head("f") + '{"a": "<rfl:parameter"}', **BEAM) == (
        "Weather.",
        None,
        [("f", {"a": "<rfl:parameter"})],
    )


def test_beam_json_body_broken_is_content() -> None:
    for body in ('{"city": "Par', '{"city": "Paris"<|call|>', '{"city": Paris}<|call|>'):
        text = THINK + beam_head("get_weather") + body
        assert parsed("o200k_harmony", text, **BEAM) == ("Weather.", body.removesuffix("<|call|>"), [])
    # parameter tags after the object: which arguments were meant is unclear
    body = '{"city": "Paris"}<rfl:parameter name="days">\n3\n</rfl:parameter>'
    assert parsed("o200k_harmony", THINK + beam_head("get_weather") + body + "<|call|>", **BEAM) == (
        "Weather.",
        body,
        [],
    )


def test_beam_parameter_tags_unchanged() -> None:
    text = THINK + beam_head("get_weather") + '<rfl:parameter name="city">\n{"x": 1}\n</rfl:parameter><|call|>'
    assert parsed("o200k_harmony", text, **BEAM) == ("Weather.", None, [("get_weather", {"city": '{"x": 1}'})])


# --------------------------------------------------------------------------- Inkling: a name-only call object


def test_inkling_name_only_call_has_no_arguments() -> None:
    # Before: {"name": "get_time"} with no "args" was content (as if found in prose); the block is a call by its
    # content-kind token, so the object is a call of a tool without parameters (vLLM reads it so too).
    text = (
        "<|content_thinking|>Time.<|end_message|><|message_model|>get_time<|content_invoke_tool_json|>"
        '{"name": "get_time"}<|end_message|>'
    )
    assert parsed(INKLING, text, **INK) == ("Time.", None, [("get_time", {})])


def test_inkling_object_without_name_is_still_content() -> None:
    text = '<|message_model|>f<|content_invoke_tool_json|>{"args": {"a": 1}}<|end_message|>'
    assert parsed(INKLING, text, **INK) == (None, '{"args": {"a": 1}}', [])


# --------------------------------------------------------------------------- properties

_scalar = st.one_of(
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="<"), max_size=8),
)
_args = st.dictionaries(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), _scalar, max_size=4)


def _pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({c for c in cuts if c < len(text)})
    return [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    calls=st.lists(st.tuples(st.sampled_from(["f", "get_weather"]), _args), min_size=1, max_size=3),
    closer=st.sampled_from(["<|call|>", "<|end|>", ""]),
    cut=st.integers(0, 400),
    cuts=st.lists(st.integers(1, 400), max_size=6),
)
def test_beam_json_body_streaming_equals_whole(
    calls: list[tuple[str, dict[str, Any]]], closer: str, cut: int, cuts: list[int]
) -> None:
    full = THINK + "".join(beam_head(n) + json.dumps(a, ensure_ascii=False) + closer for n, a in calls)
    text = full[: max(cut, 1)] if cut < len(full) else full
    tok = tokenizer("o200k_harmony")
    whole = toklane.parse(tok, text=text, **BEAM)
    assert norm(stream(tok, BEAM, _pieces(text, cuts), False)) == norm(whole)
    assert norm(stream(tok, BEAM, [[i] for i in tok.encode(text)], True)) == norm(whole)
    if text == full:
        assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == calls


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.lists(st.sampled_from(["get_time", "now", "ping"]), min_size=1, max_size=3),
    cut=st.integers(0, 300),
    cuts=st.lists(st.integers(1, 300), max_size=6),
)
def test_inkling_name_only_streaming_equals_whole(names: list[str], cut: int, cuts: list[int]) -> None:
    full = "<|message_model|>".join(f'{n}<|content_invoke_tool_json|>{{"name": "{n}"}}<|end_message|>' for n in names)
    text = full[: max(cut, 1)] if cut < len(full) else full
    tok = tokenizer(INKLING)
    whole = toklane.parse(tok, text=text, **INK)
    assert norm(stream(tok, INK, _pieces(text, cuts), False)) == norm(whole)
    if text == full:
        assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == [(n, {}) for n in names]


def test_minimax_m3_parameter_tag_without_its_marker_breaks_the_call() -> None:
    ns = "]<]minimax[>["
    out = f'{ns}<invoke name="get_weather">\n<location>Oslo</location>\n{ns}</invoke>'
    assert parsed("minimax-m2-test", out, tools="minimax_m3") == (None, out, [])
    ok = f'{ns}<invoke name="get_weather">\n{ns}<location>Oslo</location>\n{ns}</invoke>'
    assert parsed("minimax-m2-test", ok, tools="minimax_m3") == (None, None, [("get_weather", {"location": "Oslo"})])
