"""fastokens: a Rust engine (PCRE2-JIT, backtracking BPE) behind toklane's guarantees.

fastokens (PyPI ``fastokens``) encodes a HF ``tokenizer.json`` (:func:`from_json`) exactly as HF
``tokenizers`` does for the pipelines :func:`.choose.fastokens_refusal` accepts (tested with
hypothesis over generated pipelines and texts, and on corpora: ``tests/tokenizer/test_user_files.py``),
and a ranks table with its pattern exactly as tiktoken does (:func:`from_ranks`: through fastokens'
ranks reader, or HF's conversion of the ranks: every bundled ranks vocabulary), faster
than toklane's own engines on first calls, one core, and more so on short texts (Llama 3's;
``benchmarks/tokenizer.py`` prints both). Around it:

* totality: a lone surrogate is read as U+FFFD (as every toklane engine reads it; fastokens refuses
  it); any other failure -- a PCRE2 match or depth limit on adversarial input, a Rust panic -- sends
  that call to the exact engine it replaced (kept beside it), never an error for the user;
* normalisation: a vocabulary whose text is NFC-normalised first (Qwen) has fastokens encode the
  texts NFC leaves as they are (:func:`.compiled.is_nfc`, a compiled scan), the exact engine the
  others (it normalises the text between added tokens, as the reference does);
* long texts (from :data:`.pieces.PARALLEL_MIN` characters, where the exact engine is one of
  toklane's own) are cut at pre-token boundaries (:func:`.pieces.parallel_bounds`) and encoded as one
  ``encode_batch`` on fastokens' threads; one with a long stretch without such a boundary (a run of
  spaces, which fastokens encodes far more slowly than quicktok) goes to the exact
  engine, which cuts runs (:mod:`..pieces`);
* the GIL: fastokens releases it while it encodes and while it builds;
* threads: one private instance that nothing mutates after it is built (no truncation, padding or
  added tokens are set on it later), shared read-only by every thread.

Building one takes time in proportion to the vocabulary (:func:`build_seconds`; longer through the
merges, Llama 3 and Qwen3.6, than from ranks or DeepSeek-V4's file, part of it Python) and ~100 MB
(o200k), which is why :mod:`.staged` builds it in the background, once it pays.
"""

from __future__ import annotations

import base64
import itertools
import os
import re
import sys
import tempfile
import types
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...gather import IdLists
from ..files import is_engine_failure
from ..pieces import PARALLEL_MIN, parallel_bounds
from .base import AddedToken, Backend, cpu_count, flatten
from .compiled import NATIVE, _bpe, _nfc_flags, front_leads, is_nfc, nfc_span_stable

_SURROGATE = re.compile("[\ud800-\udfff]")

# A text of at most this many characters goes to the compiled encoder the backend replaced, not to
# fastokens (the front, where the compiled module is built): fastokens' call costs more than the
# compiled encode of a short text it has seen (repeated chat strings: 1.4-1.9x fastokens, non-ASCII
# as ASCII), and from about this length fastokens is ahead on code (0.6-0.8x at 256-512 characters,
# one core). Words the encoder has not seen it merges about as fast or slower than fastokens: while
# such texts merge much (first-sight names in many languages), the front sends them to fastokens (see
# toklane._bpe's front).
_FRONT_SHORT_MAX = 128

# Where a text would go to fastokens -- a short one while such texts merge much, or a longer one of at
# most this many characters that is not ASCII -- a repeat of it goes to the compiled encoder (the front
# keeps a hash of the last ~4K such texts): the encoder keeps the words of a text that recurs once it
# has merged them (repeated chat strings of 129-512 characters, not ASCII: 1.1-1.5x fastokens, one
# core). Longer ASCII stays with fastokens, which costs less per character on it even where the
# encoder keeps every piece (code: 0.6-0.9x at 256-512 characters). Where the recurring texts hold more
# words than the encoder's tables keep (a thousand names in many scripts: 0.4-0.9x), it merges them
# again on every repeat: while that is so, repeats go to fastokens too (see toklane._bpe's front).
_FRONT_REPEAT_MAX = 512

