"""Pythonic tool calls (Llama 3.2 / Llama 4, ToolACE, ...): ``[f(a=1), g(b="x")]``.

A list may follow prose and several lists may appear in one output (as
SGLang reads them): every ``[`` in the content is tried as a call list, and
one that turns out to be prose (``[1]``, ``[text](url)``, ``xs[0]``) is
content again, decided at the first character that cannot continue a call.
Llama 4 may wrap the list in ``<|python_start|>`` / ``<|python_end|>``
(matched as text: other tokenizers lack them). A call in the list that
breaks (an argument that is no literal) is skipped and its text is content;
its siblings are kept.

With ``stream_arguments=True`` a call in a list opened by a bare ``[`` is
still sent once its ``)`` closes (``hold_anchored``): until then it may be
prose (``see [Smith (2020)]``, a trailing ``[A(`` that parsing the whole
output leaves as content), and a header once sent cannot be taken back.
Lists opened by ``<|python_start|>`` stream name and arguments early, as
other marker formats do. SGLang holds a pythonic list until its ``]``;
vLLM streams a list that opens the output early and can send such a header.
"""

from ..bodies import PythonicList
from ..spec import ToolFormat
from ..tables import Marker

TOOLS = ToolFormat(
    name="pythonic",
    description='Pythonic: [f(a=1), g(b="x")] (Python literals as values)',
    markers=(
        Marker("py_start", "<|python_start|>", token=False),
        Marker("py_end", "<|python_end|>", token=False),
    ),
    block_starts=frozenset({"py_start"}),
    body=PythonicList,
    body_options={"end_role": "py_end"},
    anchor="[",
    anchor_in_prose=True,
    hold_anchored=True,
    aliases=("llama4_pythonic",),
    family="Llama / pythonic",
)
