"""``unknown_tools=``: a call of a tool that ``tools_schema`` does not list is kept, dropped or content."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.server import create_app

from .helpers import parsed, tokenizer

SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        },
    }
]
KNOWN = ("get_weather", {"location": "Tokyo"})
UNKNOWN = ("send_email", {"to": "a@b.c"})


def hermes_call(name: str, args: dict[str, Any]) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"


HERMES_OUT = f"Let me check.\n{hermes_call(*KNOWN)}\n{hermes_call(*UNKNOWN)}"

# (tokenizer, formats, output) with one known and one unknown call, in several grammars.
OUTPUTS = [
    ("qwen3.6", {"tools": "hermes"}, HERMES_OUT),
    (
        "qwen3.6",
        {"tools": "qwen3_coder"},
        "<tool_call>\n<function=get_weather>\n<parameter=location>\nTokyo\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=send_email>\n<parameter=to>\na@b.c\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "deepseek-v4",
        {"tools": "deepseek_v3"},
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"location": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>send_email\n```json\n'
        '{"to": "a@b.c"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    ),
    (
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Tokyo"}<|call|>'
        '<|start|>assistant<|channel|>commentary to=functions.send_email <|constrain|>json<|message|>{"to": "a@b.c"}'
        "<|call|>",
    ),
]


@pytest.mark.parametrize(("tok", "fmt", "output"), OUTPUTS, ids=[o[1]["tools"] for o in OUTPUTS])
def test_policies(tok: str, fmt: dict[str, Any], output: str) -> None:
    _, content, calls = parsed(tok, output, **fmt, tools_schema=SCHEMA)
    assert calls == [KNOWN, UNKNOWN]  # keep is the default
    kept_content = content
    _, content, calls = parsed(tok, output, **fmt, tools_schema=SCHEMA, unknown_tools="drop")
    assert calls == [KNOWN] and content == kept_content
    _, content, calls = parsed(tok, output, **fmt, tools_schema=SCHEMA, unknown_tools="content")
    assert calls == [KNOWN]
    assert content is not None and "a@b.c" in content
    if fmt["tools"] != "gpt_oss":
        assert "send_email" in content


def test_content_policy_keeps_the_call_text_verbatim() -> None:
    _, content, calls = parsed(
        "qwen3.6", HERMES_OUT + "\nDone.", tools="hermes", tools_schema=SCHEMA, unknown_tools="content"
    )
    assert calls == [KNOWN]
    assert content == 'Let me check.\n<tool_call>\n{"name": "send_email", "arguments": {"to": "a@b.c"}}\nDone.'


def test_without_a_schema_every_call_is_kept() -> None:
    for policy in ("keep", "drop", "content"):
        assert parsed("qwen3.6", HERMES_OUT, tools="hermes", unknown_tools=policy)[2] == [KNOWN, UNKNOWN]


def test_an_empty_schema_lists_no_tool() -> None:
    assert parsed("qwen3.6", HERMES_OUT, tools="hermes", tools_schema=[], unknown_tools="drop")[2] == []


def test_streamed_arguments_never_announce_an_unknown_call() -> None:
    parser = toklane.get_parser(
        "qwen3.6", tools="hermes", tools_schema=SCHEMA, stream_arguments=True, unknown_tools="drop"
    )
    names = []
    for ch in HERMES_OUT:
        names += [c.name for c in parser.feed(text=ch).tool_calls if c.name]
    names += [c.name for c in parser.finish().tool_calls if c.name]
    assert names == ["get_weather"]


def test_bad_policy_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown_tools must be one of 'keep', 'drop', 'content'"):
        toklane.get_parser("qwen3.6", tools="hermes", unknown_tools="ignore")


def test_service_and_cli_take_the_policy(tmp_path) -> None:
    app = create_app(["qwen3.6"])
    body = {"text": HERMES_OUT, "tools": "hermes", "tools_schema": SCHEMA}
    with TestClient(app, raise_server_exceptions=False) as client:
        names = [c["function"]["name"] for c in client.post("/v1/parse", json=body).json()["tool_calls"]]
        assert names == ["get_weather", "send_email"]
        r = client.post("/v1/parse", json={**body, "unknown_tools": "drop"}).json()
        assert [c["function"]["name"] for c in r["tool_calls"]] == ["get_weather"]
        assert client.post("/v1/parse", json={**body, "unknown_tools": "nope"}).status_code == 422
    schema = tmp_path / "tools.json"
    schema.write_text(json.dumps(SCHEMA))
    extra = ["--tools-schema", str(schema), "--unknown-tools", "content"]
    proc = subprocess.run(
        [sys.executable, "-m", "toklane.cli", "parse", "--model", "qwen3.6", "--tools", "hermes", *extra],
        input=HERMES_OUT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [c["function"]["name"] for c in out["tool_calls"]] == ["get_weather"]
    assert "send_email" in out["content"]


# ---------------------------------------------------------------------- property

CALL = st.tuples(
    st.sampled_from(["get_weather", "send_email", "search"]),
    st.dictionaries(st.sampled_from(["location", "to", "q"]), st.text("abc é😀\n", max_size=6), max_size=2),
)
PROSE = st.sampled_from(["", "Sure.", "Let me check.\n", "Done. ✅"])


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROSE, st.lists(CALL, max_size=4), PROSE, st.sampled_from(["keep", "drop", "content"]))
def test_policy_streams_as_it_parses(head: str, calls: list[Any], tail: str, policy: str) -> None:
    output = head + "\n".join(hermes_call(n, a) for n, a in calls) + ("\n" + tail if tail and calls else tail)
    tokenizer("qwen3.6")
    _, content, got = parsed("qwen3.6", output, tools="hermes", tools_schema=SCHEMA, unknown_tools=policy)
    want = [(n, a) for n, a in calls if policy == "keep" or n == "get_weather"]
    assert got == want
    if policy == "content":
        for n, a in calls:
            if n != "get_weather":
                assert content is not None and json.dumps({"name": n, "arguments": a}) in content
