"""GigaChat 3 / 3.1 (``gigachat3`` tools): a ``function call`` turn, or ``<|function_call|>`` (3.1).

The GigaChat 3 template ends the assistant text with ``<|message_sep|>\\n\\n`` and opens a turn whose
role is ``function call`` (text) followed by ``<|role_sep|>\\n`` and one JSON object; ``</s>`` ends
the output. GigaChat 3.1 writes ``<|function_call|>{...}`` instead.
"""

from ..corpus import Sample, Suite, call

MS, RS, FC = "<|message_sep|>", "<|role_sep|>", "<|function_call|>"


def turn(obj: str) -> str:
    return f"{MS}\n\nfunction call{RS}\n{obj}"


SUITES = [
    Suite(
        "gigachat3-test",
        None,
        "gigachat3",
        (
            Sample("plain answer", "Москва — столица России.</s>", content="Москва — столица России."),
            Sample(
                "content then a function call turn",
                "Сейчас узнаю погоду." + turn('{"name": "get_weather", "arguments": {"city": "Москва"}}') + "</s>",
                content="Сейчас узнаю погоду.",
                calls=(call("get_weather", city="Москва"),),
            ),
            Sample(
                "call turn without content",
                f'function call{RS}\n{{"name": "get_time", "arguments": {{"timezone": "Europe/Moscow"}}}}',
                calls=(call("get_time", timezone="Europe/Moscow"),),
            ),
            Sample(
                "GigaChat 3.1 <|function_call|>",
                f'Проверяю.{FC}{{"name": "get_weather", "arguments": {{"city": "Казань"}}}}',
                content="Проверяю.",
                calls=(call("get_weather", city="Казань"),),
            ),
            Sample(
                "two call turns",
                turn('{"name": "get_weather", "arguments": {"city": "Сочи"}}')
                + turn('{"name": "get_weather", "arguments": {"city": "Омск"}}'),
                calls=(call("get_weather", city="Сочи"), call("get_weather", city="Омск")),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                turn(
                    '{"name": "create_order", "arguments": {"items": [{"sku": "А-17", "qty": 2}], '
                    '"comment": "Позвонить \\"заранее\\"\\nспасибо", "total": 1499.99, "express": true, '
                    '"gift": false, "coupon": null}}'
                ),
                calls=(
                    call(
                        "create_order",
                        items=[{"sku": "А-17", "qty": 2}],
                        comment='Позвонить "заранее"\nспасибо',
                        total=1499.99,
                        express=True,
                        gift=False,
                        coupon=None,
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                turn('{"name": "get_current_time", "arguments": {}}') + "</s>",
                calls=(call("get_current_time"),),
            ),
            Sample(
                "role separator skipped by the server",
                'Минутку.\n\nfunction call{"name": "search", "arguments": {"query": "курс рубля"}}',
                content="Минутку.",
                calls=(call("search", query="курс рубля"),),
            ),
            Sample(
                "'function call' inside an argument string is text",
                turn('{"name": "search", "arguments": {"query": "what is a function call"}}'),
                calls=(call("search", query="what is a function call"),),
            ),
            Sample(
                "'function call' in prose stays content",
                "A function call lets me use tools.",
                content="A function call lets me use tools.",
            ),
            Sample(
                "truncated call is content",
                "Ищу." + turn('{"name": "search", "arguments": {"query": "пого'),
                content=f'Ищу.\n\nfunction call{RS}\n{{"name": "search", "arguments": {{"query": "пого',
            ),
            Sample(
                "single-quoted arguments break the call",
                turn('{"name": "get_weather", "arguments": {\'city\': \'Тула\'}}'),
                content=f'\n\nfunction call{RS}\n{{"name": "get_weather", "arguments": {{\'city\': \'Тула\'}}}}',
            ),
            Sample(
                "arguments that are no object fail the call",
                turn('{"name": "manage_user_memory", "arguments": "create"}'),
                content=f'\n\nfunction call{RS}\n{{"name": "manage_user_memory", "arguments": "create"}}',
            ),
        ),
        source="ai-sage/GigaChat3-10B-A1.8B and GigaChat3.1 chat templates; vLLM gigachat3, SGLang gigachat3",
    )
]
