"""From raw items (JSON lines, Parquet rows, text files) to records, and records to tokens.

Used alike by the local workers and the Ray engine, so both give the same answer.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..tokenizer import Tokenizer

IDS, NUM_TOKENS = "input_ids", "num_tokens"  # the columns tokenize adds to a record's


@dataclass(frozen=True)
class Options:
    """What a job reads and produces (sent once to every worker)."""

    text_field: str | None
    messages_field: str | None
    add_generation_prompt: bool = False
    want_ids: bool = False  # tokenize: the ids and the kept rows, not only the lengths
    keep_columns: tuple[str, ...] | None = None  # tokenize: the input columns the shards keep (None: all)
    encoding: str = "utf-8"  # of JSON Lines and text files (a codecs name, checked by check_encoding)
    errors: str = "strict"  # bytes not valid in ``encoding``: a bad record, or replace/ignore/backslashreplace
    #: message lists: a Jinja template's text (or the name of one of the tokenizer's named templates), compiled
    #: once per worker process (the chat package keeps compiled templates by text), and its variables
    chat_template: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None

    def chat_options(self) -> dict[str, Any]:
        """``render_chat`` / ``count_tokens``'s options for a record's message list."""
        return {
            "add_generation_prompt": self.add_generation_prompt,
            "chat_template": self.chat_template,
            "chat_template_kwargs": self.chat_template_kwargs,
        }

    @property
    def fast_utf8(self) -> bool:
        """JSON lines go to ``json.loads`` as bytes (UTF-8, BOM too; no ``str`` made first)."""
        return self.errors == "strict" and self.encoding in ("utf-8", "utf-8-sig")

    @property
    def name(self) -> str:
        return self.text_field or self.messages_field or "text"

    def input_columns(self) -> list[str] | None:
        """The Parquet columns a job reads: the field alone (count), the field and the kept
        columns (tokenize with ``keep_columns``), or all (None)."""
        if not self.want_ids:
            return [self.name]
        if self.keep_columns is None:
            return None
        return list(dict.fromkeys([*self.keep_columns, self.name]))


@dataclass
class Encoded:
    """A chunk's records in order: their lengths, and for tokenize their ids (numpy
    ``ids`` end to end and ``offsets``, as :meth:`Tokenizer.encode_batch_flat` gives them)
    and the rows they came from (JSON Lines: the objects; Parquet: row offsets in the
    batch; text files: ``{"path", "text"}``); items that are not records as (line, reason)."""

    lengths: list[int] = field(default_factory=list)
    ids: Any = None
    offsets: Any = None
    rows: list[Any] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)


# Where a JSON line may hold a lone surrogate: a \\uD800-\\uDFFF escape (json decodes it alone) or
# the same code point written as raw (invalid) UTF-8 bytes (json reads bytes with "surrogatepass").
# Two patterns, not one alternation: each keeps re's literal-prefix scan (the alternation took as
# long as json.loads itself on a line, several times the two scans).
_MAYBE_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_MAYBE_SURROGATE_RAW = re.compile(rb"\xed[\xa0-\xbf]")
_MAYBE_SURROGATE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")  # the same in a decoded line (no raw surrogates there)
_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_problem(value: Any) -> str | None:
    """Where ``value`` (a decoded JSON value) holds a lone surrogate, as a reason; None if nowhere."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return (
                    f"{where or 'the value'} holds a lone surrogate (U+{ord(found.group()):04X} at index "
                    f"{found.start()}): not valid Unicode text"
                )
        elif isinstance(item, dict):
            for key, sub in item.items():
                if _SURROGATE.search(key):
                    return f"{where or 'the record'} has a key holding a lone surrogate: not valid Unicode text"
                stack.append((sub, f"{where}.{key}" if where else f"field {key!r}"))
        elif isinstance(item, list):
            stack.extend((sub, f"{where}[{i}]") for i, sub in enumerate(item))
    return None


# --------------------------------------------------------------------------- encodings

ERRORS = ("strict", "replace", "ignore", "backslashreplace")  # the error policies a corpus job takes
_ASCII = bytes(range(128))