# A long text is cut about every this many characters (its pieces go to fastokens' threads); a stretch
# of twice this without a place to cut goes to the exact engine.
_PIECE = PARALLEL_MIN // 2


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
    (a linear fit to measured builds, erring high)."""
    return 0.05 + 15e-6 * tokens


def from_json(
    tokenizer_json: str, exact: Backend, *, decodes: bool, stable: Callable[[str], bool] | None = None
) -> FastokensBackend:
    """fastokens over ``tokenizer.json`` text, beside ``exact`` (the backend over the same file).
    ``decodes``: whether fastokens may decode too (a ByteLevel decoder); else ``exact`` does (HF and
    fastokens differ on special tokens' text through SentencePiece-style decoders), as it does where
    it is a ranks backend (DeepSeek-V4's file, compiled). ``stable``: only the texts it holds true for go
    to fastokens (those the file's normalizer, left out of ``tokenizer_json``, leaves as they are)."""
    import fastokens

    from .ranked import RankedBPEBackend

    native = fastokens.Tokenizer.from_json_str(tokenizer_json)
    # A ranks backend decodes through the compiled id reader (far faster than fastokens' own decode).
    decodes = decodes and not isinstance(exact, RankedBPEBackend)
    cut = isinstance(exact, RankedBPEBackend)  # (DeepSeek-V4's pattern: one pieces.py knows)
    return FastokensBackend(native, exact, decodes=decodes, template=True, cut=cut, stable=stable)


def from_ranks(
    token_bytes: Iterable[tuple[int, bytes]],
    pattern: str,
    exact: Backend,
    *,
    spellings: dict[str, int],
    nfc: bool = False,
    bos_id: int | None = None,
    through_merges: bool = False,
) -> FastokensBackend:
    """fastokens over a ranks table (``(id, bytes)`` of every ordinary token; the id is the rank)
    and its pre-tokenisation ``pattern``, beside ``exact`` (the ranks backend it replaces), which
    decodes. ``spellings``: every text that encodes to an added token (its aliases too), matched in
    text as ``exact`` matches them: the special ones (``exact.added_tokens``' flag; an alias as its
    token) read as text under ``split_special_tokens``, the others always atomic. ``nfc``: the
    vocabulary reads NFC text (no NFC step is given to fastokens: its NFC tables are newer than
    Python's, the reference's, and reorder marks Python does not know; the texts NFC could change go
    to ``exact``).

    fastokens reads the ranks itself (``from_tiktoken``) where every token is a merge of two others
    and ids start at 0; else (``through_merges``: the irregular tokens of :mod:`..irregular`, Llama
    3's 695 and Qwen3.5/3.6's 267; tekken's ids from 1,000) it reads the ``tokenizer.json`` HF's
    tiktoken conversion writes (:func:`ranks_json`). Raises where fastokens refuses the table or
    gives an added token another id."""
    import fastokens

    if nfc:
        is_nfc("\u0300")  # (its table made here, on the builder's thread, not on a first call)
    special_ids = {t.id for t in exact.added_tokens if t.special}
    if through_merges:
        added = [(i, text, i in special_ids) for text, i in spellings.items()]
        native = fastokens.Tokenizer.from_json_str(ranks_json(token_bytes, pattern, added))
        return FastokensBackend(native, exact, decodes=False, nfc=nfc, bos_id=bos_id, cut=True)
    with tempfile.TemporaryDirectory(prefix="toklane-fastokens-") as folder:
        path = os.path.join(folder, "ranks.tiktoken")
        with open(path, "wb") as f:
            f.writelines(base64.b64encode(data) + b" %d\n" % i for i, data in token_bytes)
        specials = {text: i for text, i in spellings.items() if i in special_ids}
        native = fastokens.Tokenizer.from_tiktoken(path, pattern=pattern, special_tokens=specials)
    plain = sorted(((i, text) for text, i in spellings.items() if i not in special_ids))
    if plain:
        flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": False}
        got = native.add_tokens([types.SimpleNamespace(content=text, **flags) for _, text in plain])
        if [i for _, i in got] != [i for i, _ in plain]:
            raise ValueError("fastokens numbered the added tokens differently")
    return FastokensBackend(native, exact, decodes=False, nfc=nfc, bos_id=bos_id, cut=True)


def ranks_json(token_bytes: Iterable[tuple[int, bytes]], pattern: str, added: list[tuple[int, str, bool]]) -> str:
    """A ``tokenizer.json`` that encodes as tiktoken does over a ranks table (``(id, bytes)``, the id
    its rank), its ``pattern`` and its added tokens (``(id, text, special)``, an id twice where it has
    two spellings), as HF's tiktoken
    conversion writes one: byte-level BPE whose merges are every split of every token into two
    tokens, ranked by the token (tiktoken merges the adjacent pair whose join ranks lowest; so does
    BPE over these merges, whatever order the vocabulary was built in), and ``ignore_merges`` (a
    pre-token that is a token is that token, as in tiktoken). Python work per token: a large share of a
    build from ranks."""
    import json

    from ..bytelevel import bytes_to_token_string

    ranks = {data: i for i, data in token_bytes}
    merges = []
    for data in sorted(ranks, key=ranks.__getitem__):  # (merges in the rank order of what they make)
        for k in range(1, len(data)):
            if data[:k] in ranks and data[k:] in ranks:
                merges.append([bytes_to_token_string(data[:k]), bytes_to_token_string(data[k:])])
    vocab = {bytes_to_token_string(data): i for data, i in ranks.items()}
    for i, text, _ in added:  # (in the vocabulary too, as HF's files hold them: ids without gaps)
        vocab.setdefault(text, i)
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [
                {"id": i, "content": text, **flags, "special": special} for i, text, special in sorted(added)
            ],
            "normalizer": None,
            "pre_tokenizer": {
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
                    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
                ],
            },
            "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": None,
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "ignore_merges": True,
                "vocab": vocab,
                "merges": merges,
            },
        },
        ensure_ascii=False,
    )


