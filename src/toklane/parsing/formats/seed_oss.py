"""Seed-OSS: ``<seed:think>`` reasoning and Qwen3-Coder-style calls in ``<seed:tool_call>`` (added tokens).

``<seed:tool_call>\\n<function=NAME>\\n<parameter=K>V</parameter>\\n</function>\\n</seed:tool_call>``:
the function and parameter tags are text, read by the Qwen3-Coder grammar
(:class:`toklane.parsing.bodies.XmlFunctions`). Reasoning starts inside (as
the peers read it: the model opens with ``<seed:think>``, which is dropped,
and a thinking budget of 0 closes it in the prompt: parse with ``thinking=False``).
"""

from ..bodies.xml_functions import XmlFunctions
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

MARKERS = (
    Marker("call_start", "<seed:tool_call>"),
    Marker("call_end", "</seed:tool_call>"),
    Marker("fn_start", "<function=", token=False),
    Marker("fn_end", "</function>", token=False),
    Marker("param_start", "<parameter=", token=False),
    Marker("param_end", "</parameter>", token=False),
)

REASONING = ReasoningFormat(
    "seed_oss",
    ReasoningMarkers("seed_oss", "<seed:think>", "</seed:think>", "</seed:think>", True, "Seed-OSS: <seed:think>..."),
    cut_by=(MARKERS[0],),
    family="Seed",
)

TOOLS = ToolFormat(
    name="seed_oss",
    description="Seed-OSS: <seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></seed:tool_call>",
    markers=MARKERS,
    block_starts=frozenset({"call_start", "fn_start"}),
    body=XmlFunctions,
    family="Seed",
)
