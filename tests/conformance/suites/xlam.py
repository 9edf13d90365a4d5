"""Salesforce xLAM / xLAM-2 (``xlam``): a JSON list of calls as the whole content, as the xLAM-2 template asks."""

from ..corpus import Sample, Suite, call

SUITES = [
    Suite(
        "llama3",
        None,
        "xlam",
        (
            Sample("plain answer", "I can help with that. Which city?", content="I can help with that. Which city?"),
            Sample(
                "one call",
                '[{"name": "get_current_weather", "arguments": {"location": "Dallas, TX", "unit": "fahrenheit"}}]',
                calls=(call("get_current_weather", location="Dallas, TX", unit="fahrenheit"),),
            ),
            Sample(
                "two calls",
                '[{"name": "get_current_weather", "arguments": {"location": "Dallas, TX"}}, '
                '{"name": "get_current_weather", "arguments": {"location": "Orlando, FL"}}]',
                calls=(
                    call("get_current_weather", location="Dallas, TX"),
                    call("get_current_weather", location="Orlando, FL"),
                ),
            ),
            Sample(
                "fenced list",
                '```json\n[{"name": "search_flights", "arguments": {"from": "SFO", "to": "NRT", "date": "2025-05-01"}}]'
                "\n```",
                calls=(call("search_flights", **{"from": "SFO", "to": "NRT", "date": "2025-05-01"}),),
            ),
            Sample(
                "nested, unicode and escaped arguments",
                '[{"name": "translate", "arguments": {"text": "Grüße aus München \\"heute\\"", '
                '"targets": ["ja", "zh"], '
                '"options": {"formal": true, "glossary": {"München": "ミュンヘン"}}}}]',
                calls=(
                    call(
                        "translate",
                        text='Grüße aus München "heute"',
                        targets=["ja", "zh"],
                        options={"formal": True, "glossary": {"München": "ミュンヘン"}},
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                '[{"name": "get_server_time", "arguments": {}}]',
                calls=(call("get_server_time"),),
            ),
            Sample(
                "list inside tool_call tags after text",
                'Let me check.<tool_call>[{"name": "get_stock_price", "arguments": {"symbol": "CRM"}}]</tool_call>',
                content="Let me check.",
                calls=(call("get_stock_price", symbol="CRM"),),
            ),
            Sample(
                "list after [TOOL_CALLS]",
                '[TOOL_CALLS][{"name": "get_stock_price", "arguments": {"symbol": "AAPL"}}]',
                calls=(call("get_stock_price", symbol="AAPL"),),
            ),
            Sample(
                "a bracketed answer is content",
                "[1] Paris is the capital of France.",
                content="[1] Paris is the capital of France.",
            ),
            Sample(
                "truncated list is content",
                '[{"name": "get_current_weather", "arguments": {"location": "Bos',
                content='[{"name": "get_current_weather", "arguments": {"location": "Bos',
            ),
            Sample(
                "list element without arguments is content",
                '[{"name": "get_current_weather"}]',
                content='[{"name": "get_current_weather"}]',
            ),
        ),
        source="Salesforce xLAM-2 model card and chat template; vLLM xlam",
    ),
    Suite(
        "qwen3",
        "qwen3",
        "xlam",
        (
            Sample(
                "reasoning then list",
                '<think>The user wants Dallas weather.</think>\n[{"name": "get_current_weather", '
                '"arguments": {"location": "Dallas, TX"}}]',
                reasoning="The user wants Dallas weather.",
                calls=(call("get_current_weather", location="Dallas, TX"),),
            ),
        ),
        source="xLAM-2 on a Qwen base (vLLM xlam with a reasoning parser)",
    ),
]
