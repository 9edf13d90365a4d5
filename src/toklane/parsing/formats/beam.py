"""Beam: Harmony-framed messages, tool calls as ``rfl`` parameter tags.

The prompt ends with ``<|start|>assistant``::

    <|channel|>analysis<|message|>REASONING<|end|><|start|>assistant to=get_weather<|channel|>analysis \
<|constrain|>xml<|message|><rfl:parameter name="city">
    Paris
    </rfl:parameter><|call|>

A header with ``to=NAME`` (after the role or in a later field) is a call of
NAME; otherwise the ``analysis`` channel is reasoning and ``final`` (or any
other channel) content. The framing is matched as text (and by id where the
tokenizer has Harmony's added tokens). Read by
:class:`toklane.parsing.messages.MessageParser`.
"""

from __future__ import annotations

from ..bodies.named_params import NamedParams
from ..messages import TO_CALL, TO_CONTENT, TO_REASONING, MessageParser, recipient
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

MARKERS = (
    Marker("start", "<|start|>", False),
    Marker("channel", "<|channel|>", False),
    Marker("constrain", "<|constrain|>", False),
    Marker("message", "<|message|>", False),
    Marker("end", "<|end|>", False),
    Marker("end", "<|call|>", False),
    Marker("end", "<|return|>", False),
)


class BeamParser(MessageParser):
    """Beam's messages; a call's name is its header's recipient."""

    MARKERS = MARKERS
    SEP = "\n\n"
    NAMED = True
    OFFER_END = True

    def route(self, header: dict[str, str], kind: str | None, foreign: bool) -> tuple[str, str | None]:
        to = recipient(header)
        if to is not None:
            return TO_CALL, to
        channel = header.get("channel", "").split()
        return (TO_REASONING if channel[:1] == ["analysis"] else TO_CONTENT), None


REASONING = ReasoningFormat(
    "beam",
    ReasoningMarkers(
        "beam",
        "<|channel|>analysis<|message|>",
        "<|end|>",
        "<|end|><|start|>assistant<|channel|>final<|message|>",
        False,
        "Beam: the analysis channel is reasoning",
    ),
    token=False,
    family="Beam",
    machine=BeamParser,
)

TOOLS = ToolFormat(
    name="beam",
    description='Beam: to=NAME<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name="K">\\nV\\n</rfl:...',
    markers=(*MARKERS, Marker("param_start", "<rfl:parameter", False), Marker("param_end", "</rfl:parameter>", False)),
    block_starts=frozenset(),
    body=NamedParams,
    family="Beam",
    machine=BeamParser,
)
