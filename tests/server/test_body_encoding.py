"""Request bodies that are not valid UTF-8 (a Latin-1 client) or hold lone surrogates, against a
real server: a 400/422 in the service's {"error": {type, message}} shape, never a 500 and never
silent replacement."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.server.live import live_server

LATIN1 = '{"model": "qwen3", "text": "café"}'.encode("latin-1")  # 0xe9 at byte 31
BODIES = {
    "/v1/tokenize": LATIN1,
    "/v1/count": '{"model": "qwen3", "texts": ["ok", "señor"]}'.encode("latin-1"),
    "/v1/parse": '{"model": "qwen3", "chunks": ["a", "é"]}'.encode("latin-1"),
    "/v1/detokenize": '{"model": "qwen3", "tokens": [1], "note": "é"}'.encode("latin-1"),
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with live_server(("qwen3",)) as port:
        yield f"http://127.0.0.1:{port}"


def post(url: str, path: str, body: bytes) -> httpx.Response:
    return httpx.post(url + path, content=body, headers={"content-type": "application/json"}, timeout=30)


@pytest.mark.parametrize("path", sorted(BODIES))
def test_invalid_utf8_body_is_a_400_in_our_error_shape(url, path):
    r = post(url, path, BODIES[path])
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert set(error) == {"type", "message"} and error["type"] == "invalid_request_error"


@pytest.mark.parametrize("path", ["/v1/tokenize", "/v1/count", "/v1/parse"])
def test_lone_surrogate_is_a_422_naming_the_field(url, path):
    r = post(url, path, json.dumps({"model": "qwen3", "text": "a\ud800b"}).encode())
    assert r.status_code == 422, r.text
    message = r.json()["error"]["message"]
    assert "surrogate" in message and "text" in message


def test_invalid_utf8_message_says_utf8_and_the_byte(url):
    message = post(url, "/v1/tokenize", LATIN1).json()["error"]["message"]
    assert "UTF-8" in message and "byte 31" in message, message