def check_encoding(encoding: str, errors: str) -> str:
    """The codec name of ``encoding`` (``"latin1"`` -> ``"iso8859-1"``), or an InvalidArgumentError.

    Files are cut into records at ``b"\\n"`` bytes, so only encodings that keep ASCII as ASCII
    are read (UTF-8, latin-1, cp1252, Shift JIS, GB18030, ...: no byte of a multi-byte character
    is ``b"\\n"`` there); UTF-16/32 and EBCDIC are refused. ``surrogateescape`` and
    ``surrogatepass`` are refused: they make lone surrogates, which are not text to tokenize."""
    from ..errors import InvalidArgumentError

    if not isinstance(encoding, str):
        raise InvalidArgumentError("encoding", f"must be a codec name such as 'utf-8', not {encoding!r}")
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InvalidArgumentError("encoding", f"unknown encoding {encoding!r} (e.g. utf-8, latin-1, cp1252)") from None
    if not getattr(info, "_is_text_encoding", True):
        raise InvalidArgumentError("encoding", f"{encoding!r} is not a text encoding (e.g. utf-8, latin-1, cp1252)")
    try:
        ascii_compatible = _ASCII.decode(info.name) == _ASCII.decode("ascii")
    except (UnicodeError, TypeError, ValueError):
        ascii_compatible = False
    if not ascii_compatible:
        raise InvalidArgumentError(
            "encoding",
            f"{encoding!r} is not read by corpus jobs, which cut files into records at newline bytes: "
            "they take encodings that keep ASCII as ASCII (utf-8, utf-8-sig, latin-1, cp1252, ...); "
            f"convert the files first (iconv -f {encoding} -t utf-8)",
        )
    if errors not in ERRORS:
        raise InvalidArgumentError("errors", f"must be one of {', '.join(map(repr, ERRORS))}, not {errors!r}")
    return info.name


