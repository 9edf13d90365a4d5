"""Gemma 4 (all markers are added tokens).

Reasoning: ``<|channel>thought\\n...<channel|>``; the ``thought`` role label is
dropped. Templates do not pre-fill it (``thinking=True`` when the prompt
ends inside an open channel, as after a tool response); a tool call opened
inside reasoning ends it.

Tools: ``<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1,flag:true}<tool_call|>``:
strings are delimited by the ``<|"|>`` token, keys are bare, numbers,
booleans, objects and arrays are written bare. ``:NAME{`` without ``call``
and ``call:NAME(key:value,...)`` (parentheses for the braces, which vLLM
reads) are accepted; a model that ends the call with ``<turn|>`` (or nothing)
instead of ``<tool_call|>`` still has its call read.
"""

from ..bodies.gemma import GemmaCall
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

CALL_START = Marker("call_start", "<|tool_call>")

REASONING = ReasoningFormat(
    "gemma4",
    ReasoningMarkers(
        "gemma4", "<|channel>", "<channel|>", "<channel|>", False, "Gemma 4: <|channel>thought\\n...<channel|>"
    ),
    cut_by=(CALL_START,),
    label="thought",
    family="Gemma",
)

TOOLS = ToolFormat(
    name="gemma4",
    description='Gemma 4: <|tool_call>call:NAME{key:<|"|>value<|"|>,n:1}<tool_call|>',
    markers=(CALL_START, Marker("call_end", "<tool_call|>"), Marker("escape", '<|"|>')),
    block_starts=frozenset({"call_start"}),
    body=GemmaCall,
    body_options={"bare_prefix": True, "parens": True},
    family="Gemma",
)
