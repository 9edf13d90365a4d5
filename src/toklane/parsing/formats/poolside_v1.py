"""Poolside Laguna (poolside_v1): GLM-4.5's key/value tool calls, ``<think>`` reasoning.

The tool-call tags are matched as text (vLLM notes ``<tool_call>`` is not a
special token in this tokenizer; it is matched by id where the tokenizer has
it as one added token). Thinking is opt-in (``enable_thinking=True``) and the
model writes ``<think>`` itself, so output starts as content.
"""

from ..bodies.key_value import KeyValueCalls, kv_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat

REASONING = ReasoningFormat(
    "poolside_v1",
    ReasoningMarkers("poolside_v1", "<think>", "</think>", "</think>", False, "Poolside Laguna: <think>...</think>"),
    family="Poolside",
)

TOOLS = ToolFormat(
    name="poolside_v1",
    description="Poolside Laguna: <tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>",
    markers=kv_markers(token=False),
    block_starts=frozenset({"call_start"}),
    body=KeyValueCalls,
    family="Poolside",
)
