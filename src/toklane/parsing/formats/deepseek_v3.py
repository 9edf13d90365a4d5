"""DeepSeek-V3.

Tools (V3 / R1-0528; added tokens)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
    ```json
    {"arg": "value"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

Reasoning (the V3.1 / V3.2 hybrids): ``<think>...</think>`` (added tokens) only
when the request turned thinking on -- the output starts outside reasoning
unless ``thinking=True`` (the thinking template pre-fills ``<think>``). A V3.2
DSML block (``<｜DSML｜function_calls>``) ends reasoning.
"""

from ..bodies import NameArgs
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from .deepseek_v31 import MARKERS
from .deepseek_v32 import DSML, dsml_block

REASONING = ReasoningFormat(
    "deepseek_v3",
    ReasoningMarkers(
        "deepseek_v3",
        "<think>",
        "</think>",
        "</think>",
        False,
        "DeepSeek-V3.1 / V3.2 hybrid: <think>...</think> when thinking is on (thinking=True)",
    ),
    aliases=("deepseek-v3",),
    family="DeepSeek",
    cut_by=(dsml_block(DSML, "function_calls"),),
    keep_tokens=(DSML,),
)

TOOLS = ToolFormat(
    name="deepseek_v3",
    description=(
        "DeepSeek-V3 / R1: <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{...}\\n```<｜tool▁call▁end｜>"
    ),
    markers=MARKERS,
    block_starts=frozenset({"calls_begin", "call_begin"}),
    body=NameArgs,
    body_options={
        "name_end": ("sep",),
        "call_begin": "call_begin",
        "call_end": "call_end",
        "block_end": "calls_end",
        "typed": True,
    },
    aliases=("deepseekv3",),
    family="DeepSeek",
)
