"""BPE ranks tables: the checks an engine needs (:func:`check_ranks`, :func:`missing_bytes`) and the
``.tiktoken`` reader (:func:`parse_tiktoken_ranks`)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping

from ...errors import TokenizerLoadError
from ..image_cache import PackedRanks
from .fields import _bytes_list, _clip, _in, _is_int


def missing_bytes(tokens: Iterable[bytes]) -> list[int]:
    """The single bytes (0..255) that are not tokens of a byte-level vocabulary."""
    seen = bytearray(256)
    for t in tokens:
        if len(t) == 1:
            seen[t[0]] = 1
    return [b for b in range(256) if not seen[b]]


def check_ranks(ranks: Mapping[bytes, int], source: object, what: str = "ranks", *, offset: int = 0) -> None:
    """A BPE ranks table an engine can use: ranks exactly ``offset..offset+N-1``,
    each once, all 256 single bytes present (tiktoken panics on a missing byte)."""
    n = len(ranks)
    if isinstance(ranks, PackedRanks) and _packed_ranks_sound(ranks, offset):  # (no dict made)
        return
    if not _ranks_in_range(ranks, offset):
        seen = bytearray(n)
        for token, rank in ranks.items():
            if not _is_int(rank) or not offset <= rank < offset + n:
                raise TokenizerLoadError(
                    source, f"{what}: rank {_clip(rank)} of {_clip(token)} is outside {offset}..{offset + n - 1}"
                )
            if seen[rank - offset]:
                raise TokenizerLoadError(source, f"{what}: rank {rank} is used twice")
            seen[rank - offset] = 1
    # n ranks, each in the n-wide range, none twice: exactly that range.
    missing = [b for b in range(256) if bytes((b,)) not in ranks]  # (256 look-ups, not a walk of the table)
    if missing:
        raise TokenizerLoadError(
            source, f"{what} lack single-byte tokens {_bytes_list(missing)} (a byte-level BPE needs all 256)"
        )


def _packed_ranks_sound(ranks: PackedRanks, offset: int) -> bool:
    """Whether packed ranks are ``offset..offset+N-1`` each once and hold every single byte (else the
    dict's check below names what is wrong)."""
    return bool(len(ranks)) and ranks.dense and ranks.lowest == offset and ranks.singles == 256


def _ranks_in_range(ranks: Mapping[bytes, int], offset: int) -> bool:
    """Whether the ranks are ints ``offset..offset+N-1``, each once: N distinct ints from the lowest to
    the highest of that range (C-speed builtins, and no numpy import, which would add to a first load;
    the Python loop then only runs to name what is wrong)."""
    values = ranks.values()
    n = len(values)
    if not n or set(map(type, values)) != {int}:
        return False
    return min(values) == offset and max(values) == offset + n - 1 and len(set(values)) == n


# --------------------------------------------------------------------------- .tiktoken


# A ``.tiktoken`` line as tiktoken writes it: base64, one space, an ASCII rank of at most 12 digits.
_TIKTOKEN_LINE = re.compile(rb"^([A-Za-z0-9+/]+={0,2}) ([0-9]{1,12})$", re.MULTILINE)


def _parse_tiktoken_lines(data: bytes) -> dict[bytes, int] | None:
    """The ranks of a file whose every line (but an empty last one) is ``<base64> <rank>``
    with one space, ranks below the line count, tokens distinct; else ``None`` (then the
    line-by-line reader reads it, or names its first bad line). Several times faster than that reader."""
    lines = data.count(b"\n") + 1
    found = _TIKTOKEN_LINE.findall(data)  # at most one match per line
    if not found or len(found) != lines - data.endswith(b"\n"):  # every line but a last empty one
        return None
    tokens, rank_texts = zip(*found, strict=True)
    try:
        ranks = dict(zip(map(_a2b_strict, tokens), map(int, rank_texts), strict=True))
    except binascii.Error:
        return None
    if len(ranks) != len(found) or max(ranks.values()) >= lines:
        return None
    return ranks


def _a2b_strict(text: bytes) -> bytes:
    return binascii.a2b_base64(text, strict_mode=True)


def _parse_tiktoken_ranks(data: bytes, source: object) -> dict[bytes, int]:
    """Ranks of a ``.tiktoken`` file (``<base64 token> <rank>`` per line), validated
    with :func:`check_ranks`; errors name the line."""
    fast = _parse_tiktoken_lines(data)
    return fast if fast is not None else _parse_tiktoken_line_by_line(data, source)


def _parse_tiktoken_line_by_line(data: bytes, source: object) -> dict[bytes, int]:
    """:func:`_parse_tiktoken_ranks` one line at a time: what it reads, or the first bad line."""
    ranks: dict[bytes, int] = {}
    lines = data.split(b"\n")
    limit = len(lines)
    b64 = base64.b64decode
    count = 0
    for lineno, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        count += 1
        if len(parts) != 2:
            raise TokenizerLoadError(source, f"line {lineno} is not '<base64> <rank>' ({len(parts)} fields)")
        token_text, rank_text = parts
        try:
            token = b64(token_text, validate=True)
        except (binascii.Error, ValueError):
            raise TokenizerLoadError(source, f"line {lineno}: token {_clip(token_text)} is not valid base64") from None
        if not token:
            raise TokenizerLoadError(source, f"line {lineno}: token decodes to no bytes")
        if not rank_text.isdigit() or len(rank_text) > 12:
            raise TokenizerLoadError(
                source, f"line {lineno}: rank {_clip(rank_text)} is not a small non-negative integer"
            )
        rank = int(rank_text)
        if rank >= limit:
            raise TokenizerLoadError(source, f"line {lineno}: rank {rank} is past the {limit} lines of the file")
        ranks[token] = rank
        if len(ranks) != count:
            raise TokenizerLoadError(source, f"line {lineno}: token {_clip(token)} appears twice")
    if not ranks:
        raise TokenizerLoadError(source, "no ranks in file")
    return ranks


def parse_tiktoken_ranks(data: bytes, source: object) -> dict[bytes, int]:
    """Ranks of a ``.tiktoken`` file (``<base64 token> <rank>`` per line): each line
    well-formed, each token once, ranks below the line count; errors name the line.
    Contiguity and byte coverage are :func:`check_ranks`' (run before any engine is built)."""
    return _in(".tiktoken file", _parse_tiktoken_ranks, data, source)
