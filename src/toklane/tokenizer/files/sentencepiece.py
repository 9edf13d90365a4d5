"""SentencePiece ``.model`` files: :func:`parse_sentencepiece` reads and checks the ``ModelProto``
without protobuf, before the ``sentencepiece`` library sees it (:class:`SentencePieceModel`)."""

from __future__ import annotations

import json
import struct
from array import array
from collections.abc import Iterator
from typing import Any

from ...errors import TokenizerLoadError
from .fields import MAX_TOKEN_ID, _bytes_list

#: SentencePiece piece types (sentencepiece_model.proto).
SP_NORMAL, SP_UNKNOWN, SP_CONTROL, SP_USER_DEFINED, SP_UNUSED, SP_BYTE = 1, 2, 3, 4, 5, 6
#: SentencePiece model types this reader accepts: Unigram and BPE.
SP_MODEL_TYPES = {1: "Unigram", 2: "BPE"}
_SP_ALL_TYPES = {1: "Unigram", 2: "BPE", 3: "Word", 4: "Char"}

#: Largest precompiled normalisation table accepted (real ones are ~200 KB).
MAX_CHARSMAP_BYTES = 16 * 1024 * 1024
#: Longest piece accepted, in bytes (real pieces are under 100).
MAX_PIECE_BYTES = 1024


class SentencePieceModel:
    """The validated parts of a SentencePiece ``.model`` file (a ``ModelProto``), read without protobuf."""

    __slots__ = (
        "add_dummy_prefix",
        "bos_id",
        "byte_fallback",
        "charsmap_bytes",
        "data",
        "eos_id",
        "escape_whitespaces",
        "model_type",
        "normalizer",
        "pad_id",
        "pieces",
        "remove_extra_whitespaces",
        "rule_tsv",
        "scores",
        "types",
        "unk_id",
        "whitespace_as_suffix",
    )

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pieces: list[str] = []
        self.types: list[int] = []
        self.scores: list[float] = []
        self.model_type = 1  # the proto's defaults
        self.byte_fallback = False
        self.whitespace_as_suffix = False
        self.unk_id, self.bos_id, self.eos_id, self.pad_id = 0, 1, 2, -1
        self.normalizer = "nmt_nfkc"
        self.charsmap_bytes = 0  # the precompiled normalisation table's size (0: none)
        self.rule_tsv = False  # normalisation rules given as a TSV
        self.add_dummy_prefix = True
        self.remove_extra_whitespaces = True
        self.escape_whitespaces = True

    @property
    def kind(self) -> str:
        return SP_MODEL_TYPES.get(self.model_type, str(self.model_type))


def _varint(data: bytes, pos: int, end: int, source: object, where: str) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise TokenizerLoadError(
                source, f"not a valid SentencePiece model: {where}: a truncated or overlong varint"
            )
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _fields(data: bytes, pos: int, end: int, source: object, where: str) -> Iterator[tuple[int, int, Any]]:
    """The ``(field, wire type, value)`` of a protobuf message in ``data[pos:end]``: varints as ints,
    length-delimited fields as ``(start, stop)``, fixed32 as 4 bytes; anything malformed is a load error.
    Pieces laid out as SentencePiece writes them (field 1, a one- or two-byte size) come as
    ``(1, 2, (start, stop))`` without the general reading (most of a model file)."""
    while pos < end:
        if data[pos] == 0x0A and pos + 2 < end:  # field 1, length-delimited: a piece
            size = data[pos + 1]
            at = pos + 2
            if size & 0x80:
                size = (size & 0x7F) | (data[pos + 2] << 7)
                at += 1
            if size < 1 << 14 and at + size <= end:
                yield 1, 2, (at, at + size)
                pos = at + size
                continue
        key, pos = _varint(data, pos, end, source, where)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos, end, source, where)
        elif wire == 2:
            size, pos = _varint(data, pos, end, source, where)
            if size > end - pos:
                raise TokenizerLoadError(
                    source, f"not a valid SentencePiece model: {where}: field {field} runs past its end"
                )
            value, pos = (pos, pos + size), pos + size
        elif wire == 5:
            if end - pos < 4:
                raise TokenizerLoadError(source, f"not a valid SentencePiece model: {where}: a truncated fixed32")
            value, pos = data[pos : pos + 4], pos + 4
        elif wire == 1:
            if end - pos < 8:
                raise TokenizerLoadError(source, f"not a valid SentencePiece model: {where}: a truncated fixed64")
            value, pos = data[pos : pos + 8], pos + 8
        else:
            raise TokenizerLoadError(
                source, f"not a valid SentencePiece model: {where}: wire type {wire} of field {field}"
            )
        yield field, wire, value


