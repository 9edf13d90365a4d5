"""count_corpus and tokenize_corpus: plan the splits, run them on workers, merge in order."""

from __future__ import annotations

import glob
import hashlib
import json
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Literal

from ..errors import InvalidArgumentError
from .inputs import CorpusError, Split, expand_inputs, file_kind, plan_splits
from .merge import Merger
from .plan import Job, Progress
from .records import IDS, NUM_TOKENS, Options, check_encoding
from .stats import CorpusStats
from .work import (
    META_KEY,
    Limits,
    SplitResult,
    count_split,
    init_worker,
    local_state,
    prepare_output,
    shard_path,
    tokenize_split,
    unify_shards,
)

OnError = Literal["fail", "skip"]
Engine = Literal["local", "ray"]
# Input bytes per worker process when workers=None: a worker first loads its tokenizer, which takes
# about as long as one core counting tens of MB, so small corpora are counted in-process.
BYTES_PER_WORKER = 32 << 20
COUNT_SPLIT_BYTES = 8 << 20  # count: small splits keep every worker busy to the end
# tokenize: input bytes per output shard (a worker holds one in memory). The job ends when the
# last shard does, one worker alone on it: a larger shard leaves the other workers idle longer.
SHARD_BYTES = 16 << 20


def default_workers(total_bytes: int) -> int:
    """Workers for ``workers=None``: every core for a big corpus, one per 32 MB of input below that
    (1: in-process, no tokenizer loads in other processes)."""
    return max(1, min(os.cpu_count() or 1, total_bytes // BYTES_PER_WORKER))


# --------------------------------------------------------------------------- checks and planning


def _check_arguments(
    text_field: str | None,
    messages_field: str | None,
    workers: int | None,
    max_tokens: int | None,
    on_error: str,
    model: Any,
    engine: str,
    min_tokens: int | None = None,
) -> None:
    if text_field is not None and messages_field is not None:
        raise InvalidArgumentError("text_field", "and messages_field exclude each other: pass one")
    if on_error not in ("fail", "skip"):
        raise InvalidArgumentError("on_error", f"must be 'fail' or 'skip', not {on_error!r}")
    if engine not in ("local", "ray"):
        raise InvalidArgumentError("engine", f"must be 'local' or 'ray', not {engine!r}")
    if workers is not None and workers < 1:
        raise InvalidArgumentError("workers", f"must be at least 1, not {workers}")
    for name, value in (("max_tokens", max_tokens), ("min_tokens", min_tokens)):
        if value is not None and value < 0:
            raise InvalidArgumentError(name, f"must be at least 0, not {value}")
    if max_tokens is not None and min_tokens is not None and min_tokens > max_tokens:
        raise InvalidArgumentError("min_tokens", f"({min_tokens}) is above max_tokens ({max_tokens}): nothing is kept")
    if not isinstance(model, str):
        raise InvalidArgumentError("model", "must be a tokenizer name, alias or path (workers load it by name)")


def _chat_arguments(
    messages_field: str | None, chat_template: Any, chat_template_kwargs: Any
) -> tuple[str | None, dict[str, Any] | None]:
    """``chat_template`` and ``chat_template_kwargs`` checked here, once: a template's syntax error is
    one :class:`~toklane.errors.ChatTemplateError` naming its line before any worker starts."""
    if messages_field is None:
        for name, value in (("chat_template", chat_template), ("chat_template_kwargs", chat_template_kwargs)):
            if value is not None:
                raise InvalidArgumentError(name, "applies to message lists: pass messages_field too")
        return None, None
    if chat_template is not None:
        from ..chat.templates import compile_template

        if not isinstance(chat_template, str):
            raise InvalidArgumentError(
                "chat_template", f"must be a template's text or name (a string), got {type(chat_template).__name__}"
            )
        compile_template(chat_template, "the chat_template given")  # (kept: workers in this process reuse it)
    if chat_template_kwargs is None:
        return chat_template, None
    if not isinstance(chat_template_kwargs, Mapping):
        raise InvalidArgumentError(
            "chat_template_kwargs",
            f"must be a mapping of template variables, got {type(chat_template_kwargs).__name__}",
        )
    kwargs = dict(chat_template_kwargs)
    for key in kwargs:
        if not isinstance(key, str) or not key.isidentifier():
            raise InvalidArgumentError("chat_template_kwargs", f"keys must be variable names, got {key!r}")
    try:
        json.dumps(kwargs)  # workers get a copy, and tokenize's fingerprint holds them
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError("chat_template_kwargs", f"must hold JSON values ({exc})") from None
    return chat_template, kwargs


def _plan(
    inputs: Any,
    model: str,
    opts: Options,
    limits: Limits,
    workers: int | None,
    engine: str,
    split_bytes: int,
) -> Job:
    from ..tokenizer import load_tokenizer
    from ..tokenizer.registry import resolve_name

    files = expand_inputs(inputs)
    if opts.text_field is None and opts.messages_field is None:
        for path in files:
            if file_kind(path) != "text":
                raise CorpusError(path, "name the field to read with --text-field or --messages-field")
    if workers is None:
        workers = default_workers(sum(os.path.getsize(p) for p in files))
    # A bundled name is checked without loading it here (a load the workers would wait for);
    # anything else is loaded once, so an unknown name or a bad path fails here, not in a worker.
    name = resolve_name(model) if (workers > 1 or engine != "local") else None
    tok = None if name else load_tokenizer(model)
    if opts.want_ids and opts.messages_field is not None:
        _check_chat_markers(tok if tok is not None else load_tokenizer(model), opts.chat_template)
    if opts.encoding != "utf-8" and files and all(file_kind(p) == "parquet" for p in files):
        raise InvalidArgumentError(
            "encoding", f"({opts.encoding}) does not apply to Parquet inputs, whose strings are UTF-8: drop it"
        )
    splits = plan_splits(files, split_bytes, required=[opts.name])
    return Job(name or tok.name, tuple(files), tuple(splits), opts, limits, workers, tok)


def _check_chat_markers(tok: Any, chat_template: str | None = None) -> None:
    from ..chat import renderer_for

    fmt = renderer_for(
        tok, chat_template=chat_template
    ).format  # None: the tokenizer's own template, whose ids are its own
    missing = [m for m in fmt.markers if m not in tok.special_tokens] if fmt is not None else []
    if missing:
        raise InvalidArgumentError(
            "messages_field",
            f"cannot be tokenized with {tok.name!r}: its vocabulary has no {fmt.name!r} chat markers "
            f"({', '.join(missing)}); count them instead, or pick a chat model's tokenizer",
        )


# --------------------------------------------------------------------------- running


def _run_local(
    job: Job, task: Callable[[Split], SplitResult], todo: list[Split], progress: Progress | None
) -> Iterator[SplitResult]:
    """Results of ``todo`` in split order (a pool of ``job.workers`` processes, or this one)."""
    if job.workers == 1:
        report = (lambda item: progress(*item)) if progress is not None else None
        from ..tokenizer import load_tokenizer

        # (not `or`: that would build the vocabulary, len(tok))
        tok = job.local_tokenizer if job.local_tokenizer is not None else load_tokenizer(job.model)
        with local_state(tok, job.opts, job.limits, report):
            for split in todo:
                yield task(split)
        return
    context = multiprocessing.get_context("spawn")  # tokenizer engines hold threads: never fork them
    queue = context.SimpleQueue() if progress is not None else None
    drain = None
    if queue is not None:

        def pump() -> None:
            while (item := queue.get()) is not None:
                progress(*item)

        drain = threading.Thread(target=pump, name="toklane-corpus-progress", daemon=True)
        drain.start()
    try:
        pool = ProcessPoolExecutor(
            job.workers,
            mp_context=context,
            initializer=init_worker,
            initargs=(job.model, job.opts, job.limits, queue, os.getpid()),
        )
        pending: deque[Future[SplitResult]] = deque()
        try:
            for split in todo:
                pending.append(pool.submit(task, split))
                if len(pending) >= 2 * job.workers:  # bounded: at most 2 x workers splits in flight
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)  # no worker writes past this call
            raise
        # Every split is done (each shard renamed into place): the workers only have to exit,
        # freeing a loaded tokenizer, which the caller need not wait for.
        pool.shutdown(wait=False)
    finally:
        if queue is not None and drain is not None:
            queue.put(None)
            drain.join()


def _run(job: Job, engine: str, ray_address: str | None, progress: Progress | None) -> CorpusStats:
    if engine == "ray":
        from .ray_engine import run_ray

        return run_ray(job, ray_address, progress)
    merger = Merger(job)
    if not job.tokenize:
        results = _run_local(job, count_split, list(job.splits), progress)
        try:
            for split, result in zip(job.splits, results, strict=True):
                merger.add(split, result)
        finally:
            results.close()
        return merger.stats()
    done = _finished_shards(job)
    todo = [s for s in job.splits if s.index not in done]
    results = _run_local(job, tokenize_split, todo, progress)
    try:
        for split in job.splits:
            merger.add(split, done[split.index] if split.index in done else next(results))
    finally:
        results.close()
    shards = [shard_path(job.limits.output or "", s.index) for s in job.splits]
    schema = unify_shards(shards, job.workers)
    return merger.stats(tuple(shards), len(done), schema)


# --------------------------------------------------------------------------- tokenize: output and resume


def fingerprint(job: Job, split_bytes: int) -> str:
    """What makes shards of one job interchangeable: inputs (path, size, mtime), model, options."""
    files = []
    for path in job.files:
        st = os.stat(path)
        files.append([os.path.abspath(path), st.st_size, st.st_mtime_ns])
    key = {
        "model": job.model,
        "files": files,
        "split_bytes": split_bytes,
        "text_field": job.opts.text_field,
        "messages_field": job.opts.messages_field,
        "add_generation_prompt": job.opts.add_generation_prompt,
        "max_tokens": job.limits.max_tokens,
        "min_tokens": job.limits.min_tokens,
        "keep_columns": job.opts.keep_columns,
    }
    if job.opts.chat_template is not None or job.opts.chat_template_kwargs is not None:
        key.update(chat_template=job.opts.chat_template, chat_template_kwargs=job.opts.chat_template_kwargs)
    if (job.opts.encoding, job.opts.errors) != ("utf-8", "strict"):  # (absent: shards of earlier versions resume)
        key.update(encoding=job.opts.encoding, errors=job.opts.errors)
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]


