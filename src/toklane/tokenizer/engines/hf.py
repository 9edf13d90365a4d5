"""HF ``tokenizers`` over a ``tokenizer.json``: the reference, and the engine of what nothing else runs exactly."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..bytelevel import token_string_to_bytes
from ..pieces import (
    WHITESPACE,
    encode_in_windows,
    long_run_threshold,
)
from .base import _SPLITTABLE_ENDINGS, AddedToken, _engine_failure, _without_surrogates, flatten


def _sentencepiece_bytes(token: str) -> bytes:
    """Bytes of a SentencePiece-style token: ``<0x0A>`` byte fallback, ``▁`` as space."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return bytes([int(token[3:5], 16)])
        except ValueError:
            pass
    return token.replace("\u2581", " ").encode()


# Below this many characters ``encode`` (GIL held, a few microseconds) beats
# ``encode_batch_fast`` (GIL released); above it the batch call is also faster.
_HF_SHORT = 256

# A Split that isolates a class without whitespace (DeepSeek's digits and CJK).
_NON_SPACE_CLASS = re.compile(r"\\p\{N\}(\{\d,\d\})?|\[[^\]\\^\s]*\]\+?")


def _hf_splittable(tok: Any, added: Iterable[AddedToken]) -> bool:
    """Whether :func:`.pieces.split_long_runs` holds for this tokenizer: no
    normaliser (one could rewrite spaces or prepend to every piece), a
    byte-level pre-tokeniser without its own regex after regex splits that
    either end in the ranked families' whitespace alternatives or isolate a
    class without whitespace, and no added token containing whitespace."""
    import json

    if tok.pre_tokenizer is None:
        return False
    try:
        normalizer = json.loads(tok.normalizer.__getstate__()) if tok.normalizer is not None else None
        pre = json.loads(tok.pre_tokenizer.__getstate__())
    except Exception:
        return False
    if normalizer and normalizer != {"type": "Sequence", "normalizers": []}:
        return False
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    for step in steps:
        if step.get("type") == "ByteLevel" and not step.get("use_regex", True):
            continue
        if step.get("type") != "Split" or step.get("behavior") != "Isolated" or step.get("invert"):
            return False
        regex = (step.get("pattern") or {}).get("Regex", "").replace("\r", r"\r").replace("\n", r"\n")
        if not (regex.endswith(_SPLITTABLE_ENDINGS) or _NON_SPACE_CLASS.fullmatch(regex)):
            return False
    return bool(steps) and not any(ch in WHITESPACE for t in added for ch in t.content)


class HFNormalizer:
    """A Unicode normal form (``"NFC"`` or ``"NFKC"``) as HF ``tokenizers`` computes it, a user's file's
    reference, called on text: its Unicode tables are older than Python's, so it leaves marks it does
    not know where they are (U+1DF6 before U+0301, which Python reorders). Lone surrogates read as
    U+FFFD, as the engines read them."""

    def __init__(self, form: str) -> None:
        self.form = form

    @functools.cached_property
    def _normalizer(self) -> Any:
        from tokenizers import normalizers

        return getattr(normalizers, self.form)()

    def __call__(self, text: str) -> str:
        try:
            return self._normalizer.normalize_str(text)
        except UnicodeEncodeError:
            return self._normalizer.normalize_str(_without_surrogates(text))

    def __repr__(self) -> str:
        return f"HFNormalizer({self.form!r})"


#: HF ``tokenizers``' NFC and NFKC.
HF_NORMALIZERS = {form: HFNormalizer(form) for form in ("NFC", "NFKC")}


