"""Request bodies read, decoded and validated without stalling the event loop.

FastAPI reads a body parameter's JSON and validates it on the event loop, and
``json.loads`` holds the GIL for the whole document: a body of many small
items is a long pause in one C call, during which no other request moves even
when the call runs in a worker thread. :class:`BodyRoute` does it instead:

- a body of at most :data:`INLINE_BODY` bytes is decoded and validated on the
  loop (tens of microseconds, less than a hand-off to a thread);
- a larger one in the app's worker pool; one of 1 MB or more as one of at most
  ``app.state.large_requests`` at a time (a ``CapacityLimiter``) from decoding
  to answering, so that a burst of large bodies waits as bytes, not as the
  million objects each becomes; a document over
  :data:`WHOLE_CHARS` characters is decoded a piece at a time
  (:func:`decode_json`): ``toklane._json.members`` walks each large array or
  object without the GIL and without building anything, and ``json.loads``
  builds one piece of about :data:`PIECE_CHARS` characters per call (a few
  milliseconds), so the GIL changes hands between pieces;
- the route's answer is the ``Response`` its endpoint returns (rendered in the
  worker pool for large results, see :func:`render_json`): FastAPI never
  validates or encodes a large result on the loop; and a large request's
  validated model is let go in the worker pool, where its objects are freed.

Errors keep FastAPI's shapes, so the app's handlers answer them as before:
malformed JSON and bodies that are not UTF-8 are :class:`MalformedBody` (400),
schema errors a ``RequestValidationError`` (422). The route's OpenAPI entry is
FastAPI's own, from the endpoint's signature.
"""

from __future__ import annotations

import contextlib
import email.message
import json
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.background import BackgroundTask, BackgroundTasks
from starlette.requests import Request
from starlette.responses import Response

from ..switches import pure_python
from .heap import LARGE_BODY_BYTES, large_work, release

__all__ = [
    "INLINE_BODY",
    "PIECE_CHARS",
    "BodyRoute",
    "MalformedBody",
    "UnsupportedMediaType",
    "decode_json",
    "render_json",
]

#: Bodies of at most this many bytes are decoded and validated on the event loop.
INLINE_BODY = 16 * 1024
#: Characters of JSON decoded per ``json.loads`` call in a large document (a few milliseconds).
PIECE_CHARS = 64 * 1024
#: Documents of at most this many characters are decoded in one call.
WHOLE_CHARS = 2 * PIECE_CHARS
#: Nesting levels of large containers split into pieces; a larger one deeper down is decoded whole.
SPLIT_DEPTH = 16
_WS = " \t\n\r"

try:
    if pure_python():
        raise ImportError("TOKLANE_PURE_PYTHON is set")
    from .._json import members as _members
except ImportError:  # no compiler at install: whole documents in one json.loads call (same values)
    _members = None


class MalformedBody(ValueError):
    """A body that is not JSON, or not text (answered 400 with this message)."""


class UnsupportedMediaType(MalformedBody):
    """A body sent as a content type that is not JSON and not one a JSON body is commonly sent as by
    mistake (answered 415, naming the header to send)."""


#: Content types a JSON body arrives under by mistake: none, text, and the form encoding that
#: ``curl -d`` sends by default. Their body is read as JSON (vLLM and SGLang refuse them).
LENIENT_TYPES = frozenset(("", "text/plain", "application/x-www-form-urlencoded"))
SEND_JSON = "send the body as JSON with the header content-type: application/json"


def _reject_constant(name: str) -> Any:
    raise MalformedBody(f"malformed JSON body: {name} is not JSON (RFC 8259 has no NaN or Infinity)")


