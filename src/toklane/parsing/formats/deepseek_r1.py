"""DeepSeek-R1 and its distills: ``<think>...</think>`` (added tokens); the template pre-fills ``<think>``."""

from ..spec import ReasoningFormat, ReasoningMarkers

REASONING = ReasoningFormat(
    "deepseek_r1",
    ReasoningMarkers(
        "deepseek_r1", "<think>", "</think>", "</think>", True, "DeepSeek-R1 and distills: <think>...</think>"
    ),
    aliases=("deepseek-r1", "holo2"),
    family="DeepSeek",
)
