"""Cohere Command 4 (Command A Reasoning / Vision; markers are added tokens).

Reasoning: the template pre-fills ``<|START_THINKING|>`` (``thinking=False``
when it wrote ``<|START_THINKING|><|END_THINKING|>``); the answer is
``<|START_TEXT|>...<|END_TEXT|>`` (``<|START_RESPONSE|>...<|END_RESPONSE|>``
also read, as text where they are no added tokens). The wrappers are dropped; an answer or
action block ends reasoning the model left open. Tools: ``cohere_command``
(see :mod:`toklane.parsing.formats.cohere_command3`).
"""

from ..spec import CONTENT_END, CONTENT_START, ReasoningFormat, ReasoningMarkers
from ..tables import Marker
from .cohere_command3 import ACTION_START

REASONING = ReasoningFormat(
    "cohere_command4",
    ReasoningMarkers(
        "cohere_command4",
        "<|START_THINKING|>",
        "<|END_THINKING|>",
        "<|END_THINKING|>",
        True,
        "Cohere Command 4: (<|START_THINKING|>)...<|END_THINKING|><|START_TEXT|>...",
    ),
    cut_by=(ACTION_START,),
    content_starts=(Marker(CONTENT_START, "<|START_TEXT|>"), Marker(CONTENT_START, "<|START_RESPONSE|>", False)),
    content_ends=(Marker(CONTENT_END, "<|END_RESPONSE|>", False),),
    family="Cohere",
)
