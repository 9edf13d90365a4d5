"""Corpus jobs on Ray (``engine="ray"``): the local engine's splits, run through Ray Data.

The pipeline is ``read_datasource -> map_batches -> (iter_batches | write_datasink)``:

- :class:`SplitSource`, a Ray Data ``Datasource``, has one read task per split the local
  engine plans (JSON Lines byte ranges cut at line ends, Parquet row groups, text files)
  and reads it with the local engine's reader, so every item keeps its file and line.
  (Ray's own ``read_json`` fails a whole file on one malformed line and numbers no lines;
  ``read_parquet`` numbers no rows: neither could report ``file:line``.)
- :class:`Encoder`, a callable class on an actor pool, loads the tokenizer once per actor
  by its name and encodes with the local engine's :func:`~.records.encode_items` and
  :func:`~.work.build_table`.
- count: the driver reads the per-chunk counts in input order (``preserve_order``) and
  merges them with the local engine's :class:`~.merge.Merger`, so the statistics and the
  first error named with ``on_error="fail"`` are the local engine's.
- tokenize: :class:`ShardSink`, a Ray Data ``Datasink``, writes each write task's rows to
  ``part-NNNNN.parquet`` (a temporary name, renamed when complete), numbered in input
  order; the counts reach the driver through a small actor (:class:`JobState`).

Every node needs toklane (and the inputs and the output folder at the same paths).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import logging
import os
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidArgumentError

try:
    import ray
    import ray.data
    from ray.data.block import BlockAccessor, BlockMetadata
    from ray.data.datasource import Datasink, Datasource, ReadTask
except ModuleNotFoundError as exc:  # pragma: no cover - exercised only without the extra
    if not (exc.name or "").startswith("ray"):
        raise
    raise InvalidArgumentError(
        "engine", "'ray' needs Ray Data, which is not installed: pip install \"toklane[ray]\""
    ) from None

from .columns import unify_tables
from .inputs import CorpusError, Piece, Split, read_chunks
from .merge import Merger
from .plan import Job, Progress
from .records import Options, encode_items
from .stats import Histogram
from .work import (
    Limits,
    SplitResult,
    build_table,
    prepare_output,
    shard_path,
    single_thread,
    unify_shards,
    write_shard,
)

if TYPE_CHECKING:
    import pyarrow as pa

# Helper columns the source adds to every block (and the encoder drops).
SPLIT, PIECE, LINE, RAW = "__toklane_split", "__toklane_piece", "__toklane_line", "__toklane_raw"
HELPERS = (SPLIT, PIECE, LINE)
# tokenize: the encoder's kept rows travel to the sink as one Arrow IPC stream per block, in this column.
# Blocks of one job differ in columns and types until the sink gives them one schema (Ray Data would
# otherwise concatenate them with its own rules, which refuse some and convert others).
ROWS = "__toklane_rows"


# --------------------------------------------------------------------------- reading


def _chunk_table(split: int, p: int, piece: Piece, first: int, items: Any) -> pa.Table:
    """One chunk as a block: the items (Parquet: the batch's columns; otherwise raw bytes
    in ``RAW``) and, per item, its split, piece and line within the piece."""
    import pyarrow as pa

    n = items.num_rows if piece.kind == "parquet" else len(items)
    if piece.kind == "parquet":
        table = pa.Table.from_batches([items])
    else:
        table = pa.table({RAW: pa.array(items, type=pa.large_binary())})
    for name, value in ((SPLIT, np.full(n, split, np.int32)), (PIECE, np.full(n, p, np.int32))):
        table = table.append_column(name, pa.array(value))
    return table.append_column(LINE, pa.array(np.arange(first, first + n, dtype=np.int64)))


def _read_split(split: Split, columns: list[str] | None, required: str, state: Any) -> Iterator[pa.Table]:
    try:
        for p, piece in enumerate(split.pieces):
            for first, items in read_chunks(piece, columns, required):
                yield _chunk_table(split.index, p, piece, first, items)
    except CorpusError as exc:
        ray.get(state.fail.remote(exc.field, exc.reason))
        raise


class SplitSource(Datasource):
    """A Ray Data datasource over a job's splits: one read task per split, in order."""

    def __init__(self, splits: Iterable[Split], columns: list[str] | None, required: str, state: Any):
        self.splits = tuple(splits)
        self.columns = columns
        self.required = required
        self.state = state

    def estimate_inmemory_data_size(self) -> int | None:
        return sum(s.nbytes for s in self.splits)

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None, **_: Any) -> list[ReadTask]:
        columns, required, state = self.columns, self.required, self.state
        tasks = []
        for split in self.splits:
            meta = BlockMetadata(
                num_rows=None,
                size_bytes=split.nbytes,
                input_files=sorted({p.path for p in split.pieces}),
                exec_stats=None,
            )
            tasks.append(
                ReadTask(
                    lambda s=split: _read_split(s, columns, required, state),
                    meta,
                    per_task_row_limit=per_task_row_limit,
                )
            )
        return tasks

    def get_name(self) -> str:
        return "ToklaneCorpus"


