"""DeepSeek V4's and Mistral's fast paths: their real chat templates' layouts, tools included.

* ``deepseek-v4`` -- DeepSeek V4's template (``tests/chat/templates/deepseek-v4.jinja``): the system
  text with the ``## Tools`` block (each tool's function as JSON), ``<｜User｜>`` turns (tool results
  as ``<tool_result>...</tool_result>`` in them), ``<｜Assistant｜>`` turns opening with
  ``</think>`` (or ``<think>reasoning</think>`` when thinking), DSML tool calls;
  ``thinking`` / ``enable_thinking``, ``drop_thinking``, ``reasoning_effort`` and
  ``response_format`` honoured.
* ``mistral-v3`` -- Mistral-7B-Instruct-v0.3's template; ``mistral-tekken`` -- Mistral-Nemo's
  (the same layout without the spaces after ``[INST]``, ``[TOOL_CALLS]``...):
  ``[AVAILABLE_TOOLS]`` before the last user message, the system text in the final message when it
  is a user message, ``[TOOL_CALLS][{...function, "id": ...}]``, ``[TOOL_RESULTS]{"content": ...,
  "call_id": ...}[/TOOL_RESULTS]``.
* ``mistral-v7`` -- Mistral-Small-3.2's template: ``[SYSTEM_PROMPT]`` (its default system message,
  dated today, when there is none), ``[AVAILABLE_TOOLS]`` + the tools as JSON before the last user
  message, ``[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}``, ``[TOOL_RESULTS]ID[TOOL_CONTENT]...``.

Where a template refuses a conversation (roles that do not alternate, a developer turn, a call id
that is not 9 characters) the fast path renders it; a tool call or tool result without an id is an
:class:`~toklane.errors.InvalidMessagesError` for the Mistral formats (their templates write ids).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidArgumentError, InvalidMessagesError
from .messages import Message, Segment, message_text, reasoning_of, tool_calls_of
from .tools import _tojson


def _m(text: str) -> Segment:
    return (text, True)


def _t(text: str) -> Segment:
    return (text, False)


# --------------------------------------------------------------------------- DeepSeek V4

DS_BOS, DS_EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
DS_USER, DS_ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
DSML = "｜DSML｜"
DS_TOOLS_HEADER = (
    "## Tools\n\nYou have access to a set of tools to help answer the user's question. You can invoke tools by "
    f'writing a "<{DSML}tool_calls>" block like the following:\n\n<{DSML}tool_calls>\n'
    f'<{DSML}invoke name="$TOOL_NAME">\n'
    f'<{DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{DSML}parameter>\n...\n'
    f'</{DSML}invoke>\n<{DSML}invoke name="$TOOL_NAME2">\n...\n</{DSML}invoke>\n</{DSML}tool_calls>\n\n'
    'String parameters should be specified as is and set `string="true"`. For all other types (numbers, '
    'booleans, arrays, objects), pass the value in JSON format and set `string="false"`.\n\n'
    "If thinking_mode is enabled (triggered by <think>), you MUST output your complete reasoning inside "
    "<think>...</think> BEFORE any tool calls or final response.\n\n"
    "Otherwise, output directly after </think> with tool calls or final response.\n\n### Available Tool Schemas\n\n"
)
DS_TOOLS_FOOTER = "\nYou MUST strictly follow the above defined tool name and parameter schemas to invoke tool calls.\n"
DS_REASONING_EFFORT_MAX = (
    "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n"
    "You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root "
    "cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial "
    "scenarios.\nExplicitly write out your entire deliberation process, documenting every intermediate step, "
    "considered alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n"
)
DS_RESPONSE_FORMAT = "## Response Format:\n\nYou MUST strictly adhere to the following schema to reply:\n"


def _json_kwarg(name: str, value: Any) -> str:
    try:
        return _tojson(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"chat_template_kwargs.{name}", f"must be JSON-serialisable ({exc})") from None


def deepseek_v4(
    messages: list[Message], gen: bool, tools: list[dict] | None, kwargs: Mapping[str, Any]
) -> list[Segment]:
    """DeepSeek V4's template."""
    thinking = bool(kwargs["thinking"] if "thinking" in kwargs else kwargs.get("enable_thinking", False))
    drop_thinking = bool(kwargs.get("drop_thinking", True))
    texts = [message_text(m, i) for i, m in enumerate(messages)]
    system = ""
    first = True
    for i, m in enumerate(messages):
        if m["role"] == "system":
            system += texts[i] if first else "\n\n" + texts[i]
            first = False
    if tools:
        block = DS_TOOLS_HEADER + "".join(_tojson(t["function"]) + "\n" for t in tools) + DS_TOOLS_FOOTER
        system = system + "\n\n" + block if system else block
    if "response_format" in kwargs:
        system = (system + "\n\n" if system else "") + DS_RESPONSE_FORMAT
        system += _json_kwarg("response_format", kwargs["response_format"])
    out: list[Segment] = [_m(DS_BOS)]
    if messages and thinking and kwargs.get("reasoning_effort") == "max":
        out.append(_t(DS_REASONING_EFFORT_MAX))
    if system:
        out.append(_t(system))
    last_user = max((i for i, m in enumerate(messages) if m["role"] in ("user", "developer", "tool")), default=-1)
    has_results = any(m["role"] == "tool" for m in messages)
    in_user = False
    for i, msg in enumerate(messages):
        role = msg["role"]
        if role in ("user", "developer", "tool"):
            out.append(_t("\n\n") if in_user else _m(DS_USER))
            in_user = True
            out.append(_t(f"<tool_result>{texts[i]}</tool_result>" if role == "tool" else texts[i]))
        elif role == "assistant":
            in_user = False
            out.append(_m(DS_ASSISTANT))
            if thinking and (not drop_thinking or tools or i > last_user or has_results):
                out += [_m("<think>"), _t(reasoning_of(msg, i) or ""), _m("</think>")]
            else:
                out.append(_m("</think>"))
            if texts[i]:
                out.append(_t(texts[i]))
            calls = tool_calls_of(msg, i)
            if calls:
                body = [f"\n\n<{DSML}tool_calls>\n"]
                for call in calls:
                    body.append(f'<{DSML}invoke name="{call.name}">\n')
                    args = call.arguments_object()
                    for key, value in args.items():
                        if isinstance(value, str):
                            body.append(f'<{DSML}parameter name="{key}" string="true">{value}</{DSML}parameter>\n')
                        else:
                            shown = _tojson(value)
                            body.append(f'<{DSML}parameter name="{key}" string="false">{shown}</{DSML}parameter>\n')
                    if not args:
                        body.append("\n")
                    body.append(f"</{DSML}invoke>\n")
                body.append(f"</{DSML}tool_calls>")
                out.append(_t("".join(body)))
            out.append(_m(DS_EOS))
    if gen:
        out += [_m(DS_ASSISTANT), _m("<think>" if thinking else "</think>")]
    return out


