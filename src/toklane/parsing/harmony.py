"""gpt-oss's Harmony format: a message machine, for token output and for text without the tokens.

An assistant turn is a sequence of messages::

    <|channel|>analysis<|message|>...<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"a":1}<|call|>
    <|start|>assistant<|channel|>final<|message|>...<|return|>

(the prompt ends with ``<|start|>assistant``, so the first message has no
``<|start|>``, and its header may go on with `` to=RECIPIENT`` before
``<|channel|>``). The header -- role, channel, ``to=RECIPIENT`` (after the
role or after the channel), content type -- is read when ``<|message|>``
arrives; the body runs to ``<|end|>``, ``<|call|>`` or ``<|return|>`` (or the
next header).

Routing: ``analysis`` is reasoning; ``final``, ``commentary`` without a
recipient and a message with no channel are content; a message to
``functions.NAME`` is a call of NAME whose body is its JSON arguments; a
message to another recipient (a built-in tool: ``browser.search``,
``python``) is a call named as written, its arguments the body when that is
a JSON object, else the body as ``{"code": ...}`` (``python`` or content type
``code``) or ``{"input": ...}``. Messages on unknown channels are dropped.
With reasoning parsing off, analysis is content; with tool parsing off,
messages to recipients follow their channel. Messages of the same channel are
joined with a blank line. Header tokens are never content: ``<|message|>`` or
``<|constrain|>`` inside a body is dropped, ``<|message|>`` after an end marker
opens a message with no header. Text after an end marker that reads as a
header (``assistant``, a channel name, ``to=...``: a ``<|start|>`` the model
skipped) is one, when a header token follows; such words alone are dropped.

**Text form.** A server that decodes with ``skip_special_tokens`` hands over
the output without its Harmony tokens: ``analysisThe user asks...assistantfinalIt
is sunny.``, ``commentary to=functions.get_weather json{...}``. An output that
starts with ``analysis``, ``commentary``, ``final`` (not followed by a lowercase
letter) or ``assistant`` + a channel name is read in that form: a message
ends where ``assistant`` + a channel name follows (or, for a call, where its
JSON arguments end); its header is the channel, an optional
`` to=RECIPIENT`` and an optional `` json``/`` code``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from .block import NON_WS, WS, first_non_ws
from .bodies import JsonArgs
from .jsonscan import DONE, ERROR, value_end
from .machine import StreamParser
from .tables import Marker
from .types import Delta, ParseResult, ToolCall

# Modes. _PENDING: text that may still be header text (at the start, or after an end marker).
_PENDING, _HEADER, _BODY_R, _BODY_C, _BODY_CALL, _BODY_WRAP, _BODY_DROP, _IDLE, _TEXT_HEAD = range(10, 19)
_SEP = "\n\n"
_ENDS = frozenset(("end", "call", "return"))
_CHANNELS = ("analysis", "commentary", "final")
_HEADER_WORDS = frozenset(("assistant", *_CHANNELS, "json", "code"))
_NOT_RECIPIENTS = frozenset(("assistant", "user", "system", "developer"))
_MAX_HEADER = 256  # header text longer than this is no header
# Text form: what an output in it starts with, and a message header.
_OPENERS = ("analysis", "commentary", "assistantanalysis", "assistantcommentary", "assistantfinal")
_FINAL = "final"  # also opens the text form, unless a lowercase letter follows ("finally")
_TEXT_HEAD_RE = re.compile(r"(?:assistant)?(analysis|commentary|final)(?: to=([\w.\-:/]+)(?: ?(json|code))?)?")
_BOUNDARY = "assistant"


def _header_words(t: str, first_to: bool) -> bool:
    """Whether ``t`` (stripped, non-empty) may be header text: short, one line, every word a header
    word (the last may be unfinished). ``first_to``: the first word must be ``to=...`` (the first
    message, where the prompt already holds the role)."""
    if len(t) > _MAX_HEADER or "\n" in t:
        return False
    words = t.split()
    last = len(words) - 1
    for k, w in enumerate(words):
        if w.startswith("to=") and len(w) > 3:
            continue
        if first_to and k == 0:
            if k == last and "to=".startswith(w):
                continue
            return False
        if w in _HEADER_WORDS:
            continue
        if k == last and (any(h.startswith(w) for h in _HEADER_WORDS) or "to=".startswith(w)):
            continue
        return False
    return True


def _find_boundary(s: str, i: int) -> tuple[int, int]:
    """Text form: ``(k, hold)`` -- where the next message header (``assistant`` + a channel name)
    starts in ``s[i:]`` (-1: none), and from where text must be held because it may still grow into one."""
    j = i
    n = len(s)
    while True:
        k = s.find(_BOUNDARY, j)
        if k < 0:
            for m in range(min(len(_BOUNDARY) - 1, n - i), 0, -1):
                if s.endswith(_BOUNDARY[:m]):
                    return -1, n - m
            return -1, n
        rest = s[k + len(_BOUNDARY) : k + len(_BOUNDARY) + 10]
        for c in _CHANNELS:
            if rest.startswith(c):
                return k, k
        if k + len(_BOUNDARY) + len(rest) == n and any(c.startswith(rest) for c in _CHANNELS):
            return -1, k
        j = k + 1


def _may_grow(m: re.Match[str] | None, rest: str) -> bool:
    """Text form: whether a header read so far (``m``, ``rest`` the text after it) may still grow."""
    if m is None:
        return any(o.startswith(rest) for o in _OPENERS)
    if not rest:
        return True
    if m.group(2) is None:
        return " to=".startswith(rest)
    return m.group(3) is None and (" json".startswith(rest) or " code".startswith(rest))


#: Harmony's message tokens: the markers of every format this machine reads.
MARKERS = (
    Marker("start", "<|start|>"),
    Marker("channel", "<|channel|>"),
    Marker("message", "<|message|>"),
    Marker("constrain", "<|constrain|>"),
    Marker("end", "<|end|>"),
    Marker("call", "<|call|>"),
    Marker("return", "<|return|>"),
)


class HarmonyParser(StreamParser):
    """Reasoning, content and tool calls from gpt-oss Harmony messages (the ``machine=`` of the
    ``gpt_oss`` formats)."""

    MARKERS: ClassVar[tuple[Marker, ...]] = MARKERS

    _field = "role"  # the header field text goes to
    _args: JsonArgs | None = None  # the arguments of the call being read
    _wrap_key = ""  # a built-in tool's call: the key its non-JSON body goes under
    _pend = ""  # text held while it may be header text
    _initial = True  # nothing but pending text was read yet
    _textmode = False  # the output is in the text form (no Harmony tokens)
    _tbuf = ""  # text form: text held back (a header, or what may start one)
    _header: Mapping[str, list[str]] = MappingProxyType({})  # each header is a new dict (none to make per parser)

    def _setup(self, *args: Any, **kwargs: Any) -> None:
        super()._setup(*args, **kwargs)
        # The prompt usually ends inside the assistant's header; a body with no header is analysis
        # (reasoning) unless thinking=False.
        self._implicit = _BODY_R if self._mode == 1 else _BODY_C  # 1: the machine's REASONING mode
        self._mode = _PENDING

    # ------------------------------------------------------------------ whole outputs
    def _whole_plain(self, text: str, hits: list[tuple[int, int, int]]) -> ParseResult | None:
        """A whole output of well-formed messages in the token form, read without the machine (None:
        the machine reads it): each ``[<|start|>assistant]<|channel|>CHANNEL[ to=functions.NAME]
        [<|constrain|>json]<|message|>BODY`` and an end marker (the last message may run to the end
        of the output), only whitespace between messages. Routed as the machine routes them: a call's
        body one JSON object (its arguments), analysis reasoning (content without a reasoning
        format), final and commentary content, each channel's bodies stripped and joined with a
        blank line. The result is exactly the machine's (tests compare)."""
        if self._label or self._unknown or type(self) is not HarmonyParser or not hits:
            return None
        roles, names = self._tables.text_roles, self._tables.roles
        reasoning: list[str] | None = [] if self._reasoning_fmt is not None else None
        content: list[str] = []
        calls: list[ToolCall] = []
        role = [names[roles[k]] if roles[k] >= 0 else "" for k, _, _ in hits]  # ("": a dropped token)
        n, j, pos = len(hits), 0, 0
        while j < n:
            # (a header: [start "assistant"] channel WORDS [constrain "json"] message)
            _, start, end = hits[j]
            if text[pos:start].strip(WS):
                return None
            if role[j] == "start":
                j += 1
                if j == n or text[end : hits[j][1]] != "assistant":
                    return None
                _, start, end = hits[j]
            if role[j] != "channel" or j + 1 >= n:
                return None
            _, start, after = hits[j + 1]
            words = text[end:start].split()
            if role[j + 1] == "constrain":
                if j + 2 >= n or text[after : hits[j + 2][1]].split() != ["json"]:
                    return None
                j += 1
                _, start, after = hits[j + 1]
            if role[j + 1] != "message" or not words or words[0] not in _CHANNELS or len(words) > 2:
                return None
            # (the body: to an end marker, or to the end of the output)
            j += 2
            body_end = hits[j][1] if j < n else len(text)
            if j < n:
                if role[j] not in _ENDS:
                    return None
                pos = hits[j][2]
                j += 1
            else:
                pos = body_end
            if len(words) == 2:  # a call: its arguments one JSON object
                recipient = words[1]
                if self._tools is None or not recipient.startswith("to=functions.") or len(recipient) == 13:
                    return None
                m = NON_WS.search(text, after, body_end)
                i = m.start() if m is not None else body_end
                if i == body_end or text[i] != "{":
                    return None
                args_end = value_end(text, i)
                if args_end < 0 or args_end > body_end or text[args_end:body_end].strip(WS):
                    return None
                calls.append(ToolCall(self._new_id(), recipient[13:], text[i:args_end]))
                continue
            body = text[after:body_end].strip(WS)
            if body:
                (reasoning if words[0] == "analysis" and reasoning is not None else content).append(body)
        if text[pos:].strip(WS):  # (after the last message: whitespace only)
            return None
        # (every body kept is non-empty, so a join is empty only where nothing was kept)
        return ParseResult(_SEP.join(reasoning) if reasoning else None, _SEP.join(content) or None, calls)

    # ------------------------------------------------------------------ events
    _fused = True

    def _step(self, s: str) -> Delta:
        """``_text(s)`` then ``_take()`` for feed's one-token step, fused for the per-token cases (a
        message body's text, a call's plain string text): a step starts with nothing pending (every
        feed ends by taking it all), so only what this text adds is looked at."""
        mode = self._mode
        if mode == _BODY_R:
            channel = self._reasoning  # (_BODY_R only with a reasoning format)
        elif mode == _BODY_C:
            channel = self._content
        else:
            channel = None
        if channel is not None:
            channel.put(s)
            out = channel.out
            if not out:
                return Delta("", "", [])
            channel.out = ()
            text = out[0] if len(out) == 1 else "".join(out)
            return Delta(text, "", []) if mode == _BODY_R else Delta("", text, [])
        if mode == _BODY_CALL:
            args = self._args
            if args is not None and args.started and args.scanner.plain(s):  # string text
                self._raw.append(s)  # type: ignore[union-attr]
                self.call_args(s)
                if not self._tool_out:
                    return Delta("", "", [])
                return self._take()
        self._text(s)
        return self._take()

    def _text(self, s: str) -> None:
        # (An output in the text form is read by _TextForm, whose _text is _text_form.)
        mode = self._mode
        if mode == _BODY_R:  # the common cases first: they are per token
            self._reasoning.put(s)  # type: ignore[union-attr]  # _BODY_R only with a reasoning format
        elif mode == _BODY_C:
            self._content.put(s)
        elif mode == _BODY_CALL:
            args = self._args
            if args is not None and args.started and args.scanner.plain(s):  # string text
                self._raw.append(s)  # type: ignore[union-attr]
                self.call_args(s)
            else:
                self._call_text(s)
        elif mode == _HEADER:
            self._header.setdefault(self._field, []).append(s)
        elif mode in (_PENDING, _IDLE):
            self._pending(s)
        else:
            self._body_text(s)

    def _body_text(self, s: str) -> None:
        mode = self._mode
        if mode == _BODY_R:
            self._channel_r().put(s)
        elif mode == _BODY_C:
            self._content.put(s)
        elif mode == _BODY_CALL:
            args = self._args
            if args is not None and args.started and args.scanner.plain(s):  # the common case: string text
                self._raw.append(s)  # type: ignore[union-attr]
                self.call_args(s)
            else:
                self._call_text(s)
        elif mode == _BODY_WRAP:
            self._raw.append(s)  # type: ignore[union-attr]
        # _BODY_DROP: a message on an unknown channel

    def _marker(self, k: int) -> None:
        role = self._tables.roles[k]
        if self._textmode:
            self._leave_text_form(role)
        mode = self._mode
        if mode in (_PENDING, _IDLE):
            if role in ("channel", "constrain", "message") and self._pend.strip(WS):
                self._header = {"role": [self._pend]}  # the header's start, without <|start|>
                self._pend = ""
                self._mode = mode = _HEADER
            elif self._pend:
                self._settle_pending()
                mode = self._mode
        self._initial = False
        if role in _ENDS:
            if mode != _HEADER and mode != _IDLE and mode != _PENDING:
                self._close_body()
            self._mode = _IDLE
            return
        if role == "start" or role == "channel":
            if mode != _HEADER or role == "start" or "channel" in self._header:
                if mode != _HEADER and mode != _IDLE and mode != _PENDING:
                    self._close_body()  # a new header without an end marker ends the message
                self._header = {}
            self._field = role if role == "channel" else "role"
            self._header.setdefault(self._field, [])
            self._mode = _HEADER
            return
        if role == "constrain":
            if mode == _HEADER:
                self._field = "constrain"
            elif mode in (_IDLE, _PENDING):
                self._header = {}
                self._field = "constrain"
                self._mode = _HEADER
            return  # inside a body: dropped
        if role == "message":
            if mode == _HEADER or mode in (_IDLE, _PENDING):
                self._start_message()  # after an end marker: a message with no header
            return  # inside a body: dropped

    # ------------------------------------------------------------------ text that may be a header
    def _pending(self, s: str) -> None:
        buf = self._pend + s
        t = buf.strip(WS)
        if not t:
            if len(buf) > _MAX_HEADER:  # a long run of whitespace: not worth holding (bounded work per chunk)
                self._pend = ""
                self._release(buf)
            else:
                self._pend = buf
            return
        if self._initial:
            if any(o.startswith(t) and o != t for o in _OPENERS) or _FINAL.startswith(t) or _header_words(t, True):
                self._pend = buf
                return
        elif _header_words(t, False):
            self._pend = buf
            return
        self._pend = ""
        self._release(buf)

    def _release(self, buf: str) -> None:
        """Pending text that is no header: the first message's body (or the text form), else a
        message with no header."""
        if self._initial:
            self._initial = False
            t = buf.lstrip(WS)
            if t.startswith(_OPENERS) or (t.startswith(_FINAL) and not t[len(_FINAL) : len(_FINAL) + 1].islower()):
                self._textmode = True
                self.__class__ = _TextForm  # text goes to the text form from now
                self._mode = _TEXT_HEAD
                self._text_form(t)
                return
            self._mode = self._implicit
            self._body_text(buf)
            return
        if not buf.strip(WS):
            return
        self._open_body("", None)
        self._body_text(buf)

    def _settle_pending(self) -> None:
        """End of output while text is pending: header words alone are dropped; other text is a body."""
        pend, self._pend = self._pend, ""
        t = pend.strip(WS)
        if not t:
            return
        if self._initial:
            if _header_words(t, True) or t in _OPENERS or t == _FINAL:
                return
        elif _header_words(t, False):
            return
        self._release(pend)

    # ------------------------------------------------------------------ messages
    def _start_message(self) -> None:
        header = {k: "".join(v) for k, v in self._header.items()}
        self._header = {}
        words = " ".join(header.values()).split()
        recipient = next((w[3:] for w in words if w.startswith("to=")), None)
        channel_words = header.get("channel", "").split()
        # no <|channel|>: a channel name written in the header text
        channel = channel_words[0] if channel_words else next((w for w in words if w in _CHANNELS), "")
        code = "code" in words or "code" in header.get("constrain", "").split()
        self._open_body(channel, recipient, code)

    def _open_body(self, channel: str, recipient: str | None, code: bool = False) -> None:
        if recipient and self._tools is not None and recipient not in _NOT_RECIPIENTS:
            builtin = not recipient.startswith("functions.")
            name = recipient if builtin else recipient[len("functions.") :]
            if name:
                self.call_open()
                self.call_name(name)
                self._args = JsonArgs(self)
                self._wrap_key = ("code" if code or name == "python" else "input") if builtin else ""
                self._raw = []
                self._mode = _BODY_CALL
                return
        if channel == "analysis" and self._reasoning_fmt is not None and not (recipient and self._tools is None):
            self._channel_r().open(True, _SEP)
            self._mode = _BODY_R
        elif channel in _CHANNELS or not channel:
            self._content.open(True, _SEP)
            self._mode = _BODY_C
        else:
            self._mode = _BODY_DROP

    def _close_body(self) -> None:
        mode = self._mode
        if mode == _BODY_R:
            self._channel_r().close()
        elif mode == _BODY_C:
            self._content.close()
        elif mode == _BODY_WRAP:
            self.call_args(json.dumps({self._wrap_key: "".join(self._raw)}, ensure_ascii=False))
            self._call_done()
        elif mode == _BODY_CALL:
            args = self._args
            self._args = None
            if args is not None and args.scanner.state == DONE:
                self._call_done()
            else:  # not a complete JSON object: the body is content
                self.call_fail()
                self._content.open(True, _SEP)
                raw = "".join(self._raw)
                if raw:
                    self._content.put(raw)
                self._content.close()
            self._raw = []
        self._mode = _IDLE

    def _call_done(self) -> None:
        self.call_done()
        if self._rejected:  # a tool tools_schema does not list (unknown_tools="drop"/"content")
            self._content.open(True, _SEP)
            self._checkpoint()
            self._content.close()
        self._raw = []

    def _call_text(self, s: str) -> None:
        args = self._args
        if args is not None and not args.started and self._wrap_key:
            k = first_non_ws(s, 0)
            if k < len(s) and s[k] != "{":  # a built-in tool's body that is no JSON object: passed as text
                self._args = None
                self._mode = _BODY_WRAP
                self._raw.append(s)  # type: ignore[union-attr]
                return
        self._raw.append(s)  # type: ignore[union-attr]
        if args is None:
            return
        state = args.scanner.state
        if state == DONE:
            if s.strip(WS):  # text after the arguments: the call is broken
                self._args = None
            return
        j = args.text(s, 0)
        state = args.scanner.state
        if state == ERROR or (state == DONE and j < len(s) and s[j:].strip(WS)):
            self._args = None

    # ------------------------------------------------------------------ the text form
    def _text_form(self, s: str, final: bool = False) -> None:
        buf = self._tbuf + s if self._tbuf else s
        self._tbuf = ""
        i = 0
        n = len(buf)
        while i < n:
            mode = self._mode
            if mode == _TEXT_HEAD:
                i = first_non_ws(buf, i)
                if i == n:
                    return
                j = self._text_header(buf, i, final)
                if j < 0:
                    self._tbuf = buf[i:]
                    return
                i = j
            elif mode == _BODY_CALL and self._args is not None:
                args = self._args
                if not args.started and self._wrap_key:
                    k = first_non_ws(buf, i)
                    if k == n:
                        self._raw.append(buf[i:])  # type: ignore[union-attr]
                        return
                    if buf[k] != "{":
                        self._args = None
                        self._mode = _BODY_WRAP
                        continue
                j = args.text(buf, i)
                self._raw.append(buf[i:j])  # type: ignore[union-attr]
                i = j
                state = args.scanner.state
                if state == DONE:  # the arguments end the message
                    self._close_body()
                    self._mode = _TEXT_HEAD
                elif state == ERROR:
                    self._args = None
            else:  # a body: up to the next header
                k, hold = _find_boundary(buf, i)
                if final:
                    hold = n
                end = k if k >= 0 else hold
                if end > i:
                    self._body_text(buf[i:end])
                if k < 0:
                    if hold < n:
                        self._tbuf = buf[hold:]
                    return
                self._close_body()
                self._mode = _TEXT_HEAD
                i = k

    def _text_header(self, s: str, i: int, final: bool) -> int:
        """Text form: read a message header at ``s[i]``; return where its body starts, or -1 while
        it may still grow. Text that is no header is a message with no header."""
        m = _TEXT_HEAD_RE.match(s, i)
        # (what follows is sliced only near the end of the text: a slice per header of a long
        # text would copy the rest of it each time, quadratic in the number of messages)
        if not final and len(s) - i < _MAX_HEADER and _may_grow(m, s[m.end() :] if m is not None else s[i:]):
            return -1
        if m is None:
            self._open_body("", None)
            return i
        channel, recipient, ctype = m.groups()
        self._open_body(channel, recipient, ctype == "code")
        return m.end()

    def _leave_text_form(self, role: str) -> None:
        """A Harmony token arrived in text-form output: what was held ends here, the tokens rule from now."""
        held, self._tbuf = self._tbuf, ""
        self._textmode = False
        self.__class__ = HarmonyParser
        if self._mode == _TEXT_HEAD:
            self._mode = _IDLE
            if held.strip(WS):
                self._pend = held
            return
        if held:
            self._body_text(held)
        if role not in _ENDS and self._mode != _IDLE:
            self._close_body()

    def _end(self) -> None:
        if self._textmode:
            self._text_form("", final=True)
        mode = self._mode
        if mode in (_PENDING, _IDLE):
            self._settle_pending()
            mode = self._mode
        if mode != _HEADER and mode != _IDLE and mode != _PENDING and mode != _TEXT_HEAD:
            self._close_body()
        self._mode = _IDLE
        self._content.flush()


class _TextForm(HarmonyParser):
    """A Harmony parser reading the text form: every piece of text goes to :meth:`_text_form`
    (a parser switches to this class when its output turns out to be in that form)."""

    _fused = False  # every piece of text goes to _text_form

    def _text(self, s: str) -> None:
        self._text_form(s)
