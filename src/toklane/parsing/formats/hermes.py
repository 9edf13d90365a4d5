"""Hermes / Qwen2.5 / Qwen3 tool calls: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

One JSON object per block (more are accepted, separated by whitespace or a
comma, which is dropped; or a JSON array of them); a call is complete when its
object closes, ``</tool_call>`` after it is consumed. ``"arguments"`` given
as a JSON string holding an object is decoded once.
"""

from ..bodies import JsonCalls
from ..spec import ToolFormat
from ..tables import Marker

TOOLS = ToolFormat(
    name="hermes",
    description='Hermes / Qwen2.5 / Qwen3: <tool_call>{"name": ..., "arguments": {...}}</tool_call>',
    markers=(Marker("call_start", "<tool_call>"), Marker("call_end", "</tool_call>")),
    block_starts=frozenset({"call_start"}),
    body=JsonCalls,
    body_options={"end_role": "call_end", "array": None},
    aliases=("qwen3_json", "qwen25", "qwen", "trinity"),
    family="Hermes / Qwen",
)
