"""The :class:`Tokenizer`: one shared, thread-safe, read-only tokenizer per model.

Everything proportional to the vocabulary (the ``vocab`` mapping, id -> token
strings, id -> token bytes) is built once, on first use, under a lock, and
then only read. Per-call options (``add_special_tokens``, ``max_length``,
``split_special_tokens``) never touch the backend: truncation is slicing.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from .. import gather
from ..errors import InvalidTokenIdError, MissingTokenError
from .engines.base import AddedToken, Backend, surrounding
from .engines.ranked import RankedBPEBackend

TruncationSide = Literal["left", "right"]

#: Ids from which decode() reads a list with the compiled reader (below, the backend is as fast).
_DECODE_BULK = 16
#: Ids per vocabulary entry that decode() reads through the backend before it builds the
#: vocabulary's byte table for the compiled reader. The reader saves about a twentieth of an entry's
#: build on every id it reads (the decode table of benchmarks/tokenizer.py): after about 20 ids per
#: entry the time lost equals the build's, and building then costs at most twice the best choice
#: made in hindsight, however many ids follow.
_DECODE_AMORTIZE = 20


def _texts(texts: Sequence[str], method: str) -> list[str]:
    texts = list(texts)
    for t in texts:
        if not isinstance(t, str):
            raise TypeError(f"{method}() expects a sequence of str, got an item of type {type(t).__name__}")
    return texts


class _Tables:
    """Vocabulary tables derived from a backend, built once."""

    __slots__ = ("id_to_token", "token_bytes", "vocab")

    def __init__(self, backend: Backend, vocab_size: int):
        strings, raw = backend.token_table()
        # Added tokens win a string collision, as in HF's get_vocab().
        vocab = {s: i for i, s in strings.items()}
        for t in backend.added_tokens:
            vocab[t.content] = t.id
        self.vocab: Mapping[str, int] = MappingProxyType(vocab)
        id_to_token: list[str | None] = [None] * vocab_size
        token_bytes: list[bytes | None] = [None] * vocab_size
        for i, s in strings.items():
            id_to_token[i] = s
        for i, b in raw.items():
            token_bytes[i] = b
        self.id_to_token: tuple[str | None, ...] = tuple(id_to_token)
        self.token_bytes: tuple[bytes | None, ...] = tuple(token_bytes)


class Tokenizer:
    """A loaded tokenizer. Get one with :func:`toklane.load_tokenizer`.

    Instances are shared by every caller asking for the same spec and are safe
    to use from any number of threads: nothing here mutates after loading.

    Sizes: ``vocab_size`` is the id space (largest id + 1, what a logits row
    must cover); ``len(tok)`` is the number of distinct tokens (``len(vocab)``).
    They differ where the id space has holes (cl100k_base has 100,277 ids but
    100,261 tokens).
    """

    def __init__(
        self,
        name: str,
        backend: Backend,
        *,
        vocab_size: int,
        holes: Iterable[int] = (),
        source: str = "",
        aliases: Iterable[str] = (),
        eos_token_ids: Iterable[int] = (),
    ):
        self.name = name
        self.source = source or name
        self.aliases = tuple(aliases)
        self._backend = backend
        self._vocab_size = vocab_size
        self._holes = frozenset(holes)
        self._tables: _Tables | None = None
        self._lock = threading.Lock()
        self._special_tokens: Mapping[str, int] = MappingProxyType({t.content: t.id for t in backend.added_tokens})
        self._special_flag = {t.id: t.special for t in backend.added_tokens}
        # decode()'s compiled reader tables, [keep specials, skip them]: None until first needed
        self._decode_readers: list[gather.IdTable | bool | None] = [None, None]
        self._decoded = 0  # ids decoded by the backend while decode()'s reader was not worth building
        self.eos_token_ids: tuple[int, ...] = tuple(eos_token_ids)
        #: Why :attr:`engine` runs this tokenizer, in one line (set by the loader; ``toklane models --explain``).
        self.engine_reason = ""
        #: Whether this is one of toklane's bundled tokenizers (set by its loader).
        self.bundled = False
        self._upgrade: Any = None  # a faster engine built once it pays (.engines.staged), or None
        self._prefix, self._suffix = self._special_template()
        self._install_front()

    # ------------------------------------------------------------------ metadata
    @property
    def engine(self) -> str:
        """The encoding engine in use: ``compiled``, ``quicktok``, ``tiktoken``, ``fastokens``,
        ``sentencepiece`` or ``tokenizers`` (:attr:`engine_reason` says why)."""
        return self._backend.engine

    def _use_backend(self, backend: Backend) -> None:
        """Serve from ``backend`` from now on: one that gives the same ids, template and text as the
        current one (:mod:`.engines.staged` checks that before it swaps a faster engine in). Calls
        under way finish on the backend they started on."""
        self._backend = backend
        self._install_front()

    def _install_front(self) -> None:
        """:meth:`encode`'s common call -- a short text, nothing to add or cut -- as one C call into the
        backend's engine where the backend offers one (``front``: :meth:`.RankedBPEBackend.front`,
        :meth:`.FastokensBackend.front`): an attribute of this object that shadows the method (which
        it calls for every other call). The method alone otherwise."""
        self.__dict__.pop("encode", None)
        backend = self._backend
        # (looked up on the class: a backend's __getattr__ may build what it keeps for first need)
        make = getattr(type(backend), "front", None)
        fast = make(backend, weakref.ref(self), Tokenizer.encode) if make is not None else None
        if fast is not None:
            self.encode = fast  # type: ignore[method-assign]

    @property
    def vocab_size(self) -> int:
        """Size of the id space: the largest token id + 1."""
        return self._vocab_size

    def __len__(self) -> int:
        return len(self.vocab)

    @property
    def special_tokens(self) -> Mapping[str, int]:
        """Added tokens (matched whole in text, never produced by BPE), read-only."""
        return self._special_tokens

    @property
    def added_tokens(self) -> tuple[AddedToken, ...]:
        """Added tokens with their HF ``special`` flag (what ``skip_special_tokens`` drops)."""
        return self._backend.added_tokens

    def is_special(self, token_id: int) -> bool:
        """True for added tokens flagged special (dropped by ``skip_special_tokens``)."""
        return self._special_flag.get(token_id, False)

    @property
    def bos_token_ids(self) -> tuple[int, ...]:
        """Ids that ``add_special_tokens=True`` puts before the text."""
        return self._prefix

    def __repr__(self) -> str:
        return f"<toklane.Tokenizer {self.name!r} engine={self.engine} vocab_size={self._vocab_size}>"

    # ------------------------------------------------------------------ tables
    def _get_tables(self) -> _Tables:
        tables = self._tables
        if tables is None:
            with self._lock:
                tables = self._tables
                if tables is None:
                    tables = self._tables = _Tables(self._backend, self._vocab_size)
        return tables

    @property
    def vocab(self) -> Mapping[str, int]:
        """Token string -> id, added tokens included. The same read-only object on
        every call; byte-level vocabularies use HF's spelling (``"Ġ</"``)."""
        return self._get_tables().vocab

    def get_vocab(self) -> Mapping[str, int]:
        """Alias of :attr:`vocab` (the transformers name), without the per-call rebuild."""
        return self._get_tables().vocab

    def token_to_id(self, token: str) -> int | None:
        """Id of a vocabulary string (byte-level spelling), or ``None``."""
        return self._get_tables().vocab.get(token)

    def require_token_id(self, token: str, purpose: str | None = None) -> int:
        """Id of ``token``; :class:`toklane.MissingTokenError` naming token and tokenizer if absent."""
        token_id = self._get_tables().vocab.get(token)
        if token_id is None:
            raise MissingTokenError(token, self.name, purpose)
        return token_id

    def id_to_token(self, token_id: int) -> str | None:
        """Vocabulary string of an id, or ``None`` for an id in a hole of the id space."""
        self._check_id(token_id)
        return self._get_tables().id_to_token[token_id]

    def token_bytes(self, token_id: int) -> bytes:
        """Raw bytes a token stands for (added tokens: their UTF-8 text)."""
        self._check_id(token_id)
        data = self._get_tables().token_bytes[token_id]
        if data is None:
            raise InvalidTokenIdError(token_id, self.name, self._vocab_size)
        return data

    @property
    def token_bytes_table(self) -> tuple[bytes | None, ...]:
        """``token_bytes`` for every id at once (``None`` in holes); shared, read-only."""
        return self._get_tables().token_bytes

    def _check_id(self, token_id: Any) -> None:
        if not isinstance(token_id, int) or not 0 <= token_id < self._vocab_size or token_id in self._holes:
            raise InvalidTokenIdError(token_id, self.name, self._vocab_size)

    # ------------------------------------------------------------------ encode
    def _special_template(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Ids that the model's post-processor puts around a text (BOS, EOS)."""
        probe = "a"
        plain = self._backend.encode(probe, False)
        full = self._backend.with_special_tokens(probe)
        around = surrounding(plain, full)
        if around is not None:
            return tuple(around[0]), tuple(around[1])
        raise ValueError(f"tokenizer {self.name!r}: cannot locate the text inside its special-token template")

    def encode(
        self,
        text: str,
        add_special_tokens: bool = False,
        split_special_tokens: bool = False,
        max_length: int | None = None,
        truncation_side: TruncationSide = "right",
    ) -> list[int]:
        """Token ids of ``text``.

        ``add_special_tokens`` adds the model's BOS/EOS template (Llama-3's
        ``<|begin_of_text|>``; nothing for Qwen). ``split_special_tokens`` reads
        special-token strings in ``text`` as plain text (use it for untrusted
        input); non-special added tokens (``<think>``) stay atomic, as in HF.
        ``max_length`` truncates the content on ``truncation_side`` so that the
        result, template included, has at most ``max_length`` ids.
        """
        if not isinstance(text, str):
            raise TypeError(f"encode() expects str, got {type(text).__name__}")
        ids = self._backend.encode(text, split_special_tokens)
        if not add_special_tokens and max_length is None:  # (the common call: nothing to add or cut)
            return ids
        return self._finish(ids, add_special_tokens, max_length, truncation_side)

    def _finish(
        self, ids: list[int], add_special_tokens: bool, max_length: int | None, truncation_side: TruncationSide
    ) -> list[int]:
        prefix, suffix = (self._prefix, self._suffix) if add_special_tokens else ((), ())
        if max_length is not None:
            room = _room(max_length, len(prefix) + len(suffix), truncation_side)
            if len(ids) > room:
                ids = ids[:room] if truncation_side == "right" else ids[len(ids) - room :]
        if prefix or suffix:
            ids = [*prefix, *ids, *suffix]
        return ids

    def encode_batch(
        self,
        texts: Sequence[str],
        add_special_tokens: bool = False,
        split_special_tokens: bool = False,
        max_length: int | None = None,
        truncation_side: TruncationSide = "right",
    ) -> list[list[int]]:
        """:meth:`encode` for many texts, in parallel where the engine supports it."""
        texts = _texts(texts, "encode_batch")
        if not texts:
            return []
        batch = self._backend.encode_batch(texts, split_special_tokens)
        if not add_special_tokens and max_length is None:
            return batch
        return [self._finish(ids, add_special_tokens, max_length, truncation_side) for ids in batch]

    def encode_batch_flat(
        self, texts: Sequence[str], add_special_tokens: bool = False, split_special_tokens: bool = False
    ) -> tuple[Any, Any]:
        """:meth:`encode_batch` as two numpy arrays, ``(ids, offsets)``: every id end to
        end (``uint32``) and where each text's ids start (``int64``, one more than the
        texts), so text ``k`` is ``ids[offsets[k]:offsets[k + 1]]`` and its count
        ``offsets[k + 1] - offsets[k]``: the shape Arrow list arrays and training
        pipelines take, built without a Python int per id where the engine allows
        (quicktok, for texts it encodes without tiktoken's help)."""
        from .engines.base import flatten

        texts = _texts(texts, "encode_batch_flat")
        if add_special_tokens and (self._prefix or self._suffix):
            return flatten(self.encode_batch(texts, True, split_special_tokens))
        if not texts:
            return flatten([])
        return self._backend.encode_batch_flat(texts, split_special_tokens)

    def count(self, text: str) -> int:
        """Number of tokens in ``text`` (``len(encode(text))``, without building the list
        where the engine can count directly)."""
        if not isinstance(text, str):
            raise TypeError(f"count() expects str, got {type(text).__name__}")
        return self._backend.count(text)

    # ------------------------------------------------------------------ decode
    def _checked_ids(self, ids: Any) -> list[int] | Sequence[int]:
        if hasattr(ids, "tolist"):  # numpy arrays, torch tensors
            ids = ids.tolist()
        if isinstance(ids, int):
            ids = [ids]
        if not ids:
            return ids
        try:
            lo, hi = min(ids), max(ids)
        except TypeError:
            bad = next(i for i in ids if not isinstance(i, int))
            raise InvalidTokenIdError(bad, self.name, self._vocab_size) from None
        if lo < 0 or hi >= self._vocab_size or (self._holes and not self._holes.isdisjoint(ids)):
            bad = next(i for i in ids if not 0 <= i < self._vocab_size or i in self._holes)
            raise InvalidTokenIdError(bad, self.name, self._vocab_size)
        if not isinstance(lo, int) or not isinstance(hi, int):
            bad = next(i for i in ids if not isinstance(i, int))
            raise InvalidTokenIdError(bad, self.name, self._vocab_size)
        return ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """Text of ``ids``; invalid UTF-8 becomes U+FFFD. Out-of-range ids raise
        :class:`toklane.InvalidTokenIdError`."""
        if hasattr(ids, "tolist"):  # numpy arrays, torch tensors
            ids = ids.tolist()
        if (type(ids) is list or type(ids) is tuple) and len(ids) >= _DECODE_BULK and gather.NATIVE:
            skip = 1 if skip_special_tokens else 0
            reader = self._decode_readers[skip]
            if reader is None:
                reader = self._decode_reader(skip, len(ids))
            if reader:
                got = gather.runs(ids, reader, True, False)
                if got is not None:  # (else: an id the backend path refuses or reads itself)
                    return got[0][0]
        checked = self._checked_ids(ids)
        if not checked:
            return ""
        try:
            return self._backend.decode(checked, skip_special_tokens)
        except TypeError:
            bad = next(i for i in checked if type(i) is not int)
            raise InvalidTokenIdError(bad, self.name, self._vocab_size) from None

    def _decode_reader(self, skip: int, n: int) -> gather.IdTable | bool | None:
        """The compiled id reader's table for :meth:`decode` (made once per ``skip``, 0 or 1): every
        token's bytes, special tokens dropped when skipped. Only where decoding is joining token bytes -- ranked-BPE
        backends (tiktoken's and quicktok's vocabularies); False elsewhere (HF ``tokenizers``
        decoders may do more than join). None (not yet) while the vocabulary's byte table is unbuilt
        and fewer than :data:`_DECODE_AMORTIZE` ids per vocabulary entry were decoded: building it
        (once per vocabulary, shared with the detokenizer and the parsers) must pay for itself, not slow
        a one-off decode."""
        if not isinstance(_decoding_backend(self._backend), RankedBPEBackend):
            reader: gather.IdTable | bool = False
        elif self._tables is None and self._decoded < _DECODE_AMORTIZE * self._vocab_size:
            self._decoded += n  # (unlocked: an approximate count is enough)
            return None
        else:
            drop = [i for i, special in self._special_flag.items() if special] if skip else []
            reader = gather.IdTable(self, (), drop, self._vocab_size)
        self._decode_readers[skip] = reader
        return reader

    def decode_batch(self, batch: Iterable[Sequence[int]], skip_special_tokens: bool = False) -> list[str]:
        """:meth:`decode` for many id lists."""
        return [self.decode(ids, skip_special_tokens) for ids in batch]

    # ------------------------------------------------------------------ names from transformers and tiktoken
    def convert_ids_to_tokens(self, ids: int | Sequence[int], skip_special_tokens: bool = False) -> Any:
        """transformers' name: the vocabulary string of an id (:meth:`id_to_token`), or a list of them
        for a list of ids (special tokens left out with ``skip_special_tokens``)."""
        if isinstance(ids, int):
            return self.id_to_token(ids)
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        return [self.id_to_token(i) for i in ids if not (skip_special_tokens and self.is_special(i))]

    def convert_tokens_to_ids(self, tokens: str | Sequence[str]) -> Any:
        """transformers' name: the id of a vocabulary string (:meth:`token_to_id`; ``None`` for a
        string not in the vocabulary), or a list of them for a list of strings."""
        if isinstance(tokens, str):
            return self.token_to_id(tokens)
        vocab = self.vocab
        return [vocab.get(t) for t in tokens]

    def encode_ordinary(self, text: str) -> list[int]:
        """tiktoken's name: the ids of ``text`` with special-token strings read as plain text
        (``encode(text, split_special_tokens=True)``)."""
        return self.encode(text, split_special_tokens=True)

    @property
    def chat_template(self) -> str | dict[str, str] | None:
        """The tokenizer's own chat template (transformers' attribute): the text, named templates
        (``{"default": ..., "tool_use": ...}``), or ``None`` -- a bundled tokenizer renders its
        family format (``docs/chat-formats.md``)."""
        from ..chat.sources import own_template

        return own_template(self).template

    def apply_chat_template(
        self,
        conversation: Any,
        tools: Sequence[Mapping[str, Any]] | None = None,
        documents: Sequence[Mapping[str, Any]] | None = None,
        chat_template: str | None = None,
        add_generation_prompt: bool = False,
        continue_final_message: bool | str = False,
        tokenize: bool = True,
        truncation: bool = False,
        max_length: int | None = None,
        return_dict: bool = True,
        **kwargs: Any,
    ) -> Any:
        """transformers' ``apply_chat_template``, same arguments and results: the rendered prompt
        (``tokenize=False``), ``{"input_ids": ids, "attention_mask": [1, ...]}`` (``return_dict``,
        transformers 5's default) or the ids (``return_dict=False``); a list of them for a list
        of conversations. Extra keyword arguments are template variables (``enable_thinking=False``).
        The renderer is :func:`toklane.render_chat`'s: the tokenizer's own template, ``chat_template``,
        or a bundled tokenizer's family format."""
        from ..chat.render import render
        from ..errors import InvalidArgumentError

        for name in ("padding", "return_tensors", "sanitize_control_tokens", "return_assistant_tokens_mask"):
            if kwargs.get(name):
                raise InvalidArgumentError(name, "is not supported by toklane's apply_chat_template")
            kwargs.pop(name, None)
        kwargs.pop("tokenizer_kwargs", None)
        batched = (
            isinstance(conversation, (list, tuple))
            and bool(conversation)
            and isinstance(conversation[0], (list, tuple))
        )
        if isinstance(conversation, (list, tuple)) and not conversation:
            raise InvalidArgumentError("conversation", "is empty: give at least one message")
        results = []
        for chat in conversation if batched else [conversation]:
            text = render(
                self,
                chat,
                tools=tools,
                documents=documents,
                add_generation_prompt=add_generation_prompt,
                continue_final_message=continue_final_message,
                chat_template=chat_template,
                chat_template_kwargs=kwargs,
            ).text
            if not tokenize:
                results.append(text)
                continue
            ids = self.encode(text)
            if truncation and max_length is not None:
                ids = ids[:max_length]
            results.append(ids)
        if tokenize and return_dict:
            if batched:
                return {"input_ids": results, "attention_mask": [[1] * len(ids) for ids in results]}
            return {"input_ids": results[0], "attention_mask": [1] * len(results[0])}
        return results if batched else results[0]


def _room(max_length: int, reserved: int, truncation_side: str) -> int:
    if not isinstance(max_length, int) or isinstance(max_length, bool):
        raise TypeError(f"max_length must be an int or None, got {max_length!r}")
    if truncation_side not in ("left", "right"):
        raise ValueError(f"truncation_side must be 'left' or 'right', got {truncation_side!r}")
    if max_length < reserved:
        raise ValueError(
            f"max_length={max_length} leaves no room: the special-token template alone takes {reserved} ids"
        )
    return max_length - reserved


def _decoding_backend(backend: Any) -> Any:
    """The backend that decodes for ``backend``: the one an upgrade counts for (:mod:`.engines.staged`),
    or that fastokens leaves decoding to (:mod:`.engines.fastokens`), else itself."""
    backend = getattr(backend, "inner", backend)
    if backend.engine == "fastokens" and not backend.decodes:
        return backend.exact
    return backend
