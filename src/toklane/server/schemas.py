"""Request and response bodies of the HTTP service (pydantic models -> OpenAPI at /docs).

One rule for text on every endpoint: a string anywhere in a request (a field, a
chunk, a message, a tool schema, a key) that holds a lone surrogate (JSON
``"\\ud800"`` escapes decode to those) is not text; the request is answered 422
naming the field, before any work or response starts.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_problem(value: Any, path: str = "") -> str | None:
    """Where ``value`` (any JSON value) holds a lone surrogate, as a message; None if nowhere."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            m = _SURROGATE.search(item)
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
    if _SURROGATE.search("".join(values)):  # one pass in C; look for the culprit only when there is one
        _unicode(values)
    return values


#: A string field: valid Unicode only (no lone surrogates).
Text = Annotated[str, AfterValidator(_unicode)]
#: A list of strings, checked in one pass (chunks and batches can hold 65,536 of them).
TextList = Annotated[list[str], AfterValidator(_unicode_list)]
#: Free-form JSON (tool schemas, message extras): valid Unicode strings inside.
JsonObject = Annotated[dict[str, Any], AfterValidator(_unicode)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: Text | None = Field(None, description="Tokenizer name or alias; the server's default model if omitted.")

    @model_validator(mode="before")
    @classmethod
    def _keys_are_text(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in data:
                if isinstance(key, str) and _SURROGATE.search(key):
                    raise ValueError("a key holds a lone surrogate; keys must be valid Unicode")
            unknown = [key for key in data if key not in cls.model_fields]
            if unknown:
                raise ValueError("; ".join(unknown_field_message(str(key), list(cls.model_fields)) for key in unknown))
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
    content: Text | list[Text | ContentPart] | None = None
    name: Text | None = None
    tool_calls: list[ToolCallIn] | None = None
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


#: An OpenAI ``tools`` list, validated at the edge (shape of every JSON-schema keyword parsers read).
ToolsSchema = Annotated[list[JsonObject], AfterValidator(_tools_schema_ok)]
_TOOL_EXAMPLE = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


class TokenizeRequest(_Request):
    text: Text | None = None
    messages: list[ChatMessage] | None = Field(None, description="Rendered in the model's chat format, then encoded.")
    add_special_tokens: bool = False
    add_generation_prompt: bool = False

    @model_validator(mode="after")
    def _one_input(self) -> TokenizeRequest:
        _exactly_one(self, ("text", "messages"))
        return self


class TokenizeResponse(BaseModel):
    tokens: list[int]
    count: int


class DetokenizeRequest(_Request):
    tokens: list[int]
    skip_special_tokens: bool = False


class DetokenizeResponse(BaseModel):
    text: str


def _count_tools_ok(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The library's own check of tool definitions (:func:`toklane.tokenizer.tool_prompts.validate_tools`)."""
    from ..errors import InvalidArgumentError
    from ..tokenizer.tool_prompts import validate_tools

    try:
        validate_tools(tools)
    except InvalidArgumentError as exc:
        raise ValueError(str(exc)) from None
    return tools


class CountRequest(_Request):
    text: Text | None = None
    texts: TextList | None = Field(None, description="A batch: the response has `counts`.")
    messages: list[ChatMessage] | None = None
    add_generation_prompt: bool = False
    tools: Annotated[list[JsonObject], AfterValidator(_count_tools_ok)] | None = Field(
        None,
        description="OpenAI tool definitions, rendered with `messages` where the model family's chat template "
        "puts them (Qwen, Llama 3.1, gpt-oss; other families answer 400) and counted.",
        examples=[[_TOOL_EXAMPLE]],
    )

    @model_validator(mode="after")
    def _one_input(self) -> CountRequest:
        _exactly_one(self, ("text", "texts", "messages"))
        if self.tools and self.messages is None:
            raise ValueError("tools are rendered into a conversation: give messages with them")
        return self


class CountResponse(BaseModel):
    count: int | None = None
    counts: list[int] | None = None


class ParseRequest(_Request):
    text: Text | None = None
    token_ids: list[int] | None = None
    chunks: TextList | list[list[int]] | None = Field(
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
