"""gpt-oss (Harmony): reasoning is the ``analysis`` channel; tool calls are
``commentary`` messages to ``functions.NAME`` with JSON bodies. Read by
:class:`toklane.parsing.harmony.HarmonyParser`; the two formats go together."""

from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

MARKERS = (
    Marker("start", "<|start|>"),
    Marker("channel", "<|channel|>"),
    Marker("message", "<|message|>"),
    Marker("constrain", "<|constrain|>"),
    Marker("end", "<|end|>"),
    Marker("call", "<|call|>"),
    Marker("return", "<|return|>"),
)

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
    harmony=True,
    aliases=("openai_gptoss", "gpt-oss"),
    family="gpt-oss",
)

TOOLS = ToolFormat(
    name="gpt_oss",
    description="gpt-oss Harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>",
    markers=MARKERS,
    block_starts=frozenset(),
    body=lambda *a, **k: None,  # type: ignore[arg-type,return-value]  # Harmony has its own machine
    harmony=True,
    aliases=("openai", "gpt-oss"),
    family="gpt-oss",
)
