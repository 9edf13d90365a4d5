"""toklane's parsers inside vLLM: every format as ``toklane_<format>`` for ``--tool-call-parser`` and
``--reasoning-parser``.

Installing toklane next to vLLM makes the names available (the ``vllm.general_plugins`` entry point
runs :func:`register` in every vLLM process); ``--tool-parser-plugin`` /
``--reasoning-parser-plugin`` with the path of ``toklane/integrations/vllm_plugin.py`` does the same
by hand. Tested with vLLM 0.33.

What vLLM gets:

* :class:`ToklaneParser`, vLLM's unified ``Parser``: when the flags name toklane formats (both, or
  one and no other), :func:`register` has vLLM's parser composition return it. It runs ONE
  toklane stream per request over reasoning and tool calls together, fed only each step's new
  text, so a stream equals :func:`toklane.parse` of the whole output, whatever the steps
  (reasoning after content, calls opened inside reasoning, markers split across steps). Forced
  tool choices (``"required"``, a named function) are constrained by vLLM's JSON schema, as for its
  own parsers, and read by toklane after the reasoning (:mod:`toklane.integrations._forced`), each
  call sent whole, streamed and whole alike.
* The reasoning parsers' ``reasoning_start_str`` / ``reasoning_end_str`` (the format's markers),
  from which vLLM builds its ``ReasoningConfig``: vLLM's own ``thinking_token_budget`` works with a
  toklane reasoning parser.
* ``ThinkingBudgetLogitsProcessor`` (from :mod:`toklane.integrations.vllm_logits`): the thinking
  budget as a vLLM v1 logits processor.
* :class:`ToklaneReasoningParser` and :class:`ToklaneToolParser` subclasses per format, vLLM's
  separate ``ReasoningParser`` / ``ToolParser`` interfaces, for code that builds them on their
  own: vLLM's structured-output engine asks the reasoning parser whether token ids end reasoning
  (answered on the ids, for every split of a text marker), and a ``DelegatingParser`` pairing
  one of ours with another parser uses them phase by phase, as vLLM's own do.

Parsers read text, as vLLM's own do: :meth:`adjust_request` keeps special tokens in the
detokenized text (``skip_special_tokens=False``), so markers that are special tokens reach them.
The tokenizer vLLM passes is wrapped once by :func:`toklane.load_tokenizer` (cached weakly by
the object).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

try:
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionNamedToolChoiceParam
    from vllm.parser.abstract_parser import DelegatingParser
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParser, ReasoningParserManager
    from vllm.renderers.chat_utils import make_tool_call_id
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("toklane.integrations.vllm needs vLLM (tested with vllm==0.33.0)") from exc

from ..decoding.thinking import prompt_state, thinking_plan
from ..parsing import format_catalog, get_parser, parse
from ..parsing.api import reasoning_format
from ..parsing.schema import request_tools_schema
from ..parsing.types import Delta, ParseResult
from ..tokenizer import Tokenizer, load_tokenizer
from ._forced import ForcedCalls

__all__ = [
    "PREFIX",
    "ToklaneParser",
    "ToklaneReasoningParser",
    "ToklaneToolParser",
    "register",
]

PREFIX = "toklane_"
logger = logging.getLogger(__name__)


def _tokenizer(tokenizer: Any) -> Tokenizer:
    return tokenizer if type(tokenizer) is Tokenizer else load_tokenizer(tokenizer)


def _schema(request: Any) -> Any:
    """The request's tools as toklane's ``tools_schema`` (validated, found by value), or None."""
    return request_tools_schema(getattr(request, "tools", None))


def _keep_special_tokens(request: Any) -> Any:
    if hasattr(request, "skip_special_tokens"):
        request.skip_special_tokens = False  # markers that are special tokens must reach the text
    return request


def _delta_message(d: Delta) -> DeltaMessage | None:
    """vLLM's ``DeltaMessage`` for a toklane delta, or None when it carries nothing."""
    calls = [
        DeltaToolCall(
            index=c.index,
            id=c.id,
            type="function" if c.id is not None else None,
            function=DeltaFunctionCall(name=c.name, arguments=c.arguments),
        )
        for c in d.tool_calls
    ]
    if not (d.reasoning or d.content or calls):
        return None
    return DeltaMessage(reasoning=d.reasoning or None, content=d.content or None, tool_calls=calls)