# --------------------------------------------------------------------------- encoding (in actors)


def _line_base(piece: Piece) -> int:
    """Lines (JSON Lines) or rows (Parquet) of the piece's file before the piece."""
    if piece.kind == "jsonl" and piece.start:
        count, left = 0, piece.start
        with open(piece.path, "rb") as f:
            while left > 0:
                block = f.read(min(left, 1 << 20))
                if not block:
                    break
                count += block.count(b"\n")
                left -= len(block)
        return count
    if piece.kind == "parquet" and piece.start:
        from .inputs import parquet_file

        meta = parquet_file(piece.path).metadata
        return sum(meta.row_group(g).num_rows for g in range(piece.start))
    return 0


def _groups(block: pa.Table) -> Iterator[tuple[int, int, int, int, int]]:
    """(split, piece, first line, start row, stop row) of each run of one piece in a block."""
    splits = block.column(SPLIT).to_numpy()
    pieces = block.column(PIECE).to_numpy()
    lines = block.column(LINE).to_numpy()
    n = len(splits)
    if not n:
        return
    key = splits.astype(np.int64) << 32 | pieces.astype(np.int64)
    # a new run where the piece changes or the lines stop being consecutive
    cut = np.flatnonzero((key[1:] != key[:-1]) | (lines[1:] != lines[:-1] + 1)) + 1
    bounds = [0, *cut.tolist(), n]
    for start, stop in itertools.pairwise(bounds):
        yield int(splits[start]), int(pieces[start]), int(lines[start]), start, stop


class _BadRecord(CorpusError):
    """A record that is not one, with ``on_error="fail"``: where, why, and in which split."""

    def __init__(self, where: str, reason: str, split: int):
        super().__init__(where, reason)
        self.split = split

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.field, self.reason, self.split))


