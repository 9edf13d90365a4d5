"""Family chat formats: hand-written fast paths for the bundled tokenizers' chat layouts.

A format renders OpenAI-style messages (:mod:`.messages`) into prompt *segments*: literal text and
control markers. The rendered prompt is ``"".join`` of the segments; a message count is the count
of that prompt under the model's tokenizer. Where a tokenizer lacks a format's markers (the OpenAI
API encodings cl100k_base / o200k_base have no chat markers in their public vocabularies) each
marker counts as one token -- the rule OpenAI publishes for counting chat messages.

Each format reproduces a reference renderer, and the tests check it equal to that renderer on
generated conversations (``tests/chat``):

* ``chatml`` -- Qwen3's Jinja chat template (``qwen3``: Qwen2.5 / Qwen3 / QwQ-style ChatML);
* ``qwen3.5`` -- Qwen3.5's template (``qwen3.6``: Qwen3.5 / Qwen3.6, XML tool calls, thinking);
* ``llama3`` -- Llama 3.1 / 3.3's template (its dated system header, JSON tool calls);
* ``harmony`` -- openai-harmony's ``render_conversation`` (what vLLM renders gpt-oss with), less
  the default system message;
* ``mistral`` -- mistral-common's tekken encoding (what vLLM renders Mistral models with);
* ``deepseek`` -- DeepSeek V3's token layout; ``openai`` -- OpenAI's published counting rule.

Where the reference renderer raises (a role the template does not know, an assistant turn
without content), the fast path renders what it can: the deliberate differences are listed in
``docs/chat-formats.md``. Template variables (``chat_template_kwargs``) that a format's reference
reads and the format implements are honoured (``enable_thinking``, ``preserve_thinking``,
``date_string``); one that the reference reads but the format does not implement is an
:class:`~toklane.errors.InvalidArgumentError` (pass ``chat_template=`` to render the model's own
template); any other is ignored, as a template ignores variables it never reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError, InvalidMessagesError
from . import families as _families
from .messages import Message, Segment, message_text, reasoning_of, tool_calls_of, validate_messages
from .tools import Tools, not_rendered, validate_tools

__all__ = ["FORMATS", "FORMAT_OF_BUNDLED", "ChatFormat", "chat_format_for"]


@dataclass(frozen=True)
class Chat:
    """One render's inputs, checked."""

    messages: list[Message]
    gen: bool
    tools: Tools | None
    kwargs: Mapping[str, Any]
    #: The tools as given (a template that writes ``tools|tojson`` writes these).
    raw_tools: Any = None

    def kwarg(self, name: str, default: Any = None) -> Any:
        return self.kwargs.get(name, default)


@dataclass(frozen=True)
class ChatFormat:
    """A family's prompt layout."""

    name: str
    description: str
    markers: tuple[str, ...]
    _render: Callable[[Chat], list[Segment]]
    #: Renders tool definitions (``tools=``).
    tools: bool = False
    #: Template variables the reference reads and this format renders.
    honours: frozenset[str] = field(default_factory=frozenset)
    #: Template variables the reference reads that this format does not render (an error when given).
    refuses: frozenset[str] = field(default_factory=frozenset)

    def render_segments(
        self,
        messages: Sequence[Message],
        add_generation_prompt: bool = False,
        tools: Any = None,
        kwargs: Mapping[str, Any] | None = None,
    ) -> list[Segment]:
        """The prompt's segments; ``tools`` (OpenAI tool definitions) are laid out as the family's
        reference lays them out; ``kwargs`` are the template variables (``enable_thinking``...)."""
        msgs = validate_messages(messages)
        checked = validate_tools(tools)
        if checked is not None and not self.tools:
            raise not_rendered(self.name)
        kwargs = dict(kwargs or {})
        refused = sorted(self.refuses.intersection(kwargs))
        if refused:
            raise InvalidArgumentError(
                f"chat_template_kwargs.{refused[0]}",
                f"is read by the model's template but not rendered by toklane's {self.name!r} format; "
                "pass chat_template= (the model's Jinja template) to render it",
            )
        raw = tools if isinstance(tools, (list, tuple)) else checked
        return self._render(Chat(msgs, bool(add_generation_prompt), checked, kwargs, raw))

    def render(
        self,
        messages: Sequence[Message],
        add_generation_prompt: bool = False,
        tools: Any = None,
        kwargs: Mapping[str, Any] | None = None,
    ) -> str:
        segments = self.render_segments(messages, add_generation_prompt, tools, kwargs)
        return "".join(text for text, _ in segments)


