"""Pythonic calls: ``[f(a=1), g(b=\"x\")]`` with Python literals as values (or bare, one per line)."""

from __future__ import annotations

import json
import re

from ..block import ENDED, Body, Sink
from ..block import first_non_ws as _first_non_ws
from ..pyliteral import PyValue
from .json_calls import JsonCallObject

# States of PythonicList.
(
    _P_START,
    _P_LIST_FIRST,
    _P_CALL_NAME,
    _P_ARGS_FIRST,
    _P_KW_NAME,
    _P_EQUALS,
    _P_VALUE,
    _P_AFTER_KW,
    _P_ARGS_NEXT,
    _P_AFTER_CALL,
    _P_LIST_NEXT,
    _P_WAIT_END,
    _P_BEFORE_PAREN,
    _P_JSON,
    _P_AFTER_END,
    _P_ECHO,
    _P_SKIP,
) = range(17)

# States of _CallSkipper.
_S_CODE, _S_OPENQ, _S_STR, _S_ESC, _S_CLOSEQ = range(5)
_S_RUN = {"'": re.compile(r"[^'\\]+"), '"': re.compile(r'[^"\\]+')}
_OPENER = {")": "(", "]": "[", "}": "{"}


def _is_ident_start(c: str) -> bool:
    return c.isalpha() or c == "_"


class _CallSkipper:
    """Finds where a broken call ends: its first bracket's match, read from the call's start.

    Brackets are matched by kind outside Python string literals (single, double
    and triple quoted, backslash escapes); the call ends where the bracket it
    opened with closes. A closer of the wrong kind (the call was never closed:
    ``[f(a=x, g(b=1)]``) makes :attr:`bad`.
    """

    __slots__ = ("mode", "q", "run", "stack", "state", "triple")

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.mode = _S_CODE
        self.q = ""
        self.run = 0
        self.triple = False
        self.state = 0  # 0: reading, 1: done, 2: bad

    @property
    def in_string(self) -> bool:
        return self.mode != _S_CODE

    def feed(self, s: str, i: int = 0) -> int:
        """Read ``s[i:]``; return just past the call's end (``state`` 1), at a wrong closer (2), or ``len(s)``."""
        n = len(s)
        stack = self.stack
        while i < n:
            c = s[i]
            mode = self.mode
            if mode == _S_CODE:
                if c in "([{":
                    stack.append(c)
                elif c in ")]}":
                    if not stack or stack[-1] != _OPENER[c]:
                        self.state = 2
                        return i
                    stack.pop()
                    if not stack:
                        self.state = 1
                        return i + 1
                elif c == "'" or c == '"':
                    self.q = c
                    self.run = 1
                    self.mode = _S_OPENQ
                i += 1
            elif mode == _S_STR:
                m = _S_RUN[self.q].match(s, i)
                if m is not None:
                    i = m.end()
                elif c == "\\":
                    self.mode = _S_ESC
                    i += 1
                else:  # the quote
                    i += 1
                    if self.triple:
                        self.run = 1
                        self.mode = _S_CLOSEQ
                    else:
                        self.mode = _S_CODE
            elif mode == _S_ESC:
                self.mode = _S_STR
                i += 1
            elif c == self.q:  # a run of quotes: opening ('', ''') or closing a triple-quoted string
                self.run += 1
                i += 1
                if self.run == 3:
                    self.triple = mode == _S_OPENQ
                    self.mode = _S_STR if mode == _S_OPENQ else _S_CODE
            elif mode == _S_OPENQ:
                self.triple = False
                self.mode = _S_CODE if self.run == 2 else _S_STR  # '' is an empty string
            else:
                self.mode = _S_STR
        return n


