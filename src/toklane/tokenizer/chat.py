"""Chat formats: how each family lays a conversation out as a prompt.

A format renders OpenAI-style messages (``role``, ``content`` as a string or a
list of ``{"type": "text"}`` parts, assistant ``tool_calls``, ``tool``
results) into prompt *segments*: literal text and control markers. The
rendered prompt is ``"".join`` of the segments; a message count is the count
of that prompt under the model's tokenizer. Where a tokenizer lacks a format's
markers (the OpenAI API encodings cl100k_base / o200k_base have no chat
markers in their public vocabularies) each marker counts as one token -- the
rule OpenAI publishes for counting chat messages.

The exact layouts are documented in ``docs/chat-formats.md``. Tool
*definitions* (``tools=``) are rendered as each family's template renders them
(chatml, llama3, harmony; :mod:`toklane.tokenizer.tool_prompts`); other formats
refuse them. What is left out, on purpose: images, and each template's optional
preambles (Llama 3.1's knowledge-date system header without tools, gpt-oss's
default system message), which vary by deployment.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidMessagesError

Segment = tuple[str, bool]  # (text, is_marker)
Message = Mapping[str, Any]
Tools = list[dict[str, Any]]  # validated OpenAI tool definitions

ROLES = ("system", "developer", "user", "assistant", "tool")


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


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # JSON text


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
        out.append(ToolCall(fn["name"], args))
    return out


def _optional_str(mapping: Mapping[str, Any], key: str, where: str) -> None:
    value = mapping.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidMessagesError(f"{where}.{key}", f"must be a string, got {type(value).__name__}")


def validate_messages(messages: Any) -> list[Message]:
    """Check the shape of a conversation; returns it as a list.

    Every field a chat format reads is type-checked (``role``, ``content``,
    ``name``, ``tool_call_id``, ``tool_calls[k].id`` / ``.function.name`` /
    ``.function.arguments``); a bad one raises :class:`~toklane.errors.InvalidMessagesError`
    naming it (``messages[2].tool_call_id must be a string, got dict``).
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise InvalidMessagesError(
            "messages", f"must be a list of {{'role': ..., 'content': ...}} mappings, got {type(messages).__name__}"
        )
    out = list(messages)
    for i, m in enumerate(out):
        if not isinstance(m, Mapping):
            raise InvalidMessagesError(f"messages[{i}]", f"must be a mapping, got {type(m).__name__}")
        role = m.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise InvalidMessagesError(f"messages[{i}].role", f"must be one of {', '.join(ROLES)}; got {role!r}")
        for key in ("name", "tool_call_id"):
            _optional_str(m, key, f"messages[{i}]")
        message_text(m, i)
        tool_calls_of(m, i)
    return out


@dataclass(frozen=True)
class ChatFormat:
    """A family's prompt layout."""

    name: str
    description: str
    markers: tuple[str, ...]
    _render: Callable[[list[Message], bool], list[Segment]]

    def render_segments(
        self,
        messages: Sequence[Message],
        add_generation_prompt: bool = False,
        tools: Any = None,
        tokenizer_name: str | None = None,
    ) -> list[Segment]:
        """The prompt's segments; ``tools`` (OpenAI tool definitions) are laid out as the
        family's template does (:mod:`toklane.tokenizer.tool_prompts`). ``tokenizer_name``
        picks the family's variant where one format serves several (``qwen3.6``: Qwen3.5's
        tool block)."""
        msgs = validate_messages(messages)
        from .tool_prompts import validate_tools

        checked = validate_tools(tools)
        if checked is None:
            return self._render(msgs, add_generation_prompt)
        render = _WITH_TOOLS.get(self.name)
        if render is None:
            from .tool_prompts import not_rendered

            raise not_rendered(self.name)
        return render(msgs, add_generation_prompt, checked, tokenizer_name)

    def render(
        self,
        messages: Sequence[Message],
        add_generation_prompt: bool = False,
        tools: Any = None,
        tokenizer_name: str | None = None,
    ) -> str:
        segments = self.render_segments(messages, add_generation_prompt, tools, tokenizer_name)
        return "".join(text for text, _ in segments)


def _m(text: str) -> Segment:
    return (text, True)


def _t(text: str) -> Segment:
    return (text, False)


# --------------------------------------------------------------------------- ChatML (Qwen)