def _m(text: str) -> Segment:
    return (text, True)


def _t(text: str) -> Segment:
    return (text, False)


def _tojson(value: Any, indent: int | None = None) -> str:
    from .tools import _tojson as tojson

    return tojson(value, indent)


def _py_str(value: Any) -> str:
    """Jinja's ``string`` filter: ``str()`` (Python's ``True``, ``None``)."""
    return str(value)


# --------------------------------------------------------------------------- Qwen3 (ChatML)


def _qwen3_query_index(messages: list[Message]) -> int:
    """The last user turn that is not a wrapped tool response (Qwen templates' ``last_query_index``)."""
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        if m["role"] == "user":
            text = message_text(m, index)
            if not (text.startswith("<tool_response>") and text.endswith("</tool_response>")):
                return index
    return -1


def _split_think(content: str) -> tuple[str, str]:
    """``(reasoning, content)`` of a text holding ``</think>``, as Qwen templates split it."""
    reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
    return reasoning, content.split("</think>")[-1].lstrip("\n")


def _chatml(chat: Chat) -> list[Segment]:
    """Qwen3's template."""
    msgs = chat.messages
    out: list[Segment] = []
    first_system = bool(msgs) and msgs[0]["role"] == "system"
    if chat.tools:
        from .tools import qwen3_system

        system = message_text(msgs[0], 0) if first_system else None
        out += [_m("<|im_start|>"), _t(qwen3_system(chat.tools, system)), _m("<|im_end|>"), _t("\n")]
    elif first_system:
        out += [_m("<|im_start|>"), _t("system\n" + message_text(msgs[0], 0)), _m("<|im_end|>"), _t("\n")]
    query = _qwen3_query_index(msgs)
    if query < 0:
        query = len(msgs) - 1
    for i, msg in enumerate(msgs):
        role = msg["role"]
        if role == "user" or (role == "system" and i > 0):
            out += [_m("<|im_start|>"), _t(f"{role}\n{message_text(msg, i)}"), _m("<|im_end|>"), _t("\n")]
        elif role == "assistant":
            content = message_text(msg, i)
            reasoning = reasoning_of(msg, i)
            if reasoning is None:
                reasoning = ""
                if "</think>" in content:
                    reasoning, content = _split_think(content)
            if i > query and (i == len(msgs) - 1 or reasoning):
                out += [_m("<|im_start|>"), _t("assistant\n"), _m("<think>")]
                out += [_t("\n" + reasoning.strip("\n") + "\n"), _m("</think>"), _t("\n\n" + content.lstrip("\n"))]
            else:
                out += [_m("<|im_start|>"), _t("assistant\n" + content)]
            for k, call in enumerate(tool_calls_of(msg, i)):
                if content or k:
                    out.append(_t("\n"))
                args = _tojson(call.arguments_object())
                out += [
                    _m("<tool_call>"),
                    _t(f'\n{{"name": "{call.name}", "arguments": {args}}}\n'),
                    _m("</tool_call>"),
                ]
            out += [_m("<|im_end|>"), _t("\n")]
        elif role == "tool":
            if i == 0 or msgs[i - 1]["role"] != "tool":
                out += [_m("<|im_start|>"), _t("user")]
            out += [_t("\n"), _m("<tool_response>"), _t(f"\n{message_text(msg, i)}\n"), _m("</tool_response>")]
            if i + 1 == len(msgs) or msgs[i + 1]["role"] != "tool":
                out += [_m("<|im_end|>"), _t("\n")]
        # developer turns: Qwen3's template renders none
    if chat.gen:
        out += [_m("<|im_start|>"), _t("assistant\n")]
        if chat.kwarg("enable_thinking", True) is False:
            out += [_m("<think>"), _t("\n\n"), _m("</think>"), _t("\n\n")]
    return out


