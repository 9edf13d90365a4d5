"""Xiaomi MiMo: ``<think>...</think>`` reasoning and Qwen3-Coder-style XML tool calls.

Thinking is opt-in (``enable_thinking`` defaults to false in MiMo's
template), so output starts outside reasoning unless ``thinking=True``;
a ``<think>`` the model writes opens reasoning either way. Tool calls::

    <tool_call>
    <function=NAME>
    <parameter=KEY>VALUE</parameter>
    </function>
    </tool_call>

Values are kept exactly as written (MiMo's template promises newlines and
spaces are preserved) and typed by ``tools_schema``.
"""

from ..bodies.xml_functions import XmlFunctions
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from .qwen3_coder import TOOLS as QWEN3_CODER

REASONING = ReasoningFormat(
    "mimo",
    ReasoningMarkers("mimo", "<think>", "</think>", "</think>", False, "MiMo: <think>...</think> (thinking is opt-in)"),
    family="MiMo",
)

TOOLS = ToolFormat(
    name="mimo",
    description="MiMo: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function> (values kept verbatim)",
    markers=QWEN3_CODER.markers,
    block_starts=QWEN3_CODER.block_starts,
    body=XmlFunctions,
    body_options={"trim": False},
    family="MiMo",
)
