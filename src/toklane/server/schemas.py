"""Request and response bodies of the HTTP service (pydantic models -> OpenAPI at /docs).

One rule for text on every endpoint: a string anywhere in a request (a field, a
chunk, a message, a tool schema, a key) that holds a lone surrogate (JSON
``"\\ud800"`` escapes decode to those) is not text; the request is answered 422
naming the field, before any work or response starts.

Validation stops at the first invalid item of a list (pydantic's ``FailFast``):
a body of a million bad items costs one error, not a million. A list of token
ids or strings names its first invalid item and counts the items after it that
are not ids (strings); a valid id list longer than a few hundred items is checked
in bulk, without pydantic's per-item pass.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from itertools import islice, repeat
from operator import is_
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    model_validator,
)
from pydantic.types import FailFast

_SURROGATE = re.compile("[\ud800-\udfff]")
_SEARCH_CHARS = 1 << 20  # characters searched per regex call (a few ms: the GIL moves between)


def _find_surrogate(text: str) -> re.Match[str] | None:
    """The first lone surrogate in ``text`` (none in an ASCII string: known without reading it)."""
    if text.isascii():
        return None
    for start in range(0, len(text), _SEARCH_CHARS):
        m = _SURROGATE.search(text, start, start + _SEARCH_CHARS)
        if m:
            return m
    return None


def surrogate_problem(value: Any, path: str = "") -> str | None:
    """Where ``value`` (any JSON value) holds a lone surrogate, as a message; None if nowhere."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            m = _find_surrogate(item)
            if m:
                at = f"{where}: " if where else ""
                return (
                    f"{at}lone surrogate U+{ord(m.group()):04X} at index {m.start()}; "
                    "strings must be valid Unicode (no unpaired \\ud800-\\udfff escapes)"
                )
        elif isinstance(item, dict):
            for key, sub in item.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"{where or 'body'}: a key holds a lone surrogate; keys must be valid Unicode"
                stack.append((sub, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, f"{where}.{i}" if where else str(i)) for i, sub in enumerate(item))
    return None


def _unicode(value: Any) -> Any:
    problem = surrogate_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _unicode_list(values: list[str]) -> list[str]:
    if _find_surrogate("".join(values)):  # one pass in C; look for the culprit only when there is one
        _unicode(values)
    return values


class _FailFast(FailFast):
    """pydantic's ``FailFast``, hashable (``X | Annotated[list[Y], FailFast()]`` hashes its metadata)."""

    def __hash__(self) -> int:
        return hash((FailFast, self.fail_fast))


#: Validation of a list stops at its first invalid item (one error, not one per item).
FAIL_FAST = _FailFast()
#: Lists longer than this are checked in bulk before pydantic's per-item pass (which they may skip).
BULK_ITEMS = 256
_SLICE = 1 << 16  # items per C-level pass of a bulk check (a millisecond or two: the GIL moves between)


def _all_of_type(values: list[Any], kind: type, minimum: int | None = None) -> bool:
    """Whether every item is exactly ``kind`` (and, for ints, at least ``minimum``), in C-level passes."""
    for k in range(0, len(values), _SLICE):
        part = values[k : k + _SLICE]
        if not all(map(is_, map(type, part), repeat(kind))):
            return False
        if minimum is not None and min(part) < minimum:
            return False
    return True


