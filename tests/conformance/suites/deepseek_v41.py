"""DeepSeek-V4.1 (``deepseek_v41`` reasoning and tools): DSML tags with a space after ``｜DSML｜``.

``<｜DSML｜ calls>`` / ``<｜DSML｜ invoke name=...>`` / ``<｜DSML｜ parameter ...>``; the
output starts inside reasoning (``<think>`` pre-filled) and the block ends it.
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call
from .deepseek_v32 import Dsml, dsml_samples

V41 = Dsml("｜DSML｜ ", "calls")
NO_THINK = {"thinking": False}
SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "parameters": {
                "type": "object",
                "properties": {"hour": {"type": "integer"}, "label": {"type": "string"}, "repeat": {"type": "boolean"}},
            },
        },
    }
]

SUITES = [
    Suite(
        "deepseek-v4",
        "deepseek_v41",
        "deepseek_v41",
        (
            *dsml_samples(V41, think={}, no_think=NO_THINK),
            Sample(
                "the block ends reasoning without </think>",
                "Use the clock tool.\n" + V41.calls(V41.inv("get_time", V41.p("tz", "Asia/Shanghai"))),
                reasoning="Use the clock tool.",
                calls=(call("get_time", tz="Asia/Shanghai"),),
            ),
            Sample(
                "parameters without the string attribute are typed by the schema",
                V41.calls(
                    '<｜DSML｜ invoke name="set_alarm">\n<｜DSML｜ parameter name="hour">7</｜DSML｜ parameter>\n'
                    '<｜DSML｜ parameter name="label">07:00 run</｜DSML｜ parameter>\n'
                    '<｜DSML｜ parameter name="repeat">true</｜DSML｜ parameter>\n</｜DSML｜ invoke>'
                ),
                calls=(call("set_alarm", hour=7, label="07:00 run", repeat=True),),
                options={"thinking": False, "tools_schema": SCHEMA},
            ),
            Sample(
                "V4's spelling (no space) is not V4.1's block: content",
                "</think>"
                + '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="x">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
                content='<｜DSML｜tool_calls>\n<｜DSML｜invoke name="x">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
            ),
        ),
        source="DeepSeek-V4.1 encoding: <think> pre-filled, DSML tags spelled with a space",
    ),
]
