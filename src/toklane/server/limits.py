"""The service's limits, and the request-body guard that enforces two of them.

:class:`Limits` gathers every bound the service keeps (body size, chunks per
parse request, body and header read timeouts, connections, worker threads).
:class:`BodyLimitMiddleware` enforces the body size and the body-read timeout
inside the app, so they hold under any ASGI server; the header timeout, header
size and connection cap live in the HTTP protocol (``server/protocol.py``),
which ``toklane serve`` installs in uvicorn.

The body size is checked twice: against ``Content-Length`` before the app
runs, and against the bytes actually received (chunked uploads send no
length). The body timeout bounds the time spent waiting for the client's
bytes, summed over the body: time the server takes to come back for the next
piece (its own queue, a busy moment) is not the client's and does not count,
and a client that trickles its body is cut off once its waits add up to the
timeout. When the received body passes the limit or its waits the timeout,
the app sees the body end in an error, and whatever response it starts is
replaced by the 413 (or 408, which also closes the connection).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .heap import LARGE_BODY_BYTES, large_request_done, large_request_started

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_CHUNKS = 65_536
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_MAX_HEADER_BYTES = 64 * 1024
DEFAULT_MAX_CONNECTIONS = 512


def default_threads() -> int:
    """Worker threads for CPU work when not configured: twice the cores, at least 4."""
    return max(4, (os.cpu_count() or 2) * 2)


@dataclass(frozen=True)
class Limits:
    """Every bound the service enforces (see the README's limits table)."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_chunks: int = DEFAULT_MAX_CHUNKS
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    threads: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_chunks", "max_header_bytes", "max_connections"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("body_timeout", "header_timeout"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not (0 < value < math.inf):
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if self.threads is not None and (not isinstance(self.threads, int) or self.threads < 1):
            raise ValueError(f"threads must be a positive integer, got {self.threads!r}")


def safe_text(message: str) -> str:
    """``message`` with lone surrogates escaped, so it always encodes as UTF-8."""
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


def error_json(kind: str, message: str) -> bytes:
    """The service's error body ``{"error": {"type", "message"}}`` as bytes."""
    return json.dumps({"error": {"type": kind, "message": safe_text(message)}}, ensure_ascii=False).encode()


class RequestTooLarge(Exception):
    """Raised from ``receive`` once a streamed body passes the limit."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"request body larger than the limit of {limit} bytes")


class BodyTimeout(Exception):
    """Raised from ``receive`` when waiting for the body's bytes has taken the timeout, summed over the body."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        super().__init__(f"request body not received within {timeout:g} s")


def too_large_body(limit: int) -> bytes:
    return error_json("payload_too_large", str(RequestTooLarge(limit)))


class BodyLimitMiddleware:
    """Body size limit (413) and body-read timeout (408 + close), in our error shape; after a large
    body's request, the heap's free memory is given back (:func:`.heap.large_request_done`)."""

    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float = DEFAULT_BODY_TIMEOUT):
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes:
                    await _reject(send, 413, too_large_body(self.max_bytes))
                    return
        waited = 0.0  # time spent in receive() waiting for the client's bytes
        received = 0
        large = False
        body_done = False
        failure: bytes | None = None
        status = 0
        replaced = False  # set once a response went out (the app's, before a failure, or ours)

        async def limited() -> Message:
            nonlocal waited, received, large, body_done, failure, status
            if body_done:  # after the body only a disconnect can come: no deadline
                return await receive()
            start = anyio.current_time()
            try:
                with anyio.fail_after(max(0.0, self.timeout - waited)):
                    message = await receive()
            except TimeoutError:
                failure, status = error_json("request_timeout", str(BodyTimeout(self.timeout))), 408
                raise BodyTimeout(self.timeout) from None
            finally:
                waited += anyio.current_time() - start
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if not large and received >= LARGE_BODY_BYTES:
                    large = True
                    large_request_started()
                if received > self.max_bytes:
                    failure, status = too_large_body(self.max_bytes), 413
                    raise RequestTooLarge(self.max_bytes)
                body_done = not message.get("more_body", False)
            else:
                body_done = True
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal replaced
            if failure is None:
                replaced = replaced or message["type"] == "http.response.start"
                await send(message)
            elif not replaced:
                replaced = True
                await _reject(send, status, failure)

        try:
            with contextlib.suppress(RequestTooLarge, BodyTimeout):  # answered below
                await self.app(scope, limited, guarded_send)
            if failure is not None and not replaced:
                replaced = True
                await _reject(send, status, failure)
        finally:
            if large:
                with anyio.CancelScope(shield=True):
                    await large_request_done()


async def _reject(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 408:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
