"""GigaChat 3.5: GCML tool calls (DSML's shape with ``｜GCML｜``; values are kept as written)::

    <｜GCML｜tool_calls>
    <｜GCML｜invoke name="NAME">
    <｜GCML｜parameter name="KEY" string="true">text</｜GCML｜parameter>
    <｜GCML｜parameter name="KEY" string="false">JSON</｜GCML｜parameter>
    </｜GCML｜invoke>
    </｜GCML｜tool_calls>

Reasoning: ``<think>...</think>``, the output starting inside reasoning, matched as
text; a GCML block ends it.
"""

from ..spec import ReasoningFormat, ReasoningMarkers
from .deepseek_v32 import dsml_block, dsml_tools

GCML = "｜GCML｜"

REASONING = ReasoningFormat(
    "gigachat35",
    ReasoningMarkers("gigachat35", "<think>", "</think>", "</think>", True, "GigaChat 3.5: <think>...</think>"),
    token=False,
    family="GigaChat",
    cut_by=(dsml_block(GCML, "tool_calls"),),
    keep_tokens=(GCML,),
)

TOOLS = dsml_tools("gigachat35", "GigaChat 3.5", GCML, "tool_calls", (), family="GigaChat", strip=False)
