"""Hermes / Qwen2.5 (``hermes``): ``<tool_call>`` JSON blocks, as the Hermes-2-Pro / Qwen2.5 templates write them."""

from ..corpus import Sample, Suite, call

SUITES = [
    Suite(
        "qwen3.6",
        None,
        "hermes",
        (
            Sample("plain answer", "The capital of France is Paris.", content="The capital of France is Paris."),
            Sample(
                "one call",
                '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Tokyo", "unit": "celsius"}}'
                "\n</tool_call>",
                calls=(call("get_weather", location="Tokyo", unit="celsius"),),
            ),
            Sample(
                "content before two calls",
                "I'll check both cities.\n"
                '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n'
                '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Berlin"}}\n</tool_call>',
                content="I'll check both cities.",
                calls=(call("get_weather", location="Paris"), call("get_weather", location="Berlin")),
            ),
            Sample(
                "nested, unicode and escaped arguments",
                '<tool_call>\n{"name": "create_event", "arguments": {"title": "Café «Zürich» 会议", '
                '"attendees": [{"name": "Zoë", "email": "zoe@example.com"}], "notes": "line1\\nline2 \\"quoted\\"", '
                '"all_day": false, "priority": null}}\n</tool_call>',
                calls=(
                    call(
                        "create_event",
                        title="Café «Zürich» 会议",
                        attendees=[{"name": "Zoë", "email": "zoe@example.com"}],
                        notes='line1\nline2 "quoted"',
                        all_day=False,
                        priority=None,
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                '<tool_call>\n{"name": "get_current_time", "arguments": {}}\n</tool_call>',
                calls=(call("get_current_time"),),
            ),
            Sample(
                "arguments as a JSON string",
                '<tool_call>\n{"name": "search", '
                '"arguments": "{\\"query\\": \\"rust borrow checker\\", \\"limit\\": 5}"}'
                "\n</tool_call>",
                calls=(call("search", query="rust borrow checker", limit=5),),
            ),
            Sample(
                "two objects in one block, comma-separated",
                '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Oslo"}},\n'
                '{"name": "get_time", "arguments": {"timezone": "Europe/Oslo"}}\n</tool_call>',
                calls=(call("get_weather", location="Oslo"), call("get_time", timezone="Europe/Oslo")),
            ),
            Sample(
                "a JSON list in one block",
                '<tool_call>\n[{"name": "get_weather", "arguments": {"location": "Rome"}}, '
                '{"name": "get_weather", "arguments": {"location": "Milan"}}]\n</tool_call>',
                calls=(call("get_weather", location="Rome"), call("get_weather", location="Milan")),
            ),
            Sample(
                "parameters instead of arguments",
                '<tool_call>\n{"name": "get_stock_price", "parameters": {"symbol": "NVDA"}}\n</tool_call>',
                calls=(call("get_stock_price", symbol="NVDA"),),
            ),
            Sample(
                "truncated call is content",
                '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Pa',
                content='<tool_call>\n{"name": "get_weather", "arguments": {"location": "Pa',
            ),
            Sample(
                "missing closing brace before the end tag",
                'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Lima"}\n</tool_call>',
                content='Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Lima"}'
                "\n</tool_call>",
            ),
            Sample(
                "a broken block, then a good one",
                '<tool_call>\n{"name": "get_weather", "arguments": {\'location\': \'Quito\'}}\n</tool_call>\n'
                '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "America/Guayaquil"}}\n</tool_call>',
                content='<tool_call>\n{"name": "get_weather", "arguments": {\'location\': \'Quito\'}}\n</tool_call>',
                calls=(call("get_time", timezone="America/Guayaquil"),),
            ),
            Sample(
                "missing end tag after a complete call",
                '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Cairo"}}\n',
                calls=(call("get_weather", location="Cairo"),),
            ),
            Sample(
                "stray end tag in prose stays content",
                "Use </tool_call> to close a call.",
                content="Use </tool_call> to close a call.",
            ),
            Sample(
                "arguments that are no object fail the call",
                '<tool_call>\n{"name": "ping", "arguments": ["a", "b"]}\n</tool_call>',
                content='<tool_call>\n{"name": "ping", "arguments": ["a", "b"]}\n</tool_call>',
            ),
        ),
        source="Hermes-2-Pro / Qwen2.5 chat templates (tool_call JSON blocks); vLLM hermes, SGLang hermes/qwen25",
    )
]
