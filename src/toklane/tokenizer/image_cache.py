"""A per-user disk cache of what toklane derives from bundled data at load (parsed ranks, tables).

Parsing a bundled vocabulary costs far more than reading its result back: Qwen3.6's 248K-line
``.tiktoken`` file read as base64 in Python, DeepSeek-V4's merges replayed as ranks, the NFC flag
table. The first load writes each result here as a compact image; later loads in any process read it
back (``benchmarks/tokenizer.py --cold-start`` prints loads with the cache empty and warm).

Where: ``$TOKLANE_CACHE_DIR`` (``off`` switches the cache off), else ``$XDG_CACHE_HOME/toklane``,
else ``~/.cache/toklane``. Each image is keyed by what it was derived from (the source file's real
path, size, modification time and a hash of its first and last 64 KiB; Python's Unicode version
for Unicode tables), the image format and the byte order; the key is stored in the image and
compared on read. An image is written to a temporary file and renamed into place (readers never
see half a file; two processes loading at once each write a whole image, the last rename wins)
and checked on read: magic, format version, key and a CRC-32 of key and payload (it finds corruption:
faster than BLAKE2b, a share of a warm load saved, and no weaker against forgery, which neither stops:
whoever can write the cache folder can write any image with its own checksum). A
missing, truncated, corrupt or foreign image is rebuilt and rewritten, never trusted and never an
error; a cache folder that cannot be made or written is skipped (the load works without it).

Most images are read into memory. An encoder image (the compiled encoder's own tables:
:func:`.engines.compiled.compiled_engine`) is memory-mapped read-only instead (:func:`mapped`), so every
process that loads the tokenizer shares one copy of its pages; payloads start 16-byte aligned in the
file for that, and the encoder checks the tables it maps before it trusts them.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import mmap
import os
import struct
import sys
import zlib
from array import array
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

#: Bumped whenever a payload's layout or what it holds changes.
FORMAT = 2
_MAGIC = b"TOKLIMG\x01"
_HEADER = struct.Struct("<8sIIQI")  # magic, format, key length, payload length, CRC-32
_EDGE = 1 << 16  # bytes hashed at each end of a source file


def cache_dir() -> Path | None:
    """The cache folder (not created here), or None where ``TOKLANE_CACHE_DIR=off``."""
    chosen = os.environ.get("TOKLANE_CACHE_DIR")
    if chosen:
        return None if chosen.strip().lower() == "off" else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "toklane"


def _checksum(key: bytes, payload: bytes | memoryview) -> int:
    return zlib.crc32(payload, zlib.crc32(key))


def file_key(path: str | os.PathLike[str]) -> str | None:
    """What identifies a source file's content cheaply (real path, size, mtime, a hash of its ends),
    or None where it cannot be read."""
    try:
        real = os.path.realpath(path)
        with open(real, "rb") as f:
            st = os.fstat(f.fileno())
            head = f.read(_EDGE)
            if st.st_size > 2 * _EDGE:
                f.seek(st.st_size - _EDGE)
            tail = f.read(_EDGE)
    except OSError:
        return None
    edges = hashlib.blake2b(head + b"\0" + tail, digest_size=16).hexdigest()
    return f"{real}|{st.st_size}|{st.st_mtime_ns}|{edges}"


def _path(kind: str, key: bytes) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    return folder / f"{kind}-{hashlib.blake2b(key, digest_size=16).hexdigest()}.img"


def _payload_at(key_len: int) -> int:
    """Where a payload starts in an image: after the header and key, at the next multiple of 16 (a
    memory-mapped payload's tables are then aligned as the C code reads them)."""
    return -(-(_HEADER.size + key_len) // 16) * 16


def _sound(data: bytes | mmap.mmap, key: bytes) -> memoryview | None:
    """The payload of ``data`` (a whole image file) where it is a sound image made for ``key``."""
    if len(data) < _HEADER.size:
        return None
    magic, fmt, key_len, payload_len, checksum = _HEADER.unpack_from(data)
    at = _payload_at(key_len)
    if magic != _MAGIC or fmt != FORMAT or len(data) != at + payload_len:
        return None
    view = memoryview(data)
    payload = view[at:]
    if bytes(view[_HEADER.size : _HEADER.size + key_len]) != key or _checksum(key, payload) != checksum:
        return None
    return payload


def _read(path: Path, key: bytes) -> bytes | None:
    """The payload of a sound image at ``path`` made for ``key``, else None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    payload = _sound(data, key)
    return None if payload is None else payload.tobytes()


def _write(path: Path, key: bytes, payload: bytes) -> None:
    """The image, written to a temporary file and renamed into place; any failure is skipped."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        header = _HEADER.pack(_MAGIC, FORMAT, len(key), len(payload), _checksum(key, payload))
        with open(tmp, "wb") as f:
            f.write(header)
            f.write(key)
            f.write(bytes(_payload_at(len(key)) - _HEADER.size - len(key)))
            f.write(payload)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def mapped(kind: str, key: str) -> memoryview | None:
    """The payload of the image stored for ``kind`` and ``key``, memory-mapped (read-only pages of the
    file, shared by every process that maps it; checked as :func:`cached` checks what it reads), or None
    where there is none, it is unsound, or the file cannot be mapped. The view keeps the map open."""
    full = _full_key(kind, key)
    path = _path(kind, full)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # (none; an empty file cannot be mapped)
        return None
    return _sound(data, full)


def _full_key(kind: str, key: str | None) -> bytes:
    return f"{kind}|{FORMAT}|{sys.byteorder}|{key}".encode("utf-8", "surrogatepass")


def _store(kind: str, key: str, payload: bytes) -> None:
    full = _full_key(kind, key)
    path = _path(kind, full)
    if path is not None:
        _write(path, full, payload)


def store(kind: str, key: str, payload: bytes) -> None:
    """Keep ``payload`` as the image for ``kind`` and ``key`` (for what is stored only once it proved
    sound, where :func:`cached` would store what it builds at once)."""
    _store(kind, key, payload)


def lookup(kind: str, key: str, load: Callable[[bytes], T | None]) -> T | None:
    """``load(payload)`` of the image stored for ``kind`` and ``key``, or None (none, or unsound)."""
    full = _full_key(kind, key)
    path = _path(kind, full)
    payload = None if path is None else _read(path, full)
    if payload is None:
        return None
    try:
        return load(payload)
    except Exception:  # an unsound payload that passed the checksum
        return None


def cached(
    kind: str, key: str | None, build: Callable[[], T], dump: Callable[[T], bytes], load: Callable[[bytes], T | None]
) -> T:
    """``load(payload)`` of the image stored for ``kind`` and ``key``; else ``build()``, stored as
    ``dump(value)``. ``load`` returns None for a payload it finds unsound (then it is rebuilt);
    ``key`` None: no cache."""
    full = _full_key(kind, key)
    path = None if key is None else _path(kind, full)
    if path is not None:
        payload = _read(path, full)
        if payload is not None:
            try:
                got = load(payload)
            except Exception:  # an unsound payload that passed the checksum: rebuilt below
                got = None
            if got is not None:
                return got
    value = build()
    if path is not None:
        try:
            data = dump(value)
        except Exception:  # (a value this format cannot hold: not cached)
            return value
        _write(path, full, data)
    return value


# --------------------------------------------------------------------------- ranks tables

_COUNTS = struct.Struct("<II")  # tokens, blob length


def ranks_payload(ranks: dict[bytes, int]) -> bytes:
    """``ranks`` as an image payload: counts, int32 offsets into one blob of token bytes, int32 ranks, the blob
    (in one compiled pass where ``toklane._bpe`` is built: several times faster than the Python below)."""
    bpe = _compiled()
    packed = bpe.pack_ranks(ranks) if bpe is not None and type(ranks) is dict else None
    return packed if packed is not None else _ranks_payload_python(ranks)


def _ranks_payload_python(ranks: dict[bytes, int]) -> bytes:
    """:func:`ranks_payload` without the compiled module (or for what it declines: it raises here)."""
    tokens = list(ranks)
    offsets = array("i", itertools.accumulate(map(len, tokens), initial=0))
    values = array("i", ranks.values())
    blob = b"".join(tokens)
    return _COUNTS.pack(len(tokens), len(blob)) + offsets.tobytes() + values.tobytes() + blob


def _counts(payload: bytes | memoryview) -> tuple[int, int] | None:
    """The token count and blob size of a :func:`ranks_payload` payload whose length they account for."""
    if len(payload) < _COUNTS.size:
        return None
    n, size = _COUNTS.unpack_from(payload)
    return (n, size) if len(payload) == _COUNTS.size + 4 * (n + 1) + 4 * n + size else None


def ranks_from_payload(payload: bytes | memoryview) -> dict[bytes, int] | None:
    """The ranks of :func:`ranks_payload`'s image, or None where it does not hold a sound table."""
    counts = _counts(payload)
    if counts is None:
        return None
    n, size = counts
    start = _COUNTS.size
    offsets = array("i")
    offsets.frombytes(payload[start : start + 4 * (n + 1)])
    values = array("i")
    values.frombytes(payload[start + 4 * (n + 1) : start + 4 * (2 * n + 1)])
    blob = bytes(payload[start + 4 * (2 * n + 1) :])
    if offsets[0] != 0 or offsets[-1] != size:
        return None
    tokens = [blob[a:b] for a, b in itertools.pairwise(offsets)]
    if not all(tokens):  # (a token of no bytes: offsets out of order)
        return None
    ranks = dict(zip(tokens, values, strict=True))
    return ranks if len(ranks) == n else None


class PackedRanks(Mapping[bytes, int]):
    """Ranks read back from an image, held as its payload: the compiled encoder builds from the payload
    in place (``toklane._bpe.build_packed``) and decodes from its own copy, so a load makes no bytes or
    int object per token; the dict is made the first time something asks for it (:meth:`as_dict`: a
    tiktoken reference, the token tables, an upgrade's build)."""

    __slots__ = ("_dict", "_n", "_rebuild", "dense", "image", "lowest", "payload", "singles")

    def __init__(
        self,
        payload: bytes,
        n: int,
        rebuild: Callable[[], dict[bytes, int]] | None = None,
        *,
        dense: bool,
        singles: int,
        lowest: int,
    ) -> None:
        self.payload = payload
        self._n = n
        self._dict: dict[bytes, int] | None = None
        self._rebuild = rebuild
        #: Whether the ranks are ``lowest .. lowest + n - 1``, each once.
        self.dense = dense
        #: How many distinct bytes are tokens of their own (256 for a byte-level vocabulary).
        self.singles = singles
        #: The lowest rank (0 for none).
        self.lowest = lowest
        #: What names the image these ranks were read from (``kind|key``; None where not known): what
        #: derives from them is keyed by it (:func:`.engines.compiled.compiled_engine`'s encoder image).
        self.image: str | None = None

    @classmethod
    def read(cls, payload: bytes, rebuild: Callable[[], dict[bytes, int]] | None = None) -> PackedRanks | None:
        """The ranks of a payload whose layout holds (sizes, offsets rising from 0 to the blob's end),
        else None; read in one compiled pass where ``toklane._bpe`` is built (numpy otherwise). A token
        given twice is found where the payload is read (the compiled build, the dict): the ranks then
        come from ``rebuild()`` (which rewrites the image), never a wrong table."""
        layout, dense, singles, lowest = _packed_check(payload)
        if not layout:
            return None
        return cls(payload, _COUNTS.unpack_from(payload)[0], rebuild, dense=dense, singles=singles, lowest=lowest)

    def as_dict(self) -> dict[bytes, int]:
        """The ranks as a dict (made once; from ``rebuild`` where the payload gives a token twice)."""
        if self._dict is None:
            ranks = ranks_from_payload(self.payload)
            if ranks is None:
                if self._rebuild is None:
                    raise ValueError("an unsound ranks image")
                ranks = self._rebuild()
                self.payload, self._n = ranks_payload(ranks), len(ranks)
                _, self.dense, self.singles, self.lowest = _packed_check(self.payload)
            self._dict = ranks
        return self._dict

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, token: bytes) -> int:
        return self.as_dict()[token]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.as_dict())

    def __contains__(self, token: object) -> bool:
        return token in self.as_dict()

    def keys(self) -> KeysView[bytes]:
        return self.as_dict().keys()

    def values(self) -> ValuesView[int]:
        return self.as_dict().values()

    def items(self) -> ItemsView[bytes, int]:
        return self.as_dict().items()


