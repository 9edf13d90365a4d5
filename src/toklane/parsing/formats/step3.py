"""Step-3.

Reasoning: ``<think>...</think>``; the output starts inside reasoning (the
template pre-fills it). Matched as text (and by id where they are added tokens).

Tools: the call markers are added tokens, the ``steptml`` tags text; values are
typed by ``tools_schema``::

    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
    <steptml:parameter name="KEY">VALUE</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>
"""

from ..bodies.xml_invoke import XmlInvoke, xml_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "step3",
    ReasoningMarkers("step3", "<think>", "</think>", "</think>", True, "Step-3: <think>...</think> (pre-filled)"),
    token=False,
    family="Step",
)

TOOLS = ToolFormat(
    name="step3",
    description=(
        'Step-3: <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="KEY">'
        "VALUE</steptml:parameter></steptml:invoke><｜tool_call_end｜>"
    ),
    markers=(
        *xml_markers("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "steptml:", block_token=True),
        Marker("call_begin", "<｜tool_call_begin｜>"),
        Marker("call_end", "<｜tool_call_end｜>"),
        Marker("sep", "<｜tool_sep｜>", False),
    ),
    block_starts=frozenset({"block_start", "call_begin"}),
    body=XmlInvoke,
    family="Step",
)
