"""HF ``tokenizer.json``: :func:`check_tokenizer_json` (shape and size checks before HF
``tokenizers`` builds it) and :class:`Pipeline` (what the file asks of an engine, read once)."""

from __future__ import annotations

from typing import Any

from ...errors import TokenizerLoadError
from ..bytelevel import bytes_to_token_string
from .fields import MAX_TOKEN_ID, _bytes_list, _clip, _field, _in, _int, _is_int, _list, _obj, _str

_HF_MODELS = ("BPE", "WordPiece", "WordLevel", "Unigram")


def _has_byte_level(component: Any) -> bool:
    """Whether a pre-tokenizer/decoder (possibly a Sequence) includes ByteLevel."""
    if not isinstance(component, dict):
        return False
    if component.get("type") == "ByteLevel":
        return True
    for key in ("pretokenizers", "decoders"):
        inner = component.get(key)
        if isinstance(inner, list) and any(_has_byte_level(c) for c in inner):
            return True
    return False


def _check_tokenizer_json(data: Any, source: object) -> None:
    """Shape and size checks of a ``tokenizer.json`` before HF ``tokenizers`` builds it.

    ``tokenizers`` validates much itself; these are what it lets through and
    what would then hang, exhaust memory or panic: ids far past the number of
    tokens (the id space is materialised), empty added tokens, and a
    byte-level BPE without all 256 byte tokens.
    """
    top = _obj(data, source, "tokenizer.json")
    model = _obj(top.get("model"), source, "model")
    kind = model.get("type")
    if kind is not None and kind not in _HF_MODELS:
        raise _field(source, "model.type", f"must be one of {', '.join(_HF_MODELS)}, got {_clip(kind)}")
    vocab = model.get("vocab")
    ids: list[int] = []
    if kind == "Unigram" or (kind is None and isinstance(vocab, list)):
        for k, item in enumerate(_list(vocab, source, "model.vocab")):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                raise _field(source, f"model.vocab[{k}]", "must be a [piece, score] pair")
        ids = list(range(len(vocab)))
    else:
        values = list(_obj(vocab, source, "model.vocab").values())
        if values and (set(map(type, values)) != {int} or min(values) < 0):  # (C loops; the slow one names it)
            for token, i in vocab.items():
                if not _is_int(i) or i < 0:
                    raise _field(
                        source, f"model.vocab[{token!r}]", f"must be a non-negative integer id, got {_clip(i)}"
                    )
        ids = values
    added = top.get("added_tokens")
    n_added = 0
    if added is not None:
        for k, item in enumerate(_list(added, source, "added_tokens")):
            item = _obj(item, source, f"added_tokens[{k}]")
            ids.append(_int(item.get("id"), source, f"added_tokens[{k}].id", 0, MAX_TOKEN_ID))
            _str(item.get("content"), source, f"added_tokens[{k}].content")
            n_added += 1
    if not ids:
        raise _field(source, "model.vocab", "is empty")
    bound = min(MAX_TOKEN_ID, 4 * len(ids) + 65536)
    top_id = max(ids)
    if top_id >= bound:
        raise TokenizerLoadError(
            source,
            f"token id {top_id} is far past the {len(ids)} tokens in the file (ids must stay below {bound}); "
            "the id space would be mostly holes",
        )
    byte_level = _has_byte_level(top.get("pre_tokenizer")) or _has_byte_level(top.get("decoder"))
    if kind == "BPE" and byte_level and not model.get("byte_fallback") and isinstance(vocab, dict):
        missing = [b for b in range(256) if bytes_to_token_string(bytes([b])) not in vocab]
        if missing:
            raise _field(
                source,
                "model.vocab",
                f"lacks byte-level tokens for bytes {_bytes_list(missing)} (a byte-level BPE needs all 256)",
            )


def check_tokenizer_json(data: Any, source: object) -> None:
    """Check a parsed ``tokenizer.json`` before HF ``tokenizers`` builds it (errors name the field)."""
    _in("tokenizer.json", _check_tokenizer_json, data, source)


class Pipeline:
    """What a checked ``tokenizer.json`` asks of an engine, read once: the model and its options,
    the normalizer and pre-tokenizer steps (Sequences flattened, each step's JSON kept), the decoder,
    post-processor and added tokens. :func:`toklane.tokenizer.engines.choose.choose_engine` decides
    from it."""

    __slots__ = ("added_tokens", "data", "decoders", "model", "normalizers", "post_processors", "pre_tokenizers")

    def __init__(self, data: dict[str, Any]):
        self.data = data
        self.model: dict[str, Any] = data.get("model") or {}
        self.normalizers = _steps(data.get("normalizer"), "normalizers")
        self.pre_tokenizers = _steps(data.get("pre_tokenizer"), "pretokenizers")
        self.decoders = _steps(data.get("decoder"), "decoders")
        self.post_processors = _steps(data.get("post_processor"), "processors")
        added = data.get("added_tokens") if isinstance(data.get("added_tokens"), list) else None
        self.added_tokens: list[dict[str, Any]] = [t for t in added or () if isinstance(t, dict)]

    @property
    def model_type(self) -> str:
        """The model's type as HF reads it: its ``type``, else ``Unigram`` for a list vocabulary, else ``BPE``."""
        return self.model.get("type") or ("Unigram" if isinstance(self.model.get("vocab"), list) else "BPE")

    @property
    def kind(self) -> str:
        """``byte-level BPE``, ``SentencePiece BPE`` (byte fallback or a ``▁`` space), ``Unigram``, ...: in words."""
        model = self.model_type
        if model != "BPE":
            return model
        if any(step.get("type") == "ByteLevel" for step in (*self.pre_tokenizers, *self.decoders)):
            return "byte-level BPE"
        if self.model.get("byte_fallback") or any(step.get("type") == "Metaspace" for step in self.pre_tokenizers):
            return "SentencePiece BPE"
        return "BPE"

    def describe(self) -> str:
        """The pipeline in one line: ``NFC -> Split(Isolated) -> ByteLevel -> BPE``."""
        parts = [_step_name(step) for step in (*self.normalizers, *self.pre_tokenizers)]
        model = self.model_type
        options = [k for k in ("ignore_merges", "byte_fallback") if self.model.get(k)]
        parts.append(model + (f"({', '.join(options)})" if options else ""))
        return " -> ".join(parts)


def _steps(component: Any, key: str) -> tuple[dict[str, Any], ...]:
    """A component's steps, Sequences flattened (a step that is not a JSON object is left out: the
    engine that reads the file refuses it)."""
    if not isinstance(component, dict):
        return ()
    inner = component.get(key)
    if component.get("type") == "Sequence" and isinstance(inner, list):
        return tuple(s for c in inner for s in _steps(c, key))
    return (component,)


def _step_name(step: dict[str, Any]) -> str:
    kind = str(step.get("type"))
    if kind == "Split":
        return f"Split({step.get('behavior')}{', invert' if step.get('invert') else ''})"
    if kind in ("Punctuation",):
        return f"{kind}({step.get('behavior')})"
    return kind
