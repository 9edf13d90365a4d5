"""Meituan LongCat-Flash (``longcat`` tools): Hermes JSON inside ``<longcat_tool_call>`` tags (text)."""

from ..corpus import Sample, Suite, call


def tc(obj: str) -> str:
    return f"<longcat_tool_call>\n{obj}\n</longcat_tool_call>"


SUITES = [
    Suite(
        "longcat-test",
        None,
        "longcat",
        (
            Sample("plain answer", "LongCat-Flash is a MoE model.", content="LongCat-Flash is a MoE model."),
            Sample(
                "content before a call",
                "Checking.\n" + tc('{"name": "get_weather", "arguments": {"city": "Tokyo"}}'),
                content="Checking.",
                calls=(call("get_weather", city="Tokyo"),),
            ),
            Sample(
                "two calls",
                tc('{"name": "get_weather", "arguments": {"city": "北京"}}')
                + "\n"
                + tc('{"name": "get_weather", "arguments": {"city": "上海"}}'),
                calls=(call("get_weather", city="北京"), call("get_weather", city="上海")),
            ),
            Sample(
                "text between and after calls is content",
                "First:\n"
                + tc('{"name": "a", "arguments": {"n": 1}}')
                + "\nthen:\n"
                + tc('{"name": "b", "arguments": {"n": 2}}')
                + "\nDone.",
                content="First:\nthen:\nDone.",
                calls=(call("a", n=1), call("b", n=2)),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                tc(
                    '{"name": "book_table", "arguments": {"restaurant": "海底捞 (望京)", "guests": [{"name": "王", '
                    '"vip": true}], "note": "靠窗\\t\\"安静\\"", "size": 4, "deposit": 99.9, "smoking": false, '
                    '"promo": null}}'
                ),
                calls=(
                    call(
                        "book_table",
                        restaurant="海底捞 (望京)",
                        guests=[{"name": "王", "vip": True}],
                        note='靠窗\t"安静"',
                        size=4,
                        deposit=99.9,
                        smoking=False,
                        promo=None,
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                tc('{"name": "get_current_time", "arguments": {}}'),
                calls=(call("get_current_time"),),
            ),
            Sample(
                "missing end tag after a complete call",
                '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Osaka"}}',
                calls=(call("get_weather", city="Osaka"),),
            ),
            Sample(
                "parameters instead of arguments",
                tc('{"name": "search", "parameters": {"query": "LongCat"}}'),
                calls=(call("search", query="LongCat"),),
            ),
            Sample(
                "truncated call is content",
                'Checking.\n<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Kyo',
                content='Checking.\n<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Kyo',
            ),
            Sample(
                "end tag inside the arguments breaks the call",
                '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": </longcat_tool_call>',
                content='<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": </longcat_tool_call>',
            ),
            Sample(
                "a broken block, then a good one",
                tc('{"name": "get_weather", "arguments": {"city": "Nara",}}')
                + "\n"
                + tc('{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}'),
                content='<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Nara",}}'
                "\n</longcat_tool_call>",
                calls=(call("get_time", timezone="Asia/Tokyo"),),
            ),
            Sample(
                "stray end tag stays content",
                "Nothing to call.</longcat_tool_call>",
                content="Nothing to call.</longcat_tool_call>",
            ),
        ),
        source="meituan-longcat/LongCat-Flash-Chat chat template and model card; vLLM longcat",
    )
]
