"""A multi-turn agent rollout as ids, with toklane.Conversation (no GPU, no torch, no download).

The "policy" is scripted: each turn it returns real token ids of the Qwen3.6 vocabulary (what a
sampler would hand back), first a tool call, then, once the tool answered, a final answer. The
loop is the one an RL rollout worker runs: prompt ids -> generate -> add_generated (parse from
ids, ids kept verbatim) -> run the tools -> add_messages -> prompt ids again. At the end the
trainer gets ``ids`` and ``loss_mask`` (1 exactly on the ids the policy produced), and
``check()`` says whether re-rendering the conversation would have given the same ids.

    python examples/rollout_loop.py
    python examples/rollout_loop.py --tiny-model   # the policy is a tiny random Llama (torch, transformers)

With ``--tiny-model`` the ids come from ``generate()`` of the one-layer random model that
``examples/decode_loop.py`` builds (CPU, no download): its text is noise, so the rollout usually
ends after one turn, but every id the trainer sees is one the model sampled.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

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


def tiny_model_policy(tok: toklane.Tokenizer, new_tokens: int = 24) -> Callable[..., list[int]]:
    """A policy sampling greedily from decode_loop.py's tiny random Llama, stopping at <|im_end|>."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from decode_loop import tiny_model, torch  # exits with one line if torch/transformers are missing

    model = tiny_model(tok.vocab_size)
    model.config.max_position_embeddings = 1 << 16  # rotary positions: prompts pass the config's 256
    stop = tok.special_tokens["<|im_end|>"]

    def sample(tok: toklane.Tokenizer, prompt_ids: list[int], turn: int) -> list[int]:
        with torch.no_grad():
            out = model.generate(
                torch.tensor([prompt_ids]), max_new_tokens=new_tokens, do_sample=False, eos_token_id=stop
            )
        return out[0, len(prompt_ids) :].tolist()

    return sample


def run_tool(name: str, arguments: str) -> str:
    assert name == "get_weather"
    return json.dumps({"city": json.loads(arguments)["city"], "celsius": 18, "sky": "sunny"})


def main(argv: list[str] | None = None) -> None:
    conv = toklane.Conversation(
        "qwen3.6",
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
        tools=TOOLS,
    )
    tok = conv.tokenizer
    sample = tiny_model_policy(tok) if "--tiny-model" in (sys.argv[1:] if argv is None else argv) else policy
    for turn in range(4):
        prompt = conv.prompt_ids()
        result = conv.add_generated(sample(tok, prompt, turn))
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
