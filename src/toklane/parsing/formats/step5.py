"""Step-5: Qwen3-Coder tool calls and DeepSeek-R1-style ``<think>`` reasoning (pre-filled).

The peers read Step-5's calls with the Qwen3-Coder grammar and its reasoning
with the DeepSeek-R1 rule (output may start inside reasoning, no start
marker). Markers are matched as text (by id where the tokenizer has them as
added tokens).
"""

from ..bodies.xml_functions import XmlFunctions
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from .step3p5 import MARKERS

REASONING = ReasoningFormat(
    "step5",
    ReasoningMarkers("step5", "<think>", "</think>", "</think>", True, "Step-5: <think>...</think>, pre-filled"),
    token=False,
    family="StepFun",
)

TOOLS = ToolFormat(
    name="step5",
    description="Step-5: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>",
    markers=MARKERS,
    block_starts=frozenset({"call_start", "fn_start"}),
    body=XmlFunctions,
    family="StepFun",
)
