"""InternLM2 / 2.5 / 3 and Intern-S1 (``internlm`` tools): ``<|action_start|><|plugin|>`` JSON calls.

The InternLM2 template writes ``TEXT<|action_start|><|plugin|>\\n{"name": ..., "parameters": {...}}<|action_end|>``
(special tokens); a code-interpreter block (``<|interpreter|>``) is content. Intern-S1 (a Qwen3 vocabulary,
``<think>`` reasoning) is prompted to write the same tags as text.
"""

from ..corpus import Sample, Suite, call

AS, AE, PL, IN = "<|action_start|>", "<|action_end|>", "<|plugin|>", "<|interpreter|>"


def act(obj: str) -> str:
    return f"{AS}{PL}\n{obj}{AE}"


SUITES = [
    Suite(
        "internlm2-test",
        None,
        "internlm",
        (
            Sample("plain answer", "Shanghai is in eastern China.", content="Shanghai is in eastern China."),
            Sample(
                "content before a call",
                "Sure, I will search for the weather of Shanghai."
                + act('{"name": "get_current_weather", "parameters": {"location": "Shanghai"}}'),
                content="Sure, I will search for the weather of Shanghai.",
                calls=(call("get_current_weather", location="Shanghai"),),
            ),
            Sample(
                "arguments instead of parameters",
                act('{"name": "search", "arguments": {"query": "InternLM3"}}'),
                calls=(call("search", query="InternLM3"),),
            ),
            Sample(
                "two action blocks",
                act('{"name": "get_weather", "parameters": {"city": "Hangzhou"}}')
                + "\n"
                + act('{"name": "get_weather", "parameters": {"city": "Suzhou"}}'),
                calls=(call("get_weather", city="Hangzhou"), call("get_weather", city="Suzhou")),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                act(
                    '{"name": "plan_trip", "parameters": {"stops": [{"city": "西安", "days": 2}], '
                    '"note": "带\\"相机\\"\\n早起", "budget": 5000.0, "train": true, "flight": false, "hotel": null}}'
                ),
                calls=(
                    call(
                        "plan_trip",
                        stops=[{"city": "西安", "days": 2}],
                        note='带"相机"\n早起',
                        budget=5000.0,
                        train=True,
                        flight=False,
                        hotel=None,
                    ),
                ),
            ),
            Sample(
                "empty parameters",
                act('{"name": "get_time", "parameters": {}}'),
                calls=(call("get_time"),),
            ),
            Sample(
                "action end missing (server stopped on it)",
                f'Checking.{AS}{PL}\n{{"name": "get_weather", "parameters": {{"city": "Nanjing"}}}}',
                content="Checking.",
                calls=(call("get_weather", city="Nanjing"),),
            ),
            Sample(
                "<|plugin|> missing",
                f'{AS}\n{{"name": "get_weather", "parameters": {{"city": "Tianjin"}}}}{AE}',
                calls=(call("get_weather", city="Tianjin"),),
            ),
            Sample(
                "space before <|plugin|> (spaced special tokens)",
                f'{AS} {PL}\n{{"name": "get_weather", "parameters": {{"city": "Qingdao"}}}}{AE}',
                calls=(call("get_weather", city="Qingdao"),),
            ),
            Sample(
                "pretty-printed call",
                f'{AS}{PL}\n{{\n    "name": "search",\n    "parameters": {{\n        "query": "书生"\n    }}\n}}\n{AE}',
                calls=(call("search", query="书生"),),
            ),
            Sample(
                "interpreter block stays content",
                f"I have processed the data.\n\n{AS}{IN}\n```python\nprint(len(df))\n```{AE}",
                content=f"I have processed the data.\n\n{AS}{IN}\n```python\nprint(len(df))\n```{AE}",
            ),
            Sample(
                "truncated call is content",
                f'{AS}{PL}\n{{"name": "get_weather", "parameters": {{"city": "Par',
                content=f'{AS}{PL}\n{{"name": "get_weather", "parameters": {{"city": "Par',
            ),
            Sample(
                "action end inside the arguments breaks the call",
                f'{AS}{PL}\n{{"name": "get_weather", "parameters": {{"city": "Xiamen"{AE}',
                content=f'{AS}{PL}\n{{"name": "get_weather", "parameters": {{"city": "Xiamen"{AE}',
            ),
            Sample(
                "stray action end stays content",
                f"That is all.{AE}",
                content=f"That is all.{AE}",
            ),
        ),
        source="internlm/internlm2_5-7b-chat and internlm3-8b-instruct chat templates; vLLM internlm",
    ),
    Suite(
        "qwen3",
        "interns1",
        "interns1",
        (
            Sample(
                "Intern-S1: reasoning, text, a pretty-printed call",
                "<think>\nThe user wants the weather; call the tool.\n</think>\n\nI will check.\n\n"
                f'{AS}{PL}\n{{\n    "name": "get_weather",\n    "parameters": {{\n        "city": "Paris"\n'
                f"    }}\n}}\n{AE}",
                reasoning="The user wants the weather; call the tool.",
                content="I will check.",
                calls=(call("get_weather", city="Paris"),),
            ),
            Sample(
                "Intern-S1: reasoning then answer",
                "<think>\nSimple question.\n</think>\n\nThe Yangtze is about 6,300 km long.",
                reasoning="Simple question.",
                content="The Yangtze is about 6,300 km long.",
            ),
        ),
        source="internlm/Intern-S1 chat template; SGLang interns1",
    ),
]