#: One decoder for every call, as ``json.loads`` shares its default one (``json.loads(text, **kw)``
#: builds a decoder per call, and a few of each one's blocks outlive it: a piece at a time, they
#: pinned hundreds of the allocator's 1 MiB arenas after a burst of large bodies).
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _loads(text: str) -> Any:
    """``json.loads`` with its failures as :class:`MalformedBody`."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise MalformedBody(f"malformed JSON body: {exc.msg}") from None
    except RecursionError:
        raise MalformedBody("malformed JSON body: nested too deeply") from None
    except MalformedBody:
        raise
    except ValueError as exc:  # an integer past Python's digit limit
        raise MalformedBody(f"malformed JSON body: {exc}") from None


def _unexpected(text: str, k: int) -> MalformedBody:
    if k >= len(text):
        return MalformedBody("malformed JSON body: the body ends inside a value")
    return MalformedBody(f"malformed JSON body: unexpected {text[k]!r} at character {k}")


def decode_text(body: bytes) -> str:
    """The body as text, decoded as ``json.loads`` decodes bytes (UTF-8, or UTF-16/32 by their BOM or zeros)."""
    try:
        return body.decode(json.detect_encoding(body), "surrogatepass")
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1].hex()
        raise MalformedBody(
            f"the request body is not valid UTF-8 (byte {exc.start} is 0x{bad}); send JSON encoded as UTF-8 "
            "(non-ASCII text may also be written as \\uXXXX escapes)"
        ) from None


def decode_json(body: bytes) -> Any:
    """The JSON value of ``body``: what ``json.loads(body)`` gives, but NaN and Infinity are refused
    and a large document is built a piece of about :data:`PIECE_CHARS` characters at a time.
    Raises :class:`MalformedBody`."""
    text = decode_text(body)
    if len(text) <= WHOLE_CHARS or _members is None:
        return _loads(text)
    start = len(text) - len(text.lstrip(_WS))
    if start == len(text) or text[start] not in "[{":
        return _loads(text)  # a scalar: one string or number, read in one call
    value, end = _container(text, start, 0)
    rest = len(text) - len(text.rstrip(_WS))
    if end != len(text) - rest:
        raise MalformedBody(f"malformed JSON body: extra data after the JSON value at character {end}")
    return value


def _container(text: str, start: int, depth: int) -> tuple[Any, int]:
    """The array or object at ``text[start]`` and the index past it, built a span of members at a time."""
    assert _members is not None
    end, spans = _members(text, start, PIECE_CHARS)
    if end < 0:
        raise _unexpected(text, -1 - end)
    is_object = text[start] == "{"
    open_, close = ("{", "}") if is_object else ("[", "]")
    out: Any = {} if is_object else []
    for k in range(0, len(spans), 3):
        a, value_at, b = spans[k], spans[k + 1], spans[k + 2]
        if value_at < 0 or depth >= SPLIT_DEPTH or text[value_at] not in "[{":
            piece = _loads(open_ + text[a:b] + close)  # a run of members, or one that cannot be split
            if is_object:
                out.update(piece)
            else:
                out.extend(piece)
            continue
        value, _ = _container(text, value_at, depth + 1)
        if is_object:
            key, _ = json.decoder.scanstring(text, a + 1)
            out[key] = value
        else:
            out.append(value)
    return out, end


def render_json(value: Any) -> bytes:
    """``value`` (a dict of a response's fields) as compact JSON, as FastAPI's ``JSONResponse`` renders
    it; long strings and lists of numbers a piece at a time, so no one call holds the GIL for long."""
    if not isinstance(value, dict):
        return _dumps(value)
    parts = []
    for key, item in value.items():
        parts.append(_dumps(key) + b":" + _render_item(item))
    return b"{" + b",".join(parts) + b"}"


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


_ITEMS = 16 * 1024


def _render_item(item: Any) -> bytes:
    if isinstance(item, str) and len(item) > PIECE_CHARS:
        pieces = (_dumps(item[i : i + PIECE_CHARS])[1:-1] for i in range(0, len(item), PIECE_CHARS))
        return b'"' + b"".join(pieces) + b'"'
    if isinstance(item, list) and len(item) > _ITEMS:
        pieces = (_dumps(item[i : i + _ITEMS])[1:-1] for i in range(0, len(item), _ITEMS))
        return b"[" + b",".join(p for p in pieces if p) + b"]"
    return _dumps(item)


def _is_json(content_type: str | None) -> bool:
    """Whether FastAPI would read a body of this content type as JSON (``application/json``, ``*/*+json``)."""
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _lenient_json(body: bytes, content_type: str | None) -> Any:
    """A body sent without a JSON content type: read as JSON where the type is one a JSON body is
    commonly sent as by mistake (:data:`LENIENT_TYPES`), else refused with the header to send."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media not in LENIENT_TYPES:
        raise UnsupportedMediaType(f"a body of content-type {media!r} is not read; {SEND_JSON}")
    try:
        return decode_json(body)
    except MalformedBody as exc:
        shown = f"content-type {media!r}" if media else "no content-type"
        raise MalformedBody(f"{exc} (the body came with {shown}; {SEND_JSON})") from None


def read_model(body: bytes, content_type: str | None, model: type[BaseModel]) -> BaseModel:
    """The request ``model`` a body makes: FastAPI's rules and errors, the JSON read by :func:`decode_json`."""
    if not body:
        raise RequestValidationError([{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}])
    data: Any = decode_json(body) if _is_json(content_type) else _lenient_json(body, content_type)
    try:
        return model.model_validate(data, from_attributes=True)
    except ValidationError as exc:  # without the inputs: one can be the whole body, freed on the loop
        errors = exc.errors(include_url=False)
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"]), "input": None} for e in errors]) from None
    finally:
        if len(body) > INLINE_BODY:  # what the model did not keep, freed a piece at a time
            box = [data]
            del data
            release(box)


def _then(first: BackgroundTask | None, second: BackgroundTask) -> BackgroundTask:
    """``second`` run after the response is sent, after ``first`` if there is one."""
    if first is None:
        return second
    tasks = BackgroundTasks()
    tasks.add_task(first)
    tasks.add_task(second)
    return tasks


class BodyRoute(APIRoute):
    """A route whose one JSON body parameter toklane reads (see the module's notes); the endpoint gets
    the validated model and returns a ``Response``. Routes without a body are FastAPI's own."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        params = self.dependant.body_params
        if self.body_field is None or len(params) != 1 or self.dependant.query_params or self.dependant.path_params:
            return super().get_route_handler()
        name = params[0].name
        model = params[0].field_info.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel), model
        endpoint = self.dependant.call
        assert endpoint is not None

        async def handler(request: Request) -> Response:
            body = await request.body()
            content_type = request.headers.get("content-type")
            if len(body) <= INLINE_BODY:
                return await answer(read_model(body, content_type, model), len(body))
            state = request.app.state
            # From the body's objects to the answer's, no full collection runs; and one of a few bodies
            # of LARGE_BODY_BYTES or more at a time builds them (the others wait with their bytes only).
            slot = state.large_requests if len(body) >= LARGE_BODY_BYTES else contextlib.nullcontext()
            async with slot:
                with large_work():
                    held = [
                        await anyio.to_thread.run_sync(read_model, body, content_type, model, limiter=state.limiter)
                    ]
                    # Its million objects are freed in a worker thread too, a piece at a time, not on the
                    # loop: once the answer is sent, or before an error is answered.
                    try:
                        response = await answer(held[0], len(body))
                    except BaseException:
                        with anyio.CancelScope(shield=True):
                            await anyio.to_thread.run_sync(release, held)
                        raise
                    response.background = _then(
                        response.background, BackgroundTask(anyio.to_thread.run_sync, release, held)
                    )
                    return response

        async def answer(req: BaseModel, size: int) -> Response:
            req._body_bytes = size  # type: ignore[attr-defined]
            response = await endpoint(**{name: req})
            if not isinstance(response, Response):
                raise TypeError(f"{self.path}: an endpoint of a BodyRoute returns a Response")
            return response

        return handler
