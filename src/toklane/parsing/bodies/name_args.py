"""``NAME <sep> {json}`` calls: DeepSeek-V3 / V3.1, Mistral v11+ and Kimi K2."""

from __future__ import annotations

import re

from ..block import ENDED, WS, Body, Sink
from ..block import first_non_ws as _first_non_ws
from .json_calls import JsonArgs, JsonCalls

_LIST_OR_ARGS = re.compile(r"[\[{]")

# States of NameArgs.
_N_WAIT, _N_NAME, _N_ID, _N_NAME_LINE, _N_FENCE_OPEN, _N_ARGS, _N_FENCE_CLOSE, _N_AFTER, _N_FIRST, _N_CLOSED = range(10)


def _id_header(header: str) -> tuple[str, str | None] | None:
    """Name and id of a Kimi K2 call header ``functions.NAME:INDEX``: the whole header is the id.

    ``functions.`` and ``:INDEX`` may be missing (no ``:INDEX``: no id); a bare counter, an empty
    name or one with whitespace is no header (None).
    """
    head = header.strip(WS)
    base, colon, index = head.rpartition(":")
    numbered = bool(colon) and index.isdigit() and index.isascii()
    name = base if numbered else head
    if name.startswith("functions."):
        name = name[len("functions.") :]
    if not name or name.isdigit() or any(c in WS for c in name):
        return None
    return name, head if numbered else None


