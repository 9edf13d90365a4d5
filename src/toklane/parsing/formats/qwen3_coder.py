"""Qwen3-Coder / Qwen3.5 / Qwen3.6 tool calls: XML-ish functions and parameters.

``<tool_call>`` and ``</tool_call>`` are added tokens; the function and
parameter tags are ordinary text. Values are converted by ``tools_schema``;
a ``</parameter>`` (or ``</function>``) written inside a value stays in it
unless the call continues after it (see :class:`toklane.parsing.bodies.XmlFunctions`).
"""

from ..bodies import XmlFunctions
from ..spec import ToolFormat
from ..tables import Marker

TOOLS = ToolFormat(
    name="qwen3_coder",
    description="Qwen3-Coder / Qwen3.5 / Qwen3.6: <tool_call><function=NAME><parameter=KEY>VALUE</parameter>...",
    markers=(
        Marker("call_start", "<tool_call>"),
        Marker("call_end", "</tool_call>"),
        Marker("fn_start", "<function=", token=False),
        Marker("fn_end", "</function>", token=False),
        Marker("param_start", "<parameter=", token=False),
        Marker("param_end", "</parameter>", token=False),
    ),
    block_starts=frozenset({"call_start", "fn_start"}),
    body=XmlFunctions,
    aliases=("qwen3_xml", "nanbeige"),
    family="Qwen",
)
