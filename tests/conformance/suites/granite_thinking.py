"""Granite 4.2 thinking models (``granite_thinking`` reasoning): ``<think>`` pre-filled, text tags.

The thinking template ends the prompt with ``<think>``; the model writes ``REASONING\\n</think>\\n\\n``
then its answer or ``<tool_call>`` blocks (read here with ``granite4``'s JSON calls, whose tags are text
in the test vocabulary; ``qwen3_coder`` needs ``<tool_call>`` as an added token).
"""

from ..corpus import Sample, Suite, call

SUITES = [
    Suite(
        "granite4-test",
        "granite_thinking",
        None,
        (
            Sample(
                "reasoning then answer",
                "The user greets me; answer briefly.\n</think>\n\nHello! How can I help?",
                reasoning="The user greets me; answer briefly.",
                content="Hello! How can I help?",
            ),
            Sample(
                "model writes <think> itself",
                "<think>\nSimple arithmetic: 6 * 7 = 42.\n</think>\n\n6 × 7 = 42.",
                reasoning="Simple arithmetic: 6 * 7 = 42.",
                content="6 × 7 = 42.",
            ),
            Sample(
                "thinking disabled: plain answer",
                "Ottawa is the capital of Canada.",
                content="Ottawa is the capital of Canada.",
                options={"thinking": False},
            ),
            Sample(
                "multi-paragraph unicode reasoning",
                "Étape 1 : convertir 5 km en miles.\n\n5 × 0.621 = 3.1.\n</think>\n\n5 km ≈ 3.1 miles.",
                reasoning="Étape 1 : convertir 5 km en miles.\n\n5 × 0.621 = 3.1.",
                content="5 km ≈ 3.1 miles.",
            ),
            Sample(
                "reasoning cut off",
                "Let me enumerate the cases. Case 1: x is negative, so",
                reasoning="Let me enumerate the cases. Case 1: x is negative, so",
            ),
            Sample(
                "empty reasoning",
                "\n</think>\n\nSure.",
                content="Sure.",
            ),
            Sample(
                "markdown answer keeps its layout",
                "List three colors.\n</think>\n\n- red\n- green\n- blue\n",
                reasoning="List three colors.",
                content="- red\n- green\n- blue\n",
            ),
        ),
        source="ibm-granite Granite 4.2 thinking chat template; vLLM/SGLang granite_thinking_parser",
    ),
    Suite(
        "granite4-test",
        "granite_thinking",
        "granite4",
        (
            Sample(
                "reasoning then a call",
                "The user wants the weather; call the tool.\n</think>\n\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
                reasoning="The user wants the weather; call the tool.",
                calls=(call("get_weather", city="Paris"),),
            ),
            Sample(
                "a call opened inside the reasoning ends it",
                'I should look this up.\n<tool_call>\n{"name": "search", "arguments": {"query": "Granite 4.2"}}'
                "\n</tool_call>",
                reasoning="I should look this up.",
                calls=(call("search", query="Granite 4.2"),),
            ),
            Sample(
                "reasoning, text, then a call",
                'Need the time.\n</think>\n\nOne moment.\n<tool_call>\n{"name": "get_time", "arguments": {}}'
                "\n</tool_call>",
                reasoning="Need the time.",
                content="One moment.",
                calls=(call("get_time"),),
            ),
        ),
        source="Granite 4.2 thinking chat template with Granite 4.x <tool_call> JSON calls",
    ),
]
