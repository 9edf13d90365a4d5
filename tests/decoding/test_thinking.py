"""ThinkingBudget against a from-scratch reference, in a simulated engine loop."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.reasoning_markers import REASONING_MARKERS

from .reference import budget_ref
from .test_markers import as_array

CASES = [
    ("qwen3.6", "qwen3"),  # markers are added tokens
    ("cl100k_base", "qwen3"),  # markers are ordinary tokens: matched on bytes, end forced as 3 tokens
    ("llama3", "olmo3"),
    ("deepseek-v4", "deepseek_v4"),
    ("mistral-tekken", "mistral"),  # no implicit start
    ("o200k_harmony", "gpt_oss"),  # forced end: added tokens around ordinary text
]
WORDS = ["\n", " the", " answer", ".", "</", "think", ">", "<", " </", ">\n", "analysis", "final", "assistant"]


def pool_for(tok, reasoning):
    m = REASONING_MARKERS[reasoning]
    texts = [t for t in (m.start, m.end, m.budget_end) if t] + WORDS
    ids = {i for t in texts for i in tok.encode(t)}
    return sorted(ids), [tok.encode(t) for t in texts]


def prompt_for(tok, reasoning, kind):
    m = REASONING_MARKERS[reasoning]
    start = m.start or ""
    return {
        "none": None,
        "plain": tok.encode("User: hi\nAssistant:"),
        "prefilled": tok.encode(f"User: hi\nAssistant: {start}\n"),
        "prefilled_bare": tok.encode(f"User: hi\nAssistant: {start}"),
        "closed": tok.encode(f"User: hi\nAssistant: {start}\n\n{m.end}\n\n"),
    }[kind]


@pytest.mark.parametrize(("name", "reasoning"), CASES)
@settings(max_examples=examples(50), deadline=None)
@given(
    kind=st.sampled_from(["none", "plain", "prefilled", "prefilled_bare", "closed"]),
    budget=st.integers(0, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_engine_loop_equals_reference(name, reasoning, kind, budget, seed):
    tok = toklane.load_tokenizer(name)
    rng = random.Random(seed)
    pool, phrases = pool_for(tok, reasoning)
    prompt = prompt_for(tok, reasoning, kind)
    tb = toklane.ThinkingBudget(tok, reasoning, max_thinking_tokens=budget, prompt_ids=prompt)
    honour = rng.random() < 0.8  # an engine that sometimes does not apply the mask
    out: list[int] = []
    for _ in range(40):
        view = out if rng.random() < 0.8 else as_array(out, rng)
        forced = tb.update(view)
        ref = budget_ref(tok, reasoning, budget, prompt, out)
        assert (forced, tb.state) == (ref.forced, ref.state), (out, prompt)
        out = [i for i in out if i >= 0]
        if forced is not None and (honour or rng.random() < 0.7):
            out.append(forced)
        elif rng.random() < 0.3:
            out.extend(rng.choice(phrases))
        else:
            out.append(rng.choice(pool))
        out.extend(rng.choice(pool) for _ in range(rng.choice([0, 0, 0, 1, 2])))  # accepted draft tokens
        if rng.random() < 0.15 and out:  # rejection / discard
            n = rng.randint(1, min(3, len(out)))
            del out[len(out) - n :]
            if rng.random() < 0.5:  # and regrowth before the next update: announced
                tb.rollback(n)
                out.append(rng.choice(pool))
        if rng.random() < 0.2:
            out.extend([-1] * rng.randint(1, 2))


@pytest.mark.parametrize(("name", "reasoning"), CASES)
def test_forced_ids_spell_budget_end(name, reasoning):
    tok = toklane.load_tokenizer(name)
    tb = toklane.ThinkingBudget(tok, reasoning, max_thinking_tokens=0)
    assert list(tb.force_sequence) == tok.encode(REASONING_MARKERS[reasoning].budget_end)


def run_to_done(tb, model_tokens):
    out = []
    it = iter(model_tokens)
    while len(out) < 200:
        forced = tb.update(out)
        if tb.state == "done":
            return out
        out.append(forced if forced is not None else next(it))
    raise AssertionError("reasoning never ended")


def test_prefilled_start_counts_and_end_is_forced_at_budget():
    tok = toklane.load_tokenizer("qwen3.6")
    prompt = tok.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")
    tb = toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=5, prompt_ids=prompt)
    assert tb.state == "thinking" and tb.thinking_tokens == 1  # the pre-filled "\n" counts
    out = run_to_done(tb, [tok.encode(" x")[0]] * 50)
    assert out[4] == tok.token_to_id("</think>") and len(out) == 5
    assert tb.reasoning_end == 5


@pytest.mark.parametrize("name", ["qwen3", "cl100k_base"])
def test_output_beginning_with_the_start_marker_counts_after_it(name):
    tok = toklane.load_tokenizer(name)
    start = tok.encode("<think>")
    tb = toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=4)
    out = run_to_done(tb, [*start, *tok.encode(" a b c d e f g h")])
    assert tok.decode(out) == "<think> a b c d</think>"


def test_byte_marker_forced_one_token_per_step():
    tok = toklane.load_tokenizer("cl100k_base")
    tb = toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=3)
    out = run_to_done(tb, tok.encode(" a b c d e f g"))
    assert tok.decode(out) == " a b c</think>"


def test_several_tokens_accepted_past_the_budget():
    tok = toklane.load_tokenizer("qwen3")
    end = tok.token_to_id("</think>")
    tb = toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=2, prompt_ids=tok.encode("<think>"))
    assert tb.update([1, 2, 3, 4]) == end  # four accepted at once: two past the budget, force now
    assert tb.update([1, 2, 3, 4, end]) is None and tb.state == "done"
    assert tb.update([1, 2, 3, 4]) == end  # the end was rejected: force again
    assert tb.update([1]) is None and tb.state == "thinking"


def test_gpt_oss_forces_the_whole_channel_switch():
    tok = toklane.load_tokenizer("o200k_harmony")
    tb = toklane.ThinkingBudget(tok, "gpt_oss", max_thinking_tokens=2)
    out = run_to_done(tb, tok.encode(" hmm hmm hmm hmm"))
    assert tok.decode(out[2:]) == "<|end|><|start|>assistant<|channel|>final<|message|>"


def test_no_reasoning_when_closed_in_prompt_and_explicit_start_in_output():
    tok = toklane.load_tokenizer("qwen3")
    closed = tok.encode("<think>\n\n</think>\n\n")
    tb = toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=0, prompt_ids=closed)
    assert tb.update(tok.encode("hello")) is None and tb.state == "before"
    start = tok.token_to_id("<think>")
    assert tb.update([*tok.encode("hello"), start]) == tok.token_to_id("</think>")


def test_apply_numpy_and_torch():
    tok = toklane.load_tokenizer("qwen3")
    tb = toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=0, prompt_ids=tok.encode("<think>"))
    forced = tb.update([])
    row = np.random.default_rng(0).standard_normal(tok.vocab_size).astype(np.float32)
    tb.apply(row)
    assert int(np.argmax(row)) == forced and np.isneginf(np.delete(row, forced)).all()
    torch = pytest.importorskip("torch")
    t = torch.randn(tok.vocab_size)
    tb.apply(t)
    assert int(t.argmax()) == forced and torch.isinf(t).sum() == tok.vocab_size - 1


def test_bad_setup_is_loud():
    with pytest.raises(toklane.UnknownFormatError):
        toklane.ThinkingBudget("qwen3", "nope", max_thinking_tokens=1)
    with pytest.raises(ValueError):
        toklane.ThinkingBudget("qwen3", "qwen3", max_thinking_tokens=-1)
    with pytest.raises(TypeError):
        toklane.ThinkingBudget("qwen3", "qwen3", max_thinking_tokens=1.5)
