"""Conversations as the chat renderers read them: OpenAI-style messages, checked at the edge.

A message is a mapping with a ``role`` (``system``, ``developer``, ``user``, ``assistant``,
``tool``), ``content`` (a string, a list of ``{"type": "text", "text": ...}`` parts, or null),
and for assistant turns ``tool_calls`` (``{"id", "type": "function", "function": {"name",
"arguments"}}``) and optionally their reasoning (``reasoning_content``, or ``reasoning`` /
``thinking``, the names transformers reads too). A field of the wrong type is an
:class:`~toklane.errors.InvalidMessagesError` naming it (``messages[2].tool_call_id must be a
string, got dict``).

A model's own Jinja template reads messages as they are (any role, any content parts: a template
decides what it accepts); :func:`template_messages` only checks their shape and parses tool-call
arguments given as JSON text into objects, as vLLM and SGLang do before they apply a template.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidMessagesError

Segment = tuple[str, bool]  # (text, is_marker)
Message = Mapping[str, Any]

ROLES = ("system", "developer", "user", "assistant", "tool")
#: Where a message's reasoning may be given, in the order transformers reads them.
REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


def message_text(message: Message, index: int) -> str:
    """The text content of a message; a clear error for anything else."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for k, part in enumerate(content):
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                raise InvalidMessagesError(
                    f"messages[{index}].content[{k}]",
                    f"must be a text part (only text parts can be rendered), got {kind!r}",
                )
        return "".join(parts)
    raise InvalidMessagesError(
        f"messages[{index}].content", f"must be a string, a list of text parts or null, got {type(content).__name__}"
    )


def reasoning_of(message: Message, index: int) -> str | None:
    """The message's reasoning (``reasoning_content``, else ``thinking``, else ``reasoning``), or None."""
    for key in REASONING_KEYS:
        value = message.get(key)
        if value is not None:
            if not isinstance(value, str):
                raise InvalidMessagesError(f"messages[{index}].{key}", f"must be a string, got {type(value).__name__}")
            return value
    return None


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # JSON text, as given (or the given object as JSON)
    id: str | None = None

    def arguments_object(self) -> dict[str, Any]:
        """The arguments as an object, read as vLLM reads them before it applies a chat template:
        JSON text that is not an object (or not JSON) is ``{}``."""
        return _arguments_object(self.arguments)


def _arguments_object(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not arguments:
        return {}
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except (ValueError, RecursionError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def tool_calls_of(message: Message, index: int) -> list[ToolCall]:
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise InvalidMessagesError(f"messages[{index}].tool_calls", f"must be a list, got {type(calls).__name__}")
    out = []
    for k, call in enumerate(calls):
        where = f"messages[{index}].tool_calls[{k}]"
        if not isinstance(call, Mapping):
            raise InvalidMessagesError(where, f"must be an object, got {type(call).__name__}")
        _optional_str(call, "id", where)
        fn = call.get("function", call)
        if not isinstance(fn, Mapping):
            raise InvalidMessagesError(f"{where}.function", f"must be an object, got {type(fn).__name__}")
        if not isinstance(fn.get("name"), str):
            raise InvalidMessagesError(f"{where}.function.name", "must be a string")
        args = fn.get("arguments", {})
        if not isinstance(args, str):
            try:
                args = json.dumps(args, ensure_ascii=False)
            except (TypeError, ValueError) as exc:
                raise InvalidMessagesError(
                    f"{where}.function.arguments", f"must be a JSON string or JSON-serialisable ({exc})"
                ) from None
        out.append(ToolCall(fn["name"], args, call.get("id")))
    return out


def _optional_str(mapping: Mapping[str, Any], key: str, where: str) -> None:
    value = mapping.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidMessagesError(f"{where}.{key}", f"must be a string, got {type(value).__name__}")


def _as_list(messages: Any) -> list[Message]:
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise InvalidMessagesError(
            "messages", f"must be a list of {{'role': ..., 'content': ...}} mappings, got {type(messages).__name__}"
        )
    out = list(messages)
    for i, m in enumerate(out):
        if not isinstance(m, Mapping):
            raise InvalidMessagesError(f"messages[{i}]", f"must be a mapping, got {type(m).__name__}")
    return out


def validate_messages(messages: Any) -> list[Message]:
    """Check the shape of a conversation; returns it as a list.

    Every field a chat format reads is type-checked (``role``, ``content``,
    ``name``, ``tool_call_id``, ``tool_calls[k].id`` / ``.function.name`` /
    ``.function.arguments``, the reasoning fields); a bad one raises
    :class:`~toklane.errors.InvalidMessagesError` naming it
    (``messages[2].tool_call_id must be a string, got dict``).
    """
    out = _as_list(messages)
    for i, m in enumerate(out):
        role = m.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise InvalidMessagesError(f"messages[{i}].role", f"must be one of {', '.join(ROLES)}; got {role!r}")
        for key in ("name", "tool_call_id"):
            _optional_str(m, key, f"messages[{i}]")
        message_text(m, i)
        tool_calls_of(m, i)
        reasoning_of(m, i)
    return out


def template_messages(messages: Any) -> list[dict[str, Any]]:
    """Messages for a Jinja chat template: mappings with a string ``role`` (any role and content: the
    template decides), copied; an assistant turn's ``tool_calls`` prepared as vLLM prepares them
    (an empty list dropped, each call's ``arguments`` an object: JSON text parsed, ``{}`` where it
    is empty, not JSON or not an object)."""
    out = []
    for i, m in enumerate(_as_list(messages)):
        role = m.get("role")
        if not isinstance(role, str):
            raise InvalidMessagesError(f"messages[{i}].role", f"must be a string, got {type(role).__name__}")
        msg = dict(m)
        calls = msg.get("tool_calls")
        if role == "assistant" and isinstance(calls, list):
            if not calls:
                del msg["tool_calls"]
            else:
                msg["tool_calls"] = [_template_call(call, i, k) for k, call in enumerate(calls)]
        out.append(msg)
    return out


def _template_call(call: Any, index: int, k: int) -> Any:
    if not isinstance(call, Mapping):
        raise InvalidMessagesError(
            f"messages[{index}].tool_calls[{k}]", f"must be an object, got {type(call).__name__}"
        )
    fn = call.get("function")
    if not isinstance(fn, Mapping):
        return dict(call)
    return {**call, "function": {**fn, "arguments": _arguments_object(fn.get("arguments"))}}
