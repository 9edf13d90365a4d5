"""gpt-oss Harmony: the header forms real outputs take, header tokens never content, built-in tool
calls, unknown channels, stray text, and the text form servers produce with skip_special_tokens."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.profiles import examples

from .helpers import parsed

H = {"reasoning": "gpt_oss", "tools": "gpt_oss"}
TOK = "o200k_harmony"
SPECIALS = ("<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>", "<|call|>", "<|return|>")


def harmony(text: str, **fmt: Any) -> tuple[Any, ...]:
    return parsed(TOK, text, **{**H, **fmt})


def skip_special(text: str) -> str:
    """What a server's ``decode(skip_special_tokens=True)`` leaves of a Harmony output."""
    for s in SPECIALS:
        text = text.replace(s, "")
    return text


# ---------------------------------------------------------------------- bug 1: recipient before the channel


@pytest.mark.parametrize("constrain", ["json", "<|constrain|>json", ""])
def test_recipient_before_channel_in_first_header(constrain: str) -> None:
    out = f' to=functions.get_weather<|channel|>commentary {constrain}<|message|>{{"location": "Tokyo"}}<|call|>'
    assert harmony(out) == (None, None, [("get_weather", {"location": "Tokyo"})])


def test_recipient_before_channel_after_start() -> None:
    out = (
        "<|channel|>analysis<|message|>Need the weather.<|end|>"
        '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"location": "Oslo"}<|call|>'
    )
    assert harmony(out) == ("Need the weather.", None, [("get_weather", {"location": "Oslo"})])


def test_first_body_that_only_looks_like_a_recipient_is_reasoning() -> None:
    # Pre-filled analysis: "to=" text that no header token follows is the body.
    out = "to=do: check the weather\nthen answer<|end|><|start|>assistant<|channel|>final<|message|>Sunny.<|return|>"
    assert harmony(out) == ("to=do: check the weather\nthen answer", "Sunny.", [])


# ---------------------------------------------------------------------- bug 2: header tokens are never content


def test_message_token_after_end_opens_a_headerless_message() -> None:
    assert harmony("<|channel|>final<|message|>a<|end|><|message|>b<|end|>") == (None, "a\n\nb", [])


@pytest.mark.parametrize("token", ["<|message|>", "<|constrain|>"])
def test_header_tokens_inside_a_body_are_dropped(token: str) -> None:
    assert harmony(f"<|channel|>final<|message|>It is {token}sunny.<|return|>") == (None, "It is sunny.", [])


def test_skipped_start_token_before_a_header() -> None:
    out = "<|channel|>analysis<|message|>x<|end|>assistant<|channel|>final<|message|>ok<|return|>"
    assert harmony(out) == ("x", "ok", [])


def test_channel_name_left_after_a_call_is_dropped() -> None:
    out = '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>commentary'
    assert harmony(out) == (None, None, [("f", {"a": 1})])


def test_stray_text_between_messages_is_content() -> None:
    out = "<|channel|>final<|message|>Hi.<|end|>\nSee you.<|start|>assistant<|channel|>final<|message|>Bye.<|return|>"
    assert harmony(out) == (None, "Hi.\n\nSee you.\n\nBye.", [])


def test_unknown_channel_is_dropped() -> None:
    out = (
        "<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>scratch<|message|>dropped<|end|>"
        "<|start|>assistant<|channel|>final<|message|>ok<|return|>"
    )
    assert harmony(out) == ("x", "ok", [])


# ---------------------------------------------------------------------- built-in tools


def test_builtin_browser_call_is_reported_with_its_name_as_written() -> None:
    out = (
        "<|channel|>analysis<|message|>Search.<|end|><|start|>assistant<|channel|>analysis to=browser.search "
        '<|constrain|>json<|message|>{"query": "tokyo weather", "topn": 5}<|call|>'
    )
    assert harmony(out) == ("Search.", None, [("browser.search", {"query": "tokyo weather", "topn": 5})])


def test_builtin_python_call_passes_its_code() -> None:
    out = "<|channel|>analysis to=python code<|message|>import math\nprint(math.sqrt(2))<|call|>"
    assert harmony(out) == (None, None, [("python", {"code": "import math\nprint(math.sqrt(2))"})])


def test_builtin_non_json_body_is_input() -> None:
    out = "<|channel|>commentary to=container.exec<|message|>ls -la<|call|>"
    assert harmony(out) == (None, None, [("container.exec", {"input": "ls -la"})])


def test_builtin_messages_follow_their_channel_without_tool_parsing() -> None:
    out = "<|channel|>analysis to=python code<|message|>print(1)<|call|>"
    assert harmony(out, tools=None) == (None, "print(1)", [])


def test_function_call_with_broken_json_is_content() -> None:
    out = '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": <|call|>'
    assert harmony(out) == (None, '{"a":', [])


# ---------------------------------------------------------------------- the text form