def _joined(encodings: list[Any]) -> list[int]:
    """The ids of ``encodings`` end to end (``+=`` per part: much faster than a nested comprehension, which
    cost a large share of a long text's encode)."""
    ids: list[int] = []
    for encoding in encodings:
        ids += encoding.ids
    return ids


class FastokensBackend:
    """A private ``fastokens.Tokenizer`` beside the exact backend it replaces (:func:`from_json`,
    :func:`from_ranks`)."""

    engine = "fastokens"

    def __init__(
        self,
        native: Any,
        exact: Backend,
        *,
        decodes: bool = True,
        template: bool = False,
        nfc: bool = False,
        bos_id: int | None = None,
        cut: bool = False,
        stable: Callable[[str], bool] | None = None,
    ):
        """``exact``: the backend this one replaces, over the same vocabulary: it takes every call
        fastokens fails, and its added tokens and vocabulary tables are this one's. ``decodes``:
        fastokens decodes, else ``exact``. ``template``: fastokens adds the model's special-token
        template (a ``tokenizer.json`` post-processor), else it is ``bos_id`` (or nothing).
        ``nfc``: only NFC text goes to fastokens (``stable``: only text it holds true for). ``cut``: long
        texts may be cut where every pattern :mod:`..pieces` knows ends a pre-token (no added token holds
        whitespace) and go to ``exact`` where they hold a long stretch without such a place (``exact``: one
        of toklane's engines)."""
        native.no_truncation()
        native.no_padding()
        self._tok = native
        self.exact = exact
        self.decodes = decodes  # (else the exact backend decodes: Tokenizer's id reader looks)
        self._template = template
        self._stable = is_nfc if nfc else stable  # (None: every text)
        self._bos = [] if bos_id is None else [bos_id]
        self._cut = cut and not any(c.isspace() for t in exact.added_tokens for c in t.content)
        self.threads = cpu_count()
        self.added_tokens: tuple[AddedToken, ...] = exact.added_tokens
        # A batch's ids are read from fastokens' flat buffers (encode_batch_flat) as lists of shared
        # ints: an Encoding per text costs more than the encode of a short text. (One text's ids come
        # from its Encoding's ``.ids``, which is cheaper than any read of the flat buffer, measured.)
        self._lists = IdLists(native.vocab_size)

    def _run(self, call: Callable[[Any], Any], texts: Any, on_exact: Callable[[Backend], Any]) -> Any:
        try:
            return call(texts)
        except BaseException as exc:
            return self._recover(exc, call, texts, on_exact)

    def _recover(
        self, exc: BaseException, call: Callable[[Any], Any], texts: Any, on_exact: Callable[[Backend], Any]
    ) -> Any:
        """After ``call(texts)`` raised ``exc``: a lone surrogate is read as U+FFFD (as every toklane
        engine reads it) and the call made again; any other engine failure, or a second one, goes to
        the exact engine; an interrupt is raised again."""
        if not is_engine_failure(exc):
            raise exc
        if isinstance(exc, UnicodeEncodeError):
            try:
                return call(_replaced(texts))
            except BaseException as again:
                if not is_engine_failure(again):
                    raise
        return on_exact(self.exact)

    # encode ------------------------------------------------------------------
    def front(self, owner: Any, method: Any) -> Any:
        """``Tokenizer.encode``'s common call as one C call into fastokens' own binding (``toklane._bpe.front``):
        a text's ids (of any length :meth:`encode` gives fastokens in one call) straight from its
        ``encode_ordinary`` where the text holds none of the characters the added tokens start with
        (those matched under ``split_special_tokens`` for such a call), else from its ``encode``, which
        matches them; NFC-stable text only where the family normalises. A short text holding none of them
        (:data:`_FRONT_SHORT_MAX`) goes to the compiled encoder of the exact backend, where it has one, and
        so does a repeat of a text the front has seen, up to :data:`_FRONT_REPEAT_MAX` where it is not
        ASCII, while the encoder does not merge such repeats again.
        What fastokens raises goes to ``method``, which recovers. None where the compiled module is not
        built or texts are checked another way (``stable``)."""
        if not NATIVE or (self._stable is not None and self._stable is not is_nfc):
            return None
        flags = _nfc_flags if self._stable is is_nfc else None
        leads = front_leads(t.content for t in self.added_tokens)
        split_leads = front_leads(t.content for t in self.added_tokens if not t.special)
        tok = self._tok
        # (what encode sends to fastokens in one call: below PARALLEL_MIN where a long text may be cut)
        longest = PARALLEL_MIN - 1 if self._cut else sys.maxsize
        stable = nfc_span_stable if flags is not None else None  # (asked in C of each span around flagged ones)
        ordinary, full = tok.encode_ordinary, tok.encode
        compiled = getattr(self.exact, "compiled_encoder", None)
        encoder = compiled() if compiled is not None else None
        return _bpe.front(
            encoder,
            owner,
            method,
            leads,
            split_leads,
            longest,
            flags,
            ordinary,
            full,
            stable,
            _FRONT_SHORT_MAX,
            _FRONT_REPEAT_MAX,
        )

    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        # (no closure here: one would make its variables cells, a measurable cost on a short encode)
        if self._stable is not None and not self._stable(text):
            return self.exact.encode(text, split_special_tokens)
        if self._cut and len(text) >= PARALLEL_MIN:
            return self._encode_long(text, split_special_tokens)
        try:
            return self._tok.encode(text, False, split_special_tokens).ids
        except BaseException as exc:
            return self._encode_failed(exc, text, split_special_tokens)

    def _encode_failed(self, exc: BaseException, text: str, split_special_tokens: bool) -> list[int]:
        """:meth:`encode` after fastokens raised ``exc`` on ``text`` (:meth:`_recover`)."""
        tok = self._tok
        return self._recover(
            exc,
            lambda t: tok.encode(t, False, split_special_tokens).ids,
            text,
            lambda exact: exact.encode(text, split_special_tokens),
        )

    def _encode_long(self, text: str, split_special_tokens: bool) -> list[int]:
        """:meth:`encode` of a text of :data:`PARALLEL_MIN` characters or more, where it may be cut."""
        bounds = parallel_bounds(text, _PIECE)
        if any(b - a > 2 * _PIECE for a, b in itertools.pairwise(bounds)):
            # A long stretch without a pre-token boundary (a run of spaces): the exact engine cuts
            # such runs (:mod:`..pieces`); fastokens is slow on them.
            return self.exact.encode(text, split_special_tokens)
        if len(bounds) > 2 and self.threads > 1:
            pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
            return self._run(
                lambda ps: _joined(self._tok.encode_batch(ps, False, split_special_tokens)),
                pieces,
                lambda exact: exact.encode(text, split_special_tokens),
            )
        try:
            return self._tok.encode(text, False, split_special_tokens).ids
        except BaseException as exc:
            return self._encode_failed(exc, text, split_special_tokens)

    def _aside(self, texts: list[str]) -> set[int]:
        """The texts of a batch that :meth:`encode` takes one by one: those NFC would change (where the
        vocabulary normalises) and long ones (cut, or sent to the exact engine)."""
        stable = self._stable
        if stable is None and not self._cut:
            return set()
        longest = PARALLEL_MIN if self._cut else sys.maxsize
        if NATIVE and (stable is None or stable is is_nfc):
            # (one compiled pass over the batch; NFC is checked only where a character it may change is)
            found = _bpe.flagged(None if stable is None else _nfc_flags(), texts, longest)
            return {k for k in found if len(texts[k]) >= longest or not is_nfc(texts[k])}
        return {
            k
            for k, t in enumerate(texts)
            if (self._cut and len(t) >= PARALLEL_MIN) or (stable is not None and not stable(t))
        }

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        aside = self._aside(texts)
        return self._mixed(texts, aside, split_special_tokens) if aside else self._batch(texts, split_special_tokens)

    def _mixed(self, texts: list[str], aside: set[int], split_special_tokens: bool) -> list[list[int]]:
        """A batch whose texts ``aside`` go one by one through :meth:`encode`, the rest as one batch."""
        rest = [t for k, t in enumerate(texts) if k not in aside]
        done = iter(self._batch(rest, split_special_tokens) if rest else ())
        return [self.encode(t, split_special_tokens) if k in aside else next(done) for k, t in enumerate(texts)]

    def _batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        tok, lists = self._tok, self._lists
        return self._run(
            lambda ts: lists.flat(*tok.encode_batch_flat(ts, False, split_special_tokens)),
            texts,
            lambda exact: exact.encode_batch(texts, split_special_tokens),
        )

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        aside = self._aside(texts)
        if aside:
            return flatten(self._mixed(texts, aside, split_special_tokens))
        import numpy as np

        tok = self._tok

        def flat(ts: list[str]) -> tuple[Any, Any]:
            ids, offsets = tok.encode_batch_flat(ts, False, split_special_tokens)
            return np.frombuffer(ids, dtype="<u4").copy(), np.frombuffer(offsets, dtype="<u8").astype(np.int64)

        return self._run(flat, texts, lambda exact: flatten(exact.encode_batch(texts, split_special_tokens)))

    def count(self, text: str) -> int:
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        if not self._template:
            return [*self._bos, *self.encode(text, False)]
        if self._stable is not None and not self._stable(text):
            return self.exact.with_special_tokens(text)
        tok = self._tok
        return self._run(lambda t: tok.encode(t, True).ids, text, lambda exact: exact.with_special_tokens(text))

    # decode ------------------------------------------------------------------
    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        if not self.decodes:
            return self.exact.decode(ids, skip_special_tokens)
        tok = self._tok
        ids = list(ids)
        return self._run(
            lambda _: tok.decode(ids, skip_special_tokens), "", lambda exact: exact.decode(ids, skip_special_tokens)
        )

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        return self.exact.token_table()

    def __getattr__(self, name: str) -> Any:  # the exact backend's other attributes (bos_id, decode_bytes, ...)
        if name == "exact":  # (not set yet: no recursion)
            raise AttributeError(name)
        return getattr(self.exact, name)
