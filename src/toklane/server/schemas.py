"""Request and response bodies of the HTTP service (pydantic models -> OpenAPI at /docs)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Message = dict[str, Any]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="Tokenizer name or alias; the server's default model if omitted.")


def _exactly_one(obj: BaseModel, fields: tuple[str, ...]) -> None:
    given = [f for f in fields if getattr(obj, f) is not None]
    if len(given) != 1:
        names = " | ".join(fields)
        raise ValueError(f"give exactly one of {names}" + (f" (got {', '.join(given)})" if given else ""))


class TokenizeRequest(_Request):
    text: str | None = None
    messages: list[Message] | None = Field(None, description="Rendered in the model's chat format, then encoded.")
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


class CountRequest(_Request):
    text: str | None = None
    texts: list[str] | None = Field(None, description="A batch: the response has `counts`.")
    messages: list[Message] | None = None
    add_generation_prompt: bool = False

    @model_validator(mode="after")
    def _one_input(self) -> CountRequest:
        _exactly_one(self, ("text", "texts", "messages"))
        return self


class CountResponse(BaseModel):
    count: int | None = None
    counts: list[int] | None = None


class ParseRequest(_Request):
    text: str | None = None
    token_ids: list[int] | None = None
    chunks: list[str] | list[list[int]] | None = Field(
        None, description="The output in pieces (text pieces or id lists), fed to one streaming parser in order."
    )
    reasoning: str | None = Field(None, description="Reasoning format; see GET /v1/formats.")
    tools: str | None = Field(None, description="Tool-call format; see GET /v1/formats.")
    tools_schema: list[dict[str, Any]] | None = Field(None, description="OpenAI `tools` list (argument types).")
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


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
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
