"""GLM-4.7 (and GLM-5): the GLM-4.5 tags without the newlines, reasoning pre-filled.

Calls are written ``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>``
(read by the same grammar as ``glm45``, which accepts both layouts). The
template ends the prompt with ``<think>`` (``</think>`` when thinking is off:
parse with ``thinking=False``), so output starts inside reasoning.
"""

from ..bodies.key_value import KeyValueCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from .glm45 import MARKERS

REASONING = ReasoningFormat(
    "glm47",
    ReasoningMarkers(
        "glm47", "<think>", "</think>", "</think>", True, "GLM-4.7 / GLM-5: <think>...</think>, <think> pre-filled"
    ),
    cut_by=(MARKERS[0],),
    aliases=("ling3",),
    family="GLM",
)

TOOLS = ToolFormat(
    name="glm47",
    description="GLM-4.7 / GLM-5: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>",
    markers=MARKERS,
    block_starts=frozenset({"call_start"}),
    body=KeyValueCalls,
    body_options={"open_end": "pairs"},
    aliases=("ling3",),
    family="GLM",
)
