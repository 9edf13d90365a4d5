"""Gemma 4 (``gemma4``): ``<|channel>thought`` reasoning, ``<|tool_call>call:NAME{...}<tool_call|>`` calls."""

from ..corpus import Sample, Suite, call

Q = '<|"|>'


def fn(name: str, args: str) -> str:
    return f"<|tool_call>call:{name}{{{args}}}<tool_call|>"


SUITES = [
    Suite(
        "gemma4-test",
        "gemma4",
        "gemma4",
        (
            Sample("plain answer", "The capital of France is Paris.", content="The capital of France is Paris."),
            Sample(
                "reasoning then answer",
                "<|channel>thought\nThe user asks for 2 + 2.<channel|>It is 4.",
                reasoning="The user asks for 2 + 2.",
                content="It is 4.",
            ),
            Sample(
                "reasoning then call",
                "<|channel>thought\nWeather lookup.<channel|>"
                + fn("get_weather", f"location:{Q}Tokyo, Japan{Q},days:3,metric:true,hours:[6,12]"),
                reasoning="Weather lookup.",
                calls=(call("get_weather", location="Tokyo, Japan", days=3, metric=True, hours=[6, 12]),),
            ),
            Sample(
                "content before the call",
                "Let me check that." + fn("get_weather", f"location:{Q}London{Q}"),
                content="Let me check that.",
                calls=(call("get_weather", location="London"),),
            ),
            Sample(
                "two calls",
                fn("get_weather", f"location:{Q}Paris{Q}") + fn("get_weather", f"location:{Q}東京{Q}"),
                calls=(call("get_weather", location="Paris"), call("get_weather", location="東京")),
            ),
            Sample(
                "nested objects, arrays, null, negative and float numbers",
                fn(
                    "create",
                    f'event:{{title:{Q}Stand-up "daily"{Q},attendees:[{Q}ana{Q},{Q}bo{Q}],'
                    f"when:{{h:9,m:-0.5}}}},notes:null,path:{Q}C:\\tmp\\a{Q}",
                ),
                calls=(
                    call(
                        "create",
                        event={"title": 'Stand-up "daily"', "attendees": ["ana", "bo"], "when": {"h": 9, "m": -0.5}},
                        notes=None,
                        path="C:\\tmp\\a",
                    ),
                ),
            ),
            Sample(
                "string holding braces, commas and newlines",
                fn("run", f"code:{Q}if x:{{\n  f(a, b)\n}}{Q}"),
                calls=(call("run", code="if x:{\n  f(a, b)\n}"),),
            ),
            Sample("empty arguments", "<|tool_call>call:get_time{}<tool_call|>", calls=(call("get_time"),)),
            Sample(
                "reasoning cut off",
                "<|channel>thought\nI should compare the two",
                reasoning="I should compare the two",
            ),
            Sample(
                "call cut inside a string is content",
                'Let me check.<|tool_call>call:get_weather{location:<|"|>Tok',
                content='Let me check.<|tool_call>call:get_weather{location:<|"|>Tok',
            ),
            Sample(
                "call ended by <turn|> instead of <tool_call|>",
                f"<|tool_call>call:get_weather{{location:{Q}Rome{Q}}}<turn|>",
                calls=(call("get_weather", location="Rome"),),
            ),
            Sample(
                "call opened inside reasoning ends it",
                "<|channel>thought\nNeed the weather" + fn("get_weather", f"location:{Q}Oslo{Q}"),
                reasoning="Need the weather",
                calls=(call("get_weather", location="Oslo"),),
            ),
            Sample(
                "bare :NAME{ without call",
                f"<|tool_call>:get_weather{{location:{Q}Lima{Q}}}<tool_call|>",
                calls=(call("get_weather", location="Lima"),),
            ),
            Sample(
                "parenthesised arguments call:NAME(...)",
                f"<|tool_call>call:get_weather(location:{Q}Tokyo{Q},days:2)<tool_call|>",
                calls=(call("get_weather", location="Tokyo", days=2),),
            ),
            Sample(
                "thinking=True: prompt ended inside the channel",
                "The tool said 18°C.<channel|>It is 18°C in Oslo.",
                reasoning="The tool said 18°C.",
                content="It is 18°C in Oslo.",
                options={"thinking": True},
            ),
        ),
        source="google/gemma-4 chat_template.jinja and model card function-calling example",
    )
]
