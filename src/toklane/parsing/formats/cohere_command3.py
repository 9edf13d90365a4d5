"""Cohere Command A / Command R7B ("Command 3"; all markers are added tokens).

Reasoning: ``<|START_THINKING|>...<|END_THINKING|>``, written by the model
(not pre-filled); the answer is ``<|START_RESPONSE|>...<|END_RESPONSE|>``
(the wrappers are dropped, and ``<|START_RESPONSE|>`` or an action block
ends reasoning the model left open).

Tools (shared by Command 3 and Command 4)::

    <|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "NAME", "parameters": {...}}
    ]<|END_ACTION|>

``tool_call_id`` is a counter the template regenerates from the
conversation, so calls get fresh ids. A single object without the list, a
missing ``]`` or ``<|END_ACTION|>`` and ``"name"`` for ``"tool_name"`` are
accepted.
"""

from ..bodies.json_calls import JsonCalls
from ..spec import CONTENT_START, ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

ACTION_START = Marker("action_start", "<|START_ACTION|>")

REASONING = ReasoningFormat(
    "cohere_command3",
    ReasoningMarkers(
        "cohere_command3",
        "<|START_THINKING|>",
        "<|END_THINKING|>",
        "<|END_THINKING|>",
        False,
        "Cohere Command A / R7B: <|START_THINKING|>...<|END_THINKING|><|START_RESPONSE|>...",
    ),
    cut_by=(ACTION_START,),
    content_starts=(Marker(CONTENT_START, "<|START_RESPONSE|>"),),
    family="Cohere",
)

TOOLS = ToolFormat(
    name="cohere_command",
    description='Cohere Command: <|START_ACTION|>[{"tool_call_id": "0", "tool_name": ..., "parameters": {...}}]'
    "<|END_ACTION|>",
    markers=(ACTION_START, Marker("action_end", "<|END_ACTION|>")),
    block_starts=frozenset({"action_start"}),
    body=JsonCalls,
    body_options={"array": None, "end_role": "action_end", "name_keys": ("tool_name", "name")},
    aliases=("cohere_command3", "cohere_command4"),
    family="Cohere",
)
