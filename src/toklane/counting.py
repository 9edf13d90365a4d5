"""Token counting for texts and conversations, and conversation truncation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import InvalidArgumentError, InvalidMessagesError
from .tokenizer import Tokenizer, load_tokenizer
from .tokenizer.chat import ChatFormat, Message, chat_format_for, validate_messages
from .tokenizer.tool_prompts import validate_tools

DEFAULT_MODEL = "qwen3.6"


def _format(tok: Tokenizer, chat_format: str | None) -> ChatFormat:
    return chat_format_for(tok.name, tok.special_tokens, chat_format)


def render_chat(
    messages: Sequence[Message],
    model: Any = DEFAULT_MODEL,
    *,
    chat_format: str | None = None,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """The prompt text a conversation renders to in the model family's chat format;
    ``tools`` (OpenAI tool definitions) are rendered where the family's template puts them."""
    tok = load_tokenizer(model)
    return _format(tok, chat_format).render(messages, add_generation_prompt, tools, tok.name)


def encode_chat(
    messages: Sequence[Message],
    model: Any = DEFAULT_MODEL,
    *,
    chat_format: str | None = None,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> list[int]:
    """Token ids of the rendered conversation (special-token strings parsed), tool
    definitions included when ``tools`` is given.

    Raises ``ValueError`` for tokenizers whose vocabulary lacks the format's
    markers (cl100k_base / o200k_base): their chat prompts have no token ids,
    only a count (see :func:`count_tokens`).
    """
    tok = load_tokenizer(model)
    fmt = _format(tok, chat_format)
    missing = [m for m in fmt.markers if m not in tok.special_tokens]
    if missing:
        raise ValueError(
            f"tokenizer {tok.name!r} has no {fmt.name!r} chat markers ({', '.join(missing)}): "
            "its chat prompts can be counted but not encoded"
        )
    return tok.encode(fmt.render(messages, add_generation_prompt, tools, tok.name))


def _count_rendered(tok: Tokenizer, fmt: ChatFormat, messages: list[Message], gen: bool, tools: Any = None) -> int:
    segments = fmt.render_segments(messages, gen, tools, tok.name)
    if all(m in tok.special_tokens for m in fmt.markers):
        return tok.count("".join(text for text, _ in segments))
    # The vocabulary has no chat markers (OpenAI API encodings): one token each.
    return sum(1 if marker else tok.count(text) for text, marker in segments)


def count_tokens(
    text_or_messages: str | Sequence[Message],
    model: Any = DEFAULT_MODEL,
    *,
    chat_format: str | None = None,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> int:
    """Tokens in a text, or in a conversation rendered in the model's chat format.

    For a conversation the count equals ``len(tok.encode(render_chat(...)))``
    (special-token strings parsed), except for tokenizers whose vocabulary
    lacks the format's markers, where each marker counts as one token.

    ``tools`` (OpenAI tool definitions, ``{"type": "function", "function": {...}}``,
    or bare function objects) are rendered into the prompt as the family's chat
    template does (Qwen ``# Tools`` system block, Llama 3.1 JSON tool prompt,
    gpt-oss Harmony developer message); formats with no known tool layout raise
    :class:`~toklane.errors.InvalidArgumentError` naming the format.
    """
    tok = load_tokenizer(model)
    if isinstance(text_or_messages, str):
        if tools:
            raise InvalidArgumentError("tools", "are rendered into a conversation: pass messages, not a text")
        return tok.count(text_or_messages)
    messages = validate_messages(text_or_messages)
    return _count_rendered(tok, _format(tok, chat_format), messages, add_generation_prompt, tools)


def truncate_messages(
    messages: Sequence[Message],
    max_tokens: int,
    model: Any = DEFAULT_MODEL,
    *,
    chat_format: str | None = None,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> list[Message]:
    """The longest tail of the conversation that fits in ``max_tokens``, with the
    leading system/developer messages kept.

    Whole messages are dropped, oldest first; the kept tail never starts with a
    ``tool`` result whose call was dropped. Raises ``ValueError`` when the
    system messages alone do not fit. ``tools`` are rendered (and counted) with
    every candidate, as in :func:`count_tokens`.
    """
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
        raise ValueError(f"max_tokens must be a non-negative int, got {max_tokens!r}")
    tok = load_tokenizer(model)
    fmt = _format(tok, chat_format)
    msgs = validate_messages(messages)
    tools = validate_tools(tools)  # once: every candidate renders them again
    head = 0
    while head < len(msgs) and msgs[head]["role"] in ("system", "developer"):
        head += 1
    system, rest = msgs[:head], msgs[head:]

    def fits(start: int) -> bool:
        return _count_rendered(tok, fmt, system + rest[start:], add_generation_prompt, tools) <= max_tokens

    # Valid starts: not a tool result (its call would be gone). Dropping more
    # messages never adds tokens, so binary-search the first start that fits.
    starts = [i for i, m in enumerate(rest) if m["role"] != "tool"] + [len(rest)]
    what = "the system messages"
    if fmt.name == "llama3" and tools:
        # Llama 3.1 puts tool definitions into the first user message: the tail starts at one.
        starts = [i for i in starts[:-1] if rest[i]["role"] == "user"]
        what = "the system messages, the tool definitions and the last user message"
        if not starts:
            raise InvalidMessagesError("messages", "must have a user message when tools are given (llama3)")
    if not fits(starts[-1]):
        need = _count_rendered(tok, fmt, system + rest[starts[-1] :], add_generation_prompt, tools)
        raise ValueError(f"{what} alone take {need} tokens, more than max_tokens={max_tokens}")
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(starts[mid]):
            hi = mid
        else:
            lo = mid + 1
    return [dict(m) for m in system + rest[starts[lo] :]]
