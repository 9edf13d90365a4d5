"""Tencent Hy3 / Hy3-preview (``hy_v3``): suffixed added tokens, ``<tool_sep>`` after the name."""

from ..corpus import Sample, Suite, call


def tags(sfx: str):
    """The call writer for a checkpoint's token suffix (Hy3: ``:opensource``; Hy3-preview: none)."""

    def kv(name: str, *pairs: tuple[str, str]) -> str:
        body = "".join(f"<arg_key{sfx}>{k}</arg_key{sfx}>\n<arg_value{sfx}>{v}</arg_value{sfx}>\n" for k, v in pairs)
        return f"<tool_call{sfx}>{name}<tool_sep{sfx}>\n{body}</tool_call{sfx}>"

    def group(*calls: str) -> str:
        return f"<tool_calls{sfx}>\n" + "\n".join(calls) + f"\n</tool_calls{sfx}>"

    return kv, group


kv, group = tags(":opensource")
pkv, pgroup = tags("")
S = ":opensource"

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "alerts": {"type": "boolean"}},
            },
        },
    }
]

SUITES = [
    Suite(
        "hy3-test",
        "hy_v3",
        "hy_v3",
        (
            Sample("no_think: plain answer", "北京今天晴。", content="北京今天晴。"),
            Sample(
                "thinking: reasoning then answer",
                f"The user asks about the capital.</think{S}>The capital of China is Beijing.",
                reasoning="The user asks about the capital.",
                content="The capital of China is Beijing.",
                options={"thinking": True},
            ),
            Sample(
                "thinking: reasoning then typed call",
                f"The user wants Paris.</think{S}>Checking now."
                + group(kv("get_weather", ("city", "Paris"), ("days", "2"), ("alerts", "false"))),
                reasoning="The user wants Paris.",
                content="Checking now.",
                calls=(call("get_weather", city="Paris", days=2, alerts=False),),
                options={"thinking": True, "tools_schema": WEATHER},
            ),
            Sample(
                "two calls in one group",
                group(kv("get_weather", ("city", "上海")), kv("get_weather", ("city", "Zürich"))),
                calls=(call("get_weather", city="上海"), call("get_weather", city="Zürich")),
            ),
            Sample(
                "nested and escaped values",
                group(kv("exec", ("code", 'print("a\\tb")\nx = {"k": 1}'), ("env", '{"PATH": ["/bin", null]}'))),
                calls=(call("exec", code='print("a\\tb")\nx = {"k": 1}', env={"PATH": ["/bin", None]}),),
            ),
            Sample(
                "empty arguments",
                f"<tool_calls{S}>\n<tool_call{S}>get_time<tool_sep{S}>\n</tool_call{S}>\n</tool_calls{S}>",
                calls=(call("get_time"),),
            ),
            Sample(
                "thinking: reasoning cut off",
                "Let me compare the two opt",
                reasoning="Let me compare the two opt",
                options={"thinking": True},
            ),
            Sample(
                "call cut after its last value is kept",
                f"<tool_calls{S}>\n<tool_call{S}>search<tool_sep{S}>\n<arg_key{S}>query</arg_key{S}>\n"
                f"<arg_value{S}>borrow checker</arg_value{S}>\n",
                calls=(call("search", query="borrow checker"),),
            ),
            Sample(
                "call cut inside its name is content",
                f"Searching.<tool_calls{S}>\n<tool_call{S}>sea",
                content=f"Searching.<tool_calls{S}>\n<tool_call{S}>sea",
            ),
            Sample(
                "group inside reasoning ends it",
                "Need data" + group(kv("search", ("query", "hy3"))),
                reasoning="Need data",
                calls=(call("search", query="hy3"),),
                options={"thinking": True},
            ),
            Sample(
                "name without <tool_sep> (HY-V4 layout) is read",
                f"<tool_calls{S}><tool_call{S}>ping<arg_key{S}>host</arg_key{S}><arg_value{S}>a.io</arg_value{S}>"
                f"</tool_call{S}></tool_calls{S}>",
                calls=(call("ping", host="a.io"),),
            ),
        ),
        source="tencent/Hy3 chat template (suffixed tokens, no_think default)",
    ),
    Suite(
        "hy3-preview-test",
        "hy_v3",
        "hy_v3",
        (
            Sample(
                "plain tokens: content, then a call",
                "Let me check." + pgroup(pkv("get_weather", ("city", "Tokyo"))),
                content="Let me check.",
                calls=(call("get_weather", city="Tokyo"),),
            ),
            Sample(
                "plain tokens: reasoning then answer",
                "Simple.</think>Yes.",
                reasoning="Simple.",
                content="Yes.",
                options={"thinking": True},
            ),
        ),
        source="tencent/Hy3-preview chat template (no token suffix)",
    ),
]
