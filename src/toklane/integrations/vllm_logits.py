"""toklane's thinking budget as a vLLM v1 logits processor.

``vllm serve MODEL --logits-processors toklane.integrations.vllm_logits:ThinkingBudgetLogitsProcessor``,
then per request ``SamplingParams(extra_args={"max_thinking_tokens": 256})`` (OpenAI API:
``"vllm_xargs": {"max_thinking_tokens": 256}``), optionally with ``"reasoning": "<format>"`` naming a
toklane reasoning format or a peer's alias. Tested with vLLM 0.33.

Each budgeted request runs one :class:`toklane.ThinkingBudget`: reasoning is capped at
``max_thinking_tokens`` (prompt tokens after a pre-filled start marker count, as vLLM counts), then
the format's end sequence is forced one token per step (every other logit ``-inf``, the forced one
``0``). What vLLM's built-in ``thinking_token_budget`` (which forces the ids of the reasoning
parser's end string) does not cover and this does:

* end markers made of ordinary tokens (OLMo 3's ``</think>`` in cl100k / Llama-3 vocabularies), matched
  on token bytes for every split (``" </" "think" ">\\n"``), so a model that closes reasoning itself
  is never forced again;
* multi-token forced endings whose text differs from the end marker (Harmony / gpt-oss: forces
  ``<|end|><|start|>assistant<|channel|>final<|message|>``), resumed from where the output already is;
* no per-format configuration: the markers come from the format.

The default reasoning format, used by requests that do not name one: the ``reasoning=`` constructor
argument, else ``$TOKLANE_REASONING``, else vLLM's ``--reasoning-parser`` when toklane knows it
(``toklane_<format>`` or a peer's name such as ``qwen3``, ``deepseek_r1``), else ``qwen3``. The
tokenizer is vLLM's (``model_config.tokenizer``), wrapped once by :func:`toklane.load_tokenizer`.

Per step the cost is O(budgeted requests x new tokens): rows without a budget are not visited, and
output ids are read from vLLM's live per-request lists in :meth:`apply` (after async scheduling has
replaced its ``-1`` placeholders; trailing placeholders are not read yet). Several tokens accepted in
one step, requests added (new or resumed, with their output so far), removed and moved (vLLM's
condense moves and swaps) are handled. A request whose format cannot be built for the model's
tokenizer (a marker the vocabulary lacks) runs without a budget, and the error is logged once per
format.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

try:
    import torch
    from vllm import SamplingParams
    from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("toklane.integrations.vllm_logits needs vLLM (tested with vllm==0.33.0)") from exc

from ..decoding.thinking import ThinkingBudget
from ..errors import ToklaneError, UnknownFormatError
from ..reasoning_markers import markers_for
from ..tokenizer import Tokenizer, load_tokenizer

if TYPE_CHECKING:
    from vllm.config import VllmConfig

__all__ = ["ENV_REASONING", "ThinkingBudgetLogitsProcessor"]

ENV_REASONING = "TOKLANE_REASONING"
_PREFIX = "toklane_"
_FALLBACK = "qwen3"
_BUDGET_KEY, _FORMAT_KEY = "max_thinking_tokens", "reasoning"
logger = logging.getLogger(__name__)


def _extra(params: SamplingParams) -> tuple[Any, Any]:
    extra = params.extra_args or {}
    return extra.get(_BUDGET_KEY), extra.get(_FORMAT_KEY)


def _known(name: str) -> bool:
    return markers_for(name) is not None


def _format_error(name: object) -> str:
    from ..parsing import reasoning_formats

    return str(UnknownFormatError("reasoning", str(name), reasoning_formats()))


def _engine_format(vllm_config: Any) -> str | None:
    """The format of vLLM's ``--reasoning-parser`` when toklane knows it (``toklane_`` prefix or not)."""
    for holder in ("structured_outputs_config", "reasoning_config"):
        name = getattr(getattr(vllm_config, holder, None), "reasoning_parser", None) or ""
        name = name[len(_PREFIX) :] if name.startswith(_PREFIX) else name
        if name and _known(name):
            return name
    return None


def _engine_tokenizer(vllm_config: Any) -> Any:
    from vllm.tokenizers.registry import cached_tokenizer_from_config

    model_config = getattr(vllm_config, "model_config", None)
    tok = cached_tokenizer_from_config(model_config) if model_config is not None else None
    if tok is None:
        raise ValueError(
            "ThinkingBudgetLogitsProcessor needs the model's tokenizer: drop --skip-tokenizer-init "
            "(or pass tokenizer= when constructing it yourself)"
        )
    return tok


