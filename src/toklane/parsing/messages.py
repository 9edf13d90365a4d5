"""Message machines: outputs that are a sequence of typed messages (Muse, Beam, Inkling).

Each message is a *header* and a *body*. The header -- text and header
markers up to the marker that opens the body -- says where the body goes:
reasoning, content, a tool call, or nowhere::

    Muse     <|start|>assistant to=self<|message|>...<|eom|>
    Beam     <|start|>assistant<|channel|>analysis<|message|>...<|end|>
    Inkling  <|message_model|><|content_thinking|>...<|end_message|>

A family subclasses :class:`MessageParser`: its framing markers (``MARKERS``,
with the roles below) and :meth:`MessageParser.route`, which maps a header to
a body kind. Roles: ``start`` opens a header (ending any open body);
``foreign`` opens the header of a message the model does not author (its
body is dropped); ``channel`` opens a header field (and a header, outside
one); ``constrain`` opens a header field inside a header (text elsewhere);
``message`` ends the header; the roles in ``KINDS`` end it with a fixed body
kind (Inkling's content-kind tokens); ``end`` ends the body.

The prompt usually ends inside the first header, so the output starts in a
*tentative* header: whitespace and at most one word (starting with ``WORD``,
``to=`` for Muse and Beam). Text that cannot be a header is an unframed
message, read as content. ``thinking=True`` starts inside a reasoning body.

Bodies of one channel are joined with ``SEP``; each is trimmed. A tool-call
message is read by the tool format's grammar: at once (``name`` given from
the header where the family names calls there), or -- when the tool format
has ``block_starts`` -- from each block-start marker on, its other text being
content. A call that breaks, or a call message without one, is content (raw
text). With tool parsing off, call messages are content; with reasoning
parsing off, reasoning is content.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from .block import FAILED, OPEN, WS, first_non_ws
from .machine import REASONING as _INSIDE_REASONING
from .machine import StreamParser
from .tables import Marker

#: Body kinds a header routes to.
TO_REASONING, TO_CONTENT, TO_CALL, TO_DROP = "reasoning", "content", "call", "drop"

# Modes: tentative header, header, reasoning body, content body, content body in which tool-call
# blocks may open, dropped body, inside a tool-call block.
_TENT, _HEAD, _R, _C, _CM, _DROP, _CALL = range(10, 17)
_WS = re.compile(r"[ \t\n\r]")
_TO = "to="


def recipient(header: dict[str, str]) -> str | None:
    """The recipient a header names (its first ``to=NAME`` word, in any field), or None."""
    for text in header.values():
        for word in text.split():
            if word.startswith(_TO) and len(word) > len(_TO):
                return word[len(_TO) :]
    return None


def _last_ws(s: str) -> int:
    return max(s.rfind(" "), s.rfind("\n"), s.rfind("\t"), s.rfind("\r"))


class MessageParser(StreamParser):
    """Reasoning, content and tool calls from typed messages; configured by a family's subclass."""

    MARKERS: ClassVar[tuple[Marker, ...]] = ()
    WORD: ClassVar[str] = _TO  # how the one word of a header without a start marker begins
    SEP: ClassVar[str] = "\n"  # joins the bodies of one channel
    KINDS: ClassVar[dict[str, str]] = {}  # header-ending roles that fix the body kind
    RECOVER: ClassVar[bool] = False  # a body's trailing "to=NAME" right before ``message`` is that header
    OFFER_END: ClassVar[bool] = False  # the call grammar reads ``end`` (a message end may close its value)
    NAMED: ClassVar[bool] = False  # the header names the call: its grammar is built with ``name=``

    _field = "role"  # the header field text goes to
    _foreign = False  # the header is of a message the model does not author
    _after = _C  # the mode a tool-call block returns to
    _unframed = False  # the open body had no header
    _tphase = 0  # tentative header: 0 leading whitespace, 1 the word, 2 trailing whitespace
    _tword = ""  # the tentative word's first len(WORD) characters
    _chead = ""  # first characters of the held candidate header word (RECOVER)
    _wsb = True  # the body so far is empty or ends with whitespace (RECOVER)
    # Copy-on-write starting values (no per-parser objects to make): every header is a new dict,
    # and the held lists are replaced when they first get text.
    _header: Mapping[str, list[str]] = MappingProxyType({})
    _tent: list[str] | tuple[()] = ()  # text of a tentative header
    _cand: list[str] | tuple[()] = ()  # a held candidate header word (RECOVER)

    def _setup(self, *args: Any, **kwargs: Any) -> None:
        super()._setup(*args, **kwargs)
        self._mode = _R if self._mode == _INSIDE_REASONING else _TENT

    def route(self, header: dict[str, str], kind: str | None, foreign: bool) -> tuple[str, str | None]:
        """``(body kind, call name or None)`` for a header: its fields' text by role (``"role"``
        before any header marker) and the kind its closing marker fixes (``KINDS``), if any."""
        raise NotImplementedError

    # ------------------------------------------------------------------ text
    def _text(self, s: str) -> None:
        mode = self._mode
        if mode == _TENT:
            if self._tent:
                self._tent.append(s)  # type: ignore[union-attr]
            else:
                self._tent = [s]
            if not self._tentative(s):
                self._open_unframed()
            return
        if mode == _HEAD:
            self._header.setdefault(self._field, []).append(s)
            return
        if self.RECOVER:
            s = self._hold_word(s)
            if not s:
                return
        self._body_text(s)

    def _body_text(self, s: str) -> None:
        i, n = 0, len(s)
        while i < n:
            mode = self._mode
            if mode == _CALL:
                i = self._block_text(s, i)
                continue
            rest = s[i:] if i else s
            if mode == _R:
                self._channel_r().put(rest)
            elif mode != _DROP:
                self._content.put(rest)
            return

    def _tentative(self, s: str) -> bool:
        """Whether the tentative header, with ``s`` added, can still be a header."""
        word = self.WORD
        i, n = 0, len(s)
        while i < n:
            phase = self._tphase
            if phase == 0:
                i = first_non_ws(s, i)
                if i < n:
                    self._tphase = 1
            elif phase == 1:
                need = word[len(self._tword) :]
                if need:
                    take = s[i : i + len(need)]
                    if not need.startswith(take):
                        return False
                    self._tword += take
                    i += len(take)
                    continue
                m = _WS.search(s, i)
                if m is None:
                    return True
                i = m.start()
                self._tphase = 2
            else:
                return first_non_ws(s, i) == n
        return True

    def _hold_word(self, s: str) -> str:
        """The part of body text ``s`` to read now; a trailing word that may be the ``to=NAME`` of a
        header whose end-of-message marker the model left out is held until the next text or marker."""
        out = ""
        if self._cand:
            m = _WS.search(s)
            piece = s if m is None else s[: m.start()]
            head = self._chead
            if len(head) < len(_TO):
                head = (head + piece)[: len(_TO)]
            if m is None and (head == _TO or (len(head) < len(_TO) and _TO.startswith(head))):
                self._cand.append(s)
                self._chead = head
                return ""
            out = "".join(self._cand) + piece
            self._cand = []
            self._chead = ""
            if m is None:
                self._wsb = False
                return out
            s = s[m.start() :]
        w = _last_ws(s)
        tail = s[w + 1 :] if w >= 0 else (s if self._wsb else "")
        head = tail[: len(_TO)]
        if tail and (head == _TO or _TO.startswith(head)):
            self._cand = [tail]
            self._chead = head
            s = s[: len(s) - len(tail)]
        out += s
        if out:
            self._wsb = out[-1] in WS
        return out

    def _release(self) -> None:
        """A marker or the end: the held candidate word is body text."""
        if self._cand:
            held = "".join(self._cand)
            self._cand = []
            self._chead = ""
            self._wsb = False
            self._body_text(held)

    # ------------------------------------------------------------------ markers
    def _marker(self, k: int) -> None:
        tables = self._tables
        role = tables.roles[k]
        raw = tables.texts[k]
        mode = self._mode
        if mode == _TENT:
            if role == "message" or role == "channel" or role == "constrain" or role in self.KINDS:
                self._header = {"role": self._tent or []}  # type: ignore[dict-item]
                self._tent = []
                self._tphase = 0
                self._tword = ""
                self._mode = _HEAD
            elif (role == "start" or role == "foreign" or role == "end") and not self._tphase:
                self._tent = []
                if role != "end":
                    self._new_header(role == "foreign")
                return
            else:  # text before a framing marker, or another marker: a message without a header
                self._open_unframed()
            mode = self._mode
        if mode == _HEAD:
            self._header_marker(role, raw)
            return
        # Inside a body.
        if role == "message" and self.RECOVER:
            cand = "".join(self._cand)
            self._cand = []
            self._chead = ""
            if len(cand) <= len(_TO):
                self._body_text(cand)
                cand = ""
            self._close_body()
            self._header = {"role": [cand]}
            self._mode = _HEAD
            self._header_marker(role, raw)
            return
        self._release()
        if role == "end":
            self._close_body(role, raw)
        elif role == "start" or role == "foreign":
            self._close_body()
            self._new_header(role == "foreign")
        elif role == "channel":
            self._close_body()
            self._new_header(False)
            self._field = "channel"
        elif role in self.KINDS:
            self._close_body()
            self._open(self.KINDS[role], None)
        else:
            self._body_marker(role, raw)

    def _header_marker(self, role: str, raw: str) -> None:
        if role == "message" or role in self.KINDS:
            header = {key: "".join(parts) for key, parts in self._header.items()}
            kind, name = self.route(header, self.KINDS.get(role), self._foreign)
            self._open(kind, name)
        elif role == "channel" or role == "constrain":
            self._field = role
            self._header.setdefault(role, [])
        elif role == "start" or role == "foreign":
            self._new_header(role == "foreign")
        elif role == "end":  # a header with no body
            self._header = {}
            self._mode = _TENT
        else:
            self._header.setdefault(self._field, []).append(raw)

    def _body_marker(self, role: str, raw: str) -> None:
        """A marker inside a body that is no framing: the tool-call grammar's, or text."""
        while True:
            mode = self._mode
            if mode == _CALL:
                if self._block_marker(role, raw):
                    return
                continue  # read the marker again: in the block after a checkpoint, else outside it
            if mode == _CM and role in self._tools.block_starts:  # type: ignore[union-attr]
                self._open_block(role, raw, None)
            elif self.RECOVER:
                self._wsb = False
                self._body_text(raw)
            else:
                self._body_text(raw)
            return

    # ------------------------------------------------------------------ messages
    def _new_header(self, foreign: bool) -> None:
        self._header = {}
        self._field = "role"
        self._foreign = foreign
        self._mode = _HEAD

    def _open(self, kind: str, name: str | None) -> None:
        """Open a body of ``kind`` (its header read)."""
        self._header = {}
        self._field = "role"
        self._foreign = False
        self._wsb = True
        self._unframed = False
        tools = self._tools
        if kind == TO_CALL and tools is None:
            kind = TO_CONTENT
        if kind == TO_REASONING and self._reasoning is None:
            kind = TO_CONTENT
        if kind == TO_REASONING:
            self._channel_r().open(True, self.SEP)
            self._mode = _R
        elif kind == TO_CONTENT:
            self._content.open(True, self.SEP)
            self._mode = _C
        elif kind == TO_CALL:
            assert tools is not None
            self._content.open(True, self.SEP)
            if tools.block_starts:
                self._mode = self._after = _CM
            else:
                self._after = _C
                # The body is a call by its header (a marker), not found at an anchor: a grammar
                # that tells the two apart reads it as marked (Inkling's name-only JSON call).
                self._open_block(TO_CALL, "", name)
        else:
            self._mode = _DROP

    def _open_unframed(self) -> None:
        """The tentative header was text: a message without a header, read as content (in which,
        with tool parsing on, tool-call blocks may open)."""
        text = "".join(self._tent)
        self._tent = []
        self._tphase = 0
        self._tword = ""
        tools = self._tools
        self._content.open(False, self.SEP)
        self._mode = self._after = _CM if tools is not None and tools.block_starts else _C
        self._wsb = True
        self._unframed = True
        self._text(text)

    def _close_body(self, role: str = "", raw: str = "") -> None:
        """End the open body (``role``/``raw``: the end marker that ends it, if any)."""
        self._release()
        if self._mode == _CALL:
            self._settle(role, raw)
        mode = self._mode
        if mode == _R:
            self._channel_r().close()
        elif mode in (_C, _CM):
            self._content.close()
        self._mode = _TENT
        self._unframed = False

    # ------------------------------------------------------------------ tool-call blocks
    def _open_block(self, role: str | None, raw: str, name: str | None) -> None:
        self._mode = _CALL
        if self.NAMED:
            self._begin_block(role, raw, name=name or "")
        else:
            self._begin_block(role, raw)

    def _settle(self, role: str, raw: str) -> None:
        """The message (or the output) ends inside a block: the grammar decides what it holds."""
        body = self._body
        assert body is not None
        if role and self.OFFER_END and body.marker(role, raw):
            if body.checkpoint:
                body.checkpoint = False
                self._checkpoint(raw)
            else:
                self._raw.append(raw)  # type: ignore[union-attr]
        if body.status == OPEN:
            body.finish()
            if body.status == OPEN:
                body.status = FAILED
        self._close_block()

    def _close_block(self) -> None:
        self._mode = self._after
        if self._end_block():
            self._content.lead = True

    # ------------------------------------------------------------------ end
    def _end(self) -> None:
        mode = self._mode
        if mode == _TENT and self._tphase:
            self._open_unframed()
            mode = self._mode
        if mode not in (_TENT, _HEAD):
            self._release()
            if self._mode == _CALL:
                self._settle("", "")
            if not self._unframed:  # an unframed message keeps its trailing whitespace
                self._close_body()
        if self._reasoning is not None:
            self._reasoning.close()
        self._content.flush()
