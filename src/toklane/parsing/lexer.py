"""The lexer: a model's output -- text, token ids, or the bytes of ordinary tokens -- to the text
between markers and the markers (their roles), for a machine to read.

Text is matched against every marker (and every special token that is no marker, which is dropped)
with one Aho-Corasick automaton (:mod:`toklane.streammatch`); a suffix that may still grow into a
marker is held back, so markers split across chunks are found. Token ids are matched by id for
markers that are added tokens; the bytes of ordinary tokens (:mod:`toklane.gather` reads many ids
at once) go through a byte automaton for text markers and through an incremental UTF-8 decoder for
text. Special tokens that are no marker are dropped (what ``decode(skip_special_tokens=True)``
does). Given ids and text, the ids decide: the text is rebuilt from the ids' cached bytes.

:class:`Lexer` is the lexing half of :class:`~toklane.parsing.machine.StreamParser`: it reads
``self._tables`` and calls the machine's hooks, ``self._text(s)`` and ``self._marker(k)`` (``k``:
the marker's index in the tables).
"""

from __future__ import annotations

import codecs
import contextlib
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import gather
from ..errors import InvalidTokenIdError

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer
    from .tables import Tables

#: Characters per text feed from which markers are found by one compiled scan (below: the DFA).
_SCAN = 64


