"""Tencent Hunyuan-A13B.

Reasoning: ``<think>\\nREASONING\\n</think>\\n<answer>\\nCONTENT\\n</answer>``. All
four tags are ordinary text in Hunyuan's tokenizer (matched on token bytes).
Nothing is pre-filled when thinking is on (the model writes ``<think>``); with
``enable_thinking=False`` the template ends the prompt with an empty thinking
block and the output starts at ``<answer>``. ``<answer>`` and ``</answer>`` are
dropped (either one ends reasoning where it appears); a ``<tool_calls>`` inside
reasoning ends it.

Tools: ``<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>``
(text tags; written inside ``<answer>``). The list is complete at its ``]``: the
closing tag is consumed when it follows and may be missing.
"""

from ..bodies.json_calls import JsonCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "hunyuan_a13b",
    ReasoningMarkers(
        "hunyuan_a13b",
        "<think>",
        "</think>",
        "\n</think>\n<answer>\n",
        False,
        "Hunyuan-A13B: <think>...</think><answer>...</answer> (text)",
    ),
    token=False,
    cut_by=(Marker("tool_calls", "<tool_calls>", token=False),),
    content_starts=(Marker("answer", "<answer>", token=False),),
    content_ends=(Marker("answer_end", "</answer>", token=False),),
    aliases=("hunyuan",),
    family="Hunyuan",
)

TOOLS = ToolFormat(
    name="hunyuan_a13b",
    description='Hunyuan-A13B: <tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>',
    markers=(Marker("calls_start", "<tool_calls>", token=False), Marker("calls_end", "</tool_calls>", token=False)),
    block_starts=frozenset({"calls_start"}),
    body=JsonCalls,
    body_options={"array": True, "end_role": "calls_end"},
    family="Hunyuan",
)
