"""GigaChat 3.5 (``gigachat35`` reasoning and tools): GCML, DSML's shape with ``｜GCML｜``.

The output starts inside reasoning (``<think>`` pre-filled); ``</think>`` or a GCML block
ends it. ``string="true"`` values are kept exactly as written; the message ends with the
special ``<|message_sep|>`` token (dropped).
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call
from .deepseek_v32 import Dsml, dsml_samples

G = Dsml("｜GCML｜", "tool_calls")
NO_THINK = {"thinking": False}

SUITES = [
    Suite(
        "gigachat35-test",
        "gigachat35",
        "gigachat35",
        (
            *dsml_samples(G, think={}, no_think=NO_THINK, strip=False),
            Sample(
                "Russian reasoning, a call, the end-of-message token",
                "Пользователь спрашивает погоду в Москве.</think>Сейчас проверю.\n"
                + G.calls(G.inv("get_weather", G.p("city", "Москва"), G.p("days", "2", False)))
                + "<|message_sep|>",
                reasoning="Пользователь спрашивает погоду в Москве.",
                content="Сейчас проверю.",
                calls=(call("get_weather", city="Москва", days=2),),
            ),
            Sample(
                "the block ends reasoning without </think>",
                "Need the calculator.\n" + G.calls(G.inv("calc", G.p("expr", "2 + 2 * 2"))),
                reasoning="Need the calculator.",
                calls=(call("calc", expr="2 + 2 * 2"),),
            ),
            Sample(
                "a DSML block is not GigaChat's: content",
                '</think><｜DSML｜tool_calls>\n<｜DSML｜invoke name="x">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
                content='<｜DSML｜tool_calls>\n<｜DSML｜invoke name="x">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
            ),
        ),
        source="GigaChat 3.5 chat template / SGLang gigachat35 syntax: GCML tool_calls, <think> pre-filled",
    ),
]
