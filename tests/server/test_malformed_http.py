"""Malformed HTTP, slow clients and too many connections, with raw sockets against a live server.

Every answer the server writes itself (not the app) is our JSON error shape, never uvicorn's
plain text; a client slow to send headers or body gets a 408 and is disconnected; past the
connection cap a new connection takes the place of one holding no request in progress, else gets
a 503 at once.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time

import pytest

from tests.server.live import error_of, exchange, live_server, parse_response, read_all
from toklane.server.protocol import LINGER_S, SLOW_BODY_S

TIMEOUT = 1.0  # header and body timeouts of the server under test
MAX_CONNECTIONS = 6
MAX_HEADER_BYTES = 8192

MALFORMED = {
    "invalid request line": (b"GARBAGE\r\n\r\n", 400),
    "bad header": (b"GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400),
    "NUL in a header": (b"GET /health HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", 400),
    "bad chunked encoding": (
        b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n",
        400,
    ),
    "invalid Content-Length": (b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}", 400),
    "two Content-Lengths": (
        b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        400,
    ),
    "Content-Length with chunked": (
        b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}",
        400,
    ),
    "huge Content-Length": (
        b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        400,
    ),
    "invalid method": (b"G(T /health HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    "non-ASCII path": (b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    "unknown HTTP version": (b"GET /health HTTP/9.9\r\nHost: x\r\n\r\n", 400),
    "HTTP/2 preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
    "TLS on the plain port": (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64, 400),
    "garbage bytes": (bytes(range(256)) * 4, 400),
    "too-long headers": (b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n", 431),
    "too-long request line": (b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 431),
}


@pytest.fixture(scope="module")
def port():
    with live_server(
        header_timeout=TIMEOUT,
        body_timeout=TIMEOUT,
        max_connections=MAX_CONNECTIONS,
        max_header_bytes=MAX_HEADER_BYTES,
        max_body_bytes=64 * 1024,
    ) as p:
        yield p


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_http_is_answered_in_our_shape(port, name):
    data, expected = MALFORMED[name]
    status, error = error_of(exchange(port, data))
    assert status == expected, (name, status, error)
    assert error["type"] in {"invalid_request_error", "header_too_large"}


@pytest.mark.parametrize(
    "name, data",
    [
        ("unsupported upgrade", b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"),
        (
            "websocket upgrade (the service has none)",
            b"GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        ),
        ("HTTP/1.0 without Host", b"GET /nothing HTTP/1.0\r\n\r\n"),
    ],
)
def test_odd_but_parseable_requests_get_json(port, name, data):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        raw = s.recv(65536)
    status, headers, body = parse_response(raw)
    assert headers["content-type"].startswith("application/json"), (name, status, body)
    if status >= 400:
        error_of(raw)


def test_http09_request_times_out_as_json(port):
    """An HTTP/0.9 request line never completes an HTTP/1 head: the header timeout answers it."""
    start = time.monotonic()
    status, error = error_of(exchange(port, b"GET /health\r\n"))
    assert status == 408 and "headers" in error["message"]
    assert time.monotonic() - start < TIMEOUT + 3


def test_slow_headers_get_408_then_close(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        start = time.monotonic()
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        for _ in range(3):  # a slowloris: a header line now and then, never the end of the head
            time.sleep(TIMEOUT / 3)
            try:
                s.sendall(b"X-a: b\r\n")
            except OSError:
                break
        raw = read_all(s)
        elapsed = time.monotonic() - start
    status, error = error_of(raw)
    assert status == 408 and error["type"] == "request_timeout"
    assert elapsed < TIMEOUT + 3


def test_silent_connection_is_closed(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        start = time.monotonic()
        raw = read_all(s)
        assert time.monotonic() - start < TIMEOUT + 3
    assert error_of(raw)[0] == 408


@pytest.mark.parametrize("path", ["/v1/count", "/health"])  # the app reads the body / never reads it
def test_slow_body_gets_408_then_close(port, path):
    method = b"POST" if path != "/health" else b"GET"
    head = method + b" " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        start = time.monotonic()
        s.sendall(head + b'Content-Length: 100\r\n\r\n{"text": ')
        chunks = []
        while time.monotonic() - start < TIMEOUT + 3:
            try:
                s.sendall(b" ")  # a byte now and then, never the whole body
            except OSError:
                break
            s.settimeout(0.3)
            try:
                data = s.recv(65536)
            except TimeoutError:
                continue
            except ConnectionResetError:  # judged below by what was read before it
                break
            if not data:
                break
            chunks.append(data)
        s.settimeout(2)
        raw = b"".join(chunks) + read_all(s)
        elapsed = time.monotonic() - start
    if path == "/health":  # answered at once (it reads no body); the trickle is then cut off
        status, _, _ = parse_response(raw)
        assert status == 200
    else:
        status, error = error_of(raw)
        assert status == 408 and "body" in error["message"]
    assert elapsed < TIMEOUT + 3, elapsed


def test_chunked_body_that_stalls_gets_408(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        start = time.monotonic()
        s.sendall(
            b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Transfer-Encoding: chunked\r\n\r\n4\r\n{"te\r\n'
        )
        raw = read_all(s)
    assert error_of(raw)[0] == 408
    assert time.monotonic() - start < TIMEOUT + 3


@pytest.mark.parametrize("path", ["/v1/count", "/health"])
def test_client_still_sending_sees_an_orderly_close(port, path):
    """A body that keeps coming, too slowly: the answer, then a half-close (RFC 9112 9.6).

    The server gives up with input still coming; a plain close would make its kernel answer
    the client's next bytes with a reset, which on a real network can destroy an answer not
    yet delivered. The server half-closes instead and reads on for a while.
    """
    method = b"POST" if path != "/health" else b"GET"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        start = time.monotonic()
        s.sendall(
            method + b" " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        s.setblocking(False)
        raw, ended = b"", None
        while ended is None and time.monotonic() - start < TIMEOUT + LINGER_S + 3:
            with contextlib.suppress(OSError):  # a chunk every few ms (BlockingIOError when the server is behind)
                s.send(b"1\r\n \r\n")
            try:
                data = s.recv(65536)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            except ConnectionResetError:
                ended = "reset"
                break
            if not data:
                ended = "eof"
            raw += data
        elapsed = time.monotonic() - start
        s.setblocking(True)
        after = []  # the server still reads (and drops) what comes after its half-close
        for _ in range(4):
            time.sleep(0.05)
            try:
                after.append(s.send(b"1\r\n \r\n"))
            except OSError as exc:  # a closed socket answers with a reset: the next send fails
                after.append(type(exc).__name__)
    assert ended == "eof", (ended, raw)
    assert after == [6] * 4, after  # all sent, none refused
    if path == "/health":  # answered at once (it reads no body); the endless body is then cut off
        assert parse_response(raw)[0] == 200
    else:
        status, error = error_of(raw)
        assert status == 408 and "body" in error["message"]
    assert elapsed < TIMEOUT + 3, elapsed


def _health(port: int, timeout: float = 10.0) -> tuple[int, dict[str, str], float]:
    """Status and headers of GET /health on a new connection, and how long the answer took."""
    start = time.monotonic()
    raw = exchange(port, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=timeout)
    status, headers, _ = parse_response(raw)
    return status, headers, time.monotonic() - start


def test_at_the_cap_a_new_connection_takes_the_place_of_one_holding_no_request(port):
    """Issue 30 item 12: stalled connections (a head never finished, or nothing sent) no longer lock
    everyone else out: a new connection past the cap closes the one that waited longest."""
    held = []
    try:
        for k in range(MAX_CONNECTIONS):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            if k % 2 == 0:  # a slowloris: a head begun and never finished
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            held.append(s)
            time.sleep(0.02)  # the first one opened is the oldest
        time.sleep(0.1)
        status, _, took = _health(port)
        assert status == 200 and took < 2, (status, took)
        status, error = error_of(read_all(held[0]))  # the oldest, a partial head, made room: 408
        assert status == 408 and str(MAX_CONNECTIONS) in error["message"], error
    finally:
        for s in held:
            s.close()


def test_at_the_cap_with_every_connection_busy_a_new_one_gets_503_at_once(port):
    """Connections with a request in progress are kept; a new one is answered 503 at once, not after
    its own head (nor when a timeout frees a connection)."""
    head = b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(MAX_CONNECTIONS)]
    try:
        for s in held:
            s.sendall(head + b'{"text": ')  # a body under way, within the body timeout
        time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            start = time.monotonic()
            raw = read_all(s)  # nothing sent: the answer comes anyway
            took = time.monotonic() - start
        status, error = error_of(raw)
        assert status == 503 and error["type"] == "service_unavailable" and str(MAX_CONNECTIONS) in error["message"]
        assert took < TIMEOUT / 2, took
    finally:
        for s in held:
            s.close()
    time.sleep(0.2)
    assert _health(port)[0] == 200


def test_a_reconnecting_slowloris_does_not_lock_other_clients_out(port):
    """An attacker that keeps the cap's worth of half-sent heads open, reopening each one the server
    closes: before, every other client got 503 until the header timeout freed a connection (12-33 s
    with 512 of them); now every request of another client is answered."""
    stop = threading.Event()
    reopened = []

    def attacker() -> None:
        conns: list[socket.socket] = []
        while not stop.is_set():
            for s in list(conns):
                readable, _, _ = select.select([s], [], [], 0)
                if readable:  # an answer or EOF: the server is done with it
                    s.close()
                    conns.remove(s)
                    reopened.append(1)
            while len(conns) < MAX_CONNECTIONS:
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                conns.append(s)
            stop.wait(0.01)
        for s in conns:
            s.close()

    thread = threading.Thread(target=attacker)
    thread.start()
    try:
        time.sleep(0.3)
        answers = [_health(port)[0] for _ in range(10)]
        deadline = time.monotonic() + 3
        while not reopened and time.monotonic() < deadline:  # the attacker sees its connections closed
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join()
    assert answers == [200] * 10, answers
    assert reopened, "the attacker's connections were never replaced"


def test_a_slow_body_gives_way_at_the_cap():
    """A request whose body trickles in slower than MIN_BODY_RATE once SLOW_BODY_S have passed is
    closed (408) for a new connection at the cap; a body under way at a normal pace is not."""
    with live_server(body_timeout=30, max_connections=2) as p:
        head = b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9000\r\n\r\n"
        slow = socket.create_connection(("127.0.0.1", p), timeout=10)
        slow.sendall(head + b'{"text": "')
        time.sleep(SLOW_BODY_S + 0.5)  # 10 bytes in 2.5 s
        steady = socket.create_connection(("127.0.0.1", p), timeout=10)
        steady.sendall(head + b'{"text": "' + b"a" * 8000)  # most of its body at once: not slow
        try:
            time.sleep(0.1)
            status, _, _ = _health(p)
            assert status == 200
            status, error = error_of(read_all(slow))
            assert status == 408 and "bytes/s" in error["message"], error
            steady.sendall(b"a" * (9000 - 8010 - 2) + b'"}')
            assert parse_response(read_all(steady))[0] == 200
        finally:
            slow.close()
            steady.close()


def test_keep_alive_and_pipelining_still_work(port):
    one = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
    last = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    raw = exchange(port, one + one + last)
    assert raw.count(b"HTTP/1.1 200 OK") == 3


def test_an_app_failing_before_answering_gets_a_json_500():
    """uvicorn's own fallback 500 (an app that raises before responding) is our shape too."""

    async def failing(scope, receive, send):
        raise RuntimeError("boom")

    with live_server(app=failing) as p:
        status, error = error_of(exchange(p, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert status == 500 and error["type"] == "internal_error"