def _bulk(kind: type, what: str, minimum: int | None = None) -> WrapValidator:
    """A list of ``kind`` items checked in bulk. A list of exact ``kind`` items (in range) longer than
    :data:`BULK_ITEMS` is accepted without pydantic's per-item pass; otherwise pydantic validates it
    (failing fast), and its first error also says how many items after it are not ``what``."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if type(value) is list and len(value) > BULK_ITEMS and _all_of_type(value, kind, minimum):
            return value
        try:
            return handler(value)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            loc = first["loc"]
            if type(value) is not list or not loc or not isinstance(loc[0], int):
                raise
            tail = islice(value, loc[0] + 1, None)
            if minimum is None:
                rest = sum(1 for x in tail if type(x) is not kind)
            else:
                rest = sum(1 for x in tail if type(x) is not kind or x < minimum)
            if not rest:
                raise
            where = ".".join(str(p) for p in loc)
            items, are = ("item", "is") if rest == 1 else ("items", "are")
            more = f"and {rest:,} more {items} after it that {are} not {what}"
            raise ValueError(f"{where}: {first['msg']} ({more})") from None

    return WrapValidator(check)


#: A string field: valid Unicode only (no lone surrogates).
Text = Annotated[str, AfterValidator(_unicode)]
#: A list of strings, checked in bulk and in one pass for surrogates (chunks and batches can hold 65,536).
TextList = Annotated[list[str], FAIL_FAST, _bulk(str, "strings"), AfterValidator(_unicode_list)]
#: A list of token ids, checked in bulk.
IdList = Annotated[list[int], FAIL_FAST, _bulk(int, "integers")]
#: Free-form JSON (tool schemas, message extras): valid Unicode strings inside.
JsonObject = Annotated[dict[str, Any], AfterValidator(_unicode)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: Text | None = Field(None, description="Tokenizer name or alias; the server's default model if omitted.")
    _body_bytes: int = PrivateAttr(0)  # the size of the body it came in (set by the route): the work size

    @model_validator(mode="before")
    @classmethod
    def _keys_are_text(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in data:
                if isinstance(key, str) and _SURROGATE.search(key):
                    raise ValueError("a key holds a lone surrogate; keys must be valid Unicode")
            unknown = [key for key in data if key not in cls.model_fields]
            if unknown:
                named = [unknown_field_message(str(key), list(cls.model_fields)) for key in unknown[:5]]
                if len(unknown) > 5:
                    named.append(f"and {len(unknown) - 5:,} more unknown fields")
                raise ValueError("; ".join(named))
        return data


#: Field names of other APIs (vLLM, OpenAI, ours) and the fields that mean the same, in order of preference.
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "prompt": ("text", "messages"),
    "text": ("prompt", "messages"),
    "input": ("text", "prompt", "texts"),
    "inputs": ("texts", "text", "prompt"),
    "content": ("text", "prompt"),
    "prompts": ("texts",),
    "token_ids": ("tokens",),
    "tokens": ("token_ids", "chunks"),
    "ids": ("tokens", "token_ids"),
    "input_ids": ("tokens", "token_ids"),
    "output": ("text", "token_ids"),
    "tool_call_parser": ("tools",),
    "reasoning_parser": ("reasoning",),
    "tool_parser": ("tools",),
    "model_name": ("model",),
    "skip_special": ("skip_special_tokens",),
}


def unknown_field_message(key: str, fields: list[str]) -> str:
    """``unknown field "prompt"; did you mean "text"?`` (the nearest field by alias, else by spelling)."""
    shown = json.dumps(key if len(key) <= 64 else key[:61] + "...", ensure_ascii=False)
    near = next((f for f in FIELD_ALIASES.get(key, ()) if f in fields), None)
    if near is None:
        close = difflib.get_close_matches(key, fields, n=1, cutoff=0.6)
        near = close[0] if close else None
    if near is not None:
        return f'unknown field {shown}; did you mean "{near}"?'
    return f"unknown field {shown}; the fields are {', '.join(fields)}"


def _exactly_one(obj: BaseModel, fields: tuple[str, ...]) -> None:
    given = [f for f in fields if getattr(obj, f) is not None]
    if len(given) != 1:
        names = " | ".join(fields)
        raise ValueError(f"give exactly one of {names}" + (f" (got {', '.join(given)})" if given else ""))


class FunctionCallIn(BaseModel):
    """``function`` of an assistant message's tool call."""

    model_config = ConfigDict(extra="allow")

    name: Text
    arguments: Text | JsonObject = Field(default_factory=dict, description="JSON text or an object.")


class ToolCallIn(BaseModel):
    """A tool call in an assistant message (OpenAI shape)."""

    model_config = ConfigDict(extra="allow")

    id: Text | None = None
    type: Text | None = None
    function: FunctionCallIn


