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
from collections.abc import Iterable, Iterator
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
    """Files named by paths, folders (every file below, sorted) and globs, in the order given."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    files: list[str] = []
    for item in inputs:
        spec = os.path.expanduser(os.fspath(item))
        path = Path(spec)
        if path.is_dir():
            files.extend(str(p) for p in sorted(path.rglob("*")) if p.is_file() and not p.name.startswith("."))
        elif path.is_file():
            files.append(spec)
        elif glob.has_magic(spec):
            matches = sorted(p for p in glob.glob(spec, recursive=True) if os.path.isfile(p))
            if not matches:
                raise CorpusError(spec, "no file matches this pattern")
            files.extend(matches)
        else:
            raise CorpusError(spec, "no such file or folder")
    return files


def file_kind(path: str) -> Kind:
    suffix = Path(path).suffix.lower()
    if suffix in JSON_LINES_SUFFIXES:
        return "jsonl"
    if suffix == ".parquet":
        return "parquet"
    return "text"


def parquet_file(path: str) -> Any:
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise CorpusError(path, PARQUET_EXTRA) from None
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError with its own wording
        raise CorpusError(path, f"not a readable Parquet file ({exc})") from None


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


def plan_splits(files: list[str], split_bytes: int) -> list[Split]:
    """Cut ``files`` into splits of about ``split_bytes`` (see the module docstring).

    Small JSON Lines and text files share a split; a Parquet split holds row groups of
    one file only (files may differ in columns)."""
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
            meta = parquet_file(path).metadata
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


def read_chunks(piece: Piece, columns: list[str] | None, chunk_records: int = CHUNK_RECORDS) -> Iterator[Chunk]:
    """The piece's records in chunks of at most ``chunk_records`` (and about ``CHUNK_BYTES``)."""
    if piece.kind == "text":
        with open(piece.path, "rb") as f:
            yield (1, [f.read()])
    elif piece.kind == "parquet":
        pf = parquet_file(piece.path)
        if columns is not None:
            missing = [c for c in columns if c not in pf.schema_arrow.names]
            if missing:
                names = ", ".join(pf.schema_arrow.names)
                raise CorpusError(piece.path, f"no column {missing[0]!r} (columns: {names})")
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