DEEPSEEK_V4_MARKERS = (DS_BOS, DS_EOS, DS_USER, DS_ASSISTANT, "<think>", "</think>", DSML)
DEEPSEEK_V4_HONOURS = frozenset({"thinking", "enable_thinking", "drop_thinking", "reasoning_effort", "response_format"})


# --------------------------------------------------------------------------- Mistral


def _call_id(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidMessagesError(where, "must be given: Mistral's chat template writes it (9 characters)")
    return value


def _last_user(messages: list[Message]) -> Message | None:
    return next((m for m in reversed(messages) if m["role"] == "user"), None)


def _instruct_tools(tools: list[dict]) -> str:
    """Mistral v3 / Nemo templates' tool list: each function's keys written by hand, a string value
    between quotes as it is (not escaped), any other value as JSON."""
    items = []
    for tool in tools:
        fields = []
        for key, value in tool["function"].items():
            if key == "return":
                continue
            shown = f'"{value}"' if isinstance(value, str) else _tojson(value)
            fields.append(f'"{key}": {shown}')
        items.append('{"type": "function", "function": {' + ", ".join(fields) + "}}")
    return ", ".join(items) + "]"


def _function_json(call: Mapping[str, Any], name: str, arguments: dict[str, Any]) -> str:
    """``tool_call.function|tojson`` on the call as prepared for a template (its ``arguments`` an object)."""
    fn = call.get("function")
    fields = {**fn, "arguments": arguments} if isinstance(fn, Mapping) else {"name": name, "arguments": arguments}
    return _tojson(fields)


def mistral_instruct(messages: list[Message], tools: list[dict] | None, *, spaced: bool) -> list[Segment]:
    """Mistral-7B-Instruct-v0.3's template (``spaced``) or Mistral-Nemo's."""
    sp = " " if spaced else ""
    system: str | None = None
    loop = messages
    start = 0
    if messages and messages[0]["role"] == "system":
        system = message_text(messages[0], 0)
        loop, start = messages[1:], 1
    # (system or developer turns later on, which the templates refuse, join the system text)
    later = [message_text(m, j + start) for j, m in enumerate(loop) if m["role"] in ("system", "developer")]
    if later:
        system = "\n\n".join([*([system] if system is not None else []), *later])
    last_user = _last_user(loop) if tools else None
    out: list[Segment] = [_m("<s>")]
    for j, msg in enumerate(loop):
        i = j + start
        role = msg["role"]
        calls = msg.get("tool_calls")
        if role == "user":
            if last_user is not None and msg == last_user:
                out += [_m("[AVAILABLE_TOOLS]"), _t(sp + "[" + _instruct_tools(tools or [])), _m("[/AVAILABLE_TOOLS]")]
            text = message_text(msg, i)
            if j == len(loop) - 1 and system is not None:
                text = f"{system}\n\n{text}"
            out += [_m("[INST]"), _t(sp + text), _m("[/INST]")]
        elif isinstance(calls, list) and calls:
            parsed = tool_calls_of(msg, i)
            body = []
            for k, call in enumerate(parsed):
                raw = calls[k]
                ident = _call_id(call.id, f"messages[{i}].tool_calls[{k}].id")
                body.append(_function_json(raw, call.name, call.arguments_object())[:-1] + f', "id": "{ident}"}}')
            out += [_m("[TOOL_CALLS]"), _t(sp + "[" + ", ".join(body) + "]"), _m("</s>")]
        elif role == "assistant":
            text = message_text(msg, i)
            out += [_t(" " + text.strip() if spaced else text), _m("</s>")]
        elif role == "tool":
            ident = _call_id(msg.get("tool_call_id"), f"messages[{i}].tool_call_id")
            body = f'{sp}{{"content": {message_text(msg, i)}, "call_id": "{ident}"}}'
            out += [_m("[TOOL_RESULTS]"), _t(body), _m("[/TOOL_RESULTS]")]
    return out  # no generation prompt: a prompt ends with [/INST] or a tool result


MISTRAL_INSTRUCT_MARKERS = (
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[TOOL_CALLS]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
)
MISTRAL_V7_MARKERS = (*MISTRAL_INSTRUCT_MARKERS, "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")

MISTRAL_V7_SYSTEM_HEAD = (
    "You are Mistral Small 3, a Large Language Model (LLM) created by Mistral AI, a French startup "
    "headquartered in Paris.\n"
    "Your knowledge base was last updated on 2023-10-01. The current date is "
)
MISTRAL_V7_SYSTEM_TAIL = (
    ".\n"
    "\n"
    "When you're not sure about some information or when the user's request requires up-to-date or "
    "specific data, you must use the available tools to fetch the information. Do not hesitate to use "
    "tools whenever they can provide a more accurate or complete response. If no relevant tools are "
    "available, then clearly state that you don't have the information and avoid making up anything.\n"
    "\n"
    "If the user's question is not clear, ambiguous, or does not provide enough context for you to "
    "accurately answer the question, you do not try to answer it right away and you rather ask the user "
    'to clarify their request (e.g. "What are some good restaurants around me?" => "Where are you?" or '
    '"When is the next flight to Tokyo" => "Where do you travel from?").\n'
    "You are always very attentive to dates, and when asked about information at specific dates, you "
    "discard information that is at another date.\n"
    "You follow these instructions in all languages, and always respond to the user in the language they "
    "use or request.\n"
    "Next sections describe the capabilities that you have.\n"
    "\n"
    "# WEB BROWSING INSTRUCTIONS\n"
    "\n"
    "You cannot perform any web search or access internet to open URLs, links etc. If it seems like the "
    "user is expecting you to do so, you clarify the situation and ask the user to copy paste the text "
    "directly in the chat.\n"
    "\n"
    "# MULTI-MODAL INSTRUCTIONS\n"
    "\n"
    "You have the ability to read images, but you cannot generate images. You also cannot transcribe "
    "audio files or videos.\n"
    "You cannot read nor transcribe audio files or videos.\n"
    "\n"
    "# TOOL CALLING INSTRUCTIONS\n"
    "\n"
    "You may have access to tools that you can use to fetch information or perform actions. You must use "
    "these tools in the following situations:\n"
    "\n"
    "1. When the request requires up-to-date information.\n"
    "2. When the request requires specific data that you do not have in your knowledge base.\n"
    "3. When the request involves actions that you cannot perform without tools.\n"
    "\n"
    "Always prioritize using tools to provide the most accurate and helpful response. If tools are not "
    "available, inform the user that you cannot perform the requested action at the moment."
)


def mistral_v7_default_system() -> str:
    """Mistral-Small-3.2's default system message, dated today (the template's ``strftime_now``)."""
    return MISTRAL_V7_SYSTEM_HEAD + time.strftime("%Y-%m-%d") + MISTRAL_V7_SYSTEM_TAIL


def _v7_system_text(msg: Message, index: int) -> str:
    """A system message's text as Small 3.2's template reads it: the string, or its first part's text."""
    content = msg.get("content")
    if isinstance(content, list) and content and isinstance(content[0], Mapping):
        message_text(msg, index)  # (checks the parts)
        return str(content[0].get("text", ""))
    return message_text(msg, index)


def mistral_v7(messages: list[Message], tools: list[dict] | None, raw_tools: Any) -> list[Segment]:
    """Mistral-Small-3.2's template (the v7 tokenizer's)."""
    loop = messages
    start = 0
    if messages and messages[0]["role"] == "system":
        system = _v7_system_text(messages[0], 0)
        loop, start = messages[1:], 1
    else:
        system = mistral_v7_default_system()
    out: list[Segment] = [_m("<s>"), _m("[SYSTEM_PROMPT]"), _t(system), _m("[/SYSTEM_PROMPT]")]
    last_user = _last_user(loop) if tools else None
    for j, msg in enumerate(loop):
        i = j + start
        role = msg["role"]
        if role in ("system", "developer"):  # (the template refuses a developer turn)
            out += [_m("[SYSTEM_PROMPT]"), _t(_v7_system_text(msg, i)), _m("[/SYSTEM_PROMPT]")]
        elif role == "user":
            if last_user is not None and msg == last_user:
                out += [_m("[AVAILABLE_TOOLS]"), _t(_tojson(list(raw_tools))), _m("[/AVAILABLE_TOOLS]")]
            out += [_m("[INST]"), _t(message_text(msg, i)), _m("[/INST]")]
        elif role == "assistant":
            calls = tool_calls_of(msg, i)
            if calls:
                for k, call in enumerate(calls):
                    ident = _call_id(call.id, f"messages[{i}].tool_calls[{k}].id")
                    out += [_m("[TOOL_CALLS]"), _t(f"{call.name}[CALL_ID]{ident}[ARGS]")]
                    out.append(_t(_tojson(call.arguments_object())))
            else:
                out.append(_t(message_text(msg, i)))
            out.append(_m("</s>"))
        elif role == "tool":
            ident = _call_id(msg.get("tool_call_id"), f"messages[{i}].tool_call_id")
            out += [_m("[TOOL_RESULTS]"), _t(ident), _m("[TOOL_CONTENT]"), _t(message_text(msg, i))]
            out.append(_m("[/TOOL_RESULTS]"))
    return out
