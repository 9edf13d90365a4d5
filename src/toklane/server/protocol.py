"""uvicorn's HTTP protocol with the service's error shape, read timeouts and connection cap.

uvicorn answers malformed HTTP (a bad request line, header, chunk or
Content-Length, garbage bytes, ...) with a plain-text 400 and its connection
cap with a plain-text 503; it never times out a client that is slow to send
its headers and has no bound on their size. :class:`ToklaneHttpProtocol`
subclasses uvicorn's httptools protocol so that every answer the server itself
writes is ``{"error": {"type", "message"}}`` JSON, and adds:

- a header-read deadline (408, then close) from the moment a connection opens
  or a request begins until its headers are complete;
- a header size bound (431, then close);
- a backstop body-read deadline: no piece of body for the body timeout (plus
  :data:`GRACE_S`) while the app waits for one. The app's
  :class:`~.limits.BodyLimitMiddleware` answers 408 first; this closes
  connections whose body the app never reads;
- a connection cap that a few clients cannot hold against the others. A new
  connection past the cap takes the place of the connection that has waited
  longest while holding no request in progress: one still sending its
  request's headers (answered 408), one idle between requests (closed), or one
  sending its body slower than :data:`MIN_BODY_RATE` bytes/s on average once
  :data:`SLOW_BODY_S` have passed (answered 408). Where every connection has a
  request in progress, the new one is answered 503 at once and closed;
- a lingering close: a connection closed while its client may still be sending
  (a request cut off by an error or a timeout) is half-closed, what arrives is
  read and dropped until the client closes or :data:`LINGER_S` passes, and only
  then closed. Closing a socket with unread input makes the kernel reset the
  connection and drop the answer still in its send buffer, so the client would
  see ``ECONNRESET`` instead of the 408 or 413.

The limits come from the :class:`~.limits.Limits` of the app being served
(``app.state.limits``, found through any middleware uvicorn wraps around it).
"""

from __future__ import annotations

import asyncio
import functools
import http
from collections.abc import Sequence
from typing import Any

import httptools
from uvicorn._types import ASGI3Application
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from .limits import Limits, error_json

GRACE_S = 1.0  # the app's own body timeout answers first; this backstop fires after it
#: At the connection cap, a body arriving slower than this (bytes/s, on average)...
MIN_BODY_RATE = 1024
#: ...once this many seconds have passed since its headers makes its connection one to close for a new one.
SLOW_BODY_S = 2.0
LINGER_S = 2.0  # the longest a half-closed connection waits for its client to stop sending


class _Rejected(Exception):
    """Stops the parser from a callback; the answer is in ``ToklaneHttpProtocol._problem``."""


def find_limits(app: Any) -> Limits:
    """The limits of ``app`` or of the app inside uvicorn's wrapping middleware; defaults if none."""
    for _ in range(16):
        if app is None:
            break
        limits = getattr(getattr(app, "state", None), "limits", None)
        if isinstance(limits, Limits):
            return limits
        app = getattr(app, "app", None)
    return Limits()


def raw_response(status: int, kind: str, message: str, default_headers: Sequence[tuple[bytes, bytes]] = ()) -> bytes:
    """A whole HTTP/1.1 response carrying our JSON error, with ``connection: close``."""
    body = error_json(kind, message)
    head = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n".encode("ascii")]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head.append(b"content-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(body))
    return b"".join(head) + body


async def _send_json_500(cycle: RequestResponseCycle) -> None:
    """uvicorn's answer when an app fails before responding, in our shape (toklane's app never should)."""
    body = error_json("internal_error", "the server failed to answer this request")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await cycle.send({"type": "http.response.start", "status": 500, "headers": headers})
    await cycle.send({"type": "http.response.body", "body": body, "more_body": False})


