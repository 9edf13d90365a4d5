"""A real uvicorn process on loopback under 32 concurrent clients: zero 5xx, results equal in-process ones."""

from __future__ import annotations

import random
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

import toklane
from tests.server.live import stop
from toklane.wire import result_json

MODELS = ("qwen3.6", "llama3", "deepseek-v4")
CLIENTS = 32
REQUESTS_PER_CLIENT = 8

OUTPUTS = {
    "qwen3.6": (
        "<think>\nThe user wants weather.\n</think>\n\nLet me check.\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}\n</tool_call>',
        {"reasoning": "qwen3", "tools": "hermes"},
    ),
    "llama3": ('{"name": "get_weather", "parameters": {"city": "Paris"}}', {"tools": "llama3_json"}),
    "deepseek-v4": ("<think>Plan: answer directly.</think>The answer is 42.", {"reasoning": "deepseek_v4"}),
}
TEXTS = ["Hello, world!", "日本語のテキスト 🚀", "def f(x):\n    return x * 2\n", "<think>x</think> y " * 20]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    port = _free_port()
    cmd = [sys.executable, "-m", "toklane.cli", "serve", "--port", str(port), "--log-level", "warning"]
    for m in MODELS:
        cmd += ["--model", m]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("server did not start in 120 s")
            time.sleep(0.2)
        yield url
    finally:
        stop(proc)


def _request(rng: random.Random) -> tuple[str, dict, object]:
    model = rng.choice(MODELS)
    tok = toklane.load_tokenizer(model)
    kind = rng.choice(("tokenize", "count", "parse"))
    if kind == "tokenize":
        text = rng.choice(TEXTS)
        return "/v1/tokenize", {"model": model, "text": text}, {"tokens": tok.encode(text), "count": tok.count(text)}
    if kind == "count":
        texts = rng.sample(TEXTS, 2)
        return "/v1/count", {"model": model, "texts": texts}, {"counts": [tok.count(t) for t in texts]}
    text, formats = OUTPUTS[model]
    expected = result_json(toklane.parse(tok, text=text, **formats))
    return "/v1/parse", {"model": model, "text": text, **formats}, expected


def _without_call_ids(body: object) -> object:
    """Tool-call ids are fresh per call; compare everything else, and check the ids' shape."""
    if isinstance(body, dict) and "tool_calls" in body:
        for call in body["tool_calls"]:
            assert call.pop("id").startswith("call_")
    return body


def test_concurrent_mixed_load(server_url):
    rng = random.Random(1234)
    plans = [[_request(rng) for _ in range(REQUESTS_PER_CLIENT)] for _ in range(CLIENTS)]
    failures: list[str] = []
    barrier = threading.Barrier(CLIENTS)

    def client(plan):
        with httpx.Client(base_url=server_url, timeout=60) as http:
            barrier.wait()
            for path, body, expected in plan:
                r = http.post(path, json=body)
                if r.status_code != 200 or _without_call_ids(r.json()) != _without_call_ids(expected):
                    failures.append(f"{path} {body.get('model')}: {r.status_code} {r.text[:200]}")

    threads = [threading.Thread(target=client, args=(p,)) for p in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "clients did not finish within the bound"
    assert failures == []


def test_bad_requests_under_load_never_5xx(server_url):
    bodies = [b"{", b"[]", b'{"model": "nope", "text": "x"}', b'{"tokens": [99999999999]}', b'{"text": 1}']
    with httpx.Client(base_url=server_url, timeout=30) as http:
        for body in bodies * 10:
            for path in ("/v1/count", "/v1/detokenize", "/v1/parse"):
                r = http.post(path, content=body, headers={"content-type": "application/json"})
                assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text)
        assert http.get("/health").status_code == 200


def _slow_to_encode_text() -> str:
    """About 12 MB of distinct pseudo-words (ASCII, under the 16 MB body limit): over a second of BPE work."""
    rng = random.Random(0)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 12))) for _ in range(50_000)]
    return " ".join(rng.choice(words) for _ in range(1_400_000))


def test_a_long_request_does_not_stall_the_others(server_url):
    """Small requests complete while a large one is still being encoded (ordering, not timing).

    The large body costs over a second of encoding in a worker thread; the five small requests, sent
    once it is on the wire, take milliseconds each inline. Were the large one encoded on the event
    loop, every small one would wait for it and finish after it.
    """
    big = _slow_to_encode_text()
    finished: list[str] = []
    started = threading.Event()

    def send_big():
        with httpx.Client(base_url=server_url, timeout=120) as http:
            started.set()
            assert http.post("/v1/count", json={"model": "qwen3.6", "text": big}).status_code == 200
            finished.append("big")

    t = threading.Thread(target=send_big)
    t.start()
    started.wait()
    time.sleep(0.1)  # let the big body reach the server
    with httpx.Client(base_url=server_url, timeout=60) as http:
        for _ in range(5):
            assert http.post("/v1/count", json={"model": "qwen3.6", "text": "small"}).json() == {"count": 1}
        finished.append("small")
    t.join(timeout=120)
    assert finished == ["small", "big"]