def _chatml(messages: list[Message], gen: bool) -> list[Segment]:
    out: list[Segment] = []
    for i, msg in enumerate(messages):
        role, text = msg["role"], message_text(msg, i)
        if role == "tool":
            if i == 0 or messages[i - 1]["role"] != "tool":
                out += [_m("<|im_start|>"), _t("user")]
            out += [_t("\n"), _m("<tool_response>"), _t(f"\n{text}\n"), _m("</tool_response>")]
            if i + 1 == len(messages) or messages[i + 1]["role"] != "tool":
                out += [_m("<|im_end|>"), _t("\n")]
            continue
        role = "system" if role == "developer" else role
        out += [_m("<|im_start|>"), _t(f"{role}\n{text}")]
        for k, call in enumerate(tool_calls_of(msg, i)):
            if text or k:
                out.append(_t("\n"))
            body = f'\n{{"name": {json.dumps(call.name, ensure_ascii=False)}, "arguments": {call.arguments}}}\n'
            out += [_m("<tool_call>"), _t(body), _m("</tool_call>")]
        out += [_m("<|im_end|>"), _t("\n")]
    if gen:
        out += [_m("<|im_start|>"), _t("assistant\n")]
    return out


# --------------------------------------------------------------------------- Llama 3


def _llama3(messages: list[Message], gen: bool) -> list[Segment]:
    out: list[Segment] = [_m("<|begin_of_text|>")]
    for i, msg in enumerate(messages):
        role = {"tool": "ipython", "developer": "system"}.get(msg["role"], msg["role"])
        calls = tool_calls_of(msg, i)
        if calls:
            body = "; ".join(
                f'{{"name": {json.dumps(c.name, ensure_ascii=False)}, "parameters": {c.arguments}}}' for c in calls
            )
        else:
            body = message_text(msg, i).strip()
        out += [_m("<|start_header_id|>"), _t(role), _m("<|end_header_id|>"), _t(f"\n\n{body}"), _m("<|eot_id|>")]
    if gen:
        out += [_m("<|start_header_id|>"), _t("assistant"), _m("<|end_header_id|>"), _t("\n\n")]
    return out


# --------------------------------------------------------------------------- DeepSeek

_DS_BOS, _DS_EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
_DS_USER, _DS_ASSISTANT = "<｜User｜>", "<｜Assistant｜>"


def _deepseek(messages: list[Message], gen: bool) -> list[Segment]:
    out: list[Segment] = [_m(_DS_BOS)]
    for i, msg in enumerate(messages):
        role, text = msg["role"], message_text(msg, i)
        if role in ("system", "developer"):
            out.append(_t(text))
        elif role == "user":
            out += [_m(_DS_USER), _t(text), _m(_DS_ASSISTANT)]
        elif role == "assistant":
            out.append(_t(text))
            calls = tool_calls_of(msg, i)
            if calls:
                out.append(_m("<｜tool▁calls▁begin｜>"))
                for c in calls:
                    out += [
                        _m("<｜tool▁call▁begin｜>"),
                        _t("function"),
                        _m("<｜tool▁sep｜>"),
                        _t(f"{c.name}\n```json\n{c.arguments}\n```"),
                        _m("<｜tool▁call▁end｜>"),
                    ]
                out.append(_m("<｜tool▁calls▁end｜>"))
            out.append(_m(_DS_EOS))
        else:  # tool
            if i == 0 or messages[i - 1]["role"] != "tool":
                out.append(_m("<｜tool▁outputs▁begin｜>"))
            out += [_m("<｜tool▁output▁begin｜>"), _t(text), _m("<｜tool▁output▁end｜>")]
            if i + 1 == len(messages) or messages[i + 1]["role"] != "tool":
                out.append(_m("<｜tool▁outputs▁end｜>"))
    if gen and (not messages or messages[-1]["role"] != "user"):
        out.append(_m(_DS_ASSISTANT))
    return out


# --------------------------------------------------------------------------- Harmony / OpenAI


