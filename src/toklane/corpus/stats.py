"""What a corpus job reports: per-file totals, the length distribution, errors.

Lengths are kept as a histogram (records per token count), so memory depends on the
longest record, not on how many records there are, and percentiles stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class FileStats:
    path: str
    records: int
    tokens: int
    errors: int = 0


@dataclass(frozen=True)
class CorpusStats:
    """Counts over a corpus: per file, in total, and the distribution of record lengths.

    For :func:`~toklane.corpus.tokenize_corpus`, ``written`` is the number of rows
    written (records within the length filter) and ``shards`` the shard paths.
    """

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
    min_tokens: int | None = None
    under_min: int | None = None  # records shorter than min_tokens
    written: int | None = None  # tokenize: rows written to the shards
    shards: tuple[str, ...] = field(default=())  # tokenize: the shard files, in order
    resumed: int = 0  # tokenize: finished shards found and kept from an earlier run
    columns: tuple[str, ...] = field(default=())  # tokenize: the shards' input columns (all shards share them)
    json_columns: tuple[str, ...] = field(default=())  # tokenize: columns holding each value's JSON text
    notes: tuple[str, ...] = field(default=())  # what the user should know (a column as JSON text, ...)

    def to_json(self) -> dict[str, Any]:
        out = {
            "model": self.model,
            "files": [
                {"path": f.path, "records": f.records, "tokens": f.tokens, "errors": f.errors} for f in self.files
            ],
            "records": self.records,
            "total": self.tokens,
            "lengths": {"min": self.min, "p50": self.p50, "p90": self.p90, "p99": self.p99, "max": self.max},
            "max_tokens": self.max_tokens,
            "over_max": self.over_max,
            "min_tokens": self.min_tokens,
            "under_min": self.under_min,
            "errors": [{"path": p, "line": n, "reason": r} for p, n, r in self.errors],
        }
        if self.written is not None:
            out.update(
                written=self.written,
                shards=list(self.shards),
                resumed=self.resumed,
                columns=list(self.columns),
                json_columns=list(self.json_columns),
                notes=list(self.notes),
            )
        return out


class Histogram:
    """Records per token count, grown as longer records arrive; merged with ``add``."""

    def __init__(self) -> None:
        self.counts = np.zeros(0, dtype=np.int64)

    def add(self, counts: np.ndarray) -> None:
        if len(counts) > len(self.counts):
            counts, other = counts.astype(np.int64), self.counts
        else:
            other = counts
            counts = self.counts
        counts[: len(other)] += other
        self.counts = counts

    def add_lengths(self, lengths: Any) -> None:
        if len(lengths):
            self.add(np.bincount(np.asarray(lengths, dtype=np.int64)))

    @property
    def records(self) -> int:
        return int(self.counts.sum())

    @property
    def tokens(self) -> int:
        return int((self.counts * np.arange(len(self.counts), dtype=np.int64)).sum())

    def percentile(self, p: float) -> int:
        """Nearest-rank percentile (0 for no records)."""
        n = self.records
        if not n:
            return 0
        rank = max(int(np.ceil(p / 100 * n)), 1)
        return int(np.searchsorted(np.cumsum(self.counts), rank))

    def above(self, limit: int) -> int:
        return int(self.counts[limit + 1 :].sum())

    def below(self, limit: int) -> int:
        return int(self.counts[: max(limit, 0)].sum())

    def to_pairs(self) -> list[list[int]]:
        """``[[length, records], ...]`` for the lengths present (a shard's metadata)."""
        (present,) = np.nonzero(self.counts)
        return [[int(n), int(self.counts[n])] for n in present]

    @classmethod
    def from_pairs(cls, pairs: list[list[int]]) -> Histogram:
        hist = cls()
        if pairs:
            lengths = np.array([p[0] for p in pairs], dtype=np.int64)
            counts = np.zeros(int(lengths.max()) + 1, dtype=np.int64)
            counts[lengths] = [p[1] for p in pairs]
            hist.counts = counts
        return hist


def summarize(
    model: str,
    files: tuple[FileStats, ...],
    hist: Histogram,
    errors: list[tuple[str, int, str]],
    *,
    max_tokens: int | None,
    min_tokens: int | None = None,
    written: int | None = None,
    shards: tuple[str, ...] = (),
    resumed: int = 0,
    columns: tuple[tuple[str, ...], ...] | None = None,
) -> CorpusStats:
    """The statistics; ``columns``: (input columns, JSON-text columns, notes) of tokenize's shards."""
    nonzero = np.nonzero(hist.counts)[0]
    names, as_json, notes = columns or ((), (), ())
    return CorpusStats(
        model=model,
        files=files,
        records=hist.records,
        tokens=hist.tokens,
        min=int(nonzero[0]) if len(nonzero) else 0,
        p50=hist.percentile(50),
        p90=hist.percentile(90),
        p99=hist.percentile(99),
        max=int(nonzero[-1]) if len(nonzero) else 0,
        max_tokens=max_tokens,
        over_max=hist.above(max_tokens) if max_tokens is not None else None,
        errors=tuple(errors),
        min_tokens=min_tokens,
        under_min=hist.below(min_tokens) if min_tokens is not None else None,
        written=written,
        shards=shards,
        resumed=resumed,
        columns=names,
        json_columns=as_json,
        notes=notes,
    )