def _merge(a: DeltaMessage | None, b: DeltaMessage | None) -> DeltaMessage | None:
    if a is None or b is None:
        return a or b
    if b.reasoning:
        a.reasoning = (a.reasoning or "") + b.reasoning
    if b.content:
        a.content = (a.content or "") + b.content
    a.tool_calls = [*a.tool_calls, *b.tool_calls]
    return a


def _function_calls(result: ParseResult) -> list[FunctionCall]:
    return [FunctionCall(id=c.id, name=c.name, arguments=c.arguments) for c in result.tool_calls]


class _OneStream:
    """One toklane stream per request, fed each step's new text; the adapters' shared part."""

    _stream: Any = None

    def _feed(self, make: Callable[[], Any], text: str) -> Delta | None:
        if self._stream is None:
            self._stream = make()
        return None if self._stream.finished else self._stream.feed(text=text)

    def finish_streaming(self) -> DeltaMessage | None:
        """What the stream still holds (text that could have begun a marker, a call not yet closed), at its end."""
        if self._stream is None or self._stream.finished:
            return None
        return _delta_message(self._stream.finish())


# --------------------------------------------------------------------------- reasoning


class ToklaneReasoningParser(_OneStream, ReasoningParser):
    """vLLM ``ReasoningParser`` over toklane's format :attr:`reasoning_format` (one subclass per format).

    Streaming keeps one toklane parser per request (reasoning only), fed each step's new text.
    Token-id questions (:meth:`is_reasoning_end`, :meth:`extract_content_ids`) are answered on the
    ids from the cached token tables: a marker that is an added token by id, any other by bytes.
    """

    reasoning_format: str = ""
    # vLLM then asks has_engine_confirmed_reasoning_end() (the stream's own state) when to hand over to
    # the tool parser, and takes what the stream still holds with finish_streaming(): nothing is lost.
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._tok = _tokenizer(tokenizer)
        self._plan = thinking_plan(self._tok, self.reasoning_format)  # a missing marker fails at start-up
        self._thinking: bool | None = None
        self._answered = False  # non-blank content was read
        fmt = reasoning_format(self.reasoning_format)
        # Formats whose answer holds markers of their own (Cohere's <|END_RESPONSE|>, Hunyuan's </answer>,
        # Mistral's stray [/THINK], machines: Harmony and the message formats) are read by this stream to the end.
        self._hands_over = not (fmt.content_starts or fmt.content_ends or fmt.drop_stray_end == "always" or fmt.machine)

    # ---- markers (vLLM's ReasoningConfig reads them: its own thinking_token_budget needs both)
    @property
    def reasoning_start_str(self) -> str | None:
        """The text that opens reasoning (None for a format without a start marker)."""
        return self._plan.markers.start or None

    @property
    def reasoning_end_str(self) -> str | None:
        """The text that ends reasoning, as a thinking budget forces it (``</think>``; Harmony's
        ``<|end|><|start|>assistant<|channel|>final<|message|>``)."""
        return self._plan.markers.budget_end or None

    # ---- token ids
    def _ended(self, ids: Sequence[int]) -> bool:
        """Whether ``ids`` close reasoning: an end marker after the last start marker."""
        inside, _, implicit = prompt_state(self._plan, ids)
        return not inside and not implicit

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        return self._ended(input_ids)

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
        """Whether reasoning ends in this step: an end marker finished by one of ``delta_ids``."""
        new = len(list(delta_ids))
        window = list(input_ids[-(len(self._plan.end.pattern) + new) :])  # the marker may begin before the step
        found = self._plan.end.last_in(window, 0)
        return found is not None and found[1] > len(window) - new and self._ended(input_ids)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        """The ids after the first end of reasoning (those of the token finishing the marker excluded)."""
        scanner = self._plan.end.scanner(0)
        if scanner.update(input_ids) < 0:
            return []
        return list(input_ids[scanner.end :])

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        inside, _, implicit = prompt_state(self._plan, prompt_token_ids)
        self._thinking = None if implicit else inside

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        self.set_prompt_token_ids(prompt_token_ids)

    def adjust_request(self, request: Any) -> Any:
        return _keep_special_tokens(request)

    # ---- text
    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        result = parse(self._tok, text=model_output, reasoning=self.reasoning_format, thinking=self._thinking)
        return result.reasoning, result.content

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        delta = self._feed(
            lambda: get_parser(self._tok, reasoning=self.reasoning_format, thinking=self._thinking), delta_text
        )
        if delta is None:
            return None
        self._answered = self._answered or bool(delta.content.strip())
        return _delta_message(delta)

    def has_engine_confirmed_reasoning_end(self) -> bool:
        """Hand over to the tool parser once the answer has begun: outside reasoning, with non-blank
        content read (the whitespace after the end marker is layout, dropped here as toklane drops it).
        Never for formats whose answer holds markers of their own: this stream reads it all."""
        stream = self._stream
        return self._hands_over and stream is not None and self._answered and not stream.in_reasoning

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """Output tokens between the start of reasoning (the prompt's, or a start marker in the
        output) and its end marker (or the end of the output)."""
        ids = list(token_ids)
        end = self._plan.end.scanner(0)
        stop = end.update(ids)
        start = self._plan.start.scanner(0) if self._plan.start else None
        if start is not None and start.update(ids) >= 0 and (stop < 0 or start.start < stop):
            begin = start.end
        elif self._thinking if self._thinking is not None else self._plan.markers.implicit_start:
            begin = 0
        else:
            return 0
        return max(0, (stop if stop >= 0 else len(ids)) - begin)