# --------------------------------------------------------------------------- Qwen3.5 / Qwen3.6


def _qwen35(chat: Chat) -> list[Segment]:
    """Qwen3.5's template (and Qwen3.6's: the same, plus ``preserve_thinking``). Where the template
    raises (no user query, a system message after the first, a developer turn), this renders: a
    developer turn as a system one, a later system turn as its own turn, the last message as the
    query when there is none."""
    msgs = chat.messages
    texts = [message_text(m, i).strip() for i, m in enumerate(msgs)]
    out: list[Segment] = []
    first_system = bool(msgs) and msgs[0]["role"] in ("system", "developer")
    if chat.tools:
        from .tools import qwen3_5_system

        system = texts[0] if first_system else None
        out += [_m("<|im_start|>"), _t(qwen3_5_system(chat.tools, system)), _m("<|im_end|>"), _t("\n")]
    elif first_system:
        out += [_m("<|im_start|>"), _t("system\n" + texts[0]), _m("<|im_end|>"), _t("\n")]
    query = len(msgs) - 1
    for index in range(len(msgs) - 1, -1, -1):
        text = texts[index]
        if msgs[index]["role"] == "user" and not (
            text.startswith("<tool_response>") and text.endswith("</tool_response>")
        ):
            query = index
            break
    preserve = chat.kwarg("preserve_thinking") is True
    for i, msg in enumerate(msgs):
        role, content = msg["role"], texts[i]
        if role in ("system", "developer"):
            if i:
                out += [_m("<|im_start|>"), _t(f"system\n{content}"), _m("<|im_end|>"), _t("\n")]
        elif role == "user":
            out += [_m("<|im_start|>"), _t(f"user\n{content}"), _m("<|im_end|>"), _t("\n")]
        elif role == "assistant":
            reasoning = reasoning_of(msg, i)
            if reasoning is None:
                reasoning = ""
                if "</think>" in content:
                    reasoning, content = _split_think(content)
            reasoning = reasoning.strip()
            if preserve or i > query:
                out += [_m("<|im_start|>"), _t("assistant\n"), _m("<think>"), _t(f"\n{reasoning}\n")]
                out += [_m("</think>"), _t("\n\n" + content)]
            else:
                out += [_m("<|im_start|>"), _t("assistant\n" + content)]
            for k, call in enumerate(tool_calls_of(msg, i)):
                lead = ("\n\n" if content.strip() else "") if k == 0 else "\n"
                out += [_t(lead), _m("<tool_call>"), _t(f"\n<function={call.name}>\n")]
                for key, value in call.arguments_object().items():
                    shown = _tojson(value) if isinstance(value, (dict, list, tuple)) else _py_str(value)
                    out.append(_t(f"<parameter={key}>\n{shown}\n</parameter>\n"))
                out += [_t("</function>\n"), _m("</tool_call>")]
            out += [_m("<|im_end|>"), _t("\n")]
        elif role == "tool":
            if i and msgs[i - 1]["role"] != "tool":
                out += [_m("<|im_start|>"), _t("user")]
            out += [_t("\n"), _m("<tool_response>"), _t(f"\n{content}\n"), _m("</tool_response>")]
            if i + 1 == len(msgs) or msgs[i + 1]["role"] != "tool":
                out += [_m("<|im_end|>"), _t("\n")]
    if chat.gen:
        out += [_m("<|im_start|>"), _t("assistant\n"), _m("<think>")]
        if chat.kwarg("enable_thinking") is False:
            out += [_t("\n\n"), _m("</think>"), _t("\n\n")]
        else:
            out.append(_t("\n"))
    return out


