"""DeepSeek-V4.1: V4's ``<think>...</think>`` reasoning; DSML tool calls whose tag names
start with a space (``<｜DSML｜ calls>``, ``<｜DSML｜ invoke name="...">``,
``<｜DSML｜ parameter ...>``), otherwise as in :mod:`.deepseek_v32`. The DSML block
ends reasoning."""

from ..spec import ReasoningFormat, ReasoningMarkers
from .deepseek_v32 import DSML, dsml_block, dsml_tools

TAG = DSML + " "

REASONING = ReasoningFormat(
    "deepseek_v41",
    ReasoningMarkers(
        "deepseek_v41", "<think>", "</think>", "</think>", True, "DeepSeek-V4.1: <think>...</think> (added tokens)"
    ),
    aliases=("deepseek-v41",),
    family="DeepSeek",
    cut_by=(dsml_block(TAG, "calls"),),
    keep_tokens=(DSML,),
)

TOOLS = dsml_tools("deepseek_v41", "DeepSeek-V4.1", TAG, "calls", ("deepseekv41",))
