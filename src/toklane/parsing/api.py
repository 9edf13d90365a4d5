"""``get_parser``, ``parse`` and the format registry."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from typing import Any

from ..errors import InvalidTokenIdError, UnknownFormatError, nearest_names, spelling
from ..tokenizer import Tokenizer, load_tokenizer
from .cache import PROTOTYPES, TABLES, keep_prototype, tables_for
from .formats import format_modules
from .machine import UNKNOWN_TOOLS, StreamParser, ThinkToolsParser
from .schema import ToolsSchema, validate_tools_schema
from .spec import REASONING_CUT, ReasoningFormat, ToolFormat
from .tables import Tables
from .types import ParseResult

_REASONING: dict[str, ReasoningFormat] = {}
_TOOLS: dict[str, ToolFormat] = {}
# Every accepted name -> its format: canonical names and the peers' registry names (aliases).
_REASONING_NAMES: dict[str, ReasoningFormat] = {}
_TOOL_NAMES: dict[str, ToolFormat] = {}
_loaded = False
_load_lock = threading.Lock()


def _registry() -> None:
    global _loaded
    with _load_lock:
        if _loaded:
            return
        for name in format_modules():
            module = importlib.import_module(f"{__package__}.formats.{name}")
            reasoning = getattr(module, "REASONING", None)
            if reasoning is not None:
                _register(_REASONING, _REASONING_NAMES, reasoning, "reasoning")
            tools = getattr(module, "TOOLS", None)
            if tools is not None:
                _register(_TOOLS, _TOOL_NAMES, tools, "tool")
        _loaded = True


def _register(formats: dict[str, Any], names: dict[str, Any], fmt: Any, kind: str) -> None:
    """Add a format under its name and aliases; a name given twice is a bug in the format modules."""
    for key in (fmt.name, *fmt.aliases):
        seen = names.get(key)
        if seen is not None and seen is not fmt:
            raise RuntimeError(f"{kind} format name {key!r} is claimed by both {seen.name!r} and {fmt.name!r}")
        names[key] = fmt
    formats[fmt.name] = fmt


def reasoning_formats() -> list[str]:
    """Names of the reasoning formats ``get_parser(reasoning=...)`` accepts (aliases: :func:`format_catalog`)."""
    if not _loaded:
        _registry()
    return sorted(_REASONING)


def tool_formats() -> list[str]:
    """Names of the tool-call formats ``get_parser(tools=...)`` accepts (aliases: :func:`format_catalog`)."""
    if not _loaded:
        _registry()
    return sorted(_TOOLS)


def describe_formats() -> dict[str, dict[str, str]]:
    """``{"reasoning": {name: description}, "tools": {name: description}}``."""
    if not _loaded:
        _registry()
    return {
        "reasoning": {k: v.description for k, v in sorted(_REASONING.items())},
        "tools": {k: v.description for k, v in sorted(_TOOLS.items())},
    }


def format_catalog() -> dict[str, list[dict[str, Any]]]:
    """Every format with its aliases (the peers' registry names), family and description."""
    if not _loaded:
        _registry()

    def rows(table: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"name": k, "aliases": sorted(v.aliases), "family": v.family, "description": v.description}
            for k, v in sorted(table.items())
        ]

    return {"reasoning": rows(_REASONING), "tools": rows(_TOOLS)}


def tool_format(name: str) -> ToolFormat:
    """The tool format called ``name`` (or one of its aliases, or either spelled with other case or
    ``-`` for ``_`` where only one format matches); :class:`UnknownFormatError` if none."""
    if not _loaded:
        _registry()
    fmt = _TOOL_NAMES.get(name) if isinstance(name, str) else None
    return fmt if fmt is not None else _lenient("tool", name, _TOOL_NAMES, _TOOLS)


def reasoning_format(name: str) -> ReasoningFormat:
    """The reasoning format called ``name`` (or one of its aliases, or either spelled with other case or
    ``-`` for ``_`` where only one format matches); :class:`UnknownFormatError` if none."""
    if not _loaded:
        _registry()
    fmt = _REASONING_NAMES.get(name) if isinstance(name, str) else None
    return fmt if fmt is not None else _lenient("reasoning", name, _REASONING_NAMES, _REASONING)