# --------------------------------------------------------------------------- Llama 3.1 / 3.3


def _llama3(chat: Chat) -> list[Segment]:
    """Llama 3.1's template (Llama 3.3's is the same)."""
    from .tools import LLAMA3_DATE, LLAMA3_USER_HEAD

    msgs = list(chat.messages)
    date = chat.kwarg("date_string", LLAMA3_DATE)
    if not isinstance(date, str):
        raise InvalidArgumentError("chat_template_kwargs.date_string", f"must be a string, got {type(date).__name__}")
    system = ""
    if msgs and msgs[0]["role"] == "system":
        system = message_text(msgs[0], 0).strip()
        msgs = msgs[1:]
    offset = len(chat.messages) - len(msgs)
    out: list[Segment] = [_m("<|begin_of_text|>"), _m("<|start_header_id|>"), _t("system"), _m("<|end_header_id|>")]
    head = "\n\n" + ("Environment: ipython\n" if chat.tools else "")
    head += f"Cutting Knowledge Date: December 2023\nToday Date: {date}\n\n"
    out += [_t(head + system), _m("<|eot_id|>")]
    if chat.tools:
        if not msgs:
            raise InvalidMessagesError(
                "messages",
                "must have a message after the system message when tools are given: "
                "the llama3 template renders tool definitions into it",
            )
        first = message_text(msgs[0], offset).strip()
        body = LLAMA3_USER_HEAD + "".join(_tojson(t, indent=4) + "\n\n" for t in chat.tools) + first
        out += [_m("<|start_header_id|>"), _t("user"), _m("<|end_header_id|>"), _t("\n\n" + body), _m("<|eot_id|>")]
        msgs = msgs[1:]
        offset += 1
    for j, msg in enumerate(msgs):
        i = j + offset
        role = msg["role"]
        if role == "tool":
            # the template writes a tool result `|tojson` (a string is iterable): as a JSON string
            message_text(msg, i)  # (checks it)
            content = msg.get("content")
            out += [_m("<|start_header_id|>"), _t("ipython"), _m("<|end_header_id|>")]
            out += [_t("\n\n" + _tojson("" if content is None else content)), _m("<|eot_id|>")]
        elif msg.get("tool_calls"):
            # (the template takes one call per message; several are joined with "; ")
            calls = tool_calls_of(msg, i)
            body = "; ".join(f'{{"name": "{c.name}", "parameters": {_tojson(c.arguments_object())}}}' for c in calls)
            out += [_m("<|start_header_id|>"), _t("assistant"), _m("<|end_header_id|>")]
            out += [_t("\n\n" + body), _m("<|eot_id|>")]
        else:
            out += [_m("<|start_header_id|>"), _t(role), _m("<|end_header_id|>")]
            out += [_t("\n\n" + message_text(msg, i).strip()), _m("<|eot_id|>")]
    if chat.gen:
        out += [_m("<|start_header_id|>"), _t("assistant"), _m("<|end_header_id|>"), _t("\n\n")]
    return out


# --------------------------------------------------------------------------- DeepSeek

_DS_BOS, _DS_EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
_DS_USER, _DS_ASSISTANT = "<｜User｜>", "<｜Assistant｜>"


def _deepseek(chat: Chat) -> list[Segment]:
    messages = chat.messages
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
    if chat.gen and (not messages or messages[-1]["role"] != "user"):
        out.append(_m(_DS_ASSISTANT))
    return out


# --------------------------------------------------------------------------- Harmony / OpenAI


