"""vLLM's tokenizer endpoints beside toklane's own: ``POST /tokenize``, ``POST /detokenize``
and ``GET /v1/models/{id}``, with vLLM 0.33's field names, defaults and answers
(``vllm/entrypoints/serve/tokenize/protocol.py``), so a client written for a vLLM server
works against ``toklane serve`` unchanged.

Where vLLM and toklane differ, this module follows vLLM: ``add_special_tokens`` defaults
to true for a ``prompt`` and false for ``messages``; ``add_generation_prompt`` defaults
to true. Messages are rendered exactly as ``/v1/tokenize`` renders them: by the model's own chat
template (or the request's ``chat_template``, with its ``chat_template_kwargs``), else by the
bundled tokenizer's family format. ``max_model_len`` is null: a bundled tokenizer serves
many models with different context lengths, so toklane does not know it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import FastAPI
from pydantic import AfterValidator, BaseModel, Field, model_validator
from starlette.responses import Response

from .body import render_json
from .schemas import (
    FAIL_FAST,
    JsonObject,
    JsonObjects,
    Messages,
    ModelCard,
    Text,
    _bulk,
    _count_tools_ok,
    _exactly_one,
    _Request,
    messages_payload,
)

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer

T = TypeVar("T")

# vLLM fields toklane cannot honour: accepted when empty (clients send them as null / {}), else a 422 naming the fix.
_UNSUPPORTED = {
    "media_io_kwargs": "media inputs are not supported (text only): omit media_io_kwargs",
    "mm_processor_kwargs": "multimodal processor arguments are not supported (text only): omit mm_processor_kwargs",
}


class VllmTokenizeRequest(_Request):
    """vLLM's ``TokenizeCompletionRequest`` (``prompt``) or ``TokenizeChatRequest`` (``messages``)."""

    prompt: Text | None = Field(None, description="Text to encode (vLLM's completion form).")
    messages: Messages | None = Field(
        None, description="A conversation, rendered in the model's chat format, then encoded (vLLM's chat form)."
    )
    add_special_tokens: bool | None = Field(
        None,
        description="Add the tokenizer's special tokens (e.g. BOS). Default as vLLM: true for `prompt`, false for "
        "`messages` (the chat format places its own).",
    )
    add_generation_prompt: bool | None = Field(
        None,
        description="`messages` only: end with the assistant turn's opening. Default true (as vLLM), false when "
        "`continue_final_message` is set.",
    )
    continue_final_message: bool = Field(
        False,
        description="`messages` only: leave the final message open (no end-of-turn) so the model continues it. "
        "Cannot be combined with `add_generation_prompt: true`.",
    )
    return_token_strs: bool | None = Field(False, description="Also return each token's vocabulary string.")
    chat_template: Text | None = Field(
        None,
        description="`messages` only: a Jinja chat template (its text, or the name of one of the model's named "
        "templates) rendered instead of the model's own (as vLLM; docs/chat-formats.md for the limits).",
    )
    chat_template_kwargs: JsonObject | None = Field(
        None,
        description='`messages` only: variables of the chat template, e.g. `{"enable_thinking": false}`.',
    )
    media_io_kwargs: JsonObject | None = Field(None, description="Not supported (null or {} only).")
    mm_processor_kwargs: JsonObject | None = Field(None, description="Not supported (null or {} only).")
    tools: Annotated[JsonObjects, AfterValidator(_count_tools_ok)] | None = Field(
        None,
        description="`messages` only: OpenAI tool definitions, rendered where the model's chat template puts them "
        "(as `/v1/count`).",
    )

    @model_validator(mode="after")
    def _check(self) -> VllmTokenizeRequest:
        _exactly_one(self, ("prompt", "messages"))
        for name, why in _UNSUPPORTED.items():
            if getattr(self, name):
                raise ValueError(f"{name}: {why}")
        if self.prompt is not None:
            for name in (
                "add_generation_prompt",
                "continue_final_message",
                "tools",
                "chat_template",
                "chat_template_kwargs",
            ):
                if getattr(self, name):
                    raise ValueError(f"{name}: applies to messages only (this request has a prompt)")
        if self.continue_final_message and self.add_generation_prompt:
            raise ValueError(
                "continue_final_message: cannot be combined with add_generation_prompt: true "
                "(set add_generation_prompt to false)"
            )
        if self.continue_final_message and not self.messages:
            raise ValueError("continue_final_message: needs at least one message to continue")
        return self