class ContentPart(BaseModel):
    """A part of a message's content; only text parts can be rendered."""

    model_config = ConfigDict(extra="allow")

    type: Text
    text: Text | None = None


class ChatMessage(BaseModel):
    """An OpenAI chat message; other keys are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    role: Text = Field(description="system | developer | user | assistant | tool")
    content: Text | Annotated[list[Text | ContentPart], FAIL_FAST] | None = None
    name: Text | None = None
    tool_calls: Annotated[list[ToolCallIn], FAIL_FAST] | None = None
    tool_call_id: Text | None = None

    @model_validator(mode="after")
    def _extras_are_text(self) -> ChatMessage:
        problem = surrogate_problem(self.model_extra or {})
        if problem:
            raise ValueError(problem)
        return self


def messages_payload(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Messages as the plain dicts the library takes (fields the client did not send left out)."""
    return [m.model_dump(exclude_unset=True) for m in messages]


def _tools_schema_ok(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The library's own check (:func:`toklane.parsing.schema.validate_tools_schema`): one rule for both."""
    from ..errors import InvalidToolsSchemaError
    from ..parsing.schema import validate_tools_schema

    try:
        validate_tools_schema(tools)
    except InvalidToolsSchemaError as exc:
        raise ValueError(str(exc)) from None
    return tools


#: A list of chat messages (the first invalid one is the error).
Messages = Annotated[list[ChatMessage], FAIL_FAST]
#: A list of JSON objects (the first invalid one is the error).
JsonObjects = Annotated[list[JsonObject], FAIL_FAST]
#: An OpenAI ``tools`` list, validated at the edge (shape of every JSON-schema keyword parsers read).
ToolsSchema = Annotated[JsonObjects, AfterValidator(_tools_schema_ok)]
_TOOL_EXAMPLE = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _count_tools_ok(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The library's own check of tool definitions (:func:`toklane.chat.tools.validate_tools`)."""
    from ..chat.tools import validate_tools
    from ..errors import InvalidArgumentError

    try:
        validate_tools(tools)
    except InvalidArgumentError as exc:
        raise ValueError(str(exc)) from None
    return tools


#: A request's own chat template (its text, or the name of one of the model's named templates).
ChatTemplateText = Annotated[
    Text,
    Field(
        description="`messages` only: a Jinja chat template (its text, or the name of one of the model's named "
        "templates) rendered instead of the model's own, as transformers renders it (docs/chat-formats.md: "
        "sandboxed, bounded in size and time).",
    ),
]
#: Variables of the chat template (``{"enable_thinking": false}``).
ChatTemplateKwargs = Annotated[
    JsonObject,
    Field(description='`messages` only: variables of the chat template, e.g. `{"enable_thinking": false}`.'),
]


def _chat_only(obj: BaseModel) -> None:
    if getattr(obj, "messages", None) is None:
        for name in ("chat_template", "chat_template_kwargs", "tools"):
            if getattr(obj, name, None):
                raise ValueError(f"{name} applies to messages only: give messages with it")


class TokenizeRequest(_Request):
    text: Text | None = None
    messages: Messages | None = Field(
        None, description="Rendered by the model's chat template (or its family format), then encoded."
    )
    add_special_tokens: bool = False
    add_generation_prompt: bool = False
    tools: Annotated[JsonObjects, AfterValidator(_count_tools_ok)] | None = Field(
        None, description="OpenAI tool definitions, rendered with `messages` where the model's template puts them."
    )
    chat_template: ChatTemplateText | None = None
    chat_template_kwargs: ChatTemplateKwargs | None = None

    @model_validator(mode="after")
    def _one_input(self) -> TokenizeRequest:
        _exactly_one(self, ("text", "messages"))
        _chat_only(self)
        return self


class TokenizeResponse(BaseModel):
    tokens: list[int]
    count: int


class DetokenizeRequest(_Request):
    tokens: IdList
    skip_special_tokens: bool = False


class DetokenizeResponse(BaseModel):
    text: str


class CountRequest(_Request):
    text: Text | None = None
    texts: TextList | None = Field(None, description="A batch: the response has `counts`.")
    messages: Messages | None = None
    add_generation_prompt: bool = False
    tools: Annotated[JsonObjects, AfterValidator(_count_tools_ok)] | None = Field(
        None,
        description="OpenAI tool definitions, rendered with `messages` where the model's chat template puts them "
        "and counted (a bundled tokenizer's family format without a tool layout answers 400).",
        examples=[[_TOOL_EXAMPLE]],
    )
    chat_template: ChatTemplateText | None = None
    chat_template_kwargs: ChatTemplateKwargs | None = None

    @model_validator(mode="after")
    def _one_input(self) -> CountRequest:
        _exactly_one(self, ("text", "texts", "messages"))
        if self.tools and self.messages is None:
            raise ValueError("tools are rendered into a conversation: give messages with them")
        _chat_only(self)
        return self


class CountResponse(BaseModel):
    count: int | None = None
    counts: list[int] | None = None


_TEXT_CHUNKS, _ID_CHUNKS = "list[str]", "list[list[int]]"  # type-like tags: error locations leave them out


def _chunks_kind(value: Any) -> str:
    return _ID_CHUNKS if isinstance(value, list) and value and isinstance(value[0], list) else _TEXT_CHUNKS


#: Text pieces or id lists, told apart by the first piece (only that branch is validated and reported).
Chunks = Annotated[
    Annotated[TextList, Tag(_TEXT_CHUNKS)] | Annotated[Annotated[list[IdList], FAIL_FAST], Tag(_ID_CHUNKS)],
    Discriminator(_chunks_kind),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "array", "items": {"type": "string"}},
                {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
            ]
        }
    ),
]


