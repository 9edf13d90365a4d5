"""A real decode loop with toklane's per-step helpers, on a tiny random model (CPU, no download).

Two ways to drive the same greedy generation over the bundled ``qwen3.6`` vocabulary:

1. ``transformers`` ``generate()`` with toklane's LogitsProcessors (a thinking budget and a
   repetition penalty);
2. a hand-written loop with a KV cache, as a serving engine runs it: per step, the
   penalties and the thinking budget shape the logits, then the new id goes to the
   incremental detokenizer, the stop matcher and the streaming parser, each O(new tokens).

Both give the same ids. The model is random, so its text is noise; what the example shows is
the plumbing: after ``BUDGET`` thinking tokens the budget forces ``</think>``, and the parser
splits the stream into reasoning and content as it arrives.

Needs ``torch`` and ``transformers``, which toklane does not install by default::

    pip install torch==2.13.0 transformers   # (torch==2.13.0 takes the CPU build here)
    python examples/decode_loop.py
"""

from __future__ import annotations

try:
    import torch
    import transformers
    from transformers import LogitsProcessorList
except ModuleNotFoundError as missing:  # one line saying what to install, not a traceback
    raise SystemExit(
        f"examples/decode_loop.py needs torch and transformers ({missing.name} is not installed): "
        "pip install torch==2.13.0 transformers"
    ) from None

import toklane
from toklane.integrations.transformers import PenaltyLogitsProcessor, ThinkingBudgetLogitsProcessor

BUDGET = 12  # thinking tokens before the budget forces the end of reasoning
NEW_TOKENS = 32
REPETITION_PENALTY = 1.3


def tiny_model(vocab_size: int, seed: int = 0) -> transformers.LlamaForCausalLM:
    """A one-layer Llama with random weights over ``vocab_size`` ids."""
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=256,
        tie_word_embeddings=True,
    )
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.eos_token_id = None  # run the full NEW_TOKENS
    model.generation_config.pad_token_id = 0
    return model


def prompt_ids(tok: toklane.Tokenizer) -> list[int]:
    """The chat prompt, with reasoning opened (``<think>\\n`` pre-filled, as thinking templates do)."""
    messages = [{"role": "user", "content": "What is 17 * 23?"}]
    return toklane.encode_chat(messages, model=tok, add_generation_prompt=True) + tok.encode("<think>\n")


def with_generate(tok: toklane.Tokenizer, model: transformers.LlamaForCausalLM, prompt: list[int]) -> list[int]:
    """Greedy ``generate()`` with toklane's LogitsProcessors; the new ids."""
    processors = LogitsProcessorList(
        [
            PenaltyLogitsProcessor(repetition_penalty=REPETITION_PENALTY),
            ThinkingBudgetLogitsProcessor(tok, reasoning="qwen3", max_thinking_tokens=BUDGET),
        ]
    )
    with torch.no_grad():
        out = model.generate(
            torch.tensor([prompt]), logits_processor=processors, do_sample=False, max_new_tokens=NEW_TOKENS
        )
    return out[0, len(prompt) :].tolist()


def by_hand(tok: toklane.Tokenizer, model: transformers.LlamaForCausalLM, prompt: list[int]) -> dict:
    """The same generation as an engine's loop: one forward pass and one helper step per token."""
    penalties = toklane.PenaltyState(tok.vocab_size)
    penalties.add_request("r0", prompt, repetition_penalty=REPETITION_PENALTY)
    budget = toklane.ThinkingBudget(tok, reasoning="qwen3", max_thinking_tokens=BUDGET, prompt_ids=prompt)
    detok = toklane.IncrementalDetokenizer(tok, prompt_ids=prompt)
    stop = toklane.StopMatcher(tok, stop=["\n\nUser:"], stop_token_ids=[tok.token_to_id("<|im_end|>")])
    parser = toklane.get_parser(tok, reasoning="qwen3")  # reasoning is already open: the prompt began it

    output: list[int] = []
    text, reasoning, content = [], [], []
    forced_at = -1
    cache, step_input = transformers.DynamicCache(), torch.tensor([prompt])
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            # The KV cache is the 4th positional argument in transformers 4 and 5 alike (its name changed).
            logits = model(step_input, None, None, cache, use_cache=True).logits[:, -1, :].clone()  # (1, vocab)
            penalties.apply(logits, ["r0"])  # in place, O(distinct ids seen)
            budget.apply(logits[0])  # masks all but the forced id while forcing
            if budget.forced_token is not None and forced_at < 0:
                forced_at = len(output)
            new_id = int(logits[0].argmax())

            output.append(new_id)
            penalties.append("r0", [new_id])
            budget.update(output)  # reads only the new id
            text.append(detok.step(new_id))  # complete characters only
            delta = parser.feed(token_ids=[new_id])
            reasoning.append(delta.reasoning)
            content.append(delta.content)
            if stop.step([new_id]).stopped:
                break
            step_input = torch.tensor([[new_id]])
    text.append(detok.flush())
    final = parser.finish()
    return {
        "ids": output,
        "text": "".join(text),
        "reasoning": "".join(reasoning) + final.reasoning,
        "content": "".join(content) + final.content,
        "forced_at": forced_at,
        "reasoning_end": budget.reasoning_end,
    }


def main() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    model = tiny_model(tok.vocab_size)
    prompt = prompt_ids(tok)
    ids = with_generate(tok, model, prompt)
    run = by_hand(tok, model, prompt)
    assert run["ids"] == ids, "generate() and the hand-written loop must pick the same ids"
    print(f"{len(ids)} new tokens; the budget forced </think> at output index {run['forced_at']}")
    print(f"reasoning: {run['reasoning']!r}")
    print(f"content:   {run['content']!r}")


if __name__ == "__main__":
    main()
