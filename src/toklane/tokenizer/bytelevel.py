"""GPT-2 byte-level alphabet: the printable stand-ins HF uses for raw bytes.

Byte-level BPE vocabularies (GPT-2, Llama-3, Qwen, DeepSeek, the tiktoken
encodings) store every token as bytes; HF ``tokenizer.json`` files spell those
bytes with one printable character per byte (space -> ``Ġ``, newline -> ``Ċ``).
toklane's ``vocab`` uses the same spelling so ``vocab["Ġ</"]``-style lookups
written against transformers keep working.

Conversions go through ``str.translate`` on a latin-1 view of the bytes, which
runs in C: building the strings of a 250K vocabulary takes tens of milliseconds.
"""

from __future__ import annotations


def _byte_to_char() -> list[str]:
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table: list[str] = [""] * 256
    shifted = 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


BYTE_TO_CHAR: tuple[str, ...] = tuple(_byte_to_char())
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_CHAR)}

# latin-1 char (== byte value) -> byte-level char, and back; a latin-1 char outside the alphabet (space,
# controls, U+007F-U+00A0, U+00AD) becomes U+FFFF, which latin-1 cannot encode: not a byte-level token.
_ENCODE_TABLE = {b: c for b, c in enumerate(BYTE_TO_CHAR)}
_DECODE_TABLE = {c: "\uffff" for c in range(256)} | {ord(c): chr(b) for b, c in enumerate(BYTE_TO_CHAR)}


def bytes_to_token_string(data: bytes) -> str:
    """Spell raw token bytes in the byte-level alphabet (``b" hi"`` -> ``"Ġhi"``)."""
    return data.decode("latin-1").translate(_ENCODE_TABLE)


def token_string_to_bytes(token: str) -> bytes | None:
    """Inverse of :func:`bytes_to_token_string`; ``None`` if ``token`` has a
    character outside the byte-level alphabet (so it is not a byte-level token)."""
    mapped = token.translate(_DECODE_TABLE)
    try:
        return mapped.encode("latin-1")
    except UnicodeEncodeError:
        return None