def as_dict(ranks: Mapping[bytes, int]) -> dict[bytes, int]:
    """``ranks`` as a dict: itself, or a :class:`PackedRanks`' dict (made once)."""
    if isinstance(ranks, PackedRanks):
        return ranks.as_dict()
    return ranks if isinstance(ranks, dict) else dict(ranks)


def lowest_rank(ranks: Mapping[bytes, int]) -> int:
    """The lowest rank (0 for no ranks), without making a :class:`PackedRanks`' dict."""
    if isinstance(ranks, PackedRanks):
        return ranks.lowest
    return min(ranks.values(), default=0)


def _compiled() -> Any:
    """``toklane._bpe`` where it is built and in use (``TOKLANE_PURE_PYTHON`` off), else None."""
    from ..switches import pure_python

    try:
        from .. import _bpe  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - built by the dev install
        return None
    return None if pure_python() else _bpe


def _packed_check(payload: bytes) -> tuple[bool, bool, int, int]:
    """``toklane._bpe.packed_check``: (layout sound, ranks dense from the lowest, single bytes, lowest)."""
    bpe = _compiled()
    if bpe is not None:
        return bpe.packed_check(payload)  # type: ignore[no-any-return]
    return _packed_check_numpy(payload)


def _packed_check_numpy(payload: bytes) -> tuple[bool, bool, int, int]:
    """:func:`_packed_check` without the compiled module."""
    import numpy as np

    counts = _counts(payload)
    if counts is None:
        return False, False, 0, 0
    n, size = counts
    start = _COUNTS.size
    offsets = np.frombuffer(payload, dtype="=i4", count=n + 1, offset=start)
    if offsets[0] != 0 or offsets[-1] != size or not (np.diff(offsets) > 0).all():
        return False, False, 0, 0
    values = np.frombuffer(payload, dtype="=i4", count=n, offset=start + 4 * (n + 1)).astype(np.int64)
    lowest = int(values.min()) if n else 0
    found = values - lowest
    dense = bool(not n or (found.max() < n and np.bincount(found, minlength=n).max() == 1))
    blob = np.frombuffer(payload, dtype=np.uint8, offset=start + 4 * (2 * n + 1))
    singles = len(set(blob[offsets[:-1][np.diff(offsets) == 1]].tolist()))
    return True, dense, singles, lowest


def cached_ranks(kind: str, key: str | None, build: Callable[[], dict[bytes, int]]) -> Mapping[bytes, int]:
    """``build()``'s ranks (derived from what ``key`` names), from the cache where an image of them is
    (then held packed: :class:`PackedRanks`)."""

    def rebuild() -> dict[bytes, int]:
        value = build()
        if key is not None:
            _store(kind, key, ranks_payload(value))
        return value

    def load(payload: bytes) -> PackedRanks | None:
        packed = PackedRanks.read(payload, rebuild)
        if packed is not None:
            packed.image = f"{kind}|{key}"
        return packed

    return cached(kind, key, build, ranks_payload, load)


def ranks(kind: str, source: str | os.PathLike[str], build: Callable[[], dict[bytes, int]]) -> Mapping[bytes, int]:
    """``build()``'s ranks (derived from the file ``source``), from the cache where an image of them is."""
    return cached_ranks(kind, file_key(source), build)


def table(kind: str, key: str, size: int, build: Callable[[], bytes]) -> bytes:
    """``build()``'s ``size`` bytes (derived from what ``key`` names), from the cache where an image of them is."""
    return cached(kind, key, build, bytes, lambda payload: payload if len(payload) == size else None)
