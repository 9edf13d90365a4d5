"""Format names as users type them: case and ``-``/``_`` variants resolve where only one format
matches; a near miss gets the nearest names, not the whole list (Python, HTTP and the CLI)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

import toklane
from toklane.errors import UnknownFormatError
from toklane.parsing import api, reasoning_format, tool_format


def _variants(name: str) -> set[str]:
    return {name.upper(), name.replace("_", "-"), name.title(), name.replace("_", "-").upper()} - {name}


@pytest.mark.parametrize("kind", ["tool", "reasoning"])
def test_every_name_and_alias_resolves_in_other_case_and_with_dashes(kind):
    lookup, names = (tool_format, api._TOOL_NAMES) if kind == "tool" else (reasoning_format, api._REASONING_NAMES)
    api._registry()
    assert len(names) > 40
    for name, fmt in names.items():
        for variant in _variants(name):
            assert lookup(variant) is fmt, (name, variant)


@pytest.mark.parametrize(
    "kind, typed, nearest",
    [
        ("tool", "hermess", ["hermes"]),
        ("tool", "qwen3coder", ["qwen3_coder"]),
        ("tool", "QWEN3-CODR", ["qwen3_coder"]),
        ("reasoning", "deepseek_r2", ["deepseek_r1"]),
        ("reasoning", "qwen9", ["qwen3"]),
    ],
)
def test_a_near_miss_names_the_nearest_formats_only(kind, typed, nearest):
    lookup = tool_format if kind == "tool" else reasoning_format
    with pytest.raises(UnknownFormatError) as info:
        lookup(typed)
    assert info.value.suggestions[: len(nearest)] == nearest
    message = str(info.value)
    assert f"did you mean {nearest[0]!r}" in message and "`toklane formats` lists the" in message
    assert "apertus" not in message  # not the whole list


def test_nothing_near_lists_every_format():
    with pytest.raises(UnknownFormatError, match="known tool formats: apertus, ") as info:
        tool_format("zzzz")
    assert info.value.suggestions == []
    with pytest.raises(UnknownFormatError):
        tool_format(5)  # type: ignore[arg-type]


def test_variants_work_end_to_end():
    out = '<think>r</think><tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    want = toklane.parse("qwen3.6", text=out, reasoning="qwen3", tools="hermes")
    got = toklane.parse("qwen3.6", text=out, reasoning="QWEN3", tools="Hermes")
    assert [(c.name, c.arguments) for c in got.tool_calls] == [(c.name, c.arguments) for c in want.tool_calls]
    assert (got.reasoning, got.content) == (want.reasoning, want.content)
    assert want.tool_calls and want.reasoning == "r"
    parser = toklane.get_parser("qwen3.6", reasoning="Qwen3", tools="HERMES")
    assert parser.feed(out).reasoning == "r"


def test_http_and_cli_answer_with_the_nearest_name():
    from toklane.server.app import create_app

    client = TestClient(create_app())
    r = client.post("/v1/parse", json={"model": "qwen3.6", "text": "x", "tools": "hermess"})
    assert r.status_code == 400 and "did you mean 'hermes'?" in r.json()["error"]["message"]
    r = client.post("/v1/parse", json={"model": "qwen3.6", "text": "x", "tools": "Qwen3-Coder"})
    assert r.status_code == 200, r.text
    proc = subprocess.run(
        [sys.executable, "-m", "toklane.cli", "parse", "--model", "qwen3.6", "--tools", "hermess"],
        input="hi",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "did you mean 'hermes'?" in proc.stderr and "apertus" not in proc.stderr, proc.stderr
