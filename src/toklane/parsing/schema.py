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

Engines pass a request's ``tools`` with every request, usually the same tools. A schema made of plain
``dict``/``list``/``str``/number values (what the plugins hand over) is remembered by value once it has
passed: keyed by its :mod:`marshal` image, which C writes in a fraction of the time the walk takes and
which only exact built-in types have (a tuple, a subclass, a pydantic model has none: walked every
time, so nothing the walk would refuse is ever let through by a lookalike). The image also records
which strings are shared, so one value built two ways (a literal, parsed JSON) may be kept twice;
each request built the same way (the engines' JSON) finds the same one. The entry found last is also
compared with the next schema first (``toklane._json.same_value``: one C pass over both that reads and
allocates nothing, type for type, so it finds only what would write the same image, shared strings
aside): the usual request, the same tools again, writes no image (``benchmarks/parsers.py
construction`` times both beside a ``get_parser`` without tools). Each distinct valid
schema has one :class:`ToolsSchema`, the validated result every equal schema gets: an owned copy
(read back from the image, so a later change to the caller's lists cannot reach a parser) and the
parsers' ``{tool: parameters}`` index, both made once, when a parser first reads them. A
:class:`ToolsSchema` passed as ``tools_schema`` is taken as it is: the one constant-time route, for
a caller that builds many parsers with the same tools. A request's tool models (what the plugins
read) are found by the fields parsers read (:func:`request_tools_schema`), the same two ways.

On a first sight the walk's verdict comes from ``toklane._json.schema_ok`` where it is built: the same
rules over exact built-in values only, read from the keyword tables here, which answers True only where
the walk accepts -- anything else (an error, a lookalike, a subclass) is walked, so every error and its
path still come from the walk; without it (no compiler, ``TOKLANE_PURE_PYTHON``) each first sight is walked.
It does not replace the image: a first sight writes one anyway, to be found and remembered by.

Why not by identity first: lists and dicts take no weak references and have no version a caller's
change would bump, so an ``id()`` hit would still have to prove that nothing inside changed -- the
same C pass over the whole schema that the compare with the last entry is, for the same cost. Nor by
``==`` against the kept copy: it is not type-exact (``1 == True``, so ``"not": 1`` would pass as
``"not": true``; a subclass or any other object answers ``==`` itself), where ``same_value`` is. Any
check of an equal copy by value reads all of it: ``same_value`` alone costs nearly twice a
``get_parser`` without tools (the benchmark's row), so ``<= 1.5x`` of it is only open to the :class:`ToolsSchema` route.
"""

from __future__ import annotations

import json
import marshal
import threading
from collections import OrderedDict
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from ..errors import InvalidToolsSchemaError, json_kind
from ..switches import pure_python

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


class ToolsSchema:
    """A validated ``tools_schema``: one object per distinct schema value, shared by every request that
    passes an equal schema (see the module's notes). ``get_parser(..., tools_schema=x)`` takes one as it
    is, with no check. Iterating it gives the tools (``dict``s, read-only: they are shared)."""

    __slots__ = ("_image", "_index", "_len", "_tools")

    def __init__(self, image: bytes, count: int):
        self._image = image
        self._len = count
        self._tools: list[Any] | None = None
        self._index: dict[str, dict[str, Any]] | None = None  # filled by the parsers (machine._schema_index)

    @property
    def tools(self) -> list[Any]:
        """The tools, as an owned copy read back from the marshal image (made on first use)."""
        tools = self._tools
        if tools is None:
            tools = self._tools = marshal.loads(self._image)
        return tools

    def __iter__(self) -> Any:
        return iter(self.tools)

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i: Any) -> Any:
        return self.tools[i]

    def __repr__(self) -> str:
        return f"<ToolsSchema: {self._len} tools, validated>"


#: Valid schemas' marshal images -> [a private copy of the value (made when it is found again: None until
#: then), its ToolsSchema, the image], least recently used first; the total size of the images, and the
#: bounds on both: a schema whose image is over a quarter of MAX_REMEMBERED_BYTES is walked every time.
_valid: OrderedDict[bytes, list[Any]] = OrderedDict()
_valid_bytes = 0
_valid_lock = threading.Lock()
MAX_REMEMBERED = 256
MAX_REMEMBERED_BYTES = 2 << 20  # images; the copies and indexes parsers read are made once each, a few times that

#: The entry of :data:`_valid` found last by its image. The next request most often passes the same
#: tools: a value is first compared with the entry's copy, by ``toklane._json.same_value`` (one C pass
#: that only reads; type for type, so only what would write the same image is the same), before any
#: image is written.
_last: list[Any] | None = None


def validate_tools_schema(tools_schema: Any) -> ToolsSchema | None:
    """Raise :class:`~toklane.errors.InvalidToolsSchemaError` naming the first malformed field.

    Returns the :class:`ToolsSchema` of a list of plain built-in values (the same object for every
    equal schema: found by value, not walked again), or None for a schema that is not remembered
    (``None``; a tuple, subclasses or models, walked every time; one too large to keep)."""
    if tools_schema is None:
        return None
    if type(tools_schema) is not list:
        if type(tools_schema) is ToolsSchema:
            return tools_schema
        _walk(tools_schema)
        return None
    found = _found(tools_schema)
    if found is not None:
        return found
    try:
        image = marshal.dumps(tools_schema, 4)
    except (ValueError, RecursionError):  # a value marshal does not write (a model, a subclass), or too deep
        _check(tools_schema)
        return None
    found = _found_image(image)
    if found is not None:
        return found
    _check(tools_schema)
    return _remember(image, len(tools_schema))


def _found(value: Any) -> ToolsSchema | None:
    """The ToolsSchema of the entry found last, where ``value`` is the same value as its copy."""
    global _last
    last = _last
    if last is None or not _same_value(value, last[0]):  # (never set without it)
        return None
    try:
        _valid.move_to_end(last[2])
    except KeyError:  # dropped since (by the bounds, or by another thread): found once more, then not
        _last = None
    return last[1]


def _found_image(image: bytes) -> ToolsSchema | None:
    """The ToolsSchema kept under ``image``, made the last one found; None where there is none."""
    global _last
    entry = _valid.get(image)
    if entry is None:
        return None
    if _same_value is not None:
        if entry[0] is None:
            entry[0] = marshal.loads(image)  # (once per entry: a first sight pays none of it)
        _last = entry
    try:  # noqa: SIM105 (contextlib.suppress costs more than this whole lookup)
        _valid.move_to_end(image)
    except KeyError:  # dropped by another thread meanwhile
        pass
    return entry[1]


def _remember(image: bytes, count: int, schema: ToolsSchema | None = None) -> ToolsSchema | None:
    """The ToolsSchema of a valid schema's image, kept; the least recently used dropped past the bounds.
    ``schema``: the one to keep under ``image`` (a request's tool fields), instead of a new one."""
    global _valid_bytes
    if len(image) > MAX_REMEMBERED_BYTES // 4:
        return schema
    with _valid_lock:
        entry = _valid.get(image)
        if entry is None:
            while _valid and (len(_valid) >= MAX_REMEMBERED or _valid_bytes + len(image) > MAX_REMEMBERED_BYTES):
                oldest, _ = _valid.popitem(last=False)
                _valid_bytes -= len(oldest)
            entry = _valid[image] = [None, ToolsSchema(image, count) if schema is None else schema, image]
            _valid_bytes += len(image)
    return entry[1]


def _forget_all() -> None:
    """Drop every remembered schema (tests and benchmarks: a first sight again)."""
    global _valid_bytes, _last
    with _valid_lock:
        _valid.clear()
        _valid_bytes = 0
        _last = None


#: A request's tool model -> the fields parsers read: (type, function name, function parameters).
_fields = attrgetter("type", "function.name", "function.parameters")


def request_tools_schema(tools: Any) -> Any:
    """A request's ``tools`` as the engines hold them (vLLM's and SGLang's pydantic tool models, or
    dicts) as a ``tools_schema``, or None for none: the :class:`ToolsSchema` of the fields parsers read
    (each tool's ``type`` and its function's ``name`` and ``parameters``, taken as they are), which an
    equal request finds by value. ``model_dump`` of a request's tools costs many times the
    rest of a parser's set-up; it is called only where those fields do not make a valid schema of plain
    values (its output then goes to the parser, which checks it -- a bad schema fails as it always did).

    Tool models are found by their fields (a tuple of ``(type, name, parameters)`` per tool, read in C):
    compared with the entry found last, else by their marshal image, kept beside the schemas' own images
    once the schema they make has passed:
    a request equal to a remembered one builds no OpenAI dicts. A tuple's image never equals a list's,
    so :func:`validate_tools_schema` never finds these keys; equal images mean type-exact equal fields,
    which make the same schema, so the remembered result is the walk's own answer for them."""
    if not tools:
        return None
    if type(tools) is not list:
        tools = list(tools)
    image: bytes | None = None
    try:
        fields = tuple(map(_fields, tools))
    except AttributeError:  # a dict among them
        pass
    else:
        found = _found(fields)
        if found is not None:
            return found
        try:
            image = marshal.dumps(fields, 4)
        except (ValueError, RecursionError):  # values marshal does not write
            pass
        else:
            found = _found_image(image)
            if found is not None:
                return found
    plain = []
    for tool in tools:
        if type(tool) is dict:
            plain.append(tool)
            continue
        fn = getattr(tool, "function", None)
        name, kind = getattr(fn, "name", None), getattr(tool, "type", "function")
        if type(name) is not str or type(kind) is not str:
            return _dumped(tools)
        params = getattr(fn, "parameters", None)
        function = {"name": name} if params is None else {"name": name, "parameters": params}
        plain.append({"type": kind, "function": function})
    try:
        checked = validate_tools_schema(plain)
    except InvalidToolsSchemaError:
        checked = None
    if checked is None:
        return _dumped(tools)
    if image is not None:
        _remember(image, len(plain), checked)
    return checked


def _dumped(tools: Any) -> list[Any]:
    """The tools as OpenAI dicts, by pydantic (what the plugins always handed over before)."""
    return [t.model_dump(mode="json", exclude_none=True) if hasattr(t, "model_dump") else t for t in tools]


def _check(tools_schema: Any) -> None:
    """The walk, unless the compiled fast accept (where built) passes the schema first."""
    if _schema_ok is None or not _schema_ok(tools_schema, _C_KINDS, MAX_SCHEMA_DEPTH):
        _walk(tools_schema)


def _walk(tools_schema: Any) -> None:
    """The check itself: each tool's name and parameters schema, walked."""
    if not isinstance(tools_schema, (list, tuple)):
        raise InvalidToolsSchemaError(
            "tools_schema", f"must be a list of tools (the OpenAI `tools` list), got {json_kind(tools_schema)}"
        )
    for k, raw in enumerate(tools_schema):
        where: Path = ("tools_schema", k)
        tool = raw if type(raw) is dict else _as_mapping(raw)
        if tool is None:
            raise InvalidToolsSchemaError(_text(where), f"must be an object (an OpenAI tool), got {json_kind(raw)}")
        if "function" in tool:
            fn = tool["function"]
            if type(fn) is not dict:
                fn = _as_mapping(fn)
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


#: What each subschema keyword holds: one subschema, ``items`` (one, or a list in older drafts), a list
#: of subschemas, a map of them.
_ONE_SUB, _ITEMS, _LIST, _MAP = range(4)
#: Keywords that keep a subschema from being passed over as a leaf where its parent finds it; what a
#: leaf's absent ``enum`` reads as (never changed).
_LEAF_STOP = _NESTING_SET | {"required"}
_NO_ENUM: list[Any] = []
_KIND = {**dict.fromkeys(_ONE, _ONE_SUB), "items": _ITEMS, **dict.fromkeys(_LISTS, _LIST), **dict.fromkeys(_MAPS, _MAP)}
#: The compiled check's table (toklane._json.schema_ok): each keyword a schema's walk reads -> _KIND's code,
#: then ``type``, ``enum``, ``required``.
_C_KINDS = {**_KIND, "type": 4, "enum": 5, "required": 6}

try:
    if pure_python():
        raise ImportError("TOKLANE_PURE_PYTHON is set")
    from .._json import same_value as _same_value
    from .._json import schema_ok as _schema_ok
except ImportError:  # built without the C extensions (or told not to use them): the walk alone, images alone
    _schema_ok = _same_value = None


#: The subschema keywords a schema holds (two or more) -> them in the order they are checked, for the
#: combinations seen (at most _MAX_RANKED of them: the key is the set of keywords, not the schema).
_ranked: dict[frozenset[str], tuple[str, ...]] = {}
_MAX_RANKED = 256


def _rank(present: frozenset[str]) -> tuple[str, ...]:
    ranked = tuple(sorted(present, key=_RANK.__getitem__))
    if len(_ranked) < _MAX_RANKED:
        _ranked[present] = ranked
    return ranked


def _check_schema(root: Any, root_path: Path) -> None:
    """Walk a JSON schema (iteratively: no recursion limit to hit), checking its keywords' shapes.
    Paths are built as links and written out only for an error (most of a small tool's check, before).

    A subschema that passes its own checks and holds no subschema keyword (a leaf: most property
    schemas, ``items`` and ``anyOf`` members) is checked where its parent finds it, never pushed; any
    other is pushed and checked (and named) in full. Leaves passed over raise nothing, so the first
    error found is the same as if every subschema were pushed."""
    stack: list[tuple[Any, Path, int]] = [(root, root_path, 0)]
    push, pop = stack.append, stack.pop
    while stack:
        node, path, depth = pop()
        if type(node) is not dict:
            if node is True or node is False:
                continue  # true / false are schemas
            if not isinstance(node, Mapping):
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
            for name in required:
                if type(name) is not str and not isinstance(name, str):
                    raise InvalidToolsSchemaError(_text((path, "required")), "must be a list of strings")
        present = _NESTING_SET.intersection(node)
        if not present:
            continue
        if len(present) > 1:
            present = _ranked.get(present) or _rank(present)
        leaves = depth < MAX_SCHEMA_DEPTH  # whether a child (depth + 1) may be passed over as a leaf
        depth += 1
        for key in present:
            value = node[key]
            kind = _KIND[key]
            if kind == _ONE_SUB:
                at, children = path, ((key, value),)
            elif value is None:
                continue
            elif kind == _MAP:
                if type(value) is not dict and not isinstance(value, Mapping):
                    raise InvalidToolsSchemaError(_text((path, key)), f"must be an object, got {json_kind(value)}")
                at, children = (path, key), value.items()
            elif isinstance(value, list):  # a list of subschemas (items: the tuple form of older drafts)
                at, children = (path, key), enumerate(value)
            elif kind == _LIST:
                raise InvalidToolsSchemaError(_text((path, key)), f"must be a list of schemas, got {json_kind(value)}")
            else:  # items: one subschema
                at, children = path, (("items", value),)
            for step, sub in children:
                if type(step) is not str and kind == _MAP and not isinstance(step, str):
                    raise InvalidToolsSchemaError(_text(at), f"has a non-string key {step!r:.60}")
                if type(sub) is dict:
                    if (
                        leaves
                        and _LEAF_STOP.isdisjoint(sub)
                        and type(sub.get("type", "")) is str
                        and type(sub.get("enum", _NO_ENUM)) is list
                    ):
                        continue  # a leaf that passes its checks (no "required", which needs a loop)
                elif sub is True or sub is False:
                    continue
                push((sub, (at, step), depth))


__all__ = ["MAX_SCHEMA_DEPTH", "ToolsSchema", "request_tools_schema", "validate_tools_schema"]
