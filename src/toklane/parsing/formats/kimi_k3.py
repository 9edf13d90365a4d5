"""Kimi K3: XTML channels spelled with the added tokens ``<|open|>``, ``<|close|>`` and ``<|sep|>``.

A thinking turn is::

    <|open|>think<|sep|>REASONING<|close|>think<|sep|><|open|>response<|sep|>TEXT<|close|>response<|sep|>
    <|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|>
    <|open|>argument key="KEY" type="string"<|sep|>VALUE<|close|>argument<|sep|><|close|>call<|sep|>
    <|close|>tools<|sep|><|close|>message<|sep|>

The channel name between the tokens is ordinary text, so every tag is matched
as text with the three tokens read as text (``keep_tokens``). Thinking
templates pre-fill ``<|open|>think<|sep|>`` (``thinking=False`` for instruct
turns, whose prefix opens ``response`` instead). Reasoning also ends where a
``response`` or ``tools`` channel opens; the ``response`` / ``message``
wrappers are dropped.
"""

from ..bodies.xtml import XtmlCalls
from ..spec import CONTENT_END, CONTENT_START, ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

KEEP = ("<|open|>", "<|close|>", "<|sep|>")
RESPONSE_OPEN = (Marker(CONTENT_START, "<|open|>response<|sep|>", False),)
CLOSERS = (
    Marker(CONTENT_END, "<|close|>response<|sep|>", False),
    Marker(CONTENT_END, "<|close|>message<|sep|>", False),
)
TOOLS_OPEN = Marker("tools_open", "<|open|>tools<|sep|>", False)
CALL_OPEN = Marker("call_open", "<|open|>call", False)

REASONING = ReasoningFormat(
    "kimi_k3",
    ReasoningMarkers(
        "kimi_k3",
        "<|open|>think<|sep|>",
        "<|close|>think<|sep|>",
        "<|close|>think<|sep|>",
        True,
        "Kimi K3: <|open|>think<|sep|>...<|close|>think<|sep|> (XTML channels)",
    ),
    token=False,
    cut_by=(TOOLS_OPEN, CALL_OPEN),
    content_starts=RESPONSE_OPEN,
    content_ends=CLOSERS,
    keep_tokens=KEEP,
    family="Kimi",
)

TOOLS = ToolFormat(
    name="kimi_k3",
    description='Kimi K3: <|open|>tools<|sep|><|open|>call tool="NAME"<|sep|>'
    '<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>...',
    markers=(
        TOOLS_OPEN,
        Marker("tools_close", "<|close|>tools<|sep|>", False),
        CALL_OPEN,
        Marker("call_close", "<|close|>call<|sep|>", False),
        Marker("arg_open", "<|open|>argument", False),
        Marker("arg_close", "<|close|>argument<|sep|>", False),
        *RESPONSE_OPEN,
        *CLOSERS,
    ),
    block_starts=frozenset({"tools_open", "call_open"}),
    body=XtmlCalls,
    keep_tokens=KEEP,
    family="Kimi",
)