# --------------------------------------------------------------------------- tools


class ToklaneToolParser(_OneStream, ToolParser):
    """vLLM ``ToolParser`` over toklane's format :attr:`tools_format` (one subclass per format).

    Streaming keeps one toklane parser per request (tools only), fed each step's new text, and
    returns vLLM's ``DeltaMessage`` with ``DeltaToolCall`` pieces: each call is sent whole once it
    is complete and valid, never one that later turns out broken, so a stream equals the whole
    output's parse. The non-streaming call returns ``ExtractedToolCallInformation``.
    """

    tools_format: str = ""
    engine_based_streaming = True  # vLLM then flushes what the stream holds at the end (finish_streaming)

    def __init__(self, tokenizer: Any, tools: Any = None, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools)
        self._tok = _tokenizer(tokenizer)
        get_parser(self._tok, tools=self.tools_format)  # a missing marker fails at start-up

    def adjust_request(self, request: Any) -> Any:
        return _keep_special_tokens(super().adjust_request(request))

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        result = parse(self._tok, text=model_output, tools=self.tools_format, tools_schema=_schema(request))
        calls = [ToolCall(id=f.id, function=f) for f in _function_calls(result)]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=result.content)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        delta = self._feed(
            lambda: get_parser(self._tok, tools=self.tools_format, tools_schema=_schema(request)), delta_text
        )
        return None if delta is None else _delta_message(delta)


# --------------------------------------------------------------------------- unified