class Encoder:
    """Ray Data callable class: the tokenizer is loaded once per actor, by name, and each
    block's chunks are encoded as the local engine's workers encode them.

    Count: returns one row of counts per chunk. Tokenize: returns the kept rows (input
    columns, ``input_ids``, ``num_tokens``) and sends the chunk's counts to ``state``."""

    def __init__(self, model: str, splits: tuple[Split, ...], opts: Options, limits: Limits, state: Any = None):
        from ..tokenizer import load_tokenizer

        single_thread()  # one core per actor, as one local worker
        self.tok = load_tokenizer(model)
        self.splits, self.opts, self.limits, self.state = splits, opts, limits, state
        if state is not None:  # so the driver can free this actor's CPU once the pipeline ends
            ray.get(state.enlist.remote(ray.get_runtime_context().current_actor))

    def __call__(self, block: pa.Table) -> pa.Table:
        try:
            return self._encode(block)
        except _BadRecord as exc:
            ray.get(self.state.fail.remote(exc.field, exc.reason, exc.split))
            raise
        except CorpusError as exc:  # Ray Data hands the driver only its text: tell it directly
            ray.get(self.state.fail.remote(exc.field, exc.reason))
            raise

    def _encode(self, block: pa.Table) -> pa.Table:
        import pyarrow as pa

        counts: list[dict[str, Any]] = []
        tables = []
        for s, p, first, start, stop in _groups(block):
            piece = self.splits[s].pieces[p]
            part = block.slice(start, stop - start)
            if piece.kind == "parquet":
                data = part.drop_columns(list(HELPERS)).combine_chunks()
                batches = data.to_batches()
                items: Any = batches[0] if batches else pa.RecordBatch.from_pylist([], schema=data.schema)
                nbytes = int(items.nbytes)
            else:
                items = part.column(RAW).to_pylist()
                nbytes = sum(map(len, items))
            enc = encode_items(self.tok, piece.kind, first, items, self.opts, piece.path)
            written = 0
            if self.limits.output is not None:
                if enc.errors and self.limits.on_error == "fail":
                    line, reason = enc.errors[0]
                    where = f"{piece.path}:{_line_base(piece) + line}"
                    raise _BadRecord(where, f"{reason} (--on-error skip to read the rest)", s)
                table = build_table(piece.kind, items, enc, self.opts, self.limits, f"{piece.path}:{first}")
                written = table.num_rows
                tables.append(table)
            counts.append(
                {
                    "split": s,
                    "piece": p,
                    "first": first,
                    "lines": stop - start,
                    "bytes": nbytes,
                    "lengths": enc.lengths,
                    "errors": json.dumps(enc.errors),
                    "written": written,
                }
            )
        if self.limits.output is None:
            return pa.Table.from_pylist(counts, schema=_counts_schema())
        if counts:
            ray.get(self.state.add.remote(counts))
        if not tables:
            return pa.table({})
        return pa.table({ROWS: pa.array([_to_ipc(unify_tables(tables))], type=pa.large_binary())})


def _to_ipc(table: pa.Table) -> bytes:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _from_ipc(block: pa.Table) -> list[pa.Table]:
    """The tables an encoder sent in ``block`` (see :data:`ROWS`)."""
    import pyarrow as pa

    if ROWS not in block.column_names:
        return []
    return [pa.ipc.open_stream(pa.py_buffer(data)).read_all() for data in block.column(ROWS).to_pylist()]


def _counts_schema() -> pa.Schema:
    """The count rows' schema (built on first use: pyarrow is imported lazily)."""
    import pyarrow as pa

    return pa.schema(
        [
            ("split", pa.int32()),
            ("piece", pa.int32()),
            ("first", pa.int64()),
            ("lines", pa.int64()),
            ("bytes", pa.int64()),
            ("lengths", pa.list_(pa.int32())),
            ("errors", pa.string()),
            ("written", pa.int64()),
        ]
    )


