"""transformers ``LogitsProcessor``s over toklane's decode-loop helpers.

Pass them to ``model.generate(..., logits_processor=LogitsProcessorList([...]))``.
Each keeps per-row state across the steps of one ``generate()`` call and reads
only the column added since the previous step; a new call (shorter or equal
``input_ids``, another batch size, or changed last tokens) starts fresh state.
Rows must keep their order between steps (greedy or sampled decoding; not beam
search, which reorders rows). Like transformers' own processors they return new scores
and leave their input (kept by ``generate`` as the raw logits) untouched. Requires
``transformers`` and ``torch``.
"""

from __future__ import annotations

from typing import Any

try:
    import torch
    from transformers import LogitsProcessor
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'toklane.integrations.transformers needs transformers and torch: pip install "toklane[torch]" transformers'
    ) from exc

from ..decoding import PenaltyState, ThinkingBudget
from ..tokenizer import Tokenizer, load_tokenizer

__all__ = ["PenaltyLogitsProcessor", "ThinkingBudgetLogitsProcessor"]


class _RowStream:
    """Splits each step's ``input_ids`` into the prompt (first call) and the new output columns."""

    def __init__(self) -> None:
        self.seen = 0
        self.batch = -1
        self.last: list[int] = []

    def advance(self, input_ids: torch.LongTensor) -> list[list[int]] | None:
        """``None`` on a fresh generation (the prompt is ``input_ids``), else the new columns per row."""
        batch, length = input_ids.shape
        fresh = batch != self.batch or length <= self.seen
        if not fresh and self.seen:
            fresh = input_ids[:, self.seen - 1].tolist() != self.last
        new = None if fresh else input_ids[:, self.seen :].tolist()
        self.batch, self.seen = batch, length
        self.last = input_ids[:, length - 1].tolist() if length else []
        return new


class ThinkingBudgetLogitsProcessor(LogitsProcessor):
    """Caps reasoning at ``max_thinking_tokens`` per row, forcing the format's end marker
    (see :class:`toklane.ThinkingBudget`; the prompt of each row is its ``input_ids`` at the
    first step, so a start marker pre-filled by the chat template counts)."""

    def __init__(self, tokenizer: Tokenizer | Any, reasoning: str = "qwen3", max_thinking_tokens: int | None = None):
        self.tokenizer = load_tokenizer(tokenizer)
        self.reasoning = reasoning
        self.max_thinking_tokens = max_thinking_tokens
        ThinkingBudget(self.tokenizer, reasoning, max_thinking_tokens, prompt_ids=())  # fail early on bad setup
        self._stream = _RowStream()
        self._budgets: list[ThinkingBudget] = []
        self._outputs: list[list[int]] = []

    @property
    def budgets(self) -> list[ThinkingBudget]:
        """One :class:`toklane.ThinkingBudget` per row of the current generation."""
        return self._budgets

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        new = self._stream.advance(input_ids)
        if new is None:
            self._budgets = [
                ThinkingBudget(self.tokenizer, self.reasoning, self.max_thinking_tokens, prompt_ids=row)
                for row in input_ids.tolist()
            ]
            self._outputs = [[] for _ in self._budgets]
        else:
            for out, cols in zip(self._outputs, new, strict=True):
                out.extend(cols)
        forced = [
            b
            for b, (budget, out) in enumerate(zip(self._budgets, self._outputs, strict=True))
            if budget.update(out) is not None
        ]
        if forced:
            scores = scores.clone()  # transformers keeps the input as the raw logits: never write to it
            for b in forced:
                self._budgets[b].apply(scores[b])
        return scores


class PenaltyLogitsProcessor(LogitsProcessor):
    """Repetition, frequency and presence penalties (see :class:`toklane.PenaltyState` for the
    semantics). The prompt of each row (its ``input_ids`` at the first step, padding included, as
    transformers' ``RepetitionPenaltyLogitsProcessor`` reads it) counts for the repetition penalty."""

    def __init__(self, presence_penalty: float = 0.0, frequency_penalty: float = 0.0, repetition_penalty: float = 1.0):
        self.penalties = {
            "presence_penalty": presence_penalty,
            "frequency_penalty": frequency_penalty,
            "repetition_penalty": repetition_penalty,
        }
        PenaltyState(1).add_request(0, [], **self.penalties)  # validate now
        self._stream = _RowStream()
        self._state: PenaltyState | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        new = self._stream.advance(input_ids)
        rows = range(input_ids.shape[0])
        if new is None or self._state is None:
            self._state = PenaltyState(scores.shape[-1])
            for b, prompt in zip(rows, input_ids.tolist(), strict=True):
                self._state.add_request(b, prompt, **self.penalties)
        else:
            for b, cols in zip(rows, new, strict=True):
                self._state.append(b, cols)
        return self._state.apply(scores.clone(), rows)  # transformers keeps the input as the raw logits
