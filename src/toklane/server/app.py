"""The HTTP service: tokenize, detokenize, count and parse with one shared tokenizer per model.

Every endpoint does its CPU work in a worker thread (a bounded pool), so one
long request never stalls the event loop: a body over a few KB is decoded and
validated there too (a large one a piece at a time, :mod:`.body`), its answer
rendered there, and a streamed parse is produced there in bounded slices that
the loop sends. Bad input never yields a 5xx:
malformed JSON -> 400 (a JSON body sent as text or form data is read as JSON;
other media types -> 415), schema errors (lone surrogates included) and invalid
chat messages -> 422 naming the field, unknown model -> 404 listing the known names, unknown parser format
or out-of-range ids -> 400, bodies over the size limit or parse requests over
the chunk limit -> 413, bodies that stall -> 408; every error is
``{"error": {"type", "message"}}``. The limits are in :class:`.limits.Limits`.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, TypeVar

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from .. import counting
from ..errors import (
    InvalidMessagesError,
    InvalidTokenIdError,
    MissingTokenError,
    ToklaneError,
    UnknownFormatError,
    UnknownTokenizerError,
)
from ..tokenizer import Tokenizer, load_tokenizer
from ..tokenizer.registry import bundled_table, loaded_tokenizer, resolve_name
from ..wire import result_json
from .body import BodyRoute, MalformedBody, UnsupportedMediaType, render_json
from .docs_assets import add_docs
from .heap import large_work, limit_arenas
from .limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CHUNKS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_HEADER_BYTES,
    BodyLimitMiddleware,
    BodyTimeout,
    Limits,
    RequestTooLarge,
    default_threads,
    safe_text,
)
from .schemas import (
    CountRequest,
    CountResponse,
    DetokenizeRequest,
    DetokenizeResponse,
    ErrorResponse,
    ModelCard,
    ModelList,
    ParseRequest,
    ParseResponse,
    TokenizeRequest,
    TokenizeResponse,
    _Request,
    messages_payload,
)
from .vllm_compat import add_vllm_routes

__all__ = ["DEFAULT_MAX_BODY_BYTES", "DEFAULT_MAX_CHUNKS", "Limits", "create_app"]
# Requests whose body is at most this many bytes run on the event loop: their work
# takes tens of microseconds, less than a hand-off to a worker thread. The body's
# size bounds every input's (characters, ids, messages, tool definitions).
INLINE_LIMIT = 2048
# Requests with a body of 1 MB or more (heap.LARGE_BODY_BYTES) that build their objects at once (see
# body.BodyRoute). Their work is mostly under the GIL (decoding, validating, rendering; encodes spread
# over cores by themselves), so more at once add little throughput, and each one more thread wanting
# the GIL delays the event loop's turns. A burst of large /v1/count bodies takes the same total time
# either way, while two at a time hold more memory than one, at the peak and after.
LARGE_REQUESTS = 1
# The GIL's switch interval in the service (Python's default is 5 ms): a thread that wants the GIL
# asks for it after this long, so the event loop's turn comes sooner among busy worker threads (the
# same burst: the longest wait of a /health request falls several-fold; the total time the same).
SWITCH_INTERVAL_S = 0.001
# A streamed parse is produced in slices of at most this many chunks / characters per
# worker-thread hop; the loop sends each slice's events before the next is produced.
SLICE_CHUNKS = 1024
SLICE_CHARS = 256 * 1024
CONFIG_ENV = "TOKLANE_SERVE_CONFIG"
T = TypeVar("T")


class ModelNotFound(Exception):
    def __init__(self, model: str, known: Iterable[str]):
        self.model = model
        self.known = sorted(known)
        near = _nearest_models(model, self.known)
        hint = f"did you mean {' or '.join(map(repr, near))}? " if near else ""
        shown = model if len(model) <= 100 else model[:97] + "..."
        super().__init__(f"model {shown!r} not found; {hint}known models: {', '.join(self.known)}")


def _nearest_models(model: str, known: list[str]) -> list[str]:
    """Up to three served names or aliases spelled like ``model`` (case-insensitively); none for long input."""
    if len(model) > 100:
        return []
    spellings = {s.lower(): s for s in known}
    for entry in bundled_table():
        spellings.update({a.lower(): a for a in entry.aliases})
    close = difflib.get_close_matches(model.lower(), list(spellings), n=3, cutoff=0.6)
    return [spellings[c] for c in close]


class ServedModels:
    """The tokenizers this server answers for: preloaded specs (names or paths given
    at start-up) plus every bundled name and alias, loaded on first use.
    Requests can never make the server read a path."""

    def __init__(self, preload: Sequence[str]):
        self._extra: dict[str, Tokenizer] = {}
        self.default: str = preload[0] if preload else "qwen3.6"
        for spec in preload or [self.default]:
            tok = load_tokenizer(spec)
            self._extra[spec] = tok
            self._extra[tok.name] = tok

    def get(self, model: str | None) -> Tokenizer:
        spec = model or self.default
        tok = self._extra.get(spec)
        if tok is not None:
            return tok
        name = resolve_name(spec)
        if name is None:
            raise ModelNotFound(spec, self.names())
        return load_tokenizer(name)

    def peek(self, model: str | None) -> Tokenizer | None:
        """The tokenizer for ``model`` if it is loaded already (never loads; never raises)."""
        spec = model or self.default
        tok = self._extra.get(spec)
        if tok is None:
            name = resolve_name(spec)
            tok = loaded_tokenizer(name) if name else None
        return tok

    def card(self, model: str) -> ModelCard:
        """The card of one served model, by name or alias; :class:`ModelNotFound` otherwise (never loads)."""
        tok = self._extra.get(model)
        name = tok.name if tok is not None else resolve_name(model)
        card = next((c for c in self.cards() if c.id == name), None) if name else None
        if card is None:
            raise ModelNotFound(model, self.names())
        return card

    def names(self) -> list[str]:
        return sorted({e.name for e in bundled_table()} | {t.name for t in self._extra.values()})

    def cards(self) -> list[ModelCard]:
        cards = []
        for entry in bundled_table():
            tok = loaded_tokenizer(entry.name)
            cards.append(
                ModelCard(
                    id=entry.name,
                    aliases=list(entry.aliases),
                    loaded=tok is not None,
                    vocab_size=tok.vocab_size if tok is not None else None,
                )
            )
        bundled = {e.name for e in bundled_table()}
        for spec, tok in self._extra.items():
            if tok.name not in bundled and spec == tok.name:
                cards.append(ModelCard(id=tok.name, aliases=[], loaded=True, vocab_size=tok.vocab_size))
        return cards


def _error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"type": kind, "message": safe_text(message)}}
    return JSONResponse(status_code=status, content=body, headers=headers)


_TYPE_TAG = re.compile(r"[\[(]|^(str|int|float|bool|list|dict|none)$")
_SUBPATH = re.compile(r"^([^\s:]+): (.*)$", re.S)


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = list(exc.errors())
    if any(e.get("type") == "json_invalid" for e in errors):
        detail = next(e for e in errors if e.get("type") == "json_invalid")
        return 400, f"malformed JSON body: {detail.get('ctx', {}).get('error', detail.get('msg'))}"
    # Union fields report every branch; where one branch has our own check's message, keep only that.
    ours = {e["loc"][:2] for e in errors if e.get("type") == "value_error" and len(e.get("loc", ())) >= 2}
    parts: list[str] = []
    for e in errors:
        loc_t = tuple(e.get("loc", ()))
        if e.get("type") != "value_error" and loc_t[:2] in ours:
            continue
        loc = ".".join(str(p) for p in loc_t if p != "body" and not _TYPE_TAG.search(str(p)))
        msg = str(e.get("msg", "invalid"))
        msg = msg.removeprefix("Value error, ")
        sub = _SUBPATH.match(msg)
        if sub and e.get("type") == "value_error":
            loc, msg = f"{loc}.{sub.group(1)}" if loc else sub.group(1), sub.group(2)
        part = msg if not loc and msg.startswith("unknown field ") else f"{loc or 'body'}: {msg}"
        if part not in parts:
            parts.append(part)
        if len(parts) == 5:
            break
    return 422, "; ".join(parts)


def create_app(
    models: Sequence[str] = ("qwen3.6",),
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    threads: int | None = None,
    max_chunks: int = DEFAULT_MAX_CHUNKS,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> FastAPI:
    """Build the service. ``models`` are preloaded (names, aliases or paths); the first
    is the default for requests without ``model``. The keyword arguments are the
    service's limits (see :class:`~toklane.server.limits.Limits`): the app enforces
    the body size and body timeout, ``max_chunks`` and ``threads`` (the worker pool);
    ``header_timeout``, ``max_header_bytes`` and ``max_connections`` are enforced by
    the HTTP protocol ``toklane serve`` runs (``toklane.server.protocol``)."""
    limits = Limits(
        max_body_bytes=max_body_bytes,
        max_chunks=max_chunks,
        body_timeout=body_timeout,
        header_timeout=header_timeout,
        max_header_bytes=max_header_bytes,
        max_connections=max_connections,
        threads=threads,
    )
    limit_arenas()  # the memory of a burst of large requests can be given back (see .heap)
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))  # process-wide
    served = ServedModels(list(models))
    limiter = anyio.CapacityLimiter(threads or default_threads())
    large_requests = anyio.CapacityLimiter(LARGE_REQUESTS)  # see body.BodyRoute

    errors = {"model": ErrorResponse}
    app = FastAPI(
        title="toklane",
        docs_url=None,  # /docs and /redoc come from add_docs: local assets, no CDN
        redoc_url=None,
        summary="Tokenize, count and parse LLM output with one shared tokenizer per model.",
        version=_version(),
        responses={
            400: {**errors, "description": "Malformed JSON or HTTP, unknown format, invalid token id"},
            404: {**errors, "description": "Unknown model or path"},
            405: {**errors, "description": "Method not allowed"},
            408: {**errors, "description": "Request headers or body not received in time"},
            413: {**errors, "description": "Body over the size limit, or more chunks than the limit"},
            415: {**errors, "description": "Body sent as a media type other than JSON, text or form data"},
            422: {
                **errors,
                "description": "Request body does not match the schema, or a chat message is invalid (named)",
            },
            431: {**errors, "description": "Request headers over the size limit"},
            500: {**errors, "description": "A bug in toklane (never expected)"},
            503: {**errors, "description": "Connection limit reached"},
        },
    )
    add_docs(app)
    app.router.route_class = BodyRoute  # every POST body: read, decoded and validated by toklane
    app.state.served = served
    app.state.limits = limits
    app.state.limiter = limiter
    app.state.large_requests = large_requests
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_body_bytes, timeout=body_timeout)

    async def work(fn: Callable[[], T], req: _Request) -> T:
        """Run ``fn`` inline when the request's body is small, else in the bounded worker pool."""
        if req._body_bytes <= INLINE_LIMIT:
            return fn()
        return await anyio.to_thread.run_sync(fn, limiter=limiter)

    async def tokenizer(model: str | None) -> Tokenizer:
        """The shared tokenizer; a first load (about a second) happens in a worker thread."""
        tok = served.peek(model)
        if tok is None:
            tok = await anyio.to_thread.run_sync(served.get, model, limiter=limiter)
        return tok

    # ------------------------------------------------------------------ errors
    @app.exception_handler(RequestValidationError)
    async def _on_validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        status, message = _validation_message(exc)
        return _error(status, "invalid_request_error", message)

    @app.exception_handler(StarletteHTTPException)
    async def _on_http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        kinds = {400: "invalid_request_error", 404: "not_found", 405: "method_not_allowed"}
        message = str(exc.detail)
        cause = exc.__cause__
        if isinstance(cause, UnicodeDecodeError):  # FastAPI's "There was an error parsing the body"
            bad = cause.object[cause.start : cause.start + 1].hex()
            message = (
                f"the request body is not valid UTF-8 (byte {cause.start} is 0x{bad}); "
                "send JSON encoded as UTF-8 (non-ASCII text may also be written as \\uXXXX escapes)"
            )
        return _error(exc.status_code, kinds.get(exc.status_code, "http_error"), message, exc.headers)

    @app.exception_handler(MalformedBody)
    async def _on_malformed(_: Request, exc: MalformedBody) -> JSONResponse:
        if isinstance(exc, UnsupportedMediaType):
            return _error(415, "unsupported_media_type", str(exc))
        return _error(400, "invalid_request_error", str(exc))

    @app.exception_handler(InvalidMessagesError)
    async def _on_messages(_: Request, exc: InvalidMessagesError) -> JSONResponse:
        return _error(422, "invalid_request_error", str(exc))  # a field of the body, as schema errors are

    @app.exception_handler(RequestTooLarge)
    async def _on_too_large(_: Request, exc: RequestTooLarge) -> JSONResponse:
        return _error(413, "payload_too_large", str(exc))

    @app.exception_handler(TooManyChunks)
    async def _on_too_many_chunks(_: Request, exc: TooManyChunks) -> JSONResponse:
        return _error(413, "payload_too_large", str(exc))

    @app.exception_handler(BodyTimeout)
    async def _on_body_timeout(_: Request, exc: BodyTimeout) -> JSONResponse:
        return _error(408, "request_timeout", str(exc), {"connection": "close"})

    @app.exception_handler(ModelNotFound)
    async def _on_model(_: Request, exc: ModelNotFound) -> JSONResponse:
        return _error(404, "model_not_found", str(exc))

    @app.exception_handler(UnknownTokenizerError)
    async def _on_unknown(_: Request, exc: UnknownTokenizerError) -> JSONResponse:
        return _error(404, "model_not_found", str(exc))

    async def _bad_request(_: Request, exc: Exception) -> JSONResponse:
        return _error(400, "invalid_request_error", str(exc))

    # Any error toklane raises on purpose (helpers validate their inputs with ToklaneError /
    # ValueError subclasses naming the field) is the client's: 400.
    for exc_type in (UnknownFormatError, InvalidTokenIdError, MissingTokenError, ToklaneError, ValueError, TypeError):
        app.add_exception_handler(exc_type, _bad_request)

    @app.exception_handler(Exception)
    async def _on_bug(_: Request, exc: Exception) -> JSONResponse:
        return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ routes
    add_vllm_routes(app, served, tokenizer, work)  # vLLM's /tokenize, /detokenize; GET /v1/models/{id}

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "default_model": served.default}

    @app.get("/v1/models", response_model=ModelList)
    async def models_() -> ModelList:
        return ModelList(data=served.cards())

    @app.get("/v1/formats")
    async def formats() -> dict[str, Any]:
        from ..parsing import format_catalog

        return format_catalog()

    @app.post("/v1/tokenize", response_model=TokenizeResponse)
    async def tokenize(req: TokenizeRequest) -> Response:
        tok = await tokenizer(req.model)

        def run() -> Response:
            if req.messages is not None:
                tokens = counting.encode_chat(
                    messages_payload(req.messages),
                    tok,
                    add_generation_prompt=req.add_generation_prompt,
                    tools=req.tools or None,
                    chat_template=req.chat_template,
                    chat_template_kwargs=req.chat_template_kwargs,
                )
            else:
                tokens = tok.encode(req.text or "", add_special_tokens=req.add_special_tokens)
            return json_response({"tokens": tokens, "count": len(tokens)})

        return await work(run, req)

    @app.post("/v1/detokenize", response_model=DetokenizeResponse)
    async def detokenize(req: DetokenizeRequest) -> Response:
        tok = await tokenizer(req.model)

        def run() -> Response:
            return json_response({"text": tok.decode(req.tokens, skip_special_tokens=req.skip_special_tokens)})

        return await work(run, req)

    @app.post("/v1/count", response_model=CountResponse, response_model_exclude_none=True)
    async def count(req: CountRequest) -> Response:
        tok = await tokenizer(req.model)

        def run() -> Response:
            if req.texts is not None:  # counts from the ids' offsets: no list per text
                import numpy  # (imported by the first batch count, not at the server's start)

                return json_response({"counts": numpy.diff(tok.encode_batch_flat(req.texts)[1]).tolist()})
            if req.messages is not None:
                count = counting.count_tokens(
                    messages_payload(req.messages),
                    tok,
                    add_generation_prompt=req.add_generation_prompt,
                    tools=req.tools,
                    chat_template=req.chat_template,
                    chat_template_kwargs=req.chat_template_kwargs,
                )
                return json_response({"count": count})
            return json_response({"count": tok.count(req.text or "")})

        return await work(run, req)

    @app.post(
        "/v1/parse",
        response_model=ParseResponse,
        responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
    )
    async def parse_(req: ParseRequest) -> Response:
        import toklane

        if req.chunks is not None and len(req.chunks) > limits.max_chunks:
            raise TooManyChunks(len(req.chunks), limits.max_chunks)
        tok = await tokenizer(req.model)
        formats = {
            "reasoning": req.reasoning,
            "tools": req.tools,
            "tools_schema": req.tools_schema,
            "thinking": req.thinking,
            "unknown_tools": req.unknown_tools,
        }
        by_ids = req.token_ids is not None or bool(req.chunks and isinstance(req.chunks[0], list))

        if not req.stream:

            def run() -> Response:
                # Streaming and whole parses agree by construction: parse the joined output.
                if req.chunks is not None:
                    if by_ids:
                        ids = [i for c in req.chunks for i in c]  # type: ignore[union-attr]
                        result = toklane.parse(tok, token_ids=ids, **formats)
                    else:
                        result = toklane.parse(tok, text="".join(req.chunks), **formats)  # type: ignore[arg-type]
                elif req.token_ids is not None:
                    result = toklane.parse(tok, token_ids=req.token_ids, **formats)
                else:
                    result = toklane.parse(tok, text=req.text or "", **formats)
                return json_response(result_json(result))

            return await work(run, req)

        if req.chunks is not None:
            pieces: list[Any] = list(req.chunks)
        else:
            pieces = [req.token_ids if by_ids else (req.text or "")]
        key = "token_ids" if by_ids else "text"
        stream = _SseStream(req.model or served.default, key, pieces)

        def start() -> bytes:
            if by_ids:  # out-of-range ids, then holes of the id space, fail before the stream starts
                _check_ids(pieces, tok, "chunks" if req.chunks is not None else "token_ids")
                tok.decode([i for piece in pieces for i in piece if i != -1])
            stream.parser = toklane.get_parser(tok, **formats, stream_arguments=req.stream_arguments)
            return stream.next_slice()

        # The parser is built and the first slice produced before the response starts,
        # so a bad request still gets its 4xx; the rest is produced a slice at a time.
        first = await anyio.to_thread.run_sync(start, limiter=limiter)

        async def body() -> AsyncIterator[bytes]:
            yield first
            while not stream.done:
                try:
                    data = await anyio.to_thread.run_sync(_large(stream.next_slice), limiter=limiter)
                except Exception as exc:  # never break the stream: report, then end it
                    kind = "invalid_request_error" if isinstance(exc, ValueError) else "internal_error"
                    yield _sse_error(kind, f"{type(exc).__name__}: {exc}")
                    return
                yield data

        return StreamingResponse(body(), media_type="text/event-stream")

    return app


