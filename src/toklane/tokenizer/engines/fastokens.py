"""fastokens: a ``tokenizer.json`` engine (Rust, PCRE2-JIT, backtracking BPE) behind toklane's guarantees.

fastokens (PyPI ``fastokens``) reads a HF ``tokenizer.json`` and encodes it exactly as HF
``tokenizers`` does for the pipelines :func:`.choose.fastokens_refusal` accepts (tested with
hypothesis over generated pipelines and texts, and on corpora: ``tests/tokenizer/test_user_files.py``),
3-100x faster. Around it:

* totality: a lone surrogate is read as U+FFFD (as every toklane engine reads it; fastokens refuses
  it); any other failure -- a PCRE2 match or depth limit on adversarial input, a Rust panic -- sends
  that call to the exact engine it replaced (kept beside it), never an error for the user;
* the GIL: fastokens releases it while it encodes and while it builds;
* threads: one private instance that nothing can mutate (no truncation, padding or added tokens
  are ever set on it), shared read-only by every thread.

Building one takes ~14 us per vocabulary entry (1.8 s for DeepSeek-V4's 129K, ~6x HF
``tokenizers``), which is why :mod:`.staged` builds it in the background, once it pays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ..files import is_engine_failure
from .base import AddedToken, Backend, flatten

_SURROGATE = re.compile("[\ud800-\udfff]")


def _replaced(texts: Any) -> Any:
    """A text, or a list of texts, with each lone surrogate read as U+FFFD."""
    if isinstance(texts, str):
        return _SURROGATE.sub("\ufffd", texts)
    return [_SURROGATE.sub("\ufffd", t) for t in texts]


def available() -> bool:
    """Whether fastokens can be imported."""
    try:
        import fastokens  # noqa: F401
    except ImportError:
        return False
    return True


def build_seconds(tokens: int) -> float:
    """The CPU seconds building fastokens over ``tokens`` vocabulary entries is expected to take
    (measured here: 0.36 s for 50K entries, 1.8 s for 129K; the estimate errs high)."""
    return 0.05 + 15e-6 * tokens


class FastokensBackend:
    """A private ``fastokens.Tokenizer`` over ``tokenizer.json`` text, beside the exact engine it replaces."""

    engine = "fastokens"

    def __init__(self, tokenizer_json: str, exact: Backend, *, decodes: bool = True):
        """``exact``: the backend this one replaces, over the same file: it takes every call fastokens
        fails, and its added tokens and vocabulary tables are this one's. ``decodes``: whether fastokens
        decodes too (a ByteLevel decoder); else ``exact`` does (HF and fastokens differ on special
        tokens' text through SentencePiece-style decoders)."""
        import fastokens

        self._tok = fastokens.Tokenizer.from_json_str(tokenizer_json)
        self._tok.no_truncation()
        self._tok.no_padding()
        self.exact = exact
        self._decodes = decodes
        self.added_tokens: tuple[AddedToken, ...] = exact.added_tokens

    def _run(self, call: Callable[[Any], Any], texts: Any, on_exact: Callable[[Backend], Any]) -> Any:
        try:
            return call(texts)
        except UnicodeEncodeError:  # a lone surrogate: read as U+FFFD, as every toklane engine reads it
            texts = _replaced(texts)
            try:
                return call(texts)
            except BaseException as exc:
                if not is_engine_failure(exc):
                    raise
        except BaseException as exc:
            if not is_engine_failure(exc):
                raise
        return on_exact(self.exact)

    # encode ------------------------------------------------------------------
    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        tok = self._tok
        return self._run(
            lambda t: tok.encode(t, False, split_special_tokens).ids,
            text,
            lambda exact: exact.encode(text, split_special_tokens),
        )

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        tok = self._tok
        return self._run(
            lambda ts: [e.ids for e in tok.encode_batch(ts, False, split_special_tokens)],
            texts,
            lambda exact: exact.encode_batch(texts, split_special_tokens),
        )

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        import numpy as np

        tok = self._tok

        def flat(ts: list[str]) -> tuple[Any, Any]:
            ids, offsets = tok.encode_batch_flat(ts, False, split_special_tokens)
            return np.frombuffer(ids, dtype="<u4").copy(), np.frombuffer(offsets, dtype="<u8").astype(np.int64)

        return self._run(flat, texts, lambda exact: flatten(exact.encode_batch(texts, split_special_tokens)))

    def count(self, text: str) -> int:
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        tok = self._tok
        return self._run(lambda t: tok.encode(t, True).ids, text, lambda exact: exact.with_special_tokens(text))

    # decode ------------------------------------------------------------------
    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        if not self._decodes:
            return self.exact.decode(ids, skip_special_tokens)
        tok = self._tok
        ids = list(ids)
        return self._run(
            lambda _: tok.decode(ids, skip_special_tokens), "", lambda exact: exact.decode(ids, skip_special_tokens)
        )

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        return self.exact.token_table()
