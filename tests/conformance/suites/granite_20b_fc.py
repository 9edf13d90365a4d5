"""granite-20b-functioncalling (``granite_20b_fc`` tools): ``<function_call> {...}`` per call, no closer.

The model card's output: each call is ``<function_call> `` (text) and one JSON object
``{"name": ..., "arguments": {...}}``; several calls are written one per line.
"""

from ..corpus import Sample, Suite, call

FC = "<function_call> "

SUITES = [
    Suite(
        "granite-20b-fc-test",
        None,
        "granite_20b_fc",
        (
            Sample("plain answer", "Mount Everest is 8,849 m tall.", content="Mount Everest is 8,849 m tall."),
            Sample(
                "one call",
                FC + '{"name": "get_current_weather", "arguments": {"location": "Boston, MA", "unit": "fahrenheit"}}',
                calls=(call("get_current_weather", location="Boston, MA", unit="fahrenheit"),),
            ),
            Sample(
                "content before a call",
                "Let me check.\n" + FC + '{"name": "get_stock_price", "arguments": {"ticker": "IBM"}}',
                content="Let me check.",
                calls=(call("get_stock_price", ticker="IBM"),),
            ),
            Sample(
                "two calls, one per line",
                FC
                + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
                + FC
                + '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}',
                calls=(call("get_weather", city="Tokyo"), call("get_time", timezone="Asia/Tokyo")),
            ),
            Sample(
                "text after the call is content",
                FC + '{"name": "search", "arguments": {"query": "granite"}}\n\nI searched for it.',
                content="I searched for it.",
                calls=(call("search", query="granite"),),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                FC + '{"name": "add_contact", "arguments": {"name": "José Müller", "tags": ["vip", "東京"], '
                '"address": {"street": "1 \\"Main\\" St", "zip": "02134"}, "age": 42, "score": -0.5, '
                '"active": true, "blocked": false, "notes": null}}',
                calls=(
                    (
                        "add_contact",
                        {
                            "name": "José Müller",
                            "tags": ["vip", "東京"],
                            "address": {"street": '1 "Main" St', "zip": "02134"},
                            "age": 42,
                            "score": -0.5,
                            "active": True,
                            "blocked": False,
                            "notes": None,
                        },
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                FC + '{"name": "get_random_fact", "arguments": {}}',
                calls=(call("get_random_fact"),),
            ),
            Sample(
                "a call with no arguments member",
                FC + '{"name": "get_random_fact"}',
                calls=(call("get_random_fact"),),
            ),
            Sample(
                "second call cut off",
                FC + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n' + FC + '{"name": "get_time", "argu',
                content='<function_call> {"name": "get_time", "argu',
                calls=(call("get_weather", city="Tokyo"),),
            ),
            Sample(
                "unquoted key breaks the call",
                FC + '{"name": "get_weather", "arguments": {city: "Tokyo"}}',
                content='<function_call> {"name": "get_weather", "arguments": {city: "Tokyo"}}',
            ),
            Sample(
                "marker followed by prose stays content",
                "<function_call> is how I call tools.",
                content="<function_call> is how I call tools.",
            ),
        ),
        source="ibm-granite/granite-20b-functioncalling model card; vLLM granite-20b-fc",
    )
]
