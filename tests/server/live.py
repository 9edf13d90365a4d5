"""A real uvicorn server in a thread on a free loopback port, run the way ``toklane serve`` runs it."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from toklane.server import create_app
from toklane.server.protocol import UVICORN_OPTIONS


def stop(proc: subprocess.Popen) -> None:
    """End a server started as a subprocess: terminate, then kill if it has not exited in 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def live_server(models: tuple[str, ...] = ("qwen3.6",), *, app: Any = None, **limits: Any) -> Iterator[int]:
    """Serve ``create_app(models, **limits)`` (or ``app``) with toklane's uvicorn options; yields the port."""
    port = free_port()
    app = app if app is not None else create_app(models, **limits)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical", lifespan="off", **UVICORN_OPTIONS)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def exchange(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send raw bytes, read until the server closes the connection (or ``timeout`` passes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        return read_all(s)


def read_all(s: socket.socket) -> bytes:
    out = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while True:
            data = s.recv(65536)
            if not data:
                break
            out += data
    return out


def parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Status, lower-cased headers and body of the first HTTP/1.1 response in ``raw``."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    assert sep, f"no complete response: {raw[:200]!r}"
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return status, headers, body


def error_message(response: Any, status: int) -> str:
    """The message of an answer (an httpx/TestClient response) that must be our one-line JSON error with ``status``."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}, body
    message = body["error"]["message"]
    assert "\n" not in message, message
    return message


def error_of(raw: bytes) -> tuple[int, dict[str, str]]:
    """Status and ``error`` object of a response that must be our JSON error shape."""
    status, headers, body = parse_response(raw)
    assert headers.get("content-type", "").startswith("application/json"), (status, headers, body)
    payload = json.loads(body)
    assert set(payload) == {"error"} and set(payload["error"]) == {"type", "message"}, payload
    assert all(isinstance(v, str) and v for v in payload["error"].values()), payload
    return status, payload["error"]