def _json_backslashreplace(exc: UnicodeError) -> tuple[str, int]:
    """``backslashreplace`` for a JSON line: ``\\xNN`` escaped for JSON, so the value read holds
    ``\\xNN`` as a text file's does (a bare backslash would be an invalid JSON escape)."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "".join(f"\\\\x{b:02x}" for b in exc.object[exc.start : exc.end]), exc.end


codecs.register_error("toklane.json-backslashreplace", _json_backslashreplace)


def _undecodable(opts: Options, exc: UnicodeDecodeError, where: str = "") -> str:
    name = "UTF-8" if opts.encoding in ("utf-8", "utf-8-sig") else opts.encoding
    return (
        f"not valid {name} at byte {exc.start} (0x{exc.object[exc.start : exc.start + 1].hex()}){where}: "
        "pass the files' encoding with --encoding, or --errors replace"
    )


def _json_text(line: bytes, opts: Options) -> str:
    """A JSON line decoded with ``opts.encoding`` (not the fast path); a leading BOM is dropped,
    as ``json.loads`` drops it from bytes."""
    errors = "toklane.json-backslashreplace" if opts.errors == "backslashreplace" else opts.errors
    text = line.decode(opts.encoding, errors)
    return text[1:] if text.startswith("\ufeff") else text


def _json_problem(line: bytes | str) -> str:
    """Why a JSONL line is not JSON, read without its line ending (the message `--jsonl-field` gives:
    an unterminated string is "Unterminated string", not the newline as a control character)."""
    try:
        json.loads(line.rstrip(b"\r\n" if isinstance(line, bytes) else "\r\n"))
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc})"
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 at byte {exc.start} of the line"
    return "not JSON (a line ending inside the value)"


def _value(kind: str, item: Any, opts: Options) -> tuple[Any, Any] | str:
    """(row, value) of one item, or why it is not a record ("" for a blank line: skipped)."""
    if kind == "text":
        try:
            text = item.decode(opts.encoding, opts.errors)
        except UnicodeDecodeError as exc:
            return _undecodable(opts, exc)
        return {"text": text}, text
    if kind == "jsonl":
        if not item.strip():
            return ""
        try:
            obj = json.loads(item)
        except UnicodeDecodeError as exc:
            return _undecodable(opts, exc, " of the line")
        except json.JSONDecodeError:
            return _json_problem(item)
        if not isinstance(obj, dict) or opts.name not in obj:
            return f"no field {opts.name!r}"
        if _MAYBE_SURROGATE_ESCAPE.search(item) or _MAYBE_SURROGATE_RAW.search(item):
            problem = surrogate_problem(obj)
            if problem:
                return problem
        return obj, obj[opts.name]
    if isinstance(item, _NotText):
        return item.reason
    return None, item  # parquet: the column value


def _decoded_json_value(kind: str, item: bytes, opts: Options) -> tuple[Any, Any] | str:
    """:func:`_value` of a JSON line in another encoding or error policy than UTF-8 strict: the
    line is decoded with the codec first, then parsed."""
    if not item.strip():
        return ""
    try:
        text = _json_text(item, opts)
    except UnicodeDecodeError as exc:
        return _undecodable(opts, exc, " of the line")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return _json_problem(text)
    if not isinstance(obj, dict) or opts.name not in obj:
        return f"no field {opts.name!r}"
    if _MAYBE_SURROGATE_TEXT.search(text):
        problem = surrogate_problem(obj)
        if problem:
            return problem
    return obj, obj[opts.name]


class _NotText:
    """A Parquet string value that is not valid UTF-8 (Parquet readers do not check)."""

    def __init__(self, reason: str):
        self.reason = reason


def _parquet_values(batch: Any, name: str, path: str, errors: str = "strict") -> list[Any]:
    """The values of column ``name`` of a Parquet batch, as Python objects; a string that is not
    valid UTF-8 is decoded with ``errors`` (``"strict"``: it is a bad record)."""
    from .inputs import CorpusError

    index = batch.schema.get_field_index(name)
    if index < 0:  # checked when the job is planned; never read another column in its place
        raise CorpusError(path, f"no column {name!r} (columns: {', '.join(batch.schema.names)})")
    data = batch.column(index)
    try:
        return data.to_pylist()
    except UnicodeDecodeError:
        values: list[Any] = []
        for k in range(len(data)):
            try:
                values.append(data[k].as_py())
            except UnicodeDecodeError as exc:
                raw = _string_bytes(data, k) if errors != "strict" else None
                if raw is not None:
                    values.append(raw.decode("utf-8", errors))
                else:
                    values.append(_NotText(f"field {name!r} is not valid UTF-8 (at byte {exc.start})"))
        return values


def _string_bytes(data: Any, k: int) -> bytes | None:
    """The bytes of string value ``k`` of an Arrow string array (None for other types)."""
    import pyarrow as pa

    if data.type not in (pa.string(), pa.large_string()):
        return None
    return data.slice(k, 1).cast(pa.large_binary() if data.type == pa.large_string() else pa.binary())[0].as_py()


def _check(value: Any, opts: Options) -> str | None:
    if opts.messages_field is None:
        if not isinstance(value, str):
            hint = " (a message list: --messages-field)" if isinstance(value, list) else ""
            return f"field {opts.name!r} is {type(value).__name__}, not text{hint}"
    elif not isinstance(value, list):
        return f"field {opts.name!r} is {type(value).__name__}, not a message list"
    return None


def encode_items(tok: Tokenizer, kind: str, first_line: int, items: Any, opts: Options, path: str = "") -> Encoded:
    """Lengths (and with ``opts.want_ids`` ids and rows) of the records among ``items``:
    raw lines for ``"jsonl"``, a pyarrow RecordBatch for ``"parquet"``, one file's bytes
    for ``"text"``. A text record is ``tok.encode(text)``; a message list is rendered in
    the model's chat format (``count_tokens`` / ``encode_chat``)."""
    from ..chat.messages import validate_messages
    from ..counting import count_tokens, render_chat

    out = Encoded()
    chat = opts.chat_options()
    values = _parquet_values(items, opts.name, path, opts.errors) if kind == "parquet" else items
    texts: list[str] = []
    slots: list[Any] = []  # per record: None (its text is in texts, in order) or a count
    value_of = _decoded_json_value if kind == "jsonl" and not opts.fast_utf8 else _value
    for offset, item in enumerate(values):
        got = value_of(kind, item, opts)
        if isinstance(got, str):
            if got:
                out.errors.append((first_line + offset, got))
            continue
        row, value = got
        reason = _check(value, opts)
        if reason is not None:
            out.errors.append((first_line + offset, reason))
            continue
        if kind == "text":
            row["path"] = path
        if isinstance(value, list):
            try:
                if opts.want_ids:
                    value = render_chat(validate_messages(value), tok, **chat)
                else:
                    slots.append(count_tokens(value, tok, **chat))
                    out.rows.append(row if kind != "parquet" else offset)
                    continue
            except (ValueError, TypeError) as exc:
                out.errors.append((first_line + offset, str(exc)))
                continue
        texts.append(value)
        slots.append(None)
        out.rows.append(row if kind != "parquet" else offset)
    ids, offsets = tok.encode_batch_flat(texts)
    counts = np.diff(offsets).tolist()
    if opts.want_ids:
        out.ids, out.offsets, out.lengths = ids, offsets, counts
    else:
        counted = iter(counts)
        out.lengths = [next(counted) if s is None else s for s in slots]
    return out
