"""Qwen3-Coder's XML-ish ``<function=NAME><parameter=KEY>VALUE</parameter>`` calls."""

from __future__ import annotations

import json

from ..block import ENDED, FAILED, WS, Body, Sink, first_non_ws
from .values import ArgsObject, convert_value, is_string_type

# States of XmlFunctions.
_X_START, _X_NAME, _X_BODY, _X_PNAME, _X_VALUE, _X_AFTER = range(6)
#: Whitespace held after a candidate ``</parameter>`` inside a value before it is taken as the closer.
CLOSE_HOLD = 256
# Markers that, after a candidate closer inside a value, show it closed the value (by the closer's role).
_CONTINUE = {
    "param_end": frozenset(("param_start", "fn_end", "call_end", "fn_start", "call_start")),
    "fn_end": frozenset(("call_end", "fn_start", "call_start")),
}


class XmlFunctions(Body):
    """Qwen3-Coder / Qwen3.5 / Qwen3.6 calls::

        <tool_call>
        <function=NAME>
        <parameter=KEY>
        VALUE
        </parameter>
        </function>
        </tool_call>

    A value loses one leading and one trailing newline and is converted by
    the parameter's JSON-schema type in ``tools_schema`` (strings stream
    character by character; other types convert when the value ends).
    ``</parameter>`` may be left out before the next ``<parameter=``,
    ``</function>`` or ``</tool_call>``; ``</function>`` before
    ``</tool_call>``. A block opened by ``<function=`` without
    ``<tool_call>`` holds one function. ``trim=False`` keeps values exactly as
    written, newlines included (MiMo).

    A ``</parameter>`` written inside a value (code that contains the tag)
    ends it only when what follows it, after whitespace, continues the call:
    a marker of the grammar other than another ``</parameter>``, or the end of
    the output. Text after it (or another ``</parameter>``) makes it part of
    the value. Likewise, in a ``<tool_call>`` block, a ``</function>`` inside
    a value ends the value and the function only when ``</tool_call>``,
    ``<function=``, ``<tool_call>`` or the end of the output follows. The
    candidate closer and the whitespace after it are held until the next
    character decides -- at most :data:`CLOSE_HOLD` characters of
    whitespace; a run that long ends the value.
    """

    __slots__ = (
        "args",
        "buf",
        "fname",
        "keep",
        "pname",
        "ptypes",
        "state",
        "trim",
        "vbuf",
        "vclose",
        "vcrole",
        "vfirst",
        "vheld",
        "vstream",
        "wrapped",
    )

    def __init__(self, parser: Sink, role: str | None, *, trim: bool = True):
        super().__init__(parser)
        self.trim = trim
        self.wrapped = role != "fn_start"
        self.state = _X_START
        self.buf: list[str] = []
        self.fname = ""
        self.pname = ""
        self.args = ArgsObject(parser)
        self.keep = True
        self.ptypes: list[str] | None = None
        self.vbuf: list[str] = []
        self.vfirst = True  # the value's first character is still to come (a leading newline is dropped)
        self.vstream = 0  # 0: undecided, 1: streaming as a string, 2: buffered for conversion
        self.vheld = ""
        self.vclose: list[str] | None = None  # a candidate closer inside a value and the whitespace after it
        self.vcrole = ""  # the candidate's role: param_end or fn_end
        if not self.wrapped:
            self._start_function()

    def _start_function(self) -> None:
        self.p.call_open()
        self.buf = []
        self.args = ArgsObject(self.p)
        self.state = _X_NAME

    def text(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            state = self.state
            if state == _X_VALUE:
                held = self.vclose
                if held is not None:  # a candidate closer: whitespace waits, anything else is value text
                    j = first_non_ws(s, i)
                    if sum(map(len, held)) - len(held[0]) + j - i >= CLOSE_HOLD:
                        self._closed()
                        if self.state == _X_AFTER:  # the whitespace after a function is content
                            self.p.junk("".join(held[1:]) + s[i:])
                            return n
                        continue  # whitespace inside a function is ignored
                    if j == n:
                        held.append(s[i:])
                        return n
                    self.vclose = None
                    self._value_text("".join(held))
                self._value_text(s[i:] if i else s)
                return n
            if state in (_X_NAME, _X_PNAME):
                k = s.find(">", i)
                if k < 0:
                    self.buf.append(s[i:])
                    return n
                self.buf.append(s[i:k])
                name = "".join(self.buf).strip(WS)
                self.buf = []
                if not name or "\n" in name:
                    self._fail()
                    return k
                i = k + 1
                if state == _X_NAME:
                    self.fname = name
                    self.p.call_name(name)
                    self.state = _X_BODY
                else:
                    self._start_value(name)
                continue
            # Text between functions is content; inside a function, outside parameters, it is ignored;
            # before the first function, anything but whitespace breaks the block.
            if state == _X_AFTER:
                self.p.junk(s[i:])
                self.checkpoint = True
                return n
            j = first_non_ws(s, i)
            if j < n and state == _X_START:
                self._fail()
                return j
            return n
        return i

    # -- parameters
    def _start_value(self, name: str) -> None:
        self.pname = name
        self.ptypes = self.p.param_types(self.fname, name)
        self.keep = self.args.key(name)  # a repeated parameter: the first value wins, this one is dropped
        self.vbuf = []
        self.vfirst = True
        self.vheld = ""
        types = self.ptypes
        self.vstream = 0 if is_string_type(types) else 2
        self.state = _X_VALUE

    def _value_text(self, t: str) -> None:
        if self.vfirst:
            if not t:
                return
            self.vfirst = False  # one leading newline is dropped, once (a value may start with more)
            if t[0] == "\n" and self.trim:
                t = t[1:]
                if not t:
                    return
        if self.vstream == 2:
            self.vbuf.append(t)
            return
        if self.vstream == 0:  # a string, unless it is exactly "null" (or "None")
            self.vbuf.append(t)
            so_far = "".join(self.vbuf)
            if len(so_far) <= 5 and ("null\n".startswith(so_far.lower()) or "None\n".startswith(so_far)):
                return
            self.vbuf = []
            self.vstream = 1
            self._emit('"')
            t = so_far
        t = self.vheld + t
        self.vheld = "\n" if t.endswith("\n") and self.trim else ""
        if self.vheld:
            t = t[:-1]
        if t:
            self._emit(json.dumps(t, ensure_ascii=False)[1:-1])

    def _emit(self, fragment: str) -> None:
        if self.keep:
            self.p.call_args(fragment)

    def _end_value(self) -> None:
        if self.vstream == 1:
            self._emit('"')
        else:
            value = "".join(self.vbuf)
            if value.endswith("\n") and self.trim:
                value = value[:-1]
            self._emit(convert_value(value, self.ptypes))
        self.vbuf = []
        self.state = _X_BODY

    def _end_function(self) -> None:
        self.args.close()
        self._done()
        self.state = _X_AFTER

    def marker(self, role: str, raw: str) -> bool:
        state = self.state
        if state == _X_VALUE:
            held = self.vclose
            if held is not None:
                if role in _CONTINUE[self.vcrole]:  # what follows continues the call: the held closer closed
                    self._closed()
                    state = self.state
                else:  # another closer (or a foreign marker): the held one is value text
                    self.vclose = None
                    self._value_text("".join(held))
        if state == _X_VALUE:
            if role == "param_end" or (role == "fn_end" and self.wrapped):
                self.vclose = [raw]  # a candidate closer, decided by what follows
                self.vcrole = role
                return True
            if role in ("param_start", "fn_end", "call_end"):  # a missing </parameter>
                self._end_value()
                state = _X_BODY
            else:  # any other marker inside a value is text of the value
                self._value_text(raw)
                return True
        if state == _X_BODY:
            if role == "param_start":
                self.buf = []
                self.state = _X_PNAME
                return True
            if role == "fn_end":
                self._end_function()
                if not self.wrapped:
                    self.status = ENDED
                return True
            if role == "call_end" and self.wrapped:
                self._end_function()
                self.status = ENDED
                return True
            if role == "param_end":
                return True  # a stray closing tag
            self._fail()
            return False
        if state in (_X_START, _X_AFTER):
            if role == "fn_start" and self.wrapped:
                self._start_function()
                return True
            if role == "call_end" and self.wrapped:
                self.status = ENDED if state == _X_AFTER else FAILED
                return state == _X_AFTER
            if state == _X_START:
                self._fail()
            else:
                self.status = ENDED
            return False
        self._fail()  # a marker inside a function or parameter name
        return False

    def _closed(self) -> None:
        """The held candidate closer was the closer: the value (and for ``</function>`` the function) ends."""
        self.vclose = None
        self._end_value()
        if self.vcrole == "fn_end":
            self._end_function()

    def finish(self) -> None:
        if self.vclose is not None:  # the end of the output continues the call: the held closer closed
            self._closed()
        if self.state == _X_BODY and self.args.keys:
            # Cut off after a complete parameter with only the closers missing: the call stands, as
            # vLLM and SGLang read it (cut inside a value, or before any parameter, it does not).
            self._end_function()
        if self.state == _X_AFTER:
            self.status = ENDED
        else:
            self._fail()