#: Names found by :func:`_lenient` (at most _SPELLED_MAX: every case variant of a name is a new key).
_SPELLED: dict[tuple[str, str], Any] = {}
_SPELLED_MAX = 1024


def _lenient(kind: str, name: object, names: dict[str, Any], formats: dict[str, Any]) -> Any:
    """The one format whose name or alias is ``name`` but for case and ``-``/``_``/space; else
    :class:`UnknownFormatError` with the nearest names (or the ambiguous ones)."""
    if not isinstance(name, str):
        raise UnknownFormatError(kind, str(name), formats, ())
    found = _SPELLED.get((kind, name))
    if found is not None:
        return found
    key = spelling(name)
    matches = {fmt.name: fmt for alias, fmt in names.items() if spelling(alias) == key}
    if len(matches) == 1:
        fmt = next(iter(matches.values()))
        if len(_SPELLED) < _SPELLED_MAX:
            _SPELLED[kind, name] = fmt
        return fmt
    near = sorted(matches) or list(dict.fromkeys(names[n].name for n in nearest_names(name, names)))
    raise UnknownFormatError(kind, name, formats, near)


class FormatCombo:
    """A validated (reasoning, tools) pair: its formats, machine class and table key."""

    __slots__ = ("cls", "key", "rfmt", "tfmt")

    def __init__(self, rfmt: ReasoningFormat | None, tfmt: ToolFormat | None):
        self.rfmt = rfmt
        self.tfmt = tfmt
        self.key = (rfmt.name if rfmt else "", tfmt.name if tfmt else "")
        machine = (rfmt.machine if rfmt is not None else None) or (tfmt.machine if tfmt is not None else None)
        self.cls: type[StreamParser] = ThinkToolsParser if machine is None else machine


# get_parser's prototypes, per tokenizer object (freed with it; :mod:`.cache`): the arguments
# (reasoning, tools, thinking, stream_arguments, unknown_tools) -> (parser class, starting state, reader).
# Only validated arguments with a bool/None thinking and stream_arguments are stored: bounded by the
# formats. The state holds no tokenizer (a cache that held it would keep it alive): get_parser gives
# each copy its tokenizer; the reader loads lazy tables through the tables' weak reference. A warm
# lookup reads ``tokenizer.__weakref__``: the first weak reference to it, which is the basic one that
# keys its entries once it has any (CPython keeps it first), so the key is found by identity, as fast
# as an attribute read (another reference there would still match: weak references compare by referent).
_SHARED = frozenset({"_tables", "_reasoning_fmt", "_tools", "_split"})  # read-only objects every parser shares
_SCALARS = frozenset({str, int, bool, float, bytes, type(None)})


def _keep_prototype(tok: Tokenizer, key: tuple[Any, ...], parser: StreamParser) -> None:
    """Keep a just-made parser's starting state for :func:`get_parser` to copy into the next parser
    made with the same arguments -- unless it holds a mutable value (then every such parser is built:
    never one that shares state with another)."""
    state = dict(parser.__dict__)
    state.pop("_tok", None)
    for k, v in state.items():
        if k not in _SHARED and type(v) not in _SCALARS and not (type(v) is tuple and not v):
            return
    # The third member reads whole outputs for parse(): a parser in the starting state that is only
    # read (parse_whole_fresh), so parse() makes no copy unless the machine must read the output.
    reader = type(parser)()
    reader.__dict__ = dict(state)
    keep_prototype(tok, key, (type(parser), state, reader))


# Only validated pairs of known names are stored: bounded by the format tables.
_COMBOS: dict[tuple[Any, Any], FormatCombo] = {}
_CANONICAL: dict[tuple[str, str], FormatCombo] = {}


