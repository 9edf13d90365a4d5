"""The machine: two output channels, a tool-call sink, and the machines that read the lexer's text
and markers (:mod:`.lexer`) into reasoning, content and tool calls.

**Channels.** Reasoning and content are two channels with one whitespace rule:
whitespace that only separates text from a reasoning block or a tool call is
dropped (a channel's leading whitespace after such a structure while the
channel is still empty, and its trailing whitespace before one); text is
otherwise passed through unchanged.

**Tool calls.** Bodies (:mod:`toklane.parsing.bodies`) report a call's name,
argument fragments, completion or failure. By default a call is sent only once
it is complete and valid -- so a stream never contains a call that the
non-streaming result would not -- as one :class:`ToolCallDelta` carrying id,
name and arguments. With ``stream_arguments=True`` the header is sent as soon
as the name is known and every argument fragment as soon as it is validated
(see docs/formats.md for what that means when a call then breaks) -- except in
a block opened by the anchor of a format with ``hold_anchored`` (pythonic's
``[``, which may be prose), whose calls are still sent once complete.

**Machines.** :class:`ThinkToolsParser` handles ``start``/``end`` reasoning
markers plus tool-call blocks; a format may name another (``machine=``:
:class:`toklane.parsing.harmony.HarmonyParser` for gpt-oss's Harmony messages,
:mod:`toklane.parsing.messages` for message-framed families). All are
per-request objects.

**Whole outputs.** :meth:`StreamParser.parse_whole` finds every marker of the
output in one compiled scan and, for outputs of a common shape, reads them
without the machine (:meth:`StreamParser._whole_plain`; tool-call blocks through
the body grammar's ``read_whole``), else hands the spans between markers to the
machine whole.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import gather
from .block import FAILED, NON_WS, OPEN, WS, Body
from .lexer import Lexer, _flat_array, _id_sequence
from .schema import ToolsSchema, validate_tools_schema
from .types import Delta, ParseResult, ToolCall, ToolCallDelta

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer
    from .spec import ReasoningFormat, ToolFormat
    from .tables import Tables

_ALNUM = string.ascii_letters + string.digits

_WS_BYTES = WS.encode()

# Machine modes.
CONTENT, REASONING, BLOCK = 0, 1, 2


class Channel:
    """One output channel (reasoning or content) with the whitespace rule.

    Fields that rarely change are class-level defaults, so a channel costs one
    list to make (parsers are made per request; construction is on the hot path).
    """

    nonempty = False  # some non-whitespace text was emitted
    lead = False  # drop leading whitespace of what comes next
    sep = ""  # separator emitted before the next text (Harmony messages)
    held: list[str] | tuple[()] = ()  # trailing whitespace, emitted only if more text follows
    stash: list[str] | tuple[()] = ()  # held whitespace set aside while a tool-call block is undecided
    out: list[str] | tuple[()] = ()  # text emitted since the last delta (a list once there is some)

    def put(self, s: str) -> None:
        if self.lead:
            s = s.lstrip(WS)
            if not s:
                return
            self.lead = False
        t = s.rstrip(WS)
        if not t:
            if self.held:
                self.held.append(s)  # type: ignore[union-attr]
            else:
                self.held = [s]
            return
        out = self.out
        if not out:
            out = self.out = []
        if self.sep:
            out.append(self.sep)
            self.sep = ""
        if self.held:
            out.extend(self.held)
            self.held = ()
        out.append(t)
        self.nonempty = True
        if len(t) != len(s):
            self.held = [s[len(t) :]]

    def open(self, strip_lead: bool, sep: str = "") -> None:
        """A new segment starts after a structure."""
        self.lead = strip_lead
        self.sep = sep if self.nonempty else ""

    def close(self) -> None:
        """The segment ends at a structure: trailing whitespace is dropped."""
        self.held = ()
        self.sep = ""
        self.lead = False

    def suspend(self) -> None:
        """A tool-call block starts: set held whitespace aside until the block is decided."""
        self.stash = self.held
        self.held = ()

    def restore(self) -> None:
        """The block became text: its preceding whitespace is text again."""
        if self.stash:
            self.held = [*self.stash, *self.held]
            self.stash = ()

    def flush(self) -> None:
        """End of output: held trailing whitespace is kept."""
        if self.held:
            self.out = [*self.out, *self.held]
            self.held = ()


class _OnFirstUse:
    """A parser attribute made on first access and kept in the instance from then on: a parser is
    made per request, and many never need what this makes (a whole output read by the fast path
    touches no channel)."""

    __slots__ = ("make", "name")

    def __init__(self, make: Callable[[Any], Any]):
        self.make = make

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, parser: Any, owner: type | None = None) -> Any:
        if parser is None:
            return self
        value = parser.__dict__[self.name] = self.make(parser)
        return value


def _new_content(parser: StreamParser) -> Channel:
    channel = Channel()
    if parser._prefill:
        channel.put(parser._prefill)
    return channel


def _new_reasoning(parser: StreamParser) -> Channel | None:
    lead = parser._reasoning_lead
    if lead is None:
        return None
    channel = Channel()
    if lead:
        channel.lead = True
    return channel


class _Call:
    __slots__ = ("id", "index", "name", "parts", "unknown")

    def __init__(self) -> None:
        self.name = ""
        self.id: str | None = None
        self.index = -1  # assigned when the call is sent
        self.parts: list[str] = []
        self.unknown = False  # a tool tools_schema does not list, under unknown_tools="drop"/"content"


#: What ``unknown_tools=`` accepts: a call to a tool that ``tools_schema`` does not list is kept (the
#: default, as vLLM does), dropped (as SGLang does by default), or its text is content.
UNKNOWN_TOOLS = ("keep", "drop", "content")


class StreamParser(Lexer):
    """Turns a model's output, fed in pieces, into reasoning, content and tool calls.

    Get one from :func:`toklane.get_parser`; one per request (and per choice).
    :meth:`feed` takes the next piece -- ``text``, ``token_ids`` or both (the
    ids decide) -- and returns what became certain; :meth:`finish` ends the
    output. The concatenation of every delta equals :func:`toklane.parse` of
    the whole output, for any chunking. Bad model output never raises.
    """

    # Per-stream state that starts the same in every parser lives here as class-level
    # defaults: construction only sets what differs (it is on the per-request path).
    _fused = False  # the machine defines _step(text) -> Delta: _text + _take fused for that path
    _call: _Call | None = None  # the call being read
    _ncalls = 0  # calls sent so far (the next call's index)
    _block_calls = 0  # calls completed in the current block
    _body: Body | None = None  # the current block's reader
    _raw: list[str] | tuple[()] = ()  # raw text of the current block since its last complete call
    _schema_index: dict[str, dict[str, Any]] | None = None
    # The channels are made on first use (construction is per request); `_prefill` is content the
    # output starts with (an append-think format's pre-filled start marker); `_reasoning_lead`: None
    # if the format has no reasoning channel (`_reasoning` is None), else whether the channel drops
    # leading whitespace (the output starts inside reasoning).
    _content: Channel = _OnFirstUse(_new_content)  # type: ignore[assignment]
    _reasoning: Channel | None = _OnFirstUse(_new_reasoning)  # type: ignore[assignment]
    _prefill = ""
    _reasoning_lead: bool | None = None
    _label = ""  # a role label (Gemma 4's "thought") still to be dropped at the start of reasoning
    _lbuf = ""  # reasoning text held while it may still be that label
    _gap = ""  # whitespace read inside the last block after its last call (see _end_block)
    _prev = ""  # the last character of content text read since the last structure (anchors glued to it are text)
    _unknown = ""  # unknown_tools policy when it can apply ("drop"/"content" with a tools_schema), else ""
    _rejected = False  # the call that just completed is not sent (unknown tool): its raw text is routed
    _tool_out: list[list[Any]] | tuple[()] = ()  # [index, id, name, argument parts] per call piece since the last delta
    _schema: Any = None  # the request's tools_schema
    _stream_args = False
    _hold_calls = False  # stream_arguments, but the current block's calls are sent whole (ToolFormat.hold_anchored)
    _mode = CONTENT
    _split: Callable[..., ParseResult | None] | None = None  # the compiled cut of a whole output (_plain_split)

    # No __init__: a blank parser is ``cls()`` (the cheapest object Python makes), then either
    # :meth:`_setup` fills it (:meth:`build`) or get_parser copies a prototype's state into it. So
    # _setup sets immutable values only: mutable state starts as a class-level empty value (``()``,
    # a read-only mapping, a channel made on first use) and is replaced when it first changes.
    @classmethod
    def build(cls, *args: Any) -> StreamParser:
        """A parser for resolved formats and tables, from :meth:`_setup`'s arguments
        (:func:`toklane.get_parser` resolves the names)."""
        parser = cls()
        parser._setup(*args)
        return parser

    def _setup(
        self,
        tok: Tokenizer,
        tables: Tables,
        reasoning: ReasoningFormat | None,
        tools: ToolFormat | None,
        tools_schema: Any,
        thinking: bool | None,
        stream_arguments: bool,
        unknown_tools: str = "keep",
    ) -> None:
        """Fill a blank parser: the tokenizer, its tables for the format pair, the formats, the
        request's ``tools_schema`` (checked here), ``thinking``, ``stream_arguments``, ``unknown_tools``."""
        if tools_schema is not None:
            self._take_schema(tools_schema, unknown_tools)
        if stream_arguments:
            self._stream_args = True
        self._tok = tok
        self._tables = tables
        self._reasoning_fmt = reasoning
        self._tools = tools
        if reasoning is not None:
            inside = reasoning.implicit_start if thinking is None else thinking
            if reasoning.in_content:  # append-think: the pre-filled start marker goes back in front
                if inside and reasoning.markers.start:
                    self._prefill = reasoning.markers.start
            else:
                self._reasoning_lead = bool(inside)
                if inside:
                    self._mode = REASONING
                    self._label = reasoning.label
        split = self._plain_split()
        if split is not None:
            self._split = split

    def _plain_split(self) -> Callable[..., ParseResult | None] | None:
        """The compiled cut of whole outputs whose result :meth:`_whole_plain` knows without hits
        (set up once: it reads the starting state), or None: find the hits."""
        return None

    def _take_schema(self, tools_schema: Any, unknown_tools: str) -> None:
        """The request's ``tools_schema``: checked (malformed schemas fail here, not mid-stream),
        kept, and ``unknown_tools`` applied (it needs one). Nothing else a parser starts with depends
        on it, so :func:`toklane.get_parser` gives it to a copy of a prototype. A schema of plain values
        is kept as its :class:`~toklane.parsing.schema.ToolsSchema` (one per distinct value, its index
        built once), which no later change to the caller's lists reaches."""
        checked = validate_tools_schema(tools_schema)
        self._schema = tools_schema if checked is None else checked
        if unknown_tools != "keep":
            self._unknown = unknown_tools

    # ------------------------------------------------------------------ public
    def feed(self, text: str | None = None, token_ids: Any = None) -> Delta:
        """Parse the next piece of output; return what it made certain."""
        # The decode loop's step: one ordinary token whose bytes are whole characters and hold no
        # text marker's first byte, in a stream already reading ids with no text marker pending
        # (_bhold) -- its text read directly (_fast: such a stream, not finished, with no character
        # split across tokens pending). Each token is decoded once per format pair
        # (Tables.load_plain_texts), not once per step.
        if token_ids is not None and type(token_ids) is list and len(token_ids) == 1 and self._fast:
            t = token_ids[0]
            if type(t) is int and t >= 0:
                try:
                    text = self._texts[t]
                except IndexError:
                    text = False
                if text is None:
                    text = self._tables.learn_text(t)
                if text and not self._bhold:
                    if self._fused:
                        return self._step(text)  # type: ignore[arg-type]
                    self._text(text)  # type: ignore[arg-type]
                    return self._take()
        if self._done:
            raise RuntimeError("this parser has finished; use a new one per request")
        if token_ids is not None:
            self._feed_ids(token_ids)
        elif text is not None:
            self._feed_text(text)
        return self._take()

    def finish(self) -> Delta:
        """End of output: flush what was held back and settle an open block."""
        if not self._done:
            self.finish_silently()
        return self._take()

    @property
    def finished(self) -> bool:
        return self._done

    @property
    def in_reasoning(self) -> bool:
        """Whether the text read so far ends inside reasoning (what the next text would be)."""
        return self._mode == REASONING

    def parse_whole(self, text: str | None = None, token_ids: Any = None) -> ParseResult:
        """The whole output in one call (what :func:`toklane.parse` does): equal to folding
        ``feed`` + ``finish``, without the deltas. The parser is finished afterwards."""
        if self._done:
            raise RuntimeError("this parser has finished; use a new one per request")
        found = None
        if self._ids is None:  # (nothing fed yet)
            token_ids, found, plain = self._read_plain(text, token_ids)
            if plain is not None:
                self._done = True
                return plain
        return self._parse_scanned(text, token_ids, found)

    def parse_whole_fresh(self, state: dict[str, Any], text: str | None, token_ids: Any) -> ParseResult:
        """:meth:`parse_whole` by a parser whose state is a copy of ``state`` (a new parser's, as
        ``self`` is: nothing fed), made only where the machine must read the output. ``self`` is
        read, not changed: :func:`toklane.parse_batch` parses every output through its first
        parser."""
        if token_ids is None and type(text) is str:  # (:meth:`_read_plain` of a text, one call fewer)
            split = self._split
            if split is not None and (plain := split(text)) is not None:
                return plain
            hits = self._tables.text_automaton.find_all(text)
            if hits is None:
                found = None
            else:
                plain = self._whole_plain(text, hits)
                if plain is not None:
                    return plain
                found = text, hits
        else:
            token_ids, found, plain = self._read_plain(text, token_ids)
            if plain is not None:
                return plain
        parser = type(self)()
        parser.__dict__ = state.copy()
        return parser._parse_scanned(text, token_ids, found)

    def _read_plain(self, text: str | None, token_ids: Any) -> tuple[Any, Any, ParseResult | None]:
        """The first reading of a whole output: ``(ids, found, plain)`` -- ``token_ids`` as a
        sequence; ``found``, the output as text with every marker in it found by one compiled scan
        (``(text, hits)``), or None where the machine must read it as it comes (ids that must be read
        as ids, text that is no ``str``); and its result where :meth:`_whole_plain` reads it (else
        None). Reads the tables only."""
        if token_ids is not None:
            if type(token_ids) is not list and type(token_ids) is not tuple:
                token_ids = token_ids if _flat_array(token_ids) else _id_sequence(token_ids)
            if self._tools is None:
                plain = self._ids_cut(token_ids) if self._split is not None and len(token_ids) <= _CUT_IDS else None
                if plain is None:
                    plain = self._ids_reasoning_only(token_ids)
                if plain is not None:
                    return token_ids, None, plain
            text, hits = self._ids_as_text(token_ids)
        elif type(text) is str:
            split = self._split
            if split is not None and (plain := split(text)) is not None:
                return token_ids, None, plain
            hits = self._tables.text_automaton.find_all(text)
        else:
            return token_ids, None, None
        if hits is None:
            return token_ids, None, None
        return token_ids, (text, hits), self._whole_plain(text, hits)  # type: ignore[arg-type]

    def _ids_reasoning_only(self, token_ids: Any) -> ParseResult | None:
        """A whole output's ids read as runs where the machine knows their result without reading
        them (:meth:`ThinkToolsParser._ids_reasoning_only`); None: read them."""
        return None

    def _ids_cut(self, token_ids: Any) -> ParseResult | None:
        """A whole output's ids as one text (:func:`.gather.text`) cut by :attr:`_split`, where the
        markers it finds are exactly the marker ids, each where it was put (ordinary tokens that
        spell a marker are text from ids): what the ids read as. None: read them another way."""
        tables = self._tables
        got = gather.text(token_ids, tables.id_table or tables.load_id_table(self._tok))
        if got is None:
            return None
        text, positions, starts = got
        id_roles = tables.id_roles  # (a marker id's role is its pattern in the text automaton)
        return self._split(text, starts, [id_roles[token_ids[p]] for p in positions])  # type: ignore[misc]

    def _parse_scanned(
        self, text: str | None, token_ids: Any, found: tuple[str, list[tuple[int, int, int]]] | None
    ) -> ParseResult:
        """The machine's reading of a whole output: its hits where :meth:`_read_plain` found them (the
        spans between handed over whole: no matcher, nothing held), else the ids or the text fed."""
        if found is not None:
            text, hits = found
            self._ids = False
            pos = self._read_hits(text, hits)
            if pos < len(text):
                self._text(text[pos:] if pos else text)
        elif token_ids is not None:
            self._feed_ids(token_ids)
        elif text is not None:
            self._feed_text(text, True)
        self.finish_silently()
        return self._result()

    def _whole_plain(self, text: str, hits: list[tuple[int, int, int]]) -> ParseResult | None:
        """A whole output (its markers found: ``hits``) whose result the machine knows without reading
        it, as :meth:`ThinkToolsParser._whole_plain` does; None: the machine reads it."""
        return None

    def finish_silently(self) -> None:
        """:meth:`finish`, leaving what it produces in the buffers (for :meth:`_result`)."""
        self._done = True
        self._fast = False
        if self._ids:
            self._flush_bytes()
        elif self._hold:
            hold, self._hold = self._hold, ""
            self._text(hold)
        self._end()

    def _result(self) -> ParseResult:
        """Everything produced since the start, as one result (no delta was taken)."""
        channel = self._reasoning
        reasoning = "".join(channel.out) if channel is not None else ""
        calls: dict[int, list[Any]] = {}
        for index, call_id, name, parts in self._tool_out:
            slot = calls.get(index)
            if slot is None:
                calls[index] = [call_id, name, parts]
            else:  # fragments sent after the call's header (stream_arguments)
                slot[2] = [*slot[2], *parts]
        return ParseResult(
            reasoning or None,
            "".join(self._content.out) or None,
            [ToolCall(c[0] or "", c[1] or "", "".join(c[2])) for _, c in sorted(calls.items())],
        )

    # ------------------------------------------------------------------ output
    def _take(self) -> Delta:
        """The delta of what was produced since the last one (and reset the buffers)."""
        reasoning = content = ""
        channel = self._reasoning
        if channel is not None and channel.out:
            out = channel.out
            reasoning = out[0] if len(out) == 1 else "".join(out)
            channel.out = ()
        out = self._content.out
        if out:
            content = out[0] if len(out) == 1 else "".join(out)
            self._content.out = ()
        t = self._tool_out
        if not t:
            return Delta(reasoning, content, [])
        self._tool_out = ()
        return Delta(reasoning, content, [ToolCallDelta(e[0], e[1], e[2], "".join(e[3])) for e in t])

    def _new_id(self) -> str:
        if self._tools is not None and self._tools.id_style == "mistral":
            return "".join([_ALNUM[b % 62] for b in secrets.token_bytes(9)])
        return "call_" + secrets.token_hex(12)

    # ------------------------------------------------------------------ call sink (used by bodies)
    def call_open(self) -> None:
        self._call = _Call()
        self._content.held = ()  # whitespace before a call is layout

    def call_name(self, name: str, call_id: str | None = None) -> None:
        call = self._call
        assert call is not None
        call.name = name
        call.id = call_id
        if self._unknown and name not in self._tool_names():
            call.unknown = True
        elif self._stream_args and not self._hold_calls:
            self._commit(call)

    def call_args(self, fragment: str) -> None:
        call = self._call
        if call is None or not fragment:
            return
        if call.index < 0:
            call.parts.append(fragment)
            return
        out = self._tool_out
        if out and out[-1][0] == call.index:
            out[-1][3].append(fragment)
        elif out:
            out.append([call.index, None, None, [fragment]])  # type: ignore[union-attr]
        else:
            self._tool_out = [[call.index, None, None, [fragment]]]

    def call_done(self) -> None:
        call = self._call
        assert call is not None
        self._call = None
        self._block_calls += 1
        if call.unknown:
            self._rejected = True
            if self._unknown == "content":  # its text will be content: the whitespace before it is text
                return
        elif call.index < 0:
            self._commit(call)
        self._content.stash = ()
        self._content.lead = True  # and so is whitespace after one

    def call_fail(self) -> None:
        self._call = None

    def _checkpoint(self, tail: str = "") -> None:
        """A call completed: the raw text since the last one (plus ``tail``) was its own. A call
        that was not sent (an unknown tool) leaves that text as content under ``unknown_tools="content"``."""
        if self._rejected:
            self._rejected = False
            if self._unknown == "content":
                raw = "".join(self._raw) + tail
                self._content.restore()
                if raw:
                    self._content.put(raw)
        self._raw = []

    def _tool_names(self) -> dict[str, Any]:
        index = self._schema_index
        if index is None:
            index = self._schema_index = _schema_index(self._schema)
        return index

    def _commit(self, call: _Call) -> None:
        call.index = self._ncalls
        self._ncalls += 1
        parts, call.parts = call.parts, []
        entry = [call.index, call.id or self._new_id(), call.name, parts]
        if self._tool_out:
            self._tool_out.append(entry)  # type: ignore[union-attr]
        else:
            self._tool_out = [entry]

    def _channel_r(self) -> Channel:
        """The reasoning channel (only parsers with a reasoning format have one)."""
        assert self._reasoning is not None
        return self._reasoning

    def junk(self, text: str) -> None:
        """Text inside a tool-call block after a finished call that is no call: content
        (whitespace next to the calls is dropped by the channel's rule; a space keeps it
        apart from content before the block, as ``Sure. g(b=x)``, not ``Sure.g(b=x)``)."""
        content = self._content
        if content.nonempty and content.lead:
            content.sep = " "
        content.put(text)

    def param_types(self, function: str, param: str) -> list[str] | None:
        """JSON-schema types of ``function``'s parameter ``param`` in ``tools_schema`` (None: unknown)."""
        props = self._tool_names().get(function)
        if props is None:
            return None
        spec = props.get(param)
        if spec is None:
            return None
        return _types_of(spec)

    # ------------------------------------------------------------------ tool-call blocks (shared by the machines)
    def _begin_block(self, role: str | None, raw: str, **extra: Any) -> None:
        """A tool-call block opens at marker ``role`` (``raw``; None: at the format's anchor)."""
        tools = self._tools
        assert tools is not None
        self._content.suspend()
        self._raw = [raw] if raw and not tools.drop_opener else []
        self._block_calls = 0
        if self._stream_args:  # a block the anchor opened may be prose: its calls are sent once complete
            self._hold_calls = role is None and tools.hold_anchored
        self._body = tools.body(self, role, **extra, **tools.body_options)

    def _block_text(self, s: str, i: int) -> int:
        """Text ``s[i:]`` to the open block's body; returns where it stopped (the block may have closed)."""
        body = self._body
        assert body is not None
        j = body.text(s, i)
        if body.checkpoint:  # a call completed: the raw text so far was its own
            body.checkpoint = False
            self._checkpoint(s[i:j])
        elif j > i:
            self._raw.append(s[i:j])  # type: ignore[union-attr]
        elif body.status == OPEN:  # a body must consume or decide (guard against a stuck body)
            body.status = FAILED
        if body.status != OPEN:
            self._close_block()
        return j

    def _block_marker(self, role: str, raw: str) -> bool:
        """A marker to the open block's body; whether it was consumed (if not, the block has closed or a call
        completed before it: the caller reads it again)."""
        body = self._body
        assert body is not None
        consumed = body.marker(role, raw)
        checkpoint = body.checkpoint
        if checkpoint:
            body.checkpoint = False
            self._checkpoint(raw if consumed else "")
        elif consumed:
            self._raw.append(raw)  # type: ignore[union-attr]
        if body.status != OPEN:
            self._close_block()
        elif not consumed and not checkpoint:  # guard: a body that neither consumes nor decides
            body.status = FAILED
            self._close_block()
        return consumed

    def _end_block(self) -> bool:
        """Detach the block's body; a block that broke or completed no call becomes content, verbatim.
        Returns whether it held calls (the machine then sets the whitespace rule after it)."""
        body = self._body
        assert body is not None
        self._body = None
        content = self._content
        ok = body.status != FAILED and self._block_calls > 0
        if self._rejected:  # the last call (completed by finish()) was not sent
            self._checkpoint()
        if ok:
            content.stash = ()
            content.held = ()
            # Whitespace the body read after its last call (a block that ends at text, as a JSON call
            # in prose does) still separates the text on either side: kept if text follows.
            if self._raw and not "".join(self._raw).strip(WS):
                self._gap = "".join(self._raw)
        else:
            self.call_fail()
            raw = "".join(self._raw)
            content.restore()
            if raw:
                content.put(raw)
        self._raw = ()
        return ok

    def _close_block(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ machine hooks (and the lexer's: _text, _marker)
    def _end(self) -> None:
        raise NotImplementedError


class ThinkToolsParser(StreamParser):
    """Reasoning delimited by start/end markers, plus tool-call blocks."""

    def _plain_split(self) -> Callable[..., ParseResult | None] | None:
        """Reasoning-only parsers (no tools, no role label, nothing pre-filled): the tables' compiled
        cut, :meth:`_whole_plain`'s reading of a text in one call, markers found and all."""
        if self._tools is not None or self._label or self._prefill:  # (_setup leaves _mode REASONING or CONTENT)
            return None
        fmt = self._reasoning_fmt
        return self._tables.plain_split(self._mode == REASONING, fmt is not None and not fmt.label)

    # ------------------------------------------------------------------ whole outputs read without the machine
    # (what this machine makes of outputs of a common shape; tests compare every one with its reading)
    def _ids_reasoning_only(self, token_ids: Any) -> ParseResult | None:
        """A reasoning-only output's ids of a usual shape read as runs, each decoded on its own (no
        joined text to cut; :meth:`_whole_plain`'s result for them): reasoning -- after the start
        marker ids the model wrote itself (dropped; text before them is reasoning too) --, its end
        marker id, content; reasoning cut off before its end marker; or, in an output that starts
        outside reasoning, content with no marker, or reasoning that a start marker id opens first
        thing (only whitespace before it). None where anything else is there: another marker id,
        any marker's text spelled by the ordinary tokens (the general reading judges those)."""
        if self._label or self._prefill:
            return None
        tables = self._tables
        got = gather.runs(token_ids, tables.id_table or tables.load_id_table(self._tok), False)
        if got is None:
            return None
        runs, positions = got
        find_all = tables.text_automaton.find_all
        n = len(positions)
        if self._mode != REASONING and n == 0:  # content alone (reasoning off)
            content = runs[0].decode("utf-8", "replace")
            return ParseResult(None, content or None, []) if find_all(content) == [] else None
        roles, id_roles = tables.roles, tables.id_roles
        j = 0  # start marker ids first: the model opened its reasoning itself (dropped, as in reasoning)
        while j < n and roles[id_roles[token_ids[positions[j]]]] == "reasoning_start":
            j += 1
        if self._mode != REASONING and (not j or self._reasoning_fmt.label or runs[0].strip(_WS_BYTES)):  # type: ignore[union-attr]
            return None  # (text before the start marker is content there: the general reading)
        if n > j + 1 or (n > j and roles[id_roles[token_ids[positions[j]]]] != "reasoning_end"):
            return None
        if j > 1 or (j and runs[0].strip(_WS_BYTES)):  # (text or a marker before the last start marker)
            reasoning = "".join([run.decode("utf-8", "replace") for run in runs[: j + 1]]).strip(WS)
        else:
            # Stripped as bytes, then decoded: the same text (whitespace is ASCII, never part of a
            # character, and the replacement of invalid bytes does not depend on it), with no copy
            # of the decoded text.
            reasoning = runs[j].strip(_WS_BYTES).decode("utf-8", "replace")
        content = runs[j + 1].lstrip(_WS_BYTES).decode("utf-8", "replace") if n > j else ""
        if find_all(reasoning) != [] or find_all(content) != []:  # (None: not scannable)
            return None
        return ParseResult(reasoning or None, content or None, [])

    def _whole_plain(self, text: str, hits: list[tuple[int, int, int]]) -> ParseResult | None:
        """A whole output of a common shape, read without the machine (None: the machine reads it):
        the reasoning -- opened by the template, or by the model with start markers that only
        whitespace precedes (as original Qwen3 and DeepSeek-R1 write it) --, closed by its end marker
        or running to the end (an output cut short); or no reasoning (no reasoning format, or the
        output starts outside reasoning); then content; then tool-call blocks that the body grammar
        reads whole (its ``read_whole``: Hermes-style blocks, :meth:`.JsonCalls.read_whole`) with
        nothing but whitespace after them.
        The result is exactly the machine's (tests compare)."""
        tools = self._tools
        if self._label or self._unknown or (tools is not None and tools.anchor):
            return None  # (an anchor opens calls in the content itself, with no marker)
        names = self._tables.text_names
        mode, j, n = self._mode, 0, len(hits)
        if n and names[hits[0][0]] == "reasoning_start":  # the model opened its reasoning itself
            j = 1
            while j < n and names[hits[j][0]] == "reasoning_start":
                j += 1
            if mode == CONTENT:  # (reasoning then, as if the template had opened it)
                if self._reasoning_fmt.label or self._prefill or text[: hits[0][1]].strip(WS):  # type: ignore[union-attr]
                    return None
                mode = REASONING
        if mode == REASONING:
            # Reasoning: what is not a start marker up to the end marker (or the end), stripped (a
            # start marker inside reasoning is dropped: the machine reads one so).
            if j == n:
                start = after = len(text)
            else:
                k, start, after = hits[j]
                if names[k] != "reasoning_end":
                    return None
            if j > 1 or (j and hits[0][1] and text[: hits[0][1]].strip(WS)):  # (text or a marker before the last start)
                pieces = [text[: hits[0][1]]]
                pieces += [text[hits[i - 1][2] : hits[i][1]] for i in range(1, j)]
                pieces.append(text[hits[j - 1][2] : start])
                reasoning = "".join(pieces).strip(WS)
            else:
                at = hits[0][2] if j else 0
                reasoning = text[at:start].strip(WS) if start - at <= _SHORT_SPAN else _stripped(text, at, start)
            if j == n:
                return ParseResult(reasoning or None, None, [])
            first = j + 1
        elif mode == CONTENT and not self._prefill:
            reasoning, first, after = "", 0, 0
        else:
            return None
        calls: list[ToolCall] = []
        if n == first:
            if not first:
                content = text
            elif len(text) - after <= _SHORT_SPAN:
                content = text[after:].lstrip(WS)
            else:
                content = _stripped(text, after, len(text), right=False)
        else:
            # The blocks, read at once by the body grammar where it can (else the machine reads them).
            read_whole = tools.read_whole if tools is not None else None
            if read_whole is None:
                return None
            found = read_whole(text, hits, first, names, tools.body_options, self._new_id)  # type: ignore[union-attr]
            if found is None:
                return None
            calls = found
            tail = text[hits[-1][2] :]
            if tail.strip(WS):
                return None
            before = text[after : hits[first][1]]
            # After reasoning, whitespace that only separates it is layout; the content's own leading
            # whitespace stays otherwise. Whitespace before a call is layout; after the last, text.
            before = before.strip(WS) if first else before.rstrip(WS)
            content = before + tail if before else ""
        return ParseResult(reasoning or None, content or None, calls)

    # ------------------------------------------------------------------ the machine

    def _text(self, s: str) -> None:
        i = 0
        n = len(s)
        while i < n:
            mode = self._mode
            if mode == BLOCK:
                i = self._block_text(s, i)
                continue
            rest = s[i:] if i else s
            if mode == REASONING:
                if self._label:
                    rest = self._strip_label(rest)
                self._channel_r().put(rest)
                return
            tools = self._tools
            if tools is not None and tools.anchor is not None:
                if tools.anchor_in_prose:
                    k = _first_of(s, tools.anchor, i)
                    # An anchor glued to what precedes it is code, not a call: xs[0], d[key(x=1)], f{...}
                    while k >= 0 and _glued(s[k - 1] if k > i else self._prev):
                        k = _first_of(s, tools.anchor, k + 1)
                    self._prev = "" if k >= 0 else s[-1]
                elif not self._content.nonempty:
                    m = NON_WS.search(s, i)
                    k = m.start() if m is not None and s[m.start()] in tools.anchor else -1
                else:
                    k = -1
                if k >= 0:
                    if k > i:
                        self._content.put(s[i:k])
                    self._open_block(None, "")
                    i = self._block_text(s, k)
                    if i == k and self._mode != BLOCK:  # no call starts here: the anchor is text
                        self._content.put(s[k])
                        self._prev = s[k]
                        i = k + 1
                    continue
            self._content.put(rest)
            return

    def _strip_label(self, s: str) -> str:
        """Reasoning text with the format's role label dropped from its start (held while undecided)."""
        buf = self._lbuf + s
        label = self._label
        if len(buf) < len(label) and label.startswith(buf):
            self._lbuf = buf
            return ""
        self._label = self._lbuf = ""
        return buf[len(label) :] if buf.startswith(label) else buf

    def _flush_label(self) -> None:
        """A marker or the end came while the label was undecided: what was held is reasoning."""
        held = self._lbuf
        self._label = self._lbuf = ""
        if held:
            self._channel_r().put(held)

    def _marker(self, k: int) -> None:
        tables = self._tables
        role = tables.roles[k]
        raw = tables.texts[k]
        self._prev = ""
        if self._label:
            self._flush_label()
        while True:
            mode = self._mode
            if mode == BLOCK:
                if self._block_marker(role, raw):
                    return
                continue  # read the marker again: in the block after a checkpoint, else outside it
            tools = self._tools
            if mode == REASONING:
                if role == "reasoning_end" or role == "content_start" or role == "content_end":
                    self._channel_r().close()
                    self._mode = CONTENT
                    self._content.open(not self._content.nonempty)
                elif role == "reasoning_start":
                    # Already inside reasoning (the template pre-filled it, or the model repeated it); a
                    # role label may still follow when nothing was reasoned yet.
                    if not self._channel_r().nonempty and self._reasoning_fmt is not None:
                        self._label = self._reasoning_fmt.label
                elif role == "reasoning_cut":  # e.g. a tool-call block opened inside reasoning
                    self._channel_r().close()
                    self._mode = CONTENT
                    self._content.open(not self._content.nonempty)
                    self._content.put(raw)
                elif tools is not None and role in tools.block_starts:
                    self._channel_r().close()
                    self._mode = CONTENT
                    self._open_block(role, raw)
                else:
                    self._channel_r().put(raw)
                return
            if role == "reasoning_start" and self._reasoning_fmt is not None:
                self._content.close()
                self._mode = REASONING
                self._channel_r().open(True)
                self._label = self._reasoning_fmt.label
            elif role == "content_start":
                # A marker that opens the answer (Cohere's <|START_RESPONSE|>): dropped; whitespace
                # after it is layout while the content is empty.
                self._content.open(not self._content.nonempty)
            elif role == "content_end":  # one that closes it (Hunyuan's </answer>): dropped, whitespace around it too
                self._content.close()
                self._content.open(True)
            elif tools is not None and role in tools.block_starts:
                self._open_block(role, raw)
            elif role == "reasoning_end" and self._stray_end():  # a closer before any output: dropped
                self._content.close()
                self._content.open(True)
            elif (
                role == "reasoning_end"
                and self._reasoning_fmt is not None
                and self._reasoning_fmt.drop_stray_end == "always"
            ):
                pass  # a control token that is never content
            else:
                self._content.put(raw)
            return

    def _stray_end(self) -> bool:
        """Whether a reasoning end marker read outside reasoning is dropped: the format says so and
        nothing was output yet (MiniMax-M3 may open a reply with an earlier turn's closer)."""
        fmt = self._reasoning_fmt
        return (
            fmt is not None
            and fmt.drop_stray_end
            and not self._content.nonempty
            and not self._channel_r().nonempty
            and not self._ncalls
        )

    def _open_block(self, role: str | None, raw: str) -> None:
        self._mode = BLOCK
        self._begin_block(role, raw)

    def _close_block(self) -> None:
        self._mode = CONTENT
        if self._end_block():
            self._content.open(not self._content.nonempty, self._gap)
            self._gap = ""

    def _end(self) -> None:
        if self._label:
            self._flush_label()
        if self._mode == BLOCK:
            body = self._body
            assert body is not None
            body.finish()
            if body.status == OPEN:
                body.status = FAILED
            self._close_block()
        if self._mode == REASONING:
            self._channel_r().close()
        self._content.flush()


#: Spans up to this long are stripped by slicing then stripping (a copy of a few KB is cheaper than a search).
_SHORT_SPAN = 4096
# Ids up to this many are read as one text and cut (StreamParser._ids_cut): there the call's fixed cost is
# most of a whole output's, and the cut's is a fraction of the runs' reading (_ids_reasoning_only). Beyond,
# decoding the joined text whole (its marker offsets counted) and copying the reasoning out of it cost
# more than decoding the two runs on their own where the text is not ASCII (benchmarks/parsers.py whole).
_CUT_IDS = 2048


def _stripped(text: str, start: int, end: int, right: bool = True) -> str:
    """``text[start:end].strip(WS)`` (``lstrip`` if not ``right``) with one copy of what is kept --
    slicing then stripping copies a long reasoning twice. The bounds: a look at each end, then (where
    it is whitespace) a compiled search for the first non-whitespace and a short walk back over the
    trailing whitespace (a long run: stripped as usual)."""
    if end - start <= _SHORT_SPAN:  # (two short copies cost less than a search)
        span = text[start:end]
        return span.strip(WS) if right else span.lstrip(WS)
    if text[start] in WS:
        m = NON_WS.search(text, start, end)
        if m is None:
            return ""
        start = m.start()
    if right and text[end - 1] in WS:
        k, floor = end - 1, max(start, end - 64)
        while k > floor and text[k - 1] in WS:
            k -= 1
        if k == floor and k > start:  # over 64 whitespace characters at the end
            return text[start:k].rstrip(WS)
        end = k
    return text[start:end]


def _glued(c: str) -> bool:
    """Whether an anchor right after ``c`` continues a word or an expression (``xs[``, ``f(x)[``)."""
    return c != "" and (c.isalnum() or c in "_])")


def _first_of(s: str, chars: str, i: int) -> int:
    """Index of the first of ``chars`` in ``s[i:]`` (-1 if none)."""
    if len(chars) == 1:
        return s.find(chars, i)
    best = -1
    for c in chars:
        k = s.find(c, i)
        if k >= 0 and (best < 0 or k < best):
            best = k
    return best


# ---------------------------------------------------------------------- tools_schema


def _schema_index(schema: Any) -> dict[str, dict[str, Any]]:
    """``{function name: {parameter: schema}}`` from an OpenAI ``tools`` list (lenient about shape); a
    :class:`~toklane.parsing.schema.ToolsSchema`'s is built once and shared (it is only read)."""
    if type(schema) is ToolsSchema:
        index = schema._index
        if index is None:
            index = schema._index = _schema_index(schema.tools)
        return index
    index: dict[str, dict[str, Any]] = {}
    if not schema:
        return index
    for tool in schema:
        if not isinstance(tool, dict):
            tool = getattr(tool, "model_dump", lambda: None)() or getattr(tool, "__dict__", {})
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if not isinstance(fn, dict):
            fn = getattr(fn, "model_dump", lambda: {})() if fn is not None else {}
        name = fn.get("name")
        params = fn.get("parameters") or {}
        if not isinstance(name, str) or not isinstance(params, dict):
            continue
        props = params.get("properties", {})
        index[name] = props if isinstance(props, dict) else {}
    return index


def _types_of(spec: Any) -> list[str]:
    """The JSON-schema type names a parameter allows, in order (``anyOf``/``oneOf`` flattened)."""
    if not isinstance(spec, dict):
        return ["string"]
    t = spec.get("type")
    if isinstance(t, str):
        return [t.strip().lower()]
    if isinstance(t, list) and t:
        return [str(x).strip().lower() for x in t]
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        for sub in spec.get(key) or ():
            out.extend(_types_of(sub))
    if not out:
        if "enum" in spec or "const" in spec:
            return ["string"]
        if "properties" in spec:
            return ["object"]
        if "items" in spec:
            return ["array"]
        return ["any"]
    return out