def _harmony(chat: Chat) -> list[Segment]:
    messages = chat.messages
    out: list[Segment] = []
    if chat.tools:
        from .harmony_tools import harmony_developer

        system = None
        if messages and messages[0]["role"] in ("system", "developer"):
            system = message_text(messages[0], 0)
            messages = messages[1:]
        developer = harmony_developer(chat.tools, system)
        out += [_m("<|start|>"), _t("developer"), _m("<|message|>"), _t(developer), _m("<|end|>")]
    names: dict[str, str] = {}
    offset = len(chat.messages) - len(messages)
    for j, msg in enumerate(messages):
        i = j + offset
        role, text = msg["role"], message_text(msg, i)
        if role == "assistant":
            calls = tool_calls_of(msg, i)
            if text or not calls:
                out += [_m("<|start|>"), _t("assistant"), _m("<|channel|>"), _t("final"), _m("<|message|>")]
                out += [_t(text), _m("<|end|>")]
            for c in calls:
                if c.id is not None:
                    names[c.id] = c.name
                out += [_m("<|start|>"), _t("assistant"), _m("<|channel|>"), _t(f"commentary to=functions.{c.name} ")]
                out += [_m("<|constrain|>"), _t("json"), _m("<|message|>"), _t(c.arguments), _m("<|call|>")]
        elif role == "tool":
            name = names.get(msg.get("tool_call_id", ""), msg.get("name") or "tool")
            out += [_m("<|start|>"), _t(f"functions.{name} to=assistant"), _m("<|channel|>"), _t("commentary")]
            out += [_m("<|message|>"), _t(text), _m("<|end|>")]
        else:
            out += [_m("<|start|>"), _t(role), _m("<|message|>"), _t(text), _m("<|end|>")]
    if chat.gen:
        out += [_m("<|start|>"), _t("assistant")]
    return out


def _openai(chat: Chat) -> list[Segment]:
    out: list[Segment] = []
    for i, msg in enumerate(chat.messages):
        body = message_text(msg, i)
        calls = tool_calls_of(msg, i)
        if calls:
            body += json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls], ensure_ascii=False)
        out += [_m("<|start|>"), _t(msg["role"]), _m("<|message|>"), _t(body), _m("<|end|>")]
    if chat.gen:
        out += [_m("<|start|>"), _t("assistant"), _m("<|message|>")]
    return out


# --------------------------------------------------------------------------- Mistral (tekken)


def _mistral(chat: Chat) -> list[Segment]:
    messages = chat.messages
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
    return out  # no generation prompt: the prompt already ends with [/INST]


# --------------------------------------------------------------------------- DeepSeek V4 / Mistral templates


def _deepseek_v4(chat: Chat) -> list[Segment]:
    return _families.deepseek_v4(chat.messages, chat.gen, chat.tools, chat.kwargs)


def _mistral_v3(chat: Chat) -> list[Segment]:
    return _families.mistral_instruct(chat.messages, chat.tools, spaced=True)


def _mistral_tekken(chat: Chat) -> list[Segment]:
    return _families.mistral_instruct(chat.messages, chat.tools, spaced=False)


def _mistral_v7(chat: Chat) -> list[Segment]:
    return _families.mistral_v7(chat.messages, chat.tools, chat.raw_tools)


_QWEN_MARKERS = ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>")

