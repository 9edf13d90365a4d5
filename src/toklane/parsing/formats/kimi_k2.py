"""Kimi K2 / K2-Thinking / K2.5.

Reasoning: ``<think>...</think>``; thinking templates start the output inside
reasoning (pass ``thinking=False`` for K2-Instruct). The markers are matched
as text (an added token where the tokenizer has one). A tool-call section
opened inside reasoning ends it.

Tools (all markers are added tokens)::

    <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}<|tool_call_end|>
    <|tool_calls_section_end|>

The header ``functions.NAME:INDEX`` is the call's id (kept: Kimi's template
writes it back into the conversation); ``functions.`` and ``:INDEX`` may be
missing. A call may come without the section markers, the section end may be
missing, arguments may be empty (``{}``), and a ``</think>`` right after the
calls is dropped.
"""

from ..bodies.name_args import NameArgs
from ..spec import REASONING_END, ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

SECTION_BEGIN = Marker("calls_begin", "<|tool_calls_section_begin|>")
CALL_BEGIN = Marker("call_begin", "<|tool_call_begin|>")

REASONING = ReasoningFormat(
    "kimi_k2",
    ReasoningMarkers(
        "kimi_k2",
        "<think>",
        "</think>",
        "</think>",
        True,
        "Kimi K2 Thinking / K2.5: <think>...</think> (a tool-call section ends it)",
    ),
    token=False,
    cut_by=(SECTION_BEGIN, CALL_BEGIN),
    family="Kimi",
)

TOOLS = ToolFormat(
    name="kimi_k2",
    description=(
        "Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0"
        "<|tool_call_argument_begin|>{...}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    markers=(
        SECTION_BEGIN,
        Marker("calls_end", "<|tool_calls_section_end|>"),
        CALL_BEGIN,
        Marker("sep", "<|tool_call_argument_begin|>"),
        Marker("call_end", "<|tool_call_end|>"),
    ),
    block_starts=frozenset({"calls_begin", "call_begin"}),
    body=NameArgs,
    body_options={
        "name_end": ("sep",),
        "call_begin": "call_begin",
        "call_end": "call_end",
        "block_end": "calls_end",
        "id_header": True,
        "empty_args": True,
        "drop_after": (REASONING_END,),
    },
    family="Kimi",
)
