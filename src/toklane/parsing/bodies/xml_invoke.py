"""XML invoke/parameter calls: DeepSeek DSML, GigaChat GCML, MiniMax-M2, Step-3, dots (:class:`XmlInvoke`)
and MiniMax-M3's namespaced tags (:class:`XmlTags`).

::

    <BLOCK>
    <PREFIXinvoke name="NAME">
    <PREFIXparameter name="KEY" [string="true|false"]>VALUE</PREFIXparameter>
    </PREFIXinvoke>
    </BLOCK>

A format module declares its spellings as markers with fixed roles (see
:func:`xml_markers`); the grammar reads the attributes written after the
``invoke_start`` / ``param_start`` markers up to ``>`` itself.
"""

from __future__ import annotations

import json
import re

from ..block import ENDED, OPEN, WS, Body, Sink, first_non_ws
from ..jsonscan import is_json
from ..tables import Marker
from .json_calls import JsonArgs, JsonCallObject
from .values import ArgsObject, convert_value, is_string_type

# States of XmlInvoke.
_START, _TYPE, _WAIT, _ATTR, _BODY, _VALUE, _JSON, _CLOSE, _AFTER, _CALL = range(10)
# How a value is written: streamed as a string, undecided (a string unless it reads null), buffered.
_STR, _UND, _BUF = range(3)
# Markers that close an open parameter and its invoke (recovering a missing closing tag).
_CLOSERS = ("invoke_end", "call_end", "block_end")
_NULL_WAIT = 64  # an undecided value longer than this is a string
#: Whitespace held after a candidate ``</parameter>`` inside a value before it is taken as the closer.
CLOSE_HOLD = 256
# Markers that, after a candidate ``</parameter>``, show it closed the value.
_CONTINUE = frozenset(("param_start", "invoke_start", "invoke_end", "call_begin", "call_end", "block_end"))
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_ENTITY_NAME = 8  # the longest entity name read (``#x10FFFF``)
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"
_XML_SPECIAL = re.compile("[&<]")


def xml_markers(
    block_start: str | None,
    block_end: str | None,
    tag: str,
    *,
    invoke: str = "invoke",
    parameter: str = "parameter",
    block_token: bool = False,
) -> tuple[Marker, ...]:
    """The markers of one family: its outer block (``block_token``: added tokens) and ``<TAG+invoke``,
    ``</TAG+invoke>``, ``<TAG+parameter``, ``</TAG+parameter>`` (text)."""
    out = [
        Marker("invoke_start", f"<{tag}{invoke}", False),
        Marker("invoke_end", f"</{tag}{invoke}>", False),
        Marker("param_start", f"<{tag}{parameter}", False),
        Marker("param_end", f"</{tag}{parameter}>", False),
    ]
    if block_start is not None:
        out.append(Marker("block_start", block_start, block_token))
    if block_end is not None:
        out.append(Marker("block_end", block_end, block_token))
    return tuple(out)


def _attributes(text: str) -> dict[str, str] | None:
    """``key="value"`` pairs (single, double or no quotes); None if ``text`` is not such a list.
    The first value of a repeated key wins."""
    out: dict[str, str] = {}
    n = len(text)
    i = 0
    while True:
        i = first_non_ws(text, i)
        if i >= n:
            return out
        j = i
        while j < n and text[j] not in "= \t\n\r":
            j += 1
        key = text[i:j]
        j = first_non_ws(text, j)
        if not key or j >= n or text[j] != "=":
            return None
        j = first_non_ws(text, j + 1)
        if j < n and text[j] in "\"'":
            k = text.find(text[j], j + 1)
            if k < 0:
                return None
            value = text[j + 1 : k]
            i = k + 1
        else:
            k = j
            while k < n and text[k] not in WS:
                k += 1
            value = text[j:k]
            i = k
        out.setdefault(key, value)