FORMATS: dict[str, ChatFormat] = {
    f.name: f
    for f in (
        ChatFormat(
            "chatml",
            "Qwen3 ChatML: <|im_start|>role\\n...<|im_end|> (Qwen3's chat template)",
            _QWEN_MARKERS,
            _chatml,
            tools=True,
            honours=frozenset({"enable_thinking"}),
        ),
        ChatFormat(
            "qwen3.5",
            "Qwen3.5 / Qwen3.6 ChatML: <think> in assistant turns, <function=...> tool calls (Qwen3.5's template)",
            (*_QWEN_MARKERS, "<think>", "</think>"),
            _qwen35,
            tools=True,
            honours=frozenset({"enable_thinking", "preserve_thinking"}),
            refuses=frozenset({"add_vision_id"}),
        ),
        ChatFormat(
            "llama3",
            "Llama 3.1 headers: <|start_header_id|>role<|end_header_id|>\\n\\n...<|eot_id|> (Llama 3.1's template)",
            ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
            _llama3,
            tools=True,
            honours=frozenset({"date_string"}),
            refuses=frozenset({"builtin_tools", "custom_tools", "tools_in_user_message"}),
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
            "Harmony (gpt-oss): <|start|>role<|channel|>...<|message|>...<|end|> (openai-harmony's layout)",
            ("<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|constrain|>", "<|call|>"),
            _harmony,
            tools=True,
        ),
        ChatFormat(
            "openai",
            "OpenAI API models: <|start|>role<|message|>...<|end|> (3 marker tokens per message)",
            ("<|start|>", "<|message|>", "<|end|>"),
            _openai,
        ),
        ChatFormat(
            "mistral",
            "Mistral tekken: <s>[INST]...[/INST]...</s> (mistral-common's layout)",
            ("<s>", "</s>", "[INST]", "[/INST]", "[TOOL_CALLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]"),
            _mistral,
        ),
        ChatFormat(
            "deepseek-v4",
            "DeepSeek V4: <｜User｜>...<｜Assistant｜></think>..., DSML tool calls (DeepSeek V4's template)",
            _families.DEEPSEEK_V4_MARKERS,
            _deepseek_v4,
            tools=True,
            honours=_families.DEEPSEEK_V4_HONOURS,
        ),
        ChatFormat(
            "mistral-v3",
            "Mistral v3: <s>[INST] ...[/INST] ...</s>, [AVAILABLE_TOOLS] (Mistral-7B-Instruct-v0.3's template)",
            _families.MISTRAL_INSTRUCT_MARKERS,
            _mistral_v3,
            tools=True,
        ),
        ChatFormat(
            "mistral-tekken",
            "Mistral tekken: <s>[INST]...[/INST]...</s>, [AVAILABLE_TOOLS] (Mistral-Nemo-Instruct-2407's template)",
            _families.MISTRAL_INSTRUCT_MARKERS,
            _mistral_tekken,
            tools=True,
        ),
        ChatFormat(
            "mistral-v7",
            "Mistral v7: <s>[SYSTEM_PROMPT]...[/SYSTEM_PROMPT][INST]...[/INST] (Mistral-Small-3.2's template)",
            _families.MISTRAL_V7_MARKERS,
            _mistral_v7,
            tools=True,
        ),
    )
}

FORMAT_OF_BUNDLED = {
    "qwen3.6": "qwen3.5",
    "qwen3": "chatml",
    "llama3": "llama3",
    "deepseek-v4": "deepseek-v4",
    "o200k_harmony": "harmony",
    "o200k_base": "openai",
    "cl100k_base": "openai",
    "mistral-tekken": "mistral-tekken",
    "mistral-v3": "mistral-v3",
    "mistral-v7": "mistral-v7",
}

# For other tokenizers: a telltale added token -> format.
_FORMAT_BY_MARKER = (
    ("<|im_start|>", "chatml"),
    ("<|start_header_id|>", "llama3"),
    ("｜DSML｜", "deepseek-v4"),  # DeepSeek V4's vocabulary (DSML tool calls)
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
    name = guess_format(tokenizer_name, special_tokens)
    if name is None:
        raise ValueError(
            f"no chat format known for tokenizer {tokenizer_name!r} and it has no chat template of its own; "
            f"pass chat_template= (a Jinja template) or chat_format= one of {', '.join(FORMATS)}"
        )
    return FORMATS[name]


def guess_format(tokenizer_name: str, special_tokens: Mapping[str, int]) -> str | None:
    """The bundled tokenizer's format, else the format whose telltale marker the vocabulary has."""
    name = FORMAT_OF_BUNDLED.get(tokenizer_name)
    if name is None:
        name = next((f for marker, f in _FORMAT_BY_MARKER if marker in special_tokens), None)
    return name
