"""Reasoning markers by format name, for the thinking budget and the integrations.

Each format declares its :class:`ReasoningMarkers` in its own format module
(``toklane/parsing/formats/``); :func:`markers_for` finds them by name or alias.
``start`` and ``end`` delimit the reasoning; ``budget_end`` is the text a
thinking budget forces (one token per step) to close reasoning early.
``implicit_start``: the chat template usually pre-fills the start marker, so
output may begin inside reasoning with no start marker at all.
"""

from __future__ import annotations

from typing import Any

from .errors import UnknownFormatError
from .parsing.api import reasoning_format
from .parsing.spec import ReasoningMarkers

__all__ = ["ReasoningMarkers", "markers_for"]

#: The formats the old ``REASONING_MARKERS`` table listed (still readable by that name).
_FIRST = ("qwen3", "deepseek_r1", "deepseek_v4", "olmo3", "mistral", "gpt_oss")


def markers_for(name: str) -> ReasoningMarkers | None:
    """The markers of reasoning format ``name`` (a name or a peer's alias); None if there is no such format."""
    try:
        return reasoning_format(name).markers
    except UnknownFormatError:
        return None


def __getattr__(name: str) -> Any:
    if name == "REASONING_MARKERS":  # {format name: markers} of the first families, from their format modules
        return {n: reasoning_format(n).markers for n in _FIRST}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
