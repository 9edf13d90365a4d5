"""Xiaomi MiMo: opt-in ``<think>`` reasoning and Qwen3-Coder-style XML tool calls with verbatim values.

MiMo's template writes ``<parameter=KEY>VALUE</parameter>`` with the value
inline and promises that newlines and spaces in it are kept; thinking is off
unless ``enable_thinking`` is set (``thinking=True`` here: output starts
inside reasoning).
"""

from ..corpus import Sample, Suite, call
from .qwen3_coder import TOOLS_SCHEMA


def mimo_call(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


THINK = {"thinking": True}

SAMPLES = (
    Sample("plain answer, thinking off", "The capital of France is Paris.", content="The capital of France is Paris."),
    Sample(
        "thinking on: reasoning then answer",
        "The user asks for 2+2. That is 4.\n</think>\n\n2 + 2 = 4.",
        reasoning="The user asks for 2+2. That is 4.",
        content="2 + 2 = 4.",
        options=THINK,
    ),
    Sample(
        "thinking off but the model writes <think>",
        "<think>\nShort question, short answer.\n</think>\n\nYes.",
        reasoning="Short question, short answer.",
        content="Yes.",
    ),
    Sample(
        "thinking on, truncated inside reasoning",
        "Let me compare the two options carefully. First,",
        reasoning="Let me compare the two options carefully. First,",
        options=THINK,
    ),
    Sample(
        "one call with a shell command",
        mimo_call("execute_bash", ("command", "pwd && ls")),
        calls=(call("execute_bash", command="pwd && ls"),),
    ),
    Sample(
        "values keep their newlines and spaces",
        mimo_call("write_file", ("path", "a.txt"), ("content", "\n  indented\nlast line\n")),
        calls=(call("write_file", path="a.txt", content="\n  indented\nlast line\n"),),
    ),
    Sample(
        "reasoning then a typed call",
        "I need the 5-day forecast.\n</think>\n\n" + mimo_call("get_weather", ("location", "Beijing"), ("days", "5")),
        reasoning="I need the 5-day forecast.",
        calls=(call("get_weather", location="Beijing", days=5),),
        options=THINK,
    ),
    Sample(
        "content then two calls",
        "Checking both cities.\n"
        + mimo_call("get_weather", ("location", "上海"))
        + "\n"
        + mimo_call("get_weather", ("location", "北京")),
        content="Checking both cities.",
        calls=(call("get_weather", location="上海"), call("get_weather", location="北京")),
    ),
    Sample(
        "a literal </parameter> inside a value",
        mimo_call("write_file", ("path", "t.xml"), ("content", "<a></parameter></a>")),
        calls=(call("write_file", path="t.xml", content="<a></parameter></a>"),),
    ),
    Sample(
        "no arguments",
        "<tool_call>\n<function=list_files>\n</function>\n</tool_call>",
        calls=(call("list_files"),),
    ),
    Sample(
        "structured values by schema",
        mimo_call("search", ("query", "rust"), ("filters", '{"stars": 100}'), ("tags", '["lang"]'), ("exact", "true")),
        calls=(call("search", query="rust", filters={"stars": 100}, tags=["lang"], exact=True),),
    ),
    Sample(
        "truncated call is content",
        "<tool_call>\n<function=execute_bash>\n<parameter=command>rm -rf bu",
        content="<tool_call>\n<function=execute_bash>\n<parameter=command>rm -rf bu",
    ),
)

SUITES = [
    Suite(
        "qwen3",
        "mimo",
        "mimo",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="MiMo chat template (tool call rendering, enable_thinking), MiMo model card",
    )
]
