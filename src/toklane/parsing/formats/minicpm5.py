"""MiniCPM5.

Tools: XML calls with no wrapper (each call is a block of its own), one after another::

    <function name="NAME"><param name="KEY">VALUE</param></function>

``<function``, ``</function>``, ``<param`` and ``</param>`` are added (special)
tokens. Values are XML character data: the template wraps a string holding
``<``, ``&`` or a newline in ``<![CDATA[...]]>`` (unwrapped, its content kept
exactly) and writes other values as Jinja prints them (Python literals);
entities are decoded; values are typed by ``tools_schema``.

Reasoning (no peer parser; vLLM's tool parser drops it from content):
``<think>\\n...\\n</think>\\n\\n`` (``<think>`` / ``</think>`` added tokens in
MiniCPM5-2B, matched as text elsewhere). The template pre-fills ``<think>\\n``
only for ``enable_thinking=True`` (then parse with ``thinking=True``) and
``<think>\\n\\n</think>\\n\\n`` for ``False``; otherwise the model writes ``<think>``.
"""

from ..bodies.xml_invoke import XmlInvoke
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "minicpm5",
    ReasoningMarkers("minicpm5", "<think>", "</think>", "</think>", False, "MiniCPM5: <think>...</think>"),
    token=False,
    family="MiniCPM",
)

TOOLS = ToolFormat(
    name="minicpm5",
    description='MiniCPM5: <function name="NAME"><param name="KEY">VALUE</param></function> (CDATA, entities)',
    markers=(
        Marker("invoke_start", "<function"),
        Marker("invoke_end", "</function>"),
        Marker("param_start", "<param"),
        Marker("param_end", "</param>"),
    ),
    block_starts=frozenset({"invoke_start"}),
    body=XmlInvoke,
    body_options={"xml_text": True, "one_call": True},
    family="MiniCPM",
)
