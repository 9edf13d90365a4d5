"""IBM Granite 3.x (3.0 - 3.3).

Tools: ``<|tool_call|>`` then a JSON list of ``{"name": ..., "arguments": {...}}``
objects; the ``]`` ends the block (there is no closing marker) and text around
it is content. ``<|tool_call|>`` is an added token of every Granite 3
tokenizer; Granite 3.1+ models also write ``<tool_call>`` (ordinary text).
A single object instead of the list is accepted.

Reasoning (Granite 3.2 / 3.3 with ``thinking=True``): plain-text headings,
``Here is my thought process:`` REASONING ``Here is my response:`` CONTENT
(``Here's`` is accepted for ``Here is``). Nothing is pre-filled: output
without the first heading is content.
"""

from ..bodies.json_calls import JsonCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "granite",
    ReasoningMarkers(
        "granite",
        "Here is my thought process:",
        "Here is my response:",
        "Here is my response:",
        False,
        "Granite 3.2 / 3.3: Here is my thought process: ... Here is my response: ... (text)",
    ),
    token=False,
    alt_starts=("Here's my thought process:",),
    alt_ends=("Here's my response:",),
    family="Granite",
)

TOOLS = ToolFormat(
    name="granite",
    description='Granite 3.x: <|tool_call|>[{"name": ..., "arguments": {...}}, ...]',
    markers=(Marker("tool_call", "<|tool_call|>"), Marker("tool_call_text", "<tool_call>", token=False)),
    block_starts=frozenset({"tool_call", "tool_call_text"}),
    body=JsonCalls,
    body_options={"array": None},
    family="Granite",
)