def _harmony(messages: list[Message], gen: bool) -> list[Segment]:
    out: list[Segment] = []
    names: dict[str, str] = {}
    for i, msg in enumerate(messages):
        role, text = msg["role"], message_text(msg, i)
        if role == "assistant":
            calls = tool_calls_of(msg, i)
            if text or not calls:
                out += [_m("<|start|>"), _t("assistant"), _m("<|channel|>"), _t("final"), _m("<|message|>")]
                out += [_t(text), _m("<|end|>")]
            for k, c in enumerate(calls):
                call_id = (msg.get("tool_calls") or [{}])[k].get("id")
                if isinstance(call_id, str):
                    names[call_id] = c.name
                out += [_m("<|start|>"), _t("assistant"), _m("<|channel|>"), _t(f"commentary to=functions.{c.name} ")]
                out += [_m("<|constrain|>"), _t("json"), _m("<|message|>"), _t(c.arguments), _m("<|call|>")]
        elif role == "tool":
            name = names.get(msg.get("tool_call_id", ""), msg.get("name") or "tool")
            out += [_m("<|start|>"), _t(f"functions.{name} to=assistant"), _m("<|channel|>"), _t("commentary")]
            out += [_m("<|message|>"), _t(text), _m("<|end|>")]
        else:
            out += [_m("<|start|>"), _t(role), _m("<|message|>"), _t(text), _m("<|end|>")]
    if gen:
        out += [_m("<|start|>"), _t("assistant")]
    return out


def _openai(messages: list[Message], gen: bool) -> list[Segment]:
    out: list[Segment] = []
    for i, msg in enumerate(messages):
        body = message_text(msg, i)
        calls = tool_calls_of(msg, i)
        if calls:
            body += json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls], ensure_ascii=False)
        out += [_m("<|start|>"), _t(msg["role"]), _m("<|message|>"), _t(body), _m("<|end|>")]
    if gen:
        out += [_m("<|start|>"), _t("assistant"), _m("<|message|>")]
    return out


# --------------------------------------------------------------------------- Mistral (tekken)


def _mistral(messages: list[Message], gen: bool) -> list[Segment]:
    system = "\n\n".join(message_text(m, i) for i, m in enumerate(messages) if m["role"] in ("system", "developer"))
    last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    out: list[Segment] = [_m("<s>")]
    for i, msg in enumerate(messages):
        role, text = msg["role"], message_text(msg, i)
        if role == "user":
            if i == last_user and system:
                text = f"{system}\n\n{text}"
            out += [_m("[INST]"), _t(text), _m("[/INST]")]
        elif role == "assistant":
            calls = tool_calls_of(msg, i)
            if calls:
                items = ", ".join(
                    f'{{"name": {json.dumps(c.name, ensure_ascii=False)}, "arguments": {c.arguments or "{}"}}}'
                    for c in calls
                )
                out += [_m("[TOOL_CALLS]"), _t(f"[{items}]")]
            else:
                out.append(_t(text))
            out.append(_m("</s>"))
        elif role == "tool":
            out += [_m("[TOOL_RESULTS]"), _t(json.dumps({"content": text}, ensure_ascii=False)), _m("[/TOOL_RESULTS]")]
    del gen  # the prompt already ends with [/INST]
    return out


# --------------------------------------------------------------------------- with tool definitions