_SCORE = struct.Struct("<f")


def _quick_piece(data: bytes, start: int, stop: int) -> tuple[str, int, float] | None:
    """A piece message laid out as SentencePiece writes it -- ``0A len piece``, ``15`` and a float score,
    then optionally ``18 type`` -- read without the general reader (~10x faster); None for any other
    layout (the general reader then reads it and names what is wrong)."""
    if stop - start < 2 or data[start] != 0x0A:
        return None
    size = data[start + 1]
    at = start + 2 + size
    if size & 0x80 or not 0 < size <= MAX_PIECE_BYTES or at + 5 > stop or data[at] != 0x15:
        return None
    score = _SCORE.unpack_from(data, at + 1)[0]
    at += 5
    kind = SP_NORMAL
    if at != stop:
        if at + 2 != stop or data[at] != 0x18 or not 1 <= data[at + 1] <= 6:
            return None
        kind = data[at + 1]
    try:
        return data[start + 2 : start + 2 + size].decode("utf-8"), kind, score
    except UnicodeDecodeError:
        return None


def _signed(value: int) -> int:
    """An int32 field as protobuf stores a negative one (ten bytes, two's complement)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def parse_sentencepiece(data: bytes, source: object) -> SentencePieceModel:
    """Check a SentencePiece ``.model`` file (a serialised ``ModelProto``) and read what the engine
    needs, before the ``sentencepiece`` library sees it: well-formed protobuf, every piece non-empty,
    UTF-8, at most :data:`MAX_PIECE_BYTES`, listed once and of a known type; one unknown piece; a
    Unigram or BPE model; the 256 byte pieces where it falls back to bytes; special ids that name
    pieces. Errors name the field (``pieces[12].piece``, ``trainer_spec.model_type``)."""
    model = SentencePieceModel(data)
    model_type_seen = None
    end = len(data)
    for field, wire, value in _fields(data, 0, end, source, "ModelProto"):
        if field == 1 and wire == 2:  # pieces
            k = len(model.pieces)
            if k >= MAX_TOKEN_ID:
                raise _sp_field(source, "pieces", f"has more than {MAX_TOKEN_ID:,} entries")
            quick = _quick_piece(data, value[0], value[1])
            if quick is not None:  # the usual layout: piece, score, type (one-byte sizes)
                model.pieces.append(quick[0])
                model.types.append(quick[1])
                model.scores.append(quick[2])
                continue
            piece, kind, score = None, SP_NORMAL, 0.0
            for f, w, v in _fields(data, value[0], value[1], source, f"pieces[{k}]"):
                if f == 1 and w == 2:
                    raw = data[v[0] : v[1]]
                    if not raw or len(raw) > MAX_PIECE_BYTES:
                        raise _sp_field(source, f"pieces[{k}].piece", f"is {len(raw)} bytes (1..{MAX_PIECE_BYTES})")
                    try:
                        piece = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        raise _sp_field(source, f"pieces[{k}].piece", "is not UTF-8") from None
                elif f == 2 and w == 5:
                    score = _SCORE.unpack(v)[0]
                elif f == 3 and w == 0:
                    kind = v
            if piece is None:
                raise _sp_field(source, f"pieces[{k}].piece", "is missing")
            if kind not in (SP_NORMAL, SP_UNKNOWN, SP_CONTROL, SP_USER_DEFINED, SP_UNUSED, SP_BYTE):
                raise _sp_field(source, f"pieces[{k}].type", f"is {kind}, not a SentencePiece piece type (1..6)")
            model.pieces.append(piece)
            model.types.append(kind)
            model.scores.append(score)
        elif field == 2 and wire == 2:  # trainer_spec
            for f, w, v in _fields(data, value[0], value[1], source, "trainer_spec"):
                if w != 0:
                    continue
                if f == 3:
                    model.model_type = model_type_seen = v
                elif f == 24:
                    model.whitespace_as_suffix = bool(v)
                elif f == 35:
                    model.byte_fallback = bool(v)
                elif f == 40:
                    model.unk_id = _signed(v)
                elif f == 41:
                    model.bos_id = _signed(v)
                elif f == 42:
                    model.eos_id = _signed(v)
                elif f == 43:
                    model.pad_id = _signed(v)
        elif field == 3 and wire == 2:  # normalizer_spec
            for f, w, v in _fields(data, value[0], value[1], source, "normalizer_spec"):
                if f == 1 and w == 2:
                    model.normalizer = data[v[0] : v[1]].decode("utf-8", "replace")
                elif f == 2 and w == 2:
                    if v[1] - v[0] > MAX_CHARSMAP_BYTES:
                        raise _sp_field(
                            source, "normalizer_spec.precompiled_charsmap", f"is over {MAX_CHARSMAP_BYTES:,} bytes"
                        )
                    model.charsmap_bytes = v[1] - v[0]
                elif f == 6 and w == 2:
                    model.rule_tsv = v[1] > v[0]
                elif f == 3 and w == 0:
                    model.add_dummy_prefix = bool(v)
                elif f == 4 and w == 0:
                    model.remove_extra_whitespaces = bool(v)
                elif f == 5 and w == 0:
                    model.escape_whitespaces = bool(v)
    _check_sentencepiece(model, source, model_type_seen)
    return model


_FIELDS = (
    "model_type",
    "byte_fallback",
    "whitespace_as_suffix",
    "unk_id",
    "bos_id",
    "eos_id",
    "pad_id",
    "normalizer",
    "charsmap_bytes",
    "rule_tsv",
    "add_dummy_prefix",
    "remove_extra_whitespaces",
    "escape_whitespaces",
)
_PAYLOAD_HEAD = struct.Struct("<II")  # header JSON bytes, pieces


def model_payload(model: SentencePieceModel) -> bytes:
    """A checked model's fields as bytes for the disk cache (:func:`model_from_payload` reads them back)."""
    head = json.dumps([[getattr(model, f) for f in _FIELDS], model.pieces], ensure_ascii=False).encode()
    return (
        _PAYLOAD_HEAD.pack(len(head), len(model.pieces))
        + head
        + bytes(model.types)
        + array("f", model.scores).tobytes()
    )