class Lexer:
    """Text and token ids to the machine's hooks (:meth:`_text`, :meth:`_marker`); state per stream.

    Per-stream state starts as class-level defaults (a parser is made per request)."""

    _tables: Tables
    _tok: Tokenizer | None = None  # set by the parser's setup; None in parse()'s readers (tables.owner serves)
    _done = False  # the output has ended
    _tm: Any = None  # text matcher, made on the first text feed
    _hold = ""  # text held back: it may be the start of a marker
    _bm: Any = None  # byte matcher, made on the first ids feed (if the format has text markers)
    _decoder: Any = None  # incremental UTF-8 decoder, made on the first ids feed
    _id_table: Any = None  # the compiled id reader's tables (gather.IdTable), taken on the first feed of many ids
    _bhold = b""  # bytes held back (they may start a text marker)
    _split = False  # the decoder holds the first bytes of a character
    _ids: bool | None = None  # which input the stream uses, fixed by the first feed
    _plain_ids = False  # reading ids (a token's text is read as it is unless it may start a text marker)
    _fast = False  # _plain_ids, not finished and no split character pending: feed's one-token path applies

    # ------------------------------------------------------------------ machine hooks
    def _text(self, s: str) -> None:
        raise NotImplementedError

    def _marker(self, k: int) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ text, ids, bytes
    def _feed_text(self, text: str, final: bool = False) -> None:
        if not isinstance(text, str):
            raise TypeError(f"feed(text=...) expects str, got {type(text).__name__}")
        if not text:
            return
        if self._ids:
            raise ValueError("this stream is fed token ids; keep feeding token_ids (text is rebuilt from them)")
        self._ids = False
        m = self._tm
        if m is None:
            m = self._tm = self._tables.text_automaton.matcher()
        if len(text) < _SCAN and m.passes(text):  # (the common token: nothing held, no marker's first character)
            self._text(text)
            return
        roles = self._tables.text_roles
        hold = self._hold
        if len(text) >= _SCAN:  # (the held text is the matcher's partial pattern: rescanned from the root)
            # A long chunk: every marker found by one compiled scan, the spans between handed over whole.
            s = hold + text if hold else text
            m.reset()
            hits = m.find_all(s, final)
            if hits is not None:
                pos = self._read_hits(s, hits)
                cut = len(s) - m.partial
                if cut > pos:
                    self._text(s[pos:cut] if pos or cut < len(s) else s)
                self._hold = s[cut:] if cut < len(s) else ""
                return
            self._hold = hold = ""
            text = s  # not scannable: the DFA reads it all from the root
        pos = 0
        while (hit := m.search(text, pos)) is not None:
            end = hit.end
            seg = hold + text[pos:end] if hold else text[pos:end]
            hold = ""
            before = seg[: len(seg) - hit.length]
            if before:
                self._text(before)
            k = roles[hit.pattern]
            if k >= 0:
                self._marker(k)
            pos = end
        rest = hold + text[pos:] if hold else text[pos:]
        cut = len(rest) - m.partial
        if cut > 0:
            self._text(rest[:cut] if cut < len(rest) else rest)
        self._hold = rest[cut:] if cut < len(rest) else ""

    def _read_hits(self, s: str, hits: list[tuple[int, int, int]]) -> int:
        """The text between the markers found in ``s`` (``(pattern, start, end)``), and the
        markers; returns where the last one ended."""
        roles = self._tables.text_roles
        pos = 0
        for k, start, end in hits:
            if start > pos:
                self._text(s[pos:start])
            role = roles[k]
            if role >= 0:  # (else a special token that is no marker: dropped)
                self._marker(role)
            pos = end
        return pos

    def _feed_ids(self, token_ids: Any) -> None:
        if type(token_ids) is not list and type(token_ids) is not tuple and not _flat_array(token_ids):
            token_ids = _id_sequence(token_ids)
        if not len(token_ids):
            return
        ids = self._ids
        if not ids:
            if ids is False:
                raise ValueError("this stream is fed text; keep feeding text")
            self._start_ids()
        id_roles = self._id_roles
        if len(token_ids) == 1 and type(token_ids) is not np.ndarray:  # the decode loop's common case
            t = token_ids[0]
            k = id_roles.get(t)
            if k is not None:
                self._flush_bytes()
                self._marker(k)
                return
            if t in self._drop_ids:
                return
            data = self._table[t] if type(t) is int and 0 <= t < self._size else None
            if data is None:
                if t == -1:  # placeholder of async scheduling: not a token yet
                    return
                data = self._other_id(t)
            if self._bm is None:  # no text markers: decode directly
                if self._split:
                    text = self._decode(data)
                else:
                    try:
                        text = data.decode()
                    except UnicodeDecodeError:
                        text = self._decode(data)
                if text:
                    self._text(text)
                return
            self._bytes(data)
            return
        id_table = self._id_table
        if id_table is None:
            tables = self._tables
            id_table = self._id_table = tables.id_table or tables.load_id_table(self._tok)
        got = gather.runs(token_ids, id_table, False)
        if got is not None:  # many ids, all plain: their bytes in runs cut at the markers
            runs, positions = got
            if positions:
                self._read_runs(runs, [id_roles[token_ids[p]] for p in positions])
            elif runs[0]:  # (the usual chunk: no marker id)
                self._bytes(runs[0])
            return
        if type(token_ids) is np.ndarray:
            token_ids = token_ids.tolist()
        # Validate and group first, so that a bad id changes nothing.
        table = self._table
        drop = self._drop_ids
        size = self._size
        runs: list[bytes] = []
        roles: list[int] = []
        run: list[bytes] = []
        for t in token_ids:
            k = id_roles.get(t)
            if k is not None:
                runs.append(b"".join(run))
                run = []
                roles.append(k)
                continue
            if t in drop:
                continue
            data = table[t] if type(t) is int and 0 <= t < size else None
            if data is None:
                if t == -1:
                    continue
                data = self._other_id(t)
            run.append(data)
        runs.append(b"".join(run))
        self._read_runs(runs, roles)

    def _read_runs(self, runs: list[bytes], roles: list[int]) -> None:
        """Read validated input: runs of ordinary tokens' bytes with a marker (its role) between
        each two (``len(runs) == len(roles) + 1``; empty runs are nothing)."""
        for run, k in zip(runs, roles, strict=False):
            if run:
                self._bytes(run)
            self._flush_bytes()
            self._marker(k)
        if runs[-1]:
            self._bytes(runs[-1])

    def _other_id(self, t: Any) -> bytes:
        """The bytes of an ordinary token given as another integer type (a numpy integer, as the
        detokenizer accepts); anything else -- a bool, a non-integer, an id out of range or
        without bytes -- raises :class:`~toklane.InvalidTokenIdError`."""
        i = None
        if type(t) is not bool:
            with contextlib.suppress(TypeError):
                i = operator.index(t)
        data = self._table[i] if i is not None and 0 <= i < self._size else None
        if data is None:
            raise InvalidTokenIdError(t, self._tables.tokenizer_name, self._size)
        return data

    def _start_ids(self) -> None:
        """The first ids feed: fix the input mode, take the id tables, make the decoder and byte matcher."""
        tables = self._tables
        self._table = tables.token_table or tables.load_token_table(self._tok)
        self._id_roles = tables.id_roles
        self._drop_ids = tables.drop_ids
        self._size = tables.vocab_size
        self._ids = True
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        if tables.byte_automaton is not None:
            self._bm = tables.byte_automaton.matcher()
        self._plain_ids = self._fast = True
        self._texts = tables.load_plain_texts(self._tok)

    def _decode(self, data: bytes, final: bool = False) -> str:
        """UTF-8 text of ``data``; an unfinished character at the end waits for its next bytes
        (the incremental decoder is used only while one is pending: the common case is one call)."""
        if not self._split:
            try:
                return data.decode()
            except UnicodeDecodeError:
                pass
        decoder = self._decoder
        text = decoder.decode(data, final)
        self._split = not final and bool(decoder.getstate()[0])
        self._fast = self._plain_ids and not self._split and not self._done
        if final:
            decoder.reset()
        return text

    def _bytes(self, data: bytes) -> None:
        bm = self._bm
        if bm is None or (len(data) < _SCAN and bm.passes(data)):  # (the common token: no marker byte)
            text = self._decode(data)
            if text:
                self._text(text)
            return
        roles = self._tables.byte_roles
        hold = self._bhold
        if len(data) >= _SCAN:  # many bytes: every text marker found by one compiled scan
            s = hold + data if hold else data
            bm.reset()
            hits = bm.find_all(s)
            if hits is not None:
                pos = 0
                for k, start, end in hits:
                    text = self._decode(s[pos:start], True)
                    if text:
                        self._text(text)
                    self._marker(roles[k])
                    pos = end
                cut = len(s) - bm.partial
                if cut > pos:
                    text = self._decode(s[pos:cut] if pos or cut < len(s) else s)
                    if text:
                        self._text(text)
                self._bhold = s[cut:] if cut < len(s) else b""
                return
            self._bhold = hold = b""
            data = s  # not scannable: the DFA reads it all from the root
        pos = 0
        while (hit := bm.search(data, pos)) is not None:
            end = hit.end
            seg = hold + data[pos:end] if hold else data[pos:end]
            hold = b""
            text = self._decode(seg[: len(seg) - hit.length], True)
            if text:
                self._text(text)
            self._marker(roles[hit.pattern])
            pos = end
        rest = hold + data[pos:] if hold else data[pos:]
        cut = len(rest) - bm.partial
        if cut > 0:
            text = self._decode(rest[:cut])
            if text:
                self._text(text)
        self._bhold = rest[cut:] if cut < len(rest) else b""

    def _flush_bytes(self) -> None:
        """A marker token or the end: held bytes are text, an unfinished character is U+FFFD."""
        hold = self._bhold
        if not hold and not self._split:
            return
        self._bhold = b""
        if self._bm is not None:
            self._bm.reset()
        text = self._decode(hold, True)
        if text:
            self._text(text)

    def _ids_as_text(self, token_ids: Any) -> tuple[str | None, list[tuple[int, int, int]] | None]:
        """A whole output's ids as the text that reads the same, with its markers found: ``(text,
        hits)``, or ``(None, None)`` where the ids must be read as ids.

        The ordinary tokens' runs between marker ids are decoded (each on its own, as the id path
        decodes them) and joined with the markers' own texts (:func:`.gather.text`, in one pass);
        dropped ids leave nothing. That text reads
        like the ids exactly when its markers are the marker ids and nothing else that the id path
        would not take for one: a text marker anywhere, a token marker or dropped token only where
        its id was. Otherwise -- ordinary tokens spelling a token marker, markers that overlap, ids
        the reader declines -- the id path reads them."""
        tables = self._tables
        got = gather.text(token_ids, tables.id_table or tables.load_id_table(self._tok))
        if got is None:
            return None, None
        text, positions, starts = got
        hits = tables.text_automaton.find_all(text)
        if hits is None:
            return None, None
        # Each marker id's text must be a hit of its own pattern where it was put (a pattern's role is
        # its marker's index, so the hit's end follows); any other hit, a text marker.
        roles, id_roles = tables.text_roles, tables.id_roles
        if len(hits) == len(positions):  # (the usual case: the hits are the marker ids, in order)
            # (indexed, not a three-way zip: that costs more than this loop for the usual one or two markers)
            for j, (k, at, _) in enumerate(hits):
                if at != starts[j] or roles[k] != id_roles[token_ids[positions[j]]]:
                    return None, None
            return text, hits
        free = tables.text_in_bytes
        j, n = 0, len(positions)
        for k, at, _ in hits:
            if j < n and at == starts[j]:
                if roles[k] != id_roles[token_ids[positions[j]]]:
                    return None, None
                j += 1
            elif not free[k]:
                return None, None
        if j != n:
            return None, None
        return text, hits


def _flat_array(token_ids: Any) -> bool:
    """Whether ``token_ids`` is a 1-D numpy array (read as it is; the id reader's fallback takes it)."""
    return type(token_ids) is np.ndarray and token_ids.ndim == 1


def _id_sequence(token_ids: Any) -> list[Any] | tuple[Any, ...]:
    """Ids given as anything but a list, tuple or 1-D numpy array (a torch tensor, another array, a
    numpy or Python integer, an iterable) as a list or tuple."""
    if hasattr(token_ids, "tolist"):  # torch tensors, numpy scalars
        token_ids = token_ids.tolist()
    return (token_ids,) if isinstance(token_ids, int) else list(token_ids)
