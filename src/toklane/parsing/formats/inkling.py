"""Inkling: typed content blocks, every marker an added token.

The prompt ends with ``<|message_model|>``; each block is a header (a tool
call's function name, dropped), a content-kind token, the body and
``<|end_message|>``::

    <|content_thinking|>REASONING<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>\
{"name": "get_weather", "args": {"city": "Paris"}}<|end_message|>

``<|content_thinking|>`` bodies are reasoning; ``<|content_text|>`` (and the
raw-text tool, tool-error and XML kinds) content; ``<|content_invoke_tool_json|>``
holds one JSON call (``args``; ``arguments`` and ``parameters`` also read).
``<|content_model_end_sampling|>`` also ends a block; messages the model does
not author (``<|message_user|>`` ...) are dropped. Read by
:class:`toklane.parsing.messages.MessageParser`.
"""

from __future__ import annotations

from typing import ClassVar

from ..bodies.json_calls import JsonCalls
from ..messages import TO_CALL, TO_CONTENT, TO_DROP, TO_REASONING, MessageParser
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

MARKERS = (
    Marker("start", "<|message_model|>"),
    Marker("foreign", "<|message_user|>"),
    Marker("foreign", "<|message_system|>"),
    Marker("foreign", "<|message_tool|>"),
    Marker("think", "<|content_thinking|>"),
    Marker("text", "<|content_text|>"),
    Marker("text", "<|content_invoke_tool_text|>"),
    Marker("text", "<|content_tool_error|>"),
    Marker("text", "<|content_xml|>"),
    Marker("invoke", "<|content_invoke_tool_json|>"),
    Marker("end", "<|end_message|>"),
    Marker("end", "<|content_model_end_sampling|>"),
)


class InklingParser(MessageParser):
    """Inkling's blocks: the content-kind token routes the body; the header is one word (a name)."""

    MARKERS = MARKERS
    WORD = ""
    KINDS: ClassVar[dict[str, str]] = {"think": TO_REASONING, "text": TO_CONTENT, "invoke": TO_CALL}

    def route(self, header: dict[str, str], kind: str | None, foreign: bool) -> tuple[str, str | None]:
        return (TO_DROP if foreign else kind or TO_CONTENT), None


REASONING = ReasoningFormat(
    "inkling",
    ReasoningMarkers(
        "inkling",
        "<|content_thinking|>",
        "<|end_message|>",
        "<|end_message|><|message_model|><|content_text|>",
        False,
        "Inkling: <|content_thinking|>...<|end_message|> blocks",
    ),
    family="Inkling",
    machine=InklingParser,
)

TOOLS = ToolFormat(
    name="inkling",
    description='Inkling: <|message_model|>NAME<|content_invoke_tool_json|>{"name": ..., "args": {...}}<|end_message|>',
    markers=MARKERS,
    block_starts=frozenset(),
    body=JsonCalls,
    body_options={"args_keys": ("args", "arguments", "parameters")},
    family="Inkling",
    machine=InklingParser,
)
