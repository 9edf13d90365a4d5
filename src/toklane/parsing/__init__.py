"""Streaming reasoning and tool-call parsers on one token-aware machine.

>>> import toklane
>>> tok = toklane.load_tokenizer("qwen3.6")
>>> r = toklane.parse(tok, text='<think>hm</think>ok', reasoning="qwen3")
>>> (r.reasoning, r.content)
('hm', 'ok')

See docs/formats.md for every format's syntax and how malformed output degrades.
"""

from .api import (
    describe_formats,
    format_catalog,
    get_parser,
    parse,
    parse_batch,
    reasoning_format,
    reasoning_formats,
    tool_format,
    tool_formats,
)
from .machine import StreamParser
from .types import Delta, ParseResult, ToolCall, ToolCallDelta

__all__ = [
    "Delta",
    "ParseResult",
    "StreamParser",
    "ToolCall",
    "ToolCallDelta",
    "describe_formats",
    "format_catalog",
    "get_parser",
    "parse",
    "parse_batch",
    "reasoning_format",
    "reasoning_formats",
    "tool_format",
    "tool_formats",
]
