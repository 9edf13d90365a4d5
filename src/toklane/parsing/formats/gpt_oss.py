"""gpt-oss (Harmony): reasoning is the ``analysis`` channel; tool calls are
``commentary`` messages to ``functions.NAME`` with JSON bodies. Read by
:class:`toklane.parsing.harmony.HarmonyParser`; the two formats go together."""

from ..harmony import MARKERS, HarmonyParser
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat

__all__ = ["MARKERS", "REASONING", "TOOLS"]

REASONING = ReasoningFormat(
    "gpt_oss",
    ReasoningMarkers(
        "gpt_oss",
        "<|channel|>analysis<|message|>",
        "<|end|>",
        "<|end|><|start|>assistant<|channel|>final<|message|>",
        True,
        "gpt-oss Harmony: the analysis channel is reasoning",
    ),
    machine=HarmonyParser,
    aliases=("openai_gptoss", "gpt-oss"),
    family="gpt-oss",
)

TOOLS = ToolFormat(
    name="gpt_oss",
    description="gpt-oss Harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>",
    markers=MARKERS,
    block_starts=frozenset(),
    body=None,  # the machine reads call bodies itself
    machine=HarmonyParser,
    aliases=("openai", "gpt-oss"),
    family="gpt-oss",
)
