"""OLMo 3, LFM2, MiMo and PLaMo 3 on realistic and malformed outputs (the peers' test shapes), exact results.

Every output is parsed in every way (text, ids, one token at a time, every byte a token, ...) and must agree.
"""

from __future__ import annotations

import pytest

import toklane

from .cases.pythonic_misc import LFM2, OLMO3, PLAMO3, plamo3_call
from .helpers import parsed, tokenizer

run = parsed


# --------------------------------------------------------------------------- OLMo 3

FC, FC_END = "<function_calls>", "</function_calls>"
SIMPLE = "get_weather(city='San Francisco', metric='celsius')"
SIMPLE_CALL = ("get_weather", {"city": "San Francisco", "metric": "celsius"})
USER = ("register_user", {"name": "John Doe", "age": 37, "address": {"city": "SF"}, "role": None, "ok": True})


@pytest.mark.parametrize("tok", [OLMO3, "cl100k_base"])  # the function tags: added tokens / ordinary text
@pytest.mark.parametrize(
    "text, calls",
    [
        (f"{FC}{SIMPLE}{FC_END}", [SIMPLE_CALL]),
        (f"{FC}register_user(name='John Doe', age=37, address={{'city': 'SF'}}, role=None, ok=True){FC_END}", [USER]),
        (f"{FC}register_user(name='John Doe', age=37, address={{'city': 'SF'}}, role=null, ok=true){FC_END}", [USER]),
        (f"{FC}get_weather(){FC_END}", [("get_weather", {})]),
        (f"{FC}do(data={{}}, steps=[]){FC_END}", [("do", {"data": {}, "steps": []})]),
        (
            f"{FC}get_weather(city='Martha\\'s Vineyard', metric='\\\"cool units\\\"'){FC_END}",
            [("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
        ),
        (
            f"{FC}{SIMPLE}\nget_weather()\ndo(steps=[]){FC_END}",
            [SIMPLE_CALL, ("get_weather", {}), ("do", {"steps": []})],
        ),
        (f"{FC}a(x=1), b(y=2){FC_END}", [("a", {"x": 1}), ("b", {"y": 2})]),
        (f"{FC}[a(x=1), b(y=2)]{FC_END}", [("a", {"x": 1}), ("b", {"y": 2})]),  # a list is accepted too
        (f"{FC}\n{SIMPLE}\n{FC_END}", [SIMPLE_CALL]),
        (f"{FC}date(month=07){FC_END}", [("date", {"month": 7})]),
        (f"{FC}run(cmd='line 1\nline 2'){FC_END}", [("run", {"cmd": "line 1\nline 2"})]),  # a raw line break
        (f"{FC}say(text='</function_calls> is a tag'){FC_END}", [("say", {"text": "</function_calls> is a tag"})]),
        (f'{FC}api.search(q="x"){FC_END}', [("api.search", {"q": "x"})]),
    ],
)
def test_olmo3_calls(tok: str, text: str, calls: list) -> None:
    assert run(tok, text, tools="olmo3") == (None, None, calls)


def test_olmo3_reasoning_content_and_calls() -> None:
    text = (
        "<think>The user wants the weather in Paris.</think>\nLet me look that up."
        f'{FC}get_weather(city="Paris", unit="celsius"){FC_END}'
    )
    assert run(OLMO3, text, reasoning="olmo3", tools="olmo3") == (
        "The user wants the weather in Paris.",
        "Let me look that up.",
        [("get_weather", {"city": "Paris", "unit": "celsius"})],
    )


def test_olmo3_content_after_the_calls() -> None:
    text = f"Checking.\n{FC}{SIMPLE}{FC_END}\nDone."
    assert run(OLMO3, text, tools="olmo3") == (None, "Checking.\nDone.", [SIMPLE_CALL])


@pytest.mark.parametrize(
    "text, content, calls",
    [
        ("How can I help you today?", "How can I help you today?", []),
        (f"{FC}{SIMPLE}", None, [SIMPLE_CALL]),  # cut after a complete call
        (f"{FC}{SIMPLE}\nget_weather(city='Pa", "get_weather(city='Pa", [SIMPLE_CALL]),
        (f"{FC}get_weather(city='Pa", f"{FC}get_weather(city='Pa", []),  # cut inside the only call
        (f"{FC}calc(x=1e999){FC_END}", f"{FC}calc(x=1e999){FC_END}", []),  # no JSON for infinity
        (f"{FC}foo(x=1]){FC_END}", f"{FC}foo(x=1]){FC_END}", []),  # mismatched brackets
        (f"{FC}bad(x=b'z'){FC_END}", f"{FC}bad(x=b'z'){FC_END}", []),  # no JSON for bytes
        (f"{FC}f(1){FC_END}", f"{FC}f(1){FC_END}", []),  # positional arguments have no names
        (f"{FC}{SIMPLE}\nbad(x=b'z'){FC_END}", "bad(x=b'z')", [SIMPLE_CALL]),  # skipped, the block stands
        (f"{FC}{FC_END}", f"{FC}{FC_END}", []),
    ],
)
def test_olmo3_malformed(text: str, content: str | None, calls: list) -> None:
    assert run(OLMO3, text, tools="olmo3") == (None, content, calls)


# --------------------------------------------------------------------------- LFM2

TS, TE = "<|tool_call_start|>", "<|tool_call_end|>"


@pytest.mark.parametrize(
    "text, content, calls",
    [
        (
            f'{TS}[get_candidate_status(candidate_id="12345")]{TE}Checking the current status of candidate ID 12345.',
            "Checking the current status of candidate ID 12345.",
            [("get_candidate_status", {"candidate_id": "12345"})],
        ),
        (
            f'I will check both.\n{TS}[get_weather(location="Paris"), get_time(tz="CET")]{TE}',
            "I will check both.",
            [("get_weather", {"location": "Paris"}), ("get_time", {"tz": "CET"})],
        ),
        (f'{TS}calculator(expression="5 * 7"){TE}', None, [("calculator", {"expression": "5 * 7"})]),  # no list
        (
            f'{TS}[{{"name": "calculator", "arguments": {{"expression": "5 * 7"}}}}]{TE}',
            None,
            [("calculator", {"expression": "5 * 7"})],
        ),
        (
            f'{TS}{{"name": "calculator", "arguments": {{"expression": "5 * 7"}}}}{TE}',
            None,
            [("calculator", {"expression": "5 * 7"})],
        ),
        (
            f"{TS}[memory_get(from=1, month=07, all=true, tag=null)]{TE}",
            None,
            [("memory_get", {"from": 1, "month": 7, "all": True, "tag": None})],
        ),
        (f"{TS}[exec(command='cd /tmp\nls -la')]{TE}", None, [("exec", {"command": "cd /tmp\nls -la"})]),
        (
            f"{TS}[f(size=(800, 600), opts={{'a': [1, 2.5]}})]{TE}",
            None,
            [("f", {"size": [800, 600], "opts": {"a": [1, 2.5]}})],
        ),
        (f"{TS}[f(a=1), ]{TE}", None, [("f", {"a": 1})]),
        (f"{TS}[f(a=1){TE}Done.", "Done.", [("f", {"a": 1})]),  # the list's ] is missing
        (f"{TS}[f(a=1)]", None, [("f", {"a": 1})]),  # cut before the end marker
        (f"{TS}[f(a=1)", None, [("f", {"a": 1})]),
        (f"{TS}[f(a=1)]{TE}{TS}[g()]{TE}", None, [("f", {"a": 1}), ("g", {})]),
        (f"{TS}[say(text='{TE}')]{TE}", None, [("say", {"text": TE})]),  # the end token inside a string is text
    ],
)
def test_lfm2_calls(text: str, content: str | None, calls: list) -> None:
    assert run(LFM2, text, tools="lfm2") == (None, content, calls)


@pytest.mark.parametrize(
    "text, content, calls",
    [
        # LFM2 echoes the calls after the end token and closes the echo with a second one: the echo is dropped.
        (f'{TS}[f(a="x")]{TE}[f(a="x")]{TE}It is sunny.', "It is sunny.", [("f", {"a": "x"})]),
        # Text starting with [ that no second end token closes is content.
        (f"{TS}[f(a=1)]{TE}[1] See the docs.", "[1] See the docs.", [("f", {"a": 1})]),
        (f"{TS}[f(a=1)]{TE}\n[1] See the docs.", "[1] See the docs.", [("f", {"a": 1})]),
        (f"{TS}[]{TE}", f"{TS}[]{TE}", []),
        (f"{TS}[f(1)]{TE}", f"{TS}[f(1)]{TE}", []),
        (f"{TS}[f(a=1), g(b=]{TE}ok", f", g(b=]{TE}ok", [("f", {"a": 1})]),
        (f"{TS}[f(a='x", f"{TS}[f(a='x", []),
        (f'{TS}[{{"name": "f"}}]{TE}', f'{TS}[{{"name": "f"}}]{TE}', []),  # a JSON call without arguments
    ],
)
def test_lfm2_malformed(text: str, content: str | None, calls: list) -> None:
    assert run(LFM2, text, tools="lfm2") == (None, content, calls)


# --------------------------------------------------------------------------- MiMo

SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "run",
            "parameters": {"properties": {"code": {"type": "string"}, "timeout": {"type": "integer"}}},
        },
    }
]


