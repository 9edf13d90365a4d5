"""Mistral.

Reasoning (Magistral): ``[THINK]...[/THINK]``, added tokens. Magistral's system
prompt asks the model to open its reasoning itself, so the output starts as
content (``thinking=None``); ``thinking=True`` for a prompt that pre-filled
``[THINK]`` (a repeated ``[THINK]`` is then dropped). A ``[/THINK]`` before
any output is dropped (the closer of a pre-filled ``[THINK]`` the parser was
not told about, with nothing reasoned).

Tools: ``[TOOL_CALLS]`` then, before tokenizer v11, a JSON list of
``{"name": ..., "arguments": {...}}`` objects; from v11,
``NAME[ARGS]{json}`` with one ``[TOOL_CALLS]`` per call (v11 may put
``[CALL_ID]ID`` before ``[ARGS]``). ``[ARGS]`` and ``[CALL_ID]`` are added
tokens from v11 on and plain text before, so they are matched as text.
Call ids are 9 alphanumerics, as Mistral's templates require.

Recovery: after ``[TOOL_CALLS]`` a bare call object or a fenced list is read
like the list; text before a list is content; a v11 name followed by ``{``
without ``[ARGS]`` is a call. A cut-off or broken call is content -- without
the ``[TOOL_CALLS]`` control token, everything else verbatim.
"""

from ..bodies import NameArgs
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "mistral",
    ReasoningMarkers("mistral", "[THINK]", "[/THINK]", "[/THINK]", False, "Magistral: [THINK]...[/THINK]"),
    family="Mistral",
    drop_stray_end="always",
)

TOOLS = ToolFormat(
    name="mistral",
    description="Mistral: [TOOL_CALLS][{...}] (before v11) and [TOOL_CALLS]name[ARGS]{...} (v11+)",
    markers=(
        Marker("tool_calls", "[TOOL_CALLS]"),
        Marker("args", "[ARGS]", token=False),
        Marker("call_id", "[CALL_ID]", token=False),
    ),
    block_starts=frozenset({"tool_calls"}),
    body=NameArgs,
    body_options={"name_end": ("args",), "id_role": "call_id", "json_list": True},
    drop_opener=True,
    id_style="mistral",
    family="Mistral",
)
