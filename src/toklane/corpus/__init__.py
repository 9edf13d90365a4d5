"""Corpus jobs: count and tokenize datasets (files, folders, globs) on every core, or on Ray.

- :func:`count_corpus`: token totals per file and overall, the length distribution, and
  how many records exceed a limit.
- :func:`tokenize_corpus`: Parquet shards of the records with their ``input_ids``, in input
  order, resumable.

Formats, by suffix: ``.jsonl`` / ``.json`` (one JSON object per line; ``text_field``
names a string field, ``messages_field`` a chat message list), ``.parquet`` (needs
pyarrow: ``pip install "toklane[corpus]"``), anything else: plain UTF-8 text, one
record per file. Every worker count gives the same result.
"""

from .inputs import CorpusError, expand_inputs
from .jobs import count_corpus, default_workers, tokenize_corpus
from .stats import CorpusStats, FileStats

__all__ = [
    "CorpusError",
    "CorpusStats",
    "FileStats",
    "count_corpus",
    "default_workers",
    "expand_inputs",
    "tokenize_corpus",
]
