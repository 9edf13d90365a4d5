"""StepFun Step-5: DeepSeek-R1-style ``<think>`` reasoning (pre-filled) and Qwen3-Coder XML tool calls.

Output starts inside reasoning (the model may also write ``<think>``
itself); ``</think>`` ends it. Calls are written as Qwen3-Coder's.
"""

from ..corpus import Sample, Suite, call
from .qwen3_coder import TOOLS_SCHEMA, coder_call

SAMPLES = (
    Sample(
        "reasoning then answer",
        "Simple arithmetic: 12 * 12 = 144.\n</think>\n\n144",
        reasoning="Simple arithmetic: 12 * 12 = 144.",
        content="144",
    ),
    Sample(
        "the model writes <think> itself",
        "<think>\nA greeting.\n</think>\n\nHi there!",
        reasoning="A greeting.",
        content="Hi there!",
    ),
    Sample(
        "truncated inside reasoning",
        "First, list the constraints: the budget is",
        reasoning="First, list the constraints: the budget is",
    ),
    Sample(
        "reasoning then a call",
        "Weather lookup needed.\n</think>\n\n" + coder_call("get_weather", ("location", "Reykjavík")),
        reasoning="Weather lookup needed.",
        calls=(call("get_weather", location="Reykjavík"),),
    ),
    Sample(
        "content then two calls",
        "Two files.\n</think>\n\nWriting both files now.\n"
        + coder_call("write_file", ("path", "a.txt"), ("content", "alpha"))
        + "\n"
        + coder_call("write_file", ("path", "b.txt"), ("content", "beta")),
        reasoning="Two files.",
        content="Writing both files now.",
        calls=(call("write_file", path="a.txt", content="alpha"), call("write_file", path="b.txt", content="beta")),
    ),
    Sample(
        "typed values",
        "search\n</think>\n\n" + coder_call("search", ("query", "step-5"), ("limit", "20"), ("score", "0.5")),
        reasoning="search",
        calls=(call("search", query="step-5", limit=20, score=0.5),),
    ),
    Sample(
        "a literal </parameter> inside a value",
        "doc\n</think>\n\n"
        + coder_call("write_file", ("path", "SPEC.md"), ("content", "Close with `</parameter>` then `</function>`.")),
        reasoning="doc",
        calls=(call("write_file", path="SPEC.md", content="Close with `</parameter>` then `</function>`."),),
    ),
    Sample(
        "function without the <tool_call> wrapper",
        "call\n</think>\n\n<function=get_weather>\n<parameter=location>\nHanoi\n</parameter>\n</function>",
        reasoning="call",
        calls=(call("get_weather", location="Hanoi"),),
    ),
    Sample(
        "no arguments",
        "ls\n</think>\n\n<tool_call>\n<function=list_files>\n</function>\n</tool_call>",
        reasoning="ls",
        calls=(call("list_files"),),
    ),
    Sample(
        "truncated call is content",
        "go\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=location>\nTun",
        reasoning="go",
        content="<tool_call>\n<function=get_weather>\n<parameter=location>\nTun",
    ),
    Sample(
        "multi-line JSON object value",
        "cfg\n</think>\n\n"
        + coder_call("search", ("query", "x"), ("filters", '{\n  "a": [1, 2],\n  "b": {"c": null}\n}')),
        reasoning="cfg",
        calls=(call("search", query="x", filters={"a": [1, 2], "b": {"c": None}}),),
    ),
)

SUITES = [
    Suite(
        "cl100k_base",
        "step5",
        "step5",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Step-5 chat template (pre-filled <think>, Qwen3-Coder tool calls), Step-5 model card",
    )
]
