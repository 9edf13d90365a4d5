"""ThinkingBudget: cap the tokens a request spends reasoning, forcing the end marker one token per step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import UnknownFormatError
from ..parsing.tables import SUFFIX, resolve_suffix
from ..reasoning_markers import ReasoningMarkers, markers_for
from ..streammatch import Automaton
from ..tokenizer import Tokenizer
from ._symbols import TokenSymbols, token_symbols
from .markers import MarkerScanner, _safe_id_symbols, automaton

_NEG_INF = float("-inf")


@dataclass(frozen=True)
class ThinkingMarker:
    """One marker compiled for one tokenizer: its matcher pattern, in id space or byte space."""

    text: str
    pattern: str
    auto: Automaton[str]
    symbols: TokenSymbols | None  # None: id space (one symbol per token)

    def scanner(self, start: int) -> MarkerScanner:
        return MarkerScanner._compiled(self.auto, self.symbols, start)

    def begins(self, output_ids: Any, n: int) -> tuple[int | None, int]:
        """(end, ids read): ``end`` is the index just past the token completing this marker if the
        output's first symbols spell it, -1 if they do not, ``None`` while undecided."""
        pattern, acc = self.pattern, ""
        for k in range(n):
            i = int(output_ids[k])
            if i < 0:
                return None, k
            acc += _safe_id_symbols([i]) if self.symbols is None else self.symbols.symbol(i)
            if len(acc) >= len(pattern):
                return (k + 1 if acc.startswith(pattern) else -1), k + 1
            if not pattern.startswith(acc):
                return -1, k + 1
        return None, n

    def last_in(self, ids: list[int], lo: int) -> tuple[int, int] | None:
        """(start, end) token indices of the last occurrence inside ``ids`` (which begins at ``lo``)."""
        sym = _safe_id_symbols if self.symbols is None else self.symbols.symbols
        at = sym(ids).rfind(self.pattern)
        if at < 0:
            return None
        if self.symbols is None:
            return lo + at, lo + at + len(self.pattern)
        start = end = -1
        acc = 0
        for k, i in enumerate(ids):
            acc += len(sym([i]))
            if start < 0 and acc > at:
                start = lo + k
            if acc >= at + len(self.pattern):
                end = lo + k + 1
                break
        return start, end


def _compile_marker(sym: TokenSymbols, text: str) -> ThinkingMarker:
    ids = sym.added_only(text)
    if ids is not None:
        pattern = "".join(map(chr, ids))
        return ThinkingMarker(text, pattern, automaton((pattern,)), None)
    pattern = sym.pattern(text)
    return ThinkingMarker(text, pattern, automaton((pattern,)), sym)


@dataclass(frozen=True)
class ThinkingPlan:
    """A reasoning format's markers for one tokenizer: start (if any) and end compiled, and the ids
    that force the end of reasoning."""

    markers: ReasoningMarkers
    start: ThinkingMarker | None
    end: ThinkingMarker
    force: tuple[int, ...]


def thinking_plan(tokenizer: Tokenizer | Any, reasoning: str) -> ThinkingPlan:
    """``reasoning``'s markers compiled for ``tokenizer`` (built once per tokenizer and format): a
    marker the tokenizer cannot spell, or an unknown format, raises here, at setup."""
    markers = markers_for(reasoning)
    if markers is None:
        from ..parsing import reasoning_formats

        raise UnknownFormatError("reasoning", reasoning, reasoning_formats())
    sym = token_symbols(tokenizer)

    def build() -> ThinkingPlan:
        found = _resolved(markers, sym)
        start = _compile_marker(sym, found.start) if found.start else None
        force = sym.token_ids(found.budget_end, f"forcing the end of {reasoning} reasoning")
        return ThinkingPlan(found, start, _compile_marker(sym, found.end), force)

    return sym.compiled(f"reasoning:{reasoning}", build)


