"""PenaltyState: repetition, frequency and presence penalties for a batch, O(new tokens) per step."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from operator import index
from typing import Any

import numpy as np

from .detokenizer import as_id_list


class _Request:
    """One request's seen tokens as a sparse set: slot -> token id, output count and penalty terms.

    Slots ``[0, n_prompt)`` hold the distinct prompt tokens (count = occurrences
    in the output, maybe 0); slots ``[n_prompt, size)`` hold tokens seen only in
    the output (count >= 1), removed again by rollback when their count drops to 0.
    Beside each count, kept up to date by append/rollback (O(new tokens)), the two
    terms :meth:`PenaltyState.apply` subtracts: ``fc = float32(f * count)`` and
    ``pm = p if count else 0`` -- the very values the dense formula computes, so
    apply does no per-token arithmetic for them.
    """

    __slots__ = ("cnt", "f", "fc", "n_prompt", "neutral", "out", "p", "pm", "rep", "rp", "size", "slot", "tok")

    def __init__(self, prompt: np.ndarray, presence: float, frequency: float, repetition: float):
        distinct = np.unique(prompt)
        n = len(distinct)
        cap = max(64, 2 * n)
        self.tok = np.empty(cap, dtype=np.intp)
        self.tok[:n] = distinct
        self.fc = np.zeros(cap, dtype=np.float32)
        self.pm = np.zeros(cap, dtype=np.float32)
        self.cnt: list[int] = [0] * n  # output count per slot
        self.size = self.n_prompt = n
        self.slot: dict[int, int] = dict(zip(distinct.tolist(), range(n), strict=True))
        self.out: list[int] = []
        self.rp = np.float32(repetition)
        self.f = np.float32(frequency) if frequency != 0.0 else None
        self.p = np.float32(presence) if presence != 0.0 else None
        self.rep = repetition != 1.0
        self.neutral = not self.rep and frequency == 0.0 and presence == 0.0

    def grow(self) -> None:
        cap = 2 * len(self.tok)
        size = self.size
        tok = np.empty(cap, dtype=np.intp)
        fc = np.zeros(cap, dtype=np.float32)
        pm = np.zeros(cap, dtype=np.float32)
        tok[:size] = self.tok[:size]
        fc[:size] = self.fc[:size]
        pm[:size] = self.pm[:size]
        self.tok, self.fc, self.pm = tok, fc, pm


class PenaltyState:
    """Sampling penalties for every request of a batch, kept incrementally and applied sparsely.

    Semantics (vLLM's and the OpenAI API's), applied by :meth:`apply` to each
    request's row of logits, in this order:

    1. **repetition** ``p`` (1.0 = off), on every token seen in the prompt *or*
       the output: ``logit / p`` if ``logit > 0`` else ``logit * p``;
    2. **frequency** ``f``: ``logit -= f * count_in_output``;
    3. **presence** ``q``: ``logit -= q * (count_in_output > 0)``.

    Per request, the distinct tokens seen and their output counts live in a
    sparse set updated by :meth:`append` / :meth:`rollback` in O(new tokens);
    :meth:`apply` touches only those tokens (gather, penalise, scatter): no
    ``[batch, length]`` tensor rebuilt from lists, no ``[batch, vocab]`` pass.

    ``apply`` takes a ``[len(rids), V]`` float array (``V >= vocab_size``): a
    numpy array, or a torch tensor when torch is installed (CPU tensors are
    viewed as numpy; other devices and dtypes use torch indexing on the device).
    Negative ids given to :meth:`append` are placeholders (async scheduling)
    and are skipped. Not thread-safe: one owner (the sampler) per instance.
    """

    def __init__(self, vocab_size: int):
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 0:
            raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
        self.vocab_size = vocab_size
        self._reqs: dict[Hashable, _Request] = {}

    def __len__(self) -> int:
        return len(self._reqs)

    def __contains__(self, rid: Hashable) -> bool:
        return rid in self._reqs

    # ------------------------------------------------------------------ requests
    def add_request(
        self,
        rid: Hashable,
        prompt_ids: Sequence[int] | Any,
        presence_penalty: float = 0.0,
        frequency_penalty: float = 0.0,
        repetition_penalty: float = 1.0,
    ) -> None:
        """Start tracking a request (its prompt counts for the repetition penalty only)."""
        if rid in self._reqs:
            raise ValueError(f"request {rid!r} is already tracked")
        for name, value in (("presence_penalty", presence_penalty), ("frequency_penalty", frequency_penalty)):
            if not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}")
        if not (math.isfinite(repetition_penalty) and repetition_penalty > 0):
            raise ValueError(f"repetition_penalty must be > 0, got {repetition_penalty!r}")
        prompt = np.asarray(
            _id_list(prompt_ids, "prompt_ids", rid) if not isinstance(prompt_ids, np.ndarray) else prompt_ids
        )
        if prompt.size:
            if prompt.dtype.kind not in "iu":
                raise ValueError(f"prompt ids must be integers, got dtype {prompt.dtype}")
            if prompt.min() < 0 or prompt.max() >= self.vocab_size:
                raise ValueError(f"prompt ids must be in 0..{self.vocab_size - 1}")
        else:
            prompt = np.empty(0, dtype=np.intp)
        self._reqs[rid] = _Request(prompt.ravel(), presence_penalty, frequency_penalty, repetition_penalty)

    def remove(self, rid: Hashable) -> None:
        """Stop tracking a request."""
        self._get(rid)
        del self._reqs[rid]

    def _get(self, rid: Hashable) -> _Request:
        req = self._reqs.get(rid)
        if req is None:
            raise KeyError(f"unknown request {rid!r}: add it with add_request() first")
        return req

    def append(self, rid: Hashable, new_ids: Sequence[int] | Any) -> None:
        """Count newly generated ids (negative placeholders are skipped). O(len(new_ids))."""
        req = self._get(rid)
        ids = _id_list(new_ids, "new_ids", rid)
        size = self.vocab_size
        for i in ids:
            if type(i) is not int or i >= size:
                ids = _checked(ids, size, rid)
                break
        slot, out, cnt, f, p = req.slot, req.out, req.cnt, req.f, req.p
        for i in ids:
            if i < 0:
                continue
            s = slot.get(i)
            if s is None:
                s = req.size
                if s == len(req.tok):
                    req.grow()
                slot[i] = s
                req.tok[s] = i
                req.size = s + 1
                cnt.append(0)
            c = cnt[s] + 1
            cnt[s] = c
            if f is not None:
                req.fc[s] = f * c  # float32 times a Python int: a float32 product, as f * counts
            if p is not None and c == 1:
                req.pm[s] = p
            out.append(i)

    def rollback(self, rid: Hashable, num_tokens: int) -> None:
        """Forget the last ``num_tokens`` output ids (speculative-decoding rejection). O(num_tokens)."""
        req = self._get(rid)
        out = req.out
        if not 0 <= num_tokens <= len(out):
            raise ValueError(f"cannot roll back {num_tokens} tokens: request {rid!r} has {len(out)} output tokens")
        slot, tok, fc, pm, cnt, f = req.slot, req.tok, req.fc, req.pm, req.cnt, req.f
        for _ in range(num_tokens):
            i = out.pop()
            s = slot[i]
            c = cnt[s] - 1
            cnt[s] = c
            if f is not None:
                fc[s] = f * c
            if c:
                continue
            pm[s] = 0.0
            if s >= req.n_prompt:  # seen nowhere now: swap-remove the slot
                last = req.size - 1
                if s != last:
                    moved = int(tok[last])
                    tok[s], fc[s], pm[s], cnt[s] = moved, fc[last], pm[last], cnt[last]
                    slot[moved] = s
                fc[last] = pm[last] = 0.0
                cnt.pop()
                del slot[i]
                req.size = last

    def output_counts(self, rid: Hashable) -> dict[int, int]:
        """``{token id: count in the output}`` of a request (for inspection and tests)."""
        req = self._get(rid)
        return {int(t): c for t, c in zip(req.tok[: req.size].tolist(), req.cnt, strict=True) if c}

    def num_output_tokens(self, rid: Hashable) -> int:
        return len(self._get(rid).out)

    # ------------------------------------------------------------------ apply
    def apply(self, logits: Any, rids: Sequence[Hashable]) -> Any:
        """Penalise ``logits[b]`` for request ``rids[b]``, in place; returns ``logits``."""
        is_numpy = isinstance(logits, np.ndarray)
        if not is_numpy and type(logits).__module__.split(".")[0] != "torch":
            raise TypeError(f"logits must be a numpy array or a torch tensor, got {type(logits).__name__}")
        reqs = [self._get(rid) for rid in rids]
        shape = tuple(logits.shape)
        if len(shape) != 2 or shape[0] != len(reqs):
            raise ValueError(f"logits must have shape [len(rids)={len(reqs)}, V], got {list(shape)}")
        if shape[1] < self.vocab_size:
            raise ValueError(f"logits have {shape[1]} columns, fewer than vocab_size={self.vocab_size}")
        if is_numpy:
            _apply_rows(logits, reqs)
        else:
            _apply_torch(logits, reqs)
        return logits


def _id_list(value: Any, field: str, rid: Hashable) -> list[Any]:
    """:func:`as_id_list`, its ``TypeError`` (``None``, a float, a string) a ``ValueError`` naming the field."""
    try:
        return as_id_list(value)
    except TypeError as exc:
        raise ValueError(f"{field}: {exc} (request {rid!r})") from None


def _checked(ids: list[Any], size: int, rid: Hashable) -> list[int]:
    """``ids`` as Python ints (numpy integers accepted), each below ``size``; raises before any change."""
    out = []
    for i in ids:
        try:
            if isinstance(i, bool):
                raise TypeError
            i = index(i)
        except TypeError:
            raise ValueError(f"token id {i!r} is not an integer (request {rid!r})") from None
        if i >= size:
            raise ValueError(f"token id {i} out of range 0..{size - 1} (request {rid!r})")
        out.append(i)
    return out


def _apply_rows(logits: np.ndarray, reqs: list[_Request]) -> None:
    """Numpy: per row, gather the seen tokens' logits, penalise them, scatter them back.

    The gather and scatter touch one cache line per seen token, scattered over the row: that
    memory traffic is the floor, and the arithmetic between them is kept to a few branch-free
    passes (measured: one row per call costs no more than batching rows into flat chunks)."""
    minimum, maximum, subtract = np.minimum, np.maximum, np.subtract
    for b, req in enumerate(reqs):
        size = req.size
        if req.neutral or not size:
            continue
        idx = req.tok[:size]
        row = logits[b]
        v = row[idx]
        if req.rep:
            # logit / rp where logit > 0, else logit * rp. Division and multiplication round
            # monotonically around the (representable) logit, so for rp > 1 that is exactly
            # min(logit / rp, logit * rp) and for rp < 1 exactly the max -- zeros, infinities and
            # NaN included: two branch-free passes, where np.where over the data-dependent sign
            # mask costs several times the arithmetic.
            rp = req.rp
            v = (minimum if rp > 1 else maximum)(v / rp, v * rp)
        if req.f is not None:
            subtract(v, req.fc[:size], out=v)  # logit -= f * count
        if req.p is not None:
            subtract(v, req.pm[:size], out=v)  # logit -= p * (count > 0)
        row[idx] = v


def _flat(reqs: list[_Request]) -> tuple[np.ndarray, ...]:
    """The batch's seen tokens as flat arrays: row, column, repetition factor and the two subtracted terms."""
    live = [(b, r) for b, r in enumerate(reqs) if not r.neutral and r.size]
    if not live:
        empty = np.empty(0, dtype=np.float32)
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), empty, empty, empty
    sizes = np.fromiter((r.size for _, r in live), dtype=np.int64, count=len(live))
    rows = np.repeat(np.fromiter((b for b, _ in live), dtype=np.int64, count=len(live)), sizes)
    cols = np.concatenate([r.tok[: r.size] for _, r in live]).astype(np.int64, copy=False)
    fc = np.concatenate([r.fc[: r.size] for _, r in live])
    pm = np.concatenate([r.pm[: r.size] for _, r in live])
    rp = np.repeat(np.array([r.rp for _, r in live], dtype=np.float32), sizes)
    return rows, cols, rp, fc, pm


def _apply_torch(logits: Any, reqs: list[_Request]) -> None:
    import torch

    if logits.device.type == "cpu" and logits.dtype in (torch.float32, torch.float64, torch.float16):
        _apply_rows(logits.detach().numpy(), reqs)  # shares memory: in place
    else:
        _apply_torch_flat(logits, reqs)


def _apply_torch_flat(logits: Any, reqs: list[_Request]) -> None:
    """Torch on any device and dtype: one gather, one penalty pass, one scatter for the whole batch."""
    import torch

    rows, cols, rp, fc, pm = _flat(reqs)
    if not len(rows):
        return
    dev = logits.device

    def put(a: np.ndarray) -> Any:
        return torch.from_numpy(a).to(dev, non_blocking=True)

    r, c = put(rows), put(cols)
    rp_t, fc_t, pm_t = put(rp), put(fc), put(pm)
    v = logits[r, c].float()
    v = torch.where(v > 0, v / rp_t, v * rp_t)
    v = v - fc_t - pm_t
    logits[r, c] = v.to(logits.dtype)
