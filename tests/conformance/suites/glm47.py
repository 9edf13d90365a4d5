"""GLM-4.7 / GLM-5 (``glm47``): the compact layout, ``<think>`` pre-filled by the template."""

from ..corpus import Sample, Suite, call


def kv(name: str, *pairs: tuple[str, str]) -> str:
    """A call as the GLM-4.7 template writes it (no newlines)."""
    body = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in pairs)
    return f"<tool_call>{name}{body}</tool_call>"


SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "create_event",
            "parameters": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "attendees": {"type": "array", "items": {"type": "string"}},
                    "duration": {"type": "number"},
                    "private": {"type": "boolean"},
                    "room": {"type": "integer"},
                },
            },
        },
    }
]

SUITES = [
    Suite(
        "glm-test",
        "glm47",
        "glm47",
        (
            Sample(
                "reasoning then answer",
                "The user greets me.</think>Hello! How can I help you today?",
                reasoning="The user greets me.",
                content="Hello! How can I help you today?",
            ),
            Sample(
                "thinking off: plain answer",
                "Hello! How can I help you today?",
                content="Hello! How can I help you today?",
                options={"thinking": False},
            ),
            Sample(
                "reasoning then typed call",
                "Schedule the meeting.</think>"
                + kv(
                    "create_event",
                    ("title", 'Sync: Q3 "roadmap"'),
                    ("attendees", '["ana@x.io", "李雷"]'),
                    ("duration", "1.5"),
                    ("private", "false"),
                    ("room", "4"),
                ),
                reasoning="Schedule the meeting.",
                calls=(
                    call(
                        "create_event",
                        title='Sync: Q3 "roadmap"',
                        attendees=["ana@x.io", "李雷"],
                        duration=1.5,
                        private=False,
                        room=4,
                    ),
                ),
                options={"tools_schema": SCHEMA},
            ),
            Sample(
                "content before the calls, two calls",
                "Checking both.</think>Checking both cities."
                + kv("get_weather", ("city", "Paris"))
                + kv("get_weather", ("city", "Lyon")),
                reasoning="Checking both.",
                content="Checking both cities.",
                calls=(call("get_weather", city="Paris"), call("get_weather", city="Lyon")),
            ),
            Sample(
                "nested object and escapes",
                "</think>"
                + kv(
                    "write_file",
                    ("path", "a\\b.txt"),
                    ("content", 'line 1\nline "2"\ttab'),
                    ("meta", '{"tags": {"k": [1, 2.5, false]}}'),
                ),
                calls=(
                    call(
                        "write_file",
                        path="a\\b.txt",
                        content='line 1\nline "2"\ttab',
                        meta={"tags": {"k": [1, 2.5, False]}},
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                "Need the time.</think><tool_call>get_time</tool_call>",
                reasoning="Need the time.",
                calls=(call("get_time"),),
            ),
            Sample(
                "reasoning cut off",
                "First, consider whether the list is sorted",
                reasoning="First, consider whether the list is sorted",
            ),
            Sample(
                "call cut inside a value",
                "Search.</think><tool_call>search<arg_key>query</arg_key><arg_value>tokio sel",
                reasoning="Search.",
                content="<tool_call>search<arg_key>query</arg_key><arg_value>tokio sel",
            ),
            Sample(
                "only </tool_call> missing at the end",
                "Search.</think><tool_call>search<arg_key>query</arg_key><arg_value>tokio select</arg_value>",
                reasoning="Search.",
                calls=(call("search", query="tokio select"),),
            ),
            Sample(
                "missing </tool_call> before the next call",
                "</think><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>"
                "<tool_call>g<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>",
                calls=(call("f", a="1"), call("g", b="2")),
            ),
            Sample(
                "call inside reasoning ends it",
                "I should look this up" + kv("search", ("query", "GLM-5")),
                reasoning="I should look this up",
                calls=(call("search", query="GLM-5"),),
            ),
            Sample(
                "name with a space is not a call",
                "</think><tool_call>get weather<arg_key>city</arg_key><arg_value>Rome</arg_value></tool_call>",
                content="<tool_call>get weather<arg_key>city</arg_key><arg_value>Rome</arg_value></tool_call>",
            ),
        ),
        source="zai-org/GLM-4.7 chat_template.jinja (compact call layout, <think> pre-filled)",
    )
]
