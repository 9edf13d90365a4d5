"""One split's work, in a worker process (or in the caller's process for one worker).

Each worker loads the tokenizer once, by name, in :func:`init_worker` and encodes on one
thread, so ``workers`` is the number of cores a job uses. :func:`count_split` returns a
split's counts; :func:`tokenize_split` also writes its Parquet shard, under a temporary
name renamed into place when complete.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..switches import set_thread_limit
from .inputs import CorpusError, Split, read_chunks
from .records import IDS, NUM_TOKENS, Encoded, Options, encode_items
from .stats import Histogram

META_KEY = b"toklane"  # a shard's key-value metadata: the job's fingerprint and the split's counts
SHARD_FORMAT = "part-{:05d}.parquet"


@dataclass
class Limits:
    """The job settings a split's work needs besides the records' options."""

    on_error: str = "fail"
    max_tokens: int | None = None
    min_tokens: int | None = None
    output: str | None = None  # tokenize: the shard folder
    fingerprint: str = ""
    overwrite: bool = False  # tokenize: replace shards of a different job


@dataclass
class SplitResult:
    """A split's counts. ``pieces``: per piece (records, tokens, errors, lines read);
    ``errors``: (piece index, line within the piece, reason)."""

    index: int
    pieces: list[list[int]]
    lengths: Any  # np.bincount of the record lengths
    errors: list[tuple[int, int, str]] = field(default_factory=list)
    written: int = 0
    shard: str | None = None

    def to_meta(self, fingerprint: str) -> bytes:
        hist = Histogram()
        hist.add(np.asarray(self.lengths, dtype=np.int64))
        return json.dumps(
            {
                "fingerprint": fingerprint,
                "index": self.index,
                "pieces": self.pieces,
                "lengths": hist.to_pairs(),
                "errors": [list(e) for e in self.errors],
                "written": self.written,
            }
        ).encode()

    @classmethod
    def from_meta(cls, raw: bytes, shard: str) -> tuple[str, SplitResult]:
        meta = json.loads(raw)
        hist = Histogram.from_pairs(meta["lengths"])
        errors = [(int(p), int(n), str(r)) for p, n, r in meta["errors"]]
        result = cls(meta["index"], meta["pieces"], hist.counts, errors, meta["written"], shard)
        return meta["fingerprint"], result


# --------------------------------------------------------------------------- per-process state

_STATE: dict[str, Any] = {}


def single_thread() -> None:
    """Tokenizer engines in this worker process use one thread (called before the tokenizer loads).

    toklane's engines take the limit through :func:`toklane.switches.set_thread_limit`. The variables
    are for the Rust engines, which read them from the process environment on first use: HF
    ``tokenizers``' thread pool, and fastokens' helper threads (it hands one text's BPE to them, and they
    spin while they wait: N workers would each spin on the others' cores). That is their only setting,
    and this process is a job's worker (a pool process or a Ray actor), so setting it here reaches no
    user code."""
    set_thread_limit(1)
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    os.environ["FASTOKENS_BPE_THREADS"] = "1"


def init_worker(model: str, opts: Options, limits: Limits, queue: Any = None, parent: int | None = None) -> None:
    """Pool initializer: one thread, the tokenizer loaded once by its name (nothing pickled);
    the process ends as soon as ``parent`` (the job's process) is gone."""
    single_thread()
    if parent is not None:
        exit_with_parent(parent)
    from ..tokenizer import load_tokenizer

    report = queue.put if queue is not None else None
    set_state(load_tokenizer(model), opts, limits, report)


def exit_with_parent(parent: int, interval: float = 0.1) -> None:
    """End this process within ``interval`` seconds of process ``parent`` ending, however it
    ends (``kill -9`` included): a worker whose job is gone must not go on writing shards. A
    daemon thread watches for this process being handed to another parent; a shard it was
    writing stays under its temporary name, which the next run removes."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="toklane-exit-with-parent", daemon=True).start()


def set_state(tok: Any, opts: Options, limits: Limits, report: Callable[[tuple[int, int]], None] | None) -> None:
    _STATE.update(tok=tok, opts=opts, limits=limits, report=report)


@contextlib.contextmanager
def local_state(
    tok: Any, opts: Options, limits: Limits, report: Callable[[tuple[int, int]], None] | None
) -> Iterator[None]:
    """:func:`set_state` in the caller's process (a job on one worker) for the block; what was there
    before is put back after it."""
    saved = dict(_STATE)
    set_state(tok, opts, limits, report)
    try:
        yield
    finally:
        _STATE.clear()
        _STATE.update(saved)


def _chunk_bytes(kind: str, items: Any) -> int:
    if kind == "parquet":
        return int(items.nbytes)
    return sum(map(len, items))


def _encoded_chunks(split: Split) -> Any:
    """(piece index, piece, first line, items, Encoded) for every chunk of the split."""
    tok, opts, report = _STATE["tok"], _STATE["opts"], _STATE["report"]
    for p, piece in enumerate(split.pieces):
        for first, items in read_chunks(piece, opts.input_columns(), opts.name):
            enc = encode_items(tok, piece.kind, first, items, opts, piece.path)
            if report is not None:
                report((_chunk_bytes(piece.kind, items), sum(enc.lengths)))
            yield p, piece, first, items, enc


def _lines(kind: str, items: Any) -> int:
    return items.num_rows if kind == "parquet" else len(items)


def count_split(split: Split) -> SplitResult:
    """Counts of one split; with on_error="fail" it stops at the split's first bad item."""
    limits: Limits = _STATE["limits"]
    pieces = [[0, 0, 0, 0] for _ in split.pieces]
    hist = Histogram()
    errors: list[tuple[int, int, str]] = []
    for p, piece, _first, items, enc in _encoded_chunks(split):
        _tally(pieces[p], hist, errors, p, piece.kind, items, enc)
        if errors and limits.on_error == "fail":
            break
    return SplitResult(split.index, pieces, hist.counts, errors)


def _tally(
    stats: list[int], hist: Histogram, errors: list[tuple[int, int, str]], p: int, kind: str, items: Any, enc: Encoded
) -> None:
    stats[0] += len(enc.lengths)
    stats[1] += sum(enc.lengths)
    stats[2] += len(enc.errors)
    stats[3] += _lines(kind, items)
    hist.add_lengths(enc.lengths)
    errors.extend((p, line, reason) for line, reason in enc.errors)


# --------------------------------------------------------------------------- shards


def shard_path(output: str, index: int) -> str:
    return os.path.join(output, SHARD_FORMAT.format(index))


def build_table(kind: str, items: Any, enc: Encoded, opts: Options, limits: Limits, where: str) -> Any:
    """The kept rows of a chunk (its input columns, or ``opts.keep_columns`` of them, then
    ``input_ids`` and ``num_tokens``), without the records outside [min_tokens, max_tokens].
    JSON records become columns by :func:`.columns.records_table` (every key of every record).
    The ids go to Arrow as the numpy arrays the tokenizer returned (no Python int per id)."""
    import pyarrow as pa

    from .columns import records_table

    lengths = np.diff(enc.offsets)
    keep = np.ones(len(lengths), dtype=bool)
    if limits.max_tokens is not None:
        keep &= lengths <= limits.max_tokens
    if limits.min_tokens:
        keep &= lengths >= limits.min_tokens
    kept = np.flatnonzero(keep).tolist()
    rows = enc.rows if len(kept) == len(lengths) else [enc.rows[k] for k in kept]
    if kind == "parquet":
        table = pa.Table.from_batches([items.take(pa.array(rows, type=pa.int64()))])
        if opts.keep_columns is not None:
            table = table.select([n for n in table.column_names if n in opts.keep_columns])
    else:
        table = records_table(rows, opts.keep_columns)
    for name in (IDS, NUM_TOKENS):
        if name in table.column_names:
            raise CorpusError(where, f"the input already has a column {name!r}: rename it first")
    ids = pa.ListArray.from_arrays(pa.array(enc.offsets.astype(np.int32)), pa.array(enc.ids.view(np.int32)))
    if len(kept) != len(lengths):
        ids = ids.filter(pa.array(keep))
    if not table.num_columns:  # no input column kept: the rows are counted by the ids alone
        return pa.table({IDS: ids, NUM_TOKENS: pa.array(lengths[keep].astype(np.int32))})
    table = table.append_column(IDS, ids)
    return table.append_column(NUM_TOKENS, pa.array(lengths[keep].astype(np.int32)))


def tokenize_split(split: Split) -> SplitResult:
    """Tokenize one split into its shard (temporary name, renamed when complete)."""
    import pyarrow as pa

    limits: Limits = _STATE["limits"]
    opts: Options = _STATE["opts"]
    assert limits.output is not None
    pieces = [[0, 0, 0, 0] for _ in split.pieces]
    hist = Histogram()
    errors: list[tuple[int, int, str]] = []
    tables = []
    for p, piece, first, items, enc in _encoded_chunks(split):
        _tally(pieces[p], hist, errors, p, piece.kind, items, enc)
        if errors and limits.on_error == "fail":
            return SplitResult(split.index, pieces, hist.counts, errors)
        tables.append(build_table(piece.kind, items, enc, opts, limits, f"{piece.path}:{first}"))
    if tables:
        from .columns import unify_tables

        table = unify_tables(tables)
    else:
        table = pa.table({IDS: pa.array([], type=pa.list_(pa.int32())), NUM_TOKENS: pa.array([], type=pa.int32())})
    final = shard_path(limits.output, split.index)
    result = SplitResult(split.index, pieces, hist.counts, errors, table.num_rows, final)
    meta = dict(table.schema.metadata or {})
    meta[META_KEY] = result.to_meta(limits.fingerprint)
    write_shard(table.replace_schema_metadata(meta), final)
    return result


def write_shard(table: Any, final: str) -> None:
    """Write ``table`` to ``final`` through a temporary name in the same folder, renamed when
    complete: a reader (or a resumed run) never sees a partial shard."""
    import pyarrow.parquet as pq

    temp = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.tmp-{os.getpid()}")
    try:
        pq.write_table(table, temp)
        os.replace(temp, final)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise CorpusError(final, f"cannot be written: {_reason(exc)}") from None
        raise


def _reason(exc: OSError) -> str:
    """What went wrong, as the OS says it (pyarrow's errors carry the errno only in their text)."""
    text = exc.strerror or str(exc)
    found = re.search(r"\[errno (\d+)\]", text)
    return os.strerror(int(found.group(1))) if found else text


def unify_shards(paths: list[str], threads: int = 1) -> Any:
    """Give every shard of a job the job's schema (:func:`.columns.settle`: the union of their
    columns), rewriting those that differ; returns the schema."""
    import pyarrow.parquet as pq

    from .columns import conform, misfits, settle

    try:
        schemas = [pq.read_schema(p) for p in paths]
    except OSError as exc:
        raise CorpusError(exc.filename or os.path.dirname(paths[0]), f"cannot be read: {_reason(exc)}") from None

    def check(i: int, schema: Any) -> set[str]:
        return misfits(pq.read_table(paths[i]), schema)

    def rewrite(i: int, schema: Any) -> None:
        write_shard(conform(pq.read_table(paths[i]), schema), paths[i])

    return settle(schemas, check, rewrite, threads)


def prepare_output(output: str, overwrite: bool) -> list[str]:
    """Make ``output`` a shard folder: an interrupted run's temporary files are removed, and
    with ``overwrite`` the shards too. Returns the shards left there, in name order."""
    try:
        if os.path.exists(output) and not os.path.isdir(output):
            raise CorpusError(output, "is a file: the output is a folder of Parquet shards")
        os.makedirs(output, exist_ok=True)
        folder = glob.escape(output)
        for temp in glob.glob(os.path.join(folder, ".part-*.parquet.tmp-*")):
            os.unlink(temp)  # an interrupted run's unfinished shard
        shards = sorted(glob.glob(os.path.join(folder, "part-*.parquet")))
        if overwrite:
            for shard in shards:
                os.unlink(shard)
            return []
        return shards
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else output
        raise CorpusError(where, f"cannot be used as the output folder: {_reason(exc)}") from None