TEXT_FORM = [
    ("analysisThe user asks.assistantfinalIt is sunny.", ("The user asks.", "It is sunny.", [])),
    ("assistantfinalIt is sunny.", (None, "It is sunny.", [])),
    ("finalIt is sunny.", (None, "It is sunny.", [])),
    (
        'analysisNeed weather.assistantcommentary to=functions.get_weather json{"location": "Tokyo"}',
        ("Need weather.", None, [("get_weather", {"location": "Tokyo"})]),
    ),
    (
        'commentary to=functions.get_weather json{"location": "Tokyo"}',
        (None, None, [("get_weather", {"location": "Tokyo"})]),
    ),
    (
        'commentary to=functions.f{"a": 1}assistantcommentary to=functions.g json{"b": [2]}',
        (None, None, [("f", {"a": 1}), ("g", {"b": [2]})]),
    ),
    ("commentaryChecking now.", (None, "Checking now.", [])),
    (
        "analysisUse python.assistantanalysis to=python codeprint(2+2)assistantfinal4",
        ("Use python.", "4", [("python", {"code": "print(2+2)"})]),
    ),
    (
        'analysisLook it up.assistantanalysis to=browser.search json{"query": "x"}',
        ("Look it up.", None, [("browser.search", {"query": "x"})]),
    ),
    (
        "analysisFirst.assistantanalysisSecond.assistantfinalDone.",
        ("First.\n\nSecond.", "Done.", []),
    ),
    # A call whose arguments are no JSON object: content, verbatim.
    ('commentary to=functions.f json{"a": 1assistantfinalSorry.', (None, '{"a": 1\n\nSorry.', [])),
]


@pytest.mark.parametrize(("output", "expected"), TEXT_FORM)
def test_text_form(output: str, expected: tuple[Any, ...]) -> None:
    assert harmony(output) == expected


def test_text_form_without_reasoning_parsing() -> None:
    assert harmony("analysisThinking.assistantfinalDone.", reasoning=None) == (None, "Thinking.\n\nDone.", [])


@pytest.mark.parametrize("output", ["finally, the answer is 42", "finalize the plan", "analytics first"])
def test_prose_that_only_starts_like_a_header_is_the_first_body(output: str) -> None:
    assert harmony(output) == (output, None, [])
    assert harmony(output, thinking=False) == (None, output, [])


# ---------------------------------------------------------------------- property: tokens and text form agree

FIRST = st.sampled_from(["The", "It", "Sure", "42", "😀", "Über", "I"])
WORD = st.sampled_from(["user", "asks", "weather", "in", "Tokyo.", "is", "sunny", "é", "json", "code", "final", "{x}"])
TEXT = st.builds(lambda a, b: " ".join([a, *b]), FIRST, st.lists(WORD, max_size=6))
ARGS = st.dictionaries(
    st.sampled_from(["location", "unit", "n", "q"]), st.one_of(st.integers(-5, 99), TEXT), max_size=3
)
MESSAGE = st.one_of(
    st.tuples(st.just("analysis"), TEXT),
    st.tuples(st.just("commentary"), TEXT),
    st.tuples(st.just("final"), TEXT),
    st.tuples(st.just("call"), st.sampled_from(["get_weather", "search", "add_2"]), ARGS),
    st.tuples(st.just("browser"), st.sampled_from(["browser.search", "browser.open"]), ARGS),
    st.tuples(st.just("python"), st.sampled_from(["print(1)", "import math\nmath.pi", "x = [1, 2]"])),
)


def render(messages: list[tuple[Any, ...]]) -> str:
    out = []
    for m in messages:
        kind = m[0]
        if kind in ("analysis", "commentary", "final"):
            end = "<|return|>" if kind == "final" else "<|end|>"
            out.append(f"<|start|>assistant<|channel|>{kind}<|message|>{m[1]}{end}")
        elif kind in ("call", "browser"):
            to = f"functions.{m[1]}" if kind == "call" else m[1]
            head = f"<|start|>assistant<|channel|>commentary to={to} <|constrain|>json"
            out.append(f"{head}<|message|>{json.dumps(m[2])}<|call|>")
        else:
            out.append(f"<|start|>assistant<|channel|>analysis to=python code<|message|>{m[1]}<|call|>")
    return "".join(out)[len("<|start|>assistant") :]


def expected(messages: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    reasoning = [m[1] for m in messages if m[0] == "analysis"]
    content = [m[1] for m in messages if m[0] in ("commentary", "final")]
    calls = []
    for m in messages:
        if m[0] in ("call", "browser"):
            calls.append((m[1], m[2]))
        elif m[0] == "python":
            calls.append(("python", {"code": m[1]}))
    return ("\n\n".join(reasoning) or None, "\n\n".join(content) or None, calls)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MESSAGE, min_size=1, max_size=5))
def test_tokens_and_text_form_parse_alike(messages: list[tuple[Any, ...]]) -> None:
    out = render(messages)
    want = expected(messages)
    assert harmony(out) == want
    assert harmony(skip_special(out)) == want