class TooManyChunks(Exception):
    """A parse request with more chunks than the server's ``max_chunks``."""

    def __init__(self, given: int, limit: int):
        super().__init__(
            f"chunks: {given} chunks is more than the limit of {limit} per request "
            "(join adjacent pieces, or start the server with a larger --max-chunks)"
        )


class _FieldTokenIdError(InvalidTokenIdError):
    """An invalid token id, with the request field that holds it."""

    def __init__(self, where: str, token_id: int, tokenizer_name: str, vocab_size: int):
        super().__init__(token_id, tokenizer_name, vocab_size)
        self.args = (f"{where}: {self.args[0]}",)


def _check_ids(pieces: list[Any], tok: Tokenizer, field: str) -> None:
    """Out-of-range ids fail before a stream starts (-1, the async-scheduling placeholder, is allowed).
    Each piece is checked in bulk (its least and greatest id); only a piece that fails is walked."""
    size = tok.vocab_size
    for k, piece in enumerate(pieces):
        if not piece or (min(piece) >= -1 and max(piece) < size):
            continue
        bad = next(t for t in piece if not (0 <= t < size or t == -1))
        raise _FieldTokenIdError(f"{field}.{k}" if field == "chunks" else field, bad, tok.name, size)


class _SseStream:
    """Produces the Server-Sent Events of a streamed parse a slice of pieces at a time.

    Runs in a worker thread (one slice per hop, never two at once). Consecutive text
    deltas of a slice are merged into one event: the stream carries the same text in
    far fewer events (each event repeats a ~150-byte envelope)."""

    def __init__(self, model: str, key: str, pieces: list[Any]):
        self.model = model
        self.key = key
        self.pieces = pieces
        self.pos = 0
        self.done = False
        self.parser: Any = None
        self.has_calls = False
        self.chunk_id = f"parse-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())

    def next_slice(self) -> bytes:
        from ..parsing.types import Delta

        deltas: list[Delta] = []
        chars = 0
        end = min(len(self.pieces), self.pos + SLICE_CHUNKS)
        while self.pos < end and chars < SLICE_CHARS:
            piece = self.pieces[self.pos]
            self.pos += 1
            chars += len(piece)
            _merge(deltas, self.parser.feed(**{self.key: piece}))
        out = []
        if self.pos >= len(self.pieces):
            _merge(deltas, self.parser.finish())
            self.done = True
        for d in deltas:
            self.has_calls = self.has_calls or bool(d.tool_calls)
            out.append(self.event(d.to_openai(), None))
        if self.done:
            out.append(self.event({}, "tool_calls" if self.has_calls else "stop"))
            out.append(b"data: [DONE]\n\n")
        return b"".join(out)

    def event(self, delta: dict[str, Any], finish: str | None) -> bytes:
        body = {
            "id": self.chunk_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\n\n"


def _merge(deltas: list[Any], d: Any) -> None:
    """Append delta ``d``, folding it into the last one when only text is involved and order is kept."""
    if not d:
        return
    if deltas:
        last = deltas[-1]
        if not last.tool_calls and not d.tool_calls and not (last.content and d.reasoning):
            last.reasoning += d.reasoning
            last.content += d.content
            return
    deltas.append(type(d)(reasoning=d.reasoning, content=d.content, tool_calls=list(d.tool_calls)))


def _sse_error(kind: str, message: str) -> bytes:
    body = json.dumps({"error": {"type": kind, "message": safe_text(message)}}, ensure_ascii=False)
    return b"data: " + body.encode() + b"\n\ndata: [DONE]\n\n"


def _large(fn: Callable[[], T]) -> Callable[[], T]:
    """``fn`` run as large work (the collector's full passes wait: see :mod:`.heap`): a streamed
    parse's slices, made after the route's handler (which covers a large request's other work) returned."""

    def run() -> T:
        with large_work():
            return fn()

    return run


def json_response(content: dict[str, Any]) -> Response:
    """A JSON answer rendered here (in the worker thread for a large one: see :func:`.body.render_json`)."""
    return Response(render_json(content), media_type="application/json")


def _version() -> str:
    from ..release import __version__

    return __version__


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (used by ``toklane serve --workers N``).

    Reads ``{"models": [...], <create_app keyword>: value, ...}`` from ``$TOKLANE_SERVE_CONFIG``."""
    config = json.loads(os.environ.get(CONFIG_ENV, "{}"))
    models = config.pop("models", None) or ["qwen3.6"]
    return create_app(models, **config)
