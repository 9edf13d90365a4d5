"""Validation of ``tools_schema`` (an OpenAI ``tools`` list) when a parser is built.

Parsers read the schema lazily, mid-stream, to type parameter values; a
malformed schema must fail at construction instead, with the path of the bad
field (``tools_schema[0].function.parameters.properties.x.anyOf must be a
list``), never as ``'int' object is not iterable`` halfway through a stream.

Only the shape is checked -- the JSON-schema keywords parsers (and JSON-schema
tools generally) walk into: ``type``, ``properties``, ``items``, ``anyOf`` /
``oneOf`` / ``allOf``, ``enum``, ``required`` and the other subschema
keywords. Unknown keywords and values are left alone, and tools that are not
function tools (``{"type": "web_search"}``) are allowed and ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidToolsSchemaError, json_kind

#: Deepest nesting of subschemas accepted (real tool schemas stay under ~10).
MAX_SCHEMA_DEPTH = 64

_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_ONE = (
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
)


def _key(path: str, key: str) -> str:
    """``path.key``, or ``path["key"]`` where the key is not a plain name."""
    if key and key.replace("_", "a").replace("-", "a").isalnum() and key.isascii():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _as_mapping(value: Any) -> Mapping[str, Any] | None:
    """A tool / function given as a dict, a pydantic model or a plain object, as a mapping."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        data = dump()
        return data if isinstance(data, Mapping) else None
    data = getattr(value, "__dict__", None)
    return data if isinstance(data, Mapping) else None


def validate_tools_schema(tools_schema: Any) -> None:
    """Raise :class:`~toklane.errors.InvalidToolsSchemaError` naming the first malformed field."""
    if tools_schema is None:
        return
    if not isinstance(tools_schema, (list, tuple)):
        raise InvalidToolsSchemaError(
            "tools_schema", f"must be a list of tools (the OpenAI `tools` list), got {json_kind(tools_schema)}"
        )
    for k, raw in enumerate(tools_schema):
        where = f"tools_schema[{k}]"
        tool = _as_mapping(raw)
        if tool is None:
            raise InvalidToolsSchemaError(where, f"must be an object (an OpenAI tool), got {json_kind(raw)}")
        if "function" in tool:
            fn = _as_mapping(tool["function"])
            where = f"{where}.function"
            if fn is None:
                raise InvalidToolsSchemaError(where, f"must be an object, got {json_kind(tool['function'])}")
        elif tool.get("type", "function") != "function":
            continue  # a built-in tool (web search, code interpreter): nothing to type
        else:
            fn = tool
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidToolsSchemaError(f"{where}.name", f"must be a non-empty string, got {json_kind(name)}")
        params = fn.get("parameters")
        if params is not None:
            if not isinstance(params, Mapping):
                raise InvalidToolsSchemaError(f"{where}.parameters", f"must be an object, got {json_kind(params)}")
            _check_schema(params, f"{where}.parameters")


def _check_schema(root: Any, root_path: str) -> None:
    """Walk a JSON schema (iteratively: no recursion limit to hit), checking its keywords' shapes."""
    stack: list[tuple[Any, str, int]] = [(root, root_path, 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, bool):
            continue  # true / false are schemas
        if not isinstance(node, Mapping):
            raise InvalidToolsSchemaError(path, f"must be a schema object, got {json_kind(node)}")
        if depth > MAX_SCHEMA_DEPTH:
            raise InvalidToolsSchemaError(path, f"nests subschemas deeper than {MAX_SCHEMA_DEPTH} levels")
        t = node.get("type")
        if not (t is None or isinstance(t, str) or (isinstance(t, list) and t and all(isinstance(x, str) for x in t))):
            raise InvalidToolsSchemaError(
                _key(path, "type"), f"must be a string or a non-empty list of strings, got {t!r:.60}"
            )
        for key in ("enum", "required"):
            value = node.get(key)
            if value is not None and not isinstance(value, list):
                raise InvalidToolsSchemaError(_key(path, key), f"must be a list, got {json_kind(value)}")
        required = node.get("required")
        if required is not None and not all(isinstance(x, str) for x in required):
            raise InvalidToolsSchemaError(_key(path, "required"), "must be a list of strings")
        for key in _LISTS:
            value = node.get(key)
            if value is None:
                continue
            if not isinstance(value, list):
                raise InvalidToolsSchemaError(_key(path, key), f"must be a list of schemas, got {json_kind(value)}")
            at = _key(path, key)
            stack.extend((sub, f"{at}[{i}]", depth + 1) for i, sub in enumerate(value))
        for key in _MAPS:
            value = node.get(key)
            if value is None:
                continue
            if not isinstance(value, Mapping):
                raise InvalidToolsSchemaError(_key(path, key), f"must be an object, got {json_kind(value)}")
            at = _key(path, key)
            for name, sub in value.items():
                if not isinstance(name, str):
                    raise InvalidToolsSchemaError(at, f"has a non-string key {name!r:.60}")
                stack.append((sub, _key(at, name), depth + 1))
        for key in _ONE:
            if key in node:
                stack.append((node[key], _key(path, key), depth + 1))
        items = node.get("items")
        if isinstance(items, list):  # the tuple form of older drafts
            at = _key(path, "items")
            stack.extend((sub, f"{at}[{i}]", depth + 1) for i, sub in enumerate(items))
        elif items is not None:
            stack.append((items, _key(path, "items"), depth + 1))


__all__ = ["MAX_SCHEMA_DEPTH", "validate_tools_schema"]