class LingeringTransport:
    """The connection's transport, whose ``close()`` lingers while the client may still be sending.

    Everything but ``close`` and ``is_closing`` goes to the real transport. The
    first ``close()`` with ``wants_linger()`` true sends what is buffered and a
    FIN, keeps reading (the protocol drops what arrives) and closes on the
    client's EOF or after :data:`LINGER_S`; a second ``close()`` closes at once.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop, wants_linger: Any) -> None:
        self._transport = transport
        self._loop = loop
        self._wants_linger = wants_linger
        self._timer: asyncio.TimerHandle | None = None
        self.lingering = False
        self.closing_since = 0.0  # when its lingering close began

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self.lingering or self._transport.is_closing()

    def close(self) -> None:
        transport = self._transport
        if self.lingering or transport.is_closing() or not self._wants_linger() or not transport.can_write_eof():
            self.stop_lingering()
            transport.close()
            return
        self.lingering = True
        self.closing_since = self._loop.time()
        transport.write_eof()
        if not transport.is_reading():
            transport.resume_reading()
        self._timer = self._loop.call_later(LINGER_S, transport.close)

    def stop_lingering(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class ToklaneHttpProtocol(HttpToolsProtocol):
    """httptools-based HTTP/1.1 protocol answering in the service's JSON error shape."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = find_limits(self.app)
        self.limit_concurrency = None  # our cap below answers in JSON instead
        self._deadline: asyncio.TimerHandle | None = None
        self._awaiting_headers = True
        self._header_bytes = 0
        self._idle_since = 0.0  # when it opened, or its last answer went out: since when it holds no request
        self._head_done = 0.0  # when the current request's headers were complete
        self._body_bytes = 0  # body bytes of the current request
        self._problem: tuple[int, str, str] | None = None
        self._mid_message = False  # a request has begun and its body is not all read
        self._body_seen = 0.0  # when the last piece of body (or the headers) arrived
        self._failed = False  # the server answered an error of its own: input may be left unread

    # ------------------------------------------------------------ connection
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        lingering = LingeringTransport(transport, self.loop, lambda: self._mid_message or self._failed)
        super().connection_made(lingering)  # type: ignore[arg-type]
        self._idle_since = self.loop.time()
        self._arm(self.limits.header_timeout)
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def _make_room(self) -> None:
        """Past the connection cap: close the connection that has waited longest holding no request in
        progress (see the module's notes), or answer this one 503 at once. Connections in their
        lingering close do not count, up to as many again as the cap (past that the oldest close at once)."""
        now = self.loop.time()
        limit = self.limits.max_connections
        others = [c for c in self.connections if c is not self and isinstance(c, ToklaneHttpProtocol)]
        closing = [c for c in others if c.transport is None or c.transport.is_closing()]
        if len(closing) > limit:
            closing.sort(key=lambda c: c.transport.closing_since if c.transport is not None else 0.0)
            for conn in closing[: len(closing) - limit]:
                if conn.transport is not None:
                    conn.transport.close()  # a second close: at once
        if len(others) - len(closing) < limit:
            return
        victim, oldest = None, now
        for conn in others:
            since = conn._replaceable_since(now)
            if since is not None and since <= oldest:
                victim, oldest = conn, since
        if victim is None:
            self.logger.warning("Connection limit (%d) reached, every connection busy: answering 503.", limit)
            self._fail(503, "service_unavailable", f"too many connections (the limit is {limit}); retry later")
            return
        victim._give_way(now)

    def _replaceable_since(self, now: float) -> float | None:
        """Since when this connection has held no request in progress (or sent its body too slowly), if so."""
        if self.transport is None or self.transport.is_closing():
            return None
        cycle = self.cycle
        if cycle is None or cycle.response_complete:  # a new or idle connection, or a request's head under way
            return self._idle_since
        if self._mid_message and not self._awaiting_headers and not cycle.response_started:
            elapsed = now - self._head_done
            if elapsed >= SLOW_BODY_S and self._body_bytes < MIN_BODY_RATE * elapsed:
                return self._head_done
        return None

    def _give_way(self, now: float) -> None:
        limit = self.limits.max_connections
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            rate = self._body_bytes / max(now - self._head_done, 1e-9)
            what = f"request body arriving at {rate:.0f} bytes/s while the server is at its connection limit ({limit})"
        elif self._mid_message or self._header_bytes:
            what = f"request headers not complete when the server, at its connection limit ({limit}), needed room"
        else:  # idle between requests, as after a keep-alive timeout
            self.logger.info("Connection limit (%d) reached: closing an idle connection.", limit)
            self.transport.close()
            return
        self.logger.info("Connection limit (%d) reached: closing a connection: %s.", limit, what)
        self._fail(408, "request_timeout", what)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.transport.stop_lingering()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.transport.lingering:  # the answer is out and the connection is closing: drop the rest
            return
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():  # pragma: no cover - the service runs without websockets
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError as exc:
            if self._problem is not None:  # raised by one of our callbacks
                self._fail(*self._problem)
            else:
                self._fail(400, "invalid_request_error", f"malformed HTTP request: {exc or type(exc).__name__}")
            return
        if self._awaiting_headers and self.transport is not None and not self.transport.is_closing():
            self._header_bytes += len(data)
            if self._header_bytes > self.limits.max_header_bytes:
                limit = self.limits.max_header_bytes
                self._fail(431, "header_too_large", f"request line and headers larger than {limit} bytes")
        if (
            self._deadline is None
            and self.timeout_keep_alive_task is None
            and (self.cycle is None or self.cycle.response_complete)
            and not self.transport.is_closing()
        ):
            self._arm(self.limits.header_timeout)  # bytes that start no request (stray CRLFs) are bounded too

    def send_400_response(self, msg: str) -> None:
        self._fail(400, "invalid_request_error", f"malformed HTTP request: {msg}")

    # ------------------------------------------------------------ parser callbacks
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._mid_message = True
        self._awaiting_headers = True
        self._header_bytes = 0
        if self._deadline is None:
            self._arm(self.limits.header_timeout)

    def on_headers_complete(self) -> None:
        self._awaiting_headers = False
        self._header_bytes = 0
        self._disarm()
        size = len(self.url) + sum(len(k) + len(v) + 4 for k, v in self.headers)
        if size > self.limits.max_header_bytes:
            limit = self.limits.max_header_bytes
            self._problem = (431, "header_too_large", f"request line and headers larger than {limit} bytes")
            raise _Rejected
        try:
            super().on_headers_complete()
        except httptools.HttpParserInvalidURLError as exc:
            self._problem = (400, "invalid_request_error", f"malformed HTTP request: {exc}")
            raise
        except UnicodeDecodeError:
            self._problem = (400, "invalid_request_error", "malformed HTTP request: the path is not ASCII")
            raise
        self._body_seen = self._head_done = self.loop.time()
        self._body_bytes = 0
        self._arm(self.limits.body_timeout + GRACE_S)

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            self._body_seen = self.loop.time()  # the client is sending: the backstop starts over
            self._body_bytes += len(body)

    def on_message_complete(self) -> None:
        self._disarm()
        self._mid_message = False
        super().on_message_complete()
        cycle = self.cycle
        if cycle is not None and cycle.response_complete and not self.pipeline and not self.transport.is_closing():
            # The body finished after the answer (the app did not read it): idle from here on.
            self._unset_keepalive_if_required()
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

    def on_response_complete(self) -> None:
        self._idle_since = self.loop.time()
        super().on_response_complete()

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        cycle.send_500_response = functools.partial(_send_json_500, cycle)  # type: ignore[method-assign]
        super()._start_asgi_task(cycle, app)

    # ------------------------------------------------------------ deadlines
    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._on_deadline)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _on_deadline(self) -> None:
        self._deadline = None
        if self.transport is None or self.transport.is_closing():
            return
        if self._awaiting_headers:
            what = f"request headers not received within {self.limits.header_timeout:g} s"
        else:
            what = f"request body not received within {self.limits.body_timeout:g} s"
            idle = self.loop.time() - self._body_seen
            answered = self.cycle is None or self.cycle.response_complete
            if not answered and (self.flow.read_paused or idle < self.limits.body_timeout + GRACE_S):
                # body arrived since, or the app has not read what came (our turn, not the client's): wait on
                self._arm(max(self.limits.body_timeout + GRACE_S - idle, GRACE_S))
                return
            if answered:  # answered already: just hang up
                self.logger.info("Closing a connection: %s.", what)
                self.transport.close()
                return
        self.logger.info("Closing a connection: %s.", what)
        self._fail(408, "request_timeout", what)

    def _fail(self, status: int, kind: str, message: str) -> None:
        """Answer ``status`` with our JSON error if no response is under way, then close."""
        self._disarm()
        if self.transport is None or self.transport.is_closing():
            return
        cycle = self.cycle
        in_flight = cycle is not None and not cycle.response_complete
        if in_flight and (cycle.response_started or self._awaiting_headers):
            # An answer is under way (to this request, or to the one before a pipelined
            # one): let it finish, then close.
            cycle.keep_alive = False
            return
        if in_flight:
            cycle.disconnected = True  # the app's late answer goes nowhere
            cycle.message_event.set()
        self._failed = True
        self.transport.write(raw_response(status, kind, message, self.server_state.default_headers))
        self.transport.close()


#: What ``toklane serve`` passes to uvicorn: our protocol, and no websockets (the service has
#: none; without this an upgrade request would be answered by uvicorn's plain 403).
UVICORN_OPTIONS: dict[str, Any] = {"http": "toklane.server.protocol:ToklaneHttpProtocol", "ws": "none"}