def _shard_fingerprint(path: str) -> tuple[str, SplitResult] | None:
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(path).metadata or {}
        return SplitResult.from_meta(meta[META_KEY], path)
    except Exception:  # not ours, or unreadable: treated as foreign
        return None


def _finished_shards(job: Job) -> dict[int, SplitResult]:
    """Shards an earlier run of the same job completed (kept), after checking that every
    shard in the folder belongs to this job."""
    output = job.limits.output or ""
    done: dict[int, SplitResult] = {}
    expected = {shard_path(output, s.index): s.index for s in job.splits}
    for path in sorted(glob.glob(os.path.join(glob.escape(output), "part-*.parquet"))):
        found = _shard_fingerprint(path)
        if found is None or found[0] != job.limits.fingerprint or path not in expected:
            raise CorpusError(
                output,
                f"holds {os.path.basename(path)} from a different job (other inputs, model or options): "
                "write to an empty folder, or pass overwrite=True (--overwrite) to replace its shards",
            )
        done[expected[path]] = found[1]
    return done


def _keep_columns(keep: Iterable[str] | None) -> tuple[str, ...] | None:
    if keep is None:
        return None
    if isinstance(keep, str):
        raise InvalidArgumentError("keep_columns", f"must be a list of column names, not the string {keep!r}")
    names = tuple(dict.fromkeys(keep))
    for name in names:
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError("keep_columns", f"holds {name!r}: column names are non-empty strings")
        if name in (IDS, NUM_TOKENS):
            raise InvalidArgumentError("keep_columns", f"names {name!r}: the shards always hold it")
    return names


