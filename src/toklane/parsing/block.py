"""The block interface: what the machine and every body grammar share.

A *block* starts at a marker of the format (``<tool_call>``,
``[TOOL_CALLS]``, ``<｜tool▁calls▁begin｜>`` ...) or at the format's anchor
character; its :class:`Body` reads text and markers until the block ends,
reporting each call to the parser (:meth:`call_open`, :meth:`call_name`,
:meth:`call_args`, :meth:`call_done`). This module holds the body interface,
the block states and the parser's call-sink protocol; the machine and the
grammars in :mod:`toklane.parsing.bodies` both import it, neither imports
the other.

Rules every body follows:

* ``text(s, i)`` consumes from ``s[i:]`` and returns where it stopped; it
  returns right after a call completes (setting ``checkpoint``) so the parser
  knows which raw text belonged to that call.
* ``marker(role, raw)`` returns whether the marker was consumed; a marker it
  does not consume ends (``ENDED``) or breaks (``FAILED``) the block and is
  then read again as if outside it.
* A call is complete when its arguments are: closing markers after them are
  consumed when present and not required.
* On failure the raw text of the broken call (and of the block so far, if no
  call in it completed) becomes content, unchanged.
"""

from __future__ import annotations

import re
from typing import Protocol

WS = " \t\n\r"
#: The first character that is not in WS (a compiled search: ``NON_WS.search(s, start, end)``).
NON_WS = re.compile(r"[^ \t\n\r]")

# Block status (set by bodies).
OPEN, ENDED, FAILED = 0, 1, 2


class Sink(Protocol):
    """What a body reports calls to: the parser (:class:`toklane.parsing.machine.StreamParser`)."""

    def call_open(self) -> None: ...
    def call_name(self, name: str, call_id: str | None = None) -> None: ...
    def call_args(self, fragment: str) -> None: ...
    def call_done(self) -> None: ...
    def call_fail(self) -> None: ...
    def junk(self, text: str) -> None: ...
    def param_types(self, function: str, param: str) -> list[str] | None: ...


def first_non_ws(s: str, i: int) -> int:
    """Index of the first non-whitespace character of ``s`` at or after ``i`` (``len(s)`` if none)."""
    n = len(s)
    while i < n and s[i] in WS:
        i += 1
    return i


class Body:
    """Base of the block bodies."""

    __slots__ = ("checkpoint", "ncalls", "p", "status")

    def __init__(self, parser: Sink) -> None:
        self.p = parser
        self.status = OPEN
        self.checkpoint = False
        self.ncalls = 0  # calls completed in this block

    def text(self, s: str, i: int) -> int:
        raise NotImplementedError

    def marker(self, role: str, raw: str) -> bool:
        raise NotImplementedError

    def finish(self) -> None:
        raise NotImplementedError

    def _fail(self) -> None:
        self.p.call_fail()
        self.status = FAILED

    def _done(self) -> None:
        self.p.call_done()
        self.ncalls += 1
        self.checkpoint = True