def _resolved(markers: ReasoningMarkers, sym: TokenSymbols) -> ReasoningMarkers:
    """``markers`` with a token-suffix placeholder (:data:`~toklane.parsing.tables.SUFFIX`) resolved from
    the tokenizer's added tokens: every templated text must then be one added token."""
    texts = [t for t in (markers.start, markers.end, markers.budget_end) if t and SUFFIX in t]
    if not texts:
        return markers
    suffix = resolve_suffix(dict.fromkeys(texts, f"{markers.name} reasoning marker"), sym._added_by_content, sym.name)
    start = markers.start.replace(SUFFIX, suffix) if markers.start else markers.start
    end, budget_end = markers.end.replace(SUFFIX, suffix), markers.budget_end.replace(SUFFIX, suffix)
    return replace(markers, start=start, end=end, budget_end=budget_end)


def prompt_state(plan: ThinkingPlan, prompt: Any) -> tuple[bool, int, bool]:
    """(inside reasoning at the end of the prompt, prompt tokens after the start, decided by implicit_start).

    Searches backwards in growing windows, so the usual case (a start marker
    pre-filled at the end of the prompt) reads only the prompt's tail."""
    n = len(prompt)
    width = 64
    while True:
        lo = max(0, n - width)
        window = prompt[lo:n]
        window = window.tolist() if hasattr(window, "tolist") else list(window)
        start = plan.start.last_in(window, lo) if plan.start else None
        end = plan.end.last_in(window, lo)
        if start or end or lo == 0:
            break
        width *= 4
    if start is None and end is None:
        return plan.markers.implicit_start, 0, True
    if start is not None and (end is None or start[0] > end[0]):
        return True, n - start[1], False
    return False, 0, False


