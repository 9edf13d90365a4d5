"""Gemma's ``call:NAME{key:<escape>text<escape>}`` grammar: FunctionGemma and Gemma 4 (``<|"|>`` strings)."""

from __future__ import annotations

import json

from ..block import ENDED, WS, Body, Sink
from ..block import first_non_ws as _first_non_ws
from ..jsonscan import is_json

#: The closing bracket of each container (``(`` only outermost: Gemma 4's ``call:NAME(...)``).
_CLOSE = {"{": "}", "[": "]", "(": ")"}
# States of the value reader.
(
    _GV_VALUE,
    _GV_VALUE_OR_CLOSE,
    _GV_KEY,
    _GV_KEY_OR_CLOSE,
    _GV_KEY_COLON,
    _GV_AFTER,
    _GV_BARE,
    _GV_STRING,
    _GV_DONE,
    _GV_ERROR,
) = range(10)


class GemmaValue:
    """FunctionGemma's argument syntax to JSON: ``{key:value,...}`` with ``<escape>``-delimited strings.

    Keys are bare (or escaped); values are ``<escape>text<escape>`` strings,
    ``{...}``, ``[...]``, or bare scalars (JSON numbers, ``true``, ``false``,
    ``null``; other bare text becomes a string). The outermost object may be
    written ``(...)`` instead of ``{...}`` (Gemma 4's ``call:NAME(key:value)``);
    it is sent as an object.
    """

    __slots__ = ("buf", "commas", "key_string", "out", "parens", "stack", "state")

    def __init__(self) -> None:
        self.state = _GV_VALUE
        self.stack: list[str] = []
        self.commas: list[bool] = []
        self.out: list[str] = []
        self.buf: list[str] = []
        self.key_string = False
        #: Open ``(`` inside the bare value being read (``call:NAME(x:f(1))``).
        self.parens = 0

    @property
    def done(self) -> bool:
        return self.state == _GV_DONE

    @property
    def failed(self) -> bool:
        return self.state == _GV_ERROR

    def _element(self, key: bool = False) -> None:
        """A key, or an array item, begins: a comma first unless it is the container's first.
        (A value after a key is no new element.)"""
        if self.stack and (key or self.stack[-1] == "["):
            if self.commas[-1]:
                self.out.append(", ")
            self.commas[-1] = True

    def _close_bare(self) -> bool:
        token = "".join(self.buf).strip(WS)
        self.buf = []
        self.parens = 0
        if not token:
            return False
        if token[0] not in '"[{' and is_json(token):
            self.out.append(token)
        else:
            self.out.append(json.dumps(token, ensure_ascii=False))
        self.state = _GV_AFTER
        return True

    def text(self, s: str, i: int) -> int:
        n = len(s)
        out = self.out
        while i < n:
            state = self.state
            if state == _GV_STRING:
                out.append(json.dumps(s[i:], ensure_ascii=False)[1:-1])
                return n
            if state in (_GV_BARE, _GV_KEY):
                in_parens = state == _GV_BARE and self.stack[-1:] == ["("]
                stops = ":" if state == _GV_KEY else ",}])(" if in_parens else ",}]"
                j = i
                while j < n:
                    c = s[j]
                    if c not in stops:
                        j += 1
                    elif c == "(":  # a parenthesis inside a bare value: its ``)`` is the value's too
                        self.parens += 1
                        j += 1
                    elif c == ")" and self.parens:
                        self.parens -= 1
                        j += 1
                    else:
                        break
                self.buf.append(s[i:j])
                if j == n:
                    return n
                if state == _GV_KEY:
                    key = "".join(self.buf).strip(WS)
                    self.buf = []
                    if not key:
                        self.state = _GV_ERROR
                        return j
                    out.append(json.dumps(key, ensure_ascii=False) + ": ")
                    self.state = _GV_VALUE
                    i = j + 1
                elif not self._close_bare():
                    self.state = _GV_ERROR
                    return j
                else:
                    i = j
                continue
            c = s[i]
            if c in WS:
                i += 1
                continue
            if state in (_GV_VALUE, _GV_VALUE_OR_CLOSE):
                if state == _GV_VALUE_OR_CLOSE and c == "]":
                    self.state = _GV_AFTER
                    continue
                if c in ",}]:":
                    self.state = _GV_ERROR
                    return i
                self._element()
                if c in "{[" or (c == "(" and not self.stack):
                    self.stack.append(c)
                    self.commas.append(False)
                    out.append("{" if c == "(" else c)
                    self.state = _GV_VALUE_OR_CLOSE if c == "[" else _GV_KEY_OR_CLOSE
                    i += 1
                else:
                    self.state = _GV_BARE
            elif state == _GV_KEY_OR_CLOSE:
                if c == _CLOSE[self.stack[-1]]:
                    self.state = _GV_AFTER
                    continue
                self._element(key=True)
                self.state = _GV_KEY
            elif state == _GV_KEY_COLON:
                if c != ":":
                    self.state = _GV_ERROR
                    return i
                out.append(": ")
                self.state = _GV_VALUE
                i += 1
            elif state == _GV_AFTER:
                if not self.stack:
                    self.state = _GV_ERROR
                    return i
                top = self.stack[-1]
                if c == ",":
                    self.state = _GV_VALUE if top == "[" else _GV_KEY_OR_CLOSE
                    i += 1
                elif c == _CLOSE[top]:
                    self.stack.pop()
                    self.commas.pop()
                    out.append("}" if c == ")" else c)
                    i += 1
                    if not self.stack:
                        self.state = _GV_DONE
                        return i
                else:
                    self.state = _GV_ERROR
                    return i
            else:  # _GV_DONE / _GV_ERROR
                return i
        return i

    def escape(self) -> bool:
        """An ``<escape>`` marker: opens or closes a string value or an escaped key."""
        state = self.state
        if state == _GV_STRING:
            self.out.append('"')
            self.state = _GV_KEY_COLON if self.key_string else _GV_AFTER
            return True
        if state in (_GV_VALUE, _GV_VALUE_OR_CLOSE):
            self._element()
            self.key_string = False
        elif state == _GV_KEY_OR_CLOSE or (state == _GV_KEY and not "".join(self.buf).strip(WS)):
            if state == _GV_KEY_OR_CLOSE:
                self._element(key=True)
            self.buf = []
            self.key_string = True
        else:
            self.state = _GV_ERROR
            return False
        self.out.append('"')
        self.state = _GV_STRING
        return True


