"""Tencent Hunyuan HY-V3 (Hy3, Hy3-preview).

Every marker is an added token whose spelling carries a per-checkpoint suffix
(``<think:opensource>`` in Hy3, none in Hy3-preview; the peers read it from
``tokenizer_config.json``'s ``token_suffix``): the markers are written with the
``{suffix}`` placeholder and resolved from the tokenizer's added tokens
(:func:`toklane.parsing.tables.resolve_suffix`). Shown here without it.

Reasoning: ``<think>...</think>``. The template pre-fills ``<think>`` for
``reasoning_effort`` ``low`` / ``high`` and ``<think></think>`` for ``no_think``, its
default (vLLM's default too): output starts as content unless ``thinking=True``.
A ``<tool_calls>`` block inside reasoning ends it.

Tools: key/value pairs in one ``<tool_calls>`` group, values typed by ``tools_schema``::

    <tool_calls>
    <tool_call>NAME<tool_sep>
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call>
    </tool_calls>

A name also ends at the first ``<arg_key>`` or ``</tool_call>`` (HY-V4 writes no
``<tool_sep>``, and SGLang's ``hunyuan`` reads both): ``<tool_sep>`` is matched as
text, since HY-V4 vocabularies lack it. A call cut before ``</tool_call>`` at the
end of the output is kept (vLLM keeps it).
"""

from ..bodies.key_value import KeyValueCalls, kv_markers
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

#: The tool-call markers HY-V3 and HY-V4 share (added tokens).
MARKERS = kv_markers(group="tool_calls", suffix="{suffix}", token=True)


def think_markers(name: str, implicit_start: bool, description: str) -> ReasoningMarkers:
    """``<think>...</think>`` with the checkpoint's suffix."""
    end = "</think{suffix}>"
    return ReasoningMarkers(name, "<think{suffix}>", end, end, implicit_start, description)


REASONING = ReasoningFormat(
    "hy_v3",
    think_markers("hy_v3", False, "Tencent HY-V3: <think>...</think> (suffixed added tokens; no_think by default)"),
    cut_by=(MARKERS[0],),
    family="Hunyuan",
)

TOOLS = ToolFormat(
    name="hy_v3",
    description="Tencent HY-V3: <tool_calls><tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value>...",
    markers=(*MARKERS, Marker("name_end", "<tool_sep{suffix}>", token=False)),
    block_starts=frozenset({"calls_begin"}),
    body=KeyValueCalls,
    body_options={"open_end": True},
    aliases=("hunyuan",),
    family="Hunyuan",
)
