"""Apertus (swiss-ai, 2509): ``<|inner_prefix|>`` reasoning and ``{"NAME": {args}}`` calls (all added tokens).

An assistant turn is::

    <|inner_prefix|>Weather?<|inner_suffix|><|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>

Reasoning is written by the model (not pre-filled: pass ``thinking=True``
when the prompt ends with ``<|inner_prefix|>``). The calls are one JSON array
of single-member objects, the member's key the function's name and its value
the arguments; a bare object without the array is accepted, and
``<|tools_suffix|>`` may be missing at the end of output. A tool block opened
inside the reasoning ends it.
"""

from ..bodies.json_calls import JsonCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

TOOLS_PREFIX = Marker("tools_prefix", "<|tools_prefix|>")

REASONING = ReasoningFormat(
    "apertus",
    ReasoningMarkers(
        "apertus",
        "<|inner_prefix|>",
        "<|inner_suffix|>",
        "<|inner_suffix|>",
        False,
        "Apertus: <|inner_prefix|>...<|inner_suffix|>",
    ),
    cut_by=(TOOLS_PREFIX,),
    aliases=("apertus2509",),
    family="Apertus",
)

TOOLS = ToolFormat(
    name="apertus",
    description='Apertus: <|tools_prefix|>[{"NAME": {...}}, ...]<|tools_suffix|>',
    markers=(TOOLS_PREFIX, Marker("tools_suffix", "<|tools_suffix|>")),
    block_starts=frozenset({"tools_prefix"}),
    body=JsonCalls,
    body_options={"array": None, "mapping": True, "end_role": "tools_suffix"},
    aliases=("apertus2509",),
    family="Apertus",
)
