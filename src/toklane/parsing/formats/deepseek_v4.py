"""DeepSeek-V4.

Reasoning (and V3.1+ thinking mode): ``<think>...</think>`` as added tokens. The
thinking template ends the prompt with ``<think>``; the non-thinking one with
``</think>`` -- parse that output with ``thinking=False`` (or no reasoning
format). A DSML tool-call block (``<｜DSML｜tool_calls>``) ends reasoning too.

Tools: DSML invokes in ``<｜DSML｜tool_calls>`` (see :mod:`.deepseek_v32`).
"""

from ..spec import ReasoningFormat, ReasoningMarkers
from .deepseek_v32 import DSML, dsml_block, dsml_tools

REASONING = ReasoningFormat(
    "deepseek_v4",
    ReasoningMarkers(
        "deepseek_v4", "<think>", "</think>", "</think>", True, "DeepSeek-V4: <think>...</think> (added tokens)"
    ),
    aliases=("deepseek-v4",),
    family="DeepSeek",
    cut_by=(dsml_block(DSML, "tool_calls"),),
    keep_tokens=(DSML,),
)

TOOLS = dsml_tools("deepseek_v4", "DeepSeek-V4", DSML, "tool_calls", ("deepseekv4",))
