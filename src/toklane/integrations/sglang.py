"""toklane's parsers inside SGLang: every format as ``toklane_<format>`` for ``--tool-call-parser``
and ``--reasoning-parser``.

:func:`register` adds one SGLang function-call detector per toklane tool format to
``FunctionCallParser.ToolCallParserEnum`` and one reasoning detector per toklane reasoning format to
``ReasoningParser.DetectorMap``, each under ``toklane_<name>`` for the format's name and every alias
(``toklane_hermes``, ``toklane_qwen25``, ``toklane_qwen3`` ...). Run it in the server process before
SGLang reads its arguments: an entry point in SGLang's ``sglang.srt.plugins`` group does that for
every SGLang process (``load_plugins()``). Tested with SGLang 0.5.23.

What SGLang gets:

* :class:`ToklaneFunctionCallDetector` subclasses (``BaseFormatDetector``): ``detect_and_parse``
  returns SGLang's ``StreamingParseResult`` with ``ToolCallItem`` objects (``tool_index``: the
  tool's position in the request's tools, as SGLang's own detectors give it); streaming keeps one
  toklane parser per request, fed only each chunk's new text, and sends each call whole once it is
  complete and valid -- a ``ToolCallItem`` with the name (``tool_index``: the call's ordinal in the
  response, as SGLang streams it), then one with the arguments -- never a call that later turns
  out broken, so a stream equals the whole output's parse. Calls of tools the request does not
  declare are dropped, as SGLang's detectors drop them, unless ``SGLANG_FORWARD_UNKNOWN_TOOLS``
  is set.
* :class:`ToklaneReasoningDetector` subclasses (``BaseReasoningFormatDetector``): ``force_reasoning``
  is toklane's ``thinking`` (True: the output starts inside reasoning; False: it does not, as with
  ``enable_thinking=False``, and only a start marker opens reasoning, as in SGLang's detectors);
  not given, the format's own default applies. ``stream_reasoning=False`` holds reasoning back
  until it ends (or the stream does), as SGLang's detectors do; ``force_nonempty_content`` makes
  reasoning the content of an answer that has none; ``continue_final_message`` starts inside
  reasoning when the continued message opened it.

SGLang runs the reasoning parser first and gives the tool-call parser the content only, so a call
the model opens inside its reasoning is read as reasoning, as SGLang's own pairs read it (toklane's
joint parse, :func:`toklane.parse` with both formats, would return it as a call).

Constrained decoding: the detectors build no structural tags (``supports_structural_tag()`` is
False), so ``tool_choice="required"`` or a named function takes SGLang's JSON-schema path, whose
output SGLang reads with its own ``JsonArrayParser``; ``tool_choice="auto"`` (the default) is
unconstrained and read by toklane.

The tokenizer SGLang passes is wrapped once by :func:`toklane.load_tokenizer` (cached weakly by the
object).
"""

from __future__ import annotations

import sys
from typing import Any

try:
    from sglang.srt.environ import envs
    from sglang.srt.function_call.base_format_detector import BaseFormatDetector
    from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, ReasoningParser
    from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("toklane.integrations.sglang needs SGLang (tested with sglang==0.5.23)") from exc

from ..decoding.thinking import thinking_plan
from ..errors import InvalidArgumentError, ToklaneError
from ..parsing import format_catalog, get_parser, parse
from ..parsing.api import format_combo
from ..parsing.cache import tables_for
from ..parsing.schema import request_tools_schema
from ..parsing.tables import Tables
from ..parsing.types import Delta, ParseResult
from ..reasoning_markers import markers_for
from ..tokenizer import Tokenizer, load_tokenizer

__all__ = ["PREFIX", "ToklaneFunctionCallDetector", "ToklaneReasoningDetector", "register"]

PREFIX = "toklane_"


def _tokenizer(tokenizer: Any, name: str, where: str) -> Tokenizer:
    if tokenizer is None:
        raise InvalidArgumentError("tokenizer", f"is required by {PREFIX}{name}: pass the model's tokenizer to {where}")
    return tokenizer if type(tokenizer) is Tokenizer else load_tokenizer(tokenizer)


def _schema(tools: Any) -> Any:
    """SGLang's ``Tool`` objects as toklane's ``tools_schema`` (validated, found by value), or None."""
    return request_tools_schema(tools)


