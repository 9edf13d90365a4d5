"""K2 Horizon: ``<ifm|think>`` reasoning (pre-filled) and ``<ifm|...>`` key/value tool calls.

Calls come in a group, each pair with an optional explicit type (the
template's ``xml`` and ``xml_typed`` tool formats)::

    <ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>[<ifm|arg_type>T</ifm|arg_type>]
    <ifm|arg_value>V</ifm|arg_value></ifm|tool_call></ifm|tool_calls>

``reasoning_effort`` picks the reasoning pair: ``<ifm|think>`` (high, an added
token), ``<ifm|think_fast>`` (medium) or ``<ifm|think_faster>`` (low), all read.
A tool-call group opened inside reasoning ends it. The tool-call tags are
matched as text (by id where the tokenizer has them as added tokens).
"""

from ..bodies.key_value import KeyValueCalls, kv_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat

MARKERS = kv_markers(group="tool_calls", typed=True, ns="ifm|", token=False)

REASONING = ReasoningFormat(
    "k2_horizon",
    ReasoningMarkers(
        "k2_horizon", "<ifm|think>", "</ifm|think>", "</ifm|think>", True, "K2 Horizon: <ifm|think>...</ifm|think>"
    ),
    alt_starts=("<ifm|think_fast>", "<ifm|think_faster>"),
    alt_ends=("</ifm|think_fast>", "</ifm|think_faster>"),
    cut_by=MARKERS[0:1] + MARKERS[2:3],
    family="K2",
)

TOOLS = ToolFormat(
    name="k2_horizon",
    description="K2 Horizon: <ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key><ifm|arg_value>V...",
    markers=MARKERS,
    block_starts=frozenset({"calls_begin", "call_start"}),
    body=KeyValueCalls,
    family="K2",
)
