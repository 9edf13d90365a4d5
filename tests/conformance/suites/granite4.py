"""IBM Granite 4.0 / 4.1 (``granite4`` tools): one Hermes-style ``<tool_call>`` block per call.

The template writes ``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`` for each call,
blocks separated by a newline, after the answer text.
"""

from ..corpus import Sample, Suite, call


def tc(obj: str) -> str:
    return f"<tool_call>\n{obj}\n</tool_call>"


SUITES = [
    Suite(
        "granite4-test",
        None,
        "granite4",
        (
            Sample(
                "plain answer", "Granite 4.0 is a hybrid Mamba model.", content="Granite 4.0 is a hybrid Mamba model."
            ),
            Sample(
                "one call",
                tc('{"name": "get_weather", "arguments": {"city": "Boston"}}'),
                calls=(call("get_weather", city="Boston"),),
            ),
            Sample(
                "content before two calls",
                "I'll look both up.\n"
                + tc('{"name": "get_weather", "arguments": {"city": "Boston"}}')
                + "\n"
                + tc('{"name": "get_time", "arguments": {"timezone": "America/New_York"}}'),
                content="I'll look both up.",
                calls=(call("get_weather", city="Boston"), call("get_time", timezone="America/New_York")),
            ),
            Sample(
                "text between and after calls is content",
                "First the weather.\n"
                + tc('{"name": "get_weather", "arguments": {"city": "Lima"}}')
                + "\nThen the time.\n"
                + tc('{"name": "get_time", "arguments": {"timezone": "America/Lima"}}')
                + "\nDone.",
                content="First the weather.\nThen the time.\nDone.",
                calls=(call("get_weather", city="Lima"), call("get_time", timezone="America/Lima")),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                tc(
                    '{"name": "create_ticket", "arguments": {"title": "Crash in Überblick 画面", '
                    '"steps": ["open", "click \\"Save\\""], "severity": 3, "score": 0.75, "regression": true, '
                    '"duplicate": false, "assignee": null, "env": {"os": "linux", "versions": [4, 4.1]}}}'
                ),
                calls=(
                    call(
                        "create_ticket",
                        title="Crash in Überblick 画面",
                        steps=["open", 'click "Save"'],
                        severity=3,
                        score=0.75,
                        regression=True,
                        duplicate=False,
                        assignee=None,
                        env={"os": "linux", "versions": [4, 4.1]},
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                tc('{"name": "list_files", "arguments": {}}'),
                calls=(call("list_files"),),
            ),
            Sample(
                "arguments as a JSON string",
                tc('{"name": "search", "arguments": "{\\"query\\": \\"mamba2\\"}"}'),
                calls=(call("search", query="mamba2"),),
            ),
            Sample(
                "missing end tag after a complete call",
                'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}',
                content="Checking.",
                calls=(call("get_weather", city="Oslo"),),
            ),
            Sample(
                "truncated call is content",
                'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"ci',
                content='Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"ci',
            ),
            Sample(
                "missing closing brace before the end tag",
                tc('{"name": "get_weather", "arguments": {"city": "Quito"}'),
                content='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Quito"}\n</tool_call>',
            ),
            Sample(
                "a broken block, then a good one",
                tc('{"name": "get_weather", "arguments": {city: "Rome"}}')
                + "\n"
                + tc('{"name": "get_time", "arguments": {"timezone": "Europe/Rome"}}'),
                content='<tool_call>\n{"name": "get_weather", "arguments": {city: "Rome"}}\n</tool_call>',
                calls=(call("get_time", timezone="Europe/Rome"),),
            ),
            Sample(
                "stray end tag in prose stays content",
                "Close a call with </tool_call>.",
                content="Close a call with </tool_call>.",
            ),
            Sample(
                "a call without a name fails",
                tc('{"arguments": {"city": "Paris"}}'),
                content='<tool_call>\n{"arguments": {"city": "Paris"}}\n</tool_call>',
            ),
        ),
        source="ibm-granite/granite-4.0-h-small chat template and model card; vLLM granite4",
    )
]
