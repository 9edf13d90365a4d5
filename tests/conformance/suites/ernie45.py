"""ERNIE-4.5-21B-A3B-Thinking (``ernie45`` reasoning and tools): ``<think>`` pre-filled by the template.

The model writes ``REASONING\\n</think>\\n\\n`` then either ``<response>\\nANSWER\\n</response>`` or
Hermes-style ``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`` blocks, one per call.
"""

from ..corpus import Sample, Suite, call

TC = '<tool_call>\n{{"name": "{}", "arguments": {}}}\n</tool_call>'


def tc(name: str, args: str) -> str:
    return TC.format(name, args)


SUITES = [
    Suite(
        "ernie45-test",
        "ernie45",
        "ernie45",
        (
            Sample(
                "thinking off: plain answer",
                "Beijing is the capital of China.",
                content="Beijing is the capital of China.",
                options={"thinking": False},
            ),
            Sample(
                "reasoning then a wrapped answer",
                "The user asks 2+2. That is 4.\n</think>\n\n<response>\n2 + 2 = 4.\n</response>",
                reasoning="The user asks 2+2. That is 4.",
                content="2 + 2 = 4.",
            ),
            Sample(
                "reasoning then an answer without the response tags",
                "Simple greeting.\n</think>\n\nHello! How can I help you today?",
                reasoning="Simple greeting.",
                content="Hello! How can I help you today?",
            ),
            Sample(
                "model writes <think> itself",
                "<think>\nA short factual question.\n</think>\n\n<response>\nParis.\n</response>",
                reasoning="A short factual question.",
                content="Paris.",
            ),
            Sample(
                "reasoning then a call",
                "The user wants Beijing's temperature; call the tool.\n</think>\n\n"
                + tc("get_current_temperature", '{"location": "Beijing"}'),
                reasoning="The user wants Beijing's temperature; call the tool.",
                calls=(call("get_current_temperature", location="Beijing"),),
            ),
            Sample(
                "reasoning then two calls",
                "Two separate questions, two tools.\n</think>\n\n"
                + tc("get_current_temperature", '{"location": "Beijing"}')
                + "\n"
                + tc("get_temperature_unit", '{"location": "Guangzhou", "unit": "c"}'),
                reasoning="Two separate questions, two tools.",
                calls=(
                    call("get_current_temperature", location="Beijing"),
                    call("get_temperature_unit", location="Guangzhou", unit="c"),
                ),
            ),
            Sample(
                "content before and after a call",
                "Need the tool.\n</think>\n\nLet me check that.\n"
                + tc("search", '{"query": "ERNIE 4.5"}')
                + "\nI'll report back.",
                reasoning="Need the tool.",
                content="Let me check that.\nI'll report back.",
                calls=(call("search", query="ERNIE 4.5"),),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                "Book it.\n</think>\n\n"
                + tc(
                    "book_flight",
                    '{"from": "北京", "to": "上海", "passengers": [{"name": "李雷", "age": 30}], '
                    '"note": "靠窗\\t\\"安静\\"", "price": 1299.5, "refundable": false, "seat": null}',
                ),
                reasoning="Book it.",
                calls=(
                    call(
                        "book_flight",
                        **{
                            "from": "北京",
                            "to": "上海",
                            "passengers": [{"name": "李雷", "age": 30}],
                            "note": '靠窗\t"安静"',
                            "price": 1299.5,
                            "refundable": False,
                            "seat": None,
                        },
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                "Get the time.\n</think>\n\n" + tc("get_current_time", "{}"),
                reasoning="Get the time.",
                calls=(call("get_current_time"),),
            ),
            Sample(
                "a call written inside the reasoning ends it",
                "I should look this up.\n" + tc("search", '{"query": "weather Shenzhen"}'),
                reasoning="I should look this up.",
                calls=(call("search", query="weather Shenzhen"),),
            ),
            Sample(
                "reasoning cut off",
                "The user asks about the history of the Great Wall. First, the Qin",
                reasoning="The user asks about the history of the Great Wall. First, the Qin",
            ),
            Sample(
                "closing </response> without its opener is dropped",
                "Greeting.\n</think>\n\nHi there!\n</response>",
                reasoning="Greeting.",
                content="Hi there!",
            ),
            Sample(
                "truncated call is content",
                'Call it.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"loc',
                reasoning="Call it.",
                content='<tool_call>\n{"name": "get_weather", "arguments": {"loc',
            ),
            Sample(
                "a trailing comma breaks the arguments",
                "Call it.\n</think>\n\n" + tc("get_weather", '{"location": "Xi\'an",}'),
                reasoning="Call it.",
                content='<tool_call>\n{"name": "get_weather", "arguments": {"location": "Xi\'an",}}\n</tool_call>',
            ),
            Sample(
                "end tag before the call object closes",
                'Call it.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Wuhan"}\n'
                "</tool_call>",
                reasoning="Call it.",
                content='<tool_call>\n{"name": "get_weather", "arguments": {"location": "Wuhan"}\n</tool_call>',
            ),
        ),
        source="baidu/ERNIE-4.5-21B-A3B-Thinking chat template and model card; vLLM ernie45 reasoning and tools",
    )
]
