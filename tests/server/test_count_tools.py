"""POST /v1/count with `tools`: the same count as the library, errors as the service's JSON."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import toklane
from tests.server.live import error_message as _error
from toklane.server import create_app

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": 'Get the weather — «quoted» "city".',
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}]


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(["qwen3.6", "llama3"]), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("model", ["qwen3.6", "qwen3", "llama3", "gpt-oss"])
def test_count_with_tools_equals_the_library(client, model):
    body = {"model": model, "messages": MESSAGES, "tools": TOOLS, "add_generation_prompt": True}
    got = client.post("/v1/count", json=body).json()
    expected = toklane.count_tokens(MESSAGES, model=model, tools=TOOLS, add_generation_prompt=True)
    assert got == {"count": expected}
    without = client.post("/v1/count", json={**body, "tools": None}).json()["count"]
    assert expected > without
    bare = client.post("/v1/count", json={**body, "tools": [TOOLS[0]["function"]]}).json()
    assert bare == {"count": expected}


def test_tool_errors(client):
    msg = _error(client.post("/v1/count", json={"model": "gpt-4o", "messages": MESSAGES, "tools": TOOLS}), 400)
    assert "not rendered for chat format 'openai'" in msg
    msg = _error(client.post("/v1/count", json={"messages": MESSAGES, "tools": [{"type": "function"}]}), 422)
    assert "tools[0]" in msg
    msg = _error(client.post("/v1/count", json={"text": "hi", "tools": TOOLS}), 422)
    assert "give messages with them" in msg
    msg = _error(client.post("/v1/count", json={"model": "llama3", "messages": MESSAGES[:1], "tools": TOOLS}), 422)
    assert "must have a message after the system message" in msg