class ToklaneParser(DelegatingParser):
    """vLLM's unified ``Parser`` over one toklane stream for reasoning and tool calls together.

    Subclasses set ``reasoning_format`` / ``tools_format`` (either may be None) and vLLM's
    ``reasoning_parser_cls`` / ``tool_parser_cls`` (our per-format classes, which vLLM's serving
    code looks at). Every tool choice is read by toklane: ``"auto"`` (and no tools) with the tool
    format; ``"none"`` without it (a call is content); ``"required"`` and a named function as vLLM
    constrains them (the tool parser's ``adjust_request`` sets vLLM's JSON schema: an array of
    ``{"name", "parameters"}`` objects, or the function's arguments), read by
    :class:`~toklane.integrations._forced.ForcedCalls` after the reasoning, each call sent whole.
    """

    reasoning_format: str | None = None
    tools_format: str | None = None
    _enable_auto_tools = True

    def __init__(self, tokenizer: Any, tools: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools, *args, **kwargs)
        self._tok = _tokenizer(tokenizer)
        self._stream: Any = None
        self._forced_calls: ForcedCalls | None = None
        self._forced_sent = 0  # forced calls streamed so far (their index)
        self._thinking: bool | None = None

    def _forced(self, request: Any) -> str | None:
        """For a forced tool choice vLLM constrains (a tool parser is set, the request has tools):
        ``""`` for ``"required"``, the function's name for a named one; else None."""
        if self._tool_parser is None or not getattr(request, "tools", None):
            return None
        choice = getattr(request, "tool_choice", None)
        if choice == "required":
            return ""
        if isinstance(choice, ChatCompletionNamedToolChoiceParam):
            return choice.function.name
        name = getattr(choice, "name", None)  # the Responses API's function choice
        return name if isinstance(name, str) and name else None

    def _tools(self, request: Any, enable_auto_tools: bool) -> str | None:
        if not (enable_auto_tools and getattr(request, "tools", None)) or request.tool_choice == "none":
            return None
        return self.tools_format

    def _call_id(self, name: str) -> str | None:
        """vLLM's id for a forced call (its own id scheme: random, or Kimi K2's numbered ids)."""
        state = self._stream_state
        call_id = make_tool_call_id(id_type=state.tool_call_id_type, func_name=name, idx=state.history_tool_call_cnt)
        state.history_tool_call_cnt += 1
        return call_id

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        super().set_prompt_token_ids(prompt_token_ids)
        if self._reasoning_parser is not None:
            self._thinking = self._reasoning_parser._thinking  # type: ignore[attr-defined]
            if self._reasoning_parser.is_reasoning_end(prompt_token_ids):
                self._thinking = False

    def parse(
        self,
        model_output: str,
        request: Any,
        enable_auto_tools: bool = False,
        model_output_token_ids: Sequence[int] = (),
    ) -> tuple[str | None, str | None, list[FunctionCall] | None]:
        self._initialize_history_tool_call_cnt(request)
        forced = self._forced(request)
        result = parse(
            self._tok,
            text=model_output,
            reasoning=self.reasoning_format,
            tools=None if forced is not None else self._tools(request, enable_auto_tools),
            tools_schema=_schema(request),
            thinking=self._thinking,
        )
        if forced is None:
            content = result.content if result.content is None or result.content.strip() else None
            return result.reasoning, content, _function_calls(result) or None
        reader = ForcedCalls(forced or None)
        text, calls = reader.feed(result.content or "")
        tail, _ = reader.finish()
        text += tail
        found = [FunctionCall(id=self._call_id(name), name=name, arguments=args) for name, args in calls]
        return result.reasoning, text if text.strip() else None, found or None

    def parse_delta(
        self,
        delta_text: str,
        delta_token_ids: list[int],
        request: Any,
        prompt_token_ids: list[int] | None = None,
        *,
        finished: bool,
    ) -> DeltaMessage | None:
        self._initialize_history_tool_call_cnt(request)
        state = self._stream_state
        if self._stream is None:
            if not state.prompt_reasoning_checked and prompt_token_ids is not None:
                state.prompt_reasoning_checked = True
                self.set_prompt_token_ids(prompt_token_ids)
            forced = self._forced(request)
            if forced is not None:
                self._forced_calls = ForcedCalls(forced or None)
            self._stream = get_parser(
                self._tok,
                reasoning=self.reasoning_format,
                tools=None if forced is not None else self._tools(request, self._enable_auto_tools),
                tools_schema=_schema(request),
                thinking=self._thinking,
            )
        stream = self._stream
        if stream.finished:
            return None
        d = stream.feed(text=delta_text) if delta_text else None
        if finished:
            end = stream.finish()
            if d is None:
                d = end
            else:
                d.reasoning += end.reasoning
                d.content += end.content
                d.tool_calls += end.tool_calls
        if d is None:
            return None
        forced_calls = self._forced_calls
        if forced_calls is None:
            message = _delta_message(d)
            if message is not None:
                state.history_tool_call_cnt += sum(c.id is not None for c in message.tool_calls)
        else:
            message = self._forced_delta(forced_calls, d, finished)
        if message is None:
            return None
        if not getattr(request, "include_reasoning", True):
            message.reasoning = None
            if not message.content and not message.tool_calls:
                return None
        return message

    def _forced_delta(self, reader: ForcedCalls, d: Delta, finished: bool) -> DeltaMessage | None:
        """The reasoning as it is; the answer read as the forced choice's JSON."""
        content, calls = reader.feed(d.content) if d.content else ("", [])
        if finished:
            tail, more = reader.finish()
            content, calls = content + tail, calls + more
        if not (d.reasoning or content or calls):
            return None
        pieces = []
        for name, args in calls:
            pieces.append(
                DeltaToolCall(
                    index=self._forced_sent,
                    id=self._call_id(name),
                    type="function",
                    function=DeltaFunctionCall(name=name, arguments=args),
                )
            )
            self._forced_sent += 1
        return DeltaMessage(reasoning=d.reasoning or None, content=content or None, tool_calls=pieces)


