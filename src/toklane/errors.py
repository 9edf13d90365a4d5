"""Exceptions raised by toklane.

Every error names what it was given (the spec, the marker, the tokenizer) so a
caller can act on it without reading a traceback. Bad *model output* never
raises: parsers report it instead (see ``toklane.parsing``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class ToklaneError(Exception):
    """Base class of every error toklane raises on purpose."""


class UnknownTokenizerError(ToklaneError, KeyError):
    """A tokenizer name that is neither bundled nor an alias of a bundled one."""

    def __init__(self, spec: str, known: Iterable[str], suggestions: Iterable[str] = ()):
        self.spec = spec
        self.known = sorted(known)
        self.suggestions = list(suggestions)  # nearest names and aliases, best first
        super().__init__(spec)

    def __str__(self) -> str:  # KeyError would repr() the message otherwise
        hint = f"did you mean {' or '.join(self.suggestions)}? " if self.suggestions else ""
        return (
            f"unknown tokenizer {self.spec!r}; {hint}bundled tokenizers: "
            f"{', '.join(self.known)} (aliases are listed by `toklane models`); "
            "or pass a path to a tokenizer.json / .tiktoken file / HF tokenizer folder"
        )


class TokenizerLoadError(ToklaneError, ValueError):
    """A spec that names something real that cannot be loaded as a tokenizer."""

    def __init__(self, spec: object, reason: str):
        self.spec = spec
        self.reason = reason
        super().__init__(f"cannot load tokenizer from {spec!r}: {reason}")


class MissingTokenError(ToklaneError, KeyError):
    """A marker or token that a component needs is not in the tokenizer's vocabulary."""

    def __init__(self, token: str, tokenizer_name: str, purpose: str | None = None):
        self.token = token
        self.tokenizer_name = tokenizer_name
        self.purpose = purpose
        super().__init__(token)

    def __str__(self) -> str:
        why = f" (needed for {self.purpose})" if self.purpose else ""
        return f"token {self.token!r} is not in the vocabulary of tokenizer {self.tokenizer_name!r}{why}"


class InvalidTokenIdError(ToklaneError, ValueError):
    """A token id that is not an int in the tokenizer's id space."""

    def __init__(self, token_id: object, tokenizer_name: str, vocab_size: int):
        self.token_id = token_id
        self.tokenizer_name = tokenizer_name
        self.vocab_size = vocab_size
        super().__init__(
            f"invalid token id {token_id!r} for tokenizer {tokenizer_name!r} (valid ids: 0..{vocab_size - 1})"
        )


def spelling(name: str) -> str:
    """A name as the lenient lookups compare it: case folded, ``-`` and spaces read as ``_``."""
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def nearest_names(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The ``known`` names closest to ``name`` in spelling (case and ``-``/``_`` aside), best first."""
    if len(name) > 200:
        return []
    by_spelling: dict[str, str] = {}
    for k in known:
        by_spelling.setdefault(spelling(k), k)
    close = difflib.get_close_matches(spelling(name), list(by_spelling), n=n, cutoff=0.7)
    return [by_spelling[c] for c in close]


class UnknownFormatError(ToklaneError, ValueError):
    """A parser format name (reasoning or tools) that toklane does not know; ``suggestions`` are the
    nearest known names (computed from ``known`` unless given)."""

    def __init__(self, kind: str, name: str, known: Iterable[str], suggestions: Iterable[str] | None = None):
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        self.suggestions = list(suggestions) if suggestions is not None else nearest_names(name, self.known)
        if self.suggestions:
            hint = (
                f"did you mean {' or '.join(map(repr, self.suggestions))}? "
                f"(`toklane formats` lists the {len(self.known)} {kind} formats)"
            )
        else:
            hint = f"known {kind} formats: {', '.join(self.known)}"
        super().__init__(f"unknown {kind} format {name!r}; {hint}")


class InvalidArgumentError(ToklaneError, ValueError):
    """A malformed argument; ``field`` is the path of the offending part
    (``messages[2].tool_call_id``, ``tools_schema[0].function.parameters``)."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field} {reason}")


class InvalidToolsSchemaError(InvalidArgumentError):
    """A ``tools_schema`` (an OpenAI ``tools`` list) whose shape is not a usable JSON schema."""


class InvalidMessagesError(InvalidArgumentError, TypeError):
    """A conversation whose messages are not OpenAI-style chat messages.

    Also a ``TypeError``: earlier versions raised ``TypeError`` for some of these.
    """


class ChatTemplateError(ToklaneError, ValueError):
    """A chat template that cannot be read or rendered: a syntax error, ``raise_exception(...)``, a
    failure while rendering, or one of the limits untrusted templates run under. One line naming
    the template (``template``) and, where known, its line (``line``)."""

    def __init__(self, template: str, line: int | None, reason: str):
        self.template = template
        self.line = line
        self.reason = " ".join(reason.split("\n"))
        if len(self.reason) > 500:
            self.reason = self.reason[:497] + "..."
        where = f"{template}, line {line}" if line else template
        super().__init__(f"{where}: {self.reason}")


_JSON_KINDS = {
    dict: ("an", "object"),
    list: ("an", "array"),
    str: ("a", "string"),
    bool: ("a", "boolean"),
    int: ("an", "integer"),
    float: ("a", "number"),
}


def json_kind(value: Any, *, article: bool = False) -> str:
    """The JSON name of ``value``'s type for error messages (``"integer"``, or ``"an integer"``
    with ``article``); ``"null"`` for None; the Python type name for anything not JSON."""
    if value is None:
        return "null"
    kind = _JSON_KINDS.get(type(value))
    if kind is None:
        return type(value).__name__
    return f"{kind[0]} {kind[1]}" if article else kind[1]
