"""OLMo 3: Think's ``<think>...</think>`` reasoning and Instruct's pythonic calls in ``<function_calls>``.

OLMo 3 Instruct's template writes one call per line inside ``<function_calls>`` ...
``</function_calls>`` (added tokens of its tokenizer: ``olmo3-test``). OLMo 3 Think's template
pre-fills ``<think>``, so output starts inside reasoning; its tokenizer spells the tags and
``</think>`` with ordinary tokens (``cl100k_base`` here).
"""

from ..corpus import Sample, Suite, call

FC, FE = "<function_calls>", "</function_calls>"

INSTRUCT = (
    Sample("one call", f'{FC}get_weather(city="Paris"){FE}', calls=(call("get_weather", city="Paris"),)),
    Sample(
        "content then two calls, one a line",
        f"Let me check both.{FC}get_weather(city='Paris', metric='celsius')\nget_time(timezone='Europe/Paris'){FE}",
        content="Let me check both.",
        calls=(call("get_weather", city="Paris", metric="celsius"), call("get_time", timezone="Europe/Paris")),
    ),
    Sample("plain answer", "Hello! How can I help you today?", content="Hello! How can I help you today?"),
    Sample(
        "JSON-style literals",
        f"{FC}register_user(name='Ana', age=31, admin=false, manager=null, tags=['a', 'b']){FE}",
        calls=(("register_user", {"name": "Ana", "age": 31, "admin": False, "manager": None, "tags": ["a", "b"]}),),
    ),
    Sample("empty arguments", f"{FC}list_files(){FE}", calls=(call("list_files"),)),
    Sample(
        "an expression argument: its call is content, the others are kept",
        f'{FC}get_weather(city="Paris")\nconvert(amount=price * 2)\nget_time(timezone="CET"){FE}',
        content="convert(amount=price * 2)",
        calls=(call("get_weather", city="Paris"), call("get_time", timezone="CET")),
    ),
    Sample("end tag missing", f'{FC}get_weather(city="Paris")', calls=(call("get_weather", city="Paris"),)),
    Sample("cut inside the call", f'{FC}get_weather(city="Pa', content=f'{FC}get_weather(city="Pa'),
    Sample(
        "raw line break inside a string",
        f"{FC}write_file(path='notes.txt', text='line 1\nline 2'){FE}",
        calls=(call("write_file", path="notes.txt", text="line 1\nline 2"),),
    ),
    Sample(
        "content after the calls",
        f'{FC}get_weather(city="Paris"){FE}\nI\'ll report back.',
        content="I'll report back.",
        calls=(call("get_weather", city="Paris"),),
    ),
    Sample(
        "unicode values",
        f"{FC}translate(text='Grüße aus Köln 🚀', target=\"日本語\"){FE}",
        calls=(call("translate", text="Grüße aus Köln 🚀", target="日本語"),),
    ),
)

THINK = (
    Sample(
        "reasoning then answer",
        "The user asks 2+2. That's 4.</think>\n\n2 + 2 = 4.",
        reasoning="The user asks 2+2. That's 4.",
        content="2 + 2 = 4.",
    ),
    Sample(
        "the model repeats <think>",
        "<think>Short question.</think>Yes.",
        reasoning="Short question.",
        content="Yes.",
    ),
    Sample(
        "cut inside reasoning",
        "Let me think about this step by step. First",
        reasoning="Let me think about this step by step. First",
    ),
    Sample(
        "reasoning then a call",
        f'Need the weather.</think>\n{FC}get_weather(city="Paris"){FE}',
        reasoning="Need the weather.",
        calls=(call("get_weather", city="Paris"),),
    ),
    Sample(
        "reasoning, content and two calls",
        f"Two lookups needed.</think>Checking.{FC}get_weather(city='Oslo')\nget_time(timezone='CET'){FE}",
        reasoning="Two lookups needed.",
        content="Checking.",
        calls=(call("get_weather", city="Oslo"), call("get_time", timezone="CET")),
    ),
    Sample(
        "thinking off",
        "Paris is the capital of France.",
        content="Paris is the capital of France.",
        options={"thinking": False},
    ),
    Sample(
        "</think> merged with the text around it",
        "Done thinking.</think>The answer is 42.",
        reasoning="Done thinking.",
        content="The answer is 42.",
    ),
    Sample(
        "unicode reasoning",
        "Überlegung: 東京 ist groß 🚀</think>\nTokyo is big.",
        reasoning="Überlegung: 東京 ist groß 🚀",
        content="Tokyo is big.",
    ),
    Sample(
        "a call that is no literal after reasoning: the next call is kept",
        f"Plan.</think>{FC}log(at=datetime.now())\nget_time(timezone='UTC'){FE}",
        reasoning="Plan.",
        content="log(at=datetime.now())",
        calls=(call("get_time", timezone="UTC"),),
    ),
    Sample(
        "calls without closing the reasoning",
        f"Let me call it.{FC}get_weather(city='Oslo'){FE}",
        reasoning="Let me call it.",
        calls=(call("get_weather", city="Oslo"),),
    ),
    Sample("empty reasoning", "</think>\n\nHello!", content="Hello!"),
)

SUITES = [
    Suite(
        "olmo3-test",
        None,
        "olmo3",
        INSTRUCT,
        source="OLMo 3 Instruct chat template (<function_calls>, one pythonic call per line)",
    ),
    Suite(
        "cl100k_base",
        "olmo3",
        "olmo3",
        THINK,
        source="OLMo 3 Think chat template (pre-filled <think>, tags as ordinary tokens)",
    ),
]
