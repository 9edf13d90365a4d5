"""Liquid LFM2 / LFM2.5 tool calls: ``<|tool_call_start|>[f(a=1), g(b="x")]<|tool_call_end|>``.

Both markers are added special tokens. The list's brackets may be left out
(one bare call), an element may be a JSON ``{"name": ..., "arguments": {...}}``
object, and values may use JSON's ``true``/``false``/``null``, integers with
leading zeros and raw line breaks inside strings -- all of which SGLang or
vLLM accept. LFM2 sometimes echoes the calls after ``<|tool_call_end|>`` and
closes the echo with a second one: text from a ``[`` right after the end
marker up to that second marker is dropped (as vLLM does). A call whose
arguments are no literals is skipped, its text content, and its siblings are
kept (as SGLang keeps them).
"""

from ..bodies.pythonic import PythonicList
from ..spec import ToolFormat
from ..tables import Marker

TOOLS = ToolFormat(
    name="lfm2",
    description='LFM2: <|tool_call_start|>[f(a=1), g(b="x")]<|tool_call_end|>',
    markers=(Marker("call_start", "<|tool_call_start|>"), Marker("call_end", "<|tool_call_end|>")),
    block_starts=frozenset({"call_start"}),
    body=PythonicList,
    body_options={"end_role": "call_end", "bare": True, "json_calls": True, "lenient": True, "drop_echo": True},
    family="LFM2",
)
