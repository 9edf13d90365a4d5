"""DeepSeek-R1 and its distills (``deepseek_r1`` reasoning; R1-0528 calls in the ``deepseek_v3`` format).

The updated R1 template pre-fills ``<think>\\n``: the output starts inside reasoning and closes it with
``</think>``; earlier deployments let the model write ``<think>`` itself (then dropped).
"""

from ..corpus import Sample, Suite, call

CB, CE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
B, E, S = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def fenced(name: str, args: str) -> str:
    return f"{B}function{S}{name}\n```json\n{args}\n```{E}"


SUITES = [
    Suite(
        "deepseek-v4",
        "deepseek_r1",
        "deepseek_v3",
        (
            Sample(
                "pre-filled <think>: reasoning then answer",
                "Okay, the user wants 12 * 12. That is 144.\n</think>\n\n12 × 12 = **144**.",
                reasoning="Okay, the user wants 12 * 12. That is 144.",
                content="12 × 12 = **144**.",
            ),
            Sample(
                "model writes <think> itself",
                "<think>\nSimple greeting.\n</think>\n\nHello!",
                reasoning="Simple greeting.",
                content="Hello!",
            ),
            Sample(
                "multi-paragraph reasoning",
                "First, recall the formula.\n\nThen apply it: A = πr².\n</think>\n\nThe area is 12.57 m².",
                reasoning="First, recall the formula.\n\nThen apply it: A = πr².",
                content="The area is 12.57 m².",
            ),
            Sample(
                "cut off inside reasoning",
                "Let me consider each case in turn. Case 1: n is even",
                reasoning="Let me consider each case in turn. Case 1: n is even",
            ),
            Sample(
                "empty reasoning",
                "\n</think>\n\nParis.",
                content="Paris.",
            ),
            Sample(
                "R1-0528: reasoning then a call",
                "The user wants Tokyo's weather; call the tool.\n</think>\n\n"
                + CB
                + fenced("get_weather", '{"location": "Tokyo"}')
                + CE,
                reasoning="The user wants Tokyo's weather; call the tool.",
                calls=(call("get_weather", location="Tokyo"),),
            ),
            Sample(
                "R1-0528: reasoning, text and two calls",
                "Two lookups.\n</think>\n\nChecking both.\n"
                + CB
                + fenced("get_weather", '{"location": "Paris"}')
                + "\n"
                + fenced("get_time", '{"timezone": "Europe/Paris"}')
                + CE,
                reasoning="Two lookups.",
                content="Checking both.",
                calls=(call("get_weather", location="Paris"), call("get_time", timezone="Europe/Paris")),
            ),
            Sample(
                "unicode reasoning and answer",
                "嗯，用户问的是中国的首都。\n</think>\n\n中国的首都是北京。",
                reasoning="嗯，用户问的是中国的首都。",
                content="中国的首都是北京。",
            ),
            Sample(
                "answer with code after reasoning",
                "Write a loop.\n</think>\n\n```python\nfor i in range(3):\n    print(i)\n```",
                reasoning="Write a loop.",
                content="```python\nfor i in range(3):\n    print(i)\n```",
            ),
            Sample(
                "call cut off after reasoning: the block is content",
                "Need data.\n</think>\n\n" + CB + f'{B}function{S}get_weather\n```json\n{{"loc',
                reasoning="Need data.",
                content=CB + f'{B}function{S}get_weather\n```json\n{{"loc',
            ),
            Sample(
                "distill: reasoning that mentions a tag as prose",
                "The user asked about the HTML think element.\n</think>\n\nThere is no such element.",
                reasoning="The user asked about the HTML think element.",
                content="There is no such element.",
            ),
        ),
        source="DeepSeek-R1 / R1-0528 tokenizer_config.json chat templates (<think>\\n pre-fill, tool calls)",
    )
]