def _split_system(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """The leading system/developer message's text (None when there is none) and the rest."""
    if messages and messages[0]["role"] in ("system", "developer"):
        return message_text(messages[0], 0), messages[1:]
    return None, messages


def _chatml_tools(messages: list[Message], gen: bool, tools: Tools, tok_name: str | None) -> list[Segment]:
    from .tool_prompts import qwen3_5_system, qwen3_system

    system, rest = _split_system(messages)
    text = (qwen3_5_system if tok_name == "qwen3.6" else qwen3_system)(tools, system)
    return [_m("<|im_start|>"), _t(text), _m("<|im_end|>"), _t("\n"), *_chatml(rest, gen)]


def _llama3_tools(messages: list[Message], gen: bool, tools: Tools, tok_name: str | None) -> list[Segment]:
    from .tool_prompts import LLAMA3_SYSTEM_HEAD, llama3_needs_user, llama3_user

    del tok_name
    system, rest = _split_system(messages)
    llama3_needs_user(rest)
    out = [_m("<|begin_of_text|>"), _m("<|start_header_id|>"), _t("system"), _m("<|end_header_id|>")]
    out += [_t("\n\n" + LLAMA3_SYSTEM_HEAD + (system or "").strip()), _m("<|eot_id|>")]
    out += [_m("<|start_header_id|>"), _t("user"), _m("<|end_header_id|>")]
    out += [_t("\n\n" + llama3_user(tools, message_text(rest[0], 0))), _m("<|eot_id|>")]
    return out + _llama3(rest[1:], gen)[1:]  # its own <|begin_of_text|> is already out


def _harmony_tools(messages: list[Message], gen: bool, tools: Tools, tok_name: str | None) -> list[Segment]:
    from .tool_prompts import harmony_developer

    del tok_name
    system, rest = _split_system(messages)
    developer = harmony_developer(tools, system)
    return [_m("<|start|>"), _t("developer"), _m("<|message|>"), _t(developer), _m("<|end|>"), *_harmony(rest, gen)]


_WITH_TOOLS: dict[str, Callable[[list[Message], bool, Tools, str | None], list[Segment]]] = {
    "chatml": _chatml_tools,
    "llama3": _llama3_tools,
    "harmony": _harmony_tools,
}


FORMATS: dict[str, ChatFormat] = {
    f.name: f
    for f in (
        ChatFormat(
            "chatml",
            "Qwen ChatML: <|im_start|>role\\n...<|im_end|>",
            ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"),
            _chatml,
        ),
        ChatFormat(
            "llama3",
            "Llama 3 headers: <|start_header_id|>role<|end_header_id|>\\n\\n...<|eot_id|>",
            ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
            _llama3,
        ),
        ChatFormat(
            "deepseek",
            "DeepSeek: <｜begin▁of▁sentence｜>system<｜User｜>...<｜Assistant｜>...<｜end▁of▁sentence｜>",
            (
                _DS_BOS,
                _DS_EOS,
                _DS_USER,
                _DS_ASSISTANT,
                "<｜tool▁calls▁begin｜>",
                "<｜tool▁calls▁end｜>",
                "<｜tool▁call▁begin｜>",
                "<｜tool▁call▁end｜>",
                "<｜tool▁sep｜>",
                "<｜tool▁outputs▁begin｜>",
                "<｜tool▁outputs▁end｜>",
                "<｜tool▁output▁begin｜>",
                "<｜tool▁output▁end｜>",
            ),
            _deepseek,
        ),
        ChatFormat(
            "harmony",
            "Harmony (gpt-oss): <|start|>role<|channel|>...<|message|>...<|end|>",
            ("<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|constrain|>", "<|call|>"),
            _harmony,
        ),
        ChatFormat(
            "openai",
            "OpenAI API models: <|start|>role<|message|>...<|end|> (3 marker tokens per message)",
            ("<|start|>", "<|message|>", "<|end|>"),
            _openai,
        ),
        ChatFormat(
            "mistral",
            "Mistral tekken: <s>[INST]...[/INST]...</s>",
            ("<s>", "</s>", "[INST]", "[/INST]", "[TOOL_CALLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]"),
            _mistral,
        ),
    )
}

FORMAT_OF_BUNDLED = {
    "qwen3.6": "chatml",
    "qwen3": "chatml",
    "llama3": "llama3",
    "deepseek-v4": "deepseek",
    "o200k_harmony": "harmony",
    "o200k_base": "openai",
    "cl100k_base": "openai",
    "mistral-tekken": "mistral",
}

# For other tokenizers: a telltale added token -> format.
_FORMAT_BY_MARKER = (
    ("<|im_start|>", "chatml"),
    ("<|start_header_id|>", "llama3"),
    (_DS_USER, "deepseek"),
    ("<|channel|>", "harmony"),
    ("[INST]", "mistral"),
)


def chat_format_for(tokenizer_name: str, special_tokens: Mapping[str, int], chat_format: str | None) -> ChatFormat:
    """The chat format to use for a tokenizer (explicit name, bundled default, or a guess)."""
    if chat_format is not None:
        fmt = FORMATS.get(chat_format)
        if fmt is None:
            raise ValueError(f"unknown chat format {chat_format!r}; known: {', '.join(FORMATS)}")
        return fmt
    name = FORMAT_OF_BUNDLED.get(tokenizer_name)
    if name is None:
        name = next((f for marker, f in _FORMAT_BY_MARKER if marker in special_tokens), None)
    if name is None:
        raise ValueError(
            f"no chat format known for tokenizer {tokenizer_name!r}; pass chat_format= one of {', '.join(FORMATS)}"
        )
    return FORMATS[name]
