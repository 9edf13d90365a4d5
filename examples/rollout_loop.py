"""A multi-turn agent rollout as ids, with toklane.Conversation (no GPU, no torch, no download).

The "policy" is scripted: each turn it returns real token ids of the Qwen3.6 vocabulary (what a
sampler would hand back), first a tool call, then, once the tool answered, a final answer. The
loop is the one an RL rollout worker runs: prompt ids -> generate -> add_generated (parse from
ids, ids kept verbatim) -> run the tools -> add_messages -> prompt ids again. At the end the
trainer gets ``ids`` and ``loss_mask`` (1 exactly on the ids the policy produced), and
``check()`` says whether re-rendering the conversation would have given the same ids.

    python examples/rollout_loop.py
"""

from __future__ import annotations

import json

import toklane

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def policy(tok: toklane.Tokenizer, prompt_ids: list[int], turn: int) -> list[int]:
    """A stand-in for the model: ids it 'samples' after ``prompt_ids`` (the prompt ends inside <think>)."""
    if turn == 0:
        text = (
            "The user wants the weather; call the tool.\n</think>\n\n<tool_call>\n<function=get_weather>\n"
            "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call><|im_end|>"
        )
    else:
        text = "The tool answered.\n</think>\n\nIt is 18 °C and sunny in Paris.<|im_end|>"
    return tok.encode(text)


def run_tool(name: str, arguments: str) -> str:
    assert name == "get_weather"
    return json.dumps({"city": json.loads(arguments)["city"], "celsius": 18, "sky": "sunny"})


def main() -> None:
    conv = toklane.Conversation(
        "qwen3.6",
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
        tools=TOOLS,
    )
    tok = conv.tokenizer
    for turn in range(4):
        prompt = conv.prompt_ids()
        result = conv.add_generated(policy(tok, prompt, turn))
        print(f"turn {turn}: prompt {len(prompt)} ids -> reasoning={result.reasoning!r} content={result.content!r}")
        if not result.tool_calls:
            break
        for call in result.tool_calls:
            print(f"  tool call {call.name}({call.arguments})")
            conv.add_messages(
                [{"role": "tool", "tool_call_id": call.id, "content": run_tool(call.name, call.arguments)}]
            )
    ids, mask = conv.ids, conv.loss_mask
    print(f"{len(ids)} ids, {sum(mask)} generated (loss mask 1), spans:")
    for span in conv.spans:
        print(f"  {span.kind:9} ids[{span.start}:{span.end}]  messages {span.messages}")
    drifts = conv.check()
    print("check():", "the ids equal a whole re-render" if not drifts else [(d.turn, d.reason) for d in drifts])


if __name__ == "__main__":
    main()
