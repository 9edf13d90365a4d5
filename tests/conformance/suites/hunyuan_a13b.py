"""Tencent Hunyuan-A13B (``hunyuan_a13b`` reasoning and tools): text tags for thinking, answer and calls.

With thinking on the model writes ``<think>\\nREASONING\\n</think>\\n<answer>\\nANSWER\\n</answer>``; with
``enable_thinking=False`` the template closes an empty thinking block and the output starts at
``<answer>``. Calls are ``<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>`` inside the
answer.
"""

from ..corpus import Sample, Suite, call


def answer(body: str) -> str:
    return f"<answer>\n{body}\n</answer>"


def think(reasoning: str) -> str:
    return f"<think>\n{reasoning}\n</think>\n"


SUITES = [
    Suite(
        "hunyuan-a13b-test",
        "hunyuan_a13b",
        "hunyuan_a13b",
        (
            Sample("thinking off: plain answer", answer("你好！有什么可以帮你？"), content="你好！有什么可以帮你？"),
            Sample(
                "reasoning then answer",
                think("用户问 3 + 5，结果是 8。") + answer("3 + 5 = 8。"),
                reasoning="用户问 3 + 5，结果是 8。",
                content="3 + 5 = 8。",
            ),
            Sample(
                "reasoning then a call",
                think("用户想知道北京的天气，调用工具。")
                + answer('<tool_calls>[{"name": "get_weather", "arguments": {"city": "北京"}}]</tool_calls>'),
                reasoning="用户想知道北京的天气，调用工具。",
                calls=(call("get_weather", city="北京"),),
            ),
            Sample(
                "content before a call inside the answer",
                answer(
                    '好的，我来查询。\n<tool_calls>[{"name": "search", "arguments": {"query": "混元"}}]</tool_calls>'
                ),
                content="好的，我来查询。",
                calls=(call("search", query="混元"),),
            ),
            Sample(
                "several calls in one list",
                think("Two cities.")
                + answer(
                    '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Shanghai"}}, '
                    '{"name": "get_weather", "arguments": {"city": "Shenzhen"}}]</tool_calls>'
                ),
                reasoning="Two cities.",
                calls=(call("get_weather", city="Shanghai"), call("get_weather", city="Shenzhen")),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                answer(
                    '<tool_calls>[{"name": "create_order", "arguments": {"items": [{"id": "茶-01", "qty": 2}], '
                    '"note": "少糖\\n\\"加冰\\"", "total": 38.5, "takeaway": true, "invoice": false, '
                    '"coupon": null}}]</tool_calls>'
                ),
                calls=(
                    call(
                        "create_order",
                        items=[{"id": "茶-01", "qty": 2}],
                        note='少糖\n"加冰"',
                        total=38.5,
                        takeaway=True,
                        invoice=False,
                        coupon=None,
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                answer('<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>'),
                calls=(call("get_time"),),
            ),
            Sample(
                "closing tag missing after the list",
                answer('<tool_calls>[{"name": "get_weather", "arguments": {"city": "Wuhan"}}]'),
                calls=(call("get_weather", city="Wuhan"),),
            ),
            Sample(
                "a call list inside the reasoning ends it",
                "<think>\nNeed the tool.\n"
                '<tool_calls>[{"name": "search", "arguments": {"query": "A13B"}}]</tool_calls>',
                reasoning="Need the tool.",
                calls=(call("search", query="A13B"),),
            ),
            Sample(
                "no tags at all: content",
                "The answer is 42.",
                content="The answer is 42.",
            ),
            Sample(
                "reasoning cut off",
                "<think>\n首先分析题目的条件，然后",
                reasoning="首先分析题目的条件，然后",
            ),
            Sample(
                "answer cut off before </answer>",
                think("Greeting.") + "<answer>\nHello! I am Hunyuan",
                reasoning="Greeting.",
                content="Hello! I am Hunyuan",
            ),
            Sample(
                "truncated call is content",
                answer('<tool_calls>[{"name": "get_weather", "arguments": {"ci').removesuffix("\n</answer>"),
                content='<tool_calls>[{"name": "get_weather", "arguments": {"ci',
            ),
            Sample(
                "a bare object instead of the list is content",
                answer('<tool_calls>{"name": "get_weather", "arguments": {"city": "Xi\'an"}}</tool_calls>'),
                content='<tool_calls>{"name": "get_weather", "arguments": {"city": "Xi\'an"}}</tool_calls>',
            ),
        ),
        source="tencent/Hunyuan-A13B-Instruct chat template and model card; vLLM hunyuan_a13b, SGLang hunyuan",
    )
]