class ThinkingBudget:
    """Per request: caps reasoning at ``max_thinking_tokens``, then forces the end of reasoning.

    Markers come from :func:`toklane.reasoning_markers.markers_for`
    (``reasoning`` names a reasoning format or its alias): reasoning ends at ``end``; to close
    it early the budget forces ``budget_end`` one token per step (Qwen3:
    ``</think>``; gpt-oss: ``<|end|><|start|>assistant<|channel|>final<|message|>``).
    Markers with a token-suffix placeholder (Hunyuan's ``<think{suffix}>``) are resolved
    from the tokenizer's added tokens once per tokenizer
    (:func:`toklane.parsing.tables.resolve_suffix`).

    Semantics (the tests hold a from-scratch reference to them):

    * **Where reasoning starts.** With ``prompt_ids``: inside reasoning if the
      prompt's last start marker comes after its last end marker (a start
      pre-filled by the chat template counts), outside if an end comes last.
      With no prompt, or a prompt holding neither marker: inside for formats
      with ``implicit_start`` (if the output's text itself begins with the
      start marker, ending within the budget, counting begins after it), else
      reasoning starts after the first start marker in the output.
    * **Counting.** Thinking tokens are the tokens after the start marker, the
      prompt's included (as vLLM and SGLang count). When ``max_thinking_tokens``
      have been counted and reasoning has not ended, the budget forces
      ``budget_end``: :meth:`update` returns the id the engine must emit next.
      If the output already ends with the first tokens of that sequence, forcing
      continues from there. Reasoning ends when the output completes the forced
      sequence, or, before forcing starts, when the model writes ``end`` itself.
    * **Steps.** :meth:`update` takes the whole output each step (list, numpy
      array or torch tensor) and reads only what is new: several tokens accepted
      at once (speculative decoding) are handled token by token; trailing
      negative placeholders (async scheduling) are not read yet; output that
      shrank is re-read from the shrink point (announce a shrink followed by
      regrowth with :meth:`rollback`/:meth:`truncate`).

    No ``encode``/``decode``: markers are matched by id (added tokens) or on the
    cached token bytes (every split of ``</think>`` in cl100k-style vocabularies),
    and the forced ids are computed once per tokenizer and cached.
    """

    __slots__ = (
        "_anchor",
        "_anchor_used",
        "_anchored",
        "_base",
        "_budget",
        "_done_at",
        "_end_scan",
        "_fast_until",
        "_forced",
        "_plan",
        "_pos",
        "_prog",
        "_prog_at",
        "_stale",
        "_start_scan",
        "_think_from",
    )

    def __init__(
        self,
        tokenizer: Tokenizer | Any,
        reasoning: str = "qwen3",
        max_thinking_tokens: int | None = None,
        prompt_ids: Sequence[int] | Any | None = None,
    ):
        if max_thinking_tokens is None:
            raise TypeError("ThinkingBudget() needs max_thinking_tokens")
        if isinstance(max_thinking_tokens, bool) or not isinstance(max_thinking_tokens, int):
            raise TypeError(f"max_thinking_tokens must be an int, got {max_thinking_tokens!r}")
        if max_thinking_tokens < 0:
            raise ValueError(f"max_thinking_tokens must be >= 0, got {max_thinking_tokens}")
        self._plan = plan = thinking_plan(tokenizer, reasoning)
        self._budget = max_thinking_tokens
        if prompt_ids is None:
            inside, base, implicit = plan.markers.implicit_start, 0, True
        else:
            inside, base, implicit = prompt_state(plan, prompt_ids)
        self._base = base
        self._start_scan = plan.start.scanner(0) if plan.start and not inside else None
        self._anchor = plan.start if plan.start and inside and implicit else None
        self._anchored: int | None = None  # where thinking starts after an initial start marker (0: none)
        self._anchor_used = 0  # output ids that decision read
        self._think_from = 0 if inside else -1
        self._end_scan = plan.end.scanner(0) if inside else None
        self._done_at = -1
        self._prog = 0
        self._prog_at = -1
        self._pos = 0
        self._stale: int | None = None
        self._forced: int | None = None
        self._fast_until = -1  # update() may take its fast path while the output is shorter than this
        if inside:
            self._advance((), 0)

    # ------------------------------------------------------------------ state
    @property
    def forced_token(self) -> int | None:
        """The id the engine must emit next (from the last :meth:`update`), or ``None``."""
        return self._forced

    @property
    def force_sequence(self) -> tuple[int, ...]:
        """The ids forced to close reasoning (``budget_end`` of the format)."""
        return self._plan.force

    @property
    def state(self) -> str:
        """``"before"`` (reasoning not started), ``"thinking"``, ``"forcing"`` or ``"done"``."""
        if self._done_at >= 0:
            return "done"
        if self._think_from < 0:
            return "before"
        return "forcing" if self._forced is not None else "thinking"

    @property
    def reasoning_end(self) -> int:
        """Output index just past the end of reasoning, or -1 while it has not ended."""
        return self._done_at

    @property
    def thinking_tokens(self) -> int:
        """Tokens since the reasoning start (the prompt's included) up to now or to the end of reasoning."""
        if self._think_from < 0:
            return 0
        stop = self._done_at if self._done_at >= 0 else self._pos
        return self._base + max(0, stop - self._think_from)

    # ------------------------------------------------------------------ per step
    def update(self, output_ids: Sequence[int] | Any) -> int | None:
        """Read what is new in the output; the id to force at the next position, or ``None``."""
        n = len(output_ids)
        if n == self._pos + 1 and n < self._fast_until and self._stale is None and output_ids[n - 1] >= 0:
            # The usual step while thinking: one new id, the budget not reached, only the end marker to watch.
            self._pos = n
            if self._end_scan.update(output_ids) < 0:  # type: ignore[union-attr]
                return None
        while n and output_ids[n - 1] < 0:  # placeholders of tokens not sampled yet
            n -= 1
        if self._stale is not None:
            self._rewind(min(self._stale, n))
        elif n < self._pos:
            self._rewind(n)
        self._pos = n
        self._advance(output_ids, n)
        return self._forced

    def truncate(self, length: int) -> None:
        """The output was cut to ``length`` ids (it may grow again before the next :meth:`update`)."""
        if length < 0:
            raise ValueError("length must be >= 0")
        if length < self._pos:
            self._stale = length if self._stale is None else min(self._stale, length)

    def rollback(self, num_tokens: int) -> None:
        """The last ``num_tokens`` ids read were removed from the output."""
        if num_tokens < 0:
            raise ValueError("num_tokens must be >= 0")
        pos = self._pos if self._stale is None else self._stale
        self.truncate(max(0, pos - num_tokens))

    def apply(self, logits_row: Any) -> Any:
        """Mask a logits row (numpy or torch, 1-D) so that only the forced id can be sampled; in place."""
        forced = self._forced
        if forced is not None:
            logits_row[...] = _NEG_INF
            logits_row[forced] = 0.0
        return logits_row

    def _rewind(self, length: int) -> None:
        self._stale = None
        self._fast_until = -1
        for scanner in (self._start_scan, self._end_scan):
            if scanner is not None:
                scanner.truncate(length)
        if length < self._anchor_used:
            self._anchored, self._anchor_used = None, 0
        if self._done_at > length:
            self._done_at = -1
        if self._start_scan is not None and self._think_from > length:
            self._think_from = -1
            self._end_scan = None
        if self._prog_at > length:
            self._prog_at = -1
        self._pos = length

    def _advance(self, output_ids: Any, n: int) -> None:
        self._forced = None
        self._fast_until = -1
        if self._done_at >= 0:
            return
        plan = self._plan
        if self._think_from < 0:
            assert self._start_scan is not None
            if self._start_scan.update(output_ids) < 0:
                return
            self._think_from = self._start_scan.end
            self._end_scan = plan.end.scanner(self._think_from)
        elif self._anchor is not None:
            # Implicit start: output that itself begins with the start marker counts from after it.
            if self._anchored is None:
                end, self._anchor_used = self._anchor.begins(output_ids, n)
                if end is not None:
                    self._anchored = end if 0 < end <= self._budget else 0
            self._think_from = self._anchored or 0
        force_from = self._think_from + max(0, self._budget - self._base)
        end_scan = self._end_scan
        assert end_scan is not None
        if end_scan.update(output_ids) >= 0 and end_scan.end <= force_from:
            self._done_at = end_scan.end
            return
        if n < force_from:
            if self._anchor is None or self._anchored is not None:  # where thinking starts is settled
                self._fast_until = force_from
            return
        force = plan.force
        if self._prog_at < force_from:
            self._prog = _resume(force, output_ids, force_from, self._think_from)
            self._prog_at = force_from
        prog = self._prog
        for at in range(self._prog_at, n):
            prog = _advance_match(force, prog, int(output_ids[at]))
            if prog == len(force):
                self._done_at = self._prog_at = at + 1
                self._prog = prog
                return
        self._prog, self._prog_at = prog, n
        self._forced = force[prog]


def _resume(force: tuple[int, ...], output_ids: Any, at: int, lo: int) -> int:
    """Length of the longest proper prefix of ``force`` that the output ends with at ``at`` (within thinking)."""
    for k in range(min(len(force) - 1, at - lo), 0, -1):
        tail = output_ids[at - k : at]
        tail = tail.tolist() if hasattr(tail, "tolist") else list(tail)
        if tuple(tail) == force[:k]:
            return k
    return 0


def _advance_match(force: tuple[int, ...], prog: int, token: int) -> int:
    """How much of ``force`` the output ends with after ``token`` (it ended with ``prog`` of it)."""
    if force[prog] == token:
        return prog + 1
    seq = (*force[:prog], token)
    for k in range(min(len(seq), len(force) - 1), 0, -1):
        if seq[-k:] == force[:k]:
            return k
    return 0