def _unknown_tools() -> str:
    """SGLang drops calls of undeclared tools unless SGLANG_FORWARD_UNKNOWN_TOOLS is set."""
    return "keep" if envs.SGLANG_FORWARD_UNKNOWN_TOOLS.get() else "drop"


# --------------------------------------------------------------------------- tools


class ToklaneFunctionCallDetector(BaseFormatDetector):
    """SGLang function-call detector over toklane's format :attr:`tools_format` (one subclass per format)."""

    tools_format: str = ""

    def __init__(self, tokenizer: Any = None) -> None:
        super().__init__()
        self._tok = _tokenizer(tokenizer, self.tools_format, "FunctionCallParser(..., tokenizer=...)")
        get_parser(self._tok, tools=self.tools_format)  # a missing marker fails at start-up
        self._unknown = _unknown_tools()
        self._stream: Any = None
        self._last: tuple[str, ParseResult] | None = None  # has_tool_call's last text and parse

    # ---- whole output
    def _parse(self, text: str, tools: Any) -> ParseResult:
        schema = _schema(tools)
        return parse(self._tok, text=text, tools=self.tools_format, tools_schema=schema, unknown_tools=self._unknown)

    def has_tool_call(self, text: str) -> bool:
        """Whether toklane reads anything in ``text`` as a call (SGLang parses only then, and otherwise
        keeps the text whole as content)."""
        last = self._last  # SGLang asks twice (serving code, then parse_non_stream): parse once
        if last is not None and last[0] == text:
            result = last[1]
        else:
            result = parse(self._tok, text=text, tools=self.tools_format)
            self._last = (text, result)
        return bool(result.tool_calls) or (result.content or "") != text

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        result = self._parse(text, tools)
        positions = self._get_tool_indices(tools or [])
        calls = [
            ToolCallItem(tool_index=positions.get(c.name, -1), name=c.name, parameters=c.arguments)
            for c in result.tool_calls
        ]
        return StreamingParseResult(normal_text=result.content or "", calls=calls)

    # ---- streaming
    def _result(self, d: Delta) -> StreamingParseResult:
        items: list[ToolCallItem] = []
        for c in d.tool_calls:
            if c.name is not None:  # a new call: its name first, as SGLang's detectors stream it
                items.append(ToolCallItem(tool_index=c.index, name=c.name, parameters=""))
                self.prev_tool_call_arr.append({"name": c.name, "arguments": ""})
                self.streamed_args_for_tool.append("")
                self.current_tool_id = c.index
            if c.arguments:
                items.append(ToolCallItem(tool_index=c.index, parameters=c.arguments))
                # What SGLang's serving code checks at the end for arguments never streamed: all were.
                self.prev_tool_call_arr[-1]["arguments"] += c.arguments
                self.streamed_args_for_tool[-1] += c.arguments
        # calls= given: pydantic deep-copies a default list, a cost on every chunk
        return StreamingParseResult(normal_text=d.content, calls=items)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        stream = self._stream
        if stream is None:
            stream = self._stream = get_parser(
                self._tok, tools=self.tools_format, tools_schema=_schema(tools), unknown_tools=self._unknown
            )
        if not new_text or stream.finished:
            return StreamingParseResult(normal_text="", calls=[])
        d = stream.feed(text=new_text)
        if not d.tool_calls:  # the common chunk: text only
            return StreamingParseResult(normal_text=d.content, calls=[])
        return self._result(d)

    def finish(self, tools: Any) -> StreamingParseResult:
        """What the stream still holds (text that could have begun a marker, a call cut off), at its end."""
        if self._stream is None or self._stream.finished:
            return StreamingParseResult()
        return self._result(self._stream.finish())

    # ---- constrained decoding
    def supports_structural_tag(self) -> bool:
        """No: ``tool_choice="required"`` / named functions take SGLang's JSON-schema path."""
        return False

    def structure_info(self) -> Any:
        raise NotImplementedError(
            f"{PREFIX}{self.tools_format} builds no structural tag: use tool_choice 'auto', or SGLang's own "
            "--tool-call-parser for this format when the tool-call format itself must be constrained"
        )


# --------------------------------------------------------------------------- reasoning


def _marker_texts(tok: Tokenizer, fmt: str) -> tuple[str, str, bool]:
    """The format's start and end marker texts, and whether its output starts inside reasoning by default."""
    try:
        markers = thinking_plan(tok, fmt).markers
    except ToklaneError:
        markers = markers_for(fmt)
    if markers is None:
        return "", "", False
    return markers.start or "", markers.end or "", markers.implicit_start


