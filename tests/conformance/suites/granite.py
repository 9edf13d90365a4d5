"""IBM Granite 3.x (``granite`` reasoning and tools): ``<|tool_call|>[...]`` lists, plain-text thinking headings.

Granite 3.0 - 3.3 templates: the assistant writes ``<|tool_call|>`` (an added token) then a JSON list
of ``{"name": ..., "arguments": {...}}`` objects, with no closing marker; Granite 3.1+ also writes
``<tool_call>`` as text. With ``thinking=True`` (3.2 / 3.3) the answer is ``Here is my thought
process:\\n...\\nHere is my response:\\n...``; nothing is pre-filled.
"""

from ..corpus import Sample, Suite, call

TC = "<|tool_call|>"
THINK, RESP = "Here is my thought process:\n", "\nHere is my response:\n"

SUITES = [
    Suite(
        "granite3-test",
        "granite",
        "granite",
        (
            Sample("plain answer", "The Eiffel Tower is 330 m tall.", content="The Eiffel Tower is 330 m tall."),
            Sample(
                "reasoning then answer",
                f"{THINK}The user asks for 15% of 80. 0.15 * 80 = 12.{RESP}15% of 80 is 12.",
                reasoning="The user asks for 15% of 80. 0.15 * 80 = 12.",
                content="15% of 80 is 12.",
            ),
            Sample(
                "Here's headings (quantized checkpoints)",
                "Here's my thought process:\nA greeting.\nHere's my response:\nHello!",
                reasoning="A greeting.",
                content="Hello!",
            ),
            Sample(
                "reasoning then a call",
                f'{THINK}I need the weather tool for Boston.{RESP}{TC}[{{"name": "get_weather", '
                f'"arguments": {{"city": "Boston"}}}}]',
                reasoning="I need the weather tool for Boston.",
                calls=(call("get_weather", city="Boston"),),
            ),
            Sample(
                "content before two calls",
                f'Let me check both.\n{TC}[{{"name": "get_weather", "arguments": {{"city": "Austin"}}}}, '
                f'{{"name": "get_time", "arguments": {{"timezone": "America/Chicago"}}}}]',
                content="Let me check both.",
                calls=(call("get_weather", city="Austin"), call("get_time", timezone="America/Chicago")),
            ),
            Sample(
                "text after the list is content",
                f'{TC}[{{"name": "search", "arguments": {{"query": "IBM Granite"}}}}]\nI will summarize the results.',
                content="I will summarize the results.",
                calls=(call("search", query="IBM Granite"),),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                f'{TC}[{{"name": "send_email", "arguments": {{"to": ["zoë@example.com"], "subject": "Café ☕ «menu»", '
                f'"body": "Hi,\\n\\t\\"See you\\"", "priority": 2, "urgent": true, "html": false, "cc": null, '
                f'"meta": {{"tags": ["a", {{"b": 1.5e-2}}]}}}}}}]',
                calls=(
                    call(
                        "send_email",
                        to=["zoë@example.com"],
                        subject="Café ☕ «menu»",
                        body='Hi,\n\t"See you"',
                        priority=2,
                        urgent=True,
                        html=False,
                        cc=None,
                        meta={"tags": ["a", {"b": 0.015}]},
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                f'{TC}[{{"name": "get_current_time", "arguments": {{}}}}]',
                calls=(call("get_current_time"),),
            ),
            Sample(
                "a single object instead of the list",
                f'{TC}{{"name": "get_weather", "arguments": {{"city": "Denver"}}}}',
                calls=(call("get_weather", city="Denver"),),
            ),
            Sample(
                "<tool_call> written as text (Granite 3.1+)",
                '<tool_call>[{"name": "get_stock_price", "arguments": {"ticker": "IBM"}}]',
                calls=(call("get_stock_price", ticker="IBM"),),
            ),
            Sample(
                "reasoning cut off before the response heading",
                f"{THINK}First, list the primes below 20: 2, 3, 5, 7",
                reasoning="First, list the primes below 20: 2, 3, 5, 7",
            ),
            Sample(
                "truncated call is content",
                f'I\'ll check.{TC}[{{"name": "get_weather", "arguments": {{"city": "Sea',
                content=f'I\'ll check.{TC}[{{"name": "get_weather", "arguments": {{"city": "Sea',
            ),
            Sample(
                "space after the marker, as the 3.0 template writes it",
                f'{TC} [{{"name": "get_weather", "arguments": {{"city": "SF"}}}}]',
                calls=(call("get_weather", city="SF"),),
            ),
            Sample(
                "list cut off after a complete call keeps it",
                f'{TC}[{{"name": "get_weather", "arguments": {{"city": "SF"}}}}, {{"name": "get_ti',
                content=', {"name": "get_ti',
                calls=(call("get_weather", city="SF"),),
            ),
            Sample(
                "comma left out between two calls",
                f'{TC}[{{"name": "a", "arguments": {{"x": 1}}}} {{"name": "b", "arguments": {{}}}}]',
                calls=(call("a", x=1), call("b")),
            ),
            Sample(
                "list broken after its first call",
                f'{TC}[{{"name": "a", "arguments": {{"x": 1}}}}; {{"name": "b", "arguments": {{}}}}]',
                content='; {"name": "b", "arguments": {}}]',
                calls=(call("a", x=1),),
            ),
            Sample(
                "arguments that are no object fail the call",
                f'{TC}[{{"name": "func", "arguments": "not a dict"}}]',
                content=f'{TC}[{{"name": "func", "arguments": "not a dict"}}]',
            ),
            Sample(
                "tool-call token followed by prose stays content",
                f"{TC}I cannot call a tool for that.",
                content=f"{TC}I cannot call a tool for that.",
            ),
        ),
        source="ibm-granite/granite-3.x-instruct chat templates and model cards; vLLM granite reasoning and tools",
    )
]