class VllmTokenizeResponse(BaseModel):
    count: int
    max_model_len: int | None = Field(
        None, description="The model's context length; null: a bundled tokenizer serves many models."
    )
    tokens: list[int]
    token_strs: list[str] | None = Field(None, description="With `return_token_strs`: each token's vocabulary string.")


class VllmDetokenizeRequest(_Request):
    tokens: Annotated[list[Annotated[int, Field(ge=0)]], FAIL_FAST, _bulk(int, "integers >= 0", minimum=0)] = Field(
        description="Token ids to decode."
    )


class VllmDetokenizeResponse(BaseModel):
    prompt: str


def encode_vllm(req: VllmTokenizeRequest, tok: Tokenizer) -> list[int]:
    """The ids vLLM's ``/tokenize`` gives for ``req`` (chat rendering as ``/v1/tokenize``'s)."""
    if req.messages is None:
        special = True if req.add_special_tokens is None else req.add_special_tokens
        return tok.encode(req.prompt or "", add_special_tokens=special)
    from ..chat.render import render  # (the chat package loads with the first conversation)

    gen = not req.continue_final_message if req.add_generation_prompt is None else req.add_generation_prompt
    rendered = render(
        tok,
        messages_payload(req.messages),
        tools=req.tools or None,
        add_generation_prompt=gen,
        continue_final_message=req.continue_final_message,
        chat_template=req.chat_template,
        chat_template_kwargs=req.chat_template_kwargs,
    )
    fmt = rendered.renderer.format
    missing = [m for m in fmt.markers if m not in tok.special_tokens] if fmt is not None else []
    if missing:
        raise ValueError(
            f"tokenizer {tok.name!r} has no {fmt.name!r} chat markers ({', '.join(missing)}): "
            "its chat prompts can be counted but not encoded"
        )
    return tok.encode(rendered.text, add_special_tokens=bool(req.add_special_tokens))


def add_vllm_routes(
    app: FastAPI,
    served: Any,
    tokenizer: Callable[[str | None], Awaitable[Tokenizer]],
    work: Callable[[Callable[[], Any], Any], Awaitable[Any]],
) -> None:
    """Mount vLLM's ``/tokenize``, ``/detokenize`` and OpenAI's ``GET /v1/models/{id}`` on ``app``."""

    @app.post("/tokenize", response_model=VllmTokenizeResponse, tags=["vLLM compatible"])
    async def vllm_tokenize(req: VllmTokenizeRequest) -> Response:
        """vLLM's `/tokenize`: `prompt` or `messages` -> `{count, max_model_len, tokens, token_strs}`."""
        tok = await tokenizer(req.model)

        def run() -> Response:
            tokens = encode_vllm(req, tok)
            strs = [tok.id_to_token(i) or "" for i in tokens] if req.return_token_strs else None
            content = {"count": len(tokens), "max_model_len": None, "tokens": tokens, "token_strs": strs}
            return Response(render_json(content), media_type="application/json")

        return await work(run, req)

    @app.post("/detokenize", response_model=VllmDetokenizeResponse, tags=["vLLM compatible"])
    async def vllm_detokenize(req: VllmDetokenizeRequest) -> Response:
        """vLLM's `/detokenize`: `tokens` -> `{prompt}`."""
        tok = await tokenizer(req.model)

        def run() -> Response:
            return Response(render_json({"prompt": tok.decode(req.tokens)}), media_type="application/json")

        return await work(run, req)

    @app.get("/v1/models/{model_id:path}", response_model=ModelCard)
    async def model_card(model_id: str) -> ModelCard:
        """One model (OpenAI's retrieve-model): a bundled name or alias, or a model the server was started with."""
        return served.card(model_id)