class ChunkCounts:
    """Per-chunk counts folded into what the local engine's merger takes per split: per piece
    (records, tokens, errors, lines read), the errors, the rows written, and the lengths —
    per split (count: each split is merged, and dropped, once complete) or ``pooled`` in one
    histogram (tokenize: memory independent of the corpus size)."""

    def __init__(self, pooled: bool = False):
        self.pooled = pooled
        self.pieces: dict[tuple[int, int], list[int]] = {}
        self.errors: dict[int, list[tuple[int, int, str]]] = {}
        self.written: dict[int, int] = {}
        self.hists: dict[int, Histogram] = {}
        self.hist = Histogram()  # pooled lengths
        self.nbytes: dict[tuple[int, int], int] = {}  # input bytes read per piece

    def add(self, row: dict[str, Any]) -> None:
        s, p, lengths = int(row["split"]), int(row["piece"]), row["lengths"]
        errors = json.loads(row["errors"])
        self.nbytes[s, p] = self.nbytes.get((s, p), 0) + int(row["bytes"])
        stats = self.pieces.setdefault((s, p), [0, 0, 0, 0])
        stats[0] += len(lengths)
        stats[1] += int(sum(lengths))
        stats[2] += len(errors)
        stats[3] += int(row["lines"])
        (self.hist if self.pooled else self.hists.setdefault(s, Histogram())).add_lengths(lengths)
        if errors:
            self.errors.setdefault(s, []).extend((p, int(line), str(reason)) for line, reason in errors)
        self.written[s] = self.written.get(s, 0) + int(row["written"])

    def complete(self, split: Split) -> bool:
        """Whether every item of the split was counted (and none failed: a failed chunk
        is not counted)."""
        for p, piece in enumerate(split.pieces):
            if piece.kind == "parquet":
                from .inputs import parquet_file

                meta = parquet_file(piece.path).metadata
                rows = sum(meta.row_group(g).num_rows for g in range(piece.start, piece.stop))
                if self.pieces.get((split.index, p), [0, 0, 0, 0])[3] != rows:
                    return False
            elif self.nbytes.get((split.index, p), 0) != piece.stop - piece.start:
                return False
        return True

    def result(self, split: Split) -> SplitResult:
        """The split's result (its lengths empty when pooled), forgotten here."""
        pieces = [self.pieces.pop((split.index, p), [0, 0, 0, 0]) for p in range(len(split.pieces))]
        hist = self.hists.pop(split.index, None)
        lengths = hist.counts if hist is not None else np.zeros(0, dtype=np.int64)
        errors = sorted(self.errors.pop(split.index, []))  # chunks may arrive in any order
        return SplitResult(split.index, pieces, lengths, errors, self.written.pop(split.index, 0))


