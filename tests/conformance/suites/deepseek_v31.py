"""DeepSeek-V3.1 / V3.2 (``deepseek_v31`` tools, served with the hybrids' ``deepseek_v3`` reasoning).

``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>``;
the template pre-fills ``<think>`` for thinking requests and ``</think>`` otherwise.
"""

from ..corpus import Sample, Suite, call

CB, CE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
B, E, S = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def c(name: str, args: str) -> str:
    return f"{B}{name}{S}{args}{E}"


THINK = {"thinking": True}

SUITES = [
    Suite(
        "deepseek-v4",
        "deepseek_v3",
        "deepseek_v31",
        (
            Sample(
                "non-thinking: one call",
                CB + c("get_weather", '{"location": "Hangzhou"}') + CE,
                calls=(call("get_weather", location="Hangzhou"),),
            ),
            Sample(
                "non-thinking: text then two calls",
                "Let me look that up.\n\n" + CB + c("get_weather", '{"location": "Tokyo"}') + c("get_time", "{}") + CE,
                content="Let me look that up.",
                calls=(call("get_weather", location="Tokyo"), call("get_time")),
            ),
            Sample(
                "thinking (V3.2): reasoning then a call",
                "Need current weather.</think>" + CB + c("get_weather", '{"location": "Seoul"}') + CE,
                reasoning="Need current weather.",
                calls=(call("get_weather", location="Seoul"),),
                options=THINK,
            ),
            Sample(
                "nested, unicode and escaped arguments",
                CB
                + c(
                    "book", '{"guest": {"name": "Zoë", "langs": ["fr", "中文"]}, "note": "tab\\tand \\"q\\"", "n": 2.5}'
                )
                + CE,
                calls=(call("book", guest={"name": "Zoë", "langs": ["fr", "中文"]}, note='tab\tand "q"', n=2.5),),
            ),
            Sample(
                "a bare call without the section markers",
                c("search", '{"query": "V3.1 release"}'),
                calls=(call("search", query="V3.1 release"),),
            ),
            Sample(
                "missing call end before the next call",
                CB + f'{B}a{S}{{"x": 1}}' + c("b", '{"y": 2}') + CE,
                calls=(call("a", x=1), call("b", y=2)),
            ),
            Sample(
                "missing section end at the end of the output",
                CB + c("get_time", '{"tz": "UTC"}'),
                calls=(call("get_time", tz="UTC"),),
            ),
            Sample(
                "text after the section is content",
                CB + c("get_time", "{}") + CE + "Waiting for the result.",
                content="Waiting for the result.",
                calls=(call("get_time"),),
            ),
            Sample(
                "cut off inside the arguments: the block is content",
                "Sure. " + CB + f'{B}get_weather{S}{{"location": "Par',
                content="Sure. " + CB + f'{B}get_weather{S}{{"location": "Par',
            ),
            Sample(
                "second call's arguments broken: the first stands",
                CB + c("get_weather", '{"location": "Oslo"}') + c("get_time", '{"tz": Oslo}') + CE,
                content=c("get_time", '{"tz": Oslo}') + CE,
                calls=(call("get_weather", location="Oslo"),),
            ),
            Sample(
                "arguments that are no object: the block is content",
                CB + c("get_time", '["UTC"]') + CE,
                content=CB + c("get_time", '["UTC"]') + CE,
            ),
            Sample(
                "plain answer",
                "DeepSeek-V3.1 supports both thinking and non-thinking modes.",
                content="DeepSeek-V3.1 supports both thinking and non-thinking modes.",
            ),
        ),
        source="DeepSeek-V3.1 / V3.2-Exp chat templates (tool calls, <think> / </think> pre-fill)",
    )
]
