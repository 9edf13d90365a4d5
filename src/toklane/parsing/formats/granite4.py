"""IBM Granite 4.x.

Tools (Granite 4.0 / 4.1): ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
per call, as Hermes writes them; text between calls is content. The tags are
matched as text (by id where a checkpoint's tokenizer has them as added tokens).

Reasoning (Granite 4.2 thinking models): ``<think>...</think>``, matched as text;
the thinking template pre-fills ``<think>`` (``thinking=False`` when the prompt
disabled thinking). A ``<tool_call>`` inside reasoning ends it.
"""

from ..bodies.json_calls import JsonCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "granite_thinking",
    ReasoningMarkers(
        "granite_thinking", "<think>", "</think>", "</think>", True, "Granite 4.2 thinking: <think>...</think>"
    ),
    token=False,
    cut_by=(Marker("tool_call", "<tool_call>", token=False),),
    aliases=("granite_thinking_parser",),
    family="Granite",
)

TOOLS = ToolFormat(
    name="granite4",
    description='Granite 4.x: <tool_call>{"name": ..., "arguments": {...}}</tool_call>',
    markers=(Marker("call_start", "<tool_call>", token=False), Marker("call_end", "</tool_call>", token=False)),
    block_starts=frozenset({"call_start"}),
    body=JsonCalls,
    body_options={"end_role": "call_end"},
    family="Granite",
)