class XmlInvoke(Body):
    """Calls spelled as XML invokes, one or more per block.

    Marker roles: ``block_start`` / ``block_end`` (the outer block),
    ``invoke_start`` / ``invoke_end``, ``param_start`` / ``param_end``; for
    Step-3, ``call_begin`` ``TYPE`` ``sep`` before an invoke and ``call_end``
    after it. A block opened by ``invoke_start`` or ``call_begin`` (no outer
    marker) reads calls the same way.

    Options: ``strip``: values lose surrounding whitespace. ``string_attr``:
    the parameter attribute that types a value (DSML's ``string``:
    ``"true"`` is a string, ``"false"`` JSON -- invalid JSON falls back to the
    schema, then to a string); without it (or the attribute) a value is typed
    by ``tools_schema`` (:func:`~toklane.parsing.bodies.values.convert_value`).
    ``json_body``: an invoke may hold a JSON object instead of parameters.
    ``json_calls``: a block may hold one ``{"name": ..., "arguments": {...}}``
    object instead of invokes. ``xml_text``: values are XML character data
    (MiniCPM5): entities (``&lt;`` ``&gt;`` ``&amp;`` ``&quot;`` ``&apos;``,
    numeric) are decoded and ``<![CDATA[...]]>`` sections unwrapped -- their
    content is kept exactly (``strip`` drops only whitespace outside them) and
    markers inside them are text; an unknown entity stays as written, an
    unclosed section runs to the end of the value. ``one_call``: a block ends
    with its call (MiniCPM5's calls have no wrapper: text after one is content).

    A ``</parameter>`` written inside a value (code that contains the tag)
    ends it only when what follows it, after whitespace, continues the call:
    a marker of the grammar other than another ``</parameter>``, or the end of
    the output; text after it (or another ``</parameter>``) makes it part of
    the value. The candidate and the whitespace after it are held until the
    next character decides -- at most :data:`CLOSE_HOLD` characters of
    whitespace; a run that long ends the value.

    Strings stream as they arrive. A missing ``</parameter>`` is recovered at
    ``</invoke>`` or the block's end, a missing ``</invoke>`` at the next
    invoke or the block's end; ``<invoke name="f"/>`` is a call without
    arguments. An invoke left open at the end of the output is broken.
    """

    __slots__ = (
        "args",
        "attr_of",
        "buf",
        "fname",
        "jargs",
        "jcall",
        "json_body",
        "json_calls",
        "jsonv",
        "keep",
        "one_call",
        "opening",
        "ptypes",
        "state",
        "string_attr",
        "strip",
        "vbuf",
        "vclose",
        "vheld",
        "vmode",
        "vstarted",
        "vund",
        "xml",
    )

    def __init__(
        self,
        parser: Sink,
        role: str | None,
        *,
        strip: bool = True,
        string_attr: str | None = None,
        json_body: bool = False,
        json_calls: bool = False,
        xml_text: bool = False,
        one_call: bool = False,
    ):
        super().__init__(parser)
        self.one_call = one_call
        self.xml: _XmlText | None = _XmlText() if xml_text else None
        self.strip = strip
        self.string_attr = string_attr
        self.json_body = json_body
        self.json_calls = json_calls
        self.jcall: JsonCallObject | None = None
        self.buf: list[str] = []
        self.attr_of = ""
        self.fname = ""
        self.args: ArgsObject | None = None
        self.jargs: JsonArgs | None = None
        self.opening = False  # the invoke body's first non-whitespace text may still open a JSON object
        self.keep = True
        self.ptypes: list[str] | None = None
        self.vmode = _STR
        self.jsonv = False
        self.vstarted = False
        self.vbuf: list[str] = []
        self.vheld: list[str] = []
        self.vund = ""
        self.vclose: list[str] | None = None  # a candidate </parameter> and the whitespace after it
        self.state = _START
        if role == "invoke_start":
            self._read_attributes("invoke")
        elif role == "call_begin":
            self.state = _TYPE

    # ------------------------------------------------------------------ text
    def text(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            state = self.state
            if state == _VALUE:
                held = self.vclose
                if held is not None:  # a candidate closer: whitespace waits, anything else is value text
                    j = first_non_ws(s, i)
                    if sum(map(len, held)) - len(held[0]) + j - i >= CLOSE_HOLD:
                        self.vclose = None
                        self._end_value()
                        return n  # text between parameters is ignored
                    if j == n:
                        held.append(s[i:])
                        return n
                    self.vclose = None
                    self._value_text("".join(held))
                self._value_text(s[i:] if i else s)
                return n
            if state == _ATTR:
                k = s.find(">", i)
                if k < 0:
                    self.buf.append(s[i:])
                    return n
                self.buf.append(s[i:k])
                if not self._attributes_end():
                    self._fail()
                    return k
                i = k + 1
                if self.checkpoint:  # a self-closing invoke completed a call
                    return i
                continue
            if state == _JSON:
                jargs = self.jargs
                assert jargs is not None
                j = jargs.text(s, i)
                if jargs.scanner.failed:
                    self._fail()
                elif jargs.scanner.done:
                    self._done()
                    self.state = _CLOSE
                return j
            if state == _CALL:
                jcall = self.jcall
                assert jcall is not None
                j = jcall.text(s, i)
                if jcall.failed:
                    self._fail()
                elif jcall.done:
                    self._done()
                    self.state = _AFTER
                return j
            if state == _BODY:
                if not self.opening:
                    return n  # text between parameters is ignored
                j = first_non_ws(s, i)
                if j == n:
                    return n
                self.opening = False
                if s[j] == "{":
                    self.jargs = JsonArgs(self.p)
                    self.state = _JSON
                    i = j
                continue
            if state == _TYPE:
                return n  # the call type before <tool_sep> ("function") is ignored
            if state == _AFTER:  # text between calls is content
                self.p.junk(s[i:] if i else s)
                self.checkpoint = True
                return n
            j = first_non_ws(s, i)
            if j == n:
                return n
            if state == _CLOSE:
                self.state = _AFTER
                i = j
                continue
            if state == _START and self.json_calls and s[j] == "{":
                self.jcall = JsonCallObject(self.p)
                self.state = _CALL
                i = j
                continue
            self._fail()  # _START, _WAIT: only whitespace may come before an invoke
            return j
        return i

    def _read_attributes(self, of: str) -> None:
        self.attr_of = of
        self.buf = []
        self.state = _ATTR

    def _attributes_end(self) -> bool:
        """The tag's ``>`` arrived: open the invoke or the parameter; False if the tag is malformed."""
        raw = "".join(self.buf).rstrip(WS)
        self.buf = []
        closed = raw.endswith("/")
        attrs = _attributes(raw[:-1] if closed else raw)
        name = attrs.get("name", "").strip(WS) if attrs is not None else ""
        if not name or "\n" in name:
            return False
        if self.attr_of == "invoke":
            p = self.p
            p.call_open()
            p.call_name(name)
            self.fname = name
            self.args = ArgsObject(p)
            self.jargs = None
            if closed:
                self._end_invoke()
            else:
                self.state = _BODY
                self.opening = self.json_body
            return True
        assert attrs is not None
        self.opening = False
        typed = attrs.get(self.string_attr) if self.string_attr else None
        self._start_value(name, typed.strip(WS).lower() if typed is not None else None)
        if closed:
            self._end_value()
        return True

    # ------------------------------------------------------------------ values
    def _start_value(self, name: str, typed: str | None) -> None:
        args = self.args
        assert args is not None
        self.keep = args.key(name)  # a repeated parameter: the first value wins, this one is read and dropped
        self.ptypes = self.p.param_types(self.fname, name)
        self.vbuf = []
        self.vheld = []
        self.vund = ""
        self.vstarted = not self.strip
        self.jsonv = typed == "false"
        if typed == "true":
            self.vmode = _STR
            self._emit('"')
        elif self.jsonv or not is_string_type(self.ptypes):
            self.vmode = _BUF
        else:
            self.vmode = _UND
        self.state = _VALUE

    def _value_text(self, t: str) -> None:
        xml = self.xml
        if xml is None:
            self._value_piece(t, False)
            return
        for piece, literal in xml.feed(t):
            self._value_piece(piece, literal)

    def _value_piece(self, t: str, literal: bool) -> None:
        """Value text; ``literal`` text (a CDATA section, an entity) is never stripped."""
        if not self.vstarted:
            if not literal:
                t = t.lstrip(WS)
                if not t:
                    return
            self.vstarted = True
        mode = self.vmode
        if mode == _BUF:
            self.vbuf.append(t)
            return
        if self.strip and literal:
            if self.vheld:
                t = "".join(self.vheld) + t
                self.vheld = []
        elif self.strip:  # trailing whitespace waits: it is dropped if the value ends there
            core = t.rstrip(WS)
            if not core:
                self.vheld.append(t)
                return
            tail = t[len(core) :]
            if self.vheld:
                core = "".join(self.vheld) + core
            self.vheld = [tail] if tail else []
            t = core
        if mode == _UND:
            und = self.vund + t
            word = und.strip(WS)
            if len(und) <= _NULL_WAIT and (not word or "null".startswith(word.lower()) or "None".startswith(word)):
                self.vund = und
                return
            self.vund = ""
            self.vmode = _STR
            self._emit('"')
            t = und
        self._emit(json.dumps(t, ensure_ascii=False)[1:-1])

    def _end_value(self) -> None:
        if self.xml is not None:
            for piece, literal in self.xml.flush():
                self._value_piece(piece, literal)
        mode = self.vmode
        if mode == _STR:
            self._emit('"')
        elif mode == _UND:
            self._emit(convert_value(self.vund, self.ptypes))
        else:
            value = "".join(self.vbuf)
            if self.strip:
                value = value.rstrip(WS)
            word = value.strip(WS)
            if self.jsonv and word and is_json(word):
                self._emit(word)
            else:
                self._emit(convert_value(value, self.ptypes))
        self.vbuf = []
        self.vheld = []
        self.vund = ""
        self.state = _BODY

    def _emit(self, fragment: str) -> None:
        if self.keep:
            self.p.call_args(fragment)

    def _end_invoke(self) -> None:
        args = self.args
        assert args is not None
        args.close()
        self._done()
        self.state = _AFTER
        if self.one_call:
            self.status = ENDED

    # ------------------------------------------------------------------ markers
    def marker(self, role: str, raw: str) -> bool:
        state = self.state
        if state == _VALUE and self.vclose is not None:
            held = self.vclose
            self.vclose = None
            if role in _CONTINUE:  # what follows continues the call: the held closer ended the value
                self._end_value()
                state = _BODY
            else:  # another </parameter> (or a foreign marker): the held one is value text
                self._value_text("".join(held))
        if state == _VALUE:
            if self.xml is not None and self.xml.cdata:  # markers inside a CDATA section are text
                self._value_text(raw)
                return True
            if role == "param_end":
                self.vclose = [raw]  # a candidate closer, decided by what follows
                return True
            if role not in _CLOSERS:  # any other marker inside a value is text of the value
                self._value_text(raw)
                return True
            self._end_value()
            state = _BODY
        if state == _BODY:
            if role == "param_start":
                self._read_attributes("param")
                return True
            if role == "param_end":
                return True  # a stray closing tag
            if role == "invoke_end":
                self._end_invoke()
                return True
            if role in ("call_end", "block_end", "invoke_start", "call_begin"):  # </invoke> left out: read again
                self._end_invoke()
                return False
            self._fail()
            return False
        if state == _CLOSE:  # a JSON body is complete; its </invoke> is optional
            self.state = _AFTER
            if role == "invoke_end":
                return True
            state = _AFTER
        if state in (_START, _AFTER, _TYPE, _WAIT):
            if role == "invoke_start":
                self._read_attributes("invoke")
                return True
            if role == "call_begin" and state in (_START, _AFTER):
                self.state = _TYPE
                return True
            if role == "sep" and state == _TYPE:
                self.state = _WAIT
                return True
            if state == _AFTER:
                if role == "block_end":
                    self.status = ENDED
                    return True
                if role in ("call_end", "invoke_end", "param_end"):
                    return True  # closing markers after a complete call
                self.status = ENDED
                return False
        self._fail()  # a marker inside a tag or JSON, or where no call has started
        return False

    def finish(self) -> None:
        if self.vclose is not None:  # the end of the output continues the call: the held closer ends the value
            self.vclose = None
            self._end_value()
        if self.state in (_AFTER, _CLOSE):
            self.status = ENDED
        else:
            self._fail()


class _XmlText:
    """XML character data read in pieces: :meth:`feed` returns ``(text, literal)`` pieces -- entities
    decoded, CDATA sections unwrapped (``literal``: their content, and decoded entities) -- holding back
    an entity, a CDATA opener or a CDATA closer that the next piece may complete."""

    __slots__ = ("cdata", "held")

    def __init__(self) -> None:
        self.cdata = False
        self.held = ""

    def feed(self, s: str) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        if self.held:
            s = self.held + s
            self.held = ""
        n = len(s)
        i = plain = 0  # plain: where the text not yet passed on starts
        while i < n:
            if self.cdata:
                k = s.find(_CDATA_CLOSE, i)
                if k < 0:
                    keep = 2 if s.endswith("]]") else 1 if s.endswith("]") else 0
                    end = max(i, n - keep)
                    if end > i:
                        out.append((s[i:end], True))
                    self.held = s[end:]
                    return out
                if k > i:
                    out.append((s[i:k], True))
                self.cdata = False
                i = plain = k + len(_CDATA_CLOSE)
                continue
            m = _XML_SPECIAL.search(s, i)
            j = n if m is None else m.start()
            if j == n:
                break
            if s[j] == "<":
                if s.startswith(_CDATA_OPEN, j):
                    if j > plain:
                        out.append((s[plain:j], False))
                    self.cdata = True
                    i = j + len(_CDATA_OPEN)
                elif n - j < len(_CDATA_OPEN) and _CDATA_OPEN.startswith(s[j:]):
                    break  # a CDATA opener the next piece may complete
                else:
                    i = j + 1
                continue
            k = j + 1  # an entity: &NAME; with NAME alphanumeric or #, at most _ENTITY_NAME characters
            while k < n and k - j <= _ENTITY_NAME and (s[k].isalnum() or s[k] == "#"):
                k += 1
            if k == n:
                break  # an entity the next piece may complete
            char = _entity(s[j + 1 : k]) if s[k] == ";" else None
            if char is None:
                i = j + 1
                continue
            if j > plain:
                out.append((s[plain:j], False))
            out.append((char, True))
            i = plain = k + 1
        else:
            j = n
        if j > plain and not self.cdata:
            out.append((s[plain:j], False))
        if j < n and not self.cdata:
            self.held = s[j:]
        return out

    def flush(self) -> list[tuple[str, bool]]:
        """The end of the value: held text is text as written (in a CDATA section, its content)."""
        held, self.held = self.held, ""
        cdata, self.cdata = self.cdata, False
        return [(held, cdata)] if held else []


def _entity(name: str) -> str | None:
    """The character of an entity name (``lt``, ``#60``, ``#x3C``), or None."""
    if not name.startswith("#"):
        return _ENTITIES.get(name)
    digits = name[2:] if name[1:2] in ("x", "X") else name[1:]
    base = 16 if len(digits) < len(name) - 1 else 10
    try:
        code = int(digits, base) if digits.isascii() and digits.isalnum() else -1
    except ValueError:
        return None
    if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
        return chr(code)
    return None


# States of XmlTags.
_M_OPEN, _M_START, _M_INVOKE, _M_PARAM, _M_AFTER = range(5)
_MAX_DEPTH = 64  # nesting of elements inside one parameter
_LEAF_TYPES = ["boolean"]  # nested values: true / false / null, else the text


class _Element:
    __slots__ = ("children", "tag", "texts")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.texts: list[str] = []
        self.children: list[tuple[str, object]] | None = None


class XmlTags(Body):
    """MiniMax-M3 calls: every tag follows a namespace marker (role ``ns``), parameters are
    elements named by their key::

        NS<tool_call>
        NS<invoke name="NAME">
        NS<KEY>VALUE NS</KEY>
        NS<KEY>NS<item>1NS</item>NS<item>2NS</item>NS</KEY>
        NS</invoke>
        NS</tool_call>

    A value with child elements is an array when its schema says so or every
    child is ``<item>``, else an object (a repeated child becomes a list); a
    leaf value is stripped and typed by ``tools_schema`` (nested leaves:
    ``true`` / ``false`` / ``null``, else the text). A value is sent when its
    parameter closes; a closing tag written without the namespace marker
    (``NS<city>Paris</city>``) closes it too. An opening tag without its marker
    between parameters breaks the call (its value would be lost).
    """

    __slots__ = ("args", "buf", "fname", "intag", "keep", "pending", "ptypes", "stack", "state")

    def __init__(self, parser: Sink, role: str | None):
        super().__init__(parser)
        self.state = _M_OPEN
        self.intag = True  # the block opens with the namespace marker of its first tag
        self.buf: list[str] = []
        self.pending: list[str] = []  # value text since the last namespace marker
        self.stack: list[_Element] = []
        self.fname = ""
        self.args: ArgsObject | None = None
        self.keep = True
        self.ptypes: list[str] | None = None

    def text(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            if self.intag:
                if not self.buf:  # a tag starts with "<" (spacing after the marker is allowed)
                    i = first_non_ws(s, i)
                    if i == n:
                        return n
                    if s[i] != "<":
                        self._fail()
                        return i
                k = s.find(">", i)
                line = s.find("\n", i, n if k < 0 else k)
                if line >= 0:
                    self._fail()
                    return line
                if k < 0:
                    self.buf.append(s[i:])
                    return n
                self.buf.append(s[i:k])
                tag = "".join(self.buf)[1:].strip(WS)
                self.buf = []
                self.intag = False
                if not self._tag(tag):
                    self._fail()
                    return k
                i = k + 1
                if self.checkpoint or self.status != OPEN:  # a call completed, or the block ended
                    return i
                continue
            state = self.state
            if state == _M_PARAM:
                self.pending.append(s[i:] if i else s)
                return n
            if state == _M_INVOKE:  # text between parameters is ignored, but not a tag missing its marker:
                k = s.find("<", i)  # its parameter would be lost, so the call breaks
                if k >= 0:
                    self._fail()
                    return k
                return n
            if state == _M_AFTER:
                self.p.junk(s[i:] if i else s)
                self.checkpoint = True
                return n
            j = first_non_ws(s, i)
            if j < n:
                self._fail()
            return j
        return i

    def marker(self, role: str, raw: str) -> bool:
        if self.intag:
            self._fail()
            return False
        if role == "ns":
            if self.state == _M_PARAM:
                self._flush_text()
            self.intag = True
            return True
        if self.state == _M_PARAM:
            self.pending.append(raw)  # another format's marker inside a value is text
            return True
        if self.state == _M_AFTER:
            self.status = ENDED
        else:
            self._fail()
        return False

    def finish(self) -> None:
        if self.state == _M_AFTER and not self.intag:
            self.status = ENDED
        else:
            self._fail()

    # ------------------------------------------------------------------ tags
    def _tag(self, tag: str) -> bool:
        """Act on a tag's text (between ``<`` and ``>``); False if it has no place here."""
        state = self.state
        closing = tag.startswith("/")
        name = tag[1:].strip(WS) if closing else tag
        if state in (_M_OPEN, _M_START, _M_AFTER):
            if not closing and name.startswith("invoke") and len(name) > 6 and name[6] in WS:
                return self._invoke(name[6:])
            if state == _M_OPEN and tag == "tool_call":
                self.state = _M_START
                return True
            if state == _M_AFTER and closing and name == "tool_call":
                self.status = ENDED
                return True
            return False
        if closing and name in ("invoke", "tool_call"):  # closes the call (and any open parameter)
            if state == _M_PARAM:
                while self.stack:
                    self._close()
            self._end_invoke()
            if name == "tool_call":
                self.status = ENDED
            return True
        if not name or any(c in WS for c in name):
            return False
        if closing:
            if state == _M_INVOKE:
                return True  # a stray closing tag
            if name != self.stack[-1].tag:
                return False
            self._close()
            return True
        if state == _M_INVOKE:
            args = self.args
            assert args is not None
            self.keep = args.key(name)
            self.ptypes = self.p.param_types(self.fname, name)
            self.state = _M_PARAM
        elif len(self.stack) >= _MAX_DEPTH:
            return False
        top = self.stack[-1] if self.stack else None
        if top is not None and top.children is None:
            top.children = []
        self.stack.append(_Element(name))
        return True

    def _invoke(self, attributes: str) -> bool:
        attrs = _attributes(attributes)
        name = attrs.get("name", "").strip(WS) if attrs is not None else ""
        if not name:
            return False
        self.p.call_open()
        self.p.call_name(name)
        self.fname = name
        self.args = ArgsObject(self.p)
        self.state = _M_INVOKE
        return True

    def _end_invoke(self) -> None:
        args = self.args
        assert args is not None
        args.close()
        self._done()
        self.state = _M_AFTER

    # ------------------------------------------------------------------ values
    def _flush_text(self) -> None:
        """A namespace marker inside a parameter: the text since the last one belongs to the open element,
        and closes it when it ends with the element's closing tag."""
        seg = "".join(self.pending)
        self.pending = []
        if not seg:
            return
        top = self.stack[-1]
        core = seg.rstrip(WS)
        close = "</" + top.tag + ">"
        if core.endswith(close):
            top.texts.append(core[: -len(close)])
            self._close()
        else:
            top.texts.append(seg)

    def _close(self) -> None:
        """Close the innermost element: give its value to its parent, or send it (a whole parameter)."""
        el = self.stack.pop()
        if self.stack:
            parent = self.stack[-1]
            assert parent.children is not None
            parent.children.append((el.tag, self._value(el, None, False)))
            return
        self.state = _M_INVOKE
        if self.keep:
            value = self._value(el, self.ptypes, True)
            self.p.call_args(value if isinstance(value, _Json) else json.dumps(value, ensure_ascii=False))

    def _value(self, el: _Element, types: list[str] | None, top: bool) -> object:
        """An element's value: a container of its children, else its text typed by ``types`` (a parameter)
        or as a nested leaf."""
        children = el.children
        if children is None:
            return _Json(convert_value("".join(el.texts).strip(WS), types if top else _LEAF_TYPES))
        if types and ("array" in types or "object" in types):
            as_list = "array" in types
        else:
            as_list = all(tag == "item" for tag, _ in children)
        if as_list:
            return [_loads(v) for _, v in children]
        out: dict[str, object] = {}
        for tag, v in children:
            v = _loads(v)
            seen = out.get(tag, out)
            if seen is out:
                out[tag] = v
            elif isinstance(seen, _Repeated):
                seen.append(v)
            else:
                out[tag] = _Repeated((seen, v))
        return out


class _Json(str):
    """JSON text of a leaf value (converted by the schema table)."""


class _Repeated(list):  # type: ignore[type-arg]
    """Values of a child element given more than once."""


def _loads(v: object) -> object:
    return json.loads(v) if isinstance(v, _Json) else v
