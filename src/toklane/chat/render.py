"""One entry for every chat rendering: which renderer a request gets, and the rendered prompt.

The renderer, in order:

1. ``chat_format=`` (a family format by name: ``chatml``, ``qwen3.5``, ``llama3``...);
2. ``chat_template=``: the name of one of the tokenizer's named templates, else a template's text;
3. the tokenizer's own template (a user folder's ``chat_template.jinja`` / ``tokenizer_config.json``,
   a live transformers tokenizer's ``chat_template``; :mod:`.sources`);
4. the family format of a bundled tokenizer, or the one its vocabulary's markers name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ChatTemplateError, InvalidArgumentError, InvalidMessagesError
from . import sources
from .formats import ChatFormat, chat_format_for, guess_format
from .messages import Segment, message_text, template_messages
from .templates import compile_template, render_template
from .tools import validate_tools

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer


@dataclass(frozen=True)
class Renderer:
    """What renders a tokenizer's conversations: a family format or a compiled template."""

    format: ChatFormat | None = None
    template: Any = None  # a CompiledTemplate
    specials: Mapping[str, str] | None = None

    @property
    def name(self) -> str:
        return self.format.name if self.format is not None else self.template.name


@dataclass(frozen=True)
class Rendered:
    text: str
    #: The family format's segments (text, is_marker); None for a template's prompt.
    segments: list[Segment] | None
    renderer: Renderer


def _kwargs(chat_template_kwargs: Any) -> dict[str, Any]:
    if chat_template_kwargs is None:
        return {}
    if not isinstance(chat_template_kwargs, Mapping):
        raise InvalidArgumentError(
            "chat_template_kwargs",
            f"must be a mapping of template variables, got {type(chat_template_kwargs).__name__}",
        )
    for key in chat_template_kwargs:
        if not isinstance(key, str) or not key.isidentifier():
            raise InvalidArgumentError("chat_template_kwargs", f"keys must be variable names, got {key!r}")
    return dict(chat_template_kwargs)


def renderer_for(
    tok: Tokenizer,
    *,
    chat_template: str | None = None,
    chat_format: str | None = None,
    tools: Any = None,
    live: Any = None,
) -> Renderer:
    """The renderer of ``tok``'s conversations (module docstring); ``live`` is the object ``tok``
    wraps, when the caller has it (its current ``chat_template`` is read)."""
    if chat_format is not None:
        if chat_template is not None:
            raise InvalidArgumentError("chat_template", "cannot be combined with chat_format (give one of them)")
        return Renderer(format=chat_format_for(tok.name, tok.special_tokens, chat_format))
    own = sources.own_template(tok)
    if live is not None and hasattr(live, "chat_template"):
        sources.remember_live(tok, live)
        own = sources.own_template(tok)
    if chat_template is not None and not isinstance(chat_template, str):
        raise InvalidArgumentError(
            "chat_template", f"must be a template's text or name (a string), got {type(chat_template).__name__}"
        )
    origin = own.origin or f"the chat template of {tok.name!r}"
    text = sources.pick(own.template, chat_template, tools, origin)
    if text is not None:
        if chat_template is not None and not (isinstance(own.template, dict) and chat_template in own.template):
            name = "the chat_template given"
        elif isinstance(own.template, dict):
            picked = next(k for k, v in own.template.items() if v is text)
            name = f"{origin} ({picked!r})"
        else:
            name = origin
        return Renderer(template=compile_template(text, name), specials=own.specials)
    if guess_format(tok.name, tok.special_tokens) is None:
        raise ChatTemplateError(
            f"tokenizer {tok.name!r}",
            None,
            "has no chat template (no chat_template.jinja or tokenizer_config.json chat_template beside it) and "
            "no known chat format; pass chat_template= (a Jinja template's text) or chat_format=",
        )
    return Renderer(format=chat_format_for(tok.name, tok.special_tokens, None))


def render(
    tok: Tokenizer,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Any = None,
    documents: Any = None,
    add_generation_prompt: bool = False,
    continue_final_message: bool | str = False,
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    chat_format: str | None = None,
    live: Any = None,
    renderer: Renderer | None = None,
) -> Rendered:
    """The prompt ``messages`` render to for ``tok`` (see :func:`toklane.render_chat`)."""
    kwargs = _kwargs(chat_template_kwargs)
    if continue_final_message and add_generation_prompt:
        raise InvalidArgumentError(
            "continue_final_message", "cannot be combined with add_generation_prompt (set one of them)"
        )
    if renderer is None:
        renderer = renderer_for(tok, chat_template=chat_template, chat_format=chat_format, tools=tools, live=live)
    if renderer.format is not None:
        segments = renderer.format.render_segments(messages, add_generation_prompt, tools, kwargs)
        if continue_final_message:
            segments = _continue(segments, messages, continue_final_message)
        return Rendered("".join(text for text, _ in segments), segments, renderer)
    if tools is not None:
        if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
            validate_tools(tools)  # (the error names the problem)
        for i, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                raise InvalidArgumentError(
                    f"tools[{i}]", f"must be an object (a JSON schema), got {type(tool).__name__}"
                )
    if documents is not None:
        if isinstance(documents, (str, bytes, Mapping)) or not isinstance(documents, Sequence):
            raise InvalidArgumentError("documents", "must be a list of objects ({'title': ..., 'text': ...})")
        for i, doc in enumerate(documents):
            if not isinstance(doc, Mapping):
                raise InvalidArgumentError(f"documents[{i}]", f"must be an object, got {type(doc).__name__}")
    text = render_template(
        renderer.template,
        template_messages(messages),
        tools=tools,
        documents=documents,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_final_message,
        special_tokens=renderer.specials,
        kwargs=kwargs,
    )
    return Rendered(text, None, renderer)


def _continue(segments: list[Segment], messages: Sequence[Mapping[str, Any]], field: bool | str) -> list[Segment]:
    """Cut a family format's prompt right after the final message's text (its end-of-turn and
    anything after it left out), as transformers' ``continue_final_message``."""
    if field is not True and field != "content":
        raise InvalidArgumentError(
            "continue_final_message", f"can continue the final message's content only here, not {field!r}"
        )
    if not messages:
        raise InvalidMessagesError("messages", "needs at least one message to continue")
    final = message_text(messages[-1], len(messages) - 1).strip()
    text = "".join(t for t, _ in segments)
    at = text.rfind(final) if final else -1
    if at < 0:
        raise InvalidMessagesError(
            f"messages[{len(messages) - 1}]",
            "has no text to continue in the rendered prompt (give it text content, or do not continue it)",
        )
    cut = at + len(final)
    out: list[Segment] = []
    pos = 0
    for seg, marker in segments:
        if pos >= cut:
            break
        if pos + len(seg) <= cut:
            out.append((seg, marker))
        else:
            out.append((seg[: cut - pos], False))
        pos += len(seg)
    return out
