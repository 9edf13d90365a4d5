"""Tool definitions (``tools=``): checked, and laid out as each family's chat template lays them out.

Agent frameworks budget context with the tool definitions included, so
``count_tokens(messages, model=..., tools=[...])`` renders them where the model's
chat template puts them:

* Qwen2.5 / Qwen3 (``chatml``): a ``# Tools`` system block, one JSON object per tool
  between ``<tools>`` lines, after the system message's text.
* Qwen3.5 / Qwen3.6 (``qwen3.5``): the same block with that template's instructions
  (``<function=...>`` calls), the system text after it.
* Llama 3.1+ (``llama3``): ``Environment: ipython`` in the dated system header, the tools
  as indented JSON at the top of the first message after the system message.
* gpt-oss (``harmony``): a developer message (:mod:`.harmony_tools`).
* DeepSeek V4 (``deepseek-v4``), Mistral v3 / Nemo / Small 3.2 (``mistral-v3``, ``mistral-tekken``,
  ``mistral-v7``): as their templates lay them out (:mod:`.families`).

A model's own Jinja template gets the tools as given. Formats without a tool layout raise
:class:`~toklane.errors.InvalidArgumentError` naming the family. The layouts are in
``docs/chat-formats.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InvalidArgumentError, json_kind

Tool = dict[str, Any]
Tools = list[Tool]  # validated OpenAI tool definitions

_SHAPE = "an OpenAI tool {'type': 'function', 'function': {'name': ..., 'parameters': {...}}} or a function object"


def validate_tools(tools: Any) -> list[Tool] | None:
    """The tool definitions as OpenAI ``{"type": "function", "function": {...}}`` dicts.

    Bare function objects (``{"name": ..., "parameters": ...}``) are wrapped. ``None``
    and an empty list mean no tools. A malformed entry raises
    :class:`~toklane.errors.InvalidArgumentError` naming it (``tools[1].function.name``).
    """
    if tools is None:
        return None
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        raise InvalidArgumentError("tools", f"must be a list of tool definitions ({_SHAPE}s), got {json_kind(tools)}")
    out: list[Tool] = []
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, Mapping):
            raise InvalidArgumentError(where, f"must be {_SHAPE}, got {json_kind(tool)}")
        if "function" in tool:
            kind = tool.get("type", "function")
            if kind != "function":
                raise InvalidArgumentError(
                    f"{where}.type", f"must be 'function' (only function tools are rendered), got {kind!r}"
                )
            fn = tool["function"]
            where += ".function"
            if not isinstance(fn, Mapping):
                raise InvalidArgumentError(where, f"must be an object, got {json_kind(fn)}")
            wrapped = dict(tool)
        elif "name" in tool:
            fn = tool
            wrapped = {"type": "function", "function": dict(tool)}
        else:
            raise InvalidArgumentError(where, f"must be {_SHAPE} (it has neither 'function' nor 'name')")
        if not isinstance(fn.get("name"), str) or not fn["name"]:
            raise InvalidArgumentError(f"{where}.name", f"must be a non-empty string, got {json_kind(fn.get('name'))}")
        desc = fn.get("description")
        if desc is not None and not isinstance(desc, str):
            raise InvalidArgumentError(f"{where}.description", f"must be a string, got {json_kind(desc)}")
        params = fn.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            raise InvalidArgumentError(f"{where}.parameters", f"must be an object, got {json_kind(params)}")
        if _too_deep(fn):
            raise InvalidArgumentError(where, f"is nested more than {MAX_DEPTH} levels deep; flatten its schema")
        try:
            _tojson(wrapped)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(where, f"must be JSON-serialisable ({exc})") from None
        out.append(wrapped)
    return out or None


MAX_DEPTH = 256  # nesting of a tool definition's objects and arrays (renderers recurse on it)


def _too_deep(value: Any) -> bool:
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, Mapping):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend((v, depth + 1) for v in node)
    return False


#: A value of more nodes than this is encoded by json's Python encoder (the same text), which lets other
#: threads run; json's C encoder holds the GIL for the whole value (a long pause on a very large schema).
C_ENCODER_NODES = 10_000
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def _more_nodes_than(value: Any, limit: int) -> bool:
    stack = [value]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


def _tojson(value: Any, indent: int | None = None) -> str:
    # transformers' `tojson` filter: json.dumps, non-ASCII kept, insertion order.
    if indent is None and _more_nodes_than(value, C_ENCODER_NODES):
        return "".join(_ENCODER.iterencode(value))
    return json.dumps(value, ensure_ascii=False, indent=indent)


# --------------------------------------------------------------------------- Qwen

QWEN3_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
QWEN3_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
    "</tool_call>"
)
QWEN3_5_HEAD = "# Tools\n\nYou have access to the following functions:\n\n<tools>"
QWEN3_5_TAIL = (
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested "
    "within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE the function call, "
    "but NOT after\n"
    "- If there is no function call available, answer the question like normal with your current knowledge and "
    "do not tell the user about function calls\n</IMPORTANT>"
)


def qwen3_system(tools: list[Tool], system: str | None) -> str:
    """The system turn's text (between ``<|im_start|>`` and ``<|im_end|>``) of Qwen2.5 / Qwen3."""
    head = "" if system is None else system + "\n\n"
    return "system\n" + head + QWEN3_HEAD + "".join("\n" + _tojson(t) for t in tools) + QWEN3_TAIL


def qwen3_5_system(tools: list[Tool], system: str | None) -> str:
    """The system turn's text of Qwen3.5 / Qwen3.6: tools first, then the trimmed system text."""
    text = "system\n" + QWEN3_5_HEAD + "".join("\n" + _tojson(t) for t in tools) + QWEN3_5_TAIL
    system = (system or "").strip()
    return text + ("\n\n" + system if system else "")


# --------------------------------------------------------------------------- Llama 3.1+

LLAMA3_DATE = "26 Jul 2024"  # the template's default date_string
LLAMA3_SYSTEM_HEAD = f"Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: {LLAMA3_DATE}\n\n"
LLAMA3_USER_HEAD = (
    "Given the following functions, please respond with a JSON for a function call with its proper arguments "
    "that best answers the given prompt.\n\n"
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'
    "Do not use variables.\n\n"
)


#: Chat formats with no tool rendering, and why (the error says it).
NOT_RENDERED = {
    "deepseek": "the DeepSeek V3 layout has no tool prompt; the deepseek-v4 format renders DeepSeek V4's",
    "openai": "OpenAI does not publish how its API renders tool definitions",
    "mistral": "mistral-common's layout; the formats mistral-v3, mistral-tekken and mistral-v7 render the "
    "[AVAILABLE_TOOLS] block of their models' templates",
}


def not_rendered(format_name: str) -> InvalidArgumentError:
    reason = NOT_RENDERED.get(format_name, "no tool layout is known for it")
    return InvalidArgumentError(
        "tools",
        f"are not rendered for chat format {format_name!r} ({reason}); tools are rendered by the formats chatml, "
        "qwen3.5 (Qwen), llama3, harmony (gpt-oss), deepseek-v4, mistral-v3, mistral-tekken and mistral-v7, "
        "and by any model's own template: pass chat_template= "
        "(the model's Jinja template), count without tools, or put the tool text in the system message",
    )