class PythonicList(Body):
    """A Python list of calls with keyword arguments: ``[f(a=1), g(b="x")]``.

    Values are Python literals, converted to JSON as they stream. Positional
    arguments, other expressions and names that are not identifiers break the
    call. A marker met inside a quoted string value is text of the value.

    ``end_role`` (Llama-4's ``<|python_end|>``, LFM2's ``<|tool_call_end|>``)
    is consumed after the calls when the block was opened by a start marker;
    the list's ``]`` may be missing before it. ``bare``: the brackets are
    optional -- calls may follow one another, separated by line breaks,
    spaces or commas (OLMo 3's ``f(a=1)\\ng(b=2)``), up to the end marker,
    another marker or the end of the output. ``json_calls``: an element may
    also be a JSON object ``{"name": ..., "arguments": {...}}``.
    ``lenient``: values may use JSON's ``true``/``false``/``null``, integers
    with leading zeros and raw line breaks inside strings. ``drop_echo``: text
    that starts with ``[`` right after the end marker and runs up to a second
    end marker is an echo of the calls (LFM2) and is dropped; otherwise it is
    content.

    A call that breaks inside its parentheses -- an argument that is no
    literal (``x``, ``np.array([1])``, ``1 + 2``, ``b"..."``), a positional
    argument -- is skipped up to its closing parenthesis (brackets matched
    outside string literals) and the list goes on: its siblings are kept and
    its raw text becomes content, verbatim. Skipping is done in blocks opened
    by a marker, and in anchored blocks only when the name is followed right
    away by ``(`` (``[see (above)]`` is prose). The skipped text is sent when
    the block proves to hold calls (a later call completes, or the block ends
    after one); a block that breaks or holds none is content as a whole.
    """

    __slots__ = (
        "bare",
        "buf",
        "drop_echo",
        "end_role",
        "json_calls",
        "keep",
        "kw_count",
        "lenient",
        "listed",
        "obj",
        "rec",
        "rec_call",
        "rec_from",
        "skipper",
        "state",
        "tight",
        "value",
        "wrapped",
    )

    def __init__(
        self,
        parser: Sink,
        role: str | None,
        *,
        end_role: str | None = None,
        bare: bool = False,
        json_calls: bool = False,
        lenient: bool = False,
        drop_echo: bool = False,
    ):
        super().__init__(parser)
        self.wrapped = role is not None
        self.end_role = end_role
        self.bare = bare
        self.json_calls = json_calls
        self.lenient = lenient
        self.drop_echo = drop_echo
        self.listed = False  # inside [ ... ]
        self.state = _P_START
        self.buf: list[str] = []
        self.kw_count = 0
        self.value: PyValue | None = None
        self.obj: JsonCallObject | None = None
        # Raw text since the start of the current call or of the first skipped call not yet sent: pieces of it in
        # ``rec`` (None: not recording), the current chunk's part from ``rec_from`` on; ``rec_call``: the piece
        # where the current call starts; ``keep``: the pieces that end with the last skipped call.
        self.rec: list[str] | None = None
        self.rec_from = 0
        self.rec_call = 0
        self.keep = 0
        self.tight = False  # the call's "(" came right after its name
        self.skipper: _CallSkipper | None = None

    def text(self, s: str, i: int) -> int:
        if self.rec is not None:
            self.rec_from = i
        j = self._read(s, i)
        rec = self.rec
        if rec is not None and j > self.rec_from:
            rec.append(s[self.rec_from : j])
        return j

    def _sync(self, s: str, i: int) -> None:
        """Record the current chunk's text up to ``i``."""
        rec = self.rec
        if rec is not None:
            if i > self.rec_from:
                rec.append(s[self.rec_from : i])
            self.rec_from = i

    def _break(self, s: str, i: int, json_call: bool = False) -> bool:
        """The current call broke at ``s[i]``: skip it if it may be skipped (True), else fail the block."""
        if not (self.wrapped or (self.tight and not json_call)) or self.rec is None:
            self._fail()
            return False
        self.p.call_fail()
        self.value = None
        self.obj = None
        self._sync(s, i)
        skipper = _CallSkipper()
        so_far = "".join(self.rec[self.rec_call :])
        end = skipper.feed(so_far)
        if skipper.state == 2 or end < len(so_far):
            self._fail()
            return False
        if skipper.state == 1:  # the call's brackets closed already (a JSON object that is no call)
            self.keep = len(self.rec)
            self.state = _P_AFTER_CALL
            return True
        self.skipper = skipper
        self.state = _P_SKIP
        return True

    def _send_skipped(self) -> None:
        """The block holds calls: the skipped calls' text is content."""
        if self.keep:
            assert self.rec is not None
            self.p.junk("".join(self.rec[: self.keep]))
            self.keep = 0

    def _read(self, s: str, i: int) -> int:
        n = len(s)
        p = self.p
        while i < n:
            state = self.state
            if state == _P_VALUE:
                value = self.value
                assert value is not None
                j = value.feed(s, i)
                if value.out:
                    p.call_args("".join(value.out))
                    value.out.clear()
                if value.failed:
                    if not self._break(s, j):
                        return j
                    i = j
                    continue
                i = j
                if value.done:
                    self.value = None
                    self.state = _P_AFTER_KW
                continue
            if state == _P_AFTER_END:  # an echo starts right after the end marker, or the block is over
                if s[i] != "[":
                    self.status = ENDED
                    return i
                self.state = _P_ECHO
            if self.state == _P_ECHO:  # held until the marker that decides it
                return n
            if state == _P_SKIP:
                skipper = self.skipper
                assert skipper is not None
                j = skipper.feed(s, i)
                if skipper.state == 2:
                    self._fail()
                    return j
                if skipper.state == 1:
                    self.skipper = None
                    self._sync(s, j)
                    assert self.rec is not None
                    self.keep = len(self.rec)
                    self.state = _P_AFTER_CALL
                i = j
                continue
            if state == _P_JSON:
                obj = self.obj
                assert obj is not None
                j = obj.text(s, i)
                if obj.failed:
                    if self._break(s, j, json_call=True):
                        i = j
                        continue
                elif obj.done:
                    self.obj = None
                    self._done()
                    self.state = _P_AFTER_CALL
                return j
            if state in (_P_CALL_NAME, _P_KW_NAME):
                j = i
                while j < n and (s[j].isalnum() or s[j] == "_" or (s[j] == "." and state == _P_CALL_NAME)):
                    j += 1
                self.buf.append(s[i:j])
                if j == n:
                    return n
                name = "".join(self.buf)
                self.buf = []
                if state == _P_CALL_NAME:
                    if s[j] == "(":
                        p.call_name(name)
                        self.tight = True
                        self.state = _P_ARGS_FIRST
                        j += 1
                    else:  # the name is announced at its "(" (prose such as "[A: ..." is no call)
                        self.buf = [name]
                        self.state = _P_BEFORE_PAREN
                else:
                    p.call_args(("{" if self.kw_count == 0 else ", ") + json.dumps(name) + ": ")
                    self.kw_count += 1
                    self.state = _P_EQUALS
                i = j
                continue
            i = _first_non_ws(s, i)
            if i == n:
                return n
            c = s[i]
            if state == _P_START:
                if c == "[":
                    self.listed = True
                    self.state = _P_LIST_FIRST
                    i += 1
                elif not (self.bare and self._call_start(s, i)):
                    self._fail()
                    return i
            elif state in (_P_LIST_FIRST, _P_LIST_NEXT):
                if c == "]" and self.listed:
                    i += 1
                    if self._close_list():
                        return i
                elif not self._call_start(s, i):
                    self._fail()
                    return i
            elif state == _P_BEFORE_PAREN:
                if c != "(":
                    self._fail()
                    return i
                p.call_name("".join(self.buf))
                self.buf = []
                self.state = _P_ARGS_FIRST
                i += 1
            elif state in (_P_ARGS_FIRST, _P_ARGS_NEXT):
                if c == ")":
                    i += 1
                    self._end_call()
                    return i
                if not _is_ident_start(c):
                    if not self._break(s, i):
                        return i
                    continue
                self.state = _P_KW_NAME
            elif state == _P_EQUALS:
                if c != "=":
                    if not self._break(s, i):
                        return i
                    continue
                self.value = PyValue(self.lenient)
                self.state = _P_VALUE
                i += 1
            elif state == _P_AFTER_KW:
                if c == ",":
                    self.state = _P_ARGS_NEXT
                    i += 1
                elif c == ")":
                    i += 1
                    self._end_call()
                    return i
                elif not self._break(s, i):
                    return i
            elif state == _P_AFTER_CALL:
                if c == ",":
                    self.state = _P_LIST_NEXT
                    i += 1
                elif c == "]" and self.listed:
                    i += 1
                    if self._close_list():
                        return i
                elif self.listed or not self._call_start(s, i):  # bare calls follow one another
                    self._fail()
                    return i
            else:  # _P_WAIT_END: anything but the end marker ends the block here
                self.status = ENDED
                return i
        return i

    def _call_start(self, s: str, i: int) -> bool:
        """Open a call at ``s[i]`` if one can start there."""
        c = s[i]
        if _is_ident_start(c):
            self.p.call_open()
            self.kw_count = 0
            self.tight = False
            self.state = _P_CALL_NAME
        elif c == "{" and self.json_calls:
            self.obj = JsonCallObject(self.p)
            self.state = _P_JSON
        else:
            return False
        if self.rec is None:
            self.rec = []
            self.rec_from = i
        else:  # after a skipped call: the text between is kept with it
            self._sync(s, i)
        self.rec_call = len(self.rec)
        return True

    def _done(self) -> None:
        self._send_skipped()
        self.rec = None
        super()._done()

    def _close_list(self) -> bool:
        """The list's ``]`` was read; True if the block ends here."""
        self.listed = False
        if self.ncalls:
            self._send_skipped()
        if self.wrapped and self.end_role:
            self.state = _P_WAIT_END
            return False
        self.status = ENDED
        return True

    def _end_call(self) -> None:
        self.p.call_args("}" if self.kw_count else "{}")
        self._done()
        self.state = _P_AFTER_CALL

    def marker(self, role: str, raw: str) -> bool:
        state = self.state
        value = self.value
        if state == _P_VALUE and value is not None and value.in_string:
            j = value.feed(raw)
            if value.out:
                self.p.call_args("".join(value.out))
                value.out.clear()
            if value.failed or value.done or j < len(raw):
                self._fail()
            elif self.rec is not None:
                self.rec.append(raw)
            return True
        if state == _P_SKIP:
            assert self.skipper is not None and self.rec is not None
            if self.skipper.in_string:  # text of a string in the skipped call
                self.rec.append(raw)
                return True
            self._fail()  # the call is cut short: as one that breaks at a marker
            return False
        if state == _P_WAIT_END or (state == _P_AFTER_CALL and self.ncalls):
            # After the calls (the list's ``]`` may be missing): the end marker closes the block, another ends it.
            if self.ncalls:
                self._send_skipped()
            if role == self.end_role and self.wrapped:
                if self.drop_echo and self.ncalls:
                    self.state = _P_AFTER_END
                    self.checkpoint = True  # what was read so far closed the calls
                else:
                    self.status = ENDED
                return True
            self.status = ENDED
            return False
        if state == _P_AFTER_END:
            self.status = ENDED
            return False
        if state == _P_ECHO and role == self.end_role:
            self.status = ENDED  # the echo, up to here, is dropped
            return True
        self._fail()  # an echo not closed by the end marker is content
        return False

    def finish(self) -> None:
        if self.state in (_P_WAIT_END, _P_AFTER_END):
            self.status = ENDED
        elif self.state == _P_AFTER_CALL and self.ncalls:
            self._send_skipped()
            self.status = ENDED  # the list's closing bracket is missing; every call in it is complete
        else:
            self._fail()
