"""Llama 3.1 / 3.2 / 3.3 JSON tool calls: ``{"name": ..., "parameters": {...}}``.

The call opens the content (or follows ``<|python_tag|>``); several calls are
separated by ``;``. ``"arguments"`` is accepted for ``"parameters"``, and
arguments given as a JSON string holding an object (decoded once).

As the peers do for a complete output, a call is also found anywhere in the
content (after prose, after a malformed object): every ``{`` may open one. A
``{`` that opens no call -- prose or code braces, a JSON object that is no
call -- is content, verbatim, decided as soon as it is known: such an object
may hold only ``name``, ``parameters``/``arguments``, ``type`` and ``id``, so
one with another member is content from that member's key on.
"""

from ..bodies import JsonCalls
from ..spec import ToolFormat
from ..tables import Marker

TOOLS = ToolFormat(
    name="llama3_json",
    description='Llama 3.x: [<|python_tag|>]{"name": ..., "parameters": {...}}; {...}',
    markers=(Marker("python_tag", "<|python_tag|>"),),
    block_starts=frozenset({"python_tag"}),
    body=JsonCalls,
    body_options={"seps": ";", "anchor_keys": ("type", "id")},
    anchor="{",
    anchor_in_prose=True,
    aliases=("llama4_json", "llama3"),
    family="Llama",
)
