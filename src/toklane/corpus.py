"""Token counts over a corpus (files, folders, globs) on every core.

:func:`count_corpus` streams each file in chunks of records, counts them in a pool of
worker processes (each loads the tokenizer once, by name) and merges the results in
input order, so the result is the same for any number of workers.

Formats, by suffix: ``.jsonl`` / ``.json`` (one JSON object per line; ``text_field``
names a string field, ``messages_field`` a chat message list), ``.parquet`` (needs
pyarrow: ``pip install "toklane[corpus]"``), anything else: plain UTF-8 text, one
record per file.
"""

from __future__ import annotations

import glob
import json
import math
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import InvalidArgumentError

OnError = Literal["fail", "skip"]
JSON_LINES_SUFFIXES = (".jsonl", ".json")
CHUNK_RECORDS = 2000  # records per chunk sent to a worker
CHUNK_BYTES = 1 << 20  # or fewer records once a chunk holds this many bytes
# Input bytes per worker process when workers=None: a worker first loads its tokenizer (qwen3.6:
# ~1.3 s), about the time one core takes to count ~50 MB, so small corpora are counted in-process.
BYTES_PER_WORKER = 32 << 20


class CorpusError(InvalidArgumentError):
    """A corpus input that cannot be counted: names the file (and line) and the fix."""

    def __init__(self, where: str, reason: str):
        super().__init__(where, reason)

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"


@dataclass(frozen=True)
class FileStats:
    path: str
    records: int
    tokens: int
    errors: int = 0


@dataclass(frozen=True)
class CorpusStats:
    """Counts over a corpus: per file, in total, and the distribution of record lengths."""

    model: str
    files: tuple[FileStats, ...]
    records: int
    tokens: int
    min: int
    p50: int
    p90: int
    p99: int
    max: int
    max_tokens: int | None = None
    over_max: int | None = None  # records longer than max_tokens (None when max_tokens is not given)
    errors: tuple[tuple[str, int, str], ...] = field(default=())  # (file, line, reason), with on_error="skip"

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "files": [
                {"path": f.path, "records": f.records, "tokens": f.tokens, "errors": f.errors} for f in self.files
            ],
            "records": self.records,
            "total": self.tokens,
            "lengths": {"min": self.min, "p50": self.p50, "p90": self.p90, "p99": self.p99, "max": self.max},
            "max_tokens": self.max_tokens,
            "over_max": self.over_max,
            "errors": [{"path": p, "line": n, "reason": r} for p, n, r in self.errors],
        }


# --------------------------------------------------------------------------- inputs


