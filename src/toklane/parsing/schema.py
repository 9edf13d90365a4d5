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

Engines pass a request's ``tools`` with every request, usually the same tools: a schema made of plain
``dict``/``list``/``str``/number values (what the plugins hand over) is remembered by value once it has
passed -- keyed by its :mod:`marshal` image, which C writes in a fifth of the time the walk takes and
which only exact built-in types have (a tuple, a subclass, a pydantic model has none: walked every
time, so nothing the walk would refuse is ever let through by a lookalike).
"""

from __future__ import annotations

import json
import marshal
import threading
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
    if type(value) is dict or isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        data = dump()
        return data if isinstance(data, Mapping) else None
    data = getattr(value, "__dict__", None)
    return data if isinstance(data, Mapping) else None


#: Keywords holding subschemas, in the order they are checked (a schema without any -- most
#: property schemas -- needs only the three checks before them).
_NESTING = (*_LISTS, *_MAPS, *_ONE, "items")
_RANK = {key: rank for rank, key in enumerate(_NESTING)}
_NESTING_SET = frozenset(_NESTING)

#: Where a schema sits: the root's path, or (parent, key or index) -- made into text only for an error.
Path = str | tuple[Any, str | int]


def _text(path: Path) -> str:
    """``tools_schema[0].function.parameters.properties.x`` for a :data:`Path`."""
    steps = []
    while type(path) is tuple:
        path, step = path
        steps.append(step)
    text: str = path  # type: ignore[assignment]
    for step in reversed(steps):
        text = f"{text}[{step}]" if type(step) is int else _key(text, step)
    return text


#: Valid schemas' marshal images (insertion order: the oldest goes first), their total size, and the
#: bounds on both: a schema's image over MAX_REMEMBERED_BYTES is walked every time.
_valid: dict[bytes, None] = {}
_valid_bytes = 0
_valid_lock = threading.Lock()
MAX_REMEMBERED = 512
MAX_REMEMBERED_BYTES = 4 << 20


def validate_tools_schema(tools_schema: Any) -> None:
    """Raise :class:`~toklane.errors.InvalidToolsSchemaError` naming the first malformed field (a
    schema already seen valid, of plain built-in values, is found by value instead of walked)."""
    if tools_schema is None:
        return
    if type(tools_schema) is not list:
        _walk(tools_schema)
        return
    try:
        image = marshal.dumps(tools_schema, 4)
    except (ValueError, RecursionError):  # a value marshal does not write (a model, a subclass), or too deep
        _walk(tools_schema)
        return
    if image in _valid:
        return
    _walk(tools_schema)
    _remember(image)


def _remember(image: bytes) -> None:
    """Keep a valid schema's image, dropping the oldest ones past the bounds."""
    global _valid_bytes
    if len(image) > MAX_REMEMBERED_BYTES // 4:
        return
    with _valid_lock:
        if image in _valid:
            return
        while _valid and (len(_valid) >= MAX_REMEMBERED or _valid_bytes + len(image) > MAX_REMEMBERED_BYTES):
            oldest = next(iter(_valid))
            del _valid[oldest]
            _valid_bytes -= len(oldest)
        _valid[image] = None
        _valid_bytes += len(image)


def _walk(tools_schema: Any) -> None:
    """The check itself: each tool's name and parameters schema, walked."""
    if not isinstance(tools_schema, (list, tuple)):
        raise InvalidToolsSchemaError(
            "tools_schema", f"must be a list of tools (the OpenAI `tools` list), got {json_kind(tools_schema)}"
        )
    for k, raw in enumerate(tools_schema):
        where: Path = ("tools_schema", k)
        tool = _as_mapping(raw)
        if tool is None:
            raise InvalidToolsSchemaError(_text(where), f"must be an object (an OpenAI tool), got {json_kind(raw)}")
        if "function" in tool:
            fn = _as_mapping(tool["function"])
            where = (where, "function")
            if fn is None:
                raise InvalidToolsSchemaError(_text(where), f"must be an object, got {json_kind(tool['function'])}")
        elif tool.get("type", "function") != "function":
            continue  # a built-in tool (web search, code interpreter): nothing to type
        else:
            fn = tool
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidToolsSchemaError(_text((where, "name")), f"must be a non-empty string, got {json_kind(name)}")
        params = fn.get("parameters")
        if params is not None:
            where = (where, "parameters")
            if type(params) is not dict and not isinstance(params, Mapping):
                raise InvalidToolsSchemaError(_text(where), f"must be an object, got {json_kind(params)}")
            _check_schema(params, where)


