"""MiniMax-M1: one JSON call object per line inside ``<tool_calls>`` (text markers).

The chat template's function-call section asks the model to answer with::

    <tool_calls>
    {"name": NAME, "arguments": {ARGS}}
    {"name": NAME, "arguments": {ARGS}}
    </tool_calls>

(served without a reasoning parser here: the tool format alone).
"""

from tests.parsing.cases import deepseek_minimax_step  # noqa: F401  (registers the minimax-m1-test tokenizer)

from ..corpus import Sample, Suite, call

SAMPLES = (
    Sample(
        "plain answer",
        "The capital of Australia is Canberra.",
        content="The capital of Australia is Canberra.",
    ),
    Sample(
        "one call",
        '<tool_calls>\n{"name": "get_weather", "arguments": {"location": "Tokyo", "unit": "celsius"}}\n</tool_calls>',
        calls=(call("get_weather", location="Tokyo", unit="celsius"),),
    ),
    Sample(
        "content then two calls (model card example)",
        "I'll search for both.\n<tool_calls>\n"
        '{"name": "search_web", "arguments": {"query_tag": ["technology", "events"], '
        '"query_list": ["OpenAI", "news"]}}\n'
        '{"name": "search_web", "arguments": {"query_tag": ["technology", "events"], '
        '"query_list": ["Gemini", "news"]}}\n'
        "</tool_calls>",
        content="I'll search for both.",
        calls=(
            call("search_web", query_tag=["technology", "events"], query_list=["OpenAI", "news"]),
            call("search_web", query_tag=["technology", "events"], query_list=["Gemini", "news"]),
        ),
    ),
    Sample(
        "nested arguments, unicode, escapes, numbers, bools and null",
        "<tool_calls>\n"
        '{"name": "create_event", "arguments": {"title": "Caf\\u00e9 \\"Zoë\\" 東京 🚀", '
        '"when": {"start": "2025-06-01T09:00", '
        '"repeat": [1, 2.5, -3e2]}, "all_day": false, "public": true, "room": null, "path": "C:\\\\tmp\\n"}}\n'
        "</tool_calls>",
        calls=(
            call(
                "create_event",
                title='Café "Zoë" 東京 🚀',
                when={"start": "2025-06-01T09:00", "repeat": [1, 2.5, -300.0]},
                all_day=False,
                public=True,
                room=None,
                path="C:\\tmp\n",
            ),
        ),
    ),
    Sample(
        "empty arguments",
        '<tool_calls>\n{"name": "get_time", "arguments": {}}\n</tool_calls>',
        calls=(call("get_time"),),
    ),
    Sample(
        "closer missing at the end of the output",
        'Checking.\n<tool_calls>\n{"name": "get_weather", "arguments": {"location": "Lima"}}\n',
        content="Checking.",
        calls=(call("get_weather", location="Lima"),),
    ),
    Sample(
        "truncated mid-arguments: content verbatim",
        '<tool_calls>\n{"name": "get_weather", "arguments": {"location": "San Fr',
        content='<tool_calls>\n{"name": "get_weather", "arguments": {"location": "San Fr',
    ),
    Sample(
        "parameters instead of arguments",
        '<tool_calls>\n{"name": "get_weather", "parameters": {"location": "Oslo"}}\n</tool_calls>',
        calls=(call("get_weather", location="Oslo"),),
    ),
    Sample(
        "compact layout on one line per call without newlines around the block",
        'Sure.<tool_calls>{"name":"get_time","arguments":{"tz":"UTC"}}</tool_calls>',
        content="Sure.",
        calls=(call("get_time", tz="UTC"),),
    ),
    Sample(
        "reasoning kept as content without a reasoning parser",
        "<think>\nThe user wants the time.\n</think>\n\n"
        '<tool_calls>\n{"name": "get_time", "arguments": {"tz": "Asia/Shanghai"}}\n</tool_calls>',
        content="<think>\nThe user wants the time.\n</think>",
        calls=(call("get_time", tz="Asia/Shanghai"),),
    ),
    Sample(
        "content after the block",
        '<tool_calls>\n{"name": "get_time", "arguments": {}}\n</tool_calls>\nOne moment.',
        content="One moment.",
        calls=(call("get_time"),),
    ),
    Sample(
        "a second line broken mid-arguments: the first call stands",
        '<tool_calls>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n{"name": "get_weather", "arguments": {"loc',
        calls=(call("get_time", tz="UTC"),),
        content='{"name": "get_weather", "arguments": {"loc',
    ),
)

SUITES = [
    Suite(
        "minimax-m1-test",
        None,
        "minimax_m1",
        SAMPLES,
        source="MiniMax-M1 chat template (function-call instructions), MiniMax-M1 function call guide",
    )
]
