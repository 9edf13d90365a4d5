"""Cohere Command A / R7B (``cohere_command3`` reasoning, ``cohere_command`` tools)."""

import json

from ..corpus import Sample, Suite, call

EOT = "<|END_OF_TURN_TOKEN|>"


def action(*calls: tuple[str, dict], indent: str = "    ") -> str:
    """An action block as the template writes it: a JSON list, one call per line."""
    items = ",\n".join(
        indent + json.dumps({"tool_call_id": str(i), "tool_name": n, "parameters": p}, ensure_ascii=False)
        for i, (n, p) in enumerate(calls)
    )
    return f"<|START_ACTION|>[\n{items}\n]<|END_ACTION|>"


def think(text: str) -> str:
    return f"<|START_THINKING|>{text}<|END_THINKING|>"


SUITES = [
    Suite(
        "cohere-command3-test",
        "cohere_command3",
        "cohere_command",
        (
            Sample(
                "plain answer",
                "<|START_RESPONSE|>Paris is the capital of France.<|END_RESPONSE|>" + EOT,
                content="Paris is the capital of France.",
            ),
            Sample(
                "reasoning then answer",
                think("A simple sum.") + "<|START_RESPONSE|>It is 4.<|END_RESPONSE|>" + EOT,
                reasoning="A simple sum.",
                content="It is 4.",
            ),
            Sample(
                "reasoning then two calls",
                think("I will search, then get the time.")
                + action(("web_search", {"query": "weather Paris"}), ("get_time", {}))
                + EOT,
                reasoning="I will search, then get the time.",
                calls=(call("web_search", query="weather Paris"), call("get_time")),
            ),
            Sample(
                "nested, unicode, escapes, numbers, bools, null",
                think("Book it.")
                + action(
                    (
                        "book",
                        {
                            "guest": {"name": 'Zoë "Z" Ng', "langs": ["fr", "日本語"]},
                            "nights": 3,
                            "rate": 129.5,
                            "smoking": False,
                            "notes": None,
                            "path": "C:\\x\n",
                        },
                    )
                )
                + EOT,
                reasoning="Book it.",
                calls=(
                    call(
                        "book",
                        guest={"name": 'Zoë "Z" Ng', "langs": ["fr", "日本語"]},
                        nights=3,
                        rate=129.5,
                        smoking=False,
                        notes=None,
                        path="C:\\x\n",
                    ),
                ),
            ),
            Sample(
                "single object without the list",
                '<|START_ACTION|>{"tool_call_id": "0", "tool_name": "get_time", "parameters": {"tz": "UTC"}}'
                "<|END_ACTION|>",
                calls=(call("get_time", tz="UTC"),),
            ),
            Sample(
                "name for tool_name, missing ] and <|END_ACTION|>",
                '<|START_ACTION|>[\n    {"tool_call_id": "0", "name": "search", "parameters": {"q": "x"}}\n',
                calls=(call("search", q="x"),),
            ),
            Sample(
                "reasoning cut off",
                "<|START_THINKING|>The user wants a summary of",
                reasoning="The user wants a summary of",
            ),
            Sample(
                "call cut inside parameters is content",
                think("Search.") + '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "web_search", '
                '"parameters": {"query": "weather Pa',
                reasoning="Search.",
                content='<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "web_search", '
                '"parameters": {"query": "weather Pa',
            ),
            Sample(
                "action opened inside reasoning ends it",
                "<|START_THINKING|>Need to search" + action(("web_search", {"query": "x"})),
                reasoning="Need to search",
                calls=(call("web_search", query="x"),),
            ),
            Sample(
                "response opened inside reasoning ends it",
                "<|START_THINKING|>Easy.<|START_RESPONSE|>Yes.<|END_RESPONSE|>",
                reasoning="Easy.",
                content="Yes.",
            ),
            Sample(
                "grounded answer keeps citation tags",
                "<|START_RESPONSE|>It is <co>sunny</co: 0:[0]>.<|END_RESPONSE|>",
                content="It is <co>sunny</co: 0:[0]>.",
            ),
            Sample(
                "parameters that are not an object break the call",
                '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": [1]}]<|END_ACTION|>',
                content='<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": [1]}]<|END_ACTION|>',
            ),
        ),
        source="CohereLabs c4ai-command-a-03-2025 / command-r7b chat templates (tool_use)",
    )
]