def _keep_special_tables(tok: Tokenizer, combo: Any) -> Tables:
    """A reasoning format's tables that read every added special token that is no marker as text."""
    markers = list(combo.rfmt.marker_list())
    purpose = {m.role: f"{combo.rfmt.name} reasoning marker" for m in markers}
    keep = frozenset((*combo.rfmt.keep_tokens, *(t.content for t in tok.added_tokens if t.special and t.content)))
    return Tables(tok, markers, purpose, keep)


class ToklaneReasoningDetector(BaseReasoningFormatDetector):
    """SGLang reasoning detector over toklane's format :attr:`reasoning_format` (one subclass per format).

    ``think_start_token`` / ``think_end_token`` hold the format's marker texts (SGLang's grammar
    backend asks for the end marker's ids); parsing is toklane's, one stream per request.
    """

    reasoning_format: str = ""

    def __init__(
        self,
        tokenizer: Any = None,
        stream_reasoning: bool = True,
        force_reasoning: bool | None = None,
        continue_final_message: bool = False,
        previous_content: str = "",
        force_nonempty_content: bool = False,
        tool_call_parser_active: bool = False,
    ) -> None:
        tok = _tokenizer(tokenizer, self.reasoning_format, "ReasoningParser(..., tokenizer=...)")
        start, end, implicit = _marker_texts(tok, self.reasoning_format)
        super().__init__(
            start,
            end,
            force_reasoning=bool(force_reasoning),
            stream_reasoning=stream_reasoning,
            continue_final_message=continue_final_message,
            previous_content=previous_content or "",
            # Where SGLang cannot read the chat template's thinking switch, its serving code forces
            # reasoning by this: the toklane format's own default ("always" where templates pre-fill
            # the start marker, None: not forced).
            reasoning_default="always" if implicit else None,  # type: ignore[arg-type]
            force_nonempty_content=force_nonempty_content,
        )
        self._tok = tok
        # SGLang's force_reasoning is toklane's thinking: True, the output starts inside reasoning; False, it
        # does not (enable_thinking=False); not given, the format's default.
        self._thinking: bool | None = force_reasoning
        previous = self.previous_content
        if previous and start and end:  # the continued message opened (or closed) reasoning
            opened, closed = previous.rfind(start), previous.rfind(end)
            if opened > closed:
                self._thinking = True
            elif closed >= 0:
                self._thinking = False
        # Content that SGLang hands on to a tool-call parser keeps the special tokens (tool-call markers)
        # that toklane would otherwise drop from content, as decode(skip_special_tokens=True) does.
        self._keep_special = tool_call_parser_active
        self._stream = self._new_stream()
        self._held = ""  # reasoning held back (stream_reasoning=False)
        self._reasoning_seen = ""  # all reasoning (force_nonempty_content)
        self._answered = False  # content was sent (force_nonempty_content)
        self._direct = self.stream_reasoning and not self._force_nonempty_content

    def _new_stream(self) -> Any:
        if not self._keep_special:
            return get_parser(self._tok, reasoning=self.reasoning_format, thinking=self._thinking)
        combo = format_combo(self.reasoning_format, None)
        if not combo.rfmt.marker_list():  # no marker to read: the format's own parser reads it
            return get_parser(self._tok, reasoning=self.reasoning_format, thinking=self._thinking)
        tables = tables_for(self._tok, ("sglang:keep-special", combo), lambda: _keep_special_tables(self._tok, combo))
        return combo.cls.build(self._tok, tables, combo.rfmt, None, None, self._thinking, False, "keep")

    def detect_and_parse(self, text: str) -> ReasoningResult:
        result = self._new_stream().parse_whole(text)
        reasoning, content = result.reasoning or "", result.content or ""
        if self._force_nonempty_content and not content:
            reasoning, content = "", reasoning
        return ReasoningResult(normal_text=content, reasoning_text=reasoning)

    def _result(self, d: Delta, at_end: bool = False) -> ReasoningResult:
        reasoning, content = d.reasoning, d.content
        if not self.stream_reasoning:
            self._held += reasoning
            reasoning = ""
            if self._held and (at_end or not self._stream.in_reasoning):
                reasoning, self._held = self._held, ""
        if self._force_nonempty_content:
            self._reasoning_seen += d.reasoning
            self._answered = self._answered or bool(content)
            if at_end and not self._answered:
                return ReasoningResult(normal_text=self._reasoning_seen)
        return ReasoningResult(normal_text=content, reasoning_text=reasoning)

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        stream = self._stream
        if not new_text or stream.finished:
            return ReasoningResult()
        d = stream.feed(text=new_text)
        if self._direct:  # reasoning streamed as it comes, no content forced: the delta as it is
            return ReasoningResult(d.content, d.reasoning)
        return self._result(d)

    def finish(self) -> ReasoningResult:
        if self._stream.finished:
            return ReasoningResult()
        return self._result(self._stream.finish(), at_end=True)


