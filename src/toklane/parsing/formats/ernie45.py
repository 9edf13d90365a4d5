"""Baidu ERNIE 4.5 (21B-A3B-Thinking).

Reasoning: ``REASONING</think>`` then the answer, optionally wrapped in
``<response>...</response>`` (dropped). ``<think>`` and ``</think>`` are added
tokens; the template pre-fills ``<think>``, so output starts inside reasoning.
``<response>`` and ``</response>`` are matched as text (by id where they are
tokens); either one ends reasoning where it appears.

Tools: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` per call, as
Hermes writes them (the tags matched as text, by id where they are tokens).
"""

from ..bodies.json_calls import JsonCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "ernie45",
    ReasoningMarkers("ernie45", "<think>", "</think>", "</think>", True, "ERNIE 4.5 Thinking: <think>...</think>"),
    content_starts=(Marker("response", "<response>", token=False),),
    content_ends=(Marker("response_end", "</response>", token=False),),
    family="ERNIE",
)

TOOLS = ToolFormat(
    name="ernie45",
    description='ERNIE 4.5: <tool_call>{"name": ..., "arguments": {...}}</tool_call>',
    markers=(Marker("call_start", "<tool_call>", token=False), Marker("call_end", "</tool_call>", token=False)),
    block_starts=frozenset({"call_start"}),
    body=JsonCalls,
    body_options={"end_role": "call_end"},
    family="ERNIE",
)
