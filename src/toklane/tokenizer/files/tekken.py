"""Mistral's ``tekken.json``: :func:`parse_tekken` checks it and reads what the engine needs
(:class:`TekkenData`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .fields import _b64, _bytes_list, _clip, _field, _in, _int, _is_int, _list, _obj, _str
from .ranks import missing_bytes

#: Most control/added tokens a tekken.json may declare (Mistral's use 1,000).
MAX_SPECIAL_TOKENS = 1 << 18

#: Longest pre-tokenisation pattern accepted (real ones are under 1 KB).
MAX_PATTERN_CHARS = 64 * 1024


class TekkenData:
    """The validated parts of a Mistral ``tekken.json``."""

    __slots__ = ("n_special", "pattern", "ranks", "special_names", "vocab_size")

    def __init__(
        self, pattern: str, n_special: int, vocab_size: int, ranks: dict[bytes, int], special_names: dict[int, str]
    ):
        self.pattern = pattern
        self.n_special = n_special
        self.vocab_size = vocab_size
        self.ranks = ranks
        self.special_names = special_names


def _parse_tekken(data: Any, source: object, default_specials: Callable[[], list[Any]]) -> TekkenData:
    """Check a parsed ``tekken.json`` and extract what the engine needs.

    Ranks are shifted past the control tokens (ids ``0..n_special-1``); sizes
    are bounded by the file's own vocabulary (``default_vocab_size`` may not
    exceed ``default_num_special_tokens + len(vocab)``, as mistral-common
    asserts). ``default_specials`` supplies the control tokens of files that
    predate the ``special_tokens`` list.
    """
    top = _obj(data, source, "tekken.json")
    config = _obj(top.get("config"), source, "config")
    vocab = _list(top.get("vocab"), source, "vocab")
    pattern = _str(config.get("pattern"), source, "config.pattern")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise _field(source, "config.pattern", f"is {len(pattern):,} characters, over {MAX_PATTERN_CHARS:,}")
    n_special = _int(
        config.get("default_num_special_tokens"), source, "config.default_num_special_tokens", 0, MAX_SPECIAL_TOKENS
    )
    most = n_special + len(vocab)
    vocab_size = _int(config.get("default_vocab_size"), source, "config.default_vocab_size", n_special + 256, most)
    n_ordinary = vocab_size - n_special
    ranks: dict[bytes, int] = {}
    for k in range(n_ordinary):
        entry = _obj(vocab[k], source, f"vocab[{k}]")
        rank = entry.get("rank")
        if rank != k or not _is_int(rank):
            raise _field(source, f"vocab[{k}].rank", f"must be {k} (the entry's position), got {_clip(rank)}")
        token = _b64(entry.get("token_bytes"), source, f"vocab[{k}].token_bytes")
        if ranks.setdefault(token, k + n_special) != k + n_special:
            raise _field(source, f"vocab[{k}].token_bytes", f"repeats the token of vocab[{ranks[token] - n_special}]")
    missing = missing_bytes(ranks)
    if missing:
        raise _field(source, "vocab", f"lacks single-byte tokens {_bytes_list(missing)} (byte-level BPE needs all 256)")

    raw_specials = top.get("special_tokens")
    path = "special_tokens"
    if raw_specials is None:
        raw_specials = default_specials()
        path = "built-in special tokens"
    specials = _list(raw_specials, source, path)
    if len(specials) > n_special:
        raise _field(source, path, f"lists {len(specials)} tokens, more than default_num_special_tokens={n_special}")
    names: dict[int, str] = {}
    seen: dict[str, int] = {}
    for k, item in enumerate(specials):
        item = _obj(item, source, f"{path}[{k}]")
        rank = _int(item.get("rank"), source, f"{path}[{k}].rank", 0, n_special - 1)
        text = _str(item.get("token_str"), source, f"{path}[{k}].token_str")
        if rank in names:
            raise _field(source, f"{path}[{k}].rank", f"{rank} is used twice")
        if text in seen:
            raise _field(source, f"{path}[{k}].token_str", f"{text!r} is used twice")
        names[rank] = str(text)  # mistral-common's built-in list holds str enums
        seen[text] = rank
    for i in range(n_special):
        filler = f"<SPECIAL_{i}>"
        if i not in names and filler in seen:
            raise _field(source, path, f"names a token {filler!r}, the filler name of control token {i}")
    return TekkenData(pattern, n_special, vocab_size, ranks, names)


def parse_tekken(data: Any, source: object, default_specials: Callable[[], list[Any]]) -> TekkenData:
    """Check a parsed ``tekken.json`` and extract what the engine needs (errors name the field)."""
    return _in("tekken.json", _parse_tekken, data, source, default_specials)
