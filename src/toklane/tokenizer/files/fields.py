"""Field checkers shared by the readers of each file kind: each returns the value or raises a
:class:`~toklane.TokenizerLoadError` naming the field (``config.pattern``, ``vocab[12].rank``)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, TypeVar

from ...errors import TokenizerLoadError, json_kind

#: Largest id a tokenizer.json may use: ids past this (or past
#: ``4 * tokens + 65536``) would make the id space mostly holes.
MAX_TOKEN_ID = 1 << 24

T = TypeVar("T")


def _in(what: str, check: Callable[..., T], *args: Any) -> T:
    """``check(*args)``, its load errors prefixed with ``not a valid <what>:``."""
    try:
        return check(*args)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(exc.spec, f"not a valid {what}: {exc.reason}") from None


def _field(source: object, path: str, reason: str) -> TokenizerLoadError:
    return TokenizerLoadError(source, f"{path} {reason}")


def _is_int(value: Any) -> bool:
    return type(value) is int


def _obj(value: Any, source: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _field(source, path, f"must be a JSON object, got {json_kind(value, article=True)}")
    return value


def _list(value: Any, source: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _field(source, path, f"must be a JSON array, got {json_kind(value, article=True)}")
    return value


def _int(value: Any, source: object, path: str, lo: int, hi: int) -> int:
    if not _is_int(value):
        raise _field(source, path, f"must be an integer, got {json_kind(value, article=True)} {_clip(value)}")
    if not lo <= value <= hi:
        raise _field(source, path, f"is {value}, outside {lo}..{hi}")
    return value


def _str(value: Any, source: object, path: str, *, nonempty: bool = True) -> str:
    if not isinstance(value, str):
        raise _field(source, path, f"must be a string, got {json_kind(value, article=True)}")
    if nonempty and not value:
        raise _field(source, path, "must not be empty")
    return value


def _clip(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _b64(value: Any, source: object, path: str) -> bytes:
    text = _str(value, source, path)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _field(source, path, f"is not valid base64: {_clip(text)}") from None
    if not data:
        raise _field(source, path, "decodes to no bytes")
    return data


def _bytes_list(missing: list[int]) -> str:
    shown = ", ".join(f"0x{b:02X}" for b in missing[:8])
    return shown + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