# --------------------------------------------------------------------------- registration

_TOOLS: dict[str, type[ToklaneFunctionCallDetector]] = {}
_REASONING: dict[str, type[ToklaneReasoningDetector]] = {}


def _build_classes() -> None:
    """One class per format, keyed ``toklane_<name>`` for its name and every alias."""
    if _TOOLS:
        return
    catalog = format_catalog()
    for kind, table, base, attr, suffix in (
        ("tools", _TOOLS, ToklaneFunctionCallDetector, "tools_format", "Detector"),
        ("reasoning", _REASONING, ToklaneReasoningDetector, "reasoning_format", "ReasoningDetector"),
    ):
        for entry in catalog[kind]:
            name = entry["name"]
            cls_name = "Toklane" + "".join(p.capitalize() for p in name.split("_")) + suffix
            cls = type(cls_name, (base,), {attr: name, "__module__": __name__})
            globals()[cls_name] = cls
            for key in (name, *entry["aliases"]):
                table[(PREFIX + key).lower()] = cls  # type: ignore[assignment]


#: SGLang's serving method that keeps special tokens in the text for the reasoning parsers it knows
#: need them; toklane's hook adds its own (see :func:`_keep_special_tokens`).
_SERVING_MODULE = "sglang.srt.entrypoints.openai.serving_chat"
_SKIP_SPECIAL_TARGET = _SERVING_MODULE + ".OpenAIServingChat._patch_reasoning_skip_special_tokens"
_hooked = False


def _keep_special_tokens(result: Any, serving: Any, request: Any, *args: Any, **kwargs: Any) -> None:
    """After SGLang's ``_patch_reasoning_skip_special_tokens``: a toklane reasoning parser reads the
    detokenized text with special tokens kept (``skip_special_tokens=False``), as vLLM's plugin asks
    vLLM. Without it a request with no tools (SGLang keeps special tokens only where a tool-call
    parser runs) loses every marker that is a special token -- DeepSeek-style ``<think>``, Cohere's
    ``<|START_THINKING|>`` -- and its reasoning is read as content. Special tokens that are no marker
    are dropped from the answer by toklane, as ``skip_special_tokens`` would have."""
    if str(getattr(serving, "reasoning_parser", None) or "").startswith(PREFIX) and hasattr(
        request, "skip_special_tokens"
    ):
        request.skip_special_tokens = False


def _hook_serving() -> None:
    """Register :func:`_keep_special_tokens` with SGLang's plugin hook registry (applied by
    ``load_plugins()`` in each SGLang process), and apply it now where the serving module is loaded."""
    global _hooked
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    if not _hooked:
        HookRegistry.register(_SKIP_SPECIAL_TARGET, _keep_special_tokens, HookType.AFTER)
        _hooked = True
    if _SERVING_MODULE in sys.modules:  # register() by hand, after SGLang's serving code was imported
        HookRegistry.apply_hooks()


def register() -> None:
    """Register every toklane format with SGLang as ``toklane_<format>`` (idempotent), and the hook
    that keeps special tokens in the text a toklane reasoning parser reads."""
    _build_classes()
    FunctionCallParser.ToolCallParserEnum.update(_TOOLS)
    ReasoningParser.DetectorMap.update(_REASONING)
    # The CLI's --tool-call-parser / --reasoning-parser choices, where SGLang reads them from these lists.
    from sglang.srt.function_call import parser_names
    from sglang.srt.parser import reasoning_parser_names

    for names, new in (
        (parser_names.TOOL_CALL_PARSER_NAMES, _TOOLS),
        (reasoning_parser_names.REASONING_PARSER_NAMES, _REASONING),
    ):
        names.extend(n for n in new if n not in names)
    _hook_serving()