# --------------------------------------------------------------------------- public API


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
    progress: Progress | None = None,
    engine: Engine = "local",
    ray_address: str | None = None,
    split_bytes: int = COUNT_SPLIT_BYTES,
    min_tokens: int | None = None,
    encoding: str = "utf-8",
    errors: str = "strict",
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
) -> CorpusStats:
    """Count the tokens of every record in ``inputs`` (paths, folders, globs) with ``model``.

    Text records count like ``tok.encode(text)``, message lists like
    ``count_tokens(messages, model=...)``. ``workers`` processes (1: in this process), each
    on one core, load ``model`` once by name; the default is every core, fewer for a corpus
    under 32 MB per core (see :func:`default_workers`). A malformed line or a record
    without the field raises :class:`CorpusError` naming file and line
    (``on_error="fail"``) or is listed in ``errors`` (``"skip"``). ``progress(bytes, tokens)``
    is called as chunks finish. ``engine="ray"`` runs the job on Ray (``toklane[ray]``;
    ``ray_address`` of a cluster, default a local Ray) with the same result. With
    ``max_tokens`` / ``min_tokens`` the statistics count the records longer / shorter.
    JSON Lines and text files are read in ``encoding`` (one that keeps ASCII as ASCII: utf-8,
    utf-8-sig, latin-1, cp1252, ...; Parquet strings are UTF-8 by the format); bytes not valid
    in it make a bad record (``errors="strict"``) or are decoded with ``errors`` ``"replace"``
    (U+FFFD), ``"ignore"`` or ``"backslashreplace"`` (``\\xNN``). Message lists render as
    ``count_tokens(messages, model, add_generation_prompt=..., chat_template=..., chat_template_kwargs=...)``:
    ``chat_template`` is a Jinja template's text (or the name of one of the tokenizer's named templates),
    checked here and compiled once per worker; a record it fails on is a bad record (``on_error``).
    """
    _check_arguments(text_field, messages_field, workers, max_tokens, on_error, model, engine, min_tokens)
    codec = check_encoding(encoding, errors)
    template, kwargs = _chat_arguments(messages_field, chat_template, chat_template_kwargs)
    opts = Options(
        text_field,
        messages_field,
        add_generation_prompt,
        encoding=codec,
        errors=errors,
        chat_template=template,
        chat_template_kwargs=kwargs,
    )
    limits = Limits(on_error=on_error, max_tokens=max_tokens, min_tokens=min_tokens)
    job = _plan(inputs, model, opts, limits, workers, engine, max(split_bytes, 1))
    return _run(job, engine, ray_address, progress)