def _type_list(t: Any) -> bool:
    """Whether ``t`` is a valid ``type`` other than one string: a string subclass, or a non-empty list
    of strings."""
    return isinstance(t, str) or (isinstance(t, list) and bool(t) and all(isinstance(x, str) for x in t))


def _check_schema(root: Any, root_path: Path) -> None:
    """Walk a JSON schema (iteratively: no recursion limit to hit), checking its keywords' shapes.
    Paths are built as links and written out only for an error (about 5 µs -> 1 µs for a small tool)."""
    stack: list[tuple[Any, Path, int]] = [(root, root_path, 0)]
    while stack:
        node, path, depth = stack.pop()
        if node is True or node is False:
            continue  # true / false are schemas
        if type(node) is not dict and not isinstance(node, Mapping):
            raise InvalidToolsSchemaError(_text(path), f"must be a schema object, got {json_kind(node)}")
        if depth > MAX_SCHEMA_DEPTH:
            raise InvalidToolsSchemaError(_text(path), f"nests subschemas deeper than {MAX_SCHEMA_DEPTH} levels")
        t = node.get("type")
        if t is not None and type(t) is not str and not _type_list(t):
            raise InvalidToolsSchemaError(
                _text((path, "type")), f"must be a string or a non-empty list of strings, got {t!r:.60}"
            )
        enum, required = node.get("enum"), node.get("required")
        if enum is not None and not isinstance(enum, list):
            raise InvalidToolsSchemaError(_text((path, "enum")), f"must be a list, got {json_kind(enum)}")
        if required is not None:
            if not isinstance(required, list):
                raise InvalidToolsSchemaError(_text((path, "required")), f"must be a list, got {json_kind(required)}")
            if not all(isinstance(x, str) for x in required):
                raise InvalidToolsSchemaError(_text((path, "required")), "must be a list of strings")
        present = _NESTING_SET.intersection(node)
        if not present:
            continue
        for key in sorted(present, key=_RANK.__getitem__) if len(present) > 1 else present:
            value = node[key]
            if key in _ONE:
                stack.append((value, (path, key), depth + 1))
            elif value is None:
                continue
            elif key == "items":
                if isinstance(value, list):  # the tuple form of older drafts
                    at = (path, "items")
                    stack.extend((sub, (at, i), depth + 1) for i, sub in enumerate(value))
                else:
                    stack.append((value, (path, "items"), depth + 1))
            elif key in _LISTS:
                if not isinstance(value, list):
                    raise InvalidToolsSchemaError(
                        _text((path, key)), f"must be a list of schemas, got {json_kind(value)}"
                    )
                at = (path, key)
                stack.extend((sub, (at, i), depth + 1) for i, sub in enumerate(value))
            else:  # a map of subschemas
                if type(value) is not dict and not isinstance(value, Mapping):
                    raise InvalidToolsSchemaError(_text((path, key)), f"must be an object, got {json_kind(value)}")
                at = (path, key)
                for name, sub in value.items():
                    if not isinstance(name, str):
                        raise InvalidToolsSchemaError(_text(at), f"has a non-string key {name!r:.60}")
                    stack.append((sub, (at, name), depth + 1))


__all__ = ["MAX_SCHEMA_DEPTH", "validate_tools_schema"]
