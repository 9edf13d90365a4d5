"""Llama 3.1 / 3.2 / 3.3 JSON tool calls (``llama3_json``), as the Llama 3 JSON tool template asks for them."""

from ..corpus import Sample, Suite, call

SUITES = [
    Suite(
        "llama3",
        None,
        "llama3_json",
        (
            Sample("plain answer", "The capital of France is Paris.", content="The capital of France is Paris."),
            Sample(
                "one call",
                '{"name": "get_weather", "parameters": {"location": "San Francisco, CA", "unit": "fahrenheit"}}',
                calls=(call("get_weather", location="San Francisco, CA", unit="fahrenheit"),),
            ),
            Sample(
                "python_tag, then eom",
                '<|python_tag|>{"name": "get_weather", "parameters": {"location": "Tokyo"}}<|eom_id|>',
                calls=(call("get_weather", location="Tokyo"),),
            ),
            Sample(
                "two calls separated by ;",
                '{"name": "get_weather", "parameters": {"location": "Paris"}}; '
                '{"name": "get_time", "parameters": {"timezone": "Europe/Paris"}}',
                calls=(call("get_weather", location="Paris"), call("get_time", timezone="Europe/Paris")),
            ),
            Sample(
                "type member (Llama 3.2)",
                '{"type": "function", "name": "search_web", "parameters": {"query": "llama 3.2 release date"}}',
                calls=(call("search_web", query="llama 3.2 release date"),),
            ),
            Sample(
                "call after prose",
                'Sure, let me look that up. {"name": "get_weather", "parameters": {"location": "Lima"}}',
                content="Sure, let me look that up.",
                calls=(call("get_weather", location="Lima"),),
            ),
            Sample(
                "malformed object, then a valid call",
                '{"name": "get_weather", "parameters": {"location": }}; '
                '{"name": "get_time", "parameters": {"timezone": "UTC"}}',
                content='{"name": "get_weather", "parameters": {"location": }};',
                calls=(call("get_time", timezone="UTC"),),
            ),
            Sample(
                "prose and code braces are content",
                'In Python, write f"{name}" to format; a set is {1, 2}, and JSON looks like {"location": "Paris"}.',
                content='In Python, write f"{name}" to format; a set is {1, 2}, and JSON looks like '
                '{"location": "Paris"}.',
            ),
            Sample(
                "JSON answer that is no call",
                '{"city": "Paris", "country": "France", "population": 2102650}',
                content='{"city": "Paris", "country": "France", "population": 2102650}',
            ),
            Sample(
                "truncated call is content",
                '{"name": "get_weather", "parameters": {"location": "Ber',
                content='{"name": "get_weather", "parameters": {"location": "Ber',
            ),
            Sample(
                "arguments as a JSON string",
                '{"name": "search", "arguments": "{\\"query\\": \\"weather in Oslo\\"}"}',
                calls=(call("search", query="weather in Oslo"),),
            ),
            Sample(
                "nested, unicode and escaped arguments, empty parameters",
                '{"name": "send_message", "parameters": {"to": ["José", "李雷"], "body": "Hi \\"there\\"\\n😀", '
                '"meta": {"urgent": true, "retries": 0}}}; {"name": "get_current_time", "parameters": {}}',
                calls=(
                    call(
                        "send_message", to=["José", "李雷"], body='Hi "there"\n😀', meta={"urgent": True, "retries": 0}
                    ),
                    call("get_current_time"),
                ),
            ),
            Sample(
                "text after the call is content",
                '{"name": "get_weather", "parameters": {"location": "Madrid"}} I will report back.',
                content="I will report back.",
                calls=(call("get_weather", location="Madrid"),),
            ),
            Sample(
                "missing parameters is content",
                '{"name": "get_weather"} is the tool I would use.',
                content='{"name": "get_weather"} is the tool I would use.',
            ),
        ),
        source="Llama 3.1/3.2 model cards and JSON tool-calling template; vLLM llama3_json, SGLang llama3",
    )
]