class NameArgs(Body):
    """Calls spelled ``NAME <sep> {json}``: DeepSeek-V3.1, Mistral v11+, Kimi K2; DeepSeek-V3's fenced variant.

    ``call_begin``: marker that opens each call inside the block (DeepSeek's
    ``<｜tool▁call▁begin｜>``); when the block is opened by that marker itself,
    or when there is none (Mistral, whose ``[TOOL_CALLS]`` opens one call),
    the body starts in the name. ``name_end``: markers that end the name.
    ``id_role``: a marker after which the text up to ``name_end`` is the
    call's id (Mistral v11 ``[CALL_ID]``). ``call_end``/``block_end``: closing
    markers (DeepSeek); without ``call_end`` the block ends with the
    arguments. ``typed``: DeepSeek-V3's ``TYPE<sep>NAME\\n```json\\n{...}\\n````
    layout. ``json_list``: a ``[`` where the name would start reads a JSON
    list of call objects instead (Mistral before v11). ``id_header``: the
    text before the separator is the call's id, ``functions.NAME:INDEX``
    (Kimi K2), and names the call. ``empty_args``: arguments may be left
    out (``{}``). ``drop_after``: roles of markers consumed and dropped
    right after the calls (Kimi K2's late ``</think>``); the block ends there.

    Mistral's recovery (``json_list``): after ``[TOOL_CALLS]`` a ``[``, a
    bare ``{`` or a Markdown fence reads JSON call objects (a list, one
    object, fenced); a ``[`` after other text in the name (``[TOOL_CALLS]
    Calls: [{...}]``) makes that text content and reads the list; a name
    followed by ``{`` without ``[ARGS]`` is a v11 call. (The format's
    ``drop_opener`` keeps ``[TOOL_CALLS]`` itself out of the content of a block
    that breaks.)
    """

    __slots__ = (
        "args",
        "block_end",
        "buf",
        "call_begin",
        "call_end",
        "call_id",
        "drop_after",
        "empty_args",
        "fence",
        "id_header",
        "id_role",
        "json_list",
        "junked",
        "list_body",
        "name",
        "name_end",
        "pending",
        "state",
        "typed",
    )

    def __init__(
        self,
        parser: Sink,
        role: str | None,
        *,
        name_end: tuple[str, ...],
        call_begin: str | None = None,
        call_end: str | None = None,
        block_end: str | None = None,
        id_role: str | None = None,
        typed: bool = False,
        json_list: bool = False,
        id_header: bool = False,
        empty_args: bool = False,
        drop_after: tuple[str, ...] = (),
    ):
        super().__init__(parser)
        self.name_end = name_end
        self.call_begin = call_begin
        self.call_end = call_end
        self.block_end = block_end
        self.id_role = id_role
        self.typed = typed
        self.json_list = json_list
        self.id_header = id_header
        self.empty_args = empty_args
        self.drop_after = drop_after
        self.list_body: JsonCalls | None = None
        self.buf: list[str] = []
        self.name = ""
        self.call_id: str | None = None
        self.fence = ""
        self.args: JsonArgs | None = None
        # The opening marker's raw text is still to be dropped: done at the first event (a checkpoint
        # makes the parser forget the block's raw text so far, which is that marker).
        self.junked = False  # a "{" already followed text that is no name: later ones open no arguments
        self.pending = ""  # text before a call list: content once the list holds a call (else the block's)
        if call_begin is not None and role != call_begin:
            self.state = _N_WAIT
        else:
            self._begin_call()
            if json_list:
                self.state = _N_FIRST

    def _begin_call(self) -> None:
        self.p.call_open()
        self.buf = []
        self.call_id = None
        self.state = _N_NAME

    def _list(self, s: str, i: int) -> None:
        """Read JSON call objects (a list, a bare object, fenced) from ``s[i]`` on (Mistral before v11)."""
        self.p.call_fail()  # the call opened for a v11 name is not one
        self.buf = []
        self.list_body = JsonCalls(self.p, None, array=None, fence=s[i] == "`")
        self.state = -1

    def _name_text(self, s: str, i: int) -> int:
        """Mistral's v11 name (``json_list``): a ``{`` after a name opens its arguments (``[ARGS]``
        left out); a ``[`` after other text opens a call list, that text being content."""
        n = len(s)
        m = _LIST_OR_ARGS.search(s, i)
        k = n if m is None else m.start()
        if k == n:
            self.buf.append(s[i:])
            return n
        if s[k] == "{":
            if self.junked:
                self.buf.append(s[i : k + 1])
                return k + 1
            name = ("".join(self.buf) + s[i:k]).strip(WS)
            if not name or any(c in WS or c == "]" for c in name):
                self.junked = True
                self.buf.append(s[i : k + 1])  # no name: read on (the block breaks unless a list follows)
                return k + 1
            self.buf = []
            self.name = name
            self.p.call_name(name, None)
            self.args = JsonArgs(self.p)
            self.state = _N_ARGS
            return k
        self.pending = "".join(self.buf) + s[i:k]
        self._list(s, k)
        return k

    def text(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            state = self.state
            if state == _N_ARGS:
                args = self.args
                assert args is not None
                j = args.text(s, i)
                if args.scanner.failed:
                    self._fail()
                    return j
                i = j
                if args.scanner.done:
                    self.args = None
                    if self.call_end is None:  # the call, and with it the block, ends with its arguments
                        self._done()
                        self.status = ENDED
                        return i
                    self.state = _N_FENCE_CLOSE if self.typed else _N_AFTER
                    self.fence = ""
                continue
            if state == _N_FIRST:
                i = _first_non_ws(s, i)
                if i == n:
                    return i
                if s[i] in "[{`":
                    self._list(s, i)
                else:
                    self.state = _N_NAME
                continue
            if state == -1:  # delegated to a JSON list
                body = self.list_body
                assert body is not None
                j = body.text(s, i)
                self.status = body.status
                if body.checkpoint and self.pending:  # the list holds a call: the text before it is content
                    self.p.junk(self.pending)
                    self.pending = ""
                self.checkpoint = body.checkpoint
                body.checkpoint = False
                return j
            if state == _N_NAME and self.json_list:
                i = self._name_text(s, i)
                continue
            if state in (_N_NAME, _N_ID, _N_NAME_LINE):
                if state == _N_NAME_LINE:
                    k = s.find("\n", i)
                    if k >= 0:
                        self.buf.append(s[i:k])
                        if not self._set_name():
                            return k
                        self.state = _N_FENCE_OPEN
                        i = k + 1
                        continue
                self.buf.append(s[i:])
                return n
            if state == _N_FENCE_OPEN:
                # Optional ```json (any language tag) before the arguments.
                if len(self.fence) < 3:
                    if not self.fence:
                        i = _first_non_ws(s, i)
                        if i == n:
                            return i
                        if s[i] == "{":
                            self.args = JsonArgs(self.p)
                            self.state = _N_ARGS
                            continue
                    if s[i] != "`":
                        self._fail()
                        return i
                    self.fence += "`"
                    i += 1
                    continue
                k = s.find("\n", i)  # the language tag runs to the end of the line
                if k < 0:
                    return n
                self.fence = ""
                self.args = JsonArgs(self.p)
                self.state = _N_ARGS
                i = k + 1
                continue
            if state == _N_FENCE_CLOSE:
                i = _first_non_ws(s, i)
                if i == n:
                    return i
                if s[i] == "`" and len(self.fence) < 3:
                    self.fence += "`"
                    i += 1
                    continue
                self.state = _N_AFTER
                continue
            if state == _N_CLOSED:  # after the block's end marker: text is read outside the block
                self.status = ENDED
                return i
            if state == _N_WAIT and self.ncalls:  # text between calls is content
                self.p.junk(s[i:])
                self.checkpoint = True
                return n
            # _N_AFTER, or _N_WAIT before the first call: only whitespace belongs here
            i = _first_non_ws(s, i)
            if i == n:
                return i
            self._fail()
            return i
        return i

    def _set_name(self) -> bool:
        name = "".join(self.buf).strip(WS)
        self.buf = []
        if not name or "\n" in name:
            self._fail()
            return False
        self.name = name
        self.p.call_name(name, self.call_id)
        return True

    def marker(self, role: str, raw: str) -> bool:
        state = self.state
        if state == -1:
            body = self.list_body
            assert body is not None
            consumed = body.marker(role, raw)
            self.status = body.status
            return consumed
        if state == _N_NAME and role == self.id_role:
            name = "".join(self.buf).strip(WS)
            if not name or "\n" in name:
                self._fail()
                return False
            self.name = name
            self.buf = []
            self.state = _N_ID
            return True
        if state == _N_FIRST and role in self.name_end:
            self._fail()
            return False
        if state in (_N_NAME, _N_ID) and role in self.name_end:
            if self.typed:  # the text before the separator is the call's type; the name follows
                self.buf = []
                self.state = _N_NAME_LINE
                return True
            if state == _N_ID:
                self.call_id = "".join(self.buf).strip(WS) or None
            elif self.id_header:
                header = _id_header("".join(self.buf))
                if header is None:
                    self._fail()
                    return False
                self.name, self.call_id = header
            else:
                name = "".join(self.buf).strip(WS)
                if not name or "\n" in name:
                    self._fail()
                    return False
                self.name = name
            self.buf = []
            self.p.call_name(self.name, self.call_id)
            self.args = JsonArgs(self.p)
            self.state = _N_ARGS
            return True
        if state == _N_ARGS and self.empty_args and role in (self.call_end, self.block_end):
            args = self.args
            assert args is not None
            if not args.started:  # no arguments at all: {}
                self.p.call_args("{}")
                self.args = None
                state = _N_AFTER
        if state in (_N_AFTER, _N_FENCE_CLOSE):
            self._done()
            self.state = _N_WAIT
            # A missing call-end marker is tolerated: the call is complete, and the marker is read again.
            return role == self.call_end
        if state == _N_WAIT:
            if role == self.call_begin:
                self._begin_call()
                return True
            if role == self.block_end:
                if self.drop_after:
                    self.state = _N_CLOSED
                else:
                    self.status = ENDED
                return True
            self.status = ENDED
            return bool(self.ncalls) and role in self.drop_after
        if state == _N_CLOSED:
            self.status = ENDED
            return role in self.drop_after
        self._fail()
        return False

    def finish(self) -> None:
        state = self.state
        if state == -1:
            body = self.list_body
            assert body is not None
            body.finish()
            self.status = body.status
        elif state in (_N_AFTER, _N_FENCE_CLOSE):
            self._done()
            self.status = ENDED
        elif state in (_N_WAIT, _N_CLOSED):
            self.status = ENDED
        else:
            self._fail()
