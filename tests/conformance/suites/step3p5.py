"""StepFun Step-3.5 / Step-3.7: pre-filled ``<think>`` reasoning and Qwen3-Coder XML tool calls.

The template always ends the prompt with ``<think>\\n``: output starts inside
reasoning and closes it with ``\\n</think>\\n``. Calls are written as
Qwen3-Coder's (one newline around each value); a ``<tool_call>`` inside
reasoning ends it.
"""

from ..corpus import Sample, Suite, call
from .qwen3_coder import TOOLS_SCHEMA, coder_call

SAMPLES = (
    Sample(
        "reasoning then answer",
        "The user wants a haiku about rain.\n</think>\n\n"
        "Soft rain on the roof,\nthe gutters hum quietly,\nsleep comes.",
        reasoning="The user wants a haiku about rain.",
        content="Soft rain on the roof,\nthe gutters hum quietly,\nsleep comes.",
    ),
    Sample(
        "reasoning then a call",
        "I should check the weather in Shanghai.\n</think>\n\n" + coder_call("get_weather", ("location", "Shanghai")),
        reasoning="I should check the weather in Shanghai.",
        calls=(call("get_weather", location="Shanghai"),),
    ),
    Sample(
        "a call inside reasoning ends it",
        "Need data first.\n" + coder_call("search", ("query", "step 3.5 release"), ("limit", "5")),
        reasoning="Need data first.",
        calls=(call("search", query="step 3.5 release", limit=5),),
    ),
    Sample(
        "truncated inside reasoning",
        "Let me work through the integral step by step",
        reasoning="Let me work through the integral step by step",
    ),
    Sample(
        "content, two calls and content",
        "Comparing.\n</think>\n\nLet me check both.\n"
        + coder_call("get_weather", ("location", "Delhi"))
        + "\n"
        + coder_call("get_weather", ("location", "Mumbai"), ("days", "7")),
        reasoning="Comparing.",
        content="Let me check both.",
        calls=(call("get_weather", location="Delhi"), call("get_weather", location="Mumbai", days=7)),
    ),
    Sample(
        "typed values",
        "ok\n</think>\n\n"
        + coder_call(
            "search", ("query", "gpu"), ("exact", "true"), ("filters", "{'vendor': 'nvidia'}"), ("cursor", "None")
        ),
        reasoning="ok",
        calls=(call("search", query="gpu", exact=True, filters={"vendor": "nvidia"}, cursor=None),),
    ),
    Sample(
        "a literal </parameter> inside code",
        "Write it.\n</think>\n\n"
        + coder_call("write_file", ("path", "gen.py"), ("content", 'out.write("</parameter>\\n")\nout.close()')),
        reasoning="Write it.",
        calls=(call("write_file", path="gen.py", content='out.write("</parameter>\\n")\nout.close()'),),
    ),
    Sample(
        "missing </function> before </tool_call>",
        "go\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=location>\nKyiv\n</parameter>\n</tool_call>",
        reasoning="go",
        calls=(call("get_weather", location="Kyiv"),),
    ),
    Sample(
        "no arguments",
        "list\n</think>\n\n<tool_call>\n<function=list_files>\n</function>\n</tool_call>",
        reasoning="list",
        calls=(call("list_files"),),
    ),
    Sample(
        "truncated call is content",
        "go\n</think>\n\n<tool_call>\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n<parameter=con",
        reasoning="go",
        content="<tool_call>\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n<parameter=con",
    ),
    Sample(
        "unicode reasoning and values",
        "用户想知道东京的天气。\n</think>\n\n" + coder_call("get_weather", ("location", "東京都")),
        reasoning="用户想知道东京的天气。",
        calls=(call("get_weather", location="東京都"),),
    ),
)

SUITES = [
    Suite(
        "cl100k_base",
        "step3p5",
        "step3p5",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Step-3.5 chat template (pre-filled <think>, Qwen3-Coder tool calls), Step-3.5 model card",
    )
]
