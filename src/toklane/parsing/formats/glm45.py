"""GLM-4.5 / GLM-4.6: ``<think>`` reasoning and key/value tool calls (all added tokens).

The chat template writes a call as::

    <tool_call>NAME
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call>

with string values verbatim and other values as JSON; ``tools_schema`` types
them back (see :class:`toklane.parsing.bodies.key_value.KeyValueCalls`). The
model writes ``<think>`` itself (the template pre-fills ``<think></think>``
only when thinking is off), so output starts as content; a ``<tool_call>``
inside reasoning ends it.
"""

from ..bodies.key_value import KeyValueCalls, kv_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat

MARKERS = kv_markers(token=True)

REASONING = ReasoningFormat(
    "glm45",
    ReasoningMarkers(
        "glm45", "<think>", "</think>", "</think>", False, "GLM-4.5 / 4.6: <think>...</think>, written by the model"
    ),
    cut_by=(MARKERS[0],),
    family="GLM",
)

TOOLS = ToolFormat(
    name="glm45",
    description="GLM-4.5 / 4.6: <tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>",
    markers=MARKERS,
    block_starts=frozenset({"call_start"}),
    body=KeyValueCalls,
    body_options={"open_end": "pairs"},
    aliases=("glm",),
    family="GLM",
)
