"""gpt-oss's tool definitions as openai-harmony renders them: a ``functions`` namespace of
TypeScript-like signatures in the developer message (``DeveloperContent``), checked equal to
openai-harmony's ``render_conversation`` by the tests.

Types: ``string`` (or the ``"a" | "b"`` enum), ``number`` (number and integer), ``boolean``,
``T[]``, nested ``{…}`` objects, ``A | B`` for a type list, ``| null`` for ``nullable``, one
``| TYPE`` line per ``oneOf`` variant, ``any`` for anything else; descriptions, titles, examples
and defaults become ``//`` comments (``docs/chat-formats.md``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidArgumentError
from .tools import Tool


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