class ThinkingBudgetLogitsProcessor(LogitsProcessor):
    """vLLM v1 logits processor: per request ``extra_args={"max_thinking_tokens": N[, "reasoning": fmt]}``.

    vLLM constructs it as ``cls(vllm_config, device, is_pin_memory)``; ``tokenizer=`` (anything
    :func:`toklane.load_tokenizer` takes) and ``reasoning=`` (the default format) are for callers that
    build it themselves, such as tests.
    """

    def __init__(
        self,
        vllm_config: VllmConfig | None,
        device: torch.device | str = "cpu",
        is_pin_memory: bool = False,
        *,
        tokenizer: Any = None,
        reasoning: str | None = None,
    ) -> None:
        explicit = reasoning or os.environ.get(ENV_REASONING) or None
        if explicit is not None and not _known(explicit):
            raise UnknownFormatError("reasoning", explicit, _reasoning_formats())
        self.default_reasoning: str = explicit or _engine_format(vllm_config) or _FALLBACK
        raw = tokenizer if tokenizer is not None else _engine_tokenizer(vllm_config)
        self._tok: Tokenizer = raw if type(raw) is Tokenizer else load_tokenizer(raw)
        self._device = torch.device(device)
        self._pin = bool(is_pin_memory) and self._device.type != "cpu"
        # batch index -> (budget, the request's live output list). Only budgeted requests are here.
        self._rows: dict[int, tuple[ThinkingBudget, list[int]]] = {}
        self._broken: set[str] = set()  # formats whose markers this tokenizer lacks (logged once)
        # Fail at startup, not on the first request, if the default format does not fit the tokenizer.
        ThinkingBudget(self._tok, self.default_reasoning, max_thinking_tokens=0)

    # ------------------------------------------------------------------ vLLM interface
    @classmethod
    def validate_params(cls, sampling_params: SamplingParams) -> None:
        budget, fmt = _extra(sampling_params)
        if budget is None:
            if fmt is not None:
                raise ValueError(f"extra_args {_FORMAT_KEY!r} needs {_BUDGET_KEY!r} (an int >= 0) beside it")
            return
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise ValueError(f"extra_args {_BUDGET_KEY!r} must be an int >= 0, got {budget!r}")
        if fmt is not None and (not isinstance(fmt, str) or not _known(fmt)):
            raise ValueError(f"extra_args {_FORMAT_KEY!r}: {_format_error(fmt)}")

    def is_argmax_invariant(self) -> bool:
        return False  # forcing a token changes the argmax

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if not batch_update:
            return
        rows = self._rows
        for index in batch_update.removed:
            rows.pop(index, None)
        for index, params, prompt_ids, output_ids in batch_update.added:
            budget = self._budget(params, prompt_ids)
            if budget is None:
                rows.pop(index, None)  # an added request may replace one at the same index
            else:
                rows[index] = (budget, output_ids)
        for a, b, direction in batch_update.moved:
            row_a = rows.pop(a, None)
            if direction == MoveDirectionality.SWAP:
                row_b = rows.pop(b, None)
                if row_b is not None:
                    rows[a] = row_b
            else:
                rows.pop(b, None)
            if row_a is not None:
                rows[b] = row_a

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        if not self._rows:
            return logits
        forced_rows: list[int] = []
        forced_ids: list[int] = []
        for index, (budget, output_ids) in self._rows.items():
            forced = budget.update(output_ids)
            if forced is not None:
                forced_rows.append(index)
                forced_ids.append(forced)
        if not forced_rows:
            return logits
        if len(forced_rows) == 1:
            row = logits[forced_rows[0]]
            row.fill_(float("-inf"))
            row[forced_ids[0]] = 0.0
            return logits
        rows = self._index(forced_rows, logits.device)
        logits.index_fill_(0, rows, float("-inf"))
        logits.index_put_((rows, self._index(forced_ids, logits.device)), logits.new_zeros(()))
        return logits

    # ------------------------------------------------------------------ helpers
    @property
    def tokenizer(self) -> Tokenizer:
        return self._tok

    def budgeted_rows(self) -> dict[int, ThinkingBudget]:
        """Batch index -> the request's :class:`toklane.ThinkingBudget` (budgeted requests only)."""
        return {i: b for i, (b, _) in self._rows.items()}

    def _index(self, values: Sequence[int], device: torch.device) -> torch.Tensor:
        t = torch.tensor(values, dtype=torch.long, pin_memory=self._pin)
        return t if device.type == "cpu" else t.to(device, non_blocking=True)

    def _budget(self, params: SamplingParams, prompt_ids: Sequence[int] | None) -> ThinkingBudget | None:
        budget, fmt = _extra(params)
        if budget is None:
            return None
        fmt = fmt or self.default_reasoning
        try:
            return ThinkingBudget(self._tok, fmt, max_thinking_tokens=budget, prompt_ids=prompt_ids)
        except (ToklaneError, TypeError, ValueError) as exc:  # validate_params rejects the others first
            if fmt not in self._broken:
                self._broken.add(fmt)
                logger.error("toklane thinking budget: requests with reasoning %r run without a budget: %s", fmt, exc)
            return None


def _reasoning_formats() -> list[str]:
    from ..parsing import reasoning_formats

    return list(reasoning_formats())
