"""PLaMo 3: reasoning and tool calls delimited by ``<|plamo:...:plamo|>`` tags.

Each tag is spelled with several tokens -- ``<|plamo:begin_`` or
``<|plamo:end_``, ordinary text, ``:plamo|>`` -- and those pieces are special
tokens, so the tags are text markers and the pieces are read as text
(``keep_tokens``) instead of dropped. Reasoning opens the output (thinking
is on by default)::

    REASONING<|plamo:end_think:plamo|>ANSWER<|plamo:begin_tool_requests:plamo|>
    <|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>
    <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"a": 1}
    <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>
"""

from ..bodies.tagged import TaggedCalls
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

BEGIN_THINK = "<|plamo:begin_think:plamo|>"
END_THINK = "<|plamo:end_think:plamo|>"
BEGIN_TOOL_REQUESTS = "<|plamo:begin_tool_requests:plamo|>"
#: The special tokens the tags are made of (and the argument header's).
PIECES = ("<|plamo:begin_", "<|plamo:end_", ":plamo|>", "<|plamo:constrain|>", "<|plamo:msg|>")

REASONING = ReasoningFormat(
    "plamo3",
    ReasoningMarkers(
        "plamo3",
        BEGIN_THINK,
        END_THINK,
        END_THINK,
        True,
        "PLaMo 3: <|plamo:begin_think:plamo|>...<|plamo:end_think:plamo|> (multi-token tags, matched as text)",
    ),
    token=False,
    cut_by=(Marker("requests_begin", BEGIN_TOOL_REQUESTS, token=False),),
    keep_tokens=PIECES,
    family="PLaMo",
)

TOOLS = ToolFormat(
    name="plamo3",
    description=(
        "PLaMo 3: <|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>"
        "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{...}"
    ),
    markers=(
        Marker("requests_begin", BEGIN_TOOL_REQUESTS, token=False),
        Marker("requests_end", "<|plamo:end_tool_requests:plamo|>", token=False),
        Marker("request_begin", "<|plamo:begin_tool_request:plamo|>", token=False),
        Marker("request_end", "<|plamo:end_tool_request:plamo|>", token=False),
        Marker("name_begin", "<|plamo:begin_tool_name:plamo|>", token=False),
        Marker("name_end", "<|plamo:end_tool_name:plamo|>", token=False),
        Marker("args_begin", "<|plamo:begin_tool_arguments:plamo|>", token=False),
        Marker("args_end", "<|plamo:end_tool_arguments:plamo|>", token=False),
        Marker("constrain", "<|plamo:constrain|>", token=False),
        Marker("msg", "<|plamo:msg|>", token=False),
    ),
    block_starts=frozenset({"requests_begin", "request_begin"}),
    body=TaggedCalls,
    body_options={
        "call_begin": "request_begin",
        "call_end": "request_end",
        "name_begin": "name_begin",
        "name_end": "name_end",
        "args_begin": "args_begin",
        "args_end": "args_end",
        "block_end": "requests_end",
        "header": ("constrain", "msg"),
    },
    keep_tokens=PIECES,
    family="PLaMo",
)
