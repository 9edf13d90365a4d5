"""Kimi-VL Thinking / Kimi 1.5: ``◁think▷...◁/think▷`` (ordinary text, not pre-filled).

SGLang registers it as ``kimi``.
"""

from ..spec import ReasoningFormat, ReasoningMarkers

REASONING = ReasoningFormat(
    "kimi_vl",
    ReasoningMarkers("kimi_vl", "◁think▷", "◁/think▷", "◁/think▷", False, "Kimi-VL Thinking: ◁think▷...◁/think▷"),
    token=False,
    aliases=("kimi",),
    family="Kimi",
)