class JobState:
    """A Ray actor holding tokenize's counts (the shards hold only the kept rows), for the
    driver, and the first :class:`CorpusError` a worker raised (Ray Data hands the driver
    only its text, wrapped in an exception of its own)."""

    def __init__(self) -> None:
        self.counts = ChunkCounts(pooled=True)
        self.nbytes = 0
        self.tokens = 0
        self.failure: tuple[str, str] | None = None
        self.bad_split: int | None = None  # tokenize, on_error="fail": the first split known to hold a bad record
        self.encoders: list[Any] = []  # the Encoder actors' handles, for the driver to release

    def enlist(self, encoder: Any) -> None:
        self.encoders.append(encoder)

    def take_encoders(self) -> list[Any]:
        taken, self.encoders = self.encoders, []
        return taken

    def fail(self, where: str, reason: str, bad_split: int | None = None) -> None:
        if self.failure is None:
            self.failure = (where, reason)
        if bad_split is not None and (self.bad_split is None or bad_split < self.bad_split):
            self.bad_split = bad_split

    def first_failure(self) -> tuple[tuple[str, str] | None, int | None]:
        return self.failure, self.bad_split

    def add(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self.counts.add(row)
            self.nbytes += row["bytes"]
            self.tokens += sum(row["lengths"])

    def progress(self) -> tuple[int, int]:
        return self.nbytes, self.tokens

    def all(self) -> ChunkCounts:
        return self.counts


# --------------------------------------------------------------------------- writing


class ShardSink(Datasink):
    """A Ray Data datasink writing each write task's rows to ``output/part-NNNNN.parquet``
    (NNNNN: the task's index, in input order), under a temporary name renamed when complete."""

    def __init__(self, output: str, min_bytes: int):
        self.output = output
        self.min_bytes = max(min_bytes, 1)
        self.shards: list[str] = []

    @property
    def min_bytes_per_write(self) -> int | None:
        return self.min_bytes

    @property
    def supports_distributed_writes(self) -> bool:
        return True

    def write(self, blocks: Iterable[Any], ctx: Any) -> str | None:
        tables = [t for b in blocks for t in _from_ipc(BlockAccessor.for_block(b).to_arrow()) if t.num_rows]
        if not tables:
            return None
        final = shard_path(self.output, ctx.task_idx)
        write_shard(unify_tables(tables), final)
        return final

    def on_write_complete(self, write_result: Any) -> None:
        self.shards = sorted(path for path in write_result.write_returns if path)

    def get_name(self) -> str:
        return "ToklaneShards"


def _prepare_output(output: str, overwrite: bool) -> None:
    """An empty shard folder: the Ray engine does not resume, so earlier shards are refused
    (or removed with ``overwrite``)."""
    shards = prepare_output(output, overwrite)
    if shards:
        raise CorpusError(
            output,
            f"holds shards ({os.path.basename(shards[0])}, ...) and the Ray engine does not resume: "
            "write to an empty folder, or pass overwrite=True (--overwrite) to replace them",
        )


# --------------------------------------------------------------------------- the driver


def _connect(ray_address: str | None, workers: int) -> tuple[bool, int]:
    """Join or start Ray: (whether this call started it, actors to use at most)."""
    if ray.is_initialized():
        started = False
    elif ray_address is None:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        return True, workers
    else:
        ray.init(address=ray_address, log_to_driver=False, logging_level=logging.ERROR)
        started = True
    return started, max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_ray(job: Job, ray_address: str | None, progress: Progress | None = None) -> Any:
    """Run ``job`` on Ray (a local Ray with ``job.workers`` CPUs when ``ray_address`` is None
    and Ray is not running yet; else the cluster at ``ray_address``, or the running one)."""
    started, size = _connect(ray_address, job.workers)
    context = ray.data.DataContext.get_current()
    saved = (context.execution_options.preserve_order, context.enable_progress_bars)
    data_logger = logging.getLogger("ray.data")
    saved_level = data_logger.level
    context.execution_options.preserve_order = True  # rows (and shard numbers) in input order
    context.enable_progress_bars = False
    data_logger.setLevel(logging.CRITICAL)  # no per-dataset lines on the caller's stderr
    run = _Runner(job, size, fixed=started and ray_address is None)
    try:
        with warnings.catch_warnings():  # Ray Data's tuning hints (e.g. "received 0 inputs" for an empty corpus)
            warnings.filterwarnings("ignore", category=UserWarning, module=r"ray\.data")
            return run.tokenize(progress) if job.tokenize else run.count(job.splits, progress)
    finally:
        ray.kill(run.state)
        context.execution_options.preserve_order, context.enable_progress_bars = saved
        data_logger.setLevel(saved_level)
        if started:
            ray.shutdown()


class _Runner:
    """One job's pipelines: ``read_datasource -> map_batches(Encoder) -> iter_batches | write_datasink``."""

    def __init__(self, job: Job, size: int, fixed: bool):
        self.job, self.size, self.fixed = job, size, fixed
        self.merger = Merger(job)
        self.state = ray.remote(num_cpus=0)(JobState).remote()
        # Reads and writes take no CPU slot, so the encoders can hold every core; a few at a time,
        # so that they do not crowd the encoders out (reading is ~10x faster than encoding).
        self.io_tasks = max(1, size // 4)

    def _dataset(self, todo: tuple[Split, ...], limits: Limits) -> Any:
        job = self.job
        columns = job.opts.input_columns() if limits.output else [job.opts.name]
        source = SplitSource(todo, columns, job.opts.name, self.state)
        ds = ray.data.read_datasource(source, num_cpus=0, concurrency=self.io_tasks)
        size = self.size
        pool = (
            ray.data.ActorPoolStrategy(size=size)
            if self.fixed
            else ray.data.ActorPoolStrategy(min_size=1, max_size=size)
        )
        return ds.map_batches(
            Encoder,
            fn_constructor_kwargs={
                "model": job.model,
                "splits": job.splits,
                "opts": job.opts,
                "limits": limits,
                "state": self.state,
            },
            compute=pool,
            batch_size=None,
            batch_format="pyarrow",
            num_cpus=1,
        )

    @contextlib.contextmanager
    def _encoders_released(self) -> Iterator[None]:
        """Run one pipeline, then kill its Encoder actors. Ray Data only drops its references to
        them when the pipeline ends, and a failed pipeline's exception (its traceback holds the
        executor) keeps them alive, each holding a CPU: the pipeline run next (the recount after
        a bad record, or the caller's next job) would wait for a CPU forever."""
        try:
            yield
        finally:
            for encoder in ray.get(self.state.take_encoders.remote()):
                ray.kill(encoder)

    def _worker_error(self) -> tuple[CorpusError | None, int | None]:
        """The CorpusError a worker raised (Ray Data hands over only its text), and the first
        split known to hold a bad record."""
        failure, bad_split = ray.get(self.state.first_failure.remote())
        return (CorpusError(*failure) if failure is not None else None), bad_split

    def count(self, todo: tuple[Split, ...], progress: Progress | None) -> Any:
        """Count ``todo`` (the job's splits, or from some split on) and merge in split order."""
        limits = dataclasses.replace(self.job.limits, output=None)
        gathered = ChunkCounts()
        nxt = 0  # todo[:nxt] are merged; a split is complete once a later one shows up
        try:
            with self._encoders_released():
                for batch in self._dataset(todo, limits).iter_batches(batch_size=None, batch_format="pyarrow"):
                    for row in batch.to_pylist():
                        while todo[nxt].index < int(row["split"]):
                            self.merger.add(todo[nxt], gathered.result(todo[nxt]))
                            nxt += 1
                        gathered.add(row)
                        if progress is not None:
                            progress(int(row["bytes"]), int(sum(row["lengths"])))
        except CorpusError:
            raise
        except Exception:
            error, _ = self._worker_error()
            if error is not None:
                raise error from None
            raise
        for split in todo[nxt:]:
            self.merger.add(split, gathered.result(split))
        return self.merger.stats()

    def tokenize(self, progress: Progress | None) -> Any:
        job, output = self.job, self.job.limits.output or ""
        _prepare_output(output, job.limits.overwrite)
        sink = ShardSink(output, max((s.nbytes for s in job.splits), default=1))
        stop = threading.Event()
        poller = None
        if progress is not None:

            def poll() -> None:
                reported = (0, 0)
                while True:
                    finished = stop.wait(0.5)
                    now = ray.get(self.state.progress.remote())
                    if now != reported:
                        progress(now[0] - reported[0], now[1] - reported[1])
                        reported = now
                    if finished:
                        return

            poller = threading.Thread(target=poll, name="toklane-ray-progress", daemon=True)
            poller.start()
        try:
            with self._encoders_released():
                self._dataset(job.splits, job.limits).write_datasink(
                    sink, ray_remote_args={"num_cpus": 0}, concurrency=self.io_tasks
                )
        except Exception:
            prepare_output(output, overwrite=True)  # no resume on Ray: a failed run leaves no shards
            error, bad_split = self._worker_error()
            if bad_split is not None:
                self._first_bad_record(bad_split)
            if error is not None:
                raise error from None
            raise
        except BaseException:
            prepare_output(output, overwrite=True)
            raise
        finally:
            stop.set()
            if poller is not None:
                poller.join()
        counts = ray.get(self.state.all.remote())
        try:
            for split in job.splits:
                self.merger.add(split, counts.result(split))
            self.merger.hist.add(counts.hist.counts)
            schema = unify_shards(list(sink.shards), self.size)
        except CorpusError:
            prepare_output(output, overwrite=True)
            raise
        return self.merger.stats(tuple(sink.shards), schema=schema)

    def _first_bad_record(self, bad_split: int) -> None:
        """Raise the first bad record in input order, as the local engine does, once a worker
        met one in split ``bad_split`` (the workers run splits side by side: an earlier split
        may hold one they had not reached). Splits counted whole before the first unfinished
        one are kept; the rest, up to ``bad_split``, are counted again, in order."""
        counts: ChunkCounts = ray.get(self.state.all.remote())
        splits = self.job.splits
        first = next((i for i in range(bad_split) if not counts.complete(splits[i])), bad_split)
        self.merger = type(self.merger)(self.job)
        for split in splits[:first]:
            self.merger.add(split, counts.result(split))  # whole, and without a bad record
        self.count(splits[first : bad_split + 1], None)  # raises at the first bad record
