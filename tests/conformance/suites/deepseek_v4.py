"""DeepSeek-V4 (``deepseek_v4`` reasoning and tools): ``<｜DSML｜tool_calls>`` blocks.

The thinking template pre-fills ``<think>`` (the output starts inside reasoning); the
non-thinking one ``</think>`` (parse with ``thinking=False``). A DSML block ends
reasoning even without ``</think>``.
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call
from .deepseek_v32 import Dsml, dsml_samples

V4 = Dsml("｜DSML｜", "tool_calls")
NO_THINK = {"thinking": False}

SUITES = [
    Suite(
        "deepseek-v4",
        "deepseek_v4",
        "deepseek_v4",
        (
            *dsml_samples(V4, think={}, no_think=NO_THINK),
            Sample(
                "the block ends reasoning without </think>",
                "I should call the search tool.\n\n" + V4.calls(V4.inv("search", V4.p("query", "V4 paper"))),
                reasoning="I should call the search tool.",
                calls=(call("search", query="V4 paper"),),
            ),
            Sample(
                "a self-closing invoke",
                V4.calls(V4.inv("get_weather", V4.p("location", "Oslo")), '<｜DSML｜invoke name="list_files"/>'),
                calls=(call("get_weather", location="Oslo"), call("list_files")),
                options=NO_THINK,
            ),
            Sample(
                "a leading <think> the model repeats is dropped",
                "<think>Simple greeting.</think>Hi! How can I help?",
                reasoning="Simple greeting.",
                content="Hi! How can I help?",
            ),
        ),
        source="DeepSeek-V4 encoding and model card: <think> pre-filled, DSML tool_calls",
    ),
]