class ParseRequest(_Request):
    text: Text | None = None
    token_ids: IdList | None = None
    chunks: Chunks | None = Field(
        None,
        description="The output in pieces (text pieces or id lists), fed to one streaming parser in order; at most "
        "the server's `--max-chunks` (65,536 by default) pieces, else 413. An empty list is an empty output.",
    )
    reasoning: Text | None = Field(None, description="Reasoning format; see GET /v1/formats.")
    tools: Text | None = Field(None, description="Tool-call format; see GET /v1/formats.")
    tools_schema: ToolsSchema | None = Field(
        None,
        description="OpenAI `tools` list (argument types): `{type: function, function: {name, parameters}}` "
        "entries (a bare `{name, parameters}` is accepted too).",
        examples=[[_TOOL_EXAMPLE]],
    )
    unknown_tools: Literal["keep", "drop", "content"] = Field(
        "keep",
        description="A call of a tool `tools_schema` does not list: kept (as vLLM), dropped (as SGLang), or its text "
        "is content.",
    )
    thinking: bool | None = Field(
        None,
        description="Whether the output starts inside reasoning (default: the format's; false if the prompt closed "
        "it).",
    )
    stream: bool = Field(False, description="Answer with Server-Sent Events of deltas (OpenAI chunk shape).")
    stream_arguments: bool = Field(
        False,
        description="Stream tool-call argument fragments as they arrive (as vLLM does) instead of whole calls once "
        "complete; a call that later breaks cannot be taken back from the stream.",
    )

    @model_validator(mode="after")
    def _one_input(self) -> ParseRequest:
        _exactly_one(self, ("text", "token_ids", "chunks"))
        return self


class FunctionCall(BaseModel):
    name: str
    arguments: str


class ToolCallOut(BaseModel):
    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class ParseResponse(BaseModel):
    reasoning: str | None
    content: str | None
    tool_calls: list[ToolCallOut]


#: ``created`` of every model card (OpenAI's model object has one): when this process loaded the service.
STARTED = int(time.time())


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = STARTED
    owned_by: str = "toklane"
    aliases: list[str]
    loaded: bool
    vocab_size: int | None = None


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class ErrorBody(BaseModel):
    type: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody
