"""Regressions found by the c2 corpus: Gemma 4's ``call:NAME(...)``, Command 4's text ``<|END_RESPONSE|>``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

from .cases.kimi_gemma_cohere import COHERE3, COHERE4, GEMMA4
from .helpers import norm, parsed, stream, tokenizer

Q = '<|"|>'
G4 = {"reasoning": "gemma4", "tools": "gemma4"}


# --------------------------------------------------------------------------- Gemma 4: call:NAME(...)


def test_gemma4_parenthesised_arguments_are_a_call() -> None:
    text = f"Let me check.<|tool_call>call:get_weather(location:{Q}Tokyo, (JP){Q},days:2,opts:{{unit:c}})<tool_call|>"
    assert parsed(GEMMA4, text, **G4) == (
        None,
        "Let me check.",
        [("get_weather", {"location": "Tokyo, (JP)", "days": 2, "opts": {"unit": "c"}})],
    )


def test_gemma4_parenthesised_empty_and_turn_ended() -> None:
    assert parsed(GEMMA4, "<|tool_call>call:now()<tool_call|>", **G4) == (None, None, [("now", {})])
    assert parsed(GEMMA4, f"<|tool_call>call:f(a:{Q}x{Q})<turn|>", **G4) == (None, None, [("f", {"a": "x"})])


def test_gemma4_parenthesis_must_close_its_own_bracket() -> None:
    for text in ("<|tool_call>call:f(a:1}<tool_call|>", "<|tool_call>call:f{a:1)<tool_call|>"):
        assert parsed(GEMMA4, text, **G4) == (None, text, [])


def test_gemma4_parentheses_inside_a_bare_value_are_kept() -> None:
    text = "<|tool_call>call:calc(expr:f(x),n:(3))<tool_call|>"
    assert parsed(GEMMA4, text, **G4) == (None, None, [("calc", {"expr": "f(x)", "n": "(3)"})])
    unclosed = "<|tool_call>call:calc(expr:(1)<tool_call|>"
    assert parsed(GEMMA4, unclosed, **G4) == (None, unclosed, [])


def test_gemma4_parenthesis_cut_off_is_content() -> None:
    text = f"<|tool_call>call:f(a:{Q}x{Q},b:2"
    assert parsed(GEMMA4, text, **G4) == (None, text, [])


def test_functiongemma_keeps_braces_only() -> None:
    text = "<start_function_call>call:f(a:1)<end_function_call>"
    assert parsed("functiongemma", text, tools="functiongemma") == (None, text, [])


# --------------------------------------------------------------------------- Command 4: <|END_RESPONSE|>


def test_cohere4_response_wrapper_as_text_is_dropped() -> None:
    fmt = {"reasoning": "cohere_command4", "tools": "cohere_command4"}
    text = "Plan.<|END_THINKING|><|START_RESPONSE|>Done.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>"
    assert parsed(COHERE4, text, **fmt) == ("Plan.", "Done.", [])
    # Command 3 tokenizers have both as added tokens: unchanged.
    assert parsed(COHERE3, "<|START_THINKING|>" + text, reasoning="cohere_command3") == ("Plan.", "Done.", [])


# --------------------------------------------------------------------------- properties


class Bare(str):
    """A string the model writes bare (no ``<|"|>``), parentheses included: ``f(x)``."""


_scalar = st.one_of(
    st.from_regex(r"[a-z]{1,3}\([a-z0-9]{0,3}\)", fullmatch=True).map(Bare),
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="<"), max_size=8),
)
_args = st.dictionaries(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), _scalar, max_size=4)


def _gemma(v: Any) -> str:
    if isinstance(v, Bare):
        return str(v)
    if isinstance(v, str):
        return Q + v + Q
    return json.dumps(v)


def _call(name: str, args: dict[str, Any], parens: bool) -> str:
    inner = ",".join(f"{k}:{_gemma(v)}" for k, v in args.items())
    return f"<|tool_call>call:{name}" + (f"({inner})" if parens else f"{{{inner}}}") + "<tool_call|>"


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    calls=st.lists(st.tuples(st.sampled_from(["f", "get_weather"]), _args, st.booleans()), max_size=3),
    cut=st.integers(0, 400),
    cuts=st.lists(st.integers(1, 400), max_size=6),
)
def test_gemma4_parens_streaming_equals_whole(
    calls: list[tuple[str, dict[str, Any], bool]], cut: int, cuts: list[int]
) -> None:
    text = "Sure." + "".join(_call(n, a, p) for n, a, p in calls)
    text = text[: max(cut, 1)] if cut < len(text) else text
    tok = tokenizer(GEMMA4)
    whole = toklane.parse(tok, text=text, **G4)
    bounds = sorted({c for c in cuts if c < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    assert norm(stream(tok, G4, pieces, False)) == norm(whole)
    if cut >= len("Sure." + "".join(_call(n, a, p) for n, a, p in calls)):
        assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == [(n, a) for n, a, _ in calls]


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    answer=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="<"), max_size=20),
    cuts=st.lists(st.integers(1, 80), max_size=5),
)
def test_cohere4_response_streaming_equals_whole(answer: str, cuts: list[int]) -> None:
    fmt = {"reasoning": "cohere_command4"}
    text = f"Plan.<|END_THINKING|><|START_RESPONSE|>{answer}<|END_RESPONSE|>"
    tok = tokenizer(COHERE4)
    whole = toklane.parse(tok, text=text, **fmt)
    bounds = sorted({c for c in cuts if c < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    assert norm(stream(tok, fmt, pieces, False)) == norm(whole)
    assert whole.content == (answer or None) or (whole.content or "").strip() == answer.strip()
