"""IQuest Q1: ``<think>`` reasoning (pre-filled) and ``<iquest_tool_call>`` key/value tool calls.

``<iquest_tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></iquest_tool_call>``
(the GLM-4.7 layout). Markers are matched as text. Thinking is on unless the
request turns it off (parse with ``thinking=False`` then).
"""

from ..bodies.key_value import KeyValueCalls, kv_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat

REASONING = ReasoningFormat(
    "iquest_q1",
    ReasoningMarkers("iquest_q1", "<think>", "</think>", "</think>", True, "IQuest Q1: <think>...</think>, pre-filled"),
    token=False,
    family="IQuest",
)

TOOLS = ToolFormat(
    name="iquest_q1",
    description="IQuest Q1: <iquest_tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></iquest_tool_call>",
    markers=kv_markers(call="iquest_tool_call", token=False),
    block_starts=frozenset({"call_start"}),
    body=KeyValueCalls,
    family="IQuest",
)
