"""JSON call grammars: JSON arguments, call objects (``{"name": ..., "arguments": {...}}`` and the
``{"NAME": {...}}`` mapping), and blocks of them: bare, in a JSON array, separated, fenced."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..block import ENDED, WS, Body, Sink
from ..block import first_non_ws as _first_non_ws
from ..jsonscan import (
    AFTER,
    COLON,
    DONE,
    ERROR,
    ESCAPE,
    LONG,
    OBJECT_FIRST,
    STRING,
    UNICODE,
    JsonScanner,
    is_json,
    scanstring,
    value_end,
)
from ..types import ToolCall

_skip_ws = re.compile(r"[ \t\n\r]*").match

#: Default member names of a call object: the function's name, and its arguments.
NAME_KEYS = ("name",)
ARGS_KEYS = ("arguments", "parameters")


class JsonArgs:
    """Streams one JSON object (a call's arguments) to the parser as validated fragments."""

    __slots__ = ("p", "scanner", "started")

    def __init__(self, parser: Sink) -> None:
        self.p = parser
        self.scanner = JsonScanner()
        self.started = False

    def text(self, s: str, i: int) -> int:
        """Consume; return the stop index. ``scanner.done``/``failed`` tell the outcome."""
        if not self.started:
            i = _first_non_ws(s, i)
            if i == len(s):
                return i
            if s[i] != "{":  # arguments are a JSON object
                self.scanner.state = ERROR
                return i
            self.started = True
        if i == 0 and self.scanner.plain(s):
            self.p.call_args(s)
            return len(s)
        j = self.scanner.scan(s, i)
        if j > i:
            self.p.call_args(s if i == 0 and j == len(s) else s[i:j])
        return j


# Phases of a call object.
_C_START, _C_KEY, _C_VALUE, _C_DONE = range(4)


class JsonCallObject:
    """Reads one call object: ``{"name": "...", "arguments": {...}}`` by default.

    ``name_keys``: the member names that hold the function's name (default
    ``("name",)``); ``args_keys``: those that hold its arguments (default
    ``("arguments", "parameters")``) -- an object, or a JSON string holding
    one. Other members are read and ignored. A missing, empty or duplicate
    name, missing or duplicate arguments, or arguments that are no object,
    fail the call. ``mapping``: the object is ``{"NAME": {...}}`` instead --
    exactly one member, its key the name, its value the arguments.
    ``only_keys``: when given, a member named neither a name key, an
    arguments key nor one of these fails the call as soon as its key is read
    (a JSON object in prose that is no call is given back at once).
    ``bare_name``: an object with a name and no arguments is a call with
    ``{}`` (a tool without parameters; SGLang's JSON detectors take it).

    The name is sent as soon as it is known, argument fragments as they are
    validated.
    """

    __slots__ = (
        "args_keys",
        "args_mode",
        "bare_name",
        "buf",
        "mapping",
        "member",
        "name_keys",
        "named",
        "only_keys",
        "p",
        "phase",
        "scanner",
        "seen_args",
        "vstarted",
    )

    def __init__(
        self,
        parser: Sink,
        name_keys: tuple[str, ...] = NAME_KEYS,
        args_keys: tuple[str, ...] = ARGS_KEYS,
        mapping: bool = False,
        only_keys: tuple[str, ...] | None = None,
        bare_name: bool = False,
    ) -> None:
        self.p = parser
        parser.call_open()
        self.bare_name = bare_name
        self.only_keys = only_keys
        self.name_keys = name_keys
        self.args_keys = args_keys
        self.mapping = mapping
        self.scanner = JsonScanner()
        self.phase = _C_START
        self.buf: list[str] = []
        self.member = ""  # "name", "args" or "" (ignored)
        self.named = False
        self.seen_args = False
        self.args_mode = ""  # "object" or "string"
        self.vstarted = False

    @property
    def done(self) -> bool:
        return self.phase == _C_DONE

    @property
    def failed(self) -> bool:
        return self.scanner.state == ERROR

    def _bad(self) -> None:
        self.scanner.state = ERROR

    def text(self, s: str, i: int) -> int:
        sc = self.scanner
        n = len(s)
        if self.phase == _C_START and n - i >= LONG and not sc.started and self.only_keys is None and not self.mapping:
            j = self._whole(s, i)
            if j >= 0:
                return j
        if i == 0 and self.vstarted and self.phase == _C_VALUE and sc.plain(s):  # inside a string value
            self._value_piece(s)
            return n
        while i < n:
            j = sc.scan(s, i, 1)
            st = sc.state
            piece = s[i:j]  # valid JSON so far, also when the scan stopped at an error
            i = j
            if st == ERROR:
                if self.phase == _C_VALUE:
                    self._value_piece(piece)
                sc.state = ERROR
                return j
            if self.phase == _C_VALUE:
                self._value_piece(piece)
                if sc.state == ERROR:
                    return i
                if st == AFTER and sc.depth == 1:  # the member's value is complete
                    self._value_end()
                    if sc.state == ERROR:
                        return i
                    self.phase = _C_KEY
                    self.buf = []
            elif self.phase == _C_KEY:
                if st == COLON:
                    self.buf.append(piece)
                    self._key_end()
                    if sc.state == ERROR:
                        return i
                    self.phase = _C_VALUE
                    self.buf = []
                    self.vstarted = False
                else:
                    self.buf.append(piece)
            elif self.phase == _C_START and st == OBJECT_FIRST and sc.depth == 1:
                self.phase = _C_KEY
            if st == DONE:
                self._object_end()
                return i
        return i

    def _whole(self, s: str, i: int) -> int:
        """A whole call object in ``s`` at ``i``, read at C speed (:func:`plain_call`): where
        it ends, or -1 (nothing read) unless it is plainly a call. Anything else is left to the
        scanner, which reads it as always; what this reads is what the scanner would send."""
        call = plain_call(s, i, self.name_keys, self.args_keys)
        if call is None:
            return -1
        name, args, end = call
        self.p.call_name(name)
        self.p.call_args(args)
        self.named = self.seen_args = True
        self.phase = _C_DONE
        self.scanner.state = DONE
        return end

    def _key_end(self) -> None:
        raw = "".join(self.buf).lstrip(WS + ",")
        key = json.loads(raw)
        if self.mapping:
            if self.named or not key:  # one member, named
                return self._bad()
            self.named = self.seen_args = True
            self.member = "args"
            self.p.call_name(key)
        elif key in self.name_keys:
            if self.named:
                return self._bad()
            self.member = "name"
        elif key in self.args_keys:
            if self.seen_args:
                return self._bad()
            self.seen_args = True
            self.member = "args"
        elif self.only_keys is not None and key not in self.only_keys:
            return self._bad()
        else:
            self.member = ""

    def _value_piece(self, piece: str) -> None:
        member = self.member
        if not member:
            return
        if not self.vstarted:
            piece = piece.lstrip(WS + ":")
            if not piece:
                return
            self.vstarted = True
            if member == "args":
                if piece[0] == "{":
                    self.args_mode = "object"
                elif piece[0] == '"':
                    self.args_mode = "string"
                else:
                    return self._bad()
        if member == "args" and self.args_mode == "object":
            self.p.call_args(piece)
        else:
            self.buf.append(piece)

    def _value_end(self) -> None:
        member = self.member
        if member == "name":
            raw = "".join(self.buf)
            if not raw.startswith('"'):
                return self._bad()
            name = json.loads(raw)
            if not name:
                return self._bad()
            self.named = True
            self.p.call_name(name)
        elif member == "args" and self.args_mode == "string":
            inner = json.loads("".join(self.buf)).strip(WS)
            if not inner.startswith("{") or not is_json(inner):
                return self._bad()
            self.p.call_args(inner)

    def _object_end(self) -> None:
        if not self.named:
            return self._bad()
        if not self.seen_args:
            if not self.bare_name:
                return self._bad()
            self.p.call_args("{}")
        self.phase = _C_DONE


def plain_call(
    s: str, i: int, name_keys: tuple[str, ...] = NAME_KEYS, args_keys: tuple[str, ...] = ARGS_KEYS
) -> tuple[str, str, int] | None:
    """A call object starting at ``s[i:]`` (after whitespace), read whole: ``(name, arguments as
    written, end)`` -- or None unless it is complete, valid and plainly a call: exactly one
    non-empty string name, exactly one arguments object (other members ignored). The name is
    decoded; every other member value is checked where it ends (:func:`.jsonscan.value_end`), not
    built; the structure between them is checked here."""
    start = _first_non_ws(s, i)
    if start >= len(s) or s[start] != "{":
        return None
    name: list[str] = []
    args: list[str] = []
    try:
        pos = _skip_ws(s, start + 1).end()
        while True:
            if s[pos] != '"':
                return None
            key, pos = scanstring(s, pos + 1)
            pos = _skip_ws(s, pos).end()
            if s[pos] != ":":
                return None
            pos = _skip_ws(s, pos + 1).end()
            if key in name_keys:
                if s[pos] != '"':
                    return None
                value, after = scanstring(s, pos + 1)
                if not value:
                    return None
                name.append(value)
            else:  # (checked where it ends, not built: the arguments are kept as written)
                after = value_end(s, pos)
                if after < 0:
                    return None
                if key in args_keys:
                    if s[pos] != "{":
                        return None
                    args.append(s[pos:after])
            pos = _skip_ws(s, after).end()
            if s[pos] == "}":
                break
            if s[pos] != ",":
                return None
            pos = _skip_ws(s, pos + 1).end()
    except (ValueError, IndexError):
        return None  # incomplete or invalid: the scanner finds where
    if len(name) != 1 or len(args) != 1:
        return None
    return name[0], args[0], pos + 1


#: Body options of the blocks :meth:`JsonCalls.read_whole` reads (Hermes's: call objects up to an end marker).
WHOLE_OPTIONS: dict[str, Any] = {"end_role": "call_end", "array": None}

# States of JsonCalls.
(
    _J_START,  # before the first call (or the array)
    _J_ARRAY_FIRST,  # after "[": a call or "]"
    _J_CALL,  # inside a call object
    _J_BETWEEN,  # after a call
    _J_ARRAY_NEXT,  # after "," in the array: a call
    _J_AFTER_SEP,  # after a separator between bare calls
    _J_FENCE_OPEN,  # reading the opening ``` of a fence
    _J_TAG,  # reading the fence's language tag
    _J_FENCE_CLOSE,  # reading the closing ``` of a fence
    _J_CLOSED,  # the calls are complete: closing markers may follow
) = range(10)


class JsonCalls(Body):
    """JSON call objects: one or more per block, bare, in a JSON array, separated, or fenced.

    Options (keywords; the defaults read Hermes's bare objects):

    ``array``: ``True``: the calls are one JSON array ``[{...}, ...]``;
    ``False``: bare objects; ``None``: either, as the block's first character
    says. ``seps``: characters that may separate bare objects (Llama 3's
    ``;``). ``end_role``: the marker that closes the block
    (``</tool_call>``): after bare objects, text up to the next object is
    content (Hermes) -- except one comma right after a call (``{...}, {...}``),
    which is dropped; after an array (or a closed fence) only whitespace may
    come before it, and it may be missing (a server that stops on it).
    Without an end marker the block ends at the first character after the
    calls that continues no call (Llama 3 JSON, Mistral's list); after a bare
    object that is whitespace too unless ``seps`` are set (the whitespace then
    belongs to the output that follows).
    ``lead``: roles of markers accepted before the first call and dropped
    (InternLM's ``<|plugin|>``). ``fence``: the calls may be wrapped in a
    Markdown code fence -- ```` ``` ```` and an optional language tag
    (``json``) before them, ```` ``` ```` after -- read as text (a closing
    fence may be missing). ``name_keys``, ``args_keys``, ``mapping``: the shape
    of each call object (see :class:`JsonCallObject`). ``string_roles``: roles
    of markers that are text inside a call's JSON strings (GigaChat's
    ``function call``, a phrase an argument may hold); other markers there
    break the call. ``anchor_keys``: in a block opened at the format's anchor
    (no marker), each call object may hold only its name, its arguments and
    members named here -- another member fails the call at its key, so a JSON
    object in prose (``{"city": "Paris"}``) is content as soon as that is
    known (Llama 3 JSON calls found anywhere in the content).
    """

    __slots__ = (
        "args_keys",
        "array",
        "call",
        "comma",
        "end_role",
        "fence",
        "fenced",
        "lead",
        "listed",
        "mapping",
        "marked",
        "name_keys",
        "only_keys",
        "seps",
        "state",
        "string_roles",
        "ticks",
    )

    @staticmethod
    def read_whole(
        text: str,
        hits: Sequence[tuple[int, int, int]],
        first: int,
        roles: Sequence[str],
        options: dict[str, Any],
        new_id: Callable[[], str],
    ) -> list[ToolCall] | None:
        """The calls of a whole output's blocks read at once -- what the machine reads them as -- or
        None where the machine must read them. ``hits[first:]``: the markers from the first block's
        opener to the output's last marker (``(pattern, start, end)``, ``roles`` by pattern);
        ``options``: the format's body options; ``new_id()``: a call id. Read here: Hermes-style
        blocks (:data:`WHOLE_OPTIONS`), each ``call_start``, one plain call object
        (:func:`plain_call`), ``call_end``, with only whitespace between blocks."""
        if options != WHOLE_OPTIONS or (len(hits) - first) % 2:
            return None
        calls: list[ToolCall] = []
        for j in range(first, len(hits), 2):
            (ka, sa, ea), (kb, sb, _) = hits[j], hits[j + 1]
            if roles[ka] != "call_start" or roles[kb] != "call_end":
                return None
            if j > first and text[hits[j - 1][2] : sa].strip(WS):  # only whitespace between blocks
                return None
            call = plain_call(text, ea)
            if call is None or call[2] > sb or text[call[2] : sb].strip(WS):  # one call object per block
                return None
            calls.append(ToolCall(new_id(), call[0], call[1]))
        return calls

    def __init__(
        self,
        parser: Sink,
        role: str | None,
        *,
        array: bool | None = False,
        seps: str = "",
        end_role: str | None = None,
        lead: tuple[str, ...] = (),
        fence: bool = False,
        name_keys: tuple[str, ...] = NAME_KEYS,
        args_keys: tuple[str, ...] = ARGS_KEYS,
        mapping: bool = False,
        string_roles: tuple[str, ...] = (),
        anchor_keys: tuple[str, ...] | None = None,
    ):
        super().__init__(parser)
        self.only_keys = None if anchor_keys is None or role is not None else anchor_keys
        self.marked = role is not None  # opened by a marker, not at the format's anchor
        self.comma = False  # a comma right after the call just read is dropped
        self.string_roles = string_roles
        self.array = array
        self.seps = seps
        self.end_role = end_role
        self.lead = lead
        self.fence = fence
        self.name_keys = name_keys
        self.args_keys = args_keys
        self.mapping = mapping
        self.state = _J_START
        self.listed = False  # reading a JSON array
        self.fenced = False  # inside a fence not closed yet
        self.ticks = 0  # backticks of a fence read so far
        self.call: JsonCallObject | None = None

    def text(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            state = self.state
            if state == _J_CALL:
                call = self.call
                assert call is not None
                j = call.text(s, i)
                if call.failed:
                    self._fail()
                    return j
                if call.done:
                    self.call = None
                    self.state = _J_BETWEEN
                    self.comma = True
                    self._done()
                return j
            if state in (_J_FENCE_OPEN, _J_FENCE_CLOSE):
                while i < n and s[i] == "`" and self.ticks < 3:
                    self.ticks += 1
                    i += 1
                if self.ticks == 3:
                    self.ticks = 0
                    if state == _J_FENCE_OPEN:
                        self.fenced = True
                        self.state = _J_TAG
                        continue
                    self.fenced = False
                    if self.end_role is None:
                        self.status = ENDED
                        return i
                    self.state = _J_CLOSED
                    continue
                if i == n:
                    return i
                if state == _J_FENCE_OPEN:
                    self._fail()
                    return i
                self._broken_fence()
                return i
            if state == _J_TAG:
                while i < n and s[i].isalpha():
                    i += 1
                if i < n:
                    self.state = _J_START
                continue
            if state == _J_BETWEEN and not self.listed and not self.fenced:
                if self.end_role is not None:
                    # After a call, inside a block with an end marker: text up to the next call is content,
                    # but for a comma right after the call (objects listed without brackets): dropped.
                    if self.comma:
                        k = _first_non_ws(s, i)
                        if k < n:
                            self.comma = False
                            if s[k] == ",":
                                if k > i:
                                    self.p.junk(s[i:k])
                                self.checkpoint = True
                                return k + 1
                    j = s.find("{", i)
                    j = n if j < 0 else j
                    if j > i:
                        self.p.junk(s[i:j])
                        self.checkpoint = True
                        return j
                    self._start_call()
                    continue
                if not self.seps and s[i] in WS:  # the block ended with the call: the whitespace is the output's
                    self.status = ENDED
                    return i
            i = _first_non_ws(s, i)
            if i == n:
                return i
            c = s[i]
            if state == _J_START:
                if c == "[" and self.array is not False:
                    self.listed = True
                    self.state = _J_ARRAY_FIRST
                    i += 1
                elif c == "{" and self.array is not True:
                    self._start_call()
                elif c == "`" and self.fence and not self.fenced:
                    self.state = _J_FENCE_OPEN
                else:
                    self._fail()
                    return i
            elif state in (_J_ARRAY_FIRST, _J_ARRAY_NEXT):
                if c == "{":
                    self._start_call()
                elif c == "]":  # also after a trailing comma ([{...},]), as lenient JSON readers take it
                    i += 1
                    if self._array_end():
                        return i
                else:
                    self._fail()
                    return i
            elif state == _J_CLOSED:
                if c == "`" and self.fenced:
                    self.state = _J_FENCE_CLOSE
                else:
                    self.status = ENDED
                    return i
            elif state == _J_BETWEEN:
                if c == "`" and self.fenced and not self.listed:
                    self.state = _J_FENCE_CLOSE
                elif self.listed:
                    if c == ",":
                        self.state = _J_ARRAY_NEXT
                        i += 1
                    elif c == "{":  # the comma between two calls left out (vLLM's Granite parser reads on)
                        self._start_call()
                    elif c == "]":
                        i += 1
                        if self._array_end():
                            return i
                    else:
                        self._fail()
                        return i
                elif c in self.seps:
                    self.state = _J_AFTER_SEP
                    i += 1
                elif c == "{":
                    self._start_call()
                else:
                    self.status = ENDED
                    return i
            else:  # _J_AFTER_SEP
                if c == "{":
                    self._start_call()
                else:
                    self.status = ENDED
                    return i
        return i

    def _start_call(self) -> None:
        # A call with no arguments counts only where a marker says calls follow (not for a brace in prose).
        self.call = JsonCallObject(
            self.p, self.name_keys, self.args_keys, self.mapping, self.only_keys, bare_name=self.marked
        )
        self.state = _J_CALL

    def _array_end(self) -> bool:
        """The array's ``]`` was read; True if the block ends here."""
        self.listed = False
        if self.end_role is None and not self.fenced:
            self.status = ENDED
            return True
        self.state = _J_CLOSED
        return False

    def _broken_fence(self) -> None:
        """A closing fence that is not one: its backticks are content, and the block ends."""
        if self.ncalls:  # (without a complete call the whole block is content anyway)
            self.p.junk("`" * self.ticks)
        self.ticks = 0
        self.status = ENDED

    def marker(self, role: str, raw: str) -> bool:
        state = self.state
        if state == _J_CALL and role in self.string_roles:
            call = self.call
            assert call is not None
            if call.scanner.state in (STRING, ESCAPE, UNICODE):  # the marker is text of a string
                self.text(raw, 0)
                return True
        if state == _J_START and role in self.lead:
            return True
        if state == _J_FENCE_CLOSE:
            self._broken_fence()
            return False
        if state == _J_CLOSED:
            self.status = ENDED
            return role == self.end_role
        between = state in (_J_BETWEEN, _J_AFTER_SEP)
        if role == self.end_role and between:
            self.status = ENDED
            return True
        if between:
            self.status = ENDED
        else:
            self._fail()
        return False

    def finish(self) -> None:
        state = self.state
        if state == _J_FENCE_CLOSE:
            self._broken_fence()
        elif state in (_J_BETWEEN, _J_AFTER_SEP, _J_CLOSED):
            self.status = ENDED
        else:
            self._fail()
