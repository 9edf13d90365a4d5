"""Corpus inputs: which files, how they are cut into splits, and how a split is read.

A *split* is the unit of work a worker takes: a byte range of a JSON Lines file cut at
a line end, a range of a Parquet file's row groups, or a run of small files. The cuts
depend only on the files and ``split_bytes``, never on the number of workers, so every
worker count gives the same splits (and ``tokenize_corpus`` the same shards). The
parent never reads the data: it only plans.
"""

from __future__ import annotations

import glob
import itertools
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidArgumentError

Kind = Literal["jsonl", "parquet", "text"]
JSON_LINES_SUFFIXES = (".jsonl", ".json")
CHUNK_RECORDS = 2000  # records encoded in one batch call
CHUNK_BYTES = 1 << 20  # or fewer records once a chunk holds this many bytes
PARQUET_EXTRA = 'reading .parquet needs pyarrow: pip install "toklane[corpus]"'


class CorpusError(InvalidArgumentError):
    """A corpus input that cannot be read: names the file (and line) and the fix."""

    def __init__(self, where: str, reason: str):
        super().__init__(where, reason)

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"

    def __reduce__(self) -> tuple[Any, ...]:  # raised in worker processes: must survive pickling
        return (type(self), (self.field, self.reason))


def expand_inputs(inputs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """Files named by paths, folders (every file below, sorted) and globs, in the order given.

    Each real file is listed once, however many names, globs or links reach it. Folders and
    ``**`` do not enter symlinked folders, so a link loop cannot repeat or hang the walk (links
    to files are read). A named file must be a regular file: a pipe or a device is refused."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    files: list[str] = []
    seen: set[tuple[int, int]] = set()

    def add(path: str, st: os.stat_result) -> None:
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            files.append(path)

    for item in inputs:
        spec = os.path.expanduser(os.fspath(item))
        st = _stat(spec)
        if st is not None and stat.S_ISDIR(st.st_mode):
            for p in sorted(Path(spec).rglob("*")):  # pathlib's walk does not enter symlinked folders
                if not any(part.startswith(".") for part in p.relative_to(spec).parts):
                    _add_regular(str(p), add)
        elif st is not None:
            if not stat.S_ISREG(st.st_mode):
                raise CorpusError(spec, f"is {_kind_of(st.st_mode)}, not a regular file: {NOT_REGULAR}")
            add(spec, st)
        elif glob.has_magic(spec):
            matched = [_add_regular(path, add) for path in _glob(spec)]
            if not any(matched):
                raise CorpusError(spec, "no file matches this pattern")
        else:
            raise CorpusError(spec, "no such file or folder")
    return files


NOT_REGULAR = "corpus inputs are read by byte ranges, so they must be regular files (save the stream to a file first)"


def _stat(spec: str) -> os.stat_result | None:
    """``os.stat(spec)``; None where nothing is there; a CorpusError where it cannot be asked."""
    try:
        return os.stat(spec)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except ValueError:  # an embedded NUL
        raise CorpusError(repr(spec), "is not a path (it holds a NUL character)") from None
    except OSError as exc:
        raise CorpusError(spec, f"cannot be read: {exc.strerror or exc}") from None


def _kind_of(mode: int) -> str:
    kinds = {
        stat.S_ISFIFO: "a named pipe (FIFO)",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "not a file")


def _add_regular(path: str, add: Callable[[str, os.stat_result], None]) -> bool:
    """Add ``path`` if it is (a link to) a regular file; whether it is."""
    try:
        st = os.stat(path)
    except OSError:  # a dangling link, or gone since it was listed
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    add(path, st)
    return True


def _glob(spec: str) -> list[str]:
    """The paths ``spec`` matches, sorted, as :func:`glob.glob` with ``recursive=True`` gives them
    (hidden names only where the pattern starts a name with a dot), except that ``**`` never
    enters a symlinked folder: the walk is pathlib's, which does not follow links to folders."""
    parts = spec.split(os.sep)
    first = next(i for i, part in enumerate(parts) if glob.has_magic(part))
    root = os.sep.join(parts[:first]) or (os.sep if spec.startswith(os.sep) else "")
    pattern = os.sep.join(parts[first:])
    hidden_ok = any(part.startswith(".") for part in parts[first:])
    found = []
    for path in Path(root or ".").glob(pattern):
        relative = path.relative_to(root or ".")
        if hidden_ok or not any(part.startswith(".") for part in relative.parts):
            found.append(os.path.join(root, str(relative)) if root else str(relative))
    return sorted(found)


def file_kind(path: str) -> Kind:
    suffix = Path(path).suffix.lower()
    if suffix in JSON_LINES_SUFFIXES:
        return "jsonl"
    if suffix == ".parquet":
        return "parquet"
    return "text"


def parquet_file(path: str, required: Iterable[str] = ()) -> Any:
    """The Parquet file at ``path``; a CorpusError if it cannot be read, lacks a ``required``
    column or names two columns alike."""
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise CorpusError(path, PARQUET_EXTRA) from None
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError with its own wording
        raise CorpusError(path, f"not a readable Parquet file ({exc})") from None
    names = pf.schema_arrow.names
    missing = [c for c in required if c not in names]
    if missing:
        raise CorpusError(path, f"no column {missing[0]!r} (columns: {', '.join(names)})")
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise CorpusError(path, f"has two columns named {twice!r}: rename one first")
    return pf


@dataclass(frozen=True)
class Piece:
    """Part of one file: bytes [start, stop) of a JSON Lines or text file (cut at line
    ends), or row groups [start, stop) of a Parquet file."""

    kind: Kind
    path: str
    start: int
    stop: int


@dataclass(frozen=True)
class Split:
    index: int
    pieces: tuple[Piece, ...]
    nbytes: int  # input bytes (Parquet: the row groups' uncompressed size)


def _line_cuts(path: str, size: int, split_bytes: int) -> list[int]:
    """Offsets 0 < c1 < ... < size where a JSON Lines file is cut: the first line end at or
    after every ``split_bytes``."""
    cuts = [0]
    with open(path, "rb") as f:
        pos = split_bytes
        while pos < size:
            f.seek(pos - 1)
            found = -1
            while found < 0:
                block = f.read(1 << 16)
                if not block:
                    break
                found = block.find(b"\n")
                if found < 0:
                    pos += len(block)
            cut = min(pos + found, size) if found >= 0 else size
            if cut >= size:
                break
            cuts.append(cut)
            pos = cut + split_bytes
    cuts.append(size)
    return cuts


def plan_splits(files: list[str], split_bytes: int, required: Iterable[str] = ()) -> list[Split]:
    """Cut ``files`` into splits of about ``split_bytes`` (see the module docstring).

    Small JSON Lines and text files share a split; a Parquet split holds row groups of
    one file only (files may differ in columns). A Parquet file without a ``required``
    column is a CorpusError here, before any work starts."""
    try:
        return _plan_splits(files, split_bytes, tuple(required))
    except OSError as exc:
        raise CorpusError(exc.filename or "?", f"cannot be read: {exc.strerror or exc}") from None


def _plan_splits(files: list[str], split_bytes: int, required: tuple[str, ...]) -> list[Split]:
    splits: list[Split] = []
    pending: list[Piece] = []
    pending_bytes = 0

    def flush() -> None:
        nonlocal pending, pending_bytes
        if pending:
            splits.append(Split(len(splits), tuple(pending), pending_bytes))
            pending, pending_bytes = [], 0

    for path in files:
        kind = file_kind(path)
        if kind == "parquet":
            flush()
            meta = parquet_file(path, required).metadata
            first, size = 0, 0
            for group in range(meta.num_row_groups):
                size += meta.row_group(group).total_byte_size
                if size >= split_bytes:
                    splits.append(Split(len(splits), (Piece(kind, path, first, group + 1),), size))
                    first, size = group + 1, 0
            if first < meta.num_row_groups or meta.num_row_groups == 0:
                splits.append(Split(len(splits), (Piece(kind, path, first, meta.num_row_groups),), size))
            continue
        size = os.path.getsize(path)
        cuts = _line_cuts(path, size, split_bytes) if kind == "jsonl" else [0, size]
        for start, stop in itertools.pairwise(cuts):
            pending.append(Piece(kind, path, start, stop))
            pending_bytes += stop - start
            if pending_bytes >= split_bytes:
                flush()
    flush()
    return splits


# A chunk of a piece: (first line/row number within the piece, 1-based; items). Items are raw
# lines (bytes) for JSON Lines, a pyarrow RecordBatch for Parquet, the file's bytes for text.
Chunk = tuple[int, Any]


def read_chunks(
    piece: Piece, columns: list[str] | None, required: str | None = None, chunk_records: int = CHUNK_RECORDS
) -> Iterator[Chunk]:
    """The piece's records in chunks of at most ``chunk_records`` (and about ``CHUNK_BYTES``);
    Parquet: only ``columns`` (None: all), which must include the ``required`` one."""
    try:
        yield from _read_chunks(piece, columns, required, chunk_records)
    except OSError as exc:
        raise CorpusError(piece.path, f"cannot be read: {exc.strerror or exc}") from None


def _read_chunks(piece: Piece, columns: list[str] | None, required: str | None, chunk_records: int) -> Iterator[Chunk]:
    if piece.kind == "text":
        with open(piece.path, "rb") as f:
            yield (1, [f.read()])
    elif piece.kind == "parquet":
        pf = parquet_file(piece.path, [required] if required else ())
        if columns is not None:  # columns the file lacks are null in the shards (another file may hold them)
            columns = [c for c in columns if c in pf.schema_arrow.names]
        row = 1
        groups = list(range(piece.start, piece.stop))
        if groups:
            for batch in pf.iter_batches(batch_size=chunk_records, row_groups=groups, columns=columns):
                yield (row, batch)
                row += batch.num_rows
    else:
        with open(piece.path, "rb") as f:
            f.seek(piece.start)
            left = piece.stop - piece.start
            line_no, lines, size = 1, [], 0
            while left > 0:
                line = f.readline(left)
                if not line:
                    break
                left -= len(line)
                lines.append(line)
                size += len(line)
                if len(lines) >= chunk_records or size >= CHUNK_BYTES:
                    yield (line_no, lines)
                    line_no += len(lines)
                    lines, size = [], 0
            if lines:
                yield (line_no, lines)
