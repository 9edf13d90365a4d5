"""Muse Glimmer: Muse's messages and ATEM tool calls (see :mod:`.muse`), with Glimmer's routing.

``to=self`` bodies are reasoning; bare ``<|message|>``, ``to=user`` and
``to=commentary`` bodies are content; ``to=developer`` is dropped; any other
recipient is a tool channel.
"""

from __future__ import annotations

from ..messages import TO_CALL, TO_CONTENT, TO_DROP, TO_REASONING, recipient
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from .muse import TOOLS as MUSE_TOOLS
from .muse import MuseParser


class MuseGlimmerParser(MuseParser):
    """Muse Glimmer's messages: a body with no recipient is content."""

    def route(self, header: dict[str, str], kind: str | None, foreign: bool) -> tuple[str, str | None]:
        to = recipient(header)
        if to == "self":
            return TO_REASONING, None
        if to is None or to == "user" or to == "commentary":
            return TO_CONTENT, None
        if to == "developer":
            return TO_DROP, None
        return TO_CALL, None


REASONING = ReasoningFormat(
    "muse_glimmer",
    ReasoningMarkers(
        "muse_glimmer",
        "to=self<|message|>",
        "<|eom|>",
        "<|eom|><|start|>assistant to=user<|message|>",
        False,
        "Muse Glimmer: to=self<|message|>...<|eom|> messages",
    ),
    token=False,
    family="Muse",
    machine=MuseGlimmerParser,
)

TOOLS = ToolFormat(
    name="muse_glimmer",
    description="Muse Glimmer: Muse's ATEM calls; bodies with no recipient are content",
    markers=MUSE_TOOLS.markers,
    block_starts=MUSE_TOOLS.block_starts,
    body=MUSE_TOOLS.body,
    body_options=MUSE_TOOLS.body_options,
    family="Muse",
    machine=MuseGlimmerParser,
)
