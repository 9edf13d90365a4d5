"""Step-3.5 / Step-3.7: Qwen3-Coder tool calls and ``<think>`` reasoning, always pre-filled.

The tool-call grammar is Qwen3-Coder's (:class:`toklane.parsing.bodies.XmlFunctions`);
the template always ends the prompt with ``<think>\\n``. Markers are matched
as text (by id where the tokenizer has them as added tokens). A ``<tool_call>``
inside reasoning ends it.
"""

from ..bodies.xml_functions import XmlFunctions
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

MARKERS = (
    Marker("call_start", "<tool_call>", token=False),
    Marker("call_end", "</tool_call>", token=False),
    Marker("fn_start", "<function=", token=False),
    Marker("fn_end", "</function>", token=False),
    Marker("param_start", "<parameter=", token=False),
    Marker("param_end", "</parameter>", token=False),
)

REASONING = ReasoningFormat(
    "step3p5",
    ReasoningMarkers("step3p5", "<think>", "</think>", "</think>", True, "Step-3.5: <think>...</think>, pre-filled"),
    token=False,
    cut_by=(MARKERS[0],),
    family="StepFun",
)

TOOLS = ToolFormat(
    name="step3p5",
    description="Step-3.5: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>",
    markers=MARKERS,
    block_starts=frozenset({"call_start", "fn_start"}),
    body=XmlFunctions,
    family="StepFun",
)
