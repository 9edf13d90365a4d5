"""Reading tokenizer files that may come from anywhere: bounded, non-blocking, validated.

Library users load ``tokenizer.json``, ``tekken.json`` and ``.tiktoken`` files
from model repositories they do not control. Everything here runs *before* an
engine is built, so a malformed file fails with a
:class:`~toklane.TokenizerLoadError` that names the field at fault instead of a
``KeyError``, a Rust panic, a hang or an out-of-memory:

* only regular files are read (a FIFO, a device such as ``/dev/zero``, a socket
  or a folder is refused; the file is opened non-blocking and checked with
  ``fstat`` on the open descriptor, so a swapped path cannot slip through), and
  at most :data:`MAX_FILE_BYTES` of them;
* JSON is checked for shape (types of every field we read), ids and ranks for
  range, uniqueness and contiguity, and sizes are bounded by what the file
  actually holds (a 15 KB file cannot declare a 10^20-token vocabulary);
* byte-level BPE vocabularies must hold all 256 single bytes (otherwise the
  engine panics on the first text with a missing byte);
* engine construction itself is guarded (:func:`build_engine`): an exception
  or a pyo3 ``PanicException`` (a ``BaseException``) becomes a load error, and
  a ranked engine must round-trip a probe text before it is handed out.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from ..errors import TokenizerLoadError, json_kind
from .bytelevel import bytes_to_token_string
from .image_cache import PackedRanks

#: Largest tokenizer file read (256 MiB). The biggest real ones are a few tens
#: of MB (Mistral's tekken.json: 15-20 MB; large tokenizer.json files: ~30 MB).
MAX_FILE_BYTES = 256 * 1024 * 1024

#: Most control/added tokens a tekken.json may declare (Mistral's use 1,000).
MAX_SPECIAL_TOKENS = 1 << 18

#: Largest id a tokenizer.json may use: ids past this (or past
#: ``4 * tokens + 65536``) would make the id space mostly holes.
MAX_TOKEN_ID = 1 << 24

#: Longest pre-tokenisation pattern accepted (real ones are under 1 KB).
MAX_PATTERN_CHARS = 64 * 1024

# Text every ranked (byte-level BPE) engine must encode and decode back exactly:
# letters, digits, punctuation, every whitespace class, accents, CJK, emoji (NFC).
PROBE_TEXT = (
    "Hello, World! 123 4567 don't  x\ty\r\nz\n\n\u00a0\u3000 caf\u00e9 na\u00efve "
    "\u4f60\u597d\u4e16\u754c \u3053\u3093\u306b\u3061\u306f \u0434\u0430 \U0001f600 "
    '<|x|> \u2581 `code` {"a": [1, 2.5e-3]} \u0645\u0631\u062d\u0628\u0627'
)

T = TypeVar("T")


def is_engine_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is an engine's error (an ``Exception``, or a pyo3 panic
    surfacing as ``BaseException``), not an interrupt or an exit to re-raise."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return False
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


def build_engine(source: str, what: str, build: Callable[[], T]) -> T:
    """``build()``, with any engine failure (a pyo3 panic included) as a load error."""
    try:
        return build()
    except TokenizerLoadError:
        raise
    except BaseException as exc:
        if not is_engine_failure(exc):
            raise
        raise TokenizerLoadError(source, f"{what} failed ({type(exc).__name__}: {_short(exc)})") from None


def _short(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip().replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


def _in(what: str, check: Callable[..., T], *args: Any) -> T:
    """``check(*args)``, its load errors prefixed with ``not a valid <what>:``."""
    try:
        return check(*args)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(exc.spec, f"not a valid {what}: {exc.reason}") from None


# --------------------------------------------------------------------------- reading


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "something else"


@contextlib.contextmanager
def _regular_file(path: str | os.PathLike[str], where: object) -> Iterator[tuple[int, os.stat_result]]:
    """An open descriptor of a regular file and its stat, checked on the descriptor (opened
    non-blocking, so a FIFO without a writer does not block); OS errors become
    :class:`TokenizerLoadError`."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise TokenizerLoadError(where, f"cannot open it ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TokenizerLoadError(where, f"{os.fspath(path)} is {_kind(st.st_mode)}, not a regular file")
        yield fd, st
    except OSError as exc:
        raise TokenizerLoadError(where, f"cannot read it ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_bytes(path: str | os.PathLike[str], spec: object = None, *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Anything but a regular file, or a file over the limit, is a :class:`TokenizerLoadError`.
    """
    where = os.fspath(path) if spec is None else spec
    with _regular_file(path, where) as (fd, st):
        if st.st_size > limit:
            raise TokenizerLoadError(where, f"file is {st.st_size:,} bytes, over the {limit:,}-byte limit")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 24, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise TokenizerLoadError(where, f"file grew past the {limit:,}-byte limit while being read")
        return b"".join(chunks)


def read_head(path: str | os.PathLike[str], spec: object = None, size: int = 4096) -> bytes:
    """The first ``size`` bytes of a regular file (the checks of :func:`read_bytes`,
    without its size limit): enough to tell which kind of tokenizer file it is."""
    with _regular_file(path, os.fspath(path) if spec is None else spec) as (fd, _):
        return os.read(fd, size)


def read_text(path: str | os.PathLike[str], spec: object = None) -> str:
    """A regular file's text (UTF-8), bounded like :func:`read_bytes`."""
    data = read_bytes(path, spec)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = os.fspath(path) if spec is None else spec
        raise TokenizerLoadError(where, f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def load_json(text: str, source: object, what: str) -> Any:
    """Parsed JSON; malformed or absurdly nested JSON is a load error."""
    try:
        return json.loads(text)
    except RecursionError:
        raise TokenizerLoadError(source, f"not a valid {what}: JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and ints past Python's digit limit
        raise TokenizerLoadError(source, f"not a valid {what}: invalid JSON ({_short(exc)})") from None


# --------------------------------------------------------------------------- field checks


def _field(source: object, path: str, reason: str) -> TokenizerLoadError:
    return TokenizerLoadError(source, f"{path} {reason}")


def _is_int(value: Any) -> bool:
    return type(value) is int


def _obj(value: Any, source: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _field(source, path, f"must be a JSON object, got {json_kind(value, article=True)}")
    return value


def _list(value: Any, source: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _field(source, path, f"must be a JSON array, got {json_kind(value, article=True)}")
    return value


def _int(value: Any, source: object, path: str, lo: int, hi: int) -> int:
    if not _is_int(value):
        raise _field(source, path, f"must be an integer, got {json_kind(value, article=True)} {_clip(value)}")
    if not lo <= value <= hi:
        raise _field(source, path, f"is {value}, outside {lo}..{hi}")
    return value


def _str(value: Any, source: object, path: str, *, nonempty: bool = True) -> str:
    if not isinstance(value, str):
        raise _field(source, path, f"must be a string, got {json_kind(value, article=True)}")
    if nonempty and not value:
        raise _field(source, path, "must not be empty")
    return value


def _clip(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _b64(value: Any, source: object, path: str) -> bytes:
    text = _str(value, source, path)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _field(source, path, f"is not valid base64: {_clip(text)}") from None
    if not data:
        raise _field(source, path, "decodes to no bytes")
    return data


def missing_bytes(tokens: Iterable[bytes]) -> list[int]:
    """The single bytes (0..255) that are not tokens of a byte-level vocabulary."""
    seen = bytearray(256)
    for t in tokens:
        if len(t) == 1:
            seen[t[0]] = 1
    return [b for b in range(256) if not seen[b]]


def _bytes_list(missing: list[int]) -> str:
    shown = ", ".join(f"0x{b:02X}" for b in missing[:8])
    return shown + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")


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
    """Whether the ranks are ints ``offset..offset+N-1``, each once, found with numpy
    (~10x the Python loop, which then only runs to name what is wrong)."""
    import numpy as np

    values = ranks.values()
    if not values or set(map(type, values)) != {int}:
        return False
    try:
        found = np.fromiter(values, dtype=np.int64, count=len(ranks)) - offset
    except OverflowError:
        return False
    n = len(found)
    return bool(found.min() >= 0 and found.max() < n and np.bincount(found, minlength=n).max() == 1)


# --------------------------------------------------------------------------- .tiktoken


# A ``.tiktoken`` line as tiktoken writes it: base64, one space, an ASCII rank of at most 12 digits.
_TIKTOKEN_LINE = re.compile(rb"^([A-Za-z0-9+/]+={0,2}) ([0-9]{1,12})$", re.MULTILINE)


def _parse_tiktoken_lines(data: bytes) -> dict[bytes, int] | None:
    """The ranks of a file whose every line (but an empty last one) is ``<base64> <rank>``
    with one space, ranks below the line count, tokens distinct; else ``None`` (then the
    line-by-line reader reads it, or names its first bad line). ~4x faster than that reader."""
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


# --------------------------------------------------------------------------- tekken.json


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


# --------------------------------------------------------------------------- tokenizer.json

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
    def kind(self) -> str:
        """``byte-level BPE``, ``SentencePiece BPE`` (byte fallback or a ``▁`` space), ``Unigram``, ...: in words."""
        model = self.model.get("type") or ("Unigram" if isinstance(self.model.get("vocab"), list) else "BPE")
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
        model = self.model.get("type") or "BPE"
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


# --------------------------------------------------------------------------- SentencePiece .model

#: SentencePiece piece types (sentencepiece_model.proto).
SP_NORMAL, SP_UNKNOWN, SP_CONTROL, SP_USER_DEFINED, SP_UNUSED, SP_BYTE = 1, 2, 3, 4, 5, 6
#: SentencePiece model types this reader accepts: Unigram and BPE.
SP_MODEL_TYPES = {1: "Unigram", 2: "BPE"}
_SP_ALL_TYPES = {1: "Unigram", 2: "BPE", 3: "Word", 4: "Char"}

#: Largest precompiled normalisation table accepted (real ones are ~200 KB).
MAX_CHARSMAP_BYTES = 16 * 1024 * 1024
#: Longest piece accepted, in bytes (real pieces are under 100).
MAX_PIECE_BYTES = 1024


class SentencePieceModel:
    """The validated parts of a SentencePiece ``.model`` file (a ``ModelProto``), read without protobuf."""

    __slots__ = (
        "add_dummy_prefix",
        "bos_id",
        "byte_fallback",
        "data",
        "eos_id",
        "model_type",
        "normalizer",
        "pad_id",
        "pieces",
        "types",
        "unk_id",
    )

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pieces: list[str] = []
        self.types: list[int] = []
        self.model_type = 1  # the proto's defaults
        self.byte_fallback = False
        self.unk_id, self.bos_id, self.eos_id, self.pad_id = 0, 1, 2, -1
        self.normalizer = "nmt_nfkc"
        self.add_dummy_prefix = True

    @property
    def kind(self) -> str:
        return SP_MODEL_TYPES.get(self.model_type, str(self.model_type))


def _varint(data: bytes, pos: int, end: int, source: object, where: str) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise TokenizerLoadError(
                source, f"not a valid SentencePiece model: {where}: a truncated or overlong varint"
            )
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _fields(data: bytes, pos: int, end: int, source: object, where: str) -> Iterator[tuple[int, int, Any]]:
    """The ``(field, wire type, value)`` of a protobuf message in ``data[pos:end]``: varints as ints,
    length-delimited fields as ``(start, stop)``, fixed32 as 4 bytes; anything malformed is a load error.
    Pieces laid out as SentencePiece writes them (field 1, a one- or two-byte size) come as
    ``(1, 2, (start, stop))`` without the general reading (most of a model file)."""
    while pos < end:
        if data[pos] == 0x0A and pos + 2 < end:  # field 1, length-delimited: a piece
            size = data[pos + 1]
            at = pos + 2
            if size & 0x80:
                size = (size & 0x7F) | (data[pos + 2] << 7)
                at += 1
            if size < 1 << 14 and at + size <= end:
                yield 1, 2, (at, at + size)
                pos = at + size
                continue
        key, pos = _varint(data, pos, end, source, where)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos, end, source, where)
        elif wire == 2:
            size, pos = _varint(data, pos, end, source, where)
            if size > end - pos:
                raise TokenizerLoadError(
                    source, f"not a valid SentencePiece model: {where}: field {field} runs past its end"
                )
            value, pos = (pos, pos + size), pos + size
        elif wire == 5:
            if end - pos < 4:
                raise TokenizerLoadError(source, f"not a valid SentencePiece model: {where}: a truncated fixed32")
            value, pos = data[pos : pos + 4], pos + 4
        elif wire == 1:
            if end - pos < 8:
                raise TokenizerLoadError(source, f"not a valid SentencePiece model: {where}: a truncated fixed64")
            value, pos = data[pos : pos + 8], pos + 8
        else:
            raise TokenizerLoadError(
                source, f"not a valid SentencePiece model: {where}: wire type {wire} of field {field}"
            )
        yield field, wire, value


def _quick_piece(data: bytes, start: int, stop: int) -> tuple[str, int] | None:
    """A piece message laid out as SentencePiece writes it -- ``0A len piece``, ``15`` and a float score,
    then optionally ``18 type`` -- read without the general reader (~10x faster); None for any other
    layout (the general reader then reads it and names what is wrong)."""
    if stop - start < 2 or data[start] != 0x0A:
        return None
    size = data[start + 1]
    at = start + 2 + size
    if size & 0x80 or not 0 < size <= MAX_PIECE_BYTES or at + 5 > stop or data[at] != 0x15:
        return None
    at += 5
    kind = SP_NORMAL
    if at != stop:
        if at + 2 != stop or data[at] != 0x18 or not 1 <= data[at + 1] <= 6:
            return None
        kind = data[at + 1]
    try:
        return data[start + 2 : start + 2 + size].decode("utf-8"), kind
    except UnicodeDecodeError:
        return None


def _signed(value: int) -> int:
    """An int32 field as protobuf stores a negative one (ten bytes, two's complement)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def parse_sentencepiece(data: bytes, source: object) -> SentencePieceModel:
    """Check a SentencePiece ``.model`` file (a serialised ``ModelProto``) and read what the engine
    needs, before the ``sentencepiece`` library sees it: well-formed protobuf, every piece non-empty,
    UTF-8, at most :data:`MAX_PIECE_BYTES`, listed once and of a known type; one unknown piece; a
    Unigram or BPE model; the 256 byte pieces where it falls back to bytes; special ids that name
    pieces. Errors name the field (``pieces[12].piece``, ``trainer_spec.model_type``)."""
    model = SentencePieceModel(data)
    model_type_seen = None
    end = len(data)
    for field, wire, value in _fields(data, 0, end, source, "ModelProto"):
        if field == 1 and wire == 2:  # pieces
            k = len(model.pieces)
            if k >= MAX_TOKEN_ID:
                raise _sp_field(source, "pieces", f"has more than {MAX_TOKEN_ID:,} entries")
            quick = _quick_piece(data, value[0], value[1])
            if quick is not None:  # the usual layout: piece, score, type (one-byte sizes)
                model.pieces.append(quick[0])
                model.types.append(quick[1])
                continue
            piece, kind = None, SP_NORMAL
            for f, w, v in _fields(data, value[0], value[1], source, f"pieces[{k}]"):
                if f == 1 and w == 2:
                    raw = data[v[0] : v[1]]
                    if not raw or len(raw) > MAX_PIECE_BYTES:
                        raise _sp_field(source, f"pieces[{k}].piece", f"is {len(raw)} bytes (1..{MAX_PIECE_BYTES})")
                    try:
                        piece = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        raise _sp_field(source, f"pieces[{k}].piece", "is not UTF-8") from None
                elif f == 3 and w == 0:
                    kind = v
            if piece is None:
                raise _sp_field(source, f"pieces[{k}].piece", "is missing")
            if kind not in (SP_NORMAL, SP_UNKNOWN, SP_CONTROL, SP_USER_DEFINED, SP_UNUSED, SP_BYTE):
                raise _sp_field(source, f"pieces[{k}].type", f"is {kind}, not a SentencePiece piece type (1..6)")
            model.pieces.append(piece)
            model.types.append(kind)
        elif field == 2 and wire == 2:  # trainer_spec
            for f, w, v in _fields(data, value[0], value[1], source, "trainer_spec"):
                if w != 0:
                    continue
                if f == 3:
                    model.model_type = model_type_seen = v
                elif f == 35:
                    model.byte_fallback = bool(v)
                elif f == 40:
                    model.unk_id = _signed(v)
                elif f == 41:
                    model.bos_id = _signed(v)
                elif f == 42:
                    model.eos_id = _signed(v)
                elif f == 43:
                    model.pad_id = _signed(v)
        elif field == 3 and wire == 2:  # normalizer_spec
            for f, w, v in _fields(data, value[0], value[1], source, "normalizer_spec"):
                if f == 1 and w == 2:
                    model.normalizer = data[v[0] : v[1]].decode("utf-8", "replace")
                elif f == 2 and w == 2 and v[1] - v[0] > MAX_CHARSMAP_BYTES:
                    raise _sp_field(
                        source, "normalizer_spec.precompiled_charsmap", f"is over {MAX_CHARSMAP_BYTES:,} bytes"
                    )
                elif f == 3 and w == 0:
                    model.add_dummy_prefix = bool(v)
    _check_sentencepiece(model, source, model_type_seen)
    return model


def _sp_field(source: object, path: str, reason: str) -> TokenizerLoadError:
    return TokenizerLoadError(source, f"not a valid SentencePiece model: {path} {reason}")


def _check_sentencepiece(model: SentencePieceModel, source: object, model_type_seen: int | None) -> None:
    n = len(model.pieces)
    if not n:
        raise _sp_field(source, "pieces", "is empty (is this a SentencePiece .model file?)")
    if model.model_type not in SP_MODEL_TYPES:
        name = _SP_ALL_TYPES.get(model.model_type, str(model.model_type))
        raise _sp_field(source, "trainer_spec.model_type", f"is {name}; Unigram and BPE models are read")
    seen: dict[str, int] = {}
    for k, piece in enumerate(model.pieces):
        if seen.setdefault(piece, k) != k:
            raise _sp_field(source, f"pieces[{k}].piece", f"{piece[:40]!r} repeats pieces[{seen[piece]}]")
    unknown = [k for k, t in enumerate(model.types) if t == SP_UNKNOWN]
    if len(unknown) != 1:
        raise _sp_field(source, "pieces", f"hold {len(unknown)} unknown (type 2) pieces; a model has exactly one")
    for name in ("unk_id", "bos_id", "eos_id", "pad_id"):
        value = getattr(model, name)
        if not -1 <= value < n:
            raise _sp_field(source, f"trainer_spec.{name}", f"is {value}, outside -1..{n - 1}")
    if model.unk_id != unknown[0]:
        raise _sp_field(source, "trainer_spec.unk_id", f"is {model.unk_id}, but the unknown piece is {unknown[0]}")
    if model.byte_fallback:
        missing = [b for b in range(256) if f"<0x{b:02X}>" not in seen or model.types[seen[f"<0x{b:02X}>"]] != SP_BYTE]
        if missing:
            raise _sp_field(
                source, "pieces", f"lack byte pieces for bytes {_bytes_list(missing)} (byte_fallback needs all 256)"
            )


def parse_tiktoken_ranks(data: bytes, source: object) -> dict[bytes, int]:
    """Ranks of a ``.tiktoken`` file (``<base64 token> <rank>`` per line): each line
    well-formed, each token once, ranks below the line count; errors name the line.
    Contiguity and byte coverage are :func:`check_ranks`' (run before any engine is built)."""
    return _in(".tiktoken file", _parse_tiktoken_ranks, data, source)


def parse_tekken(data: Any, source: object, default_specials: Callable[[], list[Any]]) -> TekkenData:
    """Check a parsed ``tekken.json`` and extract what the engine needs (errors name the field)."""
    return _in("tekken.json", _parse_tekken, data, source, default_specials)


def check_tokenizer_json(data: Any, source: object) -> None:
    """Check a parsed ``tokenizer.json`` before HF ``tokenizers`` builds it (errors name the field)."""
    _in("tokenizer.json", _check_tokenizer_json, data, source)


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_PATTERN_CHARS",
    "MAX_SPECIAL_TOKENS",
    "MAX_TOKEN_ID",
    "PROBE_TEXT",
    "Pipeline",
    "SentencePieceModel",
    "TekkenData",
    "build_engine",
    "check_ranks",
    "check_tokenizer_json",
    "is_engine_failure",
    "load_json",
    "missing_bytes",
    "parse_sentencepiece",
    "parse_tekken",
    "parse_tiktoken_ranks",
    "read_bytes",
    "read_head",
    "read_text",
]
