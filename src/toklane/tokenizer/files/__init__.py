"""Reading tokenizer files that may come from anywhere: bounded, non-blocking, validated.

Library users load ``tokenizer.json``, ``tekken.json`` and ``.tiktoken`` files
from model repositories they do not control. Everything here runs *before* an
engine is built, so a malformed file fails with a
:class:`~toklane.TokenizerLoadError` that names the field at fault instead of a
``KeyError``, a Rust panic, a hang or an out-of-memory:

* only regular files are read (a FIFO, a device such as ``/dev/zero``, a socket
  or a folder is refused; the file is opened non-blocking and checked with
  ``fstat`` on the open descriptor, so a swapped path cannot slip through), and
  at most :data:`MAX_FILE_BYTES` of them;
* JSON is checked for shape (types of every field we read), ids and ranks for
  range, uniqueness and contiguity, and sizes are bounded by what the file
  actually holds (a 15 KB file cannot declare a 10^20-token vocabulary);
* byte-level BPE vocabularies must hold all 256 single bytes (otherwise the
  engine panics on the first text with a missing byte);
* engine construction itself is guarded (:func:`build_engine`): an exception
  or a pyo3 ``PanicException`` (a ``BaseException``) becomes a load error, and
  a ranked engine must round-trip a probe text before it is handed out.

One module per concern: :mod:`.reading` (regular files, size caps, JSON, the engine-build guard),
:mod:`.fields` (the field checkers the readers share), :mod:`.ranks` (ranks checks and the
``.tiktoken`` reader), :mod:`.tekken`, :mod:`.tokenizer_json` (its checks and :class:`Pipeline`) and
:mod:`.sentencepiece` (the ``.model`` protobuf reader). Import the names from here.
"""

from __future__ import annotations

from .fields import MAX_TOKEN_ID
from .ranks import _parse_tiktoken_line_by_line as _parse_tiktoken_line_by_line
from .ranks import _parse_tiktoken_lines as _parse_tiktoken_lines
from .ranks import _ranks_in_range as _ranks_in_range
from .ranks import check_ranks, missing_bytes, parse_tiktoken_ranks
from .reading import (
    MAX_FILE_BYTES,
    PROBE_TEXT,
    build_engine,
    is_engine_failure,
    load_json,
    read_bytes,
    read_head,
    read_text,
)
from .sentencepiece import SP_BYTE as SP_BYTE
from .sentencepiece import SP_CONTROL as SP_CONTROL
from .sentencepiece import SP_NORMAL as SP_NORMAL
from .sentencepiece import SP_UNKNOWN as SP_UNKNOWN
from .sentencepiece import SP_UNUSED as SP_UNUSED
from .sentencepiece import SP_USER_DEFINED as SP_USER_DEFINED
from .sentencepiece import SentencePieceModel, model_from_payload, model_payload, parse_sentencepiece
from .tekken import MAX_PATTERN_CHARS, MAX_SPECIAL_TOKENS, TekkenData, parse_tekken
from .tokenizer_json import Pipeline, check_tokenizer_json

# The ``X as X`` imports are imported from here too, outside __all__: the piece types the
# SentencePiece engine and the tests read, and the .tiktoken reader's parts that
# tests/tokenizer/test_untrusted_files.py calls.
__all__ = [
    "MAX_FILE_BYTES",
    "MAX_PATTERN_CHARS",
    "MAX_SPECIAL_TOKENS",
    "MAX_TOKEN_ID",
    "PROBE_TEXT",
    "Pipeline",
    "SentencePieceModel",
    "TekkenData",
    "build_engine",
    "check_ranks",
    "check_tokenizer_json",
    "is_engine_failure",
    "load_json",
    "missing_bytes",
    "model_from_payload",
    "model_payload",
    "parse_sentencepiece",
    "parse_tekken",
    "parse_tiktoken_ranks",
    "read_bytes",
    "read_head",
    "read_text",
]