class HFBackend:
    """A private ``tokenizers.Tokenizer`` built from ``tokenizer.json`` text.

    Texts from 256 characters on go through ``encode_batch_fast``, which
    releases the GIL. Long whitespace runs are cut (:mod:`.pieces`); other long
    pre-tokens are not, to keep the ids exact, and ``tokenizers``' BPE is
    superlinear on them (DeepSeek-V4, one run of emoji or CJK full stops:
    doubling its length more than doubles the time). Such a request is
    bounded by the server's body limit and stalls no other thread.
    """

    engine = "tokenizers"

    def __init__(self, tokenizer_json: str, ids: Iterable[int] | None = None):
        """``ids``: every id the file holds (its vocabulary's and its added tokens'), where the caller has
        read them from the parsed file (saves reading HF's vocabulary at load, a cost in proportion to its size)."""
        from tokenizers import Tokenizer as HFTokenizer
        from tokenizers import decoders

        self._json = tokenizer_json
        self._tok = HFTokenizer.from_str(tokenizer_json)
        # Settings serialised by whoever owned the original object are cleared
        # once, before this private copy is shared with anybody.
        self._tok.no_truncation()
        self._tok.no_padding()
        self._split_tok: Any = None
        self._split_lock = threading.Lock()
        self.added_tokens = tuple(
            sorted(
                (AddedToken(t.content, i, bool(t.special)) for i, t in self._tok.get_added_tokens_decoder().items()),
                key=lambda t: t.id,
            )
        )
        self.byte_level = isinstance(self._tok.decoder, decoders.ByteLevel)
        self._splittable = _hf_splittable(self._tok, self.added_tokens)
        self._long = long_run_threshold()
        # One vocabulary read at load: the id space and its holes (for id
        # validation); the dict is kept only until the tables are built.
        self._vocab: dict[str, int] | None = None
        if ids is None:
            self._vocab = self._tok.get_vocab(with_added_tokens=True)
            ids = self._vocab.values()
        ids = set(ids)
        self.vocab_size = max(ids) + 1
        self.holes = frozenset(range(self.vocab_size)) - ids if len(ids) != self.vocab_size else frozenset()

    def _splitting(self) -> Any:
        """A second private copy that reads special tokens as text (built on first use)."""
        if self._split_tok is None:
            with self._split_lock:
                if self._split_tok is None:
                    from tokenizers import Tokenizer as HFTokenizer

                    tok = HFTokenizer.from_str(self._json)
                    tok.no_truncation()
                    tok.no_padding()
                    tok.encode_special_tokens = True
                    self._split_tok = tok
        return self._split_tok

    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        tok = self._splitting() if split_special_tokens else self._tok
        if len(text) < _HF_SHORT:
            # Hot path: ``encode`` holds the GIL, for a few microseconds here.
            return self._short(tok, text, False)
        return self._encode_many(tok, [text])[0]

    def _short(self, tok: Any, text: str, add_special_tokens: bool) -> list[int]:
        """``tok.encode`` of a short text; a Rust panic (a regex's retry limit on an adversarial text) is
        a documented error."""
        try:
            try:
                return tok.encode(text, add_special_tokens=add_special_tokens).ids
            except TypeError:
                return tok.encode(_without_surrogates(text), add_special_tokens=add_special_tokens).ids
        except BaseException as exc:
            raise _engine_failure(self.engine, exc) from None

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        tok = self._splitting() if split_special_tokens else self._tok
        return self._encode_many(tok, texts)

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        return flatten(self.encode_batch(texts, split_special_tokens))

    def _encode_many(self, tok: Any, texts: list[str], add_special_tokens: bool = False) -> list[list[int]]:
        """Every text through one ``encode_batch_fast`` call, which releases the GIL
        (``encode`` holds it: one long text stalled every other thread) and runs
        the texts, and the pieces of long ones, in parallel."""
        out: list[list[int] | None] = [None] * len(texts)
        whole: list[int] = []  # texts without a long run: one parallel batch
        try:
            for k, text in enumerate(texts):
                if self._splittable and not add_special_tokens and len(text) >= self._long:
                    out[k] = encode_in_windows(text, lambda t: self._one(tok, t), self._token_bytes)
                if out[k] is None:
                    whole.append(k)
            if whole:
                batch = [texts[k] for k in whole]
                for k, ids in zip(whole, self._many(tok, batch, add_special_tokens), strict=True):
                    out[k] = ids
        except BaseException as exc:
            raise _engine_failure(self.engine, exc) from None
        return out  # type: ignore[return-value]

    def _one(self, tok: Any, text: str) -> list[int]:
        return self._many(tok, [text], False)[0]

    def _many(self, tok: Any, texts: list[str], add_special_tokens: bool) -> list[list[int]]:
        try:
            encodings = self._batch(tok, texts, add_special_tokens=add_special_tokens)
        except TypeError:
            encodings = self._batch(tok, [_without_surrogates(t) for t in texts], add_special_tokens=add_special_tokens)
        return [e.ids for e in encodings]

    def _token_bytes(self, token: int) -> bytes:
        string = self._tok.id_to_token(token) or ""
        data = token_string_to_bytes(string) if self.byte_level else None
        return data if data is not None else string.encode()

    def _batch(self, tok: Any, texts: list[str], add_special_tokens: bool) -> list[Any]:
        fast = getattr(tok, "encode_batch_fast", None)  # tokenizers >= 0.21: no offsets, faster
        if fast is not None:
            return fast(texts, add_special_tokens=add_special_tokens)
        return tok.encode_batch(texts, add_special_tokens=add_special_tokens)

    def count(self, text: str) -> int:
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        if len(text) >= _HF_SHORT:
            return self._encode_many(self._tok, [text], add_special_tokens=True)[0]
        return self._short(self._tok, text, True)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        return self._tok.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        vocab, self._vocab = self._vocab, None
        if vocab is None:
            vocab = self._tok.get_vocab(with_added_tokens=True)
        added = {t.id: t.content for t in self.added_tokens}
        to_bytes: Callable[[str], bytes | None] = token_string_to_bytes if self.byte_level else _sentencepiece_bytes
        strings: dict[int, str] = {}
        raw: dict[int, bytes] = {}
        for token, i in vocab.items():
            strings[i] = token
            if i in added:
                raw[i] = added[i].encode()
            else:
                data = to_bytes(token)
                raw[i] = data if data is not None else token.encode()
        return strings, raw
