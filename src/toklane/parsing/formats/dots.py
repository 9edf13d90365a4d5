"""dots.llm tool calls: XML invokes in ``<dots_function_call>`` blocks (text markers), values typed
by ``tools_schema``; a block may hold one ``{"name": ..., "arguments": {...}}`` object instead::

    <dots_function_call>
    <invoke name="NAME">
    <parameter name="KEY">VALUE</parameter>
    </invoke>
    </dots_function_call>

Reasoning: ``<think>...</think>`` (text), not pre-filled; a tool block ends it.
"""

from ..bodies.xml_invoke import XmlInvoke, xml_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "dots",
    ReasoningMarkers("dots", "<think>", "</think>", "</think>", False, "dots.llm: <think>...</think>"),
    token=False,
    family="dots",
    cut_by=(Marker("block_start", "<dots_function_call>", False),),
)

TOOLS = ToolFormat(
    name="dots",
    description='dots.llm: <dots_function_call><invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>',
    markers=xml_markers("<dots_function_call>", "</dots_function_call>", ""),
    block_starts=frozenset({"block_start"}),
    body=XmlInvoke,
    body_options={"json_calls": True},
    family="dots",
)