_G_CALL = "call:"
_G_PREFIX, _G_NAME, _G_ARGS, _G_AFTER = range(4)


class GemmaCall(Body):
    """One ``call:NAME{...}`` per block: FunctionGemma's
    ``<start_function_call>call:NAME{key:<escape>text<escape>,n:1}<end_function_call>``, Gemma 4's
    ``<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>``.

    ``end_role``: the marker that closes the block (optional after the
    arguments). ``escape_role``: the marker that delimits strings.
    ``bare_prefix``: ``:NAME{`` without ``call`` is accepted too. ``parens``:
    the arguments may be written ``call:NAME(key:value,...)`` (as vLLM's
    Gemma 4 parser reads them).
    """

    __slots__ = ("bare_prefix", "buf", "end_role", "escape_role", "parens", "state", "value")

    def __init__(
        self,
        parser: Sink,
        role: str | None,
        *,
        end_role: str = "call_end",
        escape_role: str = "escape",
        bare_prefix: bool = False,
        parens: bool = False,
    ):
        super().__init__(parser)
        self.parens = parens
        self.end_role = end_role
        self.escape_role = escape_role
        self.bare_prefix = bare_prefix
        self.state = _G_PREFIX
        self.buf: list[str] = []
        self.value = GemmaValue()
        parser.call_open()

    def _drain(self) -> None:
        out = self.value.out
        if out:
            self.p.call_args("".join(out))
            out.clear()

    def text(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            state = self.state
            if state == _G_PREFIX:
                if not self.buf:
                    i = _first_non_ws(s, i)
                    if i == n:
                        return n
                    if self.bare_prefix and s[i] == ":":
                        self.state = _G_NAME
                        i += 1
                        continue
                need = _G_CALL[sum(map(len, self.buf)) :]
                take = s[i : i + len(need)]
                if not need.startswith(take):
                    self._fail()
                    return i
                self.buf.append(take)
                i += len(take)
                if len(take) == len(need):
                    self.buf = []
                    self.state = _G_NAME
                continue
            if state == _G_NAME:
                k = s.find("{", i)
                if self.parens:
                    k2 = s.find("(", i, k if k >= 0 else n)
                    k = k2 if k2 >= 0 else k
                if k < 0:
                    self.buf.append(s[i:])
                    return n
                self.buf.append(s[i:k])
                name = "".join(self.buf).strip(WS)
                self.buf = []
                if not name or any(c in WS for c in name):
                    self._fail()
                    return k
                self.p.call_name(name)
                self.state = _G_ARGS
                i = k
                continue
            if state == _G_ARGS:
                value = self.value
                j = value.text(s, i)
                self._drain()
                if value.failed:
                    self._fail()
                    return j
                if value.done:
                    self._done()
                    self.state = _G_AFTER
                return j
            # _G_AFTER: whitespace, then the end marker; anything else ends the block here
            i = _first_non_ws(s, i)
            if i == n:
                return n
            self.status = ENDED
            return i
        return i

    def marker(self, role: str, raw: str) -> bool:
        if self.state == _G_ARGS and role == self.escape_role:
            ok = self.value.escape()
            self._drain()
            if not ok:
                self._fail()
            return ok
        if self.state == _G_AFTER:
            self.status = ENDED
            return role == self.end_role
        self._fail()
        return False

    def finish(self) -> None:
        if self.state == _G_AFTER:
            self.status = ENDED
        else:
            self._fail()
