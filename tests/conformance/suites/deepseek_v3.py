"""DeepSeek-V3 (``deepseek_v3`` tools: V3-0324's fenced calls) and the V3.1 / V3.2 hybrids' reasoning.

Tools: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{...}\\n```
<｜tool▁call▁end｜>``, calls joined by a newline, ``<｜tool▁calls▁end｜>`` after the last.
Reasoning: the hybrid templates pre-fill ``<think>`` for thinking requests
(``thinking=True``) and ``</think>`` otherwise, so a plain request's output is all content.
"""

from ..corpus import Sample, Suite, call

CB, CE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
B, E, S = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def fenced(name: str, args: str) -> str:
    return f"{B}function{S}{name}\n```json\n{args}\n```{E}"


V3_TOOLS = Suite(
    "deepseek-v4",
    None,
    "deepseek_v3",
    (
        Sample(
            "one call",
            CB + fenced("get_weather", '{"location": "Tokyo"}') + CE,
            calls=(call("get_weather", location="Tokyo"),),
        ),
        Sample(
            "text then two calls joined by a newline",
            "I'll check both cities.\n\n"
            + CB
            + fenced("get_weather", '{"location": "Tokyo"}')
            + "\n"
            + fenced("get_weather", '{"location": "Paris"}')
            + CE,
            content="I'll check both cities.",
            calls=(call("get_weather", location="Tokyo"), call("get_weather", location="Paris")),
        ),
        Sample(
            "nested, unicode and escaped arguments",
            CB
            + fenced(
                "create_note",
                '{"title": "会议纪要", "tags": ["工作", "q3"], "body": "Line\\n\\"quoted\\"", '
                '"meta": {"pinned": true}}',
            )
            + CE,
            calls=(
                call(
                    "create_note", title="会议纪要", tags=["工作", "q3"], body='Line\n"quoted"', meta={"pinned": True}
                ),
            ),
        ),
        Sample(
            "empty arguments",
            CB + fenced("get_time", "{}") + CE,
            calls=(call("get_time"),),
        ),
        Sample(
            "no fence around the arguments",
            CB + f'{B}function{S}get_weather\n{{"location": "Oslo"}}{E}' + CE,
            calls=(call("get_weather", location="Oslo"),),
        ),
        Sample(
            "a call without the section markers",
            fenced("search", '{"query": "deepseek v3"}'),
            calls=(call("search", query="deepseek v3"),),
        ),
        Sample(
            "section end missing at the end of the output",
            CB + fenced("get_weather", '{"location": "Rome"}'),
            calls=(call("get_weather", location="Rome"),),
        ),
        Sample(
            "cut off inside the arguments: the block is content",
            "Checking.\n" + CB + f'{B}function{S}get_weather\n```json\n{{"location": "Ber',
            content="Checking.\n" + CB + f'{B}function{S}get_weather\n```json\n{{"location": "Ber',
        ),
        Sample(
            "second call broken: the first stands",
            CB + fenced("get_weather", '{"location": "Lima"}') + "\n" + fenced("get_time", '{"tz": Lima}') + CE,
            content=fenced("get_time", '{"tz": Lima}') + CE,  # the newline after the first call is layout
            calls=(call("get_weather", location="Lima"),),
        ),
        Sample(
            "plain answer",
            "The capital of Japan is Tokyo.",
            content="The capital of Japan is Tokyo.",
        ),
    ),
    source="DeepSeek-V3-0324 tokenizer_config.json chat template; vLLM/SGLang deepseekv3 parsers' formats",
)

HYBRID_REASONING = Suite(
    "deepseek-v4",
    "deepseek_v3",
    None,
    (
        Sample(
            "thinking request: reasoning then answer",
            "The user asks for 2+2. That is 4.</think>2 + 2 = 4.",
            reasoning="The user asks for 2+2. That is 4.",
            content="2 + 2 = 4.",
            options={"thinking": True},
        ),
        Sample(
            "thinking request with newlines around the closer",
            "Greeting; reply briefly.\n</think>\n\nHello! How can I help?",
            reasoning="Greeting; reply briefly.",
            content="Hello! How can I help?",
            options={"thinking": True},
        ),
        Sample(
            "plain request: all content",
            "Hello! How can I help you today?",
            content="Hello! How can I help you today?",
        ),
        Sample(
            "plain request, model opens reasoning itself",
            "<think>Quick check.</think>Yes.",
            reasoning="Quick check.",
            content="Yes.",
        ),
        Sample(
            "thinking request cut off inside reasoning",
            "First, factor the polynomial: x^2 - 5x + 6 = (x-2)(x-3)",
            reasoning="First, factor the polynomial: x^2 - 5x + 6 = (x-2)(x-3)",
            options={"thinking": True},
        ),
        Sample(
            "thinking request, repeated <think>",
            "<think>Think again.</think>Done.",
            reasoning="Think again.",
            content="Done.",
            options={"thinking": True},
        ),
        Sample(
            "unicode reasoning and answer",
            "用户问天气。</think>今天东京晴，25°C。",
            reasoning="用户问天气。",
            content="今天东京晴，25°C。",
            options={"thinking": True},
        ),
        Sample(
            "empty reasoning",
            "</think>Direct answer.",
            content="Direct answer.",
            options={"thinking": True},
        ),
        Sample(
            "markdown answer after reasoning",
            "List three colours.</think>\n\n- red\n- green\n- blue",
            reasoning="List three colours.",
            content="- red\n- green\n- blue",
            options={"thinking": True},
        ),
        Sample(
            "reasoning mentioning tags as prose",
            "The user typed a literal tag name, think.</think>Sure.",
            reasoning="The user typed a literal tag name, think.",
            content="Sure.",
            options={"thinking": True},
        ),
    ),
    source="DeepSeek-V3.1 / V3.2 chat templates (thinking pre-fills <think>, non-thinking </think>)",
)

SUITES = [V3_TOOLS, HYBRID_REASONING]