@pytest.mark.parametrize(
    "text, fmt, expected",
    [
        (
            "Here is the result:\n<tool_call>\n<function=execute_bash>\n<parameter=command>pwd && ls</parameter>\n"
            "</function>\n</tool_call>",
            {},
            (None, "Here is the result:", [("execute_bash", {"command": "pwd && ls"})]),
        ),
        (
            "<tool_call>\n<function=f>\n<parameter=a>value_1</parameter>\n<parameter=b>spans\ntwo lines</parameter>\n"
            "</function>\n</tool_call>\n<tool_call>\n<function=noop>\n</function>\n</tool_call>",
            {},
            (None, None, [("f", {"a": "value_1", "b": "spans\ntwo lines"}), ("noop", {})]),
        ),
        (  # values are kept exactly, newlines and spaces included; typed by tools_schema
            "<tool_call>\n<function=run>\n<parameter=code>\nprint(1)\n</parameter>\n<parameter=timeout>30</parameter>\n"
            "</function>\n</tool_call>",
            {"tools_schema": SCHEMA},
            (None, None, [("run", {"code": "\nprint(1)\n", "timeout": 30})]),
        ),
        (  # the model opens reasoning itself
            "<think>I should list the files.</think>Listing.<tool_call>\n<function=ls>\n<parameter=path>/</parameter>\n"
            "</function>\n</tool_call>",
            {"reasoning": "mimo"},
            ("I should list the files.", "Listing.", [("ls", {"path": "/"})]),
        ),
        ("Just an answer.", {"reasoning": "mimo"}, (None, "Just an answer.", [])),  # thinking is opt-in
        ("Pre-filled.</think>Answer.", {"reasoning": "mimo", "thinking": True}, ("Pre-filled.", "Answer.", [])),
        (  # </parameter> left out before </function>
            "<tool_call>\n<function=f>\n<parameter=a>x</function>\n</tool_call>",
            {},
            (None, None, [("f", {"a": "x"})]),
        ),
        (
            "<tool_call>\n<function=f>\n<parameter=a>unfinished",
            {},
            (None, "<tool_call>\n<function=f>\n<parameter=a>unfinished", []),
        ),
    ],
)
def test_mimo(text: str, fmt: dict, expected: tuple) -> None:
    assert run("qwen3", text, tools="mimo", **fmt) == expected


