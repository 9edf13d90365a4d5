"""Tool definitions in the prompt, laid out as each family's chat template lays them out.

Agent frameworks budget context with the tool definitions included, so
``count_tokens(messages, model=..., tools=[...])`` renders them where the model's
real chat template puts them:

* Qwen2.5 / Qwen3 (``chatml`` on ``qwen3``): a ``# Tools`` system block, one JSON
  object per tool between ``<tools>`` lines, after the system message's text.
* Qwen3.5 / Qwen3.6 (``chatml`` on ``qwen3.6``): the same block with that
  template's instructions (``<function=...>`` calls), the system text after it.
* Llama 3.1+ (``llama3``): ``Environment: ipython`` and the template's dated
  system header, the tools as indented JSON at the top of the first user message.
* gpt-oss (``harmony``): a developer message, ``# Instructions`` (the first
  system/developer message) then the ``functions`` namespace of TypeScript-like
  signatures, as openai-harmony renders ``DeveloperContent`` (checked equal to it
  by the tests).

Other formats raise :class:`~toklane.errors.InvalidArgumentError` naming the
family. The layouts are in ``docs/chat-formats.md``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InvalidArgumentError, InvalidMessagesError, json_kind

Tool = dict[str, Any]

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
#: threads run; json's C encoder holds the GIL for the whole value (0.23 s for a 300K-property schema).
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


def llama3_user(tools: list[Tool], first_user: str) -> str:
    """The first user turn's body: the tool instructions, each tool as 4-space-indented JSON, the message."""
    return LLAMA3_USER_HEAD + "".join(_tojson(t, indent=4) + "\n\n" for t in tools) + first_user.strip()


def llama3_needs_user(messages: list[Mapping[str, Any]]) -> None:
    if not messages or messages[0]["role"] != "user":
        raise InvalidMessagesError(
            "messages",
            "must have a user message first (after the system message) when tools are given: "
            "the llama3 template renders tool definitions into it",
        )


# --------------------------------------------------------------------------- Harmony (gpt-oss)


class HarmonyUnsupported(Exception):
    """A schema construct whose openai-harmony rendering toklane does not reproduce."""

    def __init__(self, path: str, what: str, fix: str):
        super().__init__(path, what, fix)
        self.path = path
        self.what = what
        self.fix = fix


def _get(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, Mapping) else None


def _is_enum(node: Any) -> bool:
    values = _get(node, "enum")
    return isinstance(values, list) and len(values) > 0


