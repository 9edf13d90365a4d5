"""Mistral / Magistral recovery: call lists after junk, cut-off v11 calls, ``[TOOL_CALLS]`` that holds no call.

Every output is parsed in every way (text, ids, one character / token at a time, random chunks) and must
agree. A block that holds no call is content without its ``[TOOL_CALLS]`` control token (everything else
verbatim); Magistral's output starts as content unless ``thinking=True`` (the prompt pre-filled ``[THINK]``).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.profiles import examples

from .helpers import parsed

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
TC = "[TOOL_CALLS]"
M = {"tools": "mistral"}
MR = {"tools": "mistral", "reasoning": "mistral"}
WEATHER = ("get_weather", {"city": "Paris"})
TIME = ("get_time", {})


# --------------------------------------------------------------------------- pre-v11 lists


@pytest.mark.parametrize(
    "text, content, calls",
    [
        (f'{TC}[{{"name": "get_time", "arguments": {{}}}}]', None, [TIME]),
        (f'Sure.{TC} [{{"name": "get_time", "arguments": {{}}}}]', "Sure.", [TIME]),
        # a list after junk: the junk is content, the list is read
        (f'{TC}Calling: [{{"name": "get_time", "arguments": {{}}}}]', "Calling:", [TIME]),
        (f'{TC}json\n[{{"name": "get_time", "arguments": {{}}}}]', "json", [TIME]),
        # fenced, bare object, repeated marker
        (f'{TC}```json\n[{{"name": "get_time", "arguments": {{}}}}]\n```', None, [TIME]),
        (f'{TC} {{"name": "get_weather", "arguments": {{"city": "Paris"}}}}', None, [WEATHER]),
        (f'{TC}{TC}[{{"name": "get_time", "arguments": {{}}}}]', None, [TIME]),
        # a list whose second call is cut off: the first is kept, the rest is content
        (
            f'{TC}[{{"name": "get_time", "arguments": {{}}}}, {{"name": "get_weather", "argu',
            ', {"name": "get_weather", "argu',
            [TIME],
        ),
        # junk then something that is no list: all content, without the marker
        (f"{TC}See [1] above", "See [1] above", []),
    ],
)
def test_pre_v11_lists(text: str, content: str | None, calls: list) -> None:
    assert parsed("mistral-tekken", text, **M) == (None, content, calls)


# --------------------------------------------------------------------------- v11 calls


@pytest.mark.parametrize(
    "text, content, calls",
    [
        # cut off in the arguments, in the name, right after [ARGS], right after the marker
        (f'{TC}get_weather[ARGS]{{"city": "Par', 'get_weather[ARGS]{"city": "Par', []),
        (f"{TC}get_wea", "get_wea", []),
        (f"{TC}get_time[ARGS]", "get_time[ARGS]", []),
        (f"Let me check.{TC}", "Let me check.", []),
        (TC, None, []),
        # a complete call, then one cut off: the first is kept
        (f'{TC}get_time[ARGS]{{}}{TC}get_weather[ARGS]{{"city": "Par', 'get_weather[ARGS]{"city": "Par', [TIME]),
        # a call cut off by the next call's marker
        (f'{TC}get_weather[ARGS]{{"city": {TC}get_time[ARGS]{{}}', 'get_weather[ARGS]{"city":', [TIME]),
        # broken arguments; no [ARGS]; [ARGS] left out before "{"
        (f'{TC}get_weather[ARGS]{{"city": Paris}}', 'get_weather[ARGS]{"city": Paris}', []),
        (f"{TC}I cannot call a tool here.", "I cannot call a tool here.", []),
        (f'{TC}get_weather{{"city": "Paris"}}', None, [WEATHER]),
        (f'{TC}get weather {{"city": "Paris"}}', 'get weather {"city": "Paris"}', []),
        # a call id, and text after the call
        (f'{TC}get_weather[CALL_ID]a1b2c3d4e[ARGS]{{"city": "Paris"}} Done.', "Done.", [WEATHER]),
    ],
)
def test_v11_calls(text: str, content: str | None, calls: list) -> None:
    assert parsed("magistral", text, **M) == (None, content, calls)


def test_v11_call_id_is_kept() -> None:
    import toklane

    from .helpers import tokenizer

    got = toklane.parse(tokenizer("magistral"), text=f"{TC}f[CALL_ID]a1b2c3d4e[ARGS]{{}}", **M)
    assert [(c.id, c.name) for c in got.tool_calls] == [("a1b2c3d4e", "f")]


def test_text_before_a_broken_block_keeps_its_layout() -> None:
    assert parsed("magistral", f"Checking. {TC}get_weather[ARGS]{{oops", **M) == (
        None,
        "Checking. get_weather[ARGS]{oops",
        [],
    )


# --------------------------------------------------------------------------- Magistral reasoning


@pytest.mark.parametrize(
    "text, options, expected",
    [
        ("[THINK]2+2=4.[/THINK]4", {}, ("2+2=4.", "4", [])),
        ("4", {}, (None, "4", [])),  # reasoning off: no [THINK]
        ("2+2=4.[/THINK]4", {"thinking": True}, ("2+2=4.", "4", [])),  # pre-filled [THINK]
        ("[THINK]2+2=4.[/THINK]4", {"thinking": True}, ("2+2=4.", "4", [])),  # pre-filled and repeated
        ("[/THINK]4", {}, (None, "4", [])),  # a stray closer before any output is dropped
        ("[THINK]Cut short", {}, ("Cut short", None, [])),
        (f"[THINK]Need the time.{TC}get_time[ARGS]{{}}", {}, ("Need the time.", None, [TIME])),
        (f"[THINK]Need the time.[/THINK]{TC}get_time[ARGS]{{}}", {}, ("Need the time.", None, [TIME])),
        (f"[THINK]Hm.[/THINK]{TC}get_time[ARGS]{{", {}, ("Hm.", "get_time[ARGS]{", [])),
    ],
)
def test_magistral_reasoning(text: str, options: dict, expected: tuple) -> None:
    assert parsed("magistral", text, **MR, **options) == expected


# --------------------------------------------------------------------------- properties

NAMES = st.sampled_from(["get_weather", "get_time", "search", "f"])
VALUES = st.one_of(
    st.integers(-5, 5), st.text('ab é"\\{}[]', max_size=6), st.booleans(), st.lists(st.integers(0, 3), max_size=2)
)
ARGS = st.dictionaries(st.sampled_from(["city", "q", "n"]), VALUES, max_size=2)
PROSE = st.sampled_from(["", "Sure.", "Let me check. ", "On it!\n"])


@st.composite
def v11_calls(draw: st.DrawFn) -> tuple[str, list, list]:
    """Several v11 calls, each whole or cut at a random point: (text, the whole calls, the cut texts)."""
    calls = draw(st.lists(st.tuples(NAMES, ARGS), min_size=1, max_size=3))
    text = ""
    good: list = []
    cut = ""
    for k, (name, args) in enumerate(calls):
        body = f"{name}[ARGS]{json.dumps(args, ensure_ascii=False)}"
        if k == len(calls) - 1 and draw(st.booleans()):
            cut = body[: draw(st.integers(1, len(body) - 1))]
            text += TC + cut
            break
        text += TC + body
        good.append((name, args))
    return text, good, cut


@SETTINGS
@given(pieces=v11_calls(), before=PROSE)
def test_property_cut_v11_calls_agree_for_every_chunking(pieces: tuple, before: str) -> None:
    """Whole calls are found; a cut-off last call is content without its marker; no chunking differs."""
    text, good, cut = pieces
    reasoning, content, calls = parsed("magistral", before + text, **M)
    assert reasoning is None and calls == good
    assert TC not in (content or "")
    if cut and cut.strip():
        assert (content or "").endswith(cut)
        if not good:  # no call at all: the output verbatim, but for the marker
            assert content == before + cut


@SETTINGS
@given(
    calls=st.lists(st.tuples(NAMES, ARGS), min_size=1, max_size=3),
    junk=st.sampled_from(["", "Calls: ", "json\n", " "]),
    before=PROSE,
    cut=st.booleans(),
)
def test_property_lists_after_junk_agree_for_every_chunking(calls: list, junk: str, before: str, cut: bool) -> None:
    listed = json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)
    text = before + TC + junk + (listed[:-3] if cut else listed)
    reasoning, content, got = parsed("mistral-tekken", text, **M)
    assert reasoning is None and TC not in (content or "")
    if cut:
        assert got == calls[:-1]
        if not got:  # no call: the output is content, verbatim but for the marker
            assert content == (before + junk + listed[:-3] or None)
    else:
        assert got == calls
        # the whitespace around the block is layout (it holds calls); a space keeps the junk apart
        assert content == (" ".join(x for x in (before.strip(), junk.strip()) if x) or None)


@SETTINGS
@given(
    reasoning=st.sampled_from(["", "Plan.", "Two steps\nfirst."]),
    answer=st.sampled_from(["", "4", "Done."]),
    prefilled=st.booleans(),
    repeat=st.booleans(),
)
def test_property_magistral_prefill_agrees_for_every_chunking(
    reasoning: str, answer: str, prefilled: bool, repeat: bool
) -> None:
    """With [THINK] pre-filled (thinking=True) or written by the model, reasoning and answer are the same."""
    opener = "[THINK]" if repeat or not prefilled else ""
    text = f"{opener}{reasoning}[/THINK]{answer}"
    options = {"thinking": True} if prefilled else {}
    assert parsed("magistral", text, **MR, **options) == (reasoning or None, answer or None, [])


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Answer: 42[/THINK] done.", (None, "Answer: 42 done.", [])),
        ("[/THINK]\nHello", (None, "Hello", [])),
        ("[THINK]hmm[/THINK]Hi[/THINK] there[/THINK]", ("hmm", "Hi there", [])),
    ],
)
def test_stray_think_closer_is_never_content(output: str, expected: tuple) -> None:
    assert parsed("magistral", output, reasoning="mistral", tools="mistral") == expected