def test_mimo_keeps_what_qwen3_coder_trims() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>"
    assert run("qwen3", text, tools="mimo")[2] == [("f", {"a": "\nx\n"})]
    assert run("qwen3", text, tools="qwen3_coder")[2] == [("f", {"a": "x"})]


# --------------------------------------------------------------------------- PLaMo 3

BT, ET = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"
RQ, RQ_END = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
EOT = "<|plamo:tag|>"
HEAD = (
    "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>weather<|plamo:end_tool_name:plamo|>"
    "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
)
CLOSERS = ["", "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"]
TOKYO = plamo3_call("weather", '{"city":"東京"}')


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            f"{BT}Reasoning. {ET}Before tools. {RQ}{TOKYO}{RQ_END}{EOT}",
            ("Reasoning.", "Before tools.", [("weather", {"city": "東京"})]),
        ),
        (
            f"Reasoning.{ET}{RQ}" + plamo3_call("echo", '{"text": "hi"}') + plamo3_call("sum", '{"a": 1}') + RQ_END,
            ("Reasoning.", None, [("echo", {"text": "hi"}), ("sum", {"a": 1})]),
        ),
        (f"reasoning{RQ}{plamo3_call('weather', '{}')}{RQ_END}", ("reasoning", None, [("weather", {})])),
        *[(f"{ET}{RQ}{HEAD}" + '{"city":"東京"}' + c, (None, None, [("weather", {"city": "東京"})])) for c in CLOSERS],
        (  # text between calls is content
            f"{ET}{RQ}" + plamo3_call("a", "{}") + "\nthen " + plamo3_call("b", "{}") + f"{RQ_END}\nBye.",
            (None, "then\nBye.", [("a", {}), ("b", {})]),
        ),
        (f"{ET}Answer.{EOT}", (None, "Answer.", [])),
        ("reasoning in progress", ("reasoning in progress", None, [])),
        (f"{BT}reasoning in progress", ("reasoning in progress", None, [])),
        (f"{ET}a < b, literal <|plamo:unknown", (None, "a < b, literal <|plamo:unknown", [])),
        (  # cut inside the name: the block is content
            f"{ET}Before tools.{RQ}<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>wea",
            (None, f"Before tools.{RQ}<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>wea", []),
        ),
        (f'{ET}{RQ}{HEAD}{{"text":"unfinished', (None, f'{RQ}{HEAD}{{"text":"unfinished', [])),
    ],
)
def test_plamo3(text: str, expected: tuple) -> None:
    assert run(PLAMO3, text, reasoning="plamo3", tools="plamo3") == expected


