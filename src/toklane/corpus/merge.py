"""Merger: a job's split results merged in split order into its statistics, for every engine.

Each engine (the local pool in :mod:`.jobs`, :mod:`.ray_engine`) gets results split by split
and hands them here in input order, so both report the same totals, line numbers and first error.
"""

from __future__ import annotations

from typing import Any

from .inputs import CorpusError, Split
from .plan import Job
from .stats import CorpusStats, FileStats, Histogram, summarize
from .work import SplitResult


class Merger:
    """Merges split results in split order: per-file totals, absolute line numbers, lengths."""

    def __init__(self, job: Job):
        self.job = job
        self.per_file: dict[str, list[int]] = {p: [0, 0, 0] for p in job.files}
        self.lines: dict[str, int] = dict.fromkeys(job.files, 0)
        self.hist = Histogram()
        self.errors: list[tuple[str, int, str]] = []
        self.written = 0

    def add(self, split: Split, result: SplitResult) -> None:
        bases = []
        for piece, (records, tokens, errors, lines) in zip(split.pieces, result.pieces, strict=True):
            bases.append(self.lines[piece.path])
            self.lines[piece.path] += lines
            stats = self.per_file[piece.path]
            stats[0] += records
            stats[1] += tokens
            stats[2] += errors
        located = [(split.pieces[p].path, bases[p] + line, reason) for p, line, reason in result.errors]
        if located and self.job.limits.on_error == "fail":
            path, line, reason = located[0]
            raise CorpusError(f"{path}:{line}", f"{reason} (--on-error skip to read the rest)")
        self.errors.extend(located)
        self.hist.add(result.lengths)
        self.written += result.written

    def stats(self, shards: tuple[str, ...] = (), resumed: int = 0, schema: Any = None) -> CorpusStats:
        """The job's statistics; for tokenize, ``schema`` is the shards' (one for all)."""
        limits = self.job.limits
        columns = None
        if schema is not None:
            from .columns import describe  # pyarrow: only tokenize gets here

            columns = describe(schema, self.job.opts.keep_columns)
        return summarize(
            self.job.model,
            tuple(FileStats(p, *self.per_file[p]) for p in self.job.files),
            self.hist,
            self.errors,
            max_tokens=limits.max_tokens,
            min_tokens=limits.min_tokens,
            written=self.written if self.job.tokenize else None,
            shards=shards,
            resumed=resumed,
            columns=columns,
        )