def tokenize_corpus(
    inputs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    model: str = "qwen3.6",
    *,
    text_field: str | None = None,
    messages_field: str | None = None,
    workers: int | None = None,
    max_tokens: int | None = None,
    min_tokens: int | None = None,
    on_error: OnError = "fail",
    add_generation_prompt: bool = False,
    overwrite: bool = False,
    keep_columns: Iterable[str] | None = None,
    progress: Progress | None = None,
    engine: Engine = "local",
    ray_address: str | None = None,
    shard_bytes: int = SHARD_BYTES,
    encoding: str = "utf-8",
    errors: str = "strict",
    chat_template: str | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
) -> CorpusStats:
    """Tokenize every record in ``inputs`` into Parquet shards ``output/part-00000.parquet``, ...

    Each shard keeps every input column (text files: ``text`` and ``path``), or only
    ``keep_columns`` (``[]``: none), and adds ``input_ids`` (``list<int32>``) and
    ``num_tokens`` (``int32``). All shards of a job have one schema: every field of any
    record, null where a record lacks it; a field whose values share no one type holds their
    JSON text (``stats.json_columns``; docs/corpus.md, "Columns"). Records longer than
    ``max_tokens`` or shorter than ``min_tokens`` are left out (and counted in the
    statistics). Rows are in input order: shard by shard, then row by row, for any number
    of workers. A shard holds about ``shard_bytes`` of input and is written under a
    temporary name, renamed when complete: an interrupted run leaves no partial shard, and
    running the same job again keeps the finished shards and writes the rest. A folder
    holding shards of a different job (other inputs, model or options, ``encoding`` and
    ``errors`` included) is an error unless ``overwrite``. Other arguments as
    :func:`count_corpus` (``chat_template`` and ``chat_template_kwargs`` are part of the job's
    fingerprint); the statistics cover every record read.
    """
    _check_arguments(text_field, messages_field, workers, max_tokens, on_error, model, engine, min_tokens)
    codec = check_encoding(encoding, errors)
    template, kwargs = _chat_arguments(messages_field, chat_template, chat_template_kwargs)
    try:
        import pyarrow  # noqa: F401
    except ModuleNotFoundError:
        needs = 'writing Parquet shards needs pyarrow: pip install "toklane[corpus]"'
        raise CorpusError(os.fspath(output), needs) from None
    output = os.path.expanduser(os.fspath(output))
    keep = _keep_columns(keep_columns)
    opts = Options(
        text_field,
        messages_field,
        add_generation_prompt,
        want_ids=True,
        keep_columns=keep,
        encoding=codec,
        errors=errors,
        chat_template=template,
        chat_template_kwargs=kwargs,
    )
    limits = Limits(on_error, max_tokens, min_tokens, output, overwrite=overwrite)
    job = _plan(inputs, model, opts, limits, workers, engine, max(shard_bytes, 1))
    limits.fingerprint = fingerprint(job, max(shard_bytes, 1))
    if engine == "local":
        prepare_output(output, overwrite)
    return _run(job, engine, ray_address, progress)
