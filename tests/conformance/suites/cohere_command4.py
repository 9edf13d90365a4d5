"""Cohere Command 4 (``cohere_command4`` reasoning, ``cohere_command4`` tools): thinking pre-filled."""

import json

from ..corpus import Sample, Suite, call


def action(*calls: tuple[str, dict]) -> str:
    items = ",\n".join(
        "    " + json.dumps({"tool_call_id": str(i), "tool_name": n, "parameters": p}, ensure_ascii=False)
        for i, (n, p) in enumerate(calls)
    )
    return f"<|START_ACTION|>[\n{items}\n]<|END_ACTION|>"


SUITES = [
    Suite(
        "cohere-command4-test",
        "cohere_command4",
        "cohere_command4",
        (
            Sample(
                "reasoning then answer",
                "A simple sum.<|END_THINKING|><|START_TEXT|>It is 4.<|END_TEXT|><|END_OF_TURN_TOKEN|>",
                reasoning="A simple sum.",
                content="It is 4.",
            ),
            Sample(
                "thinking off: plain answer",
                "<|START_TEXT|>Bonjour !<|END_TEXT|>",
                content="Bonjour !",
                options={"thinking": False},
            ),
            Sample(
                "instruct turn parsed with thinking on still gives content",
                "<|START_TEXT|>Bonjour !<|END_TEXT|>",
                content="Bonjour !",
            ),
            Sample(
                "reasoning then one call",
                "I will search.<|END_THINKING|>" + action(("web_search", {"query": "weather Paris"})),
                reasoning="I will search.",
                calls=(call("web_search", query="weather Paris"),),
            ),
            Sample(
                "several calls with nested, unicode, numbers",
                "Two lookups.<|END_THINKING|>"
                + action(
                    ("lookup", {"ids": [1, 2, 3], "opts": {"deep": True, "limit": None}}),
                    ("translate", {"text": '¿Dónde está "el" baño?\n', "to": "ja"}),
                ),
                reasoning="Two lookups.",
                calls=(
                    call("lookup", ids=[1, 2, 3], opts={"deep": True, "limit": None}),
                    call("translate", text='¿Dónde está "el" baño?\n', to="ja"),
                ),
            ),
            Sample(
                "empty parameters",
                "Time.<|END_THINKING|>" + action(("get_time", {})),
                reasoning="Time.",
                calls=(call("get_time"),),
            ),
            Sample("reasoning cut off", "First I need to", reasoning="First I need to"),
            Sample(
                "action inside reasoning ends it",
                "Search now" + action(("web_search", {"query": "x"})),
                reasoning="Search now",
                calls=(call("web_search", query="x"),),
            ),
            Sample(
                "call cut inside parameters is content",
                "Go.<|END_THINKING|>"
                '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "f", "parameters": {"a": ',
                reasoning="Go.",
                content='<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "f", "parameters": {"a": ',
            ),
            Sample(
                "<|START_RESPONSE|>...<|END_RESPONSE|> as text are read",
                "Plan.<|END_THINKING|><|START_RESPONSE|>Done.<|END_RESPONSE|>",
                reasoning="Plan.",
                content="Done.",
            ),
            Sample(
                "arguments for parameters, as a JSON string",
                'Go.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", '
                '"arguments": "{\\"a\\": 1}"}]<|END_ACTION|>',
                reasoning="Go.",
                calls=(call("f", a=1),),
            ),
        ),
        source="CohereLabs command-a-reasoning-08-2025 chat template",
    )
]
