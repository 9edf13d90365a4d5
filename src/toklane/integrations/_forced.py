"""The answer of a forced tool choice, read as the engines constrain it: O(new text) per chunk.

With ``tool_choice="required"`` an engine constrains the answer (what follows the reasoning) to a
JSON array of ``{"name": ..., "parameters": {...}}`` objects; with a named function, to that
function's arguments object. :class:`ForcedCalls` reads either from a stream of text chunks with
one :class:`~toklane.parsing.jsonscan.JsonScanner` (each character read once), and sends each call
whole once its JSON is complete. Feeding the whole answer at once gives the same result as any
chunking of it, so a stream equals the whole response.

What it returns (the same streamed and whole):

* required: one call per complete array element that is an object with a string ``"name"`` and an
  object (or absent / null) ``"parameters"``; arguments are ``json.dumps(parameters)``, as vLLM's
  whole response gives them. Other elements, what is left of a cut-off or broken array and text
  after the array are dropped. An answer that does not start with ``[`` is no call: it is content.
* named: the arguments object, as written, once it is complete and valid JSON; text after it is
  content (whitespace dropped). An answer that is no object, or an object cut off or broken, is
  content: a malformed call is never returned as a call.
"""

from __future__ import annotations

import json
from typing import Any

from ..parsing.jsonscan import AFTER, OBJECT_FIRST, JsonScanner

__all__ = ["ForcedCalls"]

_WS = " \t\n\r"


class ForcedCalls:
    """Reads the answer of one forced tool choice: ``name`` None for ``"required"``, else the named function."""

    __slots__ = ("_buf", "_element", "_held", "_mode", "_name", "_scanner")

    def __init__(self, name: str | None) -> None:
        self._name = name
        self._mode = "start"  # start | json | after | content | dropped
        self._held = ""  # leading / trailing whitespace not yet known to be content
        self._scanner = JsonScanner()
        self._buf: list[str] = []  # named: the object's text so far; required: the element's
        self._element = False  # required: inside an element object

    @property
    def required(self) -> bool:
        return self._name is None

    def feed(self, text: str) -> tuple[str, list[tuple[str, str]]]:
        """Read the next chunk of the answer: (content, [(name, arguments)]) it completes."""
        content: list[str] = []
        calls: list[tuple[str, str]] = []
        i, n = 0, len(text)
        while i < n:
            mode = self._mode
            if mode == "content":
                content.append(self._held + text[i:])
                self._held = ""
                break
            if mode == "dropped":
                break
            if mode in ("start", "after"):
                j = i
                while j < n and text[j] in _WS:
                    j += 1
                self._held += text[i:j]
                i = j
                if i == n:
                    break
                if mode == "after" and self.required:
                    self._mode = "dropped"  # text after the array: vLLM's grammar ends with it
                    self._held = ""
                    break
                if mode == "after" or text[i] != ("[" if self.required else "{"):
                    self._mode = "content"
                    continue
                self._mode = "json"
                self._held = ""
                continue
            i = self._scan(text, i, calls, content)
        return "".join(content), calls

    def _scan(self, text: str, i: int, calls: list[tuple[str, str]], content: list[str]) -> int:
        scanner = self._scanner
        if not self.required:
            end = scanner.scan(text, i)
            if scanner.failed:  # not JSON: all of it is content
                self._mode = "content"
                content.append("".join(self._buf) + text[i:])
                self._buf = []
                return len(text)
            self._buf.append(text[i:end])
            if scanner.done:
                calls.append((self._name or "", "".join(self._buf)))
                self._buf = []
                self._mode = "after"
            return end
        end = scanner.scan(text, i, stop_depth=1)
        if self._element or (scanner.state == OBJECT_FIRST and scanner.depth == 2):
            start = i if self._element else end - 1
            self._element = True
            self._buf.append(text[start:end])
            if scanner.state == AFTER and scanner.depth == 1:
                self._element = False
                call = _call("".join(self._buf))
                self._buf = []
                if call is not None:
                    calls.append(call)
        if scanner.failed:
            self._mode = "dropped"
            self._buf = []
            return len(text)
        if scanner.done:
            self._mode = "after"
        return end

    def finish(self) -> tuple[str, list[tuple[str, str]]]:
        """The end of the answer: what is still held (a named call's cut-off text is content)."""
        content = ""
        if self._mode == "json" and not self.required:
            content = "".join(self._buf)  # an object cut off: content
        self._buf = []
        self._held = ""
        self._mode = "dropped"
        return content, []


def _call(element: str) -> tuple[str, str] | None:
    """One array element as (name, arguments), or None where it is not a call object."""
    try:
        value: Any = json.loads(element)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    params = value.get("parameters")
    if params is not None and not isinstance(params, dict):
        return None
    return value["name"], json.dumps(params, ensure_ascii=False)
