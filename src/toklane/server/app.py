"""The HTTP service: tokenize, detokenize, count and parse with one shared tokenizer per model.

Every endpoint does its CPU work in a worker thread (a bounded pool), so one
long request never stalls the event loop. Bad input never yields a 5xx:
malformed JSON -> 400, schema errors -> 422 naming the field, unknown model ->
404 listing the known names, unknown parser format or out-of-range ids -> 400,
oversized bodies -> 413; every error is ``{"error": {"type", "message"}}``.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, TypeVar

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import counting
from ..errors import InvalidTokenIdError, MissingTokenError, UnknownFormatError, UnknownTokenizerError
from ..tokenizer import Tokenizer, load_tokenizer
from ..tokenizer.registry import bundled_table, loaded_tokenizer, resolve_name
from ..wire import result_json
from .limits import BodyLimitMiddleware, RequestTooLarge
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
)

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
# Requests whose input is at most this many characters/ids run on the event loop:
# their work takes tens of microseconds, less than a hand-off to a worker thread.
INLINE_LIMIT = 2048
CONFIG_ENV = "TOKLANE_SERVE_CONFIG"
T = TypeVar("T")


class ModelNotFound(Exception):
    def __init__(self, model: str, known: Iterable[str]):
        self.model = model
        self.known = sorted(known)
        super().__init__(f"model {model!r} not found; known models: {', '.join(self.known)}")


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


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": {"type": kind, "message": message}})


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        detail = next(e for e in errors if e.get("type") == "json_invalid")
        return 400, f"malformed JSON body: {detail.get('ctx', {}).get('error', detail.get('msg'))}"
    parts = []
    for e in errors[:5]:
        loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
        parts.append(f"{loc}: {e.get('msg')}")
    return 422, "; ".join(parts)


def create_app(
    models: Sequence[str] = ("qwen3.6",),
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    threads: int | None = None,
) -> FastAPI:
    """Build the service. ``models`` are preloaded (names, aliases or paths); the first
    is the default for requests without ``model``. ``threads`` bounds the worker pool."""
    served = ServedModels(list(models))
    limiter = anyio.CapacityLimiter(threads or max(4, (os.cpu_count() or 2) * 2))

    app = FastAPI(
        title="toklane",
        summary="Tokenize, count and parse LLM output with one shared tokenizer per model.",
        version=_version(),
        responses={400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}, 413: {"model": ErrorResponse}},
    )
    app.state.served = served
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_body_bytes)

    async def work(fn: Callable[[], T], size: int) -> T:
        """Run ``fn`` inline when the input is small, else in the bounded worker pool."""
        if size <= INLINE_LIMIT:
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
        kinds = {404: "not_found", 405: "method_not_allowed"}
        return _error(exc.status_code, kinds.get(exc.status_code, "http_error"), str(exc.detail))

    @app.exception_handler(RequestTooLarge)
    async def _on_too_large(_: Request, exc: RequestTooLarge) -> JSONResponse:
        return _error(413, "payload_too_large", str(exc))

    @app.exception_handler(ModelNotFound)
    async def _on_model(_: Request, exc: ModelNotFound) -> JSONResponse:
        return _error(404, "model_not_found", str(exc))

    @app.exception_handler(UnknownTokenizerError)
    async def _on_unknown(_: Request, exc: UnknownTokenizerError) -> JSONResponse:
        return _error(404, "model_not_found", str(exc))

    async def _bad_request(_: Request, exc: Exception) -> JSONResponse:
        return _error(400, "invalid_request_error", str(exc))

    for exc_type in (UnknownFormatError, InvalidTokenIdError, MissingTokenError, ValueError, TypeError):
        app.add_exception_handler(exc_type, _bad_request)

    @app.exception_handler(Exception)
    async def _on_bug(_: Request, exc: Exception) -> JSONResponse:
        return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ routes
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
    async def tokenize(req: TokenizeRequest) -> TokenizeResponse:
        tok = await tokenizer(req.model)

        def run() -> list[int]:
            if req.messages is not None:
                gen = req.add_generation_prompt
                return counting.encode_chat(req.messages, tok, add_generation_prompt=gen)
            return tok.encode(req.text or "", add_special_tokens=req.add_special_tokens)

        tokens = await work(run, _size(req.text, req.messages))
        return TokenizeResponse(tokens=tokens, count=len(tokens))

    @app.post("/v1/detokenize", response_model=DetokenizeResponse)
    async def detokenize(req: DetokenizeRequest) -> DetokenizeResponse:
        tok = await tokenizer(req.model)

        def run() -> str:
            return tok.decode(req.tokens, skip_special_tokens=req.skip_special_tokens)

        return DetokenizeResponse(text=await work(run, len(req.tokens)))

    @app.post("/v1/count", response_model=CountResponse, response_model_exclude_none=True)
    async def count(req: CountRequest) -> CountResponse:
        tok = await tokenizer(req.model)

        def run() -> CountResponse:
            if req.texts is not None:
                return CountResponse(counts=[len(ids) for ids in tok.encode_batch(req.texts)])
            if req.messages is not None:
                gen = req.add_generation_prompt
                return CountResponse(count=counting.count_tokens(req.messages, tok, add_generation_prompt=gen))
            return CountResponse(count=tok.count(req.text or ""))

        return await work(run, _size(req.text, req.messages, req.texts))

    @app.post("/v1/parse", response_model=ParseResponse)
    async def parse_(req: ParseRequest) -> Any:
        import toklane

        tok = await tokenizer(req.model)
        formats = {
            "reasoning": req.reasoning,
            "tools": req.tools,
            "tools_schema": req.tools_schema,
            "thinking": req.thinking,
            "unknown_tools": req.unknown_tools,
        }
        size = _size(req.text, req.token_ids, req.chunks)

        def pieces() -> list[dict[str, Any]]:
            if req.chunks is not None:
                key = "token_ids" if req.chunks and isinstance(req.chunks[0], list) else "text"
                return [{key: c} for c in req.chunks]
            return [{"token_ids": req.token_ids}] if req.token_ids is not None else [{"text": req.text}]

        if not req.stream:

            def run() -> dict[str, Any]:
                # Streaming and whole parses agree by construction: parse the joined output.
                parts = pieces()
                if "token_ids" in parts[0]:
                    ids = [i for p in parts for i in p["token_ids"]]
                    return result_json(toklane.parse(tok, token_ids=ids, **formats))
                text = "".join(p["text"] for p in parts)
                return result_json(toklane.parse(tok, text=text, **formats))

            return await work(run, size)

        def run_stream() -> list[dict[str, Any]]:
            parser = toklane.get_parser(tok, **formats, stream_arguments=req.stream_arguments)
            out = [parser.feed(**p).to_openai() for p in pieces()]
            out.append(parser.finish().to_openai())
            return out

        deltas = await work(run_stream, size)
        return StreamingResponse(_sse(deltas, req.model or served.default), media_type="text/event-stream")

    return app


def _size(*inputs: Any) -> int:
    """Rough work size of a request: characters of text, number of ids, summed over parts."""
    total = 0
    for item in inputs:
        if item is None:
            continue
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += len(str(item.get("content") or "")) + 64
        else:  # lists: of ids, texts, messages or chunks
            total += sum(_size(x) if not isinstance(x, int) else 1 for x in item)
    return total


async def _sse(deltas: list[dict[str, Any]], model: str) -> AsyncIterator[bytes]:
    chunk_id = f"parse-{uuid.uuid4().hex[:24]}"
    created = int(time.time())
    has_calls = any("tool_calls" in d for d in deltas)

    def event(delta: dict[str, Any], finish: str | None) -> bytes:
        body = {
            "id": chunk_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\n\n"

    for delta in deltas:
        if delta:
            yield event(delta, None)
    yield event({}, "tool_calls" if has_calls else "stop")
    yield b"data: [DONE]\n\n"


def _version() -> str:
    from .. import __version__

    return __version__


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (used by ``toklane serve --workers N``)."""
    config = json.loads(os.environ.get(CONFIG_ENV, "{}"))
    return create_app(
        config.get("models") or ["qwen3.6"],
        max_body_bytes=int(config.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES)),
        threads=config.get("threads"),
    )
