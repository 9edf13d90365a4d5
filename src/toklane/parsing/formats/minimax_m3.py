"""MiniMax-M3.

Reasoning: ``<mm:think>...</mm:think>``, matched as text (the tokenizer has them as
vocabulary entries, but generated text may spell them with smaller pieces). The
output starts outside reasoning unless the template pre-filled ``<mm:think>``
(``thinking_mode="enabled"``: pass ``thinking=True``). A non-thinking reply may
open with the closer of an earlier turn: a ``</mm:think>`` before any output is
dropped. A tool call ends reasoning.

Tools: every tag follows the namespace marker ``]<]minimax[>[``; parameters are
elements named by their key (see :class:`toklane.parsing.bodies.xml_invoke.XmlTags`)::

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="NAME">
    ]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>
"""

from ..bodies.xml_invoke import XmlTags
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

NS = "]<]minimax[>["

REASONING = ReasoningFormat(
    "minimax_m3",
    ReasoningMarkers(
        "minimax_m3",
        "<mm:think>",
        "</mm:think>",
        "</mm:think>",
        False,
        "MiniMax-M3: <mm:think>...</mm:think> (pre-filled with thinking_mode=enabled)",
    ),
    token=False,
    aliases=("minimax-m3",),
    family="MiniMax",
    cut_by=(Marker("ns", NS, False),),
    drop_stray_end=True,
)

TOOLS = ToolFormat(
    name="minimax_m3",
    description=f'MiniMax-M3: {NS}<tool_call>{NS}<invoke name="NAME">{NS}<KEY>VALUE{NS}</KEY>{NS}</invoke>',
    markers=(Marker("ns", NS, False),),
    block_starts=frozenset({"ns"}),
    body=XmlTags,
    aliases=("minimax-m3",),
    family="MiniMax",
)
