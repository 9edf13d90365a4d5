"""StopMatcher: stop strings and stop token ids on the detokenized stream, O(new characters) per step."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import index as _as_index
from typing import Any

from ..streammatch import StreamMatcher
from ..tokenizer import Tokenizer
from .detokenizer import IncrementalDetokenizer
from .markers import automaton


@dataclass(frozen=True, slots=True)
class StopResult:
    """What one :meth:`StopMatcher.step` produced.

    ``text``: new output text, safe to show now (never text that may still
    turn out to be part of a stop string; once stopped, cut as described).
    ``stopped``: the request must stop; ``stop`` is the stop string or stop
    token id that matched. ``cut``: the length, in characters, of the whole
    output text (every ``text`` so far concatenated): where the output ends.
    ``stop_included``: whether the stop text is before ``cut`` (it is when
    ``include_stop_str_in_output``). ``token_index``: index, among all ids fed,
    of the token that completed the stop: keep the output ids up to and
    including it, discard the ids after it.
    """

    text: str
    stopped: bool = False
    stop: str | int | None = None
    cut: int | None = None
    stop_included: bool = False
    token_index: int | None = None


class StopMatcher:
    """Incremental stop detection for one request, on the text of its output ids.

    Ids go through an :class:`IncrementalDetokenizer` (held-back incomplete
    UTF-8 included), then the text through one Aho-Corasick matcher over every
    stop string, so a step costs O(new characters) and never looks back. Text
    that could be the start of a stop string is held back -- exactly the
    longest suffix that is a proper prefix of some stop string, not a fixed
    ``max(len(stop)) - 1`` -- and released once it cannot be.

    Semantics: the output stops at the *first point* where its text contains a
    stop string (earliest end; among stop strings ending there, the longest),
    or at the first id in ``stop_token_ids``, whichever comes first. The output
    text is cut before the stop text, or after it with
    ``include_stop_str_in_output`` (a stop token's text is its decoded text,
    empty for a skipped special token). Identical for every chunking of the ids.
    Pass ``tokenizer.eos_token_ids`` in ``stop_token_ids`` to stop at EOS.
    After a stop, further steps return empty text and the same stop.
    """

    __slots__ = ("_detok", "_emitted", "_final", "_held", "_include", "_m", "_stop_ids", "_tokens")

    def __init__(
        self,
        tokenizer: Tokenizer | Any,
        stop: Iterable[str] = (),
        stop_token_ids: Iterable[int] = (),
        *,
        include_stop_str_in_output: bool = False,
        skip_special_tokens: bool = False,
        prompt_ids: Sequence[int] | None = None,
    ):
        if isinstance(stop, str):
            stop = (stop,)
        stops = tuple(dict.fromkeys(stop))
        for s in stops:
            if not isinstance(s, str) or not s:
                raise ValueError(f"stop strings must be non-empty str, got {s!r}")
        self._detok = IncrementalDetokenizer(tokenizer, prompt_ids, skip_special_tokens)
        self._m = StreamMatcher(automaton(stops)) if stops else None
        ids = set()
        for i in stop_token_ids:
            if isinstance(i, bool):
                raise ValueError(f"stop token ids must be ints, got {i!r}")
            ids.add(_as_index(i))
        self._stop_ids = frozenset(ids)
        self._include = include_stop_str_in_output
        self._held = ""
        self._emitted = 0
        self._tokens = 0
        self._final: StopResult | None = None

    @property
    def stopped(self) -> bool:
        return self._final is not None

    @property
    def result(self) -> StopResult | None:
        """The stop (with empty ``text``), once stopped."""
        return self._final

    @property
    def held_text(self) -> str:
        """Text held back because it could be the start of a stop string."""
        return self._held

    def step(self, new_ids: Iterable[int] | Any) -> StopResult:
        """Feed newly generated ids; every id is validated before any state changes."""
        if self._final is not None:
            return self._final
        ids = self._detok.id_list(new_ids)
        pieces = self._detok.pieces(ids)
        detok, stop_ids, out = self._detok, self._stop_ids, []
        base = self._tokens
        for k, data in enumerate(pieces):
            at = base + k
            if stop_ids and ids[k] in stop_ids:
                self._tokens = at + 1
                # The stream ends at the stop token: bytes of an unfinished character before it end as U+FFFD.
                if self._feed(detok.decode_bytes(b"", final=True), at, out):
                    return self._result(out)
                text = detok.decode_bytes(data, final=True)
                out.append(self._held)
                self._emitted += len(self._held)
                self._held = ""
                if self._include:
                    out.append(text)
                    self._emitted += len(text)
                self._final = StopResult("", True, int(ids[k]), self._emitted, self._include, at)
                return self._result(out)
            if self._feed(detok.decode_bytes(data), at, out):
                self._tokens = at + 1
                return self._result(out)
        self._tokens = base + len(pieces)
        return StopResult("".join(out))

    def feed_text(self, text: str) -> StopResult:
        """Feed text directly (for engines that detokenize themselves); stop token ids do not apply."""
        if self._final is not None:
            return self._final
        out: list[str] = []
        if self._feed(text, None, out):
            return self._result(out)
        return StopResult("".join(out))

    def flush(self) -> StopResult:
        """End of the stream: unfinished characters become U+FFFD, held-back text is released."""
        if self._final is not None:
            return self._final
        out: list[str] = []
        if self._feed(self._detok.flush(), self._tokens - 1 if self._tokens else None, out):
            return self._result(out)
        out.append(self._held)
        self._emitted += len(self._held)
        self._held = ""
        return StopResult("".join(out))

    def _result(self, out: list[str]) -> StopResult:
        final = self._final
        assert final is not None
        return StopResult("".join(out), True, final.stop, final.cut, final.stop_included, final.token_index)

    def _feed(self, piece: str, token_index: int | None, out: list[str]) -> bool:
        """Match ``piece``; append what can be shown to ``out``; True once a stop string matched."""
        if not piece:
            return False
        m = self._m
        if m is None:
            out.append(piece)
            self._emitted += len(piece)
            return False
        held = self._held
        hit = m.search(piece)
        buf = held + piece if held else piece
        if hit is None:
            keep = m.partial
            show = buf[: len(buf) - keep] if keep else buf
            self._held = buf[len(buf) - keep :] if keep else ""
            out.append(show)
            self._emitted += len(show)
            return False
        end = len(held) + hit.end
        show = buf[:end] if self._include else buf[: max(0, end - hit.length)]
        self._held = ""
        out.append(show)
        self._emitted += len(show)
        stop = m.automaton.patterns[hit.pattern]
        self._final = StopResult("", True, stop, self._emitted, self._include, token_index)
        return True
