"""Qwen3-Coder (and Qwen3.5 / Qwen3.6) XML tool calls, as the Qwen3-Coder chat template writes them.

The template renders each call as::

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

one newline after each opening tag and before each closing tag; values are
raw text typed by the tool's JSON schema.
"""

from ..corpus import Sample, Suite, call

TOOLS_SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "exact": {"type": "boolean"},
                    "score": {"type": "number"},
                    "filters": {"type": "object"},
                    "tags": {"type": "array"},
                    "cursor": {"type": ["string", "null"]},
                },
            },
        },
    },
    {"type": "function", "function": {"name": "list_files", "parameters": {"type": "object", "properties": {}}}},
]


def coder_call(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


PY = (
    'def greet(name):\n    """Say hello."""\n    print(f"Hello, {name}!")\n\n\n'
    'if __name__ == "__main__":\n    greet("world")'
)
HTML = "<h1>你好, мир 🚀</h1>\n<p>a < b && c > d</p>"
PARSER_TEST = 'assert parse("</parameter>") == []\nassert close_tag() == "</parameter>"'

SAMPLES = (
    Sample(
        "one call",
        coder_call("get_weather", ("location", "Tokyo")),
        calls=(call("get_weather", location="Tokyo"),),
    ),
    Sample(
        "content then a call with a typed integer",
        "I'll look up the forecast for Paris.\n\n" + coder_call("get_weather", ("location", "Paris"), ("days", "3")),
        content="I'll look up the forecast for Paris.",
        calls=(call("get_weather", location="Paris", days=3),),
    ),
    Sample(
        "two calls in two blocks",
        coder_call("get_weather", ("location", "Oslo")) + "\n" + coder_call("get_weather", ("location", "Bergen")),
        calls=(call("get_weather", location="Oslo"), call("get_weather", location="Bergen")),
    ),
    Sample(
        "typed values: integer, boolean, number, object, array, null",
        coder_call(
            "search",
            ("query", "vector databases"),
            ("limit", "10"),
            ("exact", "False"),
            ("score", "0.75"),
            ("filters", '{"year": 2024, "lang": "en"}'),
            ("tags", "['db', 'search']"),
            ("cursor", "null"),
        ),
        calls=(
            call(
                "search",
                query="vector databases",
                limit=10,
                exact=False,
                score=0.75,
                filters={"year": 2024, "lang": "en"},
                tags=["db", "search"],
                cursor=None,
            ),
        ),
    ),
    Sample(
        "multi-line code keeps its indentation and blank lines",
        "Here is the script.\n" + coder_call("write_file", ("path", "hello.py"), ("content", PY)),
        content="Here is the script.",
        calls=(call("write_file", path="hello.py", content=PY),),
    ),
    Sample(
        "a literal </parameter> inside code stays in the value",
        coder_call("write_file", ("path", "tests/test_parse.py"), ("content", PARSER_TEST)),
        calls=(call("write_file", path="tests/test_parse.py", content=PARSER_TEST),),
    ),
    Sample(
        "a literal </parameter> on its own line inside a value",
        coder_call("write_file", ("path", "notes.md"), ("content", "The closer is\n</parameter>\nwritten alone.")),
        calls=(call("write_file", path="notes.md", content="The closer is\n</parameter>\nwritten alone."),),
    ),
    Sample(
        "missing </parameter> before </function>",
        "<tool_call>\n<function=get_weather>\n<parameter=location>\nLima\n</function>\n</tool_call>",
        calls=(call("get_weather", location="Lima"),),
    ),
    Sample(
        "missing </parameter> before the next parameter",
        "<tool_call>\n<function=get_weather>\n<parameter=location>\nLima\n<parameter=days>\n2\n</parameter>\n"
        "</function>\n</tool_call>",
        calls=(call("get_weather", location="Lima", days=2),),
    ),
    Sample(
        "function without the <tool_call> wrapper",
        "<function=get_weather>\n<parameter=location>\nRome\n</parameter>\n</function>",
        calls=(call("get_weather", location="Rome"),),
    ),
    Sample(
        "no arguments",
        "<tool_call>\n<function=list_files>\n</function>\n</tool_call>",
        calls=(call("list_files"),),
    ),
    Sample(
        "unicode and HTML in values",
        coder_call(
            "write_file", ("path", "页面/索引.html"), ("content", "<h1>你好, мир 🚀</h1>\n<p>a < b && c > d</p>")
        ),
        calls=(call("write_file", path="页面/索引.html", content=HTML),),
    ),
    Sample(
        "a repeated parameter keeps its first value",
        coder_call("get_weather", ("location", "Cairo"), ("location", "Giza")),
        calls=(call("get_weather", location="Cairo"),),
    ),
    Sample(
        "truncated inside a value is content",
        "Let me write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nmain.py\n</parameter>\n"
        "<parameter=content>\nimport os\n",
        content="Let me write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nmain.py\n</parameter>\n"
        "<parameter=content>\nimport os\n",
    ),
    Sample(
        "cut off after a complete parameter: the call stands",
        "<tool_call>\n<function=get_weather>\n<parameter=location>\nQuito\n</parameter>\n",
        calls=(call("get_weather", location="Quito"),),
    ),
    Sample(
        "cut off before any parameter is content",
        "<tool_call>\n<function=get_weather>\n",
        content="<tool_call>\n<function=get_weather>\n",
    ),
    Sample(
        "prose inside <tool_call> before the function breaks the block",
        "<tool_call>\nI think I should call the weather tool.\n</tool_call>",
        content="<tool_call>\nI think I should call the weather tool.\n</tool_call>",
    ),
    Sample(
        "a complete call then a truncated one",
        coder_call("get_weather", ("location", "Seoul"))
        + "\n<tool_call>\n<function=get_weather>\n<parameter=location>\nBus",
        content="<tool_call>\n<function=get_weather>\n<parameter=location>\nBus",
        calls=(call("get_weather", location="Seoul"),),
    ),
    Sample(
        "a non-numeric value for an integer stays a string",
        coder_call("get_weather", ("location", "Nairobi"), ("days", "three")),
        calls=(call("get_weather", location="Nairobi", days="three"),),
    ),
)

SUITES = [
    Suite(
        "qwen3.6",
        None,
        "qwen3_coder",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Qwen3-Coder chat template (tool call rendering), Qwen3-Coder model card; issue reports of "
        "literal </parameter> in written files",
    )
]
