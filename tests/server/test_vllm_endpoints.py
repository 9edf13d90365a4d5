"""vLLM's tokenizer dialect beside ours (``POST /tokenize``, ``/detokenize``, ``GET /v1/models/{id}``) and
422s for near-miss field names that name the right field, against the app in-process."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from toklane.server import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(["qwen3.6", "llama3"]), raise_server_exceptions=False) as c:
        yield c


def _error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}
    message = body["error"]["message"]
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/v1/tokenize", {"prompt": "hi"}, 'unknown field "prompt"; did you mean "text"?'),
        ("/v1/detokenize", {"token_ids": [1]}, 'unknown field "token_ids"; did you mean "tokens"?'),
        ("/v1/parse", {"output": "hi", "tool": "hermes"}, 'unknown field "tool"; did you mean "tools"?'),
        (
            "/v1/count",
            {"text": "a", "add_generation_promt": True},
            'unknown field "add_generation_promt"; did you mean "add_generation_prompt"?',
        ),
        ("/v1/count", {"text": "a", "frobnicate": 1}, "the fields are model, text, texts, messages"),
    ],
)
def test_near_miss_field_names_the_right_field(client, path, body, message):
    assert message in _error(client.post(path, json=body), 422)