def format_combo(reasoning: Any, tools: Any) -> FormatCombo:
    if not _loaded:
        _registry()
    rfmt = tfmt = None
    if reasoning is not None:
        rfmt = reasoning_format(reasoning)
    if tools is not None:
        tfmt = tool_format(tools)
    if rfmt is not None and tfmt is not None and rfmt.machine is not tfmt.machine:
        reader = rfmt if rfmt.machine is not None else tfmt
        raise ValueError(
            f"reasoning format {rfmt.name!r} and tool format {tfmt.name!r} cannot be combined: "
            f"{reader.name!r} is read by {reader.machine.__name__}, which reads only its own family's formats"
        )
    combo = FormatCombo(rfmt, tfmt)
    # One object per canonical pair (aliases share it): it keys the per-tokenizer tables.
    combo = _COMBOS[(reasoning, tools)] = _CANONICAL.setdefault(combo.key, combo)
    return combo


def _build_tables(tok: Tokenizer, rfmt: ReasoningFormat | None, tfmt: ToolFormat | None) -> Tables:
    markers = []
    purpose: dict[str, str] = {}
    tool_texts = {m.text for m in tfmt.markers} if tfmt is not None else set()
    if rfmt is not None:
        for m in rfmt.marker_list():
            if m.role == REASONING_CUT and m.text in tool_texts:
                continue  # the tool format reads it: as the start of its block
            markers.append(m)
            purpose[m.role] = f"{rfmt.name} reasoning marker"
    if tfmt is not None:
        for m in tfmt.markers:
            markers.append(m)
            purpose.setdefault(m.role, f"{tfmt.name} tool-call marker")
    keep = frozenset((*(rfmt.keep_tokens if rfmt else ()), *(tfmt.keep_tokens if tfmt else ())))
    return Tables(tok, markers, purpose, keep)


def get_parser(
    tokenizer: Any,
    reasoning: str | None = None,
    tools: str | None = None,
    tools_schema: Any = None,
    *,
    thinking: bool | None = None,
    stream_arguments: bool = False,
    unknown_tools: str = "keep",
) -> StreamParser:
    """A new streaming parser for one request (one choice) of a model's output.

    ``tokenizer``: a :class:`toklane.Tokenizer` or anything
    :func:`toklane.load_tokenizer` accepts. ``reasoning`` / ``tools``: names
    from :func:`reasoning_formats` / :func:`tool_formats`. ``tools_schema``:
    the request's OpenAI ``tools`` list (``qwen3_coder`` converts values by
    it). ``thinking``: whether the output starts inside reasoning (default:
    the format's -- ``True`` where templates pre-fill the start marker; pass
    ``False`` when the prompt closed reasoning, e.g. ``enable_thinking=False``).
    ``stream_arguments``: send a call's name and argument fragments as soon as
    they are validated, instead of each call whole once it is complete.
    ``unknown_tools``: what happens to a call of a tool that ``tools_schema``
    does not list -- ``"keep"`` (the default, as vLLM does: it is returned),
    ``"drop"`` (as SGLang does by default: it is not returned), ``"content"``
    (its text, as the model wrote it up to the end of its arguments, is
    content). Without ``tools_schema`` every call is kept.

    Construction calls no tokenizer method that encodes or decodes: marker ids
    come from the cached added-token table, per-tokenizer tables are cached
    weakly by the tokenizer object. A marker the tokenizer lacks raises
    :class:`toklane.MissingTokenError`; an unknown format name,
    :class:`toklane.UnknownFormatError`.
    """
    if type(tokenizer) is Tokenizer:  # warm: copy the prototype of these arguments
        key = (reasoning, tools, thinking, stream_arguments, unknown_tools)
        try:
            cls, state, _ = PROTOTYPES[tokenizer.__weakref__][key]
        except (KeyError, TypeError):  # (TypeError: an unhashable argument, refused below)
            pass
        else:
            state = state.copy()
            if tools_schema is not None:  # StreamParser._take_schema, without a call of its own
                if type(tools_schema) is not ToolsSchema:
                    checked = validate_tools_schema(tools_schema)
                    if checked is not None:
                        tools_schema = checked
                state["_schema"] = tools_schema
                if unknown_tools != "keep":
                    state["_unknown"] = unknown_tools
            state["_tok"] = tokenizer
            parser = cls()
            parser.__dict__ = state
            return parser
    parser = _build_parser(tokenizer, reasoning, tools, thinking, stream_arguments, unknown_tools)
    if tools_schema is not None:
        parser._take_schema(tools_schema, unknown_tools)
    return parser


