"""Muse Spark: messages with recipients, tool calls in ATEM XML.

The prompt ends with ``<|start|>assistant``; the model writes each message's
recipient, then ``<|message|>``, the body, and ``<|eom|>`` (``<|eot|>`` ends
the turn)::

     to=self<|message|>REASONING<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>
    <atem:invoke name="get_weather">
    <atem:parameter name="city">Paris</atem:parameter>
    </atem:invoke>
    </atem:function_calls><|eom|>

``to=self`` and bare ``<|message|>`` bodies are reasoning; ``to=user`` and
``to=commentary`` are content; ``to=developer`` is dropped; any other
recipient is a tool channel, read for ATEM calls (the invoke names the call).
Read by :class:`toklane.parsing.messages.MessageParser`.
"""

from __future__ import annotations

from ..bodies.xml_invoke import XmlInvoke, xml_markers
from ..messages import TO_CALL, TO_CONTENT, TO_DROP, TO_REASONING, MessageParser, recipient
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

# Special tokens in the checkpoints the peers serve, but not in every tokenizer of the family: text.
MARKERS = (
    Marker("start", "<|start|>", False),
    Marker("message", "<|message|>", False),
    Marker("end", "<|eom|>", False),
    Marker("end", "<|eot|>", False),
)


class MuseParser(MessageParser):
    """Muse Spark's messages. A reasoning or answer body that runs into a ``to=NAME<|message|>``
    header without ``<|eom|>`` (a known model slip) ends there. A call name the chat template
    doubled (``get_weather.get_weather`` for a tool registered as ``get_weather``) is read as the
    registered name; parameters ``tools_schema`` does not type are read as JSON where they are JSON."""

    MARKERS = MARKERS
    RECOVER = True

    def route(self, header: dict[str, str], kind: str | None, foreign: bool) -> tuple[str, str | None]:
        to = recipient(header)
        if to is None or to == "self":
            return TO_REASONING, None
        if to == "user" or to == "commentary":
            return TO_CONTENT, None
        if to == "developer":
            return TO_DROP, None
        return TO_CALL, None

    def call_name(self, name: str, call_id: str | None = None) -> None:
        super().call_name(self._tool_name(name), call_id)

    def param_types(self, function: str, param: str) -> list[str] | None:
        types = super().param_types(self._tool_name(function), param)
        return ["any"] if types is None else types

    def _tool_name(self, name: str) -> str:
        head, dot, tail = name.partition(".")
        if not dot or head != tail or not self._schema:
            return name
        index = self._tool_names()
        return head if name not in index and head in index else name


REASONING_MARKERS = ReasoningMarkers(
    "muse",
    "to=self<|message|>",
    "<|eom|>",
    "<|eom|><|start|>assistant to=user<|message|>",
    False,
    "Muse Spark: to=self<|message|>...<|eom|> messages (and bare <|message|> ones)",
)

REASONING = ReasoningFormat(
    "muse", REASONING_MARKERS, token=False, aliases=("musespark1x",), family="Muse", machine=MuseParser
)

TOOLS = ToolFormat(
    name="muse",
    description='Muse: to=TOOL<|message|><atem:function_calls><atem:invoke name="NAME"><atem:parameter name="K">V',
    markers=MARKERS + xml_markers("<atem:function_calls>", "</atem:function_calls>", "atem:"),
    block_starts=frozenset({"block_start", "invoke_start"}),
    body=XmlInvoke,
    body_options={"strip": False},
    aliases=("musespark1x",),
    family="Muse",
    machine=MuseParser,
)
