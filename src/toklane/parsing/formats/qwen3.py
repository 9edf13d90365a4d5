"""Qwen3 / QwQ / Qwen3.5 / Qwen3.6 reasoning: ``<think>...</think>`` (added tokens).

Thinking templates pre-fill ``<think>``, so the output may start inside
reasoning with no start marker (``thinking=False`` when the template closed it).
"""

from ..spec import ReasoningFormat, ReasoningMarkers

REASONING = ReasoningFormat(
    "qwen3",
    ReasoningMarkers(
        "qwen3", "<think>", "</think>", "</think>", True, "Qwen3 / QwQ / Qwen3.5 / Qwen3.6: <think>...</think>"
    ),
    aliases=("qwen3-thinking", "minicpmv", "nemotron_v3", "nemotron_3", "nanbeige", "interns1"),
    family="Qwen",
)