def _build_parser(
    tokenizer: Any,
    reasoning: str | None,
    tools: str | None,
    thinking: bool | None,
    stream_arguments: bool,
    unknown_tools: str,
) -> StreamParser:
    """:func:`get_parser` without a prototype or a schema: names resolved, tables found or built, the
    parser built (and kept as the prototype of these arguments where it can be). A function of its own: its closure
    would make every get_parser call set up cells."""
    tok = tokenizer if type(tokenizer) is Tokenizer else load_tokenizer(tokenizer)
    combo = _COMBOS.get((reasoning, tools))
    if combo is None:
        combo = format_combo(reasoning, tools)
    rfmt, tfmt = combo.rfmt, combo.tfmt
    try:
        tables = TABLES[tok.__weakref__][combo]
    except KeyError:
        tables = tables_for(tok, combo, lambda: _build_tables(tok, rfmt, tfmt))
    if unknown_tools != "keep" and unknown_tools not in UNKNOWN_TOOLS:
        raise ValueError(f"unknown_tools must be one of {', '.join(map(repr, UNKNOWN_TOOLS))}, not {unknown_tools!r}")
    parser = combo.cls.build(tok, tables, rfmt, tfmt, None, thinking, stream_arguments, unknown_tools)
    if (
        tok is tokenizer
        and (thinking is None or thinking is True or thinking is False)
        and (stream_arguments is True or stream_arguments is False)
    ):
        _keep_prototype(tok, (reasoning, tools, thinking, stream_arguments, unknown_tools), parser)
    return parser


def parse(
    tokenizer: Any,
    text: str | None = None,
    token_ids: Any = None,
    reasoning: str | None = None,
    tools: str | None = None,
    tools_schema: Any = None,
    *,
    thinking: bool | None = None,
    unknown_tools: str = "keep",
) -> ParseResult:
    """Parse a whole output: what concatenating a stream's deltas gives, for any chunking.

    Pass ``text``, ``token_ids`` or both (the ids decide). Malformed output
    never raises: a broken tool call is returned as content (docs/formats.md).
    """
    if type(tokenizer) is Tokenizer and tools_schema is None:  # warm: the prototype reads it
        try:
            _, state, reader = PROTOTYPES[tokenizer.__weakref__][(reasoning, tools, thinking, False, unknown_tools)]
        except (KeyError, TypeError):
            pass
        else:
            return reader.parse_whole_fresh(state, text, token_ids)  # type: ignore[no-any-return]
    parser = get_parser(tokenizer, reasoning, tools, tools_schema, thinking=thinking, unknown_tools=unknown_tools)
    return parser.parse_whole(text, token_ids)


def parse_batch(
    tokenizer: Any,
    outputs: Iterable[Any],
    reasoning: str | None = None,
    tools: str | None = None,
    tools_schema: Any = None,
    *,
    thinking: bool | None = None,
    unknown_tools: str = "keep",
) -> list[ParseResult]:
    """Parse many whole outputs of one model with one format (the RL rollout case).

    ``outputs``: texts (``str``) or token-id sequences (lists, tuples, integer numpy arrays, or
    the rows of a 2-D array), in any mix. Returns one :class:`ParseResult` per output, in order,
    each equal to ``parse(tokenizer, ...)`` of that output with the same arguments. Arguments are
    checked once, and each output's parser is a copy of the first one's starting state. A bad id
    raises :class:`toklane.InvalidTokenIdError` noting which output holds it.
    """
    first = get_parser(tokenizer, reasoning, tools, tools_schema, thinking=thinking, unknown_tools=unknown_tools)
    # Every output is parsed through the first parser, which is only read; where the machine must read one,
    # by a copy of its starting state (as get_parser copies a prototype; the schema was checked once):
    # what _setup sets is immutable or shared read-only.
    state = dict(first.__dict__)
    whole = first.parse_whole_fresh
    results: list[ParseResult] = []
    for i, out in enumerate(outputs):
        try:
            results.append(whole(state, out, None) if type(out) is str else whole(state, None, out))
        except InvalidTokenIdError as e:
            e.add_note(f"in output {i} of the batch")
            raise
    return results