def _float_text(v: float) -> str:
    """A float as serde_json (ryu) prints it: shortest digits, decimal for 1e-5 <= |v| < 1e16, else ``1.5e16``."""
    if v == 0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    sign, text = ("-", repr(-v)) if v < 0 else ("", repr(v))
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + int(exp or 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0")
    k = point - len(digits)
    if len(digits) > 15 or abs(k) > 22:
        # Beyond the exact fast path of serde_json's float parser, which openai-harmony
        # reads the schema with: its value may differ from Python's in the last digit.
        raise ValueError(v)
    if k >= 0 and point <= 16:
        body = digits + "0" * k + ".0"
    elif 0 < point <= 16:
        body = digits[:point] + "." + digits[point:]
    elif -5 < point <= 0:
        body = "0." + "0" * -point + digits
    else:
        body = (digits if len(digits) == 1 else digits[0] + "." + digits[1:]) + f"e{point - 1}"
    return sign + body


def _json_value(value: Any, path: str) -> str:
    """A JSON value as serde_json prints it (compact, floats as ryu writes them)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise HarmonyUnsupported(path, f"holds a non-finite number ({value!r})", "use a finite number")
        try:
            return _float_text(value)
        except ValueError:
            what = f"holds the number {value!r}, which openai-harmony may read back in other digits"
            fix = "write it with at most 15 significant digits and an exponent within 22"
            raise HarmonyUnsupported(path, what, fix) from None
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise HarmonyUnsupported(path, f"holds an integer beyond 64 bits ({value})", "use a string")
    if isinstance(value, Mapping):
        items = (f"{_json_value(str(k), path)}:{_json_value(v, path)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_json_value(v, path) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _default_text(node: Mapping[str, Any], path: str, quote_enum: bool = False) -> str:
    """``default: …`` as openai-harmony writes it: a string default quoted unless the schema
    is an enum (then bare, or JSON-quoted where ``quote_enum``), anything else as compact JSON."""
    default = node["default"]
    if isinstance(default, str) and not _is_enum(node):
        return f'default: "{default}"'
    if isinstance(default, str) and not quote_enum:
        return f"default: {default}"
    return f"default: {_json_value(default, path + '.default')}"


def _variant(variant: Any, indent: str, path: str) -> str:
    text = _ts_type(variant, indent + "   ", path)
    if _get(variant, "nullable") is True and "null" not in text:
        text += " | null"
    return text


def _one_of(variants: list[Any], indent: str, path: str) -> str:
    """A ``oneOf`` schema: one ``| TYPE // description default`` line per variant."""
    out = ""
    for i, variant in enumerate(variants):
        where = f"{path}.oneOf[{i}]"
        out += f"\n{indent} | " + _variant(variant, indent, where)
        notes = []
        desc = _get(variant, "description")
        if isinstance(desc, str):
            notes.append(desc)
        if isinstance(variant, Mapping) and "default" in variant:
            notes.append(_default_text(variant, where, quote_enum=True))
        if notes:
            out += " // " + " ".join(notes)
    return out


def _one_of_property(prop: Mapping[str, Any], variants: list[Any], head: str, indent: str, path: str) -> str:
    """A property whose schema is a ``oneOf``: comments, ``NAME[?]:``, one line per variant."""
    out = ""
    desc = prop.get("description")
    desc = desc if isinstance(desc, str) else None
    above = desc is not None and not (variants and _get(variants[0], "description") == desc)
    if above:
        out += f"{indent}// {desc}\n"
    if "default" in prop:
        out += f"{indent}// {_default_text(prop, path)}\n"
    out += f"{head}:\n"
    for i, variant in enumerate(variants):
        where = f"{path}.oneOf[{i}]"
        out += f"{indent} | " + _variant(variant, indent, where)
        notes = []
        vdesc = _get(variant, "description")
        if not (i == 0 and above) and isinstance(vdesc, str) and vdesc != desc:
            notes.append(vdesc)
        if isinstance(variant, Mapping) and "default" in variant:
            notes.append(_default_text(variant, where))
        if notes:
            out += " // " + " ".join(notes)
        out += "\n"
    return out + f"{indent},\n"


def _ts_type(node: Any, indent: str, path: str) -> str:
    """A JSON schema as the TypeScript-like type openai-harmony writes."""
    one_of = _get(node, "oneOf")
    if isinstance(one_of, list):
        return _one_of(one_of, indent, path)
    kind = _get(node, "type")
    if isinstance(kind, list):
        names = ["number" if k == "integer" else k for k in kind if isinstance(k, str)]
        if names:
            return " | ".join(names)
        return "any"
    if not isinstance(kind, str):
        return "any"
    if kind == "object":
        out = ""
        desc = _get(node, "description")
        if isinstance(desc, str):
            out += f"{indent}// {desc}\n"
        out += "{\n"
        props = _get(node, "properties")
        if isinstance(props, Mapping):
            req = _get(node, "required")
            required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
            for key, prop in props.items():
                where = f"{path}.properties.{key}"
                title = _get(prop, "title")
                if isinstance(title, str):
                    out += f"{indent}// {title}\n{indent}//\n"
                has_one_of = _get(prop, "oneOf") is not None
                pdesc = _get(prop, "description")
                if isinstance(pdesc, str) and not has_one_of:
                    out += f"{indent}// {pdesc}\n"
                examples = _get(prop, "examples")
                if isinstance(examples, list) and examples:
                    out += f"{indent}// Examples:\n"
                    out += "".join(f'{indent}// - "{ex}"\n' for ex in examples if isinstance(ex, str))
                head = f"{indent}{key}{'' if key in required else '?'}"
                if isinstance(prop.get("oneOf") if has_one_of else None, list):
                    out += _one_of_property(prop, prop["oneOf"], head, indent, where)
                    continue
                text = _ts_type(prop, indent + "    ", where)
                if _get(prop, "nullable") is True and "null" not in text:
                    text += " | null"
                out += f"{head}: {text},"
                if not has_one_of and isinstance(prop, Mapping) and "default" in prop:
                    out += " // " + _default_text(prop, where)
                out += "\n"
        return out + indent + "}"
    if kind == "string":
        values = _get(node, "enum")
        if isinstance(values, list):
            names = [f'"{v}"' for v in values if isinstance(v, str)]
            if names:
                return " | ".join(names)
        return "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "array":
        if isinstance(node, Mapping) and "items" in node:
            return _ts_type(node["items"], indent, path + ".items") + "[]"
        return "Array<any>"
    return "any"


def _lines(text: str) -> list[str]:
    # Rust's str::lines: split at \n, drop one trailing \r per line, no empty last line.
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def harmony_tools_section(tools: list[Tool]) -> str:
    """``# Tools`` with the ``functions`` namespace, as openai-harmony renders function tools."""
    body = ["## functions\n", "namespace functions {\n"]
    for i, tool in enumerate(tools):
        fn = tool["function"]
        body += [f"// {line}" for line in _lines(fn.get("description") or "")]
        params = fn.get("parameters")
        if params is None:
            body.append(f"type {fn['name']} = () => any;\n")
        else:
            try:
                signature = _ts_type(params, "", "parameters")
            except HarmonyUnsupported as exc:
                raise InvalidArgumentError(
                    f"tools[{i}].function.{exc.path}",
                    f"{exc.what}: toklane does not reproduce openai-harmony's rendering of that for gpt-oss; {exc.fix}",
                ) from None
            body.append(f"type {fn['name']} = (_: {signature}) => any;\n")
    body.append("} // namespace functions")
    return "# Tools\n\n" + "\n".join(body)


def harmony_developer(tools: list[Tool], instructions: str | None) -> str:
    """The developer message's content: ``# Instructions`` (when given) and the tools section."""
    sections = ["# Instructions", instructions] if instructions else []
    return "\n\n".join([*sections, harmony_tools_section(tools)])


#: Chat formats with no tool rendering, and why (the error says it).
NOT_RENDERED = {
    "deepseek": "DeepSeek V3/V3.1/R1 templates render no tool definitions and V4's tool prompt is not implemented",
    "openai": "OpenAI does not publish how its API renders tool definitions",
    "mistral": "Mistral's [AVAILABLE_TOOLS] block is not implemented",
}


def not_rendered(format_name: str) -> InvalidArgumentError:
    reason = NOT_RENDERED.get(format_name, "no tool layout is known for it")
    return InvalidArgumentError(
        "tools",
        f"are not rendered for chat format {format_name!r} ({reason}); tools are rendered for chatml (Qwen), "
        "llama3 and harmony (gpt-oss): count without tools, or put the tool text in the system message",
    )
