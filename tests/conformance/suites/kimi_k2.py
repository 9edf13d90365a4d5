"""Kimi K2 / K2-Thinking / K2.5 (``kimi_k2`` tools and reasoning).

Calls: ``<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>{...}
<|tool_call_end|>...<|tool_calls_section_end|>`` (added tokens). Thinking models start inside ``<think>``
(K2.5's template pre-fills it, K2-Thinking writes it); K2-Instruct does not reason (``thinking=False``).
"""

from ..corpus import Sample, Suite, call

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
B, A, E = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
INSTRUCT = {"thinking": False}


def c(header: str, args: str) -> str:
    return f"{B}{header}{A}{args}{E}"


SUITES = [
    Suite(
        "kimi-k2-test",
        "kimi_k2",
        "kimi_k2",
        (
            Sample(
                "K2-Instruct: text then one call",
                "I'll check the weather." + SB + c("functions.get_weather:0", '{"city": "Beijing"}') + SE,
                content="I'll check the weather.",
                calls=(call("get_weather", city="Beijing"),),
                options=INSTRUCT,
            ),
            Sample(
                "K2-Instruct: two calls, empty arguments",
                SB + c("functions.get_weather:0", '{"city": "Paris"}') + c("functions.get_time:1", "{}") + SE,
                calls=(call("get_weather", city="Paris"), call("get_time")),
                options=INSTRUCT,
            ),
            Sample(
                "K2-Instruct: plain answer",
                "Hello! I'm Kimi. How can I help?",
                content="Hello! I'm Kimi. How can I help?",
                options=INSTRUCT,
            ),
            Sample(
                "K2-Thinking: writes <think>, reasons, answers",
                "<think>The user greets me.</think>Hi there!",
                reasoning="The user greets me.",
                content="Hi there!",
            ),
            Sample(
                "K2.5: pre-filled <think>, call section inside reasoning ends it",
                "Need the weather first." + SB + c("functions.get_weather:0", '{"city": "Tokyo"}') + SE,
                reasoning="Need the weather first.",
                calls=(call("get_weather", city="Tokyo"),),
            ),
            Sample(
                "K2.5: </think> after the section is dropped",
                "Look it up." + SB + c("functions.search:0", '{"q": "月之暗面"}') + SE + "</think>",
                reasoning="Look it up.",
                calls=(call("search", q="月之暗面"),),
            ),
            Sample(
                "reasoning closed, text, call",
                "Two steps.</think>Checking now." + SB + c("functions.get_time:0", '{"tz": "Asia/Shanghai"}') + SE,
                reasoning="Two steps.",
                content="Checking now.",
                calls=(call("get_time", tz="Asia/Shanghai"),),
            ),
            Sample(
                "nested, unicode and escaped arguments",
                SB
                + c(
                    "functions.write_file:0",
                    '{"path": "notes/日记.md", "content": "# Title\\n\\"quoted\\" ✓", '
                    '"opts": {"append": false, "n": [1, 2]}}',
                )
                + SE,
                calls=(
                    call(
                        "write_file",
                        path="notes/日记.md",
                        content='# Title\n"quoted" ✓',
                        opts={"append": False, "n": [1, 2]},
                    ),
                ),
                options=INSTRUCT,
            ),
            Sample(
                "header without functions. and a call without the section",
                c("get_weather:3", '{"city": "Oslo"}'),
                calls=(call("get_weather", city="Oslo"),),
                options=INSTRUCT,
            ),
            Sample(
                "section end and call end missing",
                SB + f'{B}functions.get_weather:0{A}{{"city": "Rome"}}' + c("functions.get_time:1", "{}"),
                calls=(call("get_weather", city="Rome"), call("get_time")),
                options=INSTRUCT,
            ),
            Sample(
                "empty arguments written as nothing",
                SB + f"{B}functions.get_time:0{A}{E}" + SE,
                calls=(call("get_time"),),
                options=INSTRUCT,
            ),
            Sample(
                "cut off inside the arguments: the block is content",
                "Sure." + SB + f'{B}functions.get_weather:0{A}{{"city": "Par',
                content="Sure." + SB + f'{B}functions.get_weather:0{A}{{"city": "Par',
                options=INSTRUCT,
            ),
            Sample(
                "a counter-only header breaks the call",
                SB + c("0", '{"city": "Lima"}') + SE,
                content=SB + c("0", '{"city": "Lima"}') + SE,
                options=INSTRUCT,
            ),
            Sample(
                "cut off inside reasoning",
                "Let me think about which tool to use. Maybe search",
                reasoning="Let me think about which tool to use. Maybe search",
            ),
        ),
        source="Kimi-K2-Instruct / K2-Thinking / K2.5 chat templates and tokenizer specials",
    )
]
