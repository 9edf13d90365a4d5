"""Declarative format definitions: what a format module states about its family.

A reasoning format names its markers (a :class:`ReasoningMarkers`, declared in
its format module: the parser and the thinking budget read the same ones) and
whether they are added tokens. A
tool format names its markers, which of them open a
tool-call block, an optional *anchor* (characters that open a block when one
is the first character of the content, as ``{`` for Llama-3 JSON calls), and
the body grammar that reads the inside of a block -- one of the machine's
bodies (:mod:`toklane.parsing.bodies`) configured with a few fields.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .block import Body
from .harmony import HarmonyParser
from .tables import Marker
from .types import ToolCall


@dataclass(frozen=True)
class ReasoningMarkers:
    """A reasoning format's markers: ``start`` and ``end`` delimit the reasoning; ``budget_end`` is the
    text a thinking budget forces (one token per step) to close reasoning early; ``implicit_start``:
    the chat template usually pre-fills the start marker, so output may begin inside reasoning with
    no start marker at all. Found by name with :func:`toklane.reasoning_markers.markers_for`."""

    name: str
    start: str | None
    end: str
    budget_end: str
    implicit_start: bool
    description: str


REASONING_START = "reasoning_start"
REASONING_END = "reasoning_end"
REASONING_CUT = "reasoning_cut"
CONTENT_START = "content_start"
CONTENT_END = "content_end"


@dataclass(frozen=True)
class ReasoningFormat:
    """A reasoning format: text between ``start`` and ``end`` markers is reasoning.

    ``token``: the markers are added tokens in the family's tokenizers (a
    tokenizer without them is an error); ``False`` matches them as text on any
    spelling.

    ``aliases``: the peers' registry names for this format (vLLM's
    ``--reasoning-parser``, SGLang's), accepted wherever a name is.
    ``family``: the model family, for listings. ``alt_starts`` / ``alt_ends``:
    further spellings of the start and end markers (text). ``cut_by``:
    markers that end reasoning where they appear (a tool-call block the model
    opens without closing its reasoning) and are then read as ordinary
    output; a tool format with the same marker reads it as its block start.
    ``label``: a role label the model writes right after the start marker
    (Gemma 4's ``thought``), dropped when present. ``in_content``: reasoning
    is not split off: the output, with the start marker the template
    pre-filled put back in front of it, is content (MiniMax's append-think).
    ``keep_tokens``: added special tokens that are pieces of text markers
    (PLaMo 3 spells ``<|plamo:begin_think:plamo|>`` with three tokens): read as
    text instead of dropped. ``content_starts``: markers that open the answer
    (Cohere's ``<|START_RESPONSE|>``, Kimi K3's ``<|open|>response<|sep|>``):
    they end reasoning where they appear and are otherwise dropped.
    ``content_ends``: markers that close the answer (Hunyuan's ``</answer>``,
    ERNIE's ``</response>``): dropped, with the whitespace around them; they
    too end reasoning where they appear. ``drop_stray_end``: an end marker
    that comes before any output is dropped (MiniMax-M3 may open a reply with
    the closer of an earlier turn); ``"always"``: one outside reasoning is
    never content (Magistral's ``[/THINK]``, a control token).

    ``machine``: a :class:`~toklane.parsing.machine.StreamParser` subclass that
    reads the family's output instead (gpt-oss's Harmony,
    :mod:`toklane.parsing.harmony`; message formats: Muse, Beam, Inkling,
    :mod:`toklane.parsing.messages`); its ``MARKERS`` are the format's markers,
    and it combines only with tool formats of the same machine.
    """

    name: str
    markers: ReasoningMarkers
    token: bool = True
    aliases: tuple[str, ...] = ()
    family: str = ""
    alt_starts: tuple[str, ...] = ()
    alt_ends: tuple[str, ...] = ()
    cut_by: tuple[Marker, ...] = ()
    label: str = ""
    in_content: bool = False
    keep_tokens: tuple[str, ...] = ()
    content_starts: tuple[Marker, ...] = ()
    content_ends: tuple[Marker, ...] = ()
    machine: Any = None
    drop_stray_end: bool | str = False

    @property
    def description(self) -> str:
        return self.markers.description

    @property
    def harmony(self) -> bool:
        """Whether gpt-oss's Harmony machine reads this format."""
        return self.machine is HarmonyParser

    @property
    def implicit_start(self) -> bool:
        return self.markers.implicit_start

    def marker_list(self) -> list[Marker]:
        if self.machine is not None:
            return list(self.machine.MARKERS)
        if self.in_content:
            return []
        out = [Marker(REASONING_END, self.markers.end, self.token)]
        out += [Marker(REASONING_END, text, False) for text in self.alt_ends]
        if self.markers.start:
            out.append(Marker(REASONING_START, self.markers.start, self.token))
        out += [Marker(REASONING_START, text, False) for text in self.alt_starts]
        out += [Marker(REASONING_CUT, m.text, m.token) for m in self.cut_by]
        out += [Marker(CONTENT_START, m.text, m.token) for m in self.content_starts]
        out += [Marker(CONTENT_END, m.text, m.token) for m in self.content_ends]
        return out


@dataclass(frozen=True)
class ToolFormat:
    """A tool-call format.

    ``block_starts``: roles of the markers that open a tool-call block.
    ``anchor``: characters, any of which opens a block when it starts the content.
    ``anchor_in_prose``: an anchor character opens a block anywhere in the
    content, not only at its start (a call list after prose, several lists in
    one output); a block that turns out to be no call is content again.
    ``body(parser, start_role, **body_options)`` builds the per-block reader
    (a grammar from :mod:`toklane.parsing.bodies`; None where the ``machine``
    reads call bodies itself, as Harmony does). ``id_style``: how call ids
    look (``"call"``: ``call_`` + 24 characters; ``"mistral"``: 9
    alphanumerics, as Mistral's templates require). ``aliases``: the peers'
    registry names for this format (vLLM's ``--tool-call-parser``, SGLang's).
    ``family``: the model family, for listings. ``keep_tokens``: added special
    tokens that are pieces of text markers, read as text instead of dropped.
    ``machine``: as for :class:`ReasoningFormat` (the format's markers then
    include the machine's). ``drop_opener``: the marker that opens a block is
    a control token never shown as content, even when the block breaks
    (Mistral's ``[TOOL_CALLS]``). ``hold_anchored``: with
    ``stream_arguments=True``, a call in a block that the anchor opened (no
    marker) is still sent only once it is complete, as without it -- the
    anchor may be prose (``see [Smith (2020)]``, a trailing ``[A(``), and a
    header once sent cannot be taken back, so streaming would report a call
    that parsing the whole output does not.
    """

    name: str
    description: str
    markers: tuple[Marker, ...]
    block_starts: frozenset[str]
    body: Callable[..., Body] | None
    body_options: dict[str, Any] = field(default_factory=dict)
    anchor: str | None = None
    anchor_in_prose: bool = False
    id_style: str = "call"
    aliases: tuple[str, ...] = ()
    family: str = ""
    keep_tokens: tuple[str, ...] = ()
    machine: Any = None
    drop_opener: bool = False
    hold_anchored: bool = False

    @property
    def harmony(self) -> bool:
        """Whether gpt-oss's Harmony machine reads this format."""
        return self.machine is HarmonyParser

    @functools.cached_property
    def read_whole(self) -> Callable[..., list[ToolCall] | None] | None:
        """The body grammar's reader of whole outputs' blocks (``read_whole``, as
        :meth:`.JsonCalls.read_whole`), or None: the machine reads every block."""
        return getattr(self.body, "read_whole", None)
