"""Microsoft Phi-4-mini (``phi4_mini_json``): ``functools[...]`` as vLLM's Phi-4-mini tool template asks."""

from ..corpus import Sample, Suite, call

SUITES = [
    Suite(
        "o200k_base",
        None,
        "phi4_mini_json",
        (
            Sample("plain answer", "The capital of France is Paris.", content="The capital of France is Paris."),
            Sample(
                "one call",
                'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
                calls=(call("get_weather", city="Tokyo"),),
            ),
            Sample(
                "two calls, parameters spelling",
                'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, '
                '{"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}]',
                calls=(call("get_weather", city="Tokyo"), call("get_time", timezone="Asia/Tokyo")),
            ),
            Sample(
                "content before the list",
                "I will look it up.\n"
                'functools[{"name": "search", "arguments": {"query": "Phi-4-mini context length"}}]',
                content="I will look it up.",
                calls=(call("search", query="Phi-4-mini context length"),),
            ),
            Sample(
                "nested, unicode and escaped arguments",
                'functools[{"name": "book_table", "arguments": {"restaurant": "Café Zoë", "party": {"adults": 2, '
                '"children": 1}, "note": "window seat \\"please\\"\\n🙂"}}]',
                calls=(
                    call(
                        "book_table",
                        restaurant="Café Zoë",
                        party={"adults": 2, "children": 1},
                        note='window seat "please"\n🙂',
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                'functools[{"name": "get_current_time", "arguments": {}}]',
                calls=(call("get_current_time"),),
            ),
            Sample(
                "text after the list is content",
                'functools[{"name": "get_weather", "arguments": {"city": "Lima"}}] Checking now.',
                content="Checking now.",
                calls=(call("get_weather", city="Lima"),),
            ),
            Sample(
                "functools in prose stays content",
                "Use functools.partial to bind arguments.",
                content="Use functools.partial to bind arguments.",
            ),
            Sample(
                "truncated list is content",
                'functools[{"name": "get_weather", "arguments": {"city": "Par',
                content='functools[{"name": "get_weather", "arguments": {"city": "Par',
            ),
            Sample(
                "Python quotes are not JSON",
                "functools[{'name': 'get_weather', 'arguments': {'city': 'Rome'}}]",
                content="functools[{'name': 'get_weather', 'arguments': {'city': 'Rome'}}]",
            ),
            Sample(
                "missing closing bracket after a complete call",
                'functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}',
                calls=(call("get_weather", city="Oslo"),),
            ),
        ),
        source="Phi-4-mini model card (functools[...] tool calls); vLLM phi4_mini_json",
    )
]