def test_plamo3_without_thinking() -> None:
    assert run(PLAMO3, f"Answer.{EOT}", reasoning="plamo3", thinking=False) == (None, "Answer.", [])
    assert run(PLAMO3, f"{RQ}{plamo3_call('f', '{}')}{RQ_END}", tools="plamo3") == (None, None, [("f", {})])


def test_plamo3_tag_pieces_are_text_in_token_ids() -> None:
    """The tags' pieces are special tokens: read as text, not dropped, so the tags are found in ids."""
    tok = tokenizer(PLAMO3)
    ids = tok.encode(f"Thinking.{ET}Answer.")
    assert tok.special_tokens["<|plamo:end_"] in ids
    got = toklane.parse(tok, token_ids=ids, reasoning="plamo3")
    assert (got.reasoning, got.content) == ("Thinking.", "Answer.")


# --------------------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    "alias, canonical",
    [("minicpmv", "qwen3"), ("nemotron_v3", "qwen3"), ("nemotron_3", "qwen3"), ("holo2", "deepseek_r1")],
)
def test_reasoning_aliases(alias: str, canonical: str) -> None:
    from toklane.parsing.api import reasoning_format

    assert reasoning_format(alias) is reasoning_format(canonical)
    text = "This is a reasoning section</think>This is the rest"
    assert run("qwen3", text, reasoning=alias) == run("qwen3", text, reasoning=canonical)
    assert run("qwen3", text, reasoning=alias) == ("This is a reasoning section", "This is the rest", [])
    assert run("qwen3", "This is the rest", reasoning=alias, thinking=False) == (None, "This is the rest", [])


def test_formats_are_registered() -> None:
    assert {"olmo3", "lfm2", "mimo", "plamo3"} <= set(toklane.tool_formats())
    assert {"olmo3", "mimo", "plamo3"} <= set(toklane.reasoning_formats())
