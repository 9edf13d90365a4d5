"""MiniMax-M2 / M2.1 / M2.5.

Reasoning: ``<think>...</think>``; the template pre-fills ``<think>``, so the
output starts inside reasoning. A ``<minimax:tool_call>`` block ends reasoning.
The markers are matched as text (and by id where the tokenizer has them as
added tokens).

Tools: XML invokes, values typed by ``tools_schema``::

    <minimax:tool_call>
    <invoke name="NAME">
    <parameter name="KEY">VALUE</parameter>
    </invoke>
    </minimax:tool_call>
"""

from ..bodies.xml_invoke import XmlInvoke, xml_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

MARKERS = ReasoningMarkers(
    "minimax_m2",
    "<think>",
    "</think>",
    "</think>",
    True,
    "MiniMax-M2: <think>...</think> (the template pre-fills <think>)",
)

REASONING = ReasoningFormat(
    "minimax_m2",
    MARKERS,
    token=False,
    aliases=("minimax",),
    family="MiniMax",
    cut_by=(Marker("block_start", "<minimax:tool_call>", False),),
)

TOOLS = ToolFormat(
    name="minimax_m2",
    description='MiniMax-M2: <minimax:tool_call><invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>',
    markers=xml_markers("<minimax:tool_call>", "</minimax:tool_call>", ""),
    block_starts=frozenset({"block_start"}),
    body=XmlInvoke,
    aliases=("minimax-m2",),
    family="MiniMax",
)