def expand_inputs(inputs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """Files named by paths, folders (every file below, sorted) and globs, in the order given."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    files: list[str] = []
    for item in inputs:
        spec = os.fspath(item)
        path = Path(spec)
        if path.is_dir():
            files.extend(str(p) for p in sorted(path.rglob("*")) if p.is_file())
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


def _kind(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in JSON_LINES_SUFFIXES:
        return "jsonl"
    if suffix == ".parquet":
        return "parquet"
    return "text"


# A chunk: (kind, path, first line/row number, items). Items are raw lines (bytes) for jsonl,
# values (str / list / None) for parquet, the file's bytes for text.
Chunk = tuple[str, str, int, list[Any]]


def _jsonl_chunks(path: str, chunk_records: int) -> Iterator[Chunk]:
    with open(path, "rb") as f:
        start, lines, size = 1, [], 0
        for lineno, line in enumerate(f, 1):
            if not lines:
                start = lineno
            lines.append(line)
            size += len(line)
            if len(lines) >= chunk_records or size >= CHUNK_BYTES:
                yield ("jsonl", path, start, lines)
                lines, size = [], 0
        if lines:
            yield ("jsonl", path, start, lines)


def _parquet_chunks(path: str, column: str, chunk_records: int) -> Iterator[Chunk]:
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise CorpusError(path, 'reading .parquet needs pyarrow: pip install "toklane[corpus]"') from None
    pf = pq.ParquetFile(path)
    if column not in pf.schema_arrow.names:
        raise CorpusError(path, f"no column {column!r} (columns: {', '.join(pf.schema_arrow.names)})")
    row = 1
    for batch in pf.iter_batches(batch_size=chunk_records, columns=[column]):
        values = batch.column(0).to_pylist()
        yield ("parquet", path, row, values)
        row += len(values)


def _chunks(
    files: Sequence[str], text_field: str | None, messages_field: str | None, chunk_records: int
) -> Iterator[Chunk]:
    for path in files:
        kind = _kind(path)
        if kind == "jsonl":
            yield from _jsonl_chunks(path, chunk_records)
        elif kind == "parquet":
            yield from _parquet_chunks(path, text_field or messages_field or "", chunk_records)
        else:
            with open(path, "rb") as f:
                yield ("text", path, 1, [f.read()])


# --------------------------------------------------------------------------- counting (in workers)

_TOKENIZER: Any = None
_OPTIONS: dict[str, Any] = {}


def _init_worker(model: str, options: dict[str, Any]) -> None:
    """Pool initializer: load the tokenizer once per process, by its name (nothing is pickled)."""
    global _TOKENIZER, _OPTIONS
    from .tokenizer import load_tokenizer

    _TOKENIZER = load_tokenizer(model)
    _OPTIONS = options


def _record(kind: str, item: Any, text_field: str | None, messages_field: str | None) -> tuple[str, Any] | str:
    """("text", str) or ("messages", list), or a reason (str) why the item is not a record, or "" to skip it."""
    if kind == "text":
        try:
            return ("text", item.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return f"not valid UTF-8 at byte {exc.start}"
    if kind == "jsonl":
        if not item.strip():
            return ""
        try:
            obj = json.loads(item)
        except UnicodeDecodeError as exc:
            return f"not valid UTF-8 at byte {exc.start} of the line"
        except json.JSONDecodeError as exc:
            return f"not JSON ({exc})"
        name = text_field or messages_field
        if not isinstance(obj, dict) or name not in obj:
            return f"no field {name!r}"
        value = obj[name]
    else:
        value = item
    if text_field is not None:
        if not isinstance(value, str):
            hint = " (a message list: --messages-field)" if isinstance(value, list) else ""
            return f"field {text_field!r} is {type(value).__name__}, not text{hint}"
        return ("text", value)
    if not isinstance(value, list):
        return f"field {messages_field!r} is {type(value).__name__}, not a message list"
    return ("messages", value)


def _count_chunk(chunk: Chunk) -> tuple[list[int], list[tuple[int, str]]]:
    """Token counts of a chunk's records, in order, and (line, reason) for the items that are not records."""
    from .counting import count_tokens

    kind, _path, start, items = chunk
    tok, opts = _TOKENIZER, _OPTIONS
    text_field, messages_field = opts["text_field"], opts["messages_field"]
    slots: list[Any] = []  # per record: str (a text to batch-encode) or an int count
    errors: list[tuple[int, str]] = []
    for offset, item in enumerate(items):
        rec = _record(kind, item, text_field, messages_field)
        if rec == "":
            continue
        if isinstance(rec, str):
            errors.append((start + offset, rec))
            continue
        what, value = rec
        if what == "text":
            slots.append(value)
        else:
            try:
                slots.append(count_tokens(value, tok, add_generation_prompt=opts["add_generation_prompt"]))
            except (ValueError, TypeError) as exc:
                errors.append((start + offset, str(exc)))
    texts = [s for s in slots if isinstance(s, str)]
    counts = iter(map(len, tok.encode_batch(texts)) if texts else ())
    return [s if isinstance(s, int) else next(counts) for s in slots], errors


# --------------------------------------------------------------------------- the driver


def default_workers(total_bytes: int) -> int:
    """Workers for ``workers=None``: every core for a big corpus, one per 32 MB of input below that
    (1: in-process, no tokenizer loads in other processes)."""
    return max(1, min(os.cpu_count() or 1, total_bytes // BYTES_PER_WORKER))


def _percentile(ordered: Any, p: float) -> int:
    """Nearest-rank percentile of sorted lengths (0 for none)."""
    n = len(ordered)
    if not n:
        return 0
    return int(ordered[max(math.ceil(p / 100 * n) - 1, 0)])


def count_corpus(
    inputs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    model: str = "qwen3.6",
    *,
    text_field: str | None = None,
    messages_field: str | None = None,
    workers: int | None = None,
    max_tokens: int | None = None,
    on_error: OnError = "fail",
    add_generation_prompt: bool = False,
    progress: Callable[[int, int], None] | None = None,
    chunk_records: int = CHUNK_RECORDS,
) -> CorpusStats:
    """Count the tokens of every record in ``inputs`` (paths, folders, globs) with ``model``.

    Text records count like ``tok.encode(text)``, message lists like
    ``count_tokens(messages, model=...)``. ``workers`` processes (1: in this process) each
    load ``model`` once by name; the default is every core, fewer for a corpus under
    32 MB per core (see :func:`default_workers`). A malformed line or a record
    without the field raises :class:`CorpusError` naming file and line
    (``on_error="fail"``) or is listed in ``errors`` (``"skip"``). ``progress(bytes, tokens)``
    is called as chunks finish; ``chunk_records`` records go to a worker at a time.
    """
    import numpy as np

    from .tokenizer import load_tokenizer
    from .tokenizer.registry import resolve_name

    if text_field is not None and messages_field is not None:
        raise InvalidArgumentError("text_field", "and messages_field exclude each other: pass one")
    if on_error not in ("fail", "skip"):
        raise InvalidArgumentError("on_error", f"must be 'fail' or 'skip', not {on_error!r}")
    if workers is not None and workers < 1:
        raise InvalidArgumentError("workers", f"must be at least 1, not {workers}")
    if max_tokens is not None and max_tokens < 0:
        raise InvalidArgumentError("max_tokens", f"must be at least 0, not {max_tokens}")
    if not isinstance(model, str):
        raise InvalidArgumentError("model", "must be a tokenizer name, alias or path (workers load it by name)")
    files = expand_inputs(inputs)
    if workers is None:
        workers = default_workers(sum(os.path.getsize(p) for p in files))
    # A bundled name is checked without loading it here (~1 s the workers would wait for);
    # anything else is loaded once, so an unknown name or a bad path fails here, not in a worker.
    name = resolve_name(model) if workers > 1 else None
    tok = None if name else load_tokenizer(model)
    name = name or tok.name
    if text_field is None and messages_field is None:
        for path in files:
            if _kind(path) != "text":
                raise CorpusError(path, "name the field to count with --text-field or --messages-field")
    options = {
        "text_field": text_field,
        "messages_field": messages_field,
        "add_generation_prompt": add_generation_prompt,
    }

    per_file: dict[str, list[int]] = {p: [0, 0, 0] for p in files}  # records, tokens, errors
    lengths: list[Any] = []
    errors: list[tuple[str, int, str]] = []

    def merge(chunk: Chunk, result: tuple[list[int], list[tuple[int, str]]]) -> None:
        _, path, _, items = chunk
        counts, errs = result
        if errs and on_error == "fail":
            line, reason = errs[0]
            raise CorpusError(f"{path}:{line}", f"{reason} (--on-error skip to count the rest)")
        stats = per_file[path]
        stats[0] += len(counts)
        stats[1] += sum(counts)
        stats[2] += len(errs)
        errors.extend((path, line, reason) for line, reason in errs)
        lengths.append(np.asarray(counts, dtype=np.int64))
        if progress is not None:
            progress(sum(len(i) if isinstance(i, (bytes, str)) else 0 for i in items), sum(counts))

    chunks = _chunks(files, text_field, messages_field, max(chunk_records, 1))
    if workers == 1:
        global _TOKENIZER, _OPTIONS
        saved = _TOKENIZER, _OPTIONS
        _TOKENIZER, _OPTIONS = tok, options
        try:
            for chunk in chunks:
                merge(chunk, _count_chunk(chunk))
        finally:
            _TOKENIZER, _OPTIONS = saved
    else:
        context = multiprocessing.get_context("spawn")  # tokenizer engines hold threads: never fork them
        with ProcessPoolExecutor(
            workers, mp_context=context, initargs=(model, options), initializer=_init_worker
        ) as pool:
            pending: deque[tuple[Chunk, Future[Any]]] = deque()
            try:
                for chunk in chunks:
                    pending.append((chunk, pool.submit(_count_chunk, chunk)))
                    if len(pending) >= 2 * workers:  # bounded memory: at most 2 x workers chunks in flight
                        done, future = pending.popleft()
                        merge(done, future.result())
                while pending:
                    done, future = pending.popleft()
                    merge(done, future.result())
            except BaseException:
                for _, future in pending:
                    future.cancel()
                raise

    ordered = np.sort(np.concatenate(lengths)) if lengths else np.zeros(0, dtype=np.int64)
    return CorpusStats(
        model=name,
        files=tuple(FileStats(p, *per_file[p]) for p in files),
        records=len(ordered),
        tokens=int(ordered.sum()),
        min=int(ordered[0]) if len(ordered) else 0,
        p50=_percentile(ordered, 50),
        p90=_percentile(ordered, 90),
        p99=_percentile(ordered, 99),
        max=int(ordered[-1]) if len(ordered) else 0,
        max_tokens=max_tokens,
        over_max=int((ordered > max_tokens).sum()) if max_tokens is not None else None,
        errors=tuple(errors),
    )
