"""Qwen3 reasoning (``qwen3``) served with ``hermes`` tool calls: Qwen3.5/3.6 (``<think>`` pre-filled by the
template) and Qwen3 (the model writes ``<think>``)."""

from ..corpus import Sample, Suite, call

SUITES = [
    Suite(
        "qwen3.6",
        "qwen3",
        "hermes",
        (
            Sample(
                "reasoning then answer",
                "The user asks for the capital of France. That is Paris.\n</think>\n\nThe capital of France is Paris.",
                reasoning="The user asks for the capital of France. That is Paris.",
                content="The capital of France is Paris.",
            ),
            Sample(
                "reasoning then one call",
                "Checking the weather.\n</think>\n\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"location": "Tokyo"}}\n</tool_call>',
                reasoning="Checking the weather.",
                calls=(call("get_weather", location="Tokyo"),),
            ),
            Sample(
                "reasoning, content, two calls",
                "Two cities, two calls.\n</think>\n\nLet me check both.\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n<tool_call>\n'
                '{"name": "get_weather", "arguments": {"location": "东京"}}\n</tool_call>',
                reasoning="Two cities, two calls.",
                content="Let me check both.",
                calls=(call("get_weather", location="Paris"), call("get_weather", location="东京")),
            ),
            Sample(
                "call opened inside unclosed reasoning",
                "I need the weather first.\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"location": "Oslo"}}\n</tool_call>',
                reasoning="I need the weather first.",
                calls=(call("get_weather", location="Oslo"),),
            ),
            Sample(
                "thinking disabled: plain answer",
                "Paris is the capital of France.",
                content="Paris is the capital of France.",
                options={"thinking": False},
            ),
            Sample(
                "thinking disabled: a call",
                '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>',
                calls=(call("get_time"),),
                options={"thinking": False},
            ),
            Sample(
                "cut off while reasoning",
                "Let me think about the weather in",
                reasoning="Let me think about the weather in",
            ),
            Sample(
                "reasoning, then a truncated call",
                'Calling the tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"loc',
                reasoning="Calling the tool.",
                content='<tool_call>\n{"name": "get_weather", "arguments": {"loc',
            ),
            Sample(
                "JSON in reasoning stays reasoning",
                'The call should look like {"name": "get_weather", "arguments": {"location": "Rome"}}.\n</think>\n\n'
                "Sure, I can do that.",
                reasoning='The call should look like {"name": "get_weather", "arguments": {"location": "Rome"}}.',
                content="Sure, I can do that.",
            ),
            Sample(
                "comma between objects in one block, string arguments",
                "Both at once.\n</think>\n\n<tool_call>\n"
                '{"name": "get_weather", "arguments": "{\\"location\\": \\"Rome\\"}"},\n'
                '{"name": "get_time", "arguments": {"timezone": "Europe/Rome"}}\n</tool_call>',
                reasoning="Both at once.",
                calls=(call("get_weather", location="Rome"), call("get_time", timezone="Europe/Rome")),
            ),
        ),
        source="Qwen3.5/3.6 chat template (<think> pre-filled, hermes tool_call blocks); vLLM qwen3, SGLang qwen3",
    ),
    Suite(
        "qwen3",
        "qwen3",
        "hermes",
        (
            Sample(
                "explicit think then answer",
                "<think>\nSimple arithmetic: 2 + 2 = 4.\n</think>\n\n2 + 2 = 4.",
                reasoning="Simple arithmetic: 2 + 2 = 4.",
                content="2 + 2 = 4.",
            ),
            Sample(
                "explicit think then call",
                "<think>\nI'll search for it.\n</think>\n\n<tool_call>\n"
                '{"name": "search", "arguments": {"query": "Qwen3 release", "max_results": 3}}\n</tool_call>',
                reasoning="I'll search for it.",
                calls=(call("search", query="Qwen3 release", max_results=3),),
            ),
            Sample(
                "empty think block (thinking off template)",
                "<think>\n\n</think>\n\nHello! How can I help?",
                content="Hello! How can I help?",
            ),
        ),
        source="Qwen3 chat template (model writes <think>; empty think when enable_thinking=False)",
    ),
]
