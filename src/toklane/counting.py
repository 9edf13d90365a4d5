"""Token counting for texts and conversations, and conversation truncation.

A conversation is rendered by the model's own chat template (a user folder's or a transformers
tokenizer's, or one passed as ``chat_template=``), exactly as transformers' ``apply_chat_template``
renders it, or by the family format of a bundled tokenizer (``docs/chat-formats.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import InvalidArgumentError, InvalidMessagesError
from .tokenizer import Tokenizer, load_tokenizer

if TYPE_CHECKING:  # (the chat package, a noticeable part of `import toklane`, is imported on first use)
    from .chat.formats import ChatFormat
    from .chat.messages import Message
    from .chat.render import Rendered, Renderer

DEFAULT_MODEL = "qwen3.6"


def _live(model: Any) -> Any:
    """The transformers tokenizer ``model`` is, if it is one (its current template is read)."""
    if isinstance(model, (str, Tokenizer, os.PathLike)) or not hasattr(model, "chat_template"):
        return None
    return model


def render_chat(
    messages: Sequence[Message],
    model: Any = DEFAULT_MODEL,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = False,
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    continue_final_message: bool | str = False,
    documents: Sequence[Mapping[str, Any]] | None = None,
    chat_format: str | None = None,
) -> str:
    """The prompt text a conversation renders to: by the model's own chat template, exactly as
    transformers' ``apply_chat_template(..., tokenize=False)``, or by a bundled tokenizer's family
    format.

    ``chat_template`` is a template's text (or the name of one of the tokenizer's named templates)
    used instead; ``chat_template_kwargs`` are the template's variables (``{"enable_thinking":
    False}``); ``tools`` (OpenAI tool definitions) and ``documents`` are passed to the template,
    which renders them where the model's format puts them; ``continue_final_message`` leaves the
    final message open. ``chat_format`` picks a family format by name.
    """
    args = (tools, add_generation_prompt, chat_template, chat_template_kwargs, continue_final_message)
    return _rendered(messages, model, *args, documents, chat_format)[1].text


def _rendered(
    messages: Sequence[Message],
    model: Any,
    tools: Sequence[Mapping[str, Any]] | None,
    add_generation_prompt: bool,
    chat_template: str | None,
    chat_template_kwargs: Mapping[str, Any] | None,
    continue_final_message: bool | str,
    documents: Sequence[Mapping[str, Any]] | None,
    chat_format: str | None,
) -> tuple[Tokenizer, Rendered]:
    """The tokenizer ``model`` names and the conversation rendered for it (render_chat's arguments)."""
    from .chat.render import render

    tok = load_tokenizer(model)
    rendered = render(
        tok,
        messages,
        tools=tools,
        documents=documents,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_final_message,
        chat_template=chat_template,
        chat_template_kwargs=chat_template_kwargs,
        chat_format=chat_format,
        live=_live(model),
    )
    return tok, rendered


def _missing_markers(tok: Tokenizer, fmt: ChatFormat) -> list[str]:
    return [m for m in fmt.markers if m not in tok.special_tokens]


def encode_chat(
    messages: Sequence[Message],
    model: Any = DEFAULT_MODEL,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = False,
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    continue_final_message: bool | str = False,
    documents: Sequence[Mapping[str, Any]] | None = None,
    chat_format: str | None = None,
) -> list[int]:
    """Token ids of the rendered conversation (:func:`render_chat`, special-token strings parsed):
    transformers' ``apply_chat_template(...)`` ids.

    Raises ``ValueError`` for tokenizers whose vocabulary lacks the family format's markers
    (cl100k_base / o200k_base): their chat prompts have no token ids, only a count (see
    :func:`count_tokens`).
    """
    args = (tools, add_generation_prompt, chat_template, chat_template_kwargs, continue_final_message)
    tok, rendered = _rendered(messages, model, *args, documents, chat_format)
    fmt = rendered.renderer.format
    if fmt is not None:
        missing = _missing_markers(tok, fmt)
        if missing:
            raise ValueError(
                f"tokenizer {tok.name!r} has no {fmt.name!r} chat markers ({', '.join(missing)}): "
                "its chat prompts can be counted but not encoded"
            )
    return tok.encode(rendered.text)


def _count(tok: Tokenizer, renderer: Renderer, messages: list[Message], options: dict[str, Any]) -> int:
    from .chat.render import render

    rendered = render(tok, messages, renderer=renderer, **options)
    fmt = renderer.format
    if fmt is None or rendered.segments is None or not _missing_markers(tok, fmt):
        return tok.count(rendered.text)
    # The vocabulary has no chat markers (OpenAI API encodings): one token each.
    return sum(1 if marker else tok.count(text) for text, marker in rendered.segments)


def count_tokens(
    text_or_messages: str | Sequence[Message],
    model: Any = DEFAULT_MODEL,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = False,
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    continue_final_message: bool | str = False,
    documents: Sequence[Mapping[str, Any]] | None = None,
    chat_format: str | None = None,
) -> int:
    """Tokens in a text, or in a conversation rendered as :func:`render_chat` renders it.

    For a conversation the count equals ``len(encode_chat(...))``, except for tokenizers whose
    vocabulary lacks the family format's markers (cl100k_base / o200k_base), where each marker
    counts as one token.

    ``tools`` (OpenAI tool definitions, ``{"type": "function", "function": {...}}``, or bare
    function objects for the family formats) are rendered into the prompt where the model's
    template puts them; family formats with no known tool layout raise
    :class:`~toklane.errors.InvalidArgumentError` naming the format.
    """
    tok = load_tokenizer(model)
    if isinstance(text_or_messages, str):
        for name, value in (("tools", tools), ("documents", documents)):
            if value:
                raise InvalidArgumentError(name, "are rendered into a conversation: pass messages, not a text")
        return tok.count(text_or_messages)
    from .chat.render import renderer_for

    renderer = renderer_for(tok, chat_template=chat_template, chat_format=chat_format, tools=tools, live=_live(model))
    options = {
        "tools": tools,
        "documents": documents,
        "add_generation_prompt": add_generation_prompt,
        "continue_final_message": continue_final_message,
        "chat_template_kwargs": chat_template_kwargs,
    }
    return _count(tok, renderer, list(text_or_messages) if _listable(text_or_messages) else text_or_messages, options)


def _listable(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, Mapping))


