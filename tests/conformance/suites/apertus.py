"""Apertus 2509 (``apertus`` reasoning and tools): ``<|inner_prefix|>`` reasoning, ``{"NAME": {...}}`` calls.

The chat template's assistant turn is ``<|inner_prefix|>REASONING<|inner_suffix|>`` (when the model
thinks), answer text, then ``<|tools_prefix|>[{"NAME": {ARGS}}, ...]<|tools_suffix|>``; all four are
added tokens. Nothing is pre-filled: the output starts as content.
"""

from ..corpus import Sample, Suite, call

IP, IS = "<|inner_prefix|>", "<|inner_suffix|>"
TP, TS = "<|tools_prefix|>", "<|tools_suffix|>"

SUITES = [
    Suite(
        "apertus-test",
        "apertus",
        "apertus",
        (
            Sample(
                "plain answer", "The capital of Switzerland is Bern.", content="The capital of Switzerland is Bern."
            ),
            Sample(
                "reasoning then answer",
                f"{IP}Simple arithmetic: 17 * 3 = 51.{IS}17 × 3 = 51.",
                reasoning="Simple arithmetic: 17 * 3 = 51.",
                content="17 × 3 = 51.",
            ),
            Sample(
                "reasoning then a call",
                f"{IP}The user wants the weather in Zürich; use the tool.{IS}"
                f'{TP}[{{"get_weather": {{"city": "Zürich"}}}}]{TS}',
                reasoning="The user wants the weather in Zürich; use the tool.",
                calls=(call("get_weather", city="Zürich"),),
            ),
            Sample(
                "content before and after a call",
                f'Let me look that up. {TP}[{{"search": {{"query": "Apertus LLM"}}}}]{TS} One moment.',
                content="Let me look that up. One moment.",
                calls=(call("search", query="Apertus LLM"),),
            ),
            Sample(
                "several calls in one list",
                f'{IP}Two cities.{IS}Checking both.{TP}[{{"get_weather": {{"city": "Geneva"}}}}, '
                f'{{"get_weather": {{"city": "Lugano"}}}}, {{"get_time": {{"tz": "Europe/Zurich"}}}}]{TS}',
                reasoning="Two cities.",
                content="Checking both.",
                calls=(
                    call("get_weather", city="Geneva"),
                    call("get_weather", city="Lugano"),
                    call("get_time", tz="Europe/Zurich"),
                ),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                f'{TP}[{{"create_event": {{"title": "Réunion «Bern» 会议 🎉", "attendees": [{{"name": "Zoë", '
                f'"age": 31}}], "notes": "line1\\nline2 \\"quoted\\" \\u00e9", "budget": -1.5e3, "all_day": true, '
                f'"remote": false, "room": null}}}}]{TS}',
                calls=(
                    call(
                        "create_event",
                        title="Réunion «Bern» 会议 🎉",
                        attendees=[{"name": "Zoë", "age": 31}],
                        notes='line1\nline2 "quoted" é',
                        budget=-1500.0,
                        all_day=True,
                        remote=False,
                        room=None,
                    ),
                ),
            ),
            Sample("empty arguments", f'{TP}[{{"get_time": {{}}}}]{TS}', calls=(call("get_time"),)),
            Sample(
                "a bare object without the list",
                f'{TP}{{"search": {{"query": "Swiss AI"}}}}{TS}',
                calls=(call("search", query="Swiss AI"),),
            ),
            Sample(
                "tools suffix missing at the end of output",
                f'Checking.{TP}[{{"get_weather": {{"city": "Basel"}}}}]',
                content="Checking.",
                calls=(call("get_weather", city="Basel"),),
            ),
            Sample(
                "a call opened inside the reasoning ends it",
                f'{IP}I should search first.{TP}[{{"search": {{"query": "Matterhorn height"}}}}]{TS}',
                reasoning="I should search first.",
                calls=(call("search", query="Matterhorn height"),),
            ),
            Sample(
                "reasoning cut off",
                f"{IP}Let me consider the options. First, the train",
                reasoning="Let me consider the options. First, the train",
            ),
            Sample(
                "prompt ends with <|inner_prefix|>: thinking=True",
                f"The user greets me.{IS}Hello! How can I help?",
                reasoning="The user greets me.",
                content="Hello! How can I help?",
                options={"thinking": True},
            ),
            Sample(
                "list cut off after its complete calls keeps them",
                f'{TP}[{{"get_weather": {{"city": "Bern"}}}}, {{"get_time": {{}}}}',
                calls=(call("get_weather", city="Bern"), call("get_time")),
            ),
            Sample(
                "two tool blocks",
                f'{TP}[{{"get_weather": {{"city": "Thun"}}}}]{TS}{TP}[{{"get_time": {{}}}}]{TS}',
                calls=(call("get_weather", city="Thun"), call("get_time")),
            ),
            Sample(
                "truncated call is content",
                f'Sure.{TP}[{{"get_weather": {{"city": "Ber',
                content=f'Sure.{TP}[{{"get_weather": {{"city": "Ber',
            ),
            Sample(
                "end marker inside the arguments breaks the call",
                f'{TP}[{{"get_weather": {{"city": "Bern", {TS}',
                content=f'{TP}[{{"get_weather": {{"city": "Bern", {TS}',
            ),
            Sample(
                "an item with two members is no call",
                f'{TP}[{{"get_weather": {{"city": "Bern"}}, "get_time": {{}}}}]{TS}',
                content=f'{TP}[{{"get_weather": {{"city": "Bern"}}, "get_time": {{}}}}]{TS}',
            ),
            Sample(
                "Hermes-shaped object inside the list is read as a mapping and fails",
                f'{TP}[{{"name": "get_weather", "arguments": {{"city": "Bern"}}}}]{TS}',
                content=f'{TP}[{{"name": "get_weather", "arguments": {{"city": "Bern"}}}}]{TS}',
            ),
            Sample(
                "stray tools suffix in the answer stays content",
                f"Done.{TS}",
                content=f"Done.{TS}",
            ),
        ),
        source="swiss-ai/Apertus-8B-Instruct-2509 chat template and model card; vLLM apertus, SGLang apertus2509",
    )
]
