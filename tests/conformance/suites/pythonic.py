"""Pythonic tool calls (Llama 3.2 / Llama 4 and other pythonic models): ``[f(a=1), g(b="x")]``.

Llama 3.2's and Llama 4's templates ask for ``[func_name1(param=value, ...), func_name2(...)]``
and nothing else; models still write prose before or after the list, several lists, Llama 4's
``<|python_start|>`` / ``<|python_end|>`` around it, and arguments that are no literal.
"""

from ..corpus import Sample, Suite, call

SAMPLES = (
    Sample(
        "one call",
        '[get_weather(city="San Francisco", metric="celsius")]',
        calls=(call("get_weather", city="San Francisco", metric="celsius"),),
    ),
    Sample(
        "two calls with nested values",
        "[get_weather(city='Paris', days=3), search_hotels(query=\"hotels in Paris\", "
        'filters={"price": [100, 200], "stars": 4}, refundable=True)]',
        calls=(
            call("get_weather", city="Paris", days=3),
            call("search_hotels", query="hotels in Paris", filters={"price": [100, 200], "stars": 4}, refundable=True),
        ),
    ),
    Sample("plain answer", "The capital of France is Paris.", content="The capital of France is Paris."),
    Sample(
        "prose then the list",
        'I\'ll look that up for you.\n\n[get_weather(city="Tokyo")]',
        content="I'll look that up for you.",
        calls=(call("get_weather", city="Tokyo"),),
    ),
    Sample(
        "the list then prose",
        "[get_weather(city='Paris')]\nI've asked for the forecast.",
        content="I've asked for the forecast.",
        calls=(call("get_weather", city="Paris"),),
    ),
    Sample(
        "two lists in one output",
        "[get_time(timezone='UTC')]\nAnd the weather: [get_weather(city='Oslo')]",
        content="And the weather:",
        calls=(call("get_time", timezone="UTC"), call("get_weather", city="Oslo")),
    ),
    Sample(
        "links, citations and indexing are prose",
        "See [the docs](https://docs.python.org/3/) and [1]; use `xs[0]` or [a, b] as shown [see above].",
        content="See [the docs](https://docs.python.org/3/) and [1]; use `xs[0]` or [a, b] as shown [see above].",
    ),
    Sample(
        "Llama 4 python tags",
        "<|python_start|>[get_weather(city='Rome')]<|python_end|>",
        calls=(call("get_weather", city="Rome"),),
    ),
    Sample(
        "unicode and escapes",
        r"""[send_message(to="José Núñez", text='Ünïcødé ✓ \'quoted\'\nline 2 \u00e9')]""",
        calls=(call("send_message", to="José Núñez", text="Ünïcødé ✓ 'quoted'\nline 2 é"),),
    ),
    Sample("empty arguments", "[get_current_time()]", calls=(call("get_current_time"),)),
    Sample(
        "Python literals",
        "[set_thermostat(temp=-3.5, eco=False, schedule=None, zones=('hall', 'kitchen'), max_w=1_500)]",
        calls=(call("set_thermostat", temp=-3.5, eco=False, schedule=None, zones=["hall", "kitchen"], max_w=1500),),
    ),
    Sample(
        "an argument that is no literal: its call is content, the others are kept",
        '[get_weather(city="Paris"), plot(data=np.array([1, 2, 3])), get_time(timezone="CET")]',
        content="plot(data=np.array([1, 2, 3]))",
        calls=(call("get_weather", city="Paris"), call("get_time", timezone="CET")),
    ),
    Sample(
        "a positional argument only",
        '[get_weather("Paris")]',
        content='[get_weather("Paris")]',
    ),
    Sample("cut inside the call", '[get_weather(city="Par', content='[get_weather(city="Par'),
    Sample(
        "the closing bracket is missing",
        '[get_weather(city="Paris")',
        calls=(call("get_weather", city="Paris"),),
    ),
    Sample(
        "a list of numbers is prose",
        "[1, 2, 3] are the first three numbers.",
        content="[1, 2, 3] are the first three numbers.",
    ),
)

SUITES = [
    Suite(
        "llama3",
        None,
        "pythonic",
        SAMPLES,
        source="Llama 3.2 / Llama 4 chat templates (pythonic tool calling), SGLang's PythonicDetector behaviour",
    )
]