def truncate_messages(
    messages: Sequence[Message],
    max_tokens: int,
    model: Any = DEFAULT_MODEL,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = False,
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    documents: Sequence[Mapping[str, Any]] | None = None,
    chat_format: str | None = None,
) -> list[Message]:
    """The longest tail of the conversation that fits in ``max_tokens``, with the
    leading system/developer messages kept.

    Whole messages are dropped, oldest first; the kept tail never starts with a
    ``tool`` result whose call was dropped. Raises ``ValueError`` when the
    system messages alone do not fit. ``tools``, ``documents`` and the template are
    rendered (and counted) with every candidate, as in :func:`count_tokens`.
    """
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
        raise ValueError(f"max_tokens must be a non-negative int, got {max_tokens!r}")
    from .chat.render import renderer_for
    from .chat.tools import validate_tools

    tok = load_tokenizer(model)
    renderer = renderer_for(tok, chat_template=chat_template, chat_format=chat_format, tools=tools, live=_live(model))
    fmt = renderer.format
    if fmt is not None:
        from .chat.messages import validate_messages

        msgs = validate_messages(messages)
        tools = validate_tools(tools)  # once: every candidate renders them again
    else:
        from .chat.messages import template_messages

        template_messages(messages)  # (checks the shape)
        msgs = list(messages)
    options = {
        "tools": tools,
        "documents": documents,
        "add_generation_prompt": add_generation_prompt,
        "chat_template_kwargs": chat_template_kwargs,
    }
    head = 0
    while head < len(msgs) and msgs[head]["role"] in ("system", "developer"):
        head += 1
    system, rest = msgs[:head], msgs[head:]

    def count(start: int) -> int:
        return _count(tok, renderer, system + rest[start:], options)

    # Valid starts: not a tool result (its call would be gone). Dropping more
    # messages never adds tokens, so binary-search the first start that fits.
    starts = [i for i, m in enumerate(rest) if m["role"] != "tool"] + [len(rest)]
    what = "the system messages"
    if fmt is not None and fmt.name == "llama3" and tools:
        # Llama 3.1 puts tool definitions into the first message after the system message:
        # the tail starts at a user message.
        starts = [i for i in starts[:-1] if rest[i]["role"] == "user"]
        what = "the system messages, the tool definitions and the last user message"
        if not starts:
            raise InvalidMessagesError("messages", "must have a user message when tools are given (llama3)")
    need = count(starts[-1])
    if need > max_tokens:
        raise ValueError(f"{what} alone take {need} tokens, more than max_tokens={max_tokens}")
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if count(starts[mid]) <= max_tokens:
            hi = mid
        else:
            lo = mid + 1
    return [dict(m) for m in system + rest[starts[lo] :]]