def model_from_payload(payload: bytes | memoryview, data: bytes) -> SentencePieceModel | None:
    """The model :func:`model_payload` stored, over the file's bytes ``data``; None where the payload
    does not hold one (it is then read from the file again)."""
    size, n = _PAYLOAD_HEAD.unpack_from(payload)
    at = _PAYLOAD_HEAD.size
    fields, pieces = json.loads(bytes(payload[at : at + size]))
    types = bytes(payload[at + size : at + size + n])
    scores = array("f", bytes(payload[at + size + n :]))
    if len(fields) != len(_FIELDS) or len(pieces) != n or len(scores) != n:
        return None
    model = SentencePieceModel(data)
    for name, value in zip(_FIELDS, fields, strict=True):
        setattr(model, name, value)
    model.pieces, model.types, model.scores = pieces, list(types), scores.tolist()
    return model


def _sp_field(source: object, path: str, reason: str) -> TokenizerLoadError:
    return TokenizerLoadError(source, f"not a valid SentencePiece model: {path} {reason}")


def _check_sentencepiece(model: SentencePieceModel, source: object, model_type_seen: int | None) -> None:
    n = len(model.pieces)
    if not n:
        raise _sp_field(source, "pieces", "is empty (is this a SentencePiece .model file?)")
    if model.model_type not in SP_MODEL_TYPES:
        name = _SP_ALL_TYPES.get(model.model_type, str(model.model_type))
        raise _sp_field(source, "trainer_spec.model_type", f"is {name}; Unigram and BPE models are read")
    seen: dict[str, int] = {}
    for k, piece in enumerate(model.pieces):
        if seen.setdefault(piece, k) != k:
            raise _sp_field(source, f"pieces[{k}].piece", f"{piece[:40]!r} repeats pieces[{seen[piece]}]")
    unknown = [k for k, t in enumerate(model.types) if t == SP_UNKNOWN]
    if len(unknown) != 1:
        raise _sp_field(source, "pieces", f"hold {len(unknown)} unknown (type 2) pieces; a model has exactly one")
    for name in ("unk_id", "bos_id", "eos_id", "pad_id"):
        value = getattr(model, name)
        if not -1 <= value < n:
            raise _sp_field(source, f"trainer_spec.{name}", f"is {value}, outside -1..{n - 1}")
    if model.unk_id != unknown[0]:
        raise _sp_field(source, "trainer_spec.unk_id", f"is {model.unk_id}, but the unknown piece is {unknown[0]}")
    if model.byte_fallback:
        missing = [b for b in range(256) if f"<0x{b:02X}>" not in seen or model.types[seen[f"<0x{b:02X}>"]] != SP_BYTE]
        if missing:
            raise _sp_field(
                source, "pieces", f"lack byte pieces for bytes {_bytes_list(missing)} (byte_fallback needs all 256)"
            )
