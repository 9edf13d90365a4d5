"""The parameters of one call named elsewhere (Beam: in its message header), as XML-ish tags."""

from __future__ import annotations

import json

from ..block import ENDED, WS, Body, Sink, first_non_ws
from .json_calls import JsonArgs
from .values import ArgsObject, convert_value, is_string_type

# States of NamedParams (_JSON, _JSON_AFTER: the arguments written as one JSON object instead).
_BETWEEN, _ATTR, _VALUE, _JSON, _JSON_AFTER = range(5)
# How a value is written: undecided (a string unless it reads null), streamed as a string, buffered.
_UND, _STR, _BUF = range(3)


def _name_attribute(text: str) -> str | None:
    """The ``name`` attribute of a tag's attribute text (``name="KEY"``, single quotes or none also read)."""
    k = text.find("name")
    while k > 0 and text[k - 1] not in WS:
        k = text.find("name", k + 1)
    if k < 0:
        return None
    rest = text[k + 4 :].lstrip(WS)
    if not rest.startswith("="):
        return None
    rest = rest[1:].lstrip(WS)
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        return rest[1:end] if end > 0 else None
    return rest.split()[0] if rest else None


class NamedParams(Body):
    """One call: ``name`` is given; its arguments are parameter tags::

        <rfl:parameter name="KEY">
        VALUE
        </rfl:parameter>

    Marker roles: ``param_start`` (``<rfl:parameter``, its attributes read up
    to ``>``), ``param_end``, and ``end`` (the message's end, given by the
    message machine). A value loses one leading and one trailing newline and
    is typed by ``tools_schema`` (:func:`~toklane.parsing.bodies.values.convert_value`;
    strings stream). A missing ``</rfl:parameter>`` is recovered at the next
    parameter or the message's end; text between parameters is ignored; a
    repeated parameter keeps its first value. The call is complete at the
    message's end, or at the end of the output outside a value (a server may
    strip the closing stop token); inside a value it is broken there.

    A body that opens with a JSON object instead of parameter tags
    (``{"city": "Paris"}``, the Harmony habit of writing a call's arguments as
    JSON) holds the arguments: the object streams as it is read, text after it
    is ignored, a parameter tag after it or an object that is not valid JSON
    (or not closed when the message ends) breaks the call.
    """

    __slots__ = (
        "args",
        "buf",
        "fname",
        "jargs",
        "jsonok",
        "keep",
        "ptypes",
        "state",
        "vbuf",
        "vfirst",
        "vheld",
        "vmode",
        "vund",
    )

    def __init__(self, parser: Sink, role: str | None, *, name: str):
        super().__init__(parser)
        self.fname = name
        self.state = _BETWEEN
        self.buf: list[str] = []
        self.args = ArgsObject(parser)
        self.keep = True
        self.ptypes: list[str] | None = None
        self.vmode = _UND
        self.vfirst = True
        self.vheld = ""
        self.vund = ""
        self.vbuf: list[str] = []
        self.jargs: JsonArgs | None = None
        self.jsonok = True  # no text or parameter yet: a JSON object may hold the arguments
        parser.call_open()
        parser.call_name(name)

    def text(self, s: str, i: int) -> int:
        n = len(s)
        state = self.state
        if state == _VALUE:
            self._value_text(s[i:] if i else s)
            return n
        if state == _JSON:
            jargs = self.jargs
            assert jargs is not None
            j = jargs.text(s, i)
            if jargs.scanner.failed:
                self._fail()
                return j
            if jargs.scanner.done:
                self.jargs = None
                self.state = _JSON_AFTER
            return n  # text after the object is ignored
        if state == _BETWEEN and self.jsonok:
            k = first_non_ws(s, i)
            if k == n:
                return n
            self.jsonok = False
            if s[k] == "{":
                self.jargs = JsonArgs(self.p)
                self.state = _JSON
                return self.text(s, k)
            return n
        if state == _ATTR:
            k = s.find(">", i)
            if k < 0:
                self.buf.append(s[i:])
                return n
            self.buf.append(s[i:k])
            name = _name_attribute("".join(self.buf))
            self.buf = []
            if not name or "\n" in name:
                self._fail()
                return k
            self._start_value(name)
            if k + 1 < n:
                self._value_text(s[k + 1 :])
            return n
        return n  # between parameters: ignored

    # ------------------------------------------------------------------ values
    def _start_value(self, name: str) -> None:
        self.keep = self.args.key(name)  # a repeated parameter: the first value wins, this one is dropped
        self.ptypes = self.p.param_types(self.fname, name)
        self.vmode = _UND if is_string_type(self.ptypes) else _BUF
        self.vfirst = True
        self.vheld = ""
        self.vund = ""
        self.vbuf = []
        self.state = _VALUE

    def _value_text(self, t: str) -> None:
        if self.vfirst:
            self.vfirst = False
            if t.startswith("\n"):
                t = t[1:]
        if not t:
            return
        if self.vmode == _BUF:
            self.vbuf.append(t)
            return
        t = self.vheld + t  # a trailing newline waits: it is dropped if the value ends there
        self.vheld = "\n" if t.endswith("\n") else ""
        if self.vheld:
            t = t[:-1]
            if not t:
                return
        if self.vmode == _UND:
            so_far = self.vund + t
            if len(so_far) <= 4 and ("null".startswith(so_far.lower()) or "None".startswith(so_far)):
                self.vund = so_far
                return
            self.vund = ""
            self.vmode = _STR
            self._emit('"')
            t = so_far
        self._emit(json.dumps(t, ensure_ascii=False)[1:-1])

    def _emit(self, fragment: str) -> None:
        if self.keep:
            self.p.call_args(fragment)

    def _end_value(self) -> None:
        if self.vmode == _STR:
            self._emit('"')
        elif self.vmode == _UND:
            self._emit(convert_value(self.vund, self.ptypes))
        else:
            value = "".join(self.vbuf)
            self._emit(convert_value(value[:-1] if value.endswith("\n") else value, self.ptypes))
        self.vbuf = []
        self.state = _BETWEEN

    def _complete(self) -> None:
        if self.state == _VALUE:
            self._end_value()
        if self.state != _JSON_AFTER:
            self.args.close()
        self._done()
        self.status = ENDED

    # ------------------------------------------------------------------ markers
    def marker(self, role: str, raw: str) -> bool:
        state = self.state
        if state == _ATTR:
            self._fail()  # a marker inside a tag
            return False
        if state == _JSON:
            jargs = self.jargs
            assert jargs is not None
            if role != "end":  # a marker inside the object: its text (a string may hold it)
                jargs.text(raw, 0)
                if jargs.scanner.done:
                    self.jargs = None
                    self.state = _JSON_AFTER
                    return True
            if role == "end" or jargs.scanner.failed:
                self._fail()
                return False
            return True
        if state == _JSON_AFTER:
            if role == "end":
                self._complete()
                return True
            if role == "param_start":
                self._fail()
                return False
            return True
        self.jsonok = False
        if role == "param_start":
            if state == _VALUE:
                self._end_value()
            self.buf = []
            self.state = _ATTR
            return True
        if role == "end":
            self._complete()
            return True
        if state == _VALUE:
            if role == "param_end":
                self._end_value()
            else:  # another marker inside a value is text of the value
                self._value_text(raw)
        return True  # a stray closing tag between parameters is ignored

    def finish(self) -> None:
        if self.state == _BETWEEN or self.state == _JSON_AFTER:
            self._complete()
        else:
            self._fail()
