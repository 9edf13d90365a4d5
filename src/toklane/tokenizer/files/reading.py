"""Reading a tokenizer file safely: regular files only, opened non-blocking and checked on the
descriptor, at most :data:`MAX_FILE_BYTES`; JSON parsed with its errors as load errors; engine
construction guarded (:func:`build_engine`) and the probe text a ranked engine must round-trip."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ...errors import TokenizerLoadError

#: Largest tokenizer file read (256 MiB). The biggest real ones are a few tens
#: of MB (Mistral's tekken.json: 15-20 MB; large tokenizer.json files: ~30 MB).
MAX_FILE_BYTES = 256 * 1024 * 1024

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