# --------------------------------------------------------------------------- registration

_REASONING: dict[str, type[ToklaneReasoningParser]] = {}
_TOOLS: dict[str, type[ToklaneToolParser]] = {}


def _class_name(fmt: str, kind: str) -> str:
    return "Toklane" + "".join(part.capitalize() for part in fmt.split("_")) + kind


def _build_classes() -> None:
    """One class per format, registered under ``toklane_<name>`` for its name and every alias."""
    if _REASONING:
        return
    catalog = format_catalog()
    for kind, table, base, attr in (
        ("reasoning", _REASONING, ToklaneReasoningParser, "reasoning_format"),
        ("tools", _TOOLS, ToklaneToolParser, "tools_format"),
    ):
        suffix = "ReasoningParser" if kind == "reasoning" else "ToolParser"
        for entry in catalog[kind]:
            name = entry["name"]
            cls = type(_class_name(name, suffix), (base,), {attr: name})
            cls.__module__ = __name__
            globals()[cls.__name__] = cls
            for key in (name, *entry["aliases"]):
                table[PREFIX + key] = cls  # type: ignore[assignment]


def unified_parser(reasoning_name: str | None, tool_name: str | None, enable_auto_tools: bool = True) -> type:
    """The :class:`ToklaneParser` subclass for ``--reasoning-parser`` / ``--tool-call-parser`` names
    (``toklane_<format>`` or None)."""
    _build_classes()
    r_cls = _REASONING[reasoning_name] if reasoning_name else None
    t_cls = _TOOLS[tool_name] if tool_name and enable_auto_tools else None
    attrs = {
        "reasoning_format": r_cls.reasoning_format if r_cls else None,
        "tools_format": t_cls.tools_format if t_cls else None,
        "reasoning_parser_cls": r_cls,
        "tool_parser_cls": t_cls,
        "_enable_auto_tools": enable_auto_tools,
    }
    return type("ToklaneParser_" + "_".join(n for n in (reasoning_name, tool_name) if n), (ToklaneParser,), attrs)


def _install_composition() -> None:
    """Have vLLM's ``ParserManager`` compose our unified parser when the flags name only toklane formats."""
    from vllm.parser.parser_manager import ParserManager

    original = ParserManager.__dict__["_compose_parser"]
    if getattr(original, "_toklane", False):
        return

    def compose(cls: Any, *args: Any, **kwargs: Any) -> Any:
        names = dict(
            zip(
                (
                    "tool_parser_name",
                    "reasoning_parser_name",
                    "enable_auto_tools",
                    "model_name",
                    "is_harmony",
                    "tool_strict_level",
                    "tokenizer",
                ),
                args,
                strict=False,
            ),
            **kwargs,
        )
        tool_name, reasoning_name = names.get("tool_parser_name"), names.get("reasoning_parser_name")
        ours = [n for n in (tool_name, reasoning_name) if n]
        if names.get("is_harmony") or not ours or not all(n.startswith(PREFIX) for n in ours):
            return original.__func__(cls, *args, **kwargs)
        parser_cls = unified_parser(reasoning_name, tool_name, bool(names.get("enable_auto_tools")))
        if parser_cls.tool_parser_cls is None and parser_cls.reasoning_parser_cls is None:
            return None
        return parser_cls

    compose._toklane = True  # type: ignore[attr-defined]
    ParserManager._compose_parser = classmethod(compose)  # type: ignore[method-assign,assignment]


def register() -> None:
    """Register every toklane format with vLLM as ``toklane_<format>`` (idempotent; the
    ``vllm.general_plugins`` entry point calls it in every vLLM process)."""
    _build_classes()
    for name, r_cls in _REASONING.items():
        ReasoningParserManager.register_module(name=name, module=r_cls)
    for name, t_cls in _TOOLS.items():
        ToolParserManager.register_module(name=name, module=t_cls)
    _install_composition()


def __getattr__(name: str) -> Any:
    """``ThinkingBudgetLogitsProcessor`` lives in :mod:`toklane.integrations.vllm_logits` (imported on
    first use here, so ``--logits-processors toklane.integrations.vllm:ThinkingBudgetLogitsProcessor``
    works too)."""
    if name == "ThinkingBudgetLogitsProcessor":
        from .vllm_logits import ThinkingBudgetLogitsProcessor

        return ThinkingBudgetLogitsProcessor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
