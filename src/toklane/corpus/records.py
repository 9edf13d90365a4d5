"""From raw items (JSON lines, Parquet rows, text files) to records, and records to tokens.

Used alike by the local workers and the Ray engine, so both give the same answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..tokenizer import Tokenizer


@dataclass(frozen=True)
class Options:
    """What a job reads and produces (sent once to every worker)."""

    text_field: str | None
    messages_field: str | None
    add_generation_prompt: bool = False
    want_ids: bool = False  # tokenize: the ids and the kept rows, not only the lengths

    @property
    def name(self) -> str:
        return self.text_field or self.messages_field or "text"


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


def _value(kind: str, item: Any, opts: Options) -> tuple[Any, Any] | str:
    """(row, value) of one item, or why it is not a record ("" for a blank line: skipped)."""
    if kind == "text":
        try:
            text = item.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"not valid UTF-8 at byte {exc.start}"
        return {"text": text}, text
    if kind == "jsonl":
        if not item.strip():
            return ""
        try:
            obj = json.loads(item)
        except UnicodeDecodeError as exc:
            return f"not valid UTF-8 at byte {exc.start} of the line"
        except json.JSONDecodeError as exc:
            return f"not JSON ({exc})"
        if not isinstance(obj, dict) or opts.name not in obj:
            return f"no field {opts.name!r}"
        return obj, obj[opts.name]
    return None, item  # parquet: the column value


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
    from ..counting import count_tokens, render_chat
    from ..tokenizer.chat import validate_messages

    out = Encoded()
    values = items.column(items.schema.get_field_index(opts.name)).to_pylist() if kind == "parquet" else items
    texts: list[str] = []
    slots: list[Any] = []  # per record: None (its text is in texts, in order) or a count
    for offset, item in enumerate(values):
        got = _value(kind, item, opts)
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
                    value = render_chat(validate_messages(value), tok, add_generation_prompt=opts.add_generation_prompt)
                else:
                    slots.append(count_tokens(value, tok, add_generation_prompt=opts.add_generation_prompt))
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
